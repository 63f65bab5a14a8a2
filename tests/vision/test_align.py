"""Tray alignment: a known motion of the empty tray is recovered."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision import render as rd
from vision import scenes
from vision.align import Aligner, align


def test_alignment_recovers_a_known_shift(ring: tuple) -> None:
    _, _, counter = ring
    bg = counter.background
    moved = cv2.warpAffine(
        bg,
        np.float32([[1, 0, 4.0], [0, 1, -3.0]]),
        (bg.shape[1], bg.shape[0]),
        borderMode=cv2.BORDER_REPLICATE,
    )
    al = align(bg, moved)
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


def test_alignment_sees_a_nudge_of_a_tray_whose_rim_lies_at_the_frames_edge() -> None:
    """A 16:9 camera whose frame the tray fills from top to bottom: the rim slides in and out of
    view. With the frame's border simply left out, 2.4 mm (7 px) read as 0.2 px the wrong way."""
    setup = scenes.condition("wide-frame", (960, 540))
    empty, _ = rd.render(setup, [], seed=3)
    aligner = Aligner(empty)
    for dy in (2.4, -2.4):
        moved, _ = rd.render(replace(setup, tray_shift_mm=(0.0, dy)), [], seed=4)
        got = -float(aligner.align(moved).warp[1, 2])
        expected = dy * setup.px_per_mm
        assert got * expected > 0 and abs(got - expected) < 0.6 * abs(expected), (dy, got)
