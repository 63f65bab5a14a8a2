"""Count cubes by colour in one drop photo, with per-cube detections and an honest confidence.

Pixels are labelled (see :mod:`vision.pixels`), each colour's pixels are grouped into connected
blobs, and each blob is read as a number of cubes from its area against the expected one-cube area
at that spot of the tray (calibrated) and from its shape: a single cube, even tilted on an edge or
a corner, is compact; two cubes are long or dented. Any blob that fits no reading well, anything
the tray and the calibrated colours cannot explain, or a colour calibration marked unreliable,
makes the result ask for review rather than guess.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision import pixels
from vision.profile import COLOURS, Profile, VisionError

_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
REVIEW_BELOW = 0.9
"""Results whose confidence is under this ask a person to check them."""
NOISE_FRACTION = 0.3
"""Blobs smaller than this many cube areas are noise (a sliver of seam, a speck of glare)."""
PARTIAL_FRACTION = 0.62
"""Blobs between noise and this are a cube mostly hidden, or not a cube: always doubtful."""
BETWEEN = -1
"""Key of the unknown patches lying between cubes of two colours."""
MAX_COLOUR_DISTANCE = 4.5
"""Mahalanobis distance beyond which a pixel is no calibrated colour (unknown)."""


@dataclass(frozen=True)
class Detection:
    """One counted cube: where it is (full-image pixels), its outline, colour and score 0..1."""

    colour: str
    centre: tuple[float, float]
    outline: tuple[tuple[int, int], ...]
    score: float

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form."""
        return {
            "colour": self.colour,
            "centre": [round(self.centre[0], 1), round(self.centre[1], 1)],
            "outline": [list(p) for p in self.outline],
            "score": round(self.score, 3),
        }


@dataclass(frozen=True)
class Blob:
    """One connected group of same-coloured pixels and how it was read (for review and tests)."""

    colour: str
    n: int
    confidence: float
    area_ratio: float
    reason: str
    box: tuple[int, int, int, int]


@dataclass(frozen=True)
class CountResult:
    """The reading of one photo."""

    counts: dict[str, int]
    detections: tuple[Detection, ...]
    confidence: float
    needs_review: bool
    reasons: tuple[str, ...] = ()
    blobs: tuple[Blob, ...] = ()
    ms: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def total(self) -> int:
        """All cubes of all colours."""
        return sum(self.counts.values())

    def to_json(self) -> dict[str, Any]:
        """The JSON line of the command-line contract (without the image path)."""
        return {
            "counts": dict(self.counts),
            "confidence": round(self.confidence, 3),
            "needs_review": self.needs_review,
            "ms": round(self.ms, 2),
            "reasons": list(self.reasons),
            "detections": [d.to_json() for d in self.detections],
        }


def area_basis(size: tuple[int, int]) -> np.ndarray:
    """The quadratic basis [1, u, v, u^2, uv, v^2] over the working image, u, v in [-1, 1]."""
    w, h = size
    u = (np.arange(w, dtype=np.float32) - w / 2) / (w / 2)
    v = (np.arange(h, dtype=np.float32) - h / 2) / (h / 2)
    uu, vv = np.meshgrid(u, v)
    return np.stack([np.ones_like(uu), uu, vv, uu * uu, uu * vv, vv * vv])


def basis_at(x: float, y: float, size: tuple[int, int]) -> np.ndarray:
    """The area basis at one working-image point."""
    w, h = size
    u, v = (x - w / 2) / (w / 2), (y - h / 2) / (h / 2)
    return np.array([1.0, u, v, u * u, u * v, v * v])


