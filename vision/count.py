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
from functools import partial
from typing import Any

import cv2
import numpy as np

from vision import pixels
from vision.align import Aligner, Alignment
from vision.crosscheck import checked_reading
from vision.faint import outlined_tops
from vision.odds import BEAM_FLOOR, REVIEW_BELOW, beam_confidence, beam_fix
from vision.outlines import Detection, ToPhoto, cube_detections, detection
from vision.outside import OutsideWatch
from vision.photos import NO_COLOUR, colourless
from vision.profile import COLOURS, Profile, VisionError
from vision.readings import (
    NOISE_FRACTION,
    PARTIAL_FRACTION,
    posterior_of,
    r_small,
    read_blob,
)
from vision.traces import (
    CLEAR_OF_TRAY,
    FAINT_FRACTION,
    REACH,
    SLIVER_FRACTION,
    SPECK_PIXELS,
    Colour,
    Trace,
    hidden_traces,
    touches_other,
)

_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
SLIVER_CONFIDENCE = 0.65
"""How sure a sliver or specks against another colour are of a cube almost hidden under it. Such
a reading asks even when the exit beam's total agrees (:attr:`Blob.beam_settles`): where one cube
hides under another, others may too, so errors that cancel are likelier there."""
BETWEEN = -1
"""Key of the unknown patches lying between cubes of two colours."""
FEATURELESS = 12.0
"""Grey-level gradient (99th percentile, on the alignment thumbnail) under which the empty tray
has nothing to align on."""
MAX_COLOUR_DISTANCE = 4.5
"""Mahalanobis distance beyond which a pixel is no calibrated colour (unknown)."""
COLOURLESS = f"{NO_COLOUR}: no cube's colour can be told"
COVERED = "one cube, partly covered by a neighbour"
TRAY_MOVED = 1.0
"""Most the tray's centre may seem to have moved since calibration, in cube sides, before a count
asks. Nudges of 3 mm moved it at most a third of a side (17 setups x 40 rendered drops, seed
398); a row of dark cubes along the one rim that pins an axis drew the alignment 1.4 sides off
(wide-frame, physics seed 396 #11: three cubes along that rim then fell outside the tray as moved
and were not counted). Cubes near a rim are looked for only where the tray was at calibration."""
SLIVER = "a sliver against another colour: a cube almost hidden under it?"
SHADE_SLIVER = "a black sliver against another colour: a shadow, or a cube under it?"
GLINT_SLIVER = "a white sliver against another colour: a glint, or a cube under it?"
MOSTLY_COVERED = "one cube, mostly covered by a neighbour"
TRACES = "specks against another colour: a cube almost hidden under it?"
FAINT_TRACES = "faint specks against another colour: a cube hidden under it?"
CREVICE_SHADE = 0.2
"""How far from a black top's grey level toward the bare tray's a black sliver against another
colour may be lit and still be a cube under it; one lit more is the shade in a crevice between
cubes, and is no cube. Black cubes almost hidden under another (22 in rendered drops, harder
piles, seeds 151, 152, 162 and 163, paint varying) showed slivers lit -0.09 to 0.13 of the way;
the crevice shadows the shared sample's photos show as black slivers (6 over its camera
changes), 0.28 to 0.34."""
WHITE_CREVICE = 1.0
"""Lightness (over the bare tray's there) under which a white blob smaller than a cube, against
another colour, is the shade in a crevice between cubes, and no cube: white paint sends back
nearly twice the light a mid-grey tray does, so a white face darker than the tray gets under
half its light. White cubes mostly hidden under another (rendered drops: sample-like seed 410,
physics 420 and 421, harder piles 422, a desk lamp, one harsh light and a lamp beside the tray
among them) showed 13 slivers lit 1.26-1.53 times the tray and 9 larger parts 1.40-1.73; the
crevices the shared sample shows as white when a lamp to one side dims its far half, about
0.5."""
CREVICE_SPAN = 20.0
"""Fewest grey levels between a black or white top and the bare tray for the crevice tests to
tell: where the tray is hardly lighter than black, or darker than white, a sliver's lightness
tells nothing."""
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
TRAY_CONFIDENCE = 0.85
"""How sure a sliver or specks of a colour the tray itself shows are no cube: 31 of 34 in
rendered drops of red and green felt trays (seeds 77, 78 and physics 87); the rest were cubes
under others. Under :data:`REVIEW_BELOW`, so they ask, unless the exit beam's total agrees."""
TRAY_SLIVER = "a sliver of a colour the tray shows too: the tray, or a cube under another?"
TRAY_TRACES = "specks of a colour the tray shows too: the tray, or a cube hidden under another?"
UNKNOWN_OBJECT = "unknown object"
"""Why a photo asks about a patch that is neither tray nor a calibrated colour (then ``at (x,
y)``)."""
@dataclass(frozen=True)
class Blob:
    """One connected group of same-coloured pixels and how it was read (for review and tests)."""

    colour: str
    n: int
    confidence: float
    area_ratio: float
    reason: str
    box: tuple[int, int, int, int]
    """(x, y, w, h): in working pixels while a frame is read, in photo pixels in a
    :class:`CountResult`."""
    hidden: float = 0.0
    """Chance that one more cube lies unseen under this pile (its top read surely)."""
    down_share: float = 0.5
    """Of the chance that the reading is off by a cube, the share that it holds one fewer."""
    beam_settles: bool = True
    """Whether an exit beam's total that agrees can settle this reading's doubt (not a sliver's,
    which always asks: see :data:`SLIVER_CONFIDENCE`)."""


