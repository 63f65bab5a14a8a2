"""The area a cube covers at each spot of the image, from the camera's geometry.

A pinhole camera sees a cube's top and, off axis, the side faces turned toward the point under
the lens (the nadir). The top is shifted away from the nadir by lift x distance cube sides
(lift = 1 / focal length), so the side faces add that shift times the cube's width across it:
on average over the cube's turn, 4/pi x lift x distance of its top's area. Cubes in a pile read
as so many lone cubes (pairs 1.95-2.09 cube areas, rendered and in the shared sample; their
outline alone predicts 2.2), since they seldom lie flush. A tilted camera also sees the far side
of the tray smaller (a slope). A point, the lift and a slope say all that, so a few calibration
cubes fix them, and the tops their seams cut (no side faces) tell the slope apart from the lift.
The free quadratic map used before bent where no calibration cube lay: lone cubes near the
sample's corners read up to 1.27 cube areas, and their spread per colour was twice what the
geometry leaves.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

SPREAD = 4.0 / math.pi
"""Mean over a cube's turn of its width across the nadir's direction, in sides."""
SLOPE_RIDGE = 0.25
"""Ridge weight on the slope terms, so a few cubes near the centre do not make up a tilt."""
OUTLIER_MAD = 3.0
"""Calibration cubes further than this many deviations from the first fit are left out of the
second (two cubes read as one, a cube on its edge)."""
TOP_WEIGHT = 0.5
"""Weight of a seam-cut top against a whole cube's area in the fit: a top's seams cut it less
evenly (spread 0.10-0.12 in log area over the lone calibration cubes)."""
LEVER = 0.1
"""A calibration cube the lone cubes' own fit finds far off, and whose leaving out moves the nadir
more than this share of the image's diagonal, is left out: fitted with the seam-cut tops, whose
slope terms are free, the map can bend to take one such cube in (a green cube in a corner, half
lost in green felt, drew the nadir there and cubes in that corner read a third over)."""
MIN_CUBES = 6
"""Fewest calibration cubes the geometry is fitted from; with fewer the map stays flat."""


@dataclass(frozen=True)
class AreaMap:
    """How a cube's area changes over the photo at working scale (its points are the whole
    photo's, where only a part of it is read: see :attr:`Profile.frame_size`).

    ``nadir``: the point under the lens; ``lift``: how far a cube's top is shifted
    from its base per pixel of distance from the nadir, in cube sides; ``slope``: the top's
    log-area change across the image's width and height; ``level``: the lone-cube scale at the
    median spot of the tray floor, where a colour's ``area`` is given."""

    nadir: tuple[float, float] = (0.0, 0.0)
    lift: float = 0.0
    slope: tuple[float, float] = (0.0, 0.0)
    level: float = 1.0

    def top(self, x: float, y: float, size: tuple[int, int]) -> float:
        """A top face's area at (x, y), as a share of a lone cube's at the floor's median spot."""
        w, h = size
        return math.exp(self.slope[0] * (x / w - 0.5) + self.slope[1] * (y / h - 0.5)) / self.level

    def shift(self, x: float, y: float) -> float:
        """How far a cube's top at (x, y) lies from its base, in cube sides."""
        return self.lift * math.hypot(x - self.nadir[0], y - self.nadir[1])

    def side(self, x: float, y: float) -> float:
        """A lone cube's side faces at (x, y), as a share of its top (their mean over its turn)."""
        return SPREAD * self.shift(x, y)

    def scale(self, x: float, y: float, share: float, size: tuple[int, int]) -> float:
        """A lone cube's area at (x, y), as a share of its area at the floor's median spot, for a
        colour that shows ``share`` of its side faces."""
        return self.top(x, y, size) * (1.0 + share * self.side(x, y))


def _design(colours: Sequence[str], xs: np.ndarray, ys: np.ndarray, size: tuple[int, int],
            names: Sequence[str]) -> np.ndarray:
    """Columns: one intercept (log area) per name, then the two slope terms."""
    onehot = np.array([[float(c == n) for n in names] for c in colours]).reshape(-1, len(names))
    return np.c_[onehot, xs / size[0] - 0.5, ys / size[1] - 0.5]


def _best(logs: np.ndarray, design: np.ndarray, xs: np.ndarray, ys: np.ndarray,
          nadirs: np.ndarray, lifts: np.ndarray, tops: tuple[np.ndarray, np.ndarray]
          ) -> tuple[float, float, float, np.ndarray]:
    """Of every (nadir, lift) given, the one that fits best, with its linear terms: for each the
    linear terms are a weighted ridge least-squares solve, done for every nadir at once. ``tops``
    (log areas and design rows of seam-cut tops, which show no side faces) share the slope
    terms."""
    top_logs, top_design = tops
    rows = np.r_[design, top_design]
    weight = np.r_[np.ones(len(logs)), np.full(len(top_logs), TOP_WEIGHT)]
    k = rows.shape[1]
    ridge = np.diag([0.0] * (k - 2) + [SLOPE_RIDGE] * 2)
    solve = np.linalg.solve((rows.T * weight) @ rows + ridge, rows.T * weight)
    dist = np.hypot(xs[None, :] - nadirs[:, :1], ys[None, :] - nadirs[:, 1:])
    tops_each = np.broadcast_to(top_logs, (len(nadirs), *top_logs.shape))
    best = (math.inf, 0, 0.0, np.zeros(0))
    for lift in lifts:  # one lift at a time: all at once held tens of MB
        targets = np.concatenate([logs - np.log1p(SPREAD * lift * dist), tops_each], axis=1)
        coef = targets @ solve.T
        err = (weight * (targets - coef @ rows.T) ** 2).sum(axis=1)
        j = int(np.argmin(err))
        if err[j] < best[0]:
            best = (float(err[j]), j, float(lift), coef[j])
    _, j, lift, coef = best
    return float(nadirs[j, 0]), float(nadirs[j, 1]), lift, coef


