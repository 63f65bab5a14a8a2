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
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from vision import pixels
from vision.align import Aligner, Alignment
from vision.blobs import Blob, BlobReader, Labelled, bare_tray, top_scale
from vision.faint import outlined_tops
from vision.odds import BEAM_FLOOR, REVIEW_BELOW, beam_confidence, beam_fix
from vision.outlines import Detection, ToPhoto
from vision.outside import OutsideWatch
from vision.photos import NO_COLOUR, colourless
from vision.profile import COLOURS, Profile, VisionError

BETWEEN = -1
"""Key of the unknown patches lying between cubes of two colours."""
FEATURELESS = 12.0
"""Grey-level gradient (99th percentile, on the alignment thumbnail) under which the empty tray
has nothing to align on."""
MAX_COLOUR_DISTANCE = 4.5
"""Mahalanobis distance beyond which a pixel is no calibrated colour (unknown)."""
COLOURLESS = f"{NO_COLOUR}: no cube's colour can be told"
TRAY_MOVED = 1.0
"""Most the tray's centre may seem to have moved since calibration, in cube sides, before a count
asks. Nudges of 3 mm moved it at most a third of a side (17 setups x 40 rendered drops, seed
398); a row of dark cubes along the one rim that pins an axis drew the alignment 1.4 sides off
(wide-frame, physics seed 396 #11: three cubes along that rim then fell outside the tray as moved
and were not counted). Cubes near a rim are looked for only where the tray was at calibration."""
CREVICE_REACH = 3
"""How near (working pixels) to another colour's cube a pixel read as white, on a tray white
blends into, is the shade in a crevice between cubes if it is darker than the bare tray there:
that shade is nearest to white in colour, and read as white it made a white cube beside others
two (a fresh white-floor rig: 31.7% of drops exact -> 78.3% with its outlines found, of which
the shade read as white cost 6.6 points). Given back to the tray, the cube's top comes back
with its rim by its outline. Not farther, nor alone on the tray: a lone white cube painted
darker than the tray, whose outline does not close, is then lost altogether (rendered light
tray, seed 213: its calibration photo no longer added up), and piled white cubes' darker side
faces were lost too (heavy piles, seed 95: one drop fewer right)."""
UNKNOWN_OBJECT = "unknown object"
"""Why a photo asks about a patch that is neither tray nor a calibrated colour (then ``at (x,
y)``)."""


def _photo_box(box: tuple[int, int, int, int], to_photo: ToPhoto) -> tuple[int, int, int, int]:
    """A working-image box (x, y, w, h) in photo pixels."""
    x, y, w, h = box
    (x0, y0), (x1, y1) = to_photo(x, y), to_photo(x + w, y + h)
    return round(x0), round(y0), round(x1 - x0), round(y1 - y0)


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


@dataclass(frozen=True)
class EmptyTray:
    """What counting needs of the calibrated empty tray alone."""

    background: np.ndarray
    roi: np.ndarray
    test: pixels.TrayTest
    aligner: Aligner
    labeller: pixels.SparseLabeller
    featureless: bool
    """A tray seen without edges or texture (the camera sees only plain floor) cannot be
    aligned, and need not be: a poor alignment then raises no doubt."""
    in_colour: bool
    """Whether the empty tray shows colour, so that a photo without any was taken without
    colour (a neutral grey tray in neutral light may show none)."""
    grey: np.ndarray
    """The empty tray's grey levels, that shade and crevices are weighed against."""


_TRAYS: dict[tuple[Any, ...], EmptyTray] = {}
_TRAYS_LOCK = threading.Lock()


def _tray_key(profile: Profile) -> tuple[Any, ...]:
    """What the empty tray's parts are built from."""
    return (profile.background_png, profile.roi, profile.work_size, profile.frame_size,
            profile.ratio_range, profile.chroma_limit)


