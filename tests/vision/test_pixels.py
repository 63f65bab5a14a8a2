"""Pixel labelling: the fast path gives exactly the labels of the plain rule it optimises."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision import pixels
from vision import render as rd
from vision.count import MAX_COLOUR_DISTANCE

from .conftest import drop


def test_fast_classify_matches_the_reference_rule(ring: tuple) -> None:
    setup, _, counter = ring
    for seed, gain in ((1, 1.0), (2, 0.8), (3, 1.25)):
        img, _ = drop(
            setup, 900 + seed, {"red": 4, "black": 4, "white": 4, "blue": 3}, "cluster", 0.3
        )
        work = pixels.to_working(img, counter.size)
        lab = cv2.cvtColor(work, cv2.COLOR_BGR2LAB)
        bg, roi = counter.bg_lab, counter.roi
        fast = pixels.classify(
            work,
            lab,
            bg,
            roi,
            gain,
            counter.tray_test,
            counter.lut_class,
            counter.lut_dist,
            MAX_COLOUR_DISTANCE,
        )
        dark, bright, chroma = pixels.tray_features(lab, bg, gain)
        d_tray = pixels.tray_distance(dark, bright, chroma, counter.tray_test)
        codes = pixels.bgr_codes(work)
        ref = pixels.label_pixels(
            d_tray, counter.lut_class[codes] + 1, counter.lut_dist[codes], roi, MAX_COLOUR_DISTANCE
        )
        assert np.array_equal(fast, ref)
        assert (fast != pixels.TRAY).sum() > 100


def test_alignment_recovers_a_known_shift(ring: tuple) -> None:
    _, _, counter = ring
    bg = counter.background
    moved = cv2.warpAffine(
        bg,
        np.float32([[1, 0, 4.0], [0, 1, -3.0]]),
        (bg.shape[1], bg.shape[0]),
        borderMode=cv2.BORDER_REPLICATE,
    )
    al = pixels.align(bg, moved)
    assert abs(al.warp[0, 2] - 4.0) < 0.7 and abs(al.warp[1, 2] + 3.0) < 0.7
    assert al.score > 0.9


def test_alignment_recovers_a_rotation_and_shift(ring: tuple) -> None:
    """A tray turned 2 degrees and moved: every corner lands within a pixel."""
    _, _, counter = ring
    bg = counter.background
    h, w = bg.shape[:2]
    true = cv2.getRotationMatrix2D((w / 2, h / 2), 2.0, 1.0)
    true[:, 2] += (-5.0, 2.5)
    moved = cv2.warpAffine(bg, true, (w, h), borderMode=cv2.BORDER_REPLICATE)
    al = counter.aligner.align(moved)
    corners = np.array([[0, 0, 1], [w, 0, 1], [0, h, 1], [w, h, 1]], np.float64).T
    assert np.abs(al.warp.astype(np.float64) @ corners - true @ corners).max() < 1.0
    assert al.score > 0.9


def test_majority_vote_removes_speckle_and_keeps_blocks() -> None:
    labels = np.zeros((40, 40), np.uint8)
    labels[10:30, 10:30] = 2
    labels[5, 5] = 3
    labels[20, 20] = 4
    out = pixels.majority(labels, [0, 2, 3, 4])
    assert out[5, 5] == 0 and out[20, 20] == 2 and (out[12:28, 12:28] == 2).all()


def test_sparse_labeller_matches_the_full_rule(ring: tuple) -> None:
    """The counter's half-scale first look loses no pixel the full-scale rule labels."""
    setup, _, counter = ring
    for seed in (4, 5):
        img, _ = drop(
            setup, 950 + seed, {"green": 5, "black": 4, "white": 4}, "cluster", 0.3, shift_mm=3.0
        )
        work = pixels.to_working(img, counter.size)
        al = counter.aligner.align(work)
        bg = pixels.warp_image(counter.bg_lab, al)
        roi = pixels.warp_image(counter.roi, al, cv2.BORDER_CONSTANT)
        lab = cv2.cvtColor(work, cv2.COLOR_BGR2LAB)
        gain = pixels.exposure_gain(lab, bg, roi)
        ref = pixels.classify(
            work,
            lab,
            bg,
            roi,
            gain,
            counter.tray_test,
            counter.lut_class,
            counter.lut_dist,
            MAX_COLOUR_DISTANCE,
        )
        sparse, gain2, box = counter.labeller.labels(
            work, al, counter.lut_class, counter.lut_dist, MAX_COLOUR_DISTANCE
        )
        assert abs(gain2 - gain) < 0.02
        lost = ((ref != pixels.TRAY) & (sparse == pixels.TRAY)).sum()
        assert lost <= 0.002 * (ref != pixels.TRAY).sum()
        assert (sparse != ref).sum() <= 0.01 * (ref != pixels.TRAY).sum()
        x0, y0, x1, y1 = box
        outside = sparse.copy()
        outside[y0:y1, x0:x1] = pixels.TRAY
        assert not outside.any()


def test_lift_ratio_is_smoothed_lightening_over_the_tray_and_nothing_near_other_colours() -> None:
    """A top 4% lighter than the tray stands out once smoothed, noise does not, and the lighter
    rim of a cube of another colour (blurred into the tray) is left out."""
    rng = np.random.default_rng(0)
    h, w = 40, 60
    lab = np.full((h, w, 3), (200, 128, 128), np.uint8)
    lab[..., 0] = np.clip(200 + rng.normal(0, 1.0, (h, w)), 0, 255).astype(np.uint8)
    lab[10:20, 10:20, 0] = 208  # a top 4% lighter
    lab[10:20, 40:50, 0] = 230  # another colour's cube, lighter still
    tray = np.full((h, w, 3), (200, 128, 128), np.uint8)
    view = pixels.HalfView(lab, tray, tray, np.full((h, w), 255, np.uint8), 1.0)
    labels = np.zeros((2 * h, 2 * w), np.uint8)
    labels[20:40, 80:100] = 1  # the other colour, labelled at working scale
    ratio = pixels.lift_ratio(view, labels, cls=6)
    assert ratio[13:17, 13:17].min() > 1.03
    assert ratio[25:, :].max() < 1.02
    assert ratio[8:22, 38:52].max() == 0.0
    labels[20:40, 20:40] = 6  # pixels of the colour looked for are not left out
    assert pixels.lift_ratio(view, labels, cls=6)[13:17, 13:17].min() > 1.03


def test_alignment_sees_a_nudge_of_a_tray_whose_rim_lies_at_the_frames_edge() -> None:
    """A 16:9 camera whose frame the tray fills from top to bottom: the rim slides in and out of
    view. With the frame's border simply left out, 2.4 mm (7 px) read as 0.2 px the wrong way."""
    setup = rd.condition("wide-frame", (960, 540))
    empty, _ = rd.render(setup, [], seed=3)
    aligner = pixels.Aligner(empty)
    for dy in (2.4, -2.4):
        moved, _ = rd.render(replace(setup, tray_shift_mm=(0.0, dy)), [], seed=4)
        got = -float(aligner.align(moved).warp[1, 2])
        expected = dy * setup.px_per_mm
        assert got * expected > 0 and abs(got - expected) < 0.6 * abs(expected), (dy, got)