def _grid(cx: float, cy: float, half_w: float, half_h: float, n: int) -> np.ndarray:
    """n x n points about (cx, cy), out to half_w and half_h each way."""
    gx, gy = np.meshgrid(np.linspace(cx - half_w, cx + half_w, n),
                         np.linspace(cy - half_h, cy + half_h, n))
    return np.c_[gx.ravel(), gy.ravel()]


def fit_area_map(
    cubes: Sequence[tuple[str, float, float, float]],
    size: tuple[int, int],
    tops: Sequence[tuple[str, float, float, float]] = (),
) -> tuple[AreaMap, dict[str, float]]:
    """Fit the map to lone calibration cubes ``(colour, area, x, y)``, which lie at any turn, and
    to the seam-cut tops of such cubes, ``(colour, top area, x, y)``, if known.

    Returns the map (``level`` 1) and each colour's top area at the image centre. A coarse grid
    over the nadir (out to half an image beyond each edge) and the lift, then a finer one around
    the best; then once more without the cubes the first fit found far off, and without any cube
    the lone cubes' own fit finds far off that alone moves the nadir (``LEVER``)."""
    w, h = size
    colours = [c for c, _, _, _ in cubes]
    xs = np.array([x for _, _, x, _ in cubes], float)
    ys = np.array([y for _, _, _, y in cubes], float)
    logs = np.log(np.array([a for _, a, _, _ in cubes], float))
    if len(cubes) < MIN_CUBES:
        return AreaMap(), {c: float(np.exp(np.median(logs[np.array(colours) == c])))
                           for c in set(colours)}
    lifts = np.r_[0.0, 1.0 / np.geomspace(0.5 * w, 20.0 * w, 24)]
    piece_names = sorted({f"top:{c}" for c, _, _, _ in tops})
    top_logs = np.log(np.array([a for _, a, _, _ in tops], float))
    top_xs = np.array([x for _, _, x, _ in tops], float)
    top_ys = np.array([y for _, _, _, y in tops], float)

    def fit(keep: np.ndarray, with_tops: bool = True) -> tuple[AreaMap, dict[str, float]]:
        kept = [c for c, k in zip(colours, keep, strict=True) if k]
        pieces = piece_names if with_tops else []
        names = sorted(set(kept)) + pieces
        d = _design(kept, xs[keep], ys[keep], size, names)
        lx, ly, lg = xs[keep], ys[keep], logs[keep]
        top_rows = (top_logs, _design([f"top:{c}" for c, _, _, _ in tops], top_xs, top_ys,
                                      size, names)) if with_tops else (np.zeros(0), d[:0])
        nx, ny, lift, _ = _best(lg, d, lx, ly, _grid(w / 2, h / 2, w, h, 17), lifts, top_rows)
        fine = np.r_[0.0, np.geomspace(max(lift, 1e-5) / 1.3, max(lift, 1e-5) * 1.3, 9)]
        nx, ny, lift, coef = _best(lg, d, lx, ly, _grid(nx, ny, w / 8, h / 6, 9), fine, top_rows)
        areas = np.exp(coef[: len(names) - len(pieces)]).tolist()
        return (AreaMap((nx, ny), lift, (float(coef[-2]), float(coef[-1]))),
                dict(zip(sorted(set(kept)), areas, strict=True)))

    def near(found: tuple[AreaMap, dict[str, float]]) -> np.ndarray:
        """The cubes a fit does not find far off."""
        fitted = np.array([math.log(found[1][c] * found[0].scale(x, y, 1.0, size))
                           for c, x, y in zip(colours, xs, ys, strict=True)])
        off = np.abs(logs - fitted)
        return off <= OUTLIER_MAD * 1.4826 * max(1e-3, float(np.median(off)))

    def enough(keep: np.ndarray) -> bool:
        return bool(keep.sum() >= MIN_CUBES and set(colours) == set(np.array(colours)[keep]))

    keep = np.ones(len(cubes), bool)
    found = fit(keep)
    close = near(found)
    if enough(close) and not close.all():
        keep, found = close, fit(close)
    if tops:
        diagonal = math.hypot(w, h)
        for i in np.flatnonzero(keep & ~near(fit(np.ones(len(cubes), bool), with_tops=False))):
            without = keep.copy()
            without[i] = False
            if enough(without):
                moved = fit(without)
                if math.dist(moved[0].nadir, found[0].nadir) > LEVER * diagonal:
                    keep, found = without, moved
    return found