def read_blob(
    area_ratio: float, long_side: float, short_side: float, solidity: float, fill: float = 0.0
) -> tuple[int, float, str]:
    """How many cubes a blob holds, how sure that is, and why.

    ``long_side``/``short_side`` are the blob's minimum-area rectangle sides in units of one
    cube's expected side; ``solidity`` is area over convex-hull area, ``fill`` area over that
    rectangle's area.
    """
    r = area_ratio
    if r < NOISE_FRACTION:
        return 0, 1.0, "noise"
    if r < PARTIAL_FRACTION:
        return 1, 0.4, "partial: a mostly hidden cube, or not a cube"
    single_shape = long_side <= 1.55 and solidity >= 0.88
    if r <= 1.32:
        if single_shape:
            if r < 0.72:
                return 1, 0.8, "one cube, smaller than expected (partly hidden?)"
            if r > 1.27:
                return 1, 0.85, "one cube, larger than expected (tilted, or hiding another?)"
            return 1, 0.999, "one cube"
        return 1, 0.5, "one cube's area in a long or dented shape"
    if r <= 1.85:
        if single_shape and short_side <= 1.45:
            # A cube rests tilted only against something: alone, this may be a stack of two.
            return 1, 0.8 if r <= 1.7 else 0.6, "one tilted cube, or two stacked"
        if long_side >= 1.75 or solidity < 0.82:
            return 2, 0.95 if r >= 1.6 else 0.6, "two overlapping cubes"
        return (1 if r < 1.6 else 2), 0.45, "one tilted cube or two overlapping"
    # A cluster: read from the simulated likelihood of n cubes (flat, tilted or partly hidden).
    best, post = _posterior(r)
    grid = _grid_count(long_side, short_side, fill, solidity)
    if grid and grid != best and _posterior_of(r, grid) >= 0.1:
        # A filled rectangle one or two cubes wide is a flush row or block: its length counts
        # the cubes better than its area (neighbours hide each other's sides).
        return grid, 0.93, f"row or block of {grid}"
    if grid == best:
        return best, max(post, 0.98), f"row or block of {best}"
    return best, post, f"cluster of {best}"


def _grid_count(long_side: float, short_side: float, fill: float, solidity: float) -> int:
    """Cubes in a blob that is a filled rectangle of whole cubes (a row, a 2 x k block), else 0."""
    if fill < 0.86 or solidity < 0.93:
        return 0
    across = round(short_side / 0.95)
    if across not in (1, 2):
        return 0
    cell = short_side / across
    if not 0.8 <= cell <= 1.12:
        return 0
    along = long_side / cell
    k = round(along)
    if k < 1 or abs(along - k) > 0.18:
        return 0
    return across * k


MAX_CLUSTER = 48
BIN = 0.05
"""Cluster area likelihoods are tabulated in bins of this many cube areas."""


def _cluster_table() -> np.ndarray:
    """p(area ratio | n cubes in one blob) for n = 1..MAX_CLUSTER, on a grid of BIN.

    Each cube of a pile lies flat, either pressed flush against others (3 in 10; about 0.9 cube
    areas: its neighbours hide its sides) or loosely (about 1.08: crevices join the blob); or it
    is tilted, leaning or on a corner (1.25-1.75); or it is partly hidden (0.25-0.9). The area of
    n such cubes is the n-fold convolution of that mixture; the counter reads a blob as the n
    that best explains its area, and is only as sure as the other n leave it.
    """
    x = (np.arange(int(2.0 / BIN)) + 0.5) * BIN
    flush = np.exp(-0.5 * ((x - 0.9) / 0.07) ** 2)
    loose = np.exp(-0.5 * ((x - 1.08) / 0.08) ** 2)
    flat = 0.3 * flush / flush.sum() + 0.7 * loose / loose.sum()
    tilted = ((x >= 1.25) & (x <= 1.75)).astype(float)
    hidden = ((x >= 0.25) & (x <= 0.9)).astype(float)
    one = 0.8 * flat / flat.sum() + 0.12 * tilted / tilted.sum() + 0.08 * hidden / hidden.sum()
    n_bins = int(MAX_CLUSTER * 2.0 / BIN) + 2
    table = np.zeros((MAX_CLUSTER + 1, n_bins))
    dist = np.zeros(1)
    dist[0] = 1.0
    for n in range(1, MAX_CLUSTER + 1):
        dist = np.convolve(dist, one)
        row = np.zeros(n_bins)
        row[: min(n_bins, dist.size)] = dist[:n_bins]
        table[n] = row + 1e-12
    return table


_TABLE = _cluster_table()


def _posterior_of(r: float, n: int) -> float:
    """Posterior weight of exactly ``n`` cubes for a blob of area ratio ``r``."""
    b = min(int(r / BIN), _TABLE.shape[1] - 1)
    like = _TABLE[1:, b]
    return float(like[n - 1] / like.sum()) if 1 <= n <= MAX_CLUSTER else 0.0


def _posterior(r: float) -> tuple[int, float]:
    """Most likely cube count of a blob with area ratio ``r``, and its posterior weight."""
    b = min(int(r / BIN), _TABLE.shape[1] - 1)
    like = _TABLE[1:, b]
    post = like / like.sum()
    i = int(post.argmax())
    return i + 1, float(post[i])


