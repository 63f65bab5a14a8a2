"""Per-pixel work shared by calibration and counting: scaling and pixel labels.

Every pixel of a drop photo is compared with the empty tray photographed at calibration (moved to
where the tray is now) and labelled tray, one cube colour, or unknown. A pixel that is a uniformly
darker or lighter copy of the tray (a shadow, a highlight, a change of exposure) stays tray; only
what differs in a way the tray cannot explain is given a colour, by the nearest calibrated colour.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np

from vision.align import Alignment

TRAY = 0
UNKNOWN = 255


THREE_QUARTERS_STRIP = 64
"""Rows of a frame reduced to 3/4 at a time: the strip's sums stay in cache and its buffers are
reused (whole-frame buffers, allocated afresh, page-faulted in 2 ms for each 1024 x 768 frame)."""


def _rows_to_three_quarters(img: np.ndarray, out: np.ndarray, scale: float) -> None:
    """Every four rows of ``img`` as three in ``out``, weighted 3:1, 2:2, 1:3 times ``scale``."""
    a, b, c, d = img[0::4], img[1::4], img[2::4], img[3::4]
    depth = cv2.CV_16U if out.dtype == np.uint16 else cv2.CV_8U
    cv2.addWeighted(a, 3 * scale, b, scale, 0, dst=out[0::3], dtype=depth)
    cv2.addWeighted(b, 2 * scale, c, 2 * scale, 0, dst=out[1::3], dtype=depth)
    cv2.addWeighted(c, scale, d, 3 * scale, 0, dst=out[2::3], dtype=depth)


def _three_quarters(img: np.ndarray) -> np.ndarray:
    """``img`` (sides multiples of 4) area averaged to 3/4, the same to the bit as OpenCV's
    area averaging (sums of sixteenths in 16 bits, rounded half to even once), which takes its
    slow general path for a fractional scale."""
    h, w = img.shape[:2]
    channels = img.shape[2:]
    n = 3 * THREE_QUARTERS_STRIP // 4
    out = np.empty((3 * h // 4, 3 * w // 4, *channels), np.uint8)
    quarters = np.empty((n, w, *channels), np.uint16)
    across = np.empty((w, n, *channels), np.uint16)
    thirds = np.empty((3 * w // 4, n, *channels), np.uint8)
    for y in range(0, h, THREE_QUARTERS_STRIP):
        strip = img[y : y + THREE_QUARTERS_STRIP]
        m = 3 * strip.shape[0] // 4
        _rows_to_three_quarters(strip, quarters[:m], 1.0)
        cv2.transpose(quarters[:m], dst=across[:, :m])
        _rows_to_three_quarters(across[:, :m], thirds[:, :m], 1 / 16)
        cv2.transpose(thirds[:, :m], dst=out[3 * y // 4 : 3 * y // 4 + m])
    return out


def to_working(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Resize a BGR frame to the working size (area averaging also removes pixel noise).

    A frame a whole number of times larger than ``size``, give or take a pixel or two of
    rounding, is averaged over whole blocks (its last odd rows or columns left out, and a
    missing one repeated): OpenCV averages areas fast only so (2028 x 1520 to 676 x 507 took
    10.5 ms, over 676 x 506 blocks 4.5; 1281 x 961 to 640 x 480: 7.1 ms, 0.4). A frame of
    exactly 4/3 the size is averaged by :func:`_three_quarters`.
    """
    h, w = img.shape[:2]
    if (w, h) == size:
        return img
    if 3 * w == 4 * size[0] and 3 * h == 4 * size[1]:
        return _three_quarters(img)
    k = max(1, round(w / size[0]))
    whole = (w // k, h // k)
    if k >= 2 and 0 <= size[0] - whole[0] <= 1 and 0 <= size[1] - whole[1] <= 1:
        work = cv2.resize(img[: whole[1] * k, : whole[0] * k], whole, interpolation=cv2.INTER_AREA)
        if whole == size:
            return work
        return cv2.copyMakeBorder(work, 0, size[1] - whole[1], 0, size[0] - whole[0],
                                  cv2.BORDER_REPLICATE)
    return cv2.resize(img, size, interpolation=cv2.INTER_AREA)


def working_part(
    img: np.ndarray, box: tuple[int, int, int, int], image_size: tuple[int, int],
    size: tuple[int, int],
) -> np.ndarray:
    """The part ``box`` (x0, y0, x1, y1, pixels of a photo ``image_size`` large) of a photo of
    that shape, at the working ``size``."""
    (w, h), (fw, fh) = image_size, img.shape[1::-1]
    x0, y0, x1, y1 = (round(v * f) for v, f in zip(box, (fw / w, fh / h) * 2, strict=True))
    return np.ascontiguousarray(to_working(img[y0:y1, x0:x1], size))


def lab_of_pixels(bgr: np.ndarray) -> np.ndarray:
    """Lab (8-bit) of N BGR pixels (N x 3), as one row: OpenCV converts an N x 1 image row by
    row, three times slower (49,000 pixels: 0.59 ms against 0.19)."""
    return cv2.cvtColor(bgr.reshape(1, -1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3)


def smooth_background(img: np.ndarray) -> np.ndarray:
    """The stored empty tray, lightly blurred so its sensor noise does not add to the frame's."""
    return cv2.GaussianBlur(img, (3, 3), 0)


def roi_mask(polygon: Sequence[Sequence[int]], size: tuple[int, int]) -> np.ndarray:
    """The region where cubes are counted, as a uint8 mask (255 inside)."""
    mask = np.zeros((size[1], size[0]), np.uint8)
    cv2.fillPoly(mask, [np.array(polygon, np.int32).reshape(-1, 1, 2)], 255)
    return mask


SHADE_SCALES = np.geomspace(0.2, 1.7, 14)
"""Light levels a cube face may be seen under relative to calibration (a face turned toward or
away from the light): each colour is matched at the best of these, with a small penalty."""
SHADE_PENALTY = 0.55
"""Log-brightness change that costs one unit of distance."""


def _lab_of_linear(rgb_lin: np.ndarray) -> np.ndarray:
    srgb = np.where(
        rgb_lin <= 0.0031308,
        rgb_lin * 12.92,
        1.055 * np.power(np.clip(rgb_lin, 0, None), 1 / 2.4) - 0.055,
    )
    bgr = (np.clip(srgb, 0, 1)[..., ::-1] * 255).astype(np.float32) / 255.0
    lab = cv2.cvtColor(bgr.reshape(1, -1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3)
    return np.stack([lab[:, 0] * 255 / 100, lab[:, 1] + 128, lab[:, 2] + 128], 1)


def _linear_of_lab8(lab8: np.ndarray) -> np.ndarray:
    lab = np.asarray(lab8, np.float32).reshape(1, -1, 3).copy()
    lab[..., 0] *= 100 / 255
    lab[..., 1:] -= 128
    bgr = cv2.cvtColor(lab, cv2.COLOR_LAB2BGR).reshape(-1, 3)[:, ::-1]
    return np.where(
        bgr <= 0.04045, bgr / 12.92, np.power((np.clip(bgr, 0, 1) + 0.055) / 1.055, 2.4)
    )


FACE_CHROMA_SPREAD = 4.0
"""Extra chroma spread (8-bit Lab units) allowed around a coloured cube's calibrated colour: the
calibration cubes lie flat, but a face turned toward a light or the camera shifts its chroma a
few units (glare, clipping) and must still be its colour."""
CHROMATIC = 20.0
"""Chroma above which a colour is chromatic (black and white get no extra chroma spread: theirs
would take in tinted shadows and highlights of the tray)."""


def chroma(lab: Sequence[float]) -> float:
    """How far an 8-bit Lab colour lies from grey (a and b are offset by 128)."""
    return math.hypot(lab[1] - 128.0, lab[2] - 128.0)


_LUT_CACHE: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}


def mahalanobis_lut(
    means: np.ndarray, covs: np.ndarray, glints: Sequence[float]
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`build_mahalanobis_lut`, remembered for the last few colour models (calibration
    builds several counters on the same colours; tests build many on a few setups)."""
    key = b"".join(np.asarray(a, np.float64).tobytes() for a in (means, covs, glints))
    if key not in _LUT_CACHE:
        if len(_LUT_CACHE) >= 8:
            _LUT_CACHE.pop(next(iter(_LUT_CACHE)))
        _LUT_CACHE[key] = build_mahalanobis_lut(means, covs, glints)
    return _LUT_CACHE[key]


GLINT_STEPS = (0.0, 1 / 7, 2 / 7, 4 / 7, 1.0)
"""Shares of a colour's glint (:attr:`~vision.profile.ColourModel.glint`) it is matched under."""


def build_mahalanobis_lut(
    means: np.ndarray, covs: np.ndarray, glints: Sequence[float]
) -> tuple[np.ndarray, np.ndarray]:
    """For every 15-bit BGR colour: the nearest colour class and its distance.

    The distance is Mahalanobis in 8-bit Lab to the class seen under the best of
    :data:`SHADE_SCALES` times its calibrated light, plus a penalty for the change, so a face
    turned away from the light is still its colour; a class with a glint (``glints``, linear)
    is also matched with that much neutral light added (:data:`GLINT_STEPS`), as a black top
    mirroring a lamp is. Computed once per profile so a frame is labelled by a table look-up.
    """
    q = np.arange(32, dtype=np.int32)
    b, g, r = np.meshgrid(q, q, q, indexing="ij")
    bgr = np.stack([b, g, r], -1).reshape(-1, 3).astype(np.uint8) * 8 + 4
    lab = lab_of_pixels(bgr).astype(np.float32)
    dists = np.empty((len(means), lab.shape[0]), np.float32)
    for i, (m, c, glint) in enumerate(zip(means, covs, glints, strict=True)):
        c = np.array(c, np.float64)
        if chroma(m) >= CHROMATIC:
            c[1:, 1:] += np.eye(2) * FACE_CHROMA_SPREAD**2
        inv = np.linalg.inv(c).astype(np.float32)
        base = _linear_of_lab8(m)[0]
        best = np.full(lab.shape[0], np.inf, np.float32)
        for shine in sorted({glint * step for step in GLINT_STEPS}):
            for k in SHADE_SCALES:
                centre = _lab_of_linear(base[None, :] * k + shine)[0]
                d = lab - centre
                dist2 = ((d @ inv) * d).sum(1) + (math.log(k) / SHADE_PENALTY) ** 2
                np.minimum(best, dist2, out=best)
        dists[i] = np.sqrt(best)
    cls = dists.argmin(0)
    return cls.astype(np.uint8), dists[cls, np.arange(lab.shape[0])]


def bgr_codes(img: np.ndarray) -> np.ndarray:
    """15-bit colour codes of a BGR uint8 image, the index into the look-up tables."""
    q = (img >> 3).astype(np.int32)
    return (q[..., 0] << 10) | (q[..., 1] << 5) | q[..., 2]


@dataclass(frozen=True)
class TrayTest:
    """How far a pixel may drift from the empty tray and still be tray (shadow, highlight)."""

    ratio_lo: float
    ratio_hi: float
    chroma: float


TOLERANCE_PX = 2
"""Each pixel is compared with the tray within this many working pixels, so a tray edge that moved
a little (parallax of the walls, a small misalignment) is not taken for a cube."""


def tray_features(
    frame_lab: np.ndarray, bg_lab: np.ndarray, gain: float, umbra: np.ndarray | None = None
) -> Iterator[tuple[slice, np.ndarray, np.ndarray, np.ndarray]]:
    """How each frame pixel departs from the aligned tray nearby, :data:`FEATURE_ROWS` rows at a
    time: the rows, and for their pixels the lightness ratio against the darkest and against
    the lightest tray pixel within :data:`TOLERANCE_PX` (the darkest raised by ``umbra``, if
    given), and how far the chroma lies outside the nearby tray's chroma range (the same as for
    the whole frame at once: each strip's tray range is taken with the rows around it)."""
    h = frame_lab.shape[0]
    for y in range(0, h, FEATURE_ROWS):
        rows = slice(y, min(h, y + FEATURE_ROWS))
        top = max(0, y - TOLERANCE_PX)
        near = slice(top, rows.stop + TOLERANCE_PX)
        lo, hi = tray_range(bg_lab[near], umbra=None if umbra is None else umbra[near])
        inner = slice(y - top, rows.stop - top)
        f, lo, hi = frame_lab[rows], lo[inner], hi[inner]
        lf = f[..., 0].astype(np.float32) + 6.0
        dark = lf / (lo[..., 0].astype(np.float32) * gain + 6.0)
        bright = lf / (hi[..., 0].astype(np.float32) * gain + 6.0)
        fa = f[..., 1].astype(np.int16)
        fb = f[..., 2].astype(np.int16)
        ea = np.maximum(np.maximum(fa - hi[..., 1], lo[..., 1] - fa), 0).astype(np.float32)
        eb = np.maximum(np.maximum(fb - hi[..., 2], lo[..., 2] - fb), 0).astype(np.float32)
        yield rows, dark, bright, np.sqrt(ea * ea + eb * eb)


FEATURE_ROWS = 64
"""Rows :func:`tray_features` works out at a time: whole-frame maps, read at full size, were a
fifth of calibration's memory."""


def exposure_gain(
    frame_lab: np.ndarray, bg_lab: np.ndarray, mask: np.ndarray, step: int = 4
) -> float:
    """Lightness of the frame relative to the empty tray, over the tray (cubes are a minority)."""
    sel = mask[::step, ::step] > 0
    lf = frame_lab[::step, ::step, 0][sel].astype(np.float32)
    lb = bg_lab[::step, ::step, 0][sel].astype(np.float32)
    if lf.size < 50:
        return 1.0
    return float(np.clip(np.median((lf + 6.0) / (lb + 6.0)), 0.5, 2.0))


RATIO_SIGMA = 0.06
"""Lightness-ratio step that counts as one unit of distance from the tray's learned range."""
CHROMA_SIGMA = 3.0
"""Chroma step (8-bit Lab units) that counts as one unit of distance from the tray's range."""
TRAY_CORE = 1.5
"""Pixels this close to the tray's learned range are tray whatever the colour models say."""


def tray_distance(
    dark: np.ndarray, bright: np.ndarray, chroma: np.ndarray, test: TrayTest
) -> np.ndarray:
    """How far outside the range of "tray under other light" each pixel lies (0 inside);
    worked out in place, three arrays the frame's size at a time."""
    below = test.ratio_lo - dark
    above = bright - test.ratio_hi
    off = chroma - test.chroma
    for part, sigma in ((below, RATIO_SIGMA), (above, RATIO_SIGMA), (off, CHROMA_SIGMA)):
        np.maximum(part, 0, out=part)
        part /= sigma
        part *= part
    below += above
    below += off
    return np.sqrt(below, out=below)


def label_pixels(
    d_tray: np.ndarray,
    colour: np.ndarray,
    d_colour: np.ndarray,
    roi: np.ndarray | None,
    max_colour: float,
) -> np.ndarray:
    """Tray where the tray explains a pixel at least as well as the nearest colour; else colour.

    ``colour`` holds 1-based colour indices; a pixel neither explains well is ``UNKNOWN``;
    ``roi`` (None: everywhere) is where the tray may hold cubes.
    """
    tray = (d_tray < TRAY_CORE) | (d_tray <= d_colour)
    if roi is not None:
        tray |= roi == 0
    return np.where(tray, TRAY, np.where(d_colour <= max_colour, colour, UNKNOWN)).astype(np.uint8)


def tray_range(
    bg_lab: np.ndarray, tol: int = TOLERANCE_PX, umbra: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The least and greatest value of each channel of the tray (its Lab, for the labelling)
    within ``tol`` pixels of each pixel; the least lightness raised by ``umbra``
    (:func:`umbra_lift`), if given."""
    k = np.ones((2 * tol + 1, 2 * tol + 1), np.uint8)
    lo, hi = cv2.erode(bg_lab, k), cv2.dilate(bg_lab, k)
    if umbra is not None:
        raised = (lo[..., 0].astype(np.float32) + 6.0) * umbra - 6.0
        lo[..., 0] = np.clip(raised, 0, 255).astype(np.uint8)
    return lo, hi


UMBRA_WINDOW = 41
"""The square (working pixels, two to three cube sides) within which the lightest empty tray
tells how lit a tray pixel could be: a low lamp's wall shadow is some 15 pixels wide."""
UMBRA_SHADE = 0.8
"""How dark, against the empty tray there, a pixel that lies in a shadow's core at calibration
may be and still be tray: only the cubes beside it, shutting out the ambient light, darken it
further. Black cubes in a low lamp's wall shadow read 0.45-0.61 (all counted from 0.75 to 0.9);
at 0.9 the shade where cubes crowd a wall's foot, which soft light darkens as much, passed for a
black cube (the shared sample's drop 3, dimmed)."""


def umbra_lift(bg_lab: np.ndarray, test: TrayTest) -> np.ndarray:
    """By how much the dark end of the tray's lightness range rises at each pixel (1: none).

    The learned :attr:`TrayTest.ratio_lo` is how deep a cube's shadow falls on lit tray. Where
    the empty tray is already that much darker than the lightest tray nearby, it lies in the
    core of a shadow (a wall's, under a low lamp): no cube's shadow from the same lamp can darken
    it again, while a black cube there reads at about the learned shadow depth (a low-lamp rig:
    black 0.45-0.61 against the shaded tray, median 0.561, beside a ``ratio_lo`` of 0.564) and
    passed for tray. There the tray may darken only to :data:`UMBRA_SHADE`.
    """
    light = bg_lab[..., 0].astype(np.float32) + 6.0
    lightest = cv2.dilate(light, np.ones((UMBRA_WINDOW, UMBRA_WINDOW), np.uint8))
    lift = max(1.0, UMBRA_SHADE / test.ratio_lo)
    return np.where(light < test.ratio_lo * lightest, lift, 1.0).astype(np.float32)


def inside_tray(
    lab: np.ndarray, lo_b: np.ndarray, hi_b: np.ndarray, gain: float, test: TrayTest
) -> np.ndarray:
    """255 where a pixel is plainly within the tray's range (saturating 8-bit operations).

    ``dark >= lo`` is ``L_f >= lo * (L_min * gain + 6) - 6``, and alike for ``bright <= hi``;
    the chroma bound is taken per axis (a square inside the disc), so this never says tray where
    the exact rule would not.
    """
    l_f, a_f, b_f = cv2.split(lab)
    l_lo, a_lo, b_lo = cv2.split(lo_b)[:3]  # a fourth channel, if any, is not the range
    l_hi, a_hi, b_hi = cv2.split(hi_b)[:3]
    low = cv2.convertScaleAbs(l_lo, alpha=test.ratio_lo * gain, beta=6.0 * test.ratio_lo - 5.0)
    high = cv2.convertScaleAbs(l_hi, alpha=test.ratio_hi * gain, beta=6.0 * test.ratio_hi - 7.0)
    c = int(test.chroma / math.sqrt(2))
    inside = cv2.inRange(l_f, low, high)
    inside &= cv2.inRange(a_f, cv2.subtract(a_lo, c), cv2.add(a_hi, c))
    inside &= cv2.inRange(b_f, cv2.subtract(b_lo, c), cv2.add(b_hi, c))
    return inside


def exact_labels(
    px: np.ndarray,
    f_lab: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    gain: float,
    test: TrayTest,
    lut_class: np.ndarray,
    lut_dist: np.ndarray,
    max_colour: float,
) -> np.ndarray:
    """The labelling rule for N pixels: BGR ``px``, their Lab, and the tray range there.

    Each channel is taken apart first: arithmetic on whole columns is several times faster
    than on the rows' interleaved bytes.
    """
    f32 = f_lab.astype(np.float32)
    lo32 = lo.astype(np.float32)
    hi32 = hi.astype(np.float32)
    lf = f32[:, 0] + 6.0
    dark = lf / (lo32[:, 0] * gain + 6.0)
    bright = lf / (hi32[:, 0] * gain + 6.0)
    off = [np.maximum(np.maximum(f32[:, i] - hi32[:, i], lo32[:, i] - f32[:, i]), 0.0)
           for i in (1, 2)]
    chroma = np.sqrt(off[0] * off[0] + off[1] * off[1])
    d_tray = tray_distance(dark, bright, chroma, test)
    q = px >> 3
    codes = (q[:, 0].astype(np.int32) << 10) | (q[:, 1].astype(np.int32) << 5) | q[:, 2]
    return label_pixels(d_tray, lut_class[codes] + 1, lut_dist[codes], None, max_colour)


def classify(
    work: np.ndarray,
    lab: np.ndarray,
    bg_lab: np.ndarray,
    roi: np.ndarray,
    gain: float,
    test: TrayTest,
    lut_class: np.ndarray,
    lut_dist: np.ndarray,
    max_colour: float,
) -> np.ndarray:
    """Label a working frame: 0 tray, 1..n colour (from the look-up tables), ``UNKNOWN``.

    Same rule as :func:`tray_distance` + :func:`label_pixels`, made fast: pixels plainly inside
    the tray's range (most of the image) are found with saturating 8-bit OpenCV operations, and
    only the rest get the exact arithmetic. (The counter itself goes further: see
    :class:`SparseLabeller`.)
    """
    lo_b, hi_b = tray_range(bg_lab, umbra=umbra_lift(bg_lab, test))
    cand = np.flatnonzero((cv2.bitwise_not(inside_tray(lab, lo_b, hi_b, gain, test)) & roi) != 0)
    labels = np.zeros(work.shape[0] * work.shape[1], np.uint8)
    if cand.size:
        labels[cand] = exact_labels(
            work.reshape(-1, 3)[cand],
            lab.reshape(-1, 3)[cand],
            lo_b.reshape(-1, 3)[cand],
            hi_b.reshape(-1, 3)[cand],
            gain,
            test,
            lut_class,
            lut_dist,
            max_colour,
        )
    return labels.reshape(work.shape[:2])


COARSE_LOOSEN = (0.96, 1.04, 2.0)
"""How much wider (ratio low, ratio high, chroma) the half-scale first look takes the tray's
range, so pixels it calls tray are tray at full working scale too."""


@dataclass(frozen=True)
class HalfView:
    """A frame at half the working scale beside the moved empty tray's range there.

    ``lo`` and ``hi`` hold the range's Lab in their first three channels (four-channel images
    warp twice as fast as three-channel ones); ``lo``'s fourth is the empty tray's lightness.
    """

    lab: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    roi: np.ndarray
    gain: float


SHADE_STEEP = 1.0
"""How steeply the empty tray's lightness may change (3 x 3 Sobel, L1, of its log at half scale:
about 12% a pixel) where a darker patch is still looked at as a black top. The walls, their
foot's shade and the rim change faster: a tray out of place by a pixel or two (aligning a plain
dark tray is that loose) darkens a strip there as much as a black top is darker than the tray,
and such strips were read as black cubes. Dark floors of the second renderer and a fresh dark
rig (115 drops): exact 51% with no such limit, 64% at 0.6, 67% at 1.0."""


class Lift(NamedTuple):
    """A colour told from the tray by its tops' lightness alone: label ``cls`` where a tray
    pixel is lit at least ``level`` times the tray's (:func:`lift_ratio`), or with ``darker`` at
    most ``level`` times."""

    cls: int
    level: float
    darker: bool = False
    most: float = 0.0
    """Largest hole (half-scale pixels) a darker colour's rings are filled over: a cube's area."""


def lift_ratio(view: HalfView, labels: np.ndarray, cls: int, darker: bool = False) -> np.ndarray:
    """How much lighter than the lightest tray nearby each half-scale pixel is, smoothed; 0 near
    pixels of other colours (their rims, blurred into the tray, are lighter too). With
    ``darker``, its lightness over the bare tray's there, and infinite near other colours (the
    crevices between cubes and their shade are darker too) and where the tray's own lightness
    changes steeply (:data:`SHADE_STEEP`).

    A white cube on a light tray, or a black one with a sheen on a dark tray, differs from the
    tray by a top a few percent lighter than it: too little for one pixel, plain over a cube's
    whole top once averaged over 3 x 3 half-scale pixels (6 x 6 working ones). A matte black one
    on a dark tray is darker than it, as its shade is. ``labels`` are the working-scale labels,
    ``cls`` the colour looked for.
    """
    coarse = labels[::2, ::2]
    other = np.zeros(view.roi.shape, np.uint8)
    h, w = min(other.shape[0], coarse.shape[0]), min(other.shape[1], coarse.shape[1])
    other[:h, :w] = (coarse[:h, :w] != TRAY) & (coarse[:h, :w] != cls)
    lf = view.lab[..., 0].astype(np.float32) + 6.0
    tray = view.lo[..., 3] if darker else view.hi[..., 0]
    ref = tray.astype(np.float32) * view.gain + 6.0
    ratio = cv2.blur(lf / ref, (3, 3))
    ratio[cv2.dilate(other, np.ones((5, 5), np.uint8)) > 0] = np.inf if darker else 0.0
    if darker:
        log = np.log(ref)
        steep = np.abs(cv2.Sobel(log, cv2.CV_32F, 1, 0)) + np.abs(cv2.Sobel(log, cv2.CV_32F, 0, 1))
        ratio[cv2.dilate((steep > SHADE_STEEP).view(np.uint8), np.ones((3, 3), np.uint8)) > 0] = (
            np.inf)
    return ratio


class SparseLabeller:
    """Labels frames of one setup touching as few pixels as possible.

    Most of a frame is plainly tray. A first look at half the working scale (looser range, grown
    by a coarse pixel) finds the few pixels near cubes, shadows and glare; only those get Lab and
    the exact rule, with the tray range read at the matching point of the (unmoved) empty tray
    through the inverse of the alignment. Nothing is warped at full scale.
    """

    def __init__(self, bg_lab: np.ndarray, roi: np.ndarray, test: TrayTest) -> None:
        self.h, self.w = bg_lab.shape[:2]
        self.half = (max(8, self.w // 2), max(8, self.h // 2))
        self.test = test
        umbra = umbra_lift(bg_lab, test)
        lo, hi = tray_range(bg_lab, umbra=umbra)
        # Each pixel's tray range packed in 8 bytes (low L a b, high L a b, 2 spare), so that
        # gathering it for the candidate pixels moves one machine word per pixel, not six bytes;
        # kept only from the floor's first pixel in each row to its last, as only the floor's
        # are read: (x, y) is at row_index[y] + x.
        floor = roi > 0
        cols = np.arange(self.w)
        first = np.where(floor.any(1), floor.argmax(1), 0)
        last = np.where(floor.any(1), self.w - floor[:, ::-1].argmax(1), 0)
        spans = (cols >= first[:, None]) & (cols < last[:, None])
        self.row_index = np.cumsum(last - first) - last
        pad = np.zeros((int(spans.sum()), 2), np.uint8)
        packed = np.concatenate([lo[spans], hi[spans], pad], 1)
        self.ranges = np.ascontiguousarray(packed).view(np.uint64).ravel()
        self.roi = roi.ravel()
        bg_h = self._halved(bg_lab)
        # A coarse pixel's range rises only as much as its least raised pixel's.
        umbra_h = self._halved(cv2.erode(umbra, np.ones((3, 3), np.uint8)), cv2.INTER_NEAREST)
        lo_h, hi_h = tray_range(bg_h, 1, umbra_h)
        self.lo_h = np.dstack([lo_h, bg_h[..., 0]])
        self.hi_h = np.dstack([hi_h, np.zeros_like(bg_h[..., 0])])
        self.roi_h = self._halved(roi, cv2.INTER_NEAREST)
        self.loose = TrayTest(
            test.ratio_lo * COARSE_LOOSEN[0],
            test.ratio_hi * COARSE_LOOSEN[1],
            test.chroma + COARSE_LOOSEN[2],
        )

    def half_view(self, work: np.ndarray, alignment: Alignment) -> HalfView:
        """The frame and the moved empty tray at half the working scale, and the exposure gain."""
        m = alignment.warp.astype(np.float64)
        # Same motion at half scale, where x_h = (x + 0.5) / 2 - 0.5.
        m_h = m.copy()
        m_h[:, 2] = m[:, 2] / 2.0 + 0.25 * m[:, :2].sum(1) - 0.25
        m_h = m_h.astype(np.float32)
        size = self.half
        flags = cv2.INTER_NEAREST
        rep = cv2.BORDER_REPLICATE
        lo = cv2.warpAffine(self.lo_h, m_h, size, flags=flags, borderMode=rep)
        hi = cv2.warpAffine(self.hi_h, m_h, size, flags=flags, borderMode=rep)
        roi = cv2.warpAffine(self.roi_h, m_h, size, flags=flags, borderMode=cv2.BORDER_CONSTANT)
        lab = cv2.cvtColor(self._halved(work), cv2.COLOR_BGR2LAB)
        return HalfView(lab, lo, hi, roi, exposure_gain(lab, lo[..., 3:], roi, step=3))

    def _halved(self, img: np.ndarray, interpolation: int = cv2.INTER_AREA) -> np.ndarray:
        """A working-size image at half scale over whole 2 x 2 blocks, as :meth:`half_view`'s
        motion and :meth:`to_full` take them (an odd last row or column is left out; OpenCV
        also averages areas fast only so)."""
        size = self.half
        return cv2.resize(img[: 2 * size[1], : 2 * size[0]], size, interpolation=interpolation)

    def candidates(self, view: HalfView) -> np.ndarray:
        """Flat indices (sorted) of the working pixels that may not be tray."""
        out = cv2.bitwise_not(inside_tray(view.lab, view.lo, view.hi, view.gain, self.loose))
        grown = cv2.dilate(out & view.roi, np.ones((3, 3), np.uint8))
        return np.flatnonzero(self.to_full(grown) != 0)  # on booleans: 8 times faster

    def to_full(self, mask: np.ndarray) -> np.ndarray:
        """A half-scale mask at working scale: each coarse pixel stands for the 2 x 2 under it."""
        up = cv2.resize(mask, (2 * self.half[0], 2 * self.half[1]), interpolation=cv2.INTER_NEAREST)
        full = np.zeros((self.h, self.w), np.uint8)
        h, w = min(self.h, up.shape[0]), min(self.w, up.shape[1])
        full[:h, :w] = up[:h, :w]
        return full

    def labels(
        self,
        work: np.ndarray,
        alignment: Alignment,
        lut_class: np.ndarray,
        lut_dist: np.ndarray,
        max_colour: float,
        lifts: Sequence[Lift] = (),
    ) -> tuple[np.ndarray, float, tuple[int, int, int, int]]:
        """Label a working frame (0 tray, 1..n colour, ``UNKNOWN``); also the exposure gain and
        the box (x0, y0, x1, y1) outside which every pixel is tray.

        ``lifts`` are the colours told from the tray by a lighter or darker top alone.
        """
        view = self.half_view(work, alignment)
        gain = view.gain
        cand = self.candidates(view)
        labels = np.zeros(self.h * self.w, np.uint8)
        nothing = (0, 0, 0, 0)
        if cand.size == 0:
            return self._lifted(labels, view, lifts, nothing)
        # Where each candidate pixel was in the empty tray (nearest pixel; outside = not floor).
        x = (cand % self.w).astype(np.float32)
        y = (cand // self.w).astype(np.float32)
        sx, sy = alignment.on_empty_tray(x, y)
        ok = (sx >= 0) & (sx < self.w) & (sy >= 0) & (sy < self.h)
        src = np.clip(sy, 0, self.h - 1) * self.w + np.clip(sx, 0, self.w - 1)
        keep = ok & (self.roi[src] > 0)
        cand, at = cand[keep], self.row_index[sy[keep]] + sx[keep]
        if cand.size == 0:
            return self._lifted(labels, view, lifts, nothing)
        xs = x[keep]
        box = (
            int(xs.min()),
            int(cand[0] // self.w),
            int(xs.max()) + 1,
            int(cand[-1] // self.w) + 1,
        )
        px = np.take(work.reshape(-1, 3), cand, axis=0)
        f_lab = lab_of_pixels(px)
        ranges = self.ranges[at].view(np.uint8).reshape(-1, 8)
        labels[cand] = exact_labels(
            px, f_lab, ranges[:, :3], ranges[:, 3:6], gain, self.test, lut_class, lut_dist,
            max_colour,
        )
        return self._lifted(labels, view, lifts, box)

    def _lifted(
        self,
        labels: np.ndarray,
        view: HalfView,
        lifts: Sequence[Lift],
        box: tuple[int, int, int, int],
    ) -> tuple[np.ndarray, float, tuple[int, int, int, int]]:
        """Give tray pixels lit as a lifted colour's tops are (:class:`Lift`) that colour."""
        out = labels.reshape(self.h, self.w)
        for cls, level, darker, most in lifts:
            ratio = lift_ratio(view, out, cls, darker)
            lifted = (ratio <= level if darker else ratio >= level).view(np.uint8) & view.roi
            grow = 3
            if darker:
                lifted, grow = shaded_tops(lifted, most), 5
            # Grown back by the rim the smoothing (and the thinning) took, so joined to the side
            # faces.
            tops = self.to_full(cv2.dilate(lifted, np.ones((grow, grow), np.uint8)))
            x, y, w, h = cv2.boundingRect(tops)
            if w == 0:
                continue
            out[(tops > 0) & (out == TRAY)] = cls
            box = grown_box(box, (x, y, w, h))
        return out, view.gain, box


def shaded_tops(dark: np.ndarray, most: float) -> np.ndarray:
    """Black tops in a mask (half scale) of pixels darker than a level: rings closed and filled
    up to ``most`` pixels (a top may be lit as the tray is, inside its darker rim and side
    faces), then thinned (crevices between cubes, and the walls' shade where the tray has moved,
    are thin lines)."""
    k = np.ones((3, 3), np.uint8)
    ring = cv2.morphologyEx(dark, cv2.MORPH_CLOSE, k)
    cnts, hier = cv2.findContours(ring, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is not None:
        holes = [c for c, h in zip(cnts, hier[0], strict=True)
                 if h[3] != -1 and cv2.contourArea(c) <= most]
        cv2.drawContours(ring, holes, -1, 1, -1)
    return cv2.erode(ring, k)


def grown_box(
    box: tuple[int, int, int, int], rect: tuple[int, int, int, int]
) -> tuple[int, int, int, int]:
    """The box (x0, y0, x1, y1; empty when x1 <= x0) grown to hold a rectangle (x, y, w, h)."""
    x, y, w, h = rect
    if box[2] <= box[0]:
        return x, y, x + w, y + h
    return min(box[0], x), min(box[1], y), max(box[2], x + w), max(box[3], y + h)


def components(
    mask: np.ndarray, connectivity: int = 8
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats`` with 16-bit labels wherever the mask is too small to
    hold 65,535 blobs (three times faster than 32-bit labels), else 32-bit."""
    h, w = mask.shape[:2]
    most = ((h + 1) // 2) * ((w + 1) // 2) if connectivity == 8 else (h * w + 1) // 2
    ltype = cv2.CV_16U if most < 65535 else cv2.CV_32S
    return cv2.connectedComponentsWithStats(mask, connectivity=connectivity, ltype=ltype)


def label_counts(labels: np.ndarray) -> np.ndarray:
    """How many pixels hold each label value 0..255 (``np.bincount`` is slower on 8-bit)."""
    if labels.size == 0:
        return np.zeros(256, np.int64)
    hist = cv2.calcHist([np.ascontiguousarray(labels)], [0], None, [256], [0, 256])
    return hist.ravel().astype(np.int64)


def majority(labels: np.ndarray, classes: Sequence[int], k: int = 5) -> np.ndarray:
    """Majority vote of labels in a k x k window: removes speckle and fills highlight holes.

    Computed only around labelled pixels (the tray is the majority elsewhere by construction).
    """
    x, y, w, h = cv2.boundingRect((labels != TRAY).view(np.uint8))
    if w == 0:
        return labels
    pad = k
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(labels.shape[1], x + w + pad), min(labels.shape[0], y + h + pad)
    crop = labels[y0:y1, x0:x1]
    best = np.zeros(crop.shape, np.uint8)
    out_crop = np.zeros(crop.shape, np.uint8)
    for c in classes:
        votes = cv2.boxFilter((crop == c).view(np.uint8), -1, (k, k), normalize=False)
        win = votes > best
        out_crop[win] = c
        np.maximum(best, votes, out=best)
    out = labels.copy()
    out[y0:y1, x0:x1] = out_crop
    return out
