"""Tops of cubes that blend into the tray, found by their outlines.

A white cube on a light tray (or a black one on a dark tray) is, pixel by pixel, the tray in
another light: its top differs from it by a few percent and its side faces look like a shadow, so
the pixel labels keep little of it, least where it touches cubes of other colours. What still
shows is its outline: its bevels and side faces ring the top with edges, a closed square of a
top's size, that plain tray, soft shadows and glare do not draw.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import cv2
import numpy as np

from vision import pixels

_LIGHTNESS = cv2.cvtColor(np.arange(256, dtype=np.uint8).reshape(1, 256, 1).repeat(3, 2),
                          cv2.COLOR_BGR2LAB)[0, :, 0].copy()
"""Lightness (8-bit Lab) of each grey level: a grey frame through it is the lightness of its
neutral pixels, which are what the edges here ring, a tenth of the cost of converting to Lab."""

EDGES = ((20, 60, 5), (10, 30, 3), (5, 15, 5))
"""Canny thresholds on the lightness (8-bit Lab) and the Gaussian blur before them: the clear
outlines first, then the faint, then the fainter still (a black top meets a dark tray a few
levels lighter where no side face shows). The clear ones over a wider blur: on a white floor the
wood grain of white tops drew lines from the outline inwards that, closed, left no top inside
(fresh white-floor rig: lone white cubes lost in 9 of 60 drops over a 3 x 3 blur, none over
5 x 5); over a 3 x 3 blur the fainter outlines still show."""
LIGHT_EDGES = (*EDGES[:2], (5, 15, 7))
"""The passes for a light colour (lightness :data:`DARK` and over): the fainter-still outlines
over a 7 x 7 blur. A light floor's noise and grain draw them all over the tray over a 5 x 5 blur
(fresh white-floor rigs: ~500 regions a frame, ~180 over 7 x 7, in half the time; one such region
passed for a white top), while a light top, ringed by its darker side faces, still shows (a
black top's faint outline on a dark tray does not)."""
DARK = 128
"""Lightness (8-bit Lab) under which a colour is dark."""
GAP_CLOSE = 5
"""Edges are closed over gaps this wide (working pixels) so that an outline broken where the top
meets a neighbour still rings it."""
TOP_SIZE = (0.45, 1.4)
"""Area of a ringed region, in one flat cube's top there, that may be a top: the ring's edges take
a pixel or two of the top all round (rendered drops of a light, a pale and a dark tray: tops
ringed so at 0.49-0.82, median 0.62)."""
SQUARE_ASPECT = 1.35
"""Longest side over shortest side of the region's bounding rectangle that is still a square."""
SQUARE_FILL = 0.8
"""Least share of its bounding rectangle a square region fills."""
LEFT_AS_TRAY = 0.8
"""Least share of the region that the pixel labels left as tray or gave the colour itself (a
region inside a cube of another colour is part of that cube)."""
RING_CONTRAST = 3.0
"""Least ratio of the lightness gradient on a region's ring to that inside it (medians) for the
ring to be a top's outline: a top's bevels and side faces change the light sharply all round a
flat top, while the faintest edges also ring patches of a noisy tray, and a patch in a corner of
the walls is ringed sharply on two sides only (fresh white-floor rigs, 100 drops: tops ringed
4.6 times and more, patches of noise 1.3, a corner's patch 2.0; a white top in a flush row of
rendered white cubes 3.9). With the ring's 90th percentile instead, such corners passed (4.7)."""
RING = 3
"""Width (working pixels) of the ring around a region whose light's change is weighed."""
TOP_LIGHTNESS = 0.6
"""Least lightness of a region (median), over its colour's calibrated lightness, for it to be a
top of that colour: a square patch of the tray's wooden chute, ringed by its edges and the
counted region's, passed for a white top (lightness 87 against white's 251; fresh white-floor
rigs, 100 drops, once). Black's lightness is so low that no region is darker than this."""
GROW = 5
"""The found top is grown by this square (working pixels) to give back the edges that ringed it,
so that it meets the colour's side faces and its neighbours as a labelled cube does."""


class _Window(NamedTuple):
    """The tray region's box in a frame, where edges are looked for."""

    grey: np.ndarray
    """Its lightness (8-bit Lab, of the grey level)."""
    gradient: tuple[np.ndarray, np.ndarray]
    """The (x, y) derivatives of it, blurred, that one pass's edges are drawn from."""
    origin: tuple[int, int]
    """Its corner in the frame."""


def outlined_tops(
    work: np.ndarray,
    labels: np.ndarray,
    colour: int,
    roi: np.ndarray,
    top_area: Callable[[float, float], float],
    lightness: float,
) -> np.ndarray:
    """Mask (uint8) of the ringed squares in a working frame that are the tops of cubes of
    ``colour`` (a label) that blend into the tray.

    ``work`` is the working frame (BGR), ``labels`` its pixel labels, ``roi`` where
    the tray may hold cubes now, ``top_area(x, y)`` a flat cube's top area (working pixels)
    at a point, and ``lightness`` the colour's (8-bit Lab).

    A region of tray ringed by cubes of other colours can pass for a top (rendered drops: 4 such
    against 450 tops); that costs little, as such a colour's counts always ask for review.
    """
    rx, ry, rw, rh = cv2.boundingRect(roi)
    found = np.zeros(labels.shape, np.uint8)
    if rw == 0:
        return found
    # Everything below in the tray region's box; points are in the frame's coordinates.
    window = (slice(ry, ry + rh), slice(rx, rx + rw))
    grey = cv2.LUT(cv2.cvtColor(work[window], cv2.COLOR_BGR2GRAY), _LIGHTNESS)
    xs, ys = np.linspace(rx, rx + rw, 5), np.linspace(ry, ry + rh, 5)
    grid = [top_area(x, y) for x in xs for y in ys]
    least, most = TOP_SIZE[0] * min(grid), TOP_SIZE[1] * max(grid)
    centres: list[tuple[float, float]] = []
    close = np.ones((GAP_CLOSE, GAP_CLOSE), np.uint8)
    passes = EDGES if lightness < DARK else LIGHT_EDGES
    gradients = {blur: _gradients(cv2.GaussianBlur(grey, (blur, blur), 0))
                 for blur in {b for _, _, b in passes}}
    for low, high, blur in passes:
        seen = _Window(grey, gradients[blur], (rx, ry))
        edges = cv2.morphologyEx(cv2.Canny(*gradients[blur], low, high), cv2.MORPH_CLOSE, close)
        edges = cv2.dilate(edges, np.ones((2, 2), np.uint8))
        regions, _ = cv2.findContours(
            cv2.bitwise_not(edges) & roi[window], cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE,
            offset=(rx, ry),
        )
        for region in regions:
            area = cv2.contourArea(region)
            if not least <= area <= most:
                continue  # no top anywhere is this size: most regions end here, cheaply
            m = cv2.moments(region)
            x, y = m["m10"] / m["m00"], m["m01"] / m["m00"]
            if any(abs(x - u) < 3 and abs(y - v) < 3 for u, v in centres):
                continue  # the same region under fainter edges
            top = _top(region, area, (x, y), labels, colour, top_area, seen, lightness)
            if top is not None:
                centres.append((x, y))
                (bx, by), inside = top
                found[by : by + inside.shape[0], bx : bx + inside.shape[1]] |= inside
    return cv2.dilate(found, np.ones((GROW, GROW), np.uint8)) if centres else found


def _gradients(img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The derivatives Canny takes of an image (3 x 3 Sobel, edge pixels repeated), made once for
    the passes that share a blur: the same edges, 0.35 ms less a frame."""
    return (cv2.Sobel(img, cv2.CV_16S, 1, 0, borderType=cv2.BORDER_REPLICATE),
            cv2.Sobel(img, cv2.CV_16S, 0, 1, borderType=cv2.BORDER_REPLICATE))


def _top(
    region: np.ndarray,
    area: float,
    centre: tuple[float, float],
    labels: np.ndarray,
    colour: int,
    top_area: Callable[[float, float], float],
    seen: _Window,
    lightness: float,
) -> tuple[tuple[int, int], np.ndarray] | None:
    """The region filled within its bounding rectangle, and that rectangle's corner, if it may
    be a top of ``colour`` (of ``lightness``), ringed by edges drawn in ``seen``."""
    x, y = centre
    if labels[int(y), int(x)] not in (pixels.TRAY, colour):
        return None  # the top of a cube of another colour, ringed as well
    (_, _), (w, h), _ = cv2.minAreaRect(region)
    if max(w, h) > SQUARE_ASPECT * min(w, h) or area < SQUARE_FILL * w * h:
        return None  # most regions of a top's size end here, before their expected size is asked
    if not TOP_SIZE[0] <= area / top_area(x, y) <= TOP_SIZE[1]:
        return None
    bx, by, bw, bh = cv2.boundingRect(region)
    inside = np.zeros((bh, bw), np.uint8)
    cv2.drawContours(inside, [region], -1, 1, -1, offset=(-bx, -by))
    own = labels[by : by + bh, bx : bx + bw][inside > 0]
    if np.mean((own == pixels.TRAY) | (own == colour)) < LEFT_AS_TRAY:
        return None
    x0, y0 = bx - seen.origin[0], by - seen.origin[1]
    if np.median(seen.grey[y0 : y0 + bh, x0 : x0 + bw][inside > 0]) < TOP_LIGHTNESS * lightness:
        return None  # a dark square (the chute's wood), not a light colour's top
    if not _ringed_sharply(inside, (x0, y0), seen.gradient):
        return None
    return (bx, by), inside


def _ringed_sharply(
    inside: np.ndarray, corner: tuple[int, int], gradient: tuple[np.ndarray, np.ndarray]
) -> bool:
    """Whether a region (``inside``, its corner at ``corner`` in the gradient's frame) is
    ringed by a change of light sharper than its inside's (:data:`RING_CONTRAST`)."""
    x, y = corner
    h, w = inside.shape
    x0, y0 = max(0, x - RING), max(0, y - RING)
    x1, y1 = min(gradient[0].shape[1], x + w + RING), min(gradient[0].shape[0], y + h + RING)
    magnitude = (np.abs(gradient[0][y0:y1, x0:x1].astype(np.int32))
                 + np.abs(gradient[1][y0:y1, x0:x1].astype(np.int32)))
    own = np.zeros(magnitude.shape, np.uint8)
    own[y - y0 : y - y0 + h, x - x0 : x - x0 + w] = inside
    ring = cv2.dilate(own, np.ones((2 * RING + 1, 2 * RING + 1), np.uint8)) > own
    core = cv2.erode(own, np.ones((3, 3), np.uint8)) > 0
    if not ring.any() or not core.any():
        return False
    return bool(np.median(magnitude[ring])
                >= RING_CONTRAST * max(1.0, float(np.median(magnitude[core]))))
