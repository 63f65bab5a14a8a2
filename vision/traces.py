"""Traces of cubes lying almost wholly under cubes of other colours: the specks of a colour they
leave in sight, told from the shadow in a crevice by their colour.

Such a cube shows only slivers of itself around the cube on it, each thinned by the majority
filter below what a blob must hold, so no blob reading sees it."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import cv2
import numpy as np

from vision import pixels

SPECK_PIXELS = 8
"""Fewest working pixels of a colour that may be a trace of a cube lying under another."""
TRACE_CHROMA = 0.5
"""Least share of its colour's chroma (at its lightness) that such a trace shows: a face of the
cube under the others keeps its colour, a crevice shadow labelled so in dim, blurred light is
nearly grey. Rendered drops (2 seeds, harder piles): 18 traces at 0.68-0.97, 17 of them hidden
cubes; the shared sample dimmed and blurred: 4 false green traces at 0.05-0.33."""
SLIVER_FRACTION = 0.1
"""Smaller blobs are specks; from here to a blob's least size, against another colour, they may
be the corner of a cube lying almost wholly under it."""
FAINT_FRACTION = 0.02
"""Least area (in cube areas) of specks that, too few to be counted as a cube, still make the count
ask (and may be the cube an exit beam's total is short of). Rendered drops (2 seeds, harder
piles), such groups of 0.02-0.1 outside a green felt tray: 15 of 18 lay on a cube hidden under
others, the other 3 on a cube partly hidden; on the felt tray, 14 of 14 were the felt."""
CLEAR_OF_TRAY = 0.9
"""Least tray separation (see :mod:`vision.calibrate`) of a colour whose specks are trusted: a
colour that blends into the tray (green on green felt, 0.81-0.82; red on red felt, 0.80-0.83; the
chromatic colours of every other rendered setup, 0.89-1.0) is seen in the tray's own shaded
crevices and beside its cubes' rims."""
REACH = 1.6
"""Centre distance (in cube sides) within which two parts in sight may be of one cube."""


class Colour(NamedTuple):
    """What trace finding needs of one calibrated colour."""

    label: int
    """Its pixel label."""
    side: float
    """A mean cube's side (working pixels)."""
    lightness: float
    """Its mean lightness (Lab L, 0-255)."""
    chroma: float
    """Its mean chroma (see :func:`vision.pixels.chroma`)."""
    area_at: Callable[[float, float], float]
    """One cube's expected area at a working-image point."""
    faintest: float = SLIVER_FRACTION
    """Least area (in cube areas) of a trace worth reporting."""


class Trace(NamedTuple):
    """Specks that together are one cube almost hidden under others."""

    ratio: float
    """Their area, in cube areas."""
    hull: np.ndarray
    """Their convex hull (points in the crop)."""


def touches_other(label: int, sub: np.ndarray, x: int, y: int, around: np.ndarray | None) -> bool:
    """Whether a blob (mask ``sub`` at ``x, y`` of the labels ``around``) touches a colour other
    than its own ``label``."""
    if around is None:
        return False
    h, w = sub.shape
    y0, x0 = max(0, y - 2), max(0, x - 2)
    near = around[y0 : y + h + 2, x0 : x + w + 2]
    ring = np.zeros(near.shape, np.uint8)
    ring[y - y0 : y - y0 + h, x - x0 : x - x0 + w] = sub
    ring = cv2.dilate(ring, np.ones((5, 5), np.uint8))
    other = (near != pixels.TRAY) & (near != pixels.UNKNOWN) & (near != label)
    return bool((other & (ring > 0)).any())


def chroma_share(colour: Colour, work: np.ndarray | None, points: np.ndarray) -> float:
    """How much of its colour's chroma a few pixels (x, y) of the working frame show, against
    what a face of that colour shows at their lightness (a face turned from the light is
    darker, and its chroma falls with its lightness)."""
    if work is None or points.size == 0:
        return 1.0
    bgr = work[points[:, 1], points[:, 0]]
    mean = pixels.lab_of_pixels(bgr).astype(np.float64).mean(0)
    expected = colour.chroma * min(1.0, mean[0] / max(1.0, colour.lightness))
    return pixels.chroma(mean) / max(1.0, expected)


def hidden_traces(
    colour: Colour,
    own: np.ndarray,
    blobs: np.ndarray,
    counted: np.ndarray,
    around: np.ndarray,
    origin: tuple[int, int],
    slivers: list[tuple[int, int, int, int]],
    work: np.ndarray | None,
) -> list[Trace]:
    """Cubes lying almost wholly under cubes of other colours, from the specks they leave.

    Specks of a colour (``own``, a crop at ``origin`` of the working image) against other colours
    (``around``, the labels), outside its counted blobs (``counted`` per label of ``blobs``), that
    lie within :data:`REACH` of each other and together hold a sliver's area are one cube
    (rendered drops, both pile mixes: 9 of 10 such groups were a hidden cube of that colour; the
    tenth, green specks on a green felt tray). Black and white are left out by the caller:
    crevices between cubes are black, and glare white (the shared sample's photos). Specks beside
    a counted sliver (boxes in ``slivers``, working image) are more of that hidden cube.
    """
    n, comp, stats, cents = pixels.components(own)
    specks = []
    reach = REACH * colour.side
    seen = [(x + w / 2, y + h / 2) for x, y, w, h in slivers]
    for j in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[j])
        if area < SPECK_PIXELS:
            continue  # (larger ones left uncounted too: a sliver too thin to read as a blob)
        sub = (comp[y : y + h, x : x + w] == j).view(np.uint8)
        if counted[blobs[y : y + h, x : x + w][sub > 0]].any():
            continue  # joined to a counted blob through unknown pixels
        if not touches_other(colour.label, sub, x, y, around):
            continue
        centre = (float(cents[j][0]) + origin[0], float(cents[j][1]) + origin[1])
        if any(math.dist(centre, c) < reach for c in seen):
            continue
        pts = cv2.findNonZero(sub) + np.array([x, y], np.int32)
        specks.append((area / colour.area_at(*centre), centre, pts))
    out = []
    while specks:
        near = [math.dist(sp[1], specks[0][1]) < reach for sp in specks]
        group = [sp for sp, close in zip(specks, near, strict=True) if close]
        specks = [sp for sp, close in zip(specks, near, strict=True) if not close]
        ratio = sum(sp[0] for sp in group)
        if ratio < colour.faintest:
            continue
        pts = np.concatenate([sp[2] for sp in group])
        if chroma_share(colour, work, pts.reshape(-1, 2) + np.array(origin)) < TRACE_CHROMA:
            continue  # dark and grey: the shadow in a crevice, not a face of the colour
        out.append(Trace(ratio, cv2.convexHull(pts)))
    return out

