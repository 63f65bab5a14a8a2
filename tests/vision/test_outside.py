"""The watch on the tray just outside the floor the counter reads (the rim, the chute)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.align import Alignment
from vision.outside import BAND_SIDES, OutsideWatch

SIDE = 20.0


def _as_is(x: float, y: float) -> tuple[float, float]:
    """Working pixels as photo pixels (a profile at full scale, reading the whole photo)."""
    return x, y


@pytest.mark.parametrize(("sides_out", "asks"), [(1.0, True), (2.5, True), (BAND_SIDES + 1, False)])
def test_a_cube_outside_the_floor_asks_within_the_band(sides_out: float, asks: bool) -> None:
    """A cube-sized change up to three cube sides past the floor's edge asks; further out it is
    no part of the tray the tower drops onto."""
    background = np.full((480, 640, 3), 150, np.uint8)
    roi = np.zeros((480, 640), np.uint8)
    roi[100:380, 150:490] = 255
    watch = OutsideWatch(background, roi, SIDE)
    frame = background.copy()
    x0 = round(490 + (sides_out - 0.5) * SIDE)  # the cube's centre sides_out past the edge
    frame[230:250, x0 - 10 : x0 + 10] = (40, 40, 200)
    labels = np.zeros((480, 640), np.uint8)
    still = Alignment(np.array([[1, 0, 0], [0, 1, 0]], np.float32), 1.0)
    doubts = watch.objects(frame, still, 1.0, labels, _as_is)
    assert bool(doubts) == asks, doubts


def test_the_band_the_tray_moves_out_of_the_frame_is_not_taken_for_a_cube() -> None:
    """With the tray near the frame's edge (a camera turned about its axis, a 16:9 frame), a
    nudge carries part of the band out of view; the frame's edge there shows the tray, not what
    the band held, and that is no cube."""
    background = np.full((480, 640, 3), 150, np.uint8)
    background[:, 630:] = 40  # the table beyond the tray's outer rim, at the frame's edge
    roi = np.zeros((480, 640), np.uint8)
    roi[100:380, 150:600] = 255
    watch = OutsideWatch(background, roi, SIDE)
    nudged = np.full_like(background, 40)
    nudged[:, 12:] = background[:, :-12]  # the tray moved 12 px right: the table's strip left
    moved = Alignment(np.array([[1, 0, 12], [0, 1, 0]], np.float32), 1.0)
    labels = np.zeros((480, 640), np.uint8)
    assert watch.objects(nudged, moved, 1.0, labels, _as_is) == []
    nudged[230:250, 610:630] = (40, 40, 200)  # a cube on the rim is still seen
    assert watch.objects(nudged, moved, 1.0, labels, _as_is)


def test_rim_edges_a_few_pixels_off_are_no_cube() -> None:
    """Under a slanted view a nudged tray does not move as one piece: its rim's edges land a few
    pixels off where the floor's alignment puts them (the sample's photos slanted by a fifth:
    5 of 11 right counts asked for something on the rim). The band matches the tray within
    two pixels; a cube on the rim still asks."""
    background = np.full((480, 640, 3), 150, np.uint8)
    background[:, 560:] = 90  # the rim's wall
    background[:, 600:] = 40  # the table beyond it
    roi = np.zeros((480, 640), np.uint8)
    roi[100:380, 150:550] = 255
    watch = OutsideWatch(background, roi, SIDE)
    frame = np.full_like(background, 150)
    frame[:, 563:] = 90  # both edges 3 px further out
    frame[:, 603:] = 40
    still = Alignment(np.array([[1, 0, 0], [0, 1, 0]], np.float32), 1.0)
    labels = np.zeros((480, 640), np.uint8)
    assert watch.objects(frame, still, 1.0, labels, _as_is) == []
    frame[230:250, 570:590] = (40, 40, 200)
    assert watch.objects(frame, still, 1.0, labels, _as_is)


def test_an_edge_beyond_the_frame_that_a_nudge_brings_into_view_is_no_cube() -> None:
    """The tray's wall reaching just past the frame's top at calibration: a nudge down brings
    its far edge, with the table beyond, into view where the band's first rows held the wall
    (drawn the second way, a 16:9 camera: 2 of 27 right counts asked for something on the
    rim there). The band leaves out the rows whose tray range the frame's edge cut off."""
    background = np.full((480, 640, 3), 150, np.uint8)
    background[:30] = 50  # the wall; the table (120) lies just above the frame
    roi = np.zeros((480, 640), np.uint8)
    roi[60:420, 100:540] = 255
    watch = OutsideWatch(background, roi, SIDE)
    nudged = np.full_like(background, 120)
    nudged[3:] = background[:-3]  # the wall's top edge, past the frame at calibration, in view
    # The floor moved a pixel; the wall's top, standing higher, further (parallax).
    moved = Alignment(np.array([[1, 0, 0], [0, 1, 1]], np.float32), 1.0)
    labels = np.zeros((480, 640), np.uint8)
    assert watch.objects(nudged, moved, 1.0, labels, _as_is) == []
    nudged[8:28, 300:320] = (40, 40, 200)  # a cube on the wall is still seen
    assert watch.objects(nudged, moved, 1.0, labels, _as_is)