def _empty_tray(profile: Profile) -> tuple[EmptyTray, bool]:
    """The profile's empty tray, and whether it was built now: remembered for the last setup,
    as calibration builds a dozen counters on one tray (a fifth of its time). Each counter holds
    its own, so an older setup's tray goes with its last counter (held for two setups, a
    process counting four setups in turn peaked 5 MB higher)."""
    key = _tray_key(profile)
    with _TRAYS_LOCK:
        tray = _TRAYS.get(key)
    if tray is not None:
        return tray, False
    background = profile.background()
    bg_lab = cv2.cvtColor(background, cv2.COLOR_BGR2LAB)
    roi = pixels.roi_mask(profile.roi, profile.work_size)
    test = pixels.TrayTest(*profile.ratio_range, profile.chroma_limit)
    aligner = Aligner(background, max(profile.frame_size))
    g = aligner.template
    edges = np.hypot(cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1))
    tray = EmptyTray(
        background, roi, test, aligner, pixels.SparseLabeller(bg_lab, roi, test),
        float(np.percentile(edges, 99)) < FEATURELESS, not colourless(background),
        cv2.cvtColor(background, cv2.COLOR_BGR2GRAY),
    )
    with _TRAYS_LOCK:  # counters are built on other threads too (the tower events' in simulation)
        _TRAYS.clear()
        _TRAYS[key] = tray
    return tray, True


LabelMemo = dict[int, tuple[np.ndarray, Any, Labelled | None]]
"""Frames by id, each with the labelling last made of it and its labels (see :class:`Counter`)."""


