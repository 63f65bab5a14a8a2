"""Where the tray is now relative to calibration: rotation and shift of the empty tray.

A tray is nudged a few millimetres between drops; every pixel comparison with the empty tray
needs it moved to where it is now first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

ALIGN_SIZE = 176
"""Long side, in pixels, of the thumbnails the tray alignment is computed on."""


def thumbnail(img: np.ndarray, long_side: int | None = None) -> tuple[np.ndarray, float]:
    """The small blurred grey image alignment works on, and its scale from the working image:
    :data:`ALIGN_SIZE` over ``long_side``, the whole photo's long side at working scale where
    only a part of it is read (a finer thumbnail of the part alone moved the tray by a fraction
    of a pixel: with every photo cut, one hard drop of 1,582 drawn the second way read a cube
    short without asking)."""
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img
    h, w = gray.shape
    f = min(1.0, ALIGN_SIZE / (long_side or max(h, w)))
    # Bilinear, then blurred: averaging areas (at a fraction, OpenCV's slow path) made counting
    # 1.3 ms slower for one drop more right in 1,502.
    small = cv2.resize(gray, (max(8, round(w * f)), max(8, round(h * f))),
                       interpolation=cv2.INTER_LINEAR)
    return cv2.GaussianBlur(small.astype(np.float32), (0, 0), 1.0), f


@dataclass(frozen=True)
class Alignment:
    """Where the tray is now relative to calibration: a 2x3 warp of working-scale coordinates."""

    warp: np.ndarray
    score: float

    def centre_moved(self, size: tuple[int, int]) -> float:
        """How far the working image's centre moved (working pixels), whatever the turn."""
        w, h = size
        x, y = self.warp.astype(np.float64) @ (w / 2, h / 2, 1.0)
        return float(math.hypot(x - w / 2, y - h / 2))

    def on_empty_tray(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The empty tray's pixels (nearest; beyond its edges too) under working points
        (``x``, ``y``) of the frame so aligned."""
        inv = cv2.invertAffineTransform(self.warp.astype(np.float64))
        sx = np.rint(inv[0, 0] * x + inv[0, 1] * y + inv[0, 2]).astype(np.intp)
        sy = np.rint(inv[1, 0] * x + inv[1, 1] * y + inv[1, 2]).astype(np.intp)
        return sx, sy

    @property
    def shift_px(self) -> float:
        """How far the working image's corner (its origin) moved, in working pixels, for reports:
        a turn about the centre moves it too (:meth:`centre_moved` is the tray's own move)."""
        return float(np.hypot(self.warp[0, 2], self.warp[1, 2]))


class Aligner:
    """Finds where the tray is in frames of one setup: rotation and shift, by Gauss-Newton.

    Inverse compositional: the empty tray's thumbnail, its gradients and the Hessian are
    computed once, so a frame costs a few small warps and dot products. Like ECC it matches
    zero-mean, unit-variance images (the exposure may change), and the score is their
    correlation; cubes cover little of the tray, so its edges dominate. Each step weighs only
    the tray pixels that the current motion keeps inside the frame: a tray whose rim lies at the
    frame's edge is then still aligned on that rim, and the frame's replicated border pulls
    nothing.
    """

    MARGIN = 1
    """Thumbnail pixels left out at each side (their gradients are not whole)."""
    BAND = 8
    """Thumbnail pixels from the border within which a small motion can leave the frame."""
    ITERATIONS = 20
    TOLERANCE = 0.05
    """Largest move (thumbnail pixels) of a step that ends the refinement."""

    def __init__(self, background: np.ndarray, long_side: int | None = None) -> None:
        """``long_side``: as :func:`thumbnail` takes it."""
        self.long_side = long_side
        self.template, self.f = thumbnail(background, long_side)
        h, w = self.template.shape
        m = self.MARGIN
        self.inner = (slice(m, h - m), slice(m, w - m))
        gx = cv2.Sobel(self.template, cv2.CV_32F, 1, 0, ksize=3, scale=1 / 8)[self.inner]
        gy = cv2.Sobel(self.template, cv2.CV_32F, 0, 1, ksize=3, scale=1 / 8)[self.inner]
        cx, cy = (w - 1) / 2, (h - 1) / 2
        yy, xx = np.mgrid[m : h - m, m : w - m].astype(np.float32)
        self.xs, self.ys = xx.ravel(), yy.ravel()
        b = self.BAND
        self.band = np.flatnonzero(
            (self.xs < b) | (self.xs > w - 1 - b) | (self.ys < b) | (self.ys > h - 1 - b)
        )
        self.corners = np.array([[0, 0, 1], [w - 1, 0, 1], [0, h - 1, 1], [w - 1, h - 1, 1]]).T
        u, v = self.xs - cx, self.ys - cy
        self.t_raw = self.template[self.inner].ravel().astype(np.float32)
        t64 = self.t_raw.astype(np.float64)
        self.t_sum, self.t_sq = float(t64.sum()), float(t64 @ t64)
        gx, gy = gx.ravel(), gy.ravel()
        self.sd_raw = np.stack([gx * -v + gy * u, gx, gy]).astype(np.float32)
        self.hess_raw = self.sd_raw.astype(np.float64) @ self.sd_raw.T.astype(np.float64)
        self.to_c = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], np.float64)
        self.from_c = np.linalg.inv(self.to_c)
        self.radius = max(w, h) / 2

    def _outside(self, warp: np.ndarray, w: int, h: int) -> np.ndarray:
        """Indices of the template pixels that ``warp`` carries outside the frame's thumbnail.

        Only pixels near the border can leave it while no corner moves further than that
        border band; otherwise every pixel is checked.
        """
        near = float(np.abs((warp @ self.corners)[:2] - self.corners[:2]).max()) < self.BAND
        xs, ys = (self.xs[self.band], self.ys[self.band]) if near else (self.xs, self.ys)
        fx = warp[0, 0] * xs + warp[0, 1] * ys + warp[0, 2]
        fy = warp[1, 0] * xs + warp[1, 1] * ys + warp[1, 2]
        hit = np.flatnonzero((fx < 0) | (fx > w - 1) | (fy < 0) | (fy > h - 1))
        return self.band[hit] if near else hit

    def refine(self, thumb: np.ndarray, start: np.ndarray) -> tuple[float, np.ndarray]:
        """(correlation, warp) from ``start``; the warp W has frame(W x) ~ empty tray(x)."""
        h, w = self.template.shape
        warp = np.vstack([start.astype(np.float64), [0, 0, 1]])
        flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        score = 0.0
        n_all = self.t_raw.size
        for _ in range(self.ITERATIONS):
            seen = cv2.warpAffine(thumb, warp[:2].astype(np.float32), (w, h), flags=flags,
                                  borderMode=cv2.BORDER_REPLICATE)[self.inner].ravel()
            out = self._outside(warp, w, h)
            n = n_all - out.size
            if n < 0.5 * n_all:
                return 0.0, start
            # Sums over the pixels kept: over all, less the few the motion takes out.
            s_mean = (float(seen.sum()) - float(seen[out].sum())) / n
            d = seen - np.float32(s_mean)
            d_out = d[out]
            s_var = (float(d @ d) - float(d_out @ d_out)) / n
            t_out = self.t_raw[out].astype(np.float64)
            t_mean = (self.t_sum - t_out.sum()) / n
            t_var = (self.t_sq - t_out @ t_out) / n - t_mean**2
            if s_var <= 1e-12 or t_var <= 1e-12:
                return 0.0, start
            s_std, t_std = math.sqrt(s_var), math.sqrt(t_var)
            err = d * np.float32(1.0 / s_std) - (self.t_raw - np.float32(t_mean)) * np.float32(
                1.0 / t_std)
            err[out] = 0.0
            sd_out = self.sd_raw[:, out].astype(np.float64)
            hess = self.hess_raw - sd_out @ sd_out.T
            score = 1.0 - float(err @ err) / (2 * n)
            hess_inv = np.linalg.inv(hess + np.eye(3) * 1e-6 * np.trace(hess))
            # Gradients and Hessian in the template's normalised units: one 1/t_std each.
            th, tx, ty = (float(v) for v in
                          (hess_inv @ (self.sd_raw @ err).astype(np.float64)) * t_std)
            c, s = math.cos(th), math.sin(th)
            step = np.array([[c, -s, tx], [s, c, ty], [0, 0, 1]])
            warp = warp @ self.from_c @ np.linalg.inv(step) @ self.to_c
            if abs(th) * self.radius + abs(tx) + abs(ty) < self.TOLERANCE:
                break
        return score, warp[:2]

    def align(self, frame: np.ndarray) -> Alignment:
        """Where the tray is in a working-scale frame.

        Refined from no motion, and again from the phase-correlation shift when that scores
        poorly (the tray moved further than the refinement reaches).
        """
        thumb, _ = thumbnail(frame, self.long_side)
        score, warp = self.refine(thumb, np.eye(2, 3))
        if score < 0.8:
            (dx, dy), _ = cv2.phaseCorrelate(self.template, thumb)
            got, found = self.refine(thumb, np.array([[1, 0, dx], [0, 1, dy]], np.float64))
            if got > score:
                score, warp = got, found
        # Thumbnail to working scale: translation / f, rotation unchanged. warpAffine's default
        # mapping then carries the empty tray onto the frame.
        full = np.array(warp, np.float64)
        full[:, 2] /= self.f
        return Alignment(full.astype(np.float32), max(0.0, score))


def align(background: np.ndarray, frame: np.ndarray, long_side: int | None = None) -> Alignment:
    """Find the rotation and shift that carry the empty tray onto the frame (one-off use)."""
    return Aligner(background, long_side).align(frame)


def warp_image(
    img: np.ndarray, alignment: Alignment, border: int = cv2.BORDER_REPLICATE
) -> np.ndarray:
    """Move a working-scale image (background or mask) to where the tray is now.

    Nearest-neighbour: the tray test already tolerates a pixel or two of misplacement.
    """
    h, w = img.shape[:2]
    interp = cv2.INTER_NEAREST
    return cv2.warpAffine(img, alignment.warp, (w, h), flags=interp, borderMode=border)
