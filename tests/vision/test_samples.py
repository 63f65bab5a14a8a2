"""The shared public sample (rendered from a physics simulation): calibrate, count, score."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.bench.camera_changes import CHANGES
from vision import Counter, calibrate, load_calibration_dir
from vision.blobs import SHADE_SLIVER
from vision.count import CountResult
from vision.grading import SEPARATE_FROM_TRAY
from vision.profile import Profile

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = [
    ROOT.parent / "shared" / "vision-samples" / "ring",
    Path("/work/shared/vision-samples/ring"),
]
RING = next((p for p in CANDIDATES if (p / "calib").is_dir()), None)


@pytest.mark.skipif(RING is None, reason="shared vision samples not present")
def test_a_photo_named_for_more_cubes_than_it_holds_does_not_shrink_its_colour(
    tmp_path: Path,
) -> None:
    """The sample's six red cubes named eight: by area alone four of its blobs passed for one
    cube each and two for two, and red's one-cube area was learned a quarter small (every red
    cube then 1.3 cubes). Read by the other colours' area, it shows six: red's area is not
    learned from it, and it warns with the fix."""
    assert RING is not None
    folder = tmp_path / "calib"
    shutil.copytree(RING / "calib", folder)
    (folder / "red-6.jpg").rename(folder / "red-8.jpg")
    red = calibrate(folder).colour("red")
    assert "red-8.jpg shows 6 red cubes, not 8" in red.note and not red.reliable
    assert abs(red.area / calibrate(RING / "calib").colour("red").area - 1) < 0.1


@pytest.mark.skipif(RING is None, reason="shared vision samples not present")
def test_a_misnamed_photo_beside_a_right_one_leaves_its_colour_measured_by_the_right_one(
    tmp_path: Path,
) -> None:
    """red-6.jpg and a copy named red-8.jpg: red's area is red-6.jpg's alone, and the warning
    names the copy (it blamed the tray: the copy counted 6 of 8 with its paint varied)."""
    assert RING is not None
    folder = tmp_path / "calib"
    shutil.copytree(RING / "calib", folder)
    shutil.copy(folder / "red-6.jpg", folder / "red-8.jpg")
    red = calibrate(folder).colour("red")
    assert red.note.startswith("red-8.jpg shows 6 red cubes, not 8") and not red.reliable
    assert abs(red.area / calibrate(RING / "calib").colour("red").area - 1) < 0.01


@pytest.mark.skipif(RING is None, reason="shared vision samples not present")
def test_ring_sample_counts_exactly_or_asks() -> None:
    assert RING is not None
    counter = Counter(calibrate(RING / "calib"))
    exact = exact_with_beam = asked = asked_with_beam = 0
    images = sorted((RING / "tests").glob("*.jpg"))
    for img in images:
        truth = json.loads(img.with_suffix(".json").read_text())["counts"]
        frame = cv2.imread(str(img))
        res = counter.count(frame)
        assert res.counts == truth or res.needs_review, (img.name, res.counts, truth)
        # The exit beam's total settles doubts about piles, mends a pile read one cube off (and
        # still asks), and never hides a wrong count.
        beam = counter.count(frame, expected_total=sum(truth.values()))
        assert beam.counts == truth or beam.needs_review, (img.name, beam.counts, truth)
        assert beam.counts == res.counts or beam.needs_review
        exact += res.counts == truth
        exact_with_beam += beam.counts == truth
        asked += res.counts == truth and res.needs_review
        asked_with_beam += beam.counts == truth and beam.needs_review
    # 003's pile of six green cubes included: its seams cut a pair as one piece of 2.36 tops,
    # and from its area alone (5.65 cube areas) it read as five.
    assert exact == len(images)
    # Right counts that ask: 003 (hard: a red cube's sliver under a green one, a yellow cube
    # lying on another, piles whose seams and area disagree) and 010's cluster of 16 red cubes
    # (seams and area agree, but a pile that large may hide one more). (008's piles, their seams
    # agreeing, asked too while seam pieces off a whole number of tops cost 0.97 each.)
    assert asked <= 2
    # The beam never makes a sure count doubtful (a count it mends is right but always asks).
    assert exact_with_beam >= exact
    assert exact_with_beam - asked_with_beam >= exact - asked


@pytest.mark.skipif(RING is None, reason="shared vision samples not present")
@pytest.mark.parametrize(
    "name", ["half", "dim", "keystone", "dim+blur", "far", "rolled", "lamp"])
def test_the_sample_seen_by_another_camera_counts_exactly_or_asks(name: str) -> None:
    """The same drops through a smaller camera, in dim and noisy light, from a slant, dim and
    blurred at once, smaller and further up, turned about its axis, or lit by a lamp to one side:
    every colour still separates (black's model takes in none of the shadows beside its cubes,
    noise is no hard light, grey crevice shadows are no traces of a coloured cube, and white
    showing little more than its tops at 640 x 480 is not lost in the tray), the crevices on the
    lamp's far side are no white cubes, and every count is right or asks."""
    assert RING is not None
    change = CHANGES[name]
    profile = _calibrated_through(change)
    assert all(m.reliable for m in profile.colours), [(m.name, m.note) for m in profile.colours]
    drops = list(_counted_through(change, Counter(profile)))
    for photo, res, truth in drops:
        assert res.counts == truth or res.needs_review, (photo, res.counts, truth)
    assert sum(res.counts == truth for _, res, truth in drops) >= len(drops) - 1


