"""Read one colour's blobs in a labelled frame as cubes: a cube or a pile from its area against
the one-cube area expected there and its shape, checked by its seams, cores and faces; a sliver
or specks against another colour as a cube almost hidden under it, or as the shade in a crevice,
a glint or the tray."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import partial

import cv2
import numpy as np

from vision import pixels
from vision.align import Alignment
from vision.crosscheck import checked_reading
from vision.outlines import Detection, ToPhoto, cube_detections, detection
from vision.profile import Profile
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
COVERED = "one cube, partly covered by a neighbour"
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
TRAY_CONFIDENCE = 0.85
"""How sure a sliver or specks of a colour the tray itself shows are no cube: 31 of 34 in
rendered drops of red and green felt trays (seeds 77, 78 and physics 87); the rest were cubes
under others. Under :data:`~vision.odds.REVIEW_BELOW`, so they ask, unless the exit beam's
total agrees."""
TRAY_SLIVER = "a sliver of a colour the tray shows too: the tray, or a cube under another?"
TRAY_TRACES = "specks of a colour the tray shows too: the tray, or a cube hidden under another?"


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
    :class:`~vision.count.CountResult`."""
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


def _down_share(ratio: float, n: int) -> float:
    """How a pile's possible miscount splits between one cube fewer and one more: as its area's
    likelihood of those two counts does (a pile of 5.6 cube areas read as 6 is far likelier to
    hold 5 than 7)."""
    if n < 2:
        return 0.5
    fewer, more = posterior_of(ratio, n - 1), posterior_of(ratio, n + 1)
    return fewer / (fewer + more) if fewer + more > 0 else 0.5


def expected_area(profile: Profile, colour: int, x: float, y: float) -> float:
    """One cube's expected area (working pixels) of a colour at a working-image point.

    A function of the profile, not a reader's method, so that what holds it (the trace
    colours) does not tie the reader into a reference cycle: each counter, its tables and
    images, is freed as soon as it is dropped, not at the next garbage collection (calibration
    builds four).
    """
    model = profile.colours[colour]
    ox, oy = profile.frame_origin
    grow = profile.area_map.scale(x + ox, y + oy, model.perspective, profile.frame_size)
    return model.area * min(2.0, max(0.5, grow))


def top_scale(profile: Profile, x: float, y: float) -> float:
    """A flat top's area at a working point against its area in calibration."""
    (ox, oy), frame = profile.frame_origin, profile.frame_size
    return min(2.0, max(0.5, profile.area_map.top(x + ox, y + oy, frame)))


def bare_tray(tray_grey: np.ndarray, al: Alignment, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The empty tray's grey level (``tray_grey``) where working points (``x``, ``y``) of a frame
    aligned by ``al`` lie on it (its nearest pixel, the edge's beyond it)."""
    h, w = tray_grey.shape
    sx, sy = al.on_empty_tray(x, y)
    return tray_grey[np.clip(sy, 0, h - 1), np.clip(sx, 0, w - 1)].astype(np.float32)


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


class BlobReader:
    """Reads the blobs of each colour in labelled frames of one calibrated setup."""

    def __init__(self, profile: Profile, tray_grey: np.ndarray) -> None:
        """``tray_grey``: the empty tray's grey levels, that shade in crevices is weighed
        against."""
        self.profile = profile
        self.tray_grey = tray_grey
        self.names = [c.name for c in profile.colours]
        chroma = [pixels.chroma(c.mean) for c in profile.colours]
        self.chromatic = [c >= pixels.CHROMATIC for c in chroma]
        # Colours the tray itself shows (red on red felt), whose slivers and specks are most often
        # the tray (see TRAY_CONFIDENCE); black and white lose area to shade and glare instead.
        self.blends = [chromatic and c.tray_separation < CLEAR_OF_TRAY
                       for chromatic, c in zip(self.chromatic, profile.colours, strict=True)]
        self.trace_colours = [
            Colour(i + 1, math.sqrt(c.area), c.mean[0], chroma[i],
                   partial(expected_area, profile, i),
                   FAINT_FRACTION if c.tray_separation >= CLEAR_OF_TRAY else SLIVER_FRACTION)
            for i, c in enumerate(profile.colours)
        ]
        # Fewest pixels of a colour worth reading: a sliver's, or for a colour whose specks are
        # searched for a hidden cube's traces, one speck's (they may be all a drop shows of it).
        self.least_present = [
            SPECK_PIXELS if self._traced(i) else self._min_pixels(i, SLIVER_FRACTION)
            for i in range(len(profile.colours))
        ]

    def expected_area(self, colour: int, x: float, y: float) -> float:
        """One cube's expected area (working pixels) of a colour at a working-image point."""
        return expected_area(self.profile, colour, x, y)

    def top_area(self, colour: int, x: float, y: float) -> float:
        """The expected area of one flat cube's top face alone at a working-image point: what a
        seam-cut piece is measured against (side faces off axis are cut away with the seams)."""
        return self.profile.colours[colour].area * top_scale(self.profile, x, y)

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

    def read_colour(
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
        x, y = np.array([at[0]]), np.array([at[1]])
        tray = float(bare_tray(self.tray_grey, seen.alignment, x, y)[0])
        face = self.profile.colours[index].face_grey
        span = abs(tray - face) * seen.gain
        if span < CREVICE_SPAN:
            return False
        if face < tray:  # black
            return lit - face * seen.gain > CREVICE_SHADE * span
        return lit < WHITE_CREVICE * tray * seen.gain
