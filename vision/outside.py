"""Cube-sized changes on the tray just outside the floor the counter reads: a cube that came to
rest up the tower's chute or on the rim, which no count can hold, so the count asks."""

from __future__ import annotations

import cv2
import numpy as np

from vision import pixels
from vision.align import Alignment
from vision.outlines import ToPhoto

BAND_SIDES = 3.0
"""How far past the read floor (in cube sides) the tray is watched: the rim and the chute."""
CHANGE = 25.0
"""Lab distance from the empty tray (at the frame's exposure) that marks a pixel as changed."""
SMALLEST = 0.4
"""Least changed area (in cube areas) that asks: a cube lying flat shows about 1."""
ACROSS = 9
"""The band is looked at on a grid of about this many points across a cube's side (8-11; every
second working pixel each way at the least): cubes read 24-30 pixels wide cost half as many
points as on every second pixel."""


EDGE = pixels.TOLERANCE_PX + 2
"""Working pixels along the frame's edge left out of the band (its tray range reaches past the
frame, and a blurred edge a pixel or two)."""


class OutsideWatch:
    """The band of the empty tray (rim, chute) within :data:`BAND_SIDES` cube sides outside the
    read floor, sampled once at calibration scale, and the check of a frame against it."""

    def __init__(self, background: np.ndarray, roi: np.ndarray, side: float) -> None:
        # Pixels within reach of the floor: the floor grown by a disc of that radius, found by
        # distance (some 15 times faster than growing it: calibration builds 17 counters).
        away = cv2.distanceTransform(cv2.bitwise_not(roi), cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
        band = (away <= round(BAND_SIDES * side) + 0.5) & (roi == 0)
        # Within reach of the frame's edge a point's tray range stops at the edge: an edge of the
        # rim just beyond it, brought into view when the tray moves, would read as a change.
        band[:EDGE] = band[-EDGE:] = False
        band[:, :EDGE] = band[:, -EDGE:] = False
        self.step = step = max(2, round(side / ACROSS))
        band = band[::step, ::step]
        self.shape = band.shape
        ys, xs = np.nonzero(band)
        self.cells = (ys, xs)
        self.points = np.stack([xs * step, ys * step, np.ones_like(xs)]).astype(np.float64)
        # The rim's edges move a pixel or two against the floor's (the walls' parallax, a
        # slanted view): each point may match the tray anywhere within that reach.
        lo, hi = pixels.tray_range(background)
        self.lo = lo[ys * step, xs * step].astype(np.float32)
        self.hi = hi[ys * step, xs * step].astype(np.float32)
        self.smallest = SMALLEST * side * side / step**2
        self.half = 0.5 * side * side / step**2

    def objects(
        self, work: np.ndarray, alignment: Alignment, gain: float, labels: np.ndarray,
        to_photo: ToPhoto,
    ) -> list[str]:
        """One doubt per cube-sized change in the band of a working frame exposed ``gain``
        times the calibration's, the tray moved by ``alignment``. A change under half a cube
        touching what the counter labelled (``labels``) is the outer part of a cube across the
        floor's edge, read inside it."""
        if not self.points.size:
            return []
        h, w = work.shape[:2]
        moved = np.rint(alignment.warp.astype(np.float64) @ self.points)
        # Where the tray moved part of the band out of the frame, the frame shows nothing of it.
        inside = (moved[0] >= 0) & (moved[0] <= w - 1) & (moved[1] >= 0) & (moved[1] <= h - 1)
        fx = np.clip(moved[0], 0, w - 1).astype(np.intp)
        fy = np.clip(moved[1], 0, h - 1).astype(np.intp)
        seen_px = np.take(work.reshape(-1, 3), fy * w + fx, axis=0)
        nearest = np.clip(seen_px, self.lo * gain, self.hi * gain)  # the likest tray nearby
        both = np.concatenate([seen_px, np.clip(nearest, 0, 255).astype(np.uint8)])
        lab = pixels.lab_of_pixels(both).reshape(2, -1, 3)
        diff = lab[0].astype(np.int32) - lab[1]
        far = (np.einsum("ij,ij->i", diff, diff) > CHANGE**2) & inside
        if np.count_nonzero(far) < self.smallest:
            return []
        changed = np.zeros(self.shape, np.uint8)
        changed[self.cells[0][far], self.cells[1][far]] = 1
        changed = cv2.morphologyEx(changed, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        n, comp, stats, cents = pixels.components(changed)
        step = self.step
        read = cv2.dilate((labels[::step, ::step] != pixels.TRAY).view(np.uint8),
                          np.ones((3, 3), np.uint8))
        out = []
        for j in range(1, n):
            area = stats[j, cv2.CC_STAT_AREA]
            if area < self.smallest or (area < self.half and read[comp == j].any()):
                continue
            x, y = to_photo(*(cents[j] * step))
            out.append(f"something on the tray outside its floor at ({x:.0f}, {y:.0f}): "
                       "a cube on the rim or the chute?")
        return out