@pytest.mark.skipif(RING is None, reason="shared vision samples not present")
def test_white_whose_blurred_rims_pass_for_the_tray_is_still_told_from_it() -> None:
    """A small camera further up, blurred: the white cubes' rims are smeared across the tray's
    range into their shadows and read as tray, so white shows 0.54 of a coloured cube's area
    (under the 0.6 then asked of black and white) and was graded lost in the tray: every count
    asked, and 000 read a white cube in the tray. Its tops, lit 1.6 times the tray and holding
    together, stand clear of it."""
    assert RING is not None
    change = CHANGES["far+blur"]
    profile = _calibrated_through(change)
    white = profile.colour("white")
    assert white.tray_separation < SEPARATE_FROM_TRAY
    assert white.reliable and not white.lift, white.note
    sure = 0
    for photo, res, truth in _counted_through(change, Counter(profile)):
        assert res.counts == truth or res.needs_review, (photo, res.counts, truth)
        assert res.counts["white"] == truth["white"], photo
        sure += not res.needs_review
    assert sure >= 4


@pytest.mark.skipif(RING is None, reason="shared vision samples not present")
def test_cubes_that_darker_paint_makes_a_count_ask_about_are_not_lost() -> None:
    """A camera further up that smooths noise away: with their paint a fifth darker, green's
    calibration photo counted 9 of its 8 cubes and asked. Nothing was lost, but green was graded
    lost in the tray and every count asked."""
    assert RING is not None
    change = CHANGES["far+smoothed"]
    profile = _calibrated_through(change)
    assert all(m.reliable for m in profile.colours), [(m.name, m.note) for m in profile.colours]
    sure = 0
    for photo, res, truth in _counted_through(change, Counter(profile)):
        assert res.counts == truth or res.needs_review, (photo, res.counts, truth)
        sure += not res.needs_review
    assert sure >= 4


@pytest.mark.skipif(RING is None, reason="shared vision samples not present")
def test_a_slanted_view_is_fitted_as_a_tilt_not_as_side_faces() -> None:
    """Seen from a slant (the far edge 12% narrower), cubes on the near side of the sample's tray
    show up to 47% more area than on the far side. From their areas alone the calibration fitted
    side faces seen from a point off to one side instead (lift 0.0019, twice the camera's, the
    tilt 0.14): tops read 25% small, seams confirmed no pile, and 5 of the 11 right counts
    asked. The tops that seams cut pin the tilt."""
    assert RING is not None
    change = CHANGES["keystone"]
    profile = _calibrated_through(change)
    assert profile.area_map.slope[1] > 0.3 and profile.area_map.lift < 0.0015, profile.area_map
    asked = sum(res.counts == truth and res.needs_review
                for _, res, truth in _counted_through(change, Counter(profile)))
    assert asked <= 3


@pytest.mark.skipif(RING is None, reason="shared vision samples not present")
@pytest.mark.parametrize("name", ["half", "warm", "blur"])
def test_the_shade_in_a_crevice_between_cubes_is_no_black_cube(name: str) -> None:
    """Seen by these cameras, the dark crevices between cubes in the sample's drops 001 and 010
    come out as black slivers against the cubes (no black cube lies there): lit about a third of
    the way from black paint to the tray, they are shade, and ask nothing."""
    assert RING is not None
    change = CHANGES[name]
    counter = Counter(_calibrated_through(change))
    for photo in ("001", "010"):
        res = counter.count(change(cv2.imread(str(RING / "tests" / f"{photo}.jpg"))))
        assert not [b for b in res.blobs if b.reason == SHADE_SLIVER], (photo, res.reasons)
        assert res.counts["black"] == 0


@pytest.mark.skipif(RING is None, reason="shared vision samples not present")
def test_a_camera_turned_about_its_axis_sees_no_cube_where_the_rim_leaves_the_frame() -> None:
    """Turned 4 degrees, the camera sees the tray's rim reach the frame's edge: each photo's
    nudge carried part of the band watched outside the floor out of view, the frame's edge
    there looked changed, and 9 of the 12 counts asked for something on the rim."""
    assert RING is not None
    change = CHANGES["rolled"]
    for photo, res, _ in _counted_through(change, Counter(_calibrated_through(change))):
        assert not [r for r in res.reasons if "outside its floor" in r], (photo, res.reasons)


def _counted_through(
    change: Callable[[np.ndarray], np.ndarray], counter: Counter
) -> Iterator[tuple[str, CountResult, dict[str, int]]]:
    """Each of the sample's drop photos, changed as another camera takes it, counted: its name,
    the result and its true counts."""
    assert RING is not None
    for img in sorted((RING / "tests").glob("*.jpg")):
        truth = json.loads(img.with_suffix(".json").read_text())["counts"]
        yield img.name, counter.count(change(cv2.imread(str(img)))), truth


def _calibrated_through(change: Callable[[np.ndarray], np.ndarray]) -> Profile:
    """The sample's calibration folder, every photo first changed as another camera takes it."""
    assert RING is not None
    empty, samples = load_calibration_dir(RING / "calib")
    return calibrate(
        empty=change(empty), samples=[replace(s, image=change(s.image)) for s in samples]
    )
