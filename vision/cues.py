"""Cues inside one blob that tell touching cubes apart: the dark seams where their bevels meet,
and the cores (pixels far from the blob's edge) that stand apart where cubes touch by a neck."""

from __future__ import annotations

import cv2
import numpy as np

from vision import pixels

NECK_DEPTH = 0.3
"""A cube's core: blob pixels farther than this many cube sides from the blob's edge. Cubes that
touch by a corner or a short stretch of side (a neck) keep their cores apart."""
CORE_LONGEST = 1.15
"""Longest a single cube's core can be (in cube sides): a cube on a corner, seen off axis."""


def neck_count(sub: np.ndarray, side: float) -> int | None:
    """Cubes in a blob whose cubes all touch only by necks: one core each (at least two);
    else None.

    A flat cube's core (the pixels deeper than :data:`NECK_DEPTH` sides inside the blob) is a
    square about 0.4 sides wide; a cube on an edge shows one about twice that, and a cube on a
    corner a compact one up to four times that, but never longer than :data:`CORE_LONGEST`.
    Two cubes pressed flush share a core at least 1.3 sides long. A larger core, or a smaller
    one (a cube mostly hidden), gives no reading: area and seams must decide.
    """
    dist = cv2.distanceTransform(np.pad(sub, 1), cv2.DIST_L2, 3)
    core = (dist > NECK_DEPTH * side).astype(np.uint8)
    n, comp, stats, _ = pixels.components(core)
    if n < 3:
        return None  # one core says nothing of a cube lying partly under it
    one = ((1.0 - 2 * NECK_DEPTH) * side) ** 2
    areas = stats[1:, cv2.CC_STAT_AREA] / one
    if areas.min() < 0.4:
        return None
    for j in np.flatnonzero(areas > 2.3) + 1:
        (_, _), (w, h), _ = cv2.minAreaRect(cv2.findNonZero((comp == j).view(np.uint8)))
        if max(w, h) > CORE_LONGEST * side:
            return None
    return n - 1


SEAM_DEPTH = 0.1
"""Least depth of a seam (a line darker than the faces around it, where the bevels of two
touching cubes meet), as a share of the faces' lightness; calibration raises it above what the
wood grain and noise of a lone cube's face reach."""


NECK_OPEN = 0.3
"""Width (in cube sides) below which a bridge between seam-cut pieces is broken."""


SEAM_BLUR = 1.0
"""Smoothing (working pixels) before seams are looked for: wood grain is finer than a seam."""


def seam_hat(sub: np.ndarray, gray: np.ndarray, side: float) -> np.ndarray:
    """How much darker each blob pixel is than the faces around it, as a share of their lightness.

    A black-hat (closing minus image) on lightly smoothed lightness, with pixels outside the blob
    held dark so the blob's rim is no seam.
    """
    g = cv2.GaussianBlur(gray, (0, 0), SEAM_BLUR)
    g = np.where(sub > 0, g, 0).astype(np.uint8)
    k = max(3, round(0.3 * side) | 1)
    ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    closed = cv2.morphologyEx(g, cv2.MORPH_CLOSE, ker).astype(np.float32)
    return (closed - g) / np.maximum(closed, 8.0)


def seam_pieces(
    sub: np.ndarray, gray: np.ndarray, side: float, depth: float = SEAM_DEPTH
) -> tuple[np.ndarray, int]:
    """Cut a blob along the dark seams between touching cubes: (piece labels, piece count).

    ``sub`` is the blob mask, ``gray`` the lightness over the same box, ``side`` one cube's side
    in pixels, ``depth`` the seam depth (see :func:`seam_hat`).
    """
    hat = seam_hat(sub, gray, side)
    core = ((hat < depth) & (sub > 0)).astype(np.uint8)
    core = cv2.erode(core, np.ones((3, 3), np.uint8))
    # Seams fade where three cubes meet: the pieces of neighbours stay joined by thin bridges
    # there, which an opening a third of a side wide breaks (a face is twice as wide).
    k = max(3, round(NECK_OPEN * side) | 1)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    core = cv2.morphologyEx(core, cv2.MORPH_OPEN, disc)
    n, lab = cv2.connectedComponents(core, connectivity=4)
    return lab, n - 1


def piece_elongation(labels: np.ndarray, k: int) -> np.ndarray:
    """How elongated each of ``k`` labelled pieces is: the ratio of its second-moment axes
    (1 for a square or a disc, 2 for a 2 x 1 rectangle)."""
    flat = labels.ravel()

    def per_piece(weights: np.ndarray | None = None) -> np.ndarray:
        return np.bincount(flat, weights=weights, minlength=k + 1)[1:].astype(np.float64)

    ys, xs = np.indices(labels.shape, dtype=np.float64)
    xs, ys = xs.ravel(), ys.ravel()
    n = np.maximum(per_piece(), 1.0)
    mx, my = per_piece(xs) / n, per_piece(ys) / n
    vxx = per_piece(xs * xs) / n - mx * mx
    vyy = per_piece(ys * ys) / n - my * my
    vxy = per_piece(xs * ys) / n - mx * my
    half, root = (vxx + vyy) / 2, np.sqrt(((vxx - vyy) / 2) ** 2 + vxy**2)
    return np.sqrt((half + root + 1e-6) / np.maximum(half - root, 1e-6))