class Counter:
    """Counts cubes in frames from the setup a profile was calibrated on."""

    def __init__(self, profile: Profile, memo: LabelMemo | None = None) -> None:
        """``memo``: frames to remember the labels of, by id (each entry holds its frame, so the
        id stays its own), with the labelling last made of each: calibration counts and measures
        its photos under a dozen profiles, most of which label alike."""
        self.profile = profile
        self.memo = memo
        self.size = profile.work_size
        tray, built = _empty_tray(profile)
        self.background, self.roi = tray.background, tray.roi
        self.aligner, self.labeller, self.tray_test = tray.aligner, tray.labeller, tray.test
        self.featureless, self.tray_in_colour = tray.featureless, tray.in_colour
        self.tray_grey = tray.grey
        means = np.array([c.mean for c in profile.colours])
        covs = np.array([c.cov for c in profile.colours])
        self.lut_class, self.lut_dist = pixels.mahalanobis_lut(
            means, covs, [c.glint for c in profile.colours])
        self.reader = BlobReader(profile, tray.grey)
        self.names = self.reader.names
        self.unreliable = [c.name for c in profile.colours if not c.reliable]
        self.lifts = [pixels.Lift(i + 1, c.lift) for i, c in enumerate(profile.colours) if c.lift]
        self.lifts += [pixels.Lift(i + 1, c.shade, darker=True, most=c.area / 4)  # half scale
                       for i, c in enumerate(profile.colours) if c.shade]
        self.outlined = [i + 1 for i, c in enumerate(profile.colours) if c.lift or c.outlined]
        plain = ([c.area for i, c in enumerate(profile.colours) if i + 1 not in self.outlined]
                 or [c.area for c in profile.colours])
        self.plain_area = float(np.median(plain))
        self.outside = OutsideWatch(self.background, self.roi, math.sqrt(self.plain_area))
        self.labelling = (
            _tray_key(profile), self.size,
            tuple((c.mean, c.cov, c.glint) for c in profile.colours), tuple(self.lifts),
            (tuple(self.outlined), self.plain_area, profile.area_map) if self.outlined else (),
        )
        """Everything :meth:`labels` depends on besides the frame."""
        if built:
            # One throw-away count so the first real one is not slowed by first-use set-up
            # costs (a counter on a tray already counted on has paid them).
            self.count_working(self.background)

    def working(self, frame: np.ndarray) -> np.ndarray:
        """The part of a photo the counter reads (:attr:`Profile.box`), at working scale."""
        return pixels.working_part(self._check(frame), self.profile.box, self.profile.image_size,
                                   self.size)

    def labels(self, work: np.ndarray) -> Labelled:
        """Label every pixel of a working frame (:meth:`working`): 0 tray, 1..6 a colour
        (profile order), 255 unknown."""
        if self.memo is None:
            return self._labels(work)
        held = self.memo.get(id(work))
        if held is None or held[0] is not work:
            return self._labels(work)
        if held[2] is None or held[1] != self.labelling:
            self.memo[id(work)] = (work, self.labelling, self._labels(work))
        return self.memo[id(work)][2]

    def _labels(self, work: np.ndarray) -> Labelled:
        if self.featureless:
            al = Alignment(np.array([[1, 0, 0], [0, 1, 0]], np.float32), 0.0)
        else:
            al = self.aligner.align(work)
        labels, gain, box = self.labeller.labels(
            work, al, self.lut_class, self.lut_dist, MAX_COLOUR_DISTANCE, self.lifts
        )
        if self.outlined:
            box = self._outlined(work, al, gain, labels, box)
        h, w = labels.shape
        pad = 4
        x0, y0 = max(0, box[0] - pad), max(0, box[1] - pad)
        x1, y1 = min(w, box[2] + pad), min(h, box[3] + pad)
        if x1 <= x0 or y1 <= y0:
            return Labelled(labels, al, gain, (0, 0, 0, 0), work)
        crop = labels[y0:y1, x0:x1]
        present = [int(v) for v in np.flatnonzero(pixels.label_counts(crop))]
        if len(present) > 1:
            labels[y0:y1, x0:x1] = pixels.majority(crop, present)
        return Labelled(labels, al, gain, (x0, y0, x1, y1), work)

    def _outlined(
        self, work: np.ndarray, al: Alignment, gain: float, labels: np.ndarray,
        box: tuple[int, int, int, int],
    ) -> tuple[int, int, int, int]:
        """Label the tops that colours blending into the tray show by their outlines alone
        (in place), and return the box grown to hold them."""
        size = (labels.shape[1], labels.shape[0])
        roi = cv2.warpAffine(self.roi, al.warp, size, flags=cv2.INTER_NEAREST)
        for cls in self.outlined:
            if self.names[cls - 1] == "white":
                self._unshaded(work, al, gain, labels, cls)
            tops = outlined_tops(work, labels, cls, roi, self._plain_top_area,
                                 self.profile.colours[cls - 1].mean[0])
            rect = cv2.boundingRect(tops)
            if rect[2] == 0:
                continue
            labels[(tops > 0) & (labels == pixels.TRAY)] = cls
            box = pixels.grown_box(box, rect)
        return box

    def _unshaded(
        self, work: np.ndarray, al: Alignment, gain: float, labels: np.ndarray, cls: int
    ) -> None:
        """Give back to the tray (in place) the pixels of white blending into a light tray that
        lie beside another colour's cube and are darker than the bare tray there
        (:data:`CREVICE_REACH`). (Black on a dark tray is not so treated: its side faces are
        darker than the tray, as the shade is, and a lighter top is all that tells it.)"""
        x, y, w, h = cv2.boundingRect((labels == cls).view(np.uint8))
        if w == 0:
            return
        r = CREVICE_REACH
        x0, y0 = max(0, x - r), max(0, y - r)
        part = labels[y0 : y + h + r, x0 : x + w + r]
        other = ((part != pixels.TRAY) & (part != cls) & (part != pixels.UNKNOWN)).view(np.uint8)
        near = cv2.dilate(other, np.ones((2 * r + 1, 2 * r + 1), np.uint8))
        ys, xs = np.nonzero((part == cls) & (near > 0))
        if xs.size == 0:
            return
        xs, ys = xs + x0, ys + y0
        lit = cv2.cvtColor(work[ys, xs][:, None, :], cv2.COLOR_BGR2GRAY).ravel()
        shade = lit < bare_tray(self.tray_grey, al, xs, ys) * gain
        labels[ys[shade], xs[shade]] = pixels.TRAY

    def _plain_top_area(self, x: float, y: float) -> float:
        """A flat cube's top area at a working point, from the colours told from the tray
        plainly (a colour that blends into it was measured from a part of its cubes)."""
        return self.plain_area * top_scale(self.profile, x, y)

    def count(self, frame: np.ndarray, expected_total: int | None = None) -> CountResult:
        """Count the cubes of every colour in a BGR photo of the calibrated setup.

        ``expected_total`` (from the tower's exit beam, say) makes a different total ask for
        review: a cube hidden under another cannot be seen from above, but it was counted going in.
        """
        start = time.perf_counter()
        result = self.count_working(self.working(frame), expected_total, self._to_frame(frame))
        return replace(result, ms=(time.perf_counter() - start) * 1000.0)

    def _to_frame(self, frame: np.ndarray) -> ToPhoto:
        """Working-image points in ``frame``'s pixels: a frame larger or smaller than the photos
        calibrated on (of the same shape) is told of in its own."""
        (w, h), (fw, fh) = self.profile.image_size, frame.shape[1::-1]
        if (fw, fh) == (w, h):
            return self.profile.to_photo

        def to_frame(x: Any, y: Any) -> tuple[Any, Any]:
            px, py = self.profile.to_photo(x, y)
            return px * (fw / w), py * (fh / h)

        return to_frame

    def count_working(
        self, work: np.ndarray, expected_total: int | None = None, to_photo: ToPhoto | None = None
    ) -> CountResult:
        """:meth:`count` for a frame already at working scale (:meth:`working`); ``to_photo``
        places what is found in the photo (by default :meth:`Profile.to_photo`)."""
        start = time.perf_counter()
        to_photo = to_photo or self.profile.to_photo
        seen = self.labels(work)
        # Reasons that always ask for review, whatever the blobs say.
        forced: list[str] = [
            f"{n} cannot be told apart reliably in this setup" for n in self.unreliable
        ]
        if seen.alignment.score < 0.5 and not self.featureless:
            forced.append(f"tray alignment is poor (correlation {seen.alignment.score:.2f})")
        moved = seen.alignment.centre_moved(self.size) / math.sqrt(self.plain_area)
        if moved > TRAY_MOVED and not self.featureless:
            forced.append(f"the tray seems to have moved {moved:.1f} cube widths since "
                          "calibration: check the count, or calibrate again")
        if not 0.7 <= seen.gain <= 1.4:
            forced.append(f"light differs from calibration (x{seen.gain:.2f})")
        if self.tray_in_colour and colourless(work):
            forced.append(COLOURLESS)
        doubts: list[str] = []
        counts = {name: 0 for name in COLOURS}
        detections: list[Detection] = []
        blobs: list[Blob] = []
        labels, base = seen.crop()
        grey = None
        if seen.work is not None and labels.size:
            x0, y0, x1, y1 = seen.box
            grey = cv2.cvtColor(seen.work[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
        present = pixels.label_counts(labels)
        joins = self._joinable_unknown(labels, present)
        absorbed = np.zeros(labels.shape, np.uint8)
        for index, name in enumerate(self.names):
            # A sliver, or specks of a chromatic colour together, may be a cube under another.
            if present[index + 1] < self.reader.least_present[index]:
                continue
            found = self.reader.read_colour(seen, labels, index, joins.get(index + 1), absorbed,
                                            base, grey, to_photo)
            for blob, dets in found:
                blobs.append(blob)
                counts[name] += blob.n
                detections.extend(dets)
        total = sum(counts.values())
        own = [min(b.confidence, 1.0 - b.hidden) for b in blobs]
        beam_agrees = expected_total is not None and total == expected_total
        if beam_agrees:
            # The exit beam counted the same total: a reading can only be wrong if another is
            # wrong the other way, so each is as sure as the rest make that unlikely.
            confidence, sure = beam_confidence(blobs)
        else:
            sure = own
            confidence = float(np.prod(own)) if own else 1.0
        for blob, alone, p in zip(blobs, own, sure, strict=True):
            # Two errors that cancel are rarer than one, not impossible (a cube wholly hidden
            # elsewhere): a reading this doubtful on its own, or a sliver's (a cube hides there),
            # asks even when the totals agree.
            if p < REVIEW_BELOW or alone < BEAM_FLOOR or not blob.beam_settles:
                doubts.append(f"{blob.colour} at {self._where(blob, to_photo)}: {blob.reason}")
                confidence = min(confidence, p, alone)
        # Unknown pixels that joined a counted blob are explained; any other unknown patch is not.
        labels = np.where(absorbed > 0, pixels.TRAY, labels).astype(np.uint8)
        if labels.size:
            forced += self._unknown_objects(labels, joins.get(BETWEEN), base, to_photo)
        if seen.work is not None:
            forced += self.outside.objects(seen.work, seen.alignment, seen.gain, seen.labels,
                                           to_photo)
        if confidence < REVIEW_BELOW and not doubts:
            doubts.append("several readings each a little uncertain")
        if expected_total is not None and total != expected_total:
            forced.append(f"counted {total} cubes but {expected_total} were expected")
            fix = beam_fix(blobs, expected_total - total)
            if fix is not None:
                # Still asked about, but with the likeliest reading that the beam allows.
                for i, e in enumerate(fix):
                    if e:
                        b = blobs[i]
                        why = f"{b.reason}; read as {b.n + e} for the beam's total"
                        blobs[i] = replace(b, n=b.n + e, reason=why)
                        counts[b.colour] += e
                forced.append("the likeliest reading with the beam's total is shown")
        if forced:
            confidence = min(confidence, REVIEW_BELOW - 0.05)
        ms = (time.perf_counter() - start) * 1000.0
        return CountResult(
            counts=counts,
            detections=tuple(detections),
            confidence=float(confidence),
            needs_review=bool(confidence < REVIEW_BELOW),
            reasons=tuple(forced + doubts),
            blobs=tuple(replace(b, box=_photo_box(b.box, to_photo)) for b in blobs),
            ms=ms,
            extra={
                "shift_px": round(seen.alignment.shift_px / self.profile.scale, 1),
                "gain": round(seen.gain, 3),
            },
        )

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

    def _where(self, blob: Blob, to_photo: ToPhoto) -> str:
        x, y, w, h = blob.box
        px, py = to_photo(x + w / 2, y + h / 2)
        return f"({px:.0f}, {py:.0f})"

    def _unknown_objects(
        self, labels: np.ndarray, between: np.ndarray | None, base: tuple[int, int],
        to_photo: ToPhoto,
    ) -> list[str]:
        """Something in the tray that is neither tray nor a calibrated colour (a die, a finger,
        a cube in deep shadow) is doubtful: one reason per such patch of at least a quarter cube
        (half a cube for a patch between cubes of two colours, mostly their crevice)."""
        mask = (labels == pixels.UNKNOWN).view(np.uint8)
        smallest = min(c.area for c in self.profile.colours) * 0.5 * 0.25
        if cv2.countNonZero(mask) < smallest:
            return []
        n, comp, stats, cents = pixels.components(mask)
        in_between = np.zeros(n)
        if between is not None:
            in_between = np.bincount(comp.ravel(), weights=between.ravel(), minlength=n)
        out = []
        for j in np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= smallest):
            if j == 0:
                continue
            x, y = cents[j][0] + base[0], cents[j][1] + base[1]
            typical = min(self.reader.expected_area(i, x, y) for i in range(len(self.names)))
            need = 0.5 if in_between[j] > 0 else 0.25
            if stats[j, cv2.CC_STAT_AREA] >= need * typical:
                px, py = to_photo(x, y)
                out.append(f"{UNKNOWN_OBJECT} at ({px:.0f}, {py:.0f})")
        return out

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