@dataclass(frozen=True)
class Labelled:
    """A frame's pixel labels with what blob reading needs besides them."""

    labels: np.ndarray
    alignment: pixels.Alignment
    gain: float


class Counter:
    """Counts cubes in frames from the setup a profile was calibrated on."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.size = profile.work_size
        self.background = profile.background()
        self.bg_lab = cv2.cvtColor(self.background, cv2.COLOR_BGR2LAB)
        self.template = pixels.thumbnail(self.background)
        self.roi = pixels.roi_mask(profile.roi, self.size)
        means = np.array([c.mean for c in profile.colours])
        covs = np.array([c.cov for c in profile.colours])
        self.lut_class, self.lut_dist = pixels.mahalanobis_lut(means, covs)
        self.names = [c.name for c in profile.colours]
        self.tray_test = pixels.TrayTest(*profile.ratio_range, profile.chroma_limit)
        self.unreliable = [c.name for c in profile.colours if not c.reliable]
        # One throw-away count so the first real one is not slowed by first-use set-up costs.
        self.count(self.background)

    def expected_area(self, colour: int, x: float, y: float) -> float:
        """One cube's expected area (working pixels) of a colour at a working-image point."""
        model = self.profile.colours[colour]
        g = float(np.dot(self.profile.area_poly, basis_at(x, y, self.size)))
        return model.area * float(np.clip(g, 0.5, 2.0))

    def labels(self, frame: np.ndarray) -> Labelled:
        """Label every working pixel: 0 tray, 1..6 a colour (profile order), 255 unknown."""
        work = pixels.to_working(frame, self.size)
        al = pixels.align(self.background, work, self.template)
        bg = pixels.warp_image(self.bg_lab, al)
        roi = pixels.warp_image(self.roi, al, cv2.BORDER_CONSTANT)
        lab = cv2.cvtColor(work, cv2.COLOR_BGR2LAB)
        gain = pixels.exposure_gain(lab, bg, roi)
        labels = pixels.classify(
            work,
            lab,
            bg,
            roi,
            gain,
            self.tray_test,
            self.lut_class,
            self.lut_dist,
            MAX_COLOUR_DISTANCE,
        )
        present = [int(v) for v in np.flatnonzero(np.bincount(labels.ravel(), minlength=256))]
        if len(present) > 1:
            labels = pixels.majority(labels, present)
        return Labelled(labels, al, gain)

    def count(self, frame: np.ndarray, expected_total: int | None = None) -> CountResult:
        """Count the cubes of every colour in a BGR frame of the calibrated setup.

        ``expected_total`` (from the tower's exit beam, say) makes a different total ask for
        review: a cube hidden under another cannot be seen from above, but it was counted going in.
        """
        start = time.perf_counter()
        frame = self._check(frame)
        seen = self.labels(frame)
        # Reasons that always ask for review, whatever the blobs say.
        forced: list[str] = [
            f"{n} cannot be told apart reliably in this setup" for n in self.unreliable
        ]
        if seen.alignment.score < 0.5:
            forced.append(f"tray alignment is poor (correlation {seen.alignment.score:.2f})")
        if not 0.7 <= seen.gain <= 1.4:
            forced.append(f"light differs from calibration (x{seen.gain:.2f})")
        doubts: list[str] = []
        counts = {name: 0 for name in COLOURS}
        detections: list[Detection] = []
        blobs: list[Blob] = []
        confidence = 1.0
        labels = seen.labels
        present = np.bincount(labels.ravel(), minlength=256)
        joins = self._joinable_unknown(labels, present)
        absorbed = np.zeros(labels.shape, np.uint8)
        for index, name in enumerate(self.names):
            if present[index + 1] < self._min_pixels(index):
                continue
            for blob, dets in self._colour_blobs(labels, index, joins.get(index + 1), absorbed):
                blobs.append(blob)
                counts[name] += blob.n
                detections.extend(dets)
                confidence *= blob.confidence
                if blob.confidence < REVIEW_BELOW:
                    doubts.append(f"{name} at {self._where(blob)}: {blob.reason}")
        # Unknown pixels that joined a counted blob are explained; any other unknown patch is not.
        labels = np.where(absorbed > 0, pixels.TRAY, labels).astype(np.uint8)
        forced += self._unknown_objects(labels, joins.get(BETWEEN))
        if confidence < REVIEW_BELOW and not doubts:
            doubts.append("several readings each a little uncertain")
        total = sum(counts.values())
        if expected_total is not None and total != expected_total:
            forced.append(f"counted {total} cubes but {expected_total} were expected")
        if forced:
            confidence = min(confidence, REVIEW_BELOW - 0.05)
        ms = (time.perf_counter() - start) * 1000.0
        return CountResult(
            counts=counts,
            detections=tuple(detections),
            confidence=float(confidence),
            needs_review=bool(confidence < REVIEW_BELOW),
            reasons=tuple(forced + doubts),
            blobs=tuple(blobs),
            ms=ms,
            extra={
                "shift_px": round(seen.alignment.shift_px / self.profile.scale, 1),
                "gain": round(seen.gain, 3),
            },
        )

    def _min_pixels(self, index: int) -> float:
        """Fewest pixels of a colour worth looking at (half the noise size of a small cube)."""
        return NOISE_FRACTION * self.profile.colours[index].area * 0.5

    def _colour_blobs(
        self,
        labels: np.ndarray,
        index: int,
        extra: np.ndarray | None,
        absorbed: np.ndarray | None = None,
    ) -> list[tuple[Blob, list[Detection]]]:
        """Read every blob of one colour; pixels in ``extra`` may join the blobs they touch.

        The ``extra`` pixels that end up in a counted blob are marked in ``absorbed``.
        """
        h_img, w_img = labels.shape
        own = (labels == index + 1).view(np.uint8)
        pad = 2 + round(math.sqrt(self.profile.colours[index].area))
        bx, by, bw, bh = cv2.boundingRect(own)
        x0, y0 = max(0, bx - pad), max(0, by - pad)
        x1, y1 = min(w_img, bx + bw + pad), min(h_img, by + bh + pad)
        mine = cv2.morphologyEx(own[y0:y1, x0:x1], cv2.MORPH_OPEN, _KERNEL)
        mask = mine | extra[y0:y1, x0:x1] if extra is not None else mine
        n_comp, comp, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
        own_px = np.bincount(comp[mine > 0], minlength=n_comp)
        stats[:, 0] += x0
        stats[:, 1] += y0
        cents += (x0, y0)
        out = []
        for j in range(1, n_comp):
            if own_px[j] < self._min_pixels(index):
                continue
            blob, dets = self._read(index, self.names[index], comp, j, stats[j], cents[j], (x0, y0))
            if blob is not None and blob.n > 0:
                out.append((blob, dets))
                if extra is not None and absorbed is not None:
                    # The unknown pixels this counted blob took in are explained now.
                    region = absorbed[y0:y1, x0:x1]
                    region[(comp == j) & (mine == 0)] = 1
        return out

    def _joinable_unknown(self, labels: np.ndarray, present: np.ndarray) -> dict[int, np.ndarray]:
        """Unknown patches touching exactly one colour (a cube's face turned from the light),
        as a mask per colour label; patches between two colours stay unknown and are given
        under the key ``BETWEEN`` (crevices and mixed edge pixels, mostly)."""
        unknown = (labels == pixels.UNKNOWN).view(np.uint8)
        if not unknown.any():
            return {}
        n, comp = cv2.connectedComponents(unknown, connectivity=8)
        touched = np.zeros((len(self.names) + 1, n), bool)
        k = np.ones((3, 3), np.uint8)
        for c in range(1, len(self.names) + 1):
            if present[c]:
                near = cv2.dilate((labels == c).view(np.uint8), k) > 0
                touched[c, np.unique(comp[near & (unknown > 0)])] = True
        single = touched.sum(0) == 1
        single[0] = False
        out = {}
        for c in range(1, len(self.names) + 1):
            ids = touched[c] & single
            if ids.any():
                out[c] = ids[comp].view(np.uint8)
        between = touched.sum(0) >= 2
        between[0] = False
        if between.any():
            out[BETWEEN] = between[comp].view(np.uint8)
        return out

    def _where(self, blob: Blob) -> str:
        x, y, w, h = blob.box
        s = self.profile.scale
        return f"({(x + w / 2) / s:.0f}, {(y + h / 2) / s:.0f})"

    def _unknown_objects(self, labels: np.ndarray, between: np.ndarray | None) -> list[str]:
        """Something in the tray that is neither tray nor a calibrated colour (a die, a finger,
        a cube in deep shadow) is doubtful: one reason per such patch of at least a quarter cube
        (half a cube for a patch between cubes of two colours, mostly their crevice)."""
        mask = (labels == pixels.UNKNOWN).view(np.uint8)
        smallest = min(c.area for c in self.profile.colours) * 0.5 * 0.25
        if cv2.countNonZero(mask) < smallest:
            return []
        n, comp, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
        in_between = np.zeros(n)
        if between is not None:
            in_between = np.bincount(comp.ravel(), weights=between.ravel(), minlength=n)
        out = []
        s = self.profile.scale
        for j in np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= smallest):
            if j == 0:
                continue
            x, y = cents[j]
            typical = min(self.expected_area(i, x, y) for i in range(len(self.names)))
            need = 0.5 if in_between[j] > 0 else 0.25
            if stats[j, cv2.CC_STAT_AREA] >= need * typical:
                out.append(f"unknown object at ({x / s:.0f}, {y / s:.0f})")
        return out

    def _read(
        self,
        index: int,
        name: str,
        comp: np.ndarray,
        j: int,
        stat: np.ndarray,
        cent: np.ndarray,
        offset: tuple[int, int],
    ) -> tuple[Blob | None, list[Detection]]:
        x, y, w, h, area = (int(v) for v in stat)
        if area < NOISE_FRACTION * self.profile.colours[index].area * 0.5:
            return None, []
        expected = self.expected_area(index, float(cent[0]), float(cent[1]))
        ratio = area / expected
        if ratio < NOISE_FRACTION:
            return None, []
        cx, cy = x - offset[0], y - offset[1]
        sub = (comp[cy : cy + h, cx : cx + w] == j).astype(np.uint8)
        contours, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        contour = max(contours, key=cv2.contourArea)
        (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
        side = math.sqrt(expected)
        hull = cv2.contourArea(cv2.convexHull(contour))
        solidity = float(area / hull) if hull > 0 else 1.0
        fill = area / max(1.0, rw * rh)
        n, conf, why = read_blob(
            ratio, max(rw, rh) / side, min(rw, rh) / side, min(1.0, solidity), min(1.0, fill)
        )
        blob = Blob(name, n, conf, ratio, why, (x, y, w, h))
        return blob, self._detections(name, sub, contour, (x, y), n, conf)

    def _detections(
        self,
        name: str,
        sub: np.ndarray,
        contour: np.ndarray,
        origin: tuple[int, int],
        n: int,
        conf: float,
    ) -> list[Detection]:
        """Split a blob into ``n`` cube outlines (k-means on its pixels) in full-image pixels."""
        if n <= 0:
            return []
        if n == 1:
            return [self._detection(name, contour, origin, conf)]
        ys, xs = np.nonzero(sub)
        pts = np.stack([xs, ys], 1).astype(np.float32)
        criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_MAX_ITER, 10, 0.5)
        cv2.setRNGSeed(1)
        _, lab, _ = cv2.kmeans(pts, n, None, criteria, 1, cv2.KMEANS_PP_CENTERS)
        out = []
        lab = lab.ravel()
        for k in range(n):
            part = np.zeros_like(sub)
            sel = lab == k
            part[ys[sel], xs[sel]] = 1
            contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            if contours:
                out.append(self._detection(name, max(contours, key=cv2.contourArea), origin, conf))
        return out

    def _detection(
        self, name: str, contour: np.ndarray, origin: tuple[int, int], conf: float
    ) -> Detection:
        """One cube from its outline in blob coordinates, mapped to full-image pixels."""
        s = self.profile.scale
        ox, oy = origin
        m = cv2.moments(contour)
        if m["m00"] > 0:
            cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
        else:
            cx, cy = float(contour[0, 0, 0]), float(contour[0, 0, 1])
        poly = cv2.approxPolyDP(contour, 0.7, True)
        pts = np.rint((poly[:, 0, :] + np.array([ox, oy]) + 0.5) / s).astype(int)
        outline = tuple(map(tuple, pts.tolist()))
        return Detection(name, ((cx + ox + 0.5) / s, (cy + oy + 0.5) / s), outline, conf)

    def _check(self, frame: np.ndarray) -> np.ndarray:
        """Accept a BGR (or grey, or BGRA) uint8 frame of the calibrated shape."""
        if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim not in (2, 3):
            raise VisionError("frame must be a uint8 image array")
        if frame.ndim == 2:
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        elif frame.shape[2] == 4:
            frame = cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
        elif frame.shape[2] != 3:
            raise VisionError("frame must have 1, 3 or 4 channels")
        w, h = self.profile.image_size
        fh, fw = frame.shape[:2]
        if abs(fw / fh - w / h) > 0.01 * (w / h):
            raise VisionError(f"image is {fw}x{fh} but the profile was calibrated at {w}x{h}")
        return frame