def _sliver(colour: str, n: int, ratio: float, why: str, box: tuple[int, int, int, int]) -> Blob:
    """A sliver or specks against another colour read as ``n`` cubes (see
    :data:`SLIVER_CONFIDENCE`)."""
    return Blob(colour, n, SLIVER_CONFIDENCE, ratio, why, box, beam_settles=False)


def _photo_box(box: tuple[int, int, int, int], to_photo: ToPhoto) -> tuple[int, int, int, int]:
    """A working-image box (x, y, w, h) in photo pixels."""
    x, y, w, h = box
    (x0, y0), (x1, y1) = to_photo(x, y), to_photo(x + w, y + h)
    return round(x0), round(y0), round(x1 - x0), round(y1 - y0)


def _down_share(ratio: float, n: int) -> float:
    """How a pile's possible miscount splits between one cube fewer and one more: as its area's
    likelihood of those two counts does (a pile of 5.6 cube areas read as 6 is far likelier to
    hold 5 than 7)."""
    if n < 2:
        return 0.5
    fewer, more = posterior_of(ratio, n - 1), posterior_of(ratio, n + 1)
    return fewer / (fewer + more) if fewer + more > 0 else 0.5


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


def expected_area(profile: Profile, colour: int, x: float, y: float) -> float:
    """One cube's expected area (working pixels) of a colour at a working-image point.

    A function of the profile, not a counter's method, so that what holds it (the trace
    colours) does not tie the counter into a reference cycle: each counter, its tables and
    images, is freed as soon as it is dropped, not at the next garbage collection (calibration
    builds four).
    """
    model = profile.colours[colour]
    ox, oy = profile.frame_origin
    grow = profile.area_map.scale(x + ox, y + oy, model.perspective, profile.frame_size)
    return model.area * min(2.0, max(0.5, grow))


