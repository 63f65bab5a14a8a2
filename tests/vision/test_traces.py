"""Traces of a cube almost hidden under another colour: specks of its colour, near each other
and against the cube on it, are one cube; grey specks (a crevice's shadow) and specks alone on
the tray are none."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import pixels
from vision.traces import (
    CLEAR_OF_TRAY,
    FAINT_FRACTION,
    SLIVER_FRACTION,
    Colour,
    hidden_traces,
    touches_other,
)

from .conftest import bench_drop

RED, YELLOW = 1, 2
SIDE = 14.0
YELLOW_BGR = (40, 210, 230)


def _yellow() -> Colour:
    lab = cv2.cvtColor(np.uint8([[YELLOW_BGR]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float)
    return Colour(YELLOW, SIDE, lab[0], pixels.chroma(lab), lambda x, y: SIDE * SIDE)


def _scene(speck_bgr: tuple[int, int, int], beside_red: bool = True) -> tuple:
    """A red cube with two 4x4 yellow specks along two of its sides (or out on the tray)."""
    labels = np.zeros((60, 60), np.uint8)
    work = np.full((60, 60, 3), 128, np.uint8)
    labels[20:40, 20:40] = RED
    work[20:40, 20:40] = (30, 30, 200)
    at = [(16, 26), (26, 40)] if beside_red else [(2, 2), (2, 12)]
    for y, x in at:
        labels[y : y + 4, x : x + 4] = YELLOW
        work[y : y + 4, x : x + 4] = speck_bgr
    own = (labels == YELLOW).view(np.uint8)
    return own, labels, work


def _traces(own: np.ndarray, labels: np.ndarray, work: np.ndarray) -> list:
    no_blobs = np.zeros(labels.shape, np.int32)
    return hidden_traces(
        _yellow(), own, no_blobs, np.zeros(1, bool), labels, (0, 0), [], work
    )


def test_specks_of_a_colour_against_another_are_one_hidden_cube() -> None:
    traces = _traces(*_scene(YELLOW_BGR))
    assert len(traces) == 1
    assert traces[0].ratio == pytest.approx(32 / SIDE**2)


def test_grey_specks_are_a_crevice_shadow_not_a_cube() -> None:
    assert _traces(*_scene((90, 90, 90))) == []


def test_specks_alone_on_the_tray_are_no_cube() -> None:
    own, labels, work = _scene(YELLOW_BGR, beside_red=False)
    assert _traces(own, labels, work) == []


def test_specks_beside_a_counted_sliver_are_more_of_that_cube() -> None:
    own, labels, work = _scene(YELLOW_BGR)
    no_blobs = np.zeros(labels.shape, np.int32)
    sliver = [(24, 14, 8, 6)]  # already counted, right beside the specks
    traces = hidden_traces(
        _yellow(), own, no_blobs, np.zeros(1, bool), labels, (0, 0), sliver, work
    )
    assert traces == []


def test_a_thin_sliver_too_large_for_a_speck_is_a_hidden_cube_too() -> None:
    """A cube under another shows an L of its colour two pixels wide along the cube on it: more
    pixels than a speck, too thin to read as a blob once opened (rendered drops drawn the second
    way, 16:9 webcam, seed 17, #22: a yellow cube 22% in sight under a blue one went uncounted,
    and the drop did not ask)."""
    labels = np.zeros((60, 60), np.uint8)
    work = np.full((60, 60, 3), 128, np.uint8)
    labels[20:40, 20:40] = RED
    work[20:40, 20:40] = (30, 30, 200)
    labels[18:20, 18:40] = labels[18:40, 18:20] = YELLOW  # 84 pixels, two wide
    work[labels == YELLOW] = YELLOW_BGR
    own = (labels == YELLOW).view(np.uint8)
    assert cv2.morphologyEx(own, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)).sum() == 0
    (trace,) = _traces(own, labels, work)
    assert trace.ratio == pytest.approx(84 / SIDE**2)


def test_touching_another_colour_ignores_tray_and_unknown() -> None:
    labels = np.zeros((20, 20), np.uint8)
    labels[5:10, 5:10] = YELLOW
    labels[5:10, 10:14] = pixels.UNKNOWN
    sub = np.ones((5, 5), np.uint8)
    assert not touches_other(YELLOW, sub, 5, 5, labels)
    labels[5:10, 11:14] = RED
    assert touches_other(YELLOW, sub, 5, 5, labels)


def test_faint_specks_are_reported_only_for_a_colour_clear_of_the_tray() -> None:
    """Specks of a twentieth of a cube: too few to count, reported (to ask) for a colour the
    tray never looks like, and not for one that blends into it."""
    own, labels, work = _scene(YELLOW_BGR)
    big = _yellow()._replace(area_at=lambda x, y: 4 * SIDE * SIDE)  # 32 px of 784
    no_blobs = np.zeros(labels.shape, np.int32)

    def traces(colour: Colour) -> list:
        return hidden_traces(colour, own, no_blobs, np.zeros(1, bool), labels, (0, 0), [], work)

    assert traces(big) == []
    found = traces(big._replace(faintest=FAINT_FRACTION))
    assert len(found) == 1 and FAINT_FRACTION <= found[0].ratio < SLIVER_FRACTION


@pytest.mark.parametrize(("k", "red"), [(1, 3), (16, 0)])
def test_specks_and_slivers_of_a_colour_the_tray_shows_are_not_counted(k: int, red: int) -> None:
    """A red felt tray (seed 78, sample-like piles): beside other cubes the felt shows red specks
    and slivers, and each was counted as a red cube almost hidden there (drop 1: 4 red for 3;
    drop 16: 3 red for none). Red blends into that tray (it shows 0.8 of a cube against it): such
    specks and slivers are not counted, and still ask (a cube may lie under there), unless the
    exit beam's total agrees. In 30 drops 12 groups of specks and 2 slivers were all the felt."""
    counter, img, truth = bench_drop("red-felt", 78, k, piles=(0.03, 0.01))
    assert counter.profile.colour("red").tray_separation < CLEAR_OF_TRAY
    res = counter.count(img)
    assert truth.counts.get("red", 0) == red and res.counts == truth.counts
    assert res.needs_review and any(r.startswith("red") for r in res.reasons)
    beam = counter.count(img, expected_total=sum(truth.counts.values()))
    assert beam.counts == truth.counts and not beam.needs_review