@dataclass(frozen=True)
class Labelled:
    """A frame's pixel labels with what blob reading needs besides them."""

    labels: np.ndarray
    alignment: Alignment
    gain: float
    box: tuple[int, int, int, int] = (0, 0, 0, 0)
    """(x0, y0, x1, y1): every label outside is tray."""
    work: np.ndarray | None = None
    """The frame at working scale (its lightness shows the seams between touching cubes)."""

    def crop(self) -> tuple[np.ndarray, tuple[int, int]]:
        """The labels inside :attr:`box` (a view) and the box's origin."""
        x0, y0, x1, y1 = self.box
        return self.labels[y0:y1, x0:x1], (x0, y0)


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
        self.names = [c.name for c in profile.colours]
        self.chroma = [pixels.chroma(c.mean) for c in profile.colours]
        self.chromatic = [c >= pixels.CHROMATIC for c in self.chroma]
        self.unreliable = [c.name for c in profile.colours if not c.reliable]
        # Colours the tray itself shows (red on red felt), whose slivers and specks are most often
        # the tray (see TRAY_CONFIDENCE); black and white lose area to shade and glare instead.
        self.blends = [chromatic and c.tray_separation < CLEAR_OF_TRAY
                       for chromatic, c in zip(self.chromatic, profile.colours, strict=True)]
        self.trace_colours = [
            Colour(i + 1, math.sqrt(c.area), c.mean[0], self.chroma[i],
                   partial(expected_area, profile, i),
                   FAINT_FRACTION if c.tray_separation >= CLEAR_OF_TRAY else SLIVER_FRACTION)
            for i, c in enumerate(profile.colours)
        ]
        self.lifts = [pixels.Lift(i + 1, c.lift) for i, c in enumerate(profile.colours) if c.lift]
        self.lifts += [pixels.Lift(i + 1, c.shade, darker=True, most=c.area / 4)  # half scale
                       for i, c in enumerate(profile.colours) if c.shade]
        self.outlined = [i + 1 for i, c in enumerate(profile.colours) if c.lift or c.outlined]
        # Fewest pixels of a colour worth reading: a sliver's, or for a colour whose specks are
        # searched for a hidden cube's traces, one speck's (they may be all a drop shows of it).
        self.least_present = [
            SPECK_PIXELS if self._traced(i) else self._min_pixels(i, SLIVER_FRACTION)
            for i in range(len(profile.colours))
        ]
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

    def expected_area(self, colour: int, x: float, y: float) -> float:
        """One cube's expected area (working pixels) of a colour at a working-image point."""
        return expected_area(self.profile, colour, x, y)

    def top_area(self, colour: int, x: float, y: float) -> float:
        """The expected area of one flat cube's top face alone at a working-image point: what a
        seam-cut piece is measured against (side faces off axis are cut away with the seams)."""
        return self.profile.colours[colour].area * self._top_scale(x, y)

    def _top_scale(self, x: float, y: float) -> float:
        """A flat top's area at a working point against its area in calibration."""
        (ox, oy), frame = self.profile.frame_origin, self.profile.frame_size
        return min(2.0, max(0.5, self.profile.area_map.top(x + ox, y + oy, frame)))

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
        shade = lit < self._bare_tray(al, xs, ys) * gain
        labels[ys[shade], xs[shade]] = pixels.TRAY

    def _bare_tray(self, al: Alignment, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The empty tray's grey level where working points (``x``, ``y``) of a frame aligned by
        ``al`` lie on it (its nearest pixel, the edge's beyond it)."""
        h, w = self.tray_grey.shape
        sx, sy = al.on_empty_tray(x, y)
        return self.tray_grey[np.clip(sy, 0, h - 1), np.clip(sx, 0, w - 1)].astype(np.float32)

    def _plain_top_area(self, x: float, y: float) -> float:
        """A flat cube's top area at a working point, from the colours told from the tray
        plainly (a colour that blends into it was measured from a part of its cubes)."""
        return self.plain_area * self._top_scale(x, y)

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
            if present[index + 1] < self.least_present[index]:
                continue
            extra = joins.get(index + 1)
            found = self._colour_blobs(seen, labels, index, extra, absorbed, base, grey, to_photo)
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

    def _smallest_blob(self, index: int) -> float:
        """Fewest pixels of a blob worth reading: a black or white sliver against another colour
        may be a cube under it, and asks (a coloured cube's specks are its traces instead)."""
        return self._min_pixels(index, NOISE_FRACTION if self.chromatic[index] else SLIVER_FRACTION)

    def _traced(self, index: int) -> bool:
        """Whether a colour's specks are searched for traces of a cube hidden under others."""
        return bool(self.chromatic[index] and not self.profile.colours[index].lift)

    def _min_pixels(self, index: int, fraction: float = NOISE_FRACTION) -> float:
        """Fewest pixels of a colour worth looking at for ``fraction`` of a cube (half that
        many of the colour's mean cube: a cube may be smaller where it lies)."""
        return fraction * self.profile.colours[index].area * 0.5

    def _colour_blobs(
        self,
        seen: Labelled,
        labels: np.ndarray,
        index: int,
        extra: np.ndarray | None,
        absorbed: np.ndarray,
        base: tuple[int, int],
        grey: np.ndarray | None,
        to_photo: ToPhoto,
    ) -> list[tuple[Blob, list[Detection]]]:
        """Read every blob of one colour in the frame ``seen``; pixels in ``extra`` may join the
        blobs they touch; ``to_photo`` places the cubes in the photo.

        The ``extra`` pixels that end up in a counted blob are marked in ``absorbed``; ``labels``
        and ``grey`` are crops whose origin in the working image is ``base``.
        """
        h_img, w_img = labels.shape
        own = (labels == index + 1).view(np.uint8)
        pad = 2 + round(math.sqrt(self.profile.colours[index].area))
        bx, by, bw, bh = cv2.boundingRect(own)
        x0, y0 = max(0, bx - pad), max(0, by - pad)
        x1, y1 = min(w_img, bx + bw + pad), min(h_img, by + bh + pad)
        mine = cv2.morphologyEx(own[y0:y1, x0:x1], cv2.MORPH_OPEN, _KERNEL)
        mask = mine | extra[y0:y1, x0:x1] if extra is not None else mine
        n_comp, comp, stats, cents = pixels.components(mask)
        own_px = np.bincount(comp[mine > 0], minlength=n_comp)
        stats[:, 0] += x0 + base[0]
        stats[:, 1] += y0 + base[1]
        cents += (x0 + base[0], y0 + base[1])
        out = []
        counted = np.zeros(n_comp, bool)
        origin = (x0 + base[0], y0 + base[1])
        for j in range(1, n_comp):
            if own_px[j] < self._smallest_blob(index):
                continue
            g = grey[y0:y1, x0:x1] if grey is not None else None
            blob, dets = self._read(
                index,
                self.names[index],
                comp,
                j,
                stats[j],
                cents[j],
                origin,
                seen,
                g,
                labels[y0:y1, x0:x1],
                to_photo,
            )
            if blob is not None:
                out.append((blob, dets))
                counted[j] = True
                if extra is not None:
                    # The unknown pixels this counted blob took in are explained now.
                    bx, by = stats[j, 0] - origin[0], stats[j, 1] - origin[1]
                    win = np.s_[by : by + stats[j, 3], bx : bx + stats[j, 2]]
                    region = absorbed[y0:y1, x0:x1][win]
                    region[(comp[win] == j) & (mine[win] == 0)] = 1
        # Black and white specks are as often shade and glare; those of a colour that blends into
        # the tray as often the tray between cubes (pale tray, warm light: 13 of 13 white specks
        # beside yellow cubes in 20 rendered drops).
        if self._traced(index):
            slivers = [b.box for b, _ in out if b.reason == SLIVER]
            traces = hidden_traces(
                self.trace_colours[index], own[y0:y1, x0:x1], comp, counted,
                labels[y0:y1, x0:x1], origin, slivers, seen.work,
            )
            out += [self._trace_blob(index, t, origin, to_photo) for t in traces]
        return self._split_cubes(index, out)

    def _trace_blob(
        self, index: int, trace: Trace, origin: tuple[int, int], to_photo: ToPhoto
    ) -> tuple[Blob, list[Detection]]:
        """A cube almost hidden under others, from its traces: counted when they hold a sliver's
        area, else not (an exit beam's total that is short may still add it); both ask."""
        x, y, w, h = cv2.boundingRect(trace.hull)
        name = self.names[index]
        box = (x + origin[0], y + origin[1], w, h)
        if trace.ratio < SLIVER_FRACTION:
            return _sliver(name, 0, trace.ratio, FAINT_TRACES, box), []
        if self.blends[index]:
            return Blob(name, 0, TRAY_CONFIDENCE, trace.ratio, TRAY_TRACES, box), []
        blob = _sliver(name, 1, trace.ratio, TRACES, box)
        return blob, [detection(name, trace.hull, origin, SLIVER_CONFIDENCE, to_photo)]

    def _split_cubes(
        self, index: int, found: list[tuple[Blob, list[Detection]]]
    ) -> list[tuple[Blob, list[Detection]]]:
        """Doubt a mostly covered cube beside another blob of its colour: a cube lying across
        the middle of another leaves two parts of it in sight, which must not count as two."""
        side = math.sqrt(self.profile.colours[index].area)
        centres = [(b.box[0] + b.box[2] / 2, b.box[1] + b.box[3] / 2) for b, _ in found]
        out = []
        for i, (blob, dets) in enumerate(found):
            if blob.reason == MOSTLY_COVERED and any(
                math.dist(centres[i], c) < REACH * side
                for k, c in enumerate(centres) if k != i
            ):
                why = f"{MOSTLY_COVERED}, or part of the {blob.colour} cube beside it?"
                blob = replace(blob, confidence=0.5, reason=why)
                dets = [replace(d, score=0.5) for d in dets]
            out.append((blob, dets))
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
            typical = min(self.expected_area(i, x, y) for i in range(len(self.names)))
            need = 0.5 if in_between[j] > 0 else 0.25
            if stats[j, cv2.CC_STAT_AREA] >= need * typical:
                px, py = to_photo(x, y)
                out.append(f"{UNKNOWN_OBJECT} at ({px:.0f}, {py:.0f})")
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
        seen: Labelled,
        grey: np.ndarray | None,
        around: np.ndarray | None,
        to_photo: ToPhoto,
    ) -> tuple[Blob | None, list[Detection]]:
        """Read one blob (``comp == j``) of the frame ``seen``; ``grey`` and ``around`` (the
        labels) share comp's box; ``to_photo`` places its cubes in the photo."""
        x, y, w, h, area = (int(v) for v in stat)
        if area < self._smallest_blob(index):
            return None, []
        expected = self.expected_area(index, float(cent[0]), float(cent[1]))
        ratio = area / expected
        cx, cy = x - offset[0], y - offset[1]
        sub = (comp[cy : cy + h, cx : cx + w] == j).astype(np.uint8)
        if ratio < NOISE_FRACTION and (
                ratio < SLIVER_FRACTION or not touches_other(index + 1, sub, cx, cy, around)):
            return None, []  # a speck, alone on the tray
        crevice = ((name == "black" and ratio < NOISE_FRACTION)
                   or (name == "white" and ratio < PARTIAL_FRACTION
                       and touches_other(index + 1, sub, cx, cy, around)))
        if crevice and grey is not None and self._crevice_shade(
                index, float(grey[cy : cy + h, cx : cx + w][sub > 0].mean()), cent, seen):
            return None, []  # the shade in a crevice between cubes, no cube under them
        if ratio < NOISE_FRACTION and name == "black":
            # A cube under them, or shade too dark to tell: not counted, and asks (an exit
            # beam's total that is short may still add it).
            return _sliver(name, 0, ratio, SHADE_SLIVER, (x, y, w, h)), []
        if ratio < NOISE_FRACTION and area < self._min_pixels(index):
            # A white sliver this small (black ones are above; a coloured blob this small is not
            # read) is a glint on a cube's rim as often as a cube under it.
            return _sliver(name, 0, ratio, GLINT_SLIVER, (x, y, w, h)), []
        if ratio < NOISE_FRACTION and self.blends[index]:
            return Blob(name, 0, TRAY_CONFIDENCE, ratio, TRAY_SLIVER, (x, y, w, h)), []
        contours, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        contour = max(contours, key=cv2.contourArea)
        if ratio < NOISE_FRACTION:
            # Against a cube of another colour, the corner of a cube lying almost wholly under
            # it (41 of 41 in rendered drops): counted, and asked about.
            blob = _sliver(name, 1, ratio, SLIVER, (x, y, w, h))
            return blob, [detection(name, contour, (x, y), SLIVER_CONFIDENCE, to_photo)]
        (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
        side = math.sqrt(expected)
        hull = cv2.contourArea(cv2.convexHull(contour))
        solidity = float(area / hull) if hull > 0 else 1.0
        fill = area / max(1.0, rw * rh)
        n, conf, why = read_blob(
            ratio, max(rw, rh) / side, min(rw, rh) / side, min(1.0, solidity), min(1.0, fill)
        )
        if n == 0:  # a line: no cube, whatever seams or cores would say; it asks
            return Blob(name, 0, conf, ratio, why, (x, y, w, h)), []
        if (n == 1 and (r_small(why) or ratio < PARTIAL_FRACTION) and self.chromatic[index]
                and touches_other(index + 1, sub, cx, cy, around)):
            # A small blob against a cube of another colour is a cube partly covered by it (or
            # seen past it); alone on the tray it might be something else. (Not for black or
            # white: a cube's shadow or glare lies against it too.)
            # Right in 49 of 49 partly covered and 22 of 22 mostly covered such blobs in 1,200
            # rendered drops (2 seeds, both pile mixes); the less a cube shows, the less it is sure.
            conf, why = (0.98, COVERED) if r_small(why) else (0.95, MOSTLY_COVERED)
        model = self.profile.colours[index]
        top = model.core_frac * self.top_area(index, float(cent[0]), float(cent[1]))
        g_sub = grey[cy : cy + h, cx : cx + w] if grey is not None else None
        reading = checked_reading((n, conf, why), ratio, sub, g_sub, side, top,
                                  model.face_grey * seen.gain, model)
        blob = Blob(name, reading.n, reading.confidence, ratio, reading.why, (x, y, w, h),
                    reading.hidden, _down_share(ratio, reading.n))
        dets = cube_detections(
            name, sub, contour, (x, y), reading.n, reading.confidence, to_photo
        )
        return blob, dets

    def _crevice_shade(self, index: int, lit: float, at: np.ndarray, seen: Labelled) -> bool:
        """Whether a black sliver or a white blob under a cube's area against another colour,
        of mean grey level ``lit`` at working point ``at``, is the shade in a crevice between
        cubes rather than a cube under them: a black one lit more than :data:`CREVICE_SHADE` of
        the way from a black top to the bare tray there, a white one lit darker than the bare
        tray (:data:`WHITE_CREVICE`)."""
        tray = float(self._bare_tray(seen.alignment, np.array([at[0]]), np.array([at[1]]))[0])
        face = self.profile.colours[index].face_grey
        span = abs(tray - face) * seen.gain
        if span < CREVICE_SPAN:
            return False
        if face < tray:  # black
            return lit - face * seen.gain > CREVICE_SHADE * span
        return lit < WHITE_CREVICE * tray * seen.gain

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
