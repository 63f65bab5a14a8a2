"""Calibrate one tray setup from an empty-tray photo and photos of known cubes of each colour.

What is learned, and why:
- the empty tray (background), so a shadow or a highlight is recognised as the tray under other
  light, and the tray's floor (where cubes are counted);
- how far the tray may drift in lightness and colour and still be tray (from the tray around the
  calibration cubes, shadows included);
- each colour as a Gaussian in Lab, measured on the real cubes under the real light;
- the area one cube covers at each spot of the image (perspective and tilt make cubes toward the
  edges look bigger), fitted from the calibration cubes whose number is known
  (:mod:`vision.cube_areas`).
Finally every calibration photo is counted with the new profile; a colour whose photos do not
count right, or that blends into the tray or another colour, is marked unreliable
(:mod:`vision.grading`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision import pixels
from vision.align import align, warp_image
from vision.areamap import AreaMap
from vision.blobs import Labelled
from vision.count import UNKNOWN_OBJECT, Counter, LabelMemo
from vision.cube_areas import fit_areas, mask_blobs
from vision.cues import SEAM_DEPTH, seam_hat, seam_pieces
from vision.grading import grade
from vision.outside import BAND_SIDES
from vision.photos import (
    NO_COLOUR,
    REDUCED,
    Sample,
    calibration_files,
    colourless,
    read_image,
    reduced,
)
from vision.profile import (
    ACHROMATIC,
    COLOURS,
    ColourModel,
    Profile,
    VisionError,
    encode_background,
)

TARGET_SIDE = 20.0
"""Working scale is chosen so one cube's side is about this many pixels."""
LARGEST_SIDE = 25.0
"""Largest cube side (pixels) read as taken: photos whose cubes are larger but under 30 pixels
(a 51-degree camera's 28, 8 mm cubes filling the frame) are read at :data:`THREE_QUARTERS`, as
whole-number reductions read every larger cube at 15-25 pixels. On 140 such drops, read as taken
they peaked at 105-112 MB and calibrated in 1.3-1.7 s, at 3/4 scale 87-94 MB and 0.9-1.1 s; of two
hard drops counted wrong without asking (a cube under its own colour) one asks at 3/4 scale (the
other, r_wide51 #010, asked only for another cluster's doubt, gone once the part read shared the
empty tray's grid); right counts ask in 21-28% on photos alone against 17-23% (a cluster's seams
are less sure at 21 pixels than at 28), and in 6.7-8.2% given the exit beam's total against
9.0% (vision/README.md has the whole account)."""
THREE_QUARTERS = 0.75
SEAM_DEPTH_MAX = 0.3
"""Deepest seam threshold used (a seam between two bevels is darker than this)."""
FIRST_LOOK = 400.0
"""Long side (pixels) of the copies on which a first look measures the cubes' size."""


def calibrate(
    source: str | Path | None = None,
    *,
    empty: np.ndarray | None = None,
    samples: Sequence[Sample] | None = None,
) -> Profile:
    """Build a profile from a calibration folder, or from an empty frame and samples in memory."""
    if source is not None:
        empty_path, files = calibration_files(source)

        def photos(reduce: int = 1) -> Iterator[Sample]:
            # Decoded one at a time, twice (a first look, then the working copies): holding
            # all the full photos at once was most of calibration's memory.
            return (Sample(c, n, read_image(path, reduce), str(path)) for c, n, path in files)

        return _Calibration(read_image(empty_path), photos).run()
    if empty is None or not samples:
        raise VisionError("calibrate needs a folder, or an empty-tray image and samples")
    given = list(samples)
    return _Calibration(
        empty, lambda reduce=1: (replace(s, image=reduced(s.image, reduce)) for s in given)
    ).run()


FLOOR_GROWTH = 1.2
"""How far (in cube sides) past the tray floor's edge cubes are looked for: cubes come to rest on
the rim and on the chute in the tray's mouth, up to about 1.4 sides past the floor's edge in the
sample's photos (3 of its 12 drops). With 0.8, a rendered cube 6 mm onto the chute showed half
its area and a black one 8 mm on was not seen at all; the sample and rendered setups count the
same from 1.0 to 1.4 (the sample at 640 x 480: 12 of 12 against 11 with 0.8)."""


def _floor_polygon(bg: np.ndarray, side: float) -> list[list[int]]:
    """The tray floor, grown by :data:`FLOOR_GROWTH` (cubes at its rim count), as a polygon.

    The floor is the smooth region around the image centre (flood fill on a blurred copy of the
    empty tray), bounded by the walls' edges; a fill that leaks through a gap where they are
    faint is taken with fainter ones (:data:`LEAK`). A textured floor that stops the fill early
    falls back to the whole image.
    """
    h, w = bg.shape[:2]
    gray = cv2.GaussianBlur(cv2.cvtColor(bg, cv2.COLOR_BGR2GRAY), (0, 0), 1.5)
    mag = np.hypot(cv2.Sobel(gray, cv2.CV_32F, 1, 0), cv2.Sobel(gray, cv2.CV_32F, 0, 1))
    fills = [_fill(mag, max(k * float(np.median(mag)), 6.0)) for k in WALL_EDGES]
    areas = [np.count_nonzero(f) for f in fills]
    # How much each fill shrinks with the next fainter walls, where that is still a floor's.
    shrinks = [(a / b, j + 1) for j, (a, b) in enumerate(itertools.pairwise(areas))
               if b >= FLOOR_SHARE[0] * h * w]
    floor = fills[max(shrinks)[1]] if shrinks and max(shrinks)[0] > LEAK else fills[0]
    frac = floor.mean() / 255.0
    margin = max(2, round(0.01 * max(w, h)))
    if not FLOOR_SHARE[0] <= frac <= FLOOR_SHARE[1]:
        return [
            [margin, margin],
            [w - 1 - margin, margin],
            [w - 1 - margin, h - 1 - margin],
            [margin, h - 1 - margin],
        ]
    floor = cv2.morphologyEx(floor, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(floor, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    grown = np.zeros((h, w), np.uint8)
    cv2.fillPoly(grown, [hull], 255)
    k = max(3, round(2 * FLOOR_GROWTH * side)) | 1
    grown = cv2.dilate(grown, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    contours, _ = cv2.findContours(grown, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    poly = cv2.approxPolyDP(max(contours, key=cv2.contourArea), 1.5, True)
    return [[int(p[0][0]), int(p[0][1])] for p in poly]


FLOOR_SHARE = (0.12, 0.97)
"""The least and most of the image a fill may cover to be the floor."""
WALL_EDGES = (8.0, 6.0, 4.0, 3.0)
"""Gradients (times the empty tray's median) taken as the walls that bound the floor's fill,
the strongest first."""
LEAK = 1.4
"""How many times larger a fill may be than the next fainter walls' before it is taken to have
leaked through a gap in the walls onto the table: soft window light and dim warm light leave
the walls' edges faint in places (fresh rigs: 0.81 and 0.97 of the frame filled, then 0.48 and
0.58 with the next fainter walls, shrinking 1.68 and 1.61 times; 28 other rigs and the sample
1.16 at most, a textured floor's grain taking some of it; 42 rendered setups 1.01)."""


def _fill(mag: np.ndarray, wall: float) -> np.ndarray:
    """The smooth region around the image centre (255), bounded by gradients over ``wall``."""
    h, w = mag.shape[:2]
    walls = cv2.dilate((mag > wall).astype(np.uint8), np.ones((3, 3), np.uint8))
    _, comp = cv2.connectedComponents(1 - walls, connectivity=4)
    return ((comp == comp[h // 2, w // 2]) & (walls == 0)).astype(np.uint8) * 255


READ_MARGIN = BAND_SIDES + 1.0
"""How far past the floor (in cube sides) the part of the photo read reaches: the rim watched
for cubes that stopped there (:mod:`vision.outside`), and a side more for the tray to move."""


CROP_SHARE = 0.75
"""Most of the photo's area a part read may cover; a larger part is read whole. Cutting off a
few percent saves as little time, and the alignment's thumbnail of the part, its grid shifted
by a fraction of a pixel, moves the tray that much (second renderer, 11 setups cut to 81-98%:
of 1,582 drops one read a cube off, asking, and four others asked or not the other way)."""


def _read_box(
    floor: Sequence[Sequence[int]], side: float, size: tuple[int, int], grid: int = 1
) -> tuple[int, int, int, int]:
    """The part (x0, y0, x1, y1) of a working image of ``size`` that holds the ``floor`` and
    :data:`READ_MARGIN` around it, or all of it (see :data:`CROP_SHARE`), its corners on
    multiples of ``grid`` (but for the image's own edges)."""
    x, y, w, h = cv2.boundingRect(np.array(floor, np.int32).reshape(-1, 1, 2))
    g = math.ceil(READ_MARGIN * side)
    x0, y0 = max(0, x - g) // grid * grid, max(0, y - g) // grid * grid
    x1, y1 = -(-(x + w + g) // grid) * grid, -(-(y + h + g) // grid) * grid
    box = x0, y0, min(size[0], x1), min(size[1], y1)
    if (box[2] - box[0]) * (box[3] - box[1]) > CROP_SHARE * size[0] * size[1]:
        return 0, 0, *size
    return box


UNEXPLAINED = 0.5
"""Least share of a coloured photo's first-look cubes that the learned tray range must leave
unexplained for the colour to be learned from that share alone (else from them all: cubes the
tray range would take in). Under a low lamp the cubes' shadows, darker than the first look's
cut, were up to a third of them (0.68-0.83 left; the sample's, two green felts' and a desk
lamp's: all), and one such red came out so wide (its a and b spreads 28 and 20) that black
cubes' lit sides read red (a fresh low-lamp rig, seed 85: red counted on average 2.1 off)."""

THRESHOLDS = {"strict": (0.5, 1.3, 12.0), "loose": (0.7, 1.2, 12.0), "faint": (0.9, 1.06, 6.0)}
"""(darker than, lighter than, chroma beyond) the empty tray that marks a cube pixel at first look:
strict keeps shadows out; loose and faint are for cubes that barely stand out from the tray."""


def _rough_mask(
    frame: np.ndarray,
    bg: np.ndarray,
    roi: np.ndarray,
    level: str = "strict",
    test: pixels.TrayTest | None = None,
    long_side: int | None = None,
) -> np.ndarray:
    """Pixels unlike the empty tray: the cubes themselves, for a first look.

    Without a learned tray ``test``, the fixed :data:`THRESHOLDS` of ``level``; with one, what
    the tray under its learned range of light cannot explain. ``long_side``: the whole photo's
    at working scale, where only a part of it is read (see :func:`~vision.align.thumbnail`).
    """
    al = align(bg, frame, long_side)
    bga = warp_image(bg, al)
    lab_f = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)
    lab_b = cv2.cvtColor(bga, cv2.COLOR_BGR2LAB)
    inside = warp_image(roi, al, cv2.BORDER_CONSTANT) > 0
    gain = pixels.exposure_gain(lab_f, lab_b, inside.astype(np.uint8))
    lo, hi, ch = THRESHOLDS[level]
    fore = np.empty(inside.shape, bool)
    for rows, dark, bright, chroma in pixels.tray_features(lab_f, lab_b, gain):
        if test is not None:
            fore[rows] = pixels.tray_distance(dark, bright, chroma, test) > pixels.TRAY_CORE
        else:
            fore[rows] = (dark < lo) | (bright > hi) | (chroma > ch)
    mask = (fore & inside).astype(np.uint8)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def _cube_mask(
    frame: np.ndarray, bg: np.ndarray, roi: np.ndarray, n: int, long_side: int | None = None
) -> np.ndarray:
    """The cubes of a calibration photo: strict thresholds, looser if they find too few cubes
    (``long_side`` as :func:`_rough_mask` takes it)."""
    mask = _cube_blobs(_rough_mask(frame, bg, roi, long_side=long_side), n)
    count = cv2.connectedComponents(mask)[0] - 1
    if count < max(1, (n + 1) // 2):
        mask = _cube_blobs(_rough_mask(frame, bg, roi, "loose", long_side=long_side), n)
    return mask


def _cube_blobs(mask: np.ndarray, n: int) -> np.ndarray:
    """Keep the blobs that look like cubes: big among the photo's n largest, and not thin lines.

    Drops the slivers a tray edge leaves when the tray moved a little since the empty photo.
    """
    count, comp, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count <= 1:
        return np.zeros_like(mask)
    areas = stats[1:, cv2.CC_STAT_AREA].astype(float)
    ref = float(np.median(np.sort(areas)[::-1][: max(1, n)]))
    keep = np.zeros(count, bool)
    for j in range(1, count):
        if not 0.25 * ref <= areas[j - 1] <= 4.0 * ref:
            continue
        pts = cv2.findNonZero((comp == j).astype(np.uint8))
        (_, _), (w, h), _ = cv2.minAreaRect(pts)
        solid = areas[j - 1] / max(1.0, cv2.contourArea(cv2.convexHull(pts)))
        if (
            min(w, h) >= 0.35 * math.sqrt(ref)
            and max(w, h) <= 4.0 * max(1.0, min(w, h))
            and solid >= 0.6
        ):
            keep[j] = True
    return keep[comp].astype(np.uint8)


HARD_LIGHT = 0.7
"""Shadow depth beside the cubes (lightness ratio, see :meth:`_Calibration._tray_test`) below
which the light is one hard lamp: a black top that faces it at the mirror angle glints as light
as the tray, wherever on the tray that is. Rendered, one hard lamp: 0.64; diffuse light 0.95; the
sample's ring light 0.83, and 0.74-0.85 after its photos were darkened and noised, blurred,
keystoned or shrunk to 640 x 480."""

BLACK_GLINT = 0.07
"""Neutral light (linear) a black top may mirror under one hard lamp (:attr:`ColourModel.glint`):
matte black paint (specular 0.06) shines up to L* 35 where it mirrors the lamp, against 13 where
it does not. Rendered drops not hard, exact (seeds 306, 307, 309, 310; 30-40 drops each): under a
desk lamp 100, 93.1, 100, 100% -> 100% each; glossier paint (harsh-light, specular 0.35) 58.6,
50.0, 92.5, 74.1% -> 75.9, 76.9, 92.5, 74.1% (the rest glint as light as the tray). Black stays
graded unreliable there, so its counts still ask."""

OUTLINE_SLACK = 1
"""How many cubes a colour's own calibration photo may count wrong for its outlines alone to be
kept, when no other way counts it right: a top whose outline does not close is lost, while the
area measured on the few pixels such a colour shows counts drops far worse (light tray, seed 213:
0.08 of a cube's area, drops of 9 and 11 white cubes read as 17 and 22). Black's darker tops come
first (a fresh dark-floor rig: outlines counting 8 for 7 read its drops 18% exact, the darker
level 63%)."""

LIFT_TRAY_PERCENTILE = 99.99
"""How light the bare tray gets (percentile of its smoothed lightness ratio), for
:meth:`_Calibration._try_lift`."""
LIFT_MIN_TOP = 12
"""Fewest half-scale pixels a lifted top must cover (a cube's top covers about 60)."""
LIFT_MIN_STEP = 0.015
"""Least lightening over the bare tray's that a colour's tops must show to be found by it."""
LIFT_SHARE = 0.35
"""Where the level lies from the lightest bare tray to the calibration tops: below halfway,
since tops in a pile are shaded by their neighbours (about 5% darker than a lone one). Against
halfway it cut the mean error of white on a light tray and black on a dark tray by 10-35% in
3 x 20 rendered drops each, with every calibration photo still counted right."""

def _robust_gaussian(lab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance of Lab pixels, trimming outliers (shadow rims, seams).

    A first, wide cut is set by the median and the median absolute deviation: the shadowed tray
    beside black cubes can be a sixth of their calibration pixels (seen in the sample's photos
    shrunk to 640 x 480), enough to widen a window set by the covariance so that it stays in,
    and the black model then took shadows for black cubes. Then three cuts at 3 sigma.
    """
    def within(pts: np.ndarray, mean: np.ndarray, cov: np.ndarray, sigmas: float) -> np.ndarray:
        d = pts - mean
        return pts[np.einsum("ij,jk,ik->i", d, np.linalg.inv(cov), d) < sigmas**2]

    med = np.median(lab, 0)
    spread = np.diag((1.4826 * np.median(np.abs(lab - med), 0)) ** 2) + np.eye(3) * 4.0
    wide = within(lab, med, spread, 4.0)
    pool = keep = wide if len(wide) >= 30 else lab
    for _ in range(3):
        nxt = within(pool, keep.mean(0), np.cov(keep.T) + np.eye(3) * 4.0, 3.0)
        if len(nxt) < 30:
            break
        keep = nxt
    return keep.mean(0), np.cov(keep.T) + np.eye(3) * 4.0


def _lost_in_tray(bg: np.ndarray, colour: str) -> tuple[np.ndarray, np.ndarray]:
    """A stand-in model for black or white cubes too like the tray to show any pixels of their
    own: the tray's grey made a little lighter (white) or dark (black). Such a colour is graded
    unreliable; its tops may still be found by their lightness (:meth:`_Calibration._try_lift`).
    """
    lab = cv2.cvtColor(bg, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float64)
    tray = np.median(lab, 0)
    grey = min(250.0, tray[0] * 1.06) if colour == "white" else 12.0
    return np.array([grey, 128.0, 128.0]), np.diag([40.0, 8.0, 8.0])


def _changed(profile: Profile, colour: str, **changes: Any) -> Profile:
    """The profile with some fields of one colour's model changed."""
    return replace(
        profile,
        colours=tuple(replace(m, **changes) if m.name == colour else m for m in profile.colours),
    )


def _lift_level(own: np.ndarray, n: int, floor: float, most: float) -> float | None:
    """A lift's level (:meth:`_Calibration._try_lift`) from the ``n`` largest parts of a
    colour's own photo lit above ``floor`` (darker tops' rings filled up to ``most`` pixels),
    or None if it does not show that many or they stand too little above it."""
    found = (own > floor).view(np.uint8)
    if most:
        found = pixels.shaded_tops(found, most)
    _, comp, stats, _ = cv2.connectedComponentsWithStats(found)
    sizes = stats[1:, cv2.CC_STAT_AREA]
    tops = [j + 1 for j in np.argsort(sizes)[::-1][:n] if sizes[j] >= LIFT_MIN_TOP]
    if len(tops) < n:
        return None
    level = float(np.median([own[comp == j].mean() for j in tops]))
    if level - floor < LIFT_MIN_STEP:
        return None
    return round(floor + LIFT_SHARE * (level - floor), 4)


class _Calibration:
    """One calibration run (kept as an object so each step is a small method)."""

    def __init__(self, empty: np.ndarray, photos: Callable[[int], Iterable[Sample]]) -> None:
        self.empty = empty
        self.photos = photos
        """The calibration photos, each time they are needed: at full size, or as many times
        smaller each way as asked, for a first look (files are decoded so)."""
        self.samples: list[Sample] = []
        """The same at working scale (from :meth:`run` on)."""
        self.verified: list[dict[str, int]] = []
        """Each photo's counts under the profile last verified."""
        self.paint_loses: list[bool] | None = None
        """Whether each photo loses cubes with their paint darker or lighter (see
        :func:`_paint_loses`), under the first profile: lifting black or white tops later
        changes how those are found (and a colour found so asks anyway), not how a coloured
        cube stands out from the tray."""
        self.shadow_depth = 1.0
        """How dark the shadows beside the cubes are (see :meth:`_tray_test`)."""
        self.memo: LabelMemo = {}
        """The working photos' labels under the profile last counted with (see
        :class:`~vision.count.Counter`)."""
        h, w = empty.shape[:2]
        self.image_size = (w, h)

    def run(self) -> Profile:
        empty = self.empty
        del self.empty  # held here alone, so the full photo goes once its working copy is made
        scale = self._choose_scale(empty)
        w, h = self.image_size
        full = (max(16, round(w * scale)), max(16, round(h * scale)))
        bg = pixels.smooth_background(pixels.to_working(empty, full))
        del empty
        side = self.side0 * scale / self.scale0
        floor = _floor_polygon(bg, side)
        # From here on only the part of the photos holding the floor and its rim is read. At 3/4
        # scale its corners fall on whole groups of 4 photo pixels (3 working ones): the part is
        # then reduced exactly as the whole photo was for the empty tray, and fast.
        x0, y0, x1, y1 = _read_box(floor, side, full, 3 if scale == THREE_QUARTERS else 1)
        box = (round(x0 / scale), round(y0 / scale), min(w, round(x1 / scale)),
               min(h, round(y1 / scale)))
        crop = None if box == (0, 0, w, h) else box
        size = (round((box[2] - box[0]) * scale), round((box[3] - box[1]) * scale))
        bg = bg[y0 : y0 + size[1], x0 : x0 + size[0]].copy()  # a view keeps it all
        self.samples = []
        for s in self.photos(1):
            part = pixels.working_part(s.image, box, self.image_size, size)
            self.samples.append(replace(s, image=part))
            del s  # the full photo goes before the next is decoded
        work = [s.image for s in self.samples]
        self.memo = {id(f): (f, None, None) for f in work}
        roi_poly = [[x - x0, y - y0] for x, y in floor]
        roi = pixels.roi_mask(roi_poly, size)
        # Shadows are learned around the coloured cubes, whose pixels stand out by chroma alone;
        # black and white cubes are then found as what that tray range cannot explain.
        chromatic = [i for i, s in enumerate(self.samples) if s.colour not in ACHROMATIC]
        long_side = max(full)
        first = {i: _cube_mask(work[i], bg, roi, self.samples[i].n, long_side) for i in chromatic}
        tray = self._tray_test(
            [work[i] for i in chromatic], [first[i] for i in chromatic], bg, roi, side, long_side
        )
        masks = [
            _cube_blobs(_rough_mask(f, bg, roi, test=tray, long_side=long_side), s.n)
            for f, s in zip(work, self.samples, strict=True)
        ]
        for i, (s, m) in enumerate(zip(self.samples, masks, strict=True)):
            # A colour that barely stands out (white on a light tray) is looked for harder; it
            # is then graded unreliable below, and only a photo showing nothing is an error.
            for level in ("loose", "faint"):
                if not m.any():
                    m = masks[i] = _cube_blobs(
                        _rough_mask(work[i], bg, roi, level, long_side=long_side), s.n)
            if not m.any():
                raise VisionError(
                    f"{s.name}: no {s.colour} cubes found: they blend into the tray "
                    "(use a tray of another shade, e.g. mid-grey)"
                )
            if i in first and first[i].any():
                # The first look's cubes but for what the learned tray range explains: a low
                # lamp's cube shadows fall under its darkness cut, and would pass for the colour.
                unexplained = first[i] & m
                if np.count_nonzero(unexplained) >= UNEXPLAINED * np.count_nonzero(first[i]):
                    masks[i] = unexplained
                else:
                    masks[i] = first[i]
        models = self._colour_models(work, masks, bg, side)
        del first, masks  # a frame's worth each, no longer needed
        profile = Profile(
            image_size=self.image_size,
            scale=scale,
            background_png=encode_background(bg),
            roi=tuple(tuple(p) for p in roi_poly),  # type: ignore[arg-type]
            ratio_range=(tray.ratio_lo, tray.ratio_hi),
            chroma_limit=tray.chroma,
            area_map=AreaMap(),
            colours=models,
            crop=crop,
        )
        del bg  # the counters decode their own from the profile
        if self.hard_light:
            profile = _changed(profile, "black", glint=BLACK_GLINT)
        graded = self._graded(profile, work)
        for colour in ACHROMATIC:
            if not graded.colour(colour).reliable:
                found = self._try_lift(profile, graded, work, colour)
                # Not black under one hard lamp: its crisp shadows ring squares as tops do.
                outlined, missed = None, 0
                if found is None and not (colour == "black" and self.hard_light):
                    outlined, missed = self._tried(
                        _changed(profile, colour, outlined=True), work, colour)
                    if missed == 0:
                        found = outlined
                if found is None and colour == "black":
                    found = self._try_lift(profile, graded, work, colour, darker=True)
                if found is None and missed <= OUTLINE_SLACK:
                    found = outlined
                if found is not None:
                    profile, graded = found
        return graded

    def _graded(self, profile: Profile, work: list[np.ndarray]) -> Profile:
        """Measure areas and seams on the photos, then count them and grade each colour."""
        seamed, tops = self._seam_stats(self._fit_areas(profile, work), work)
        if tops:  # the tops tell the camera's tilt apart from the side faces' lift
            seamed, _ = self._seam_stats(self._fit_areas(seamed, work, tops), work)
        return self._verify(seamed, work)

    def _fit_areas(
        self, profile: Profile, work: list[np.ndarray],
        tops: Sequence[tuple[str, float, float, float]] = (),
    ) -> Profile:
        """Each colour's one-cube area and the area map (:func:`~vision.cube_areas.fit_areas`)."""
        return fit_areas(profile, Counter(profile, self.memo), zip(self.samples, work, strict=True),
                         TARGET_SIDE**2, tops)

    def _try_lift(
        self, profile: Profile, graded: Profile, work: list[np.ndarray], colour: str,
        darker: bool = False,
    ) -> tuple[Profile, Profile] | None:
        """Find a colour the tray test swallows by its tops, lit a little lighter than the tray
        (``darker``: a little darker, as matte black on a dark tray is, like the tray's shade).

        The level lies between the lightest (darkest) the bare tray gets in the other colours'
        photos and the tops in the colour's own photo (:data:`LIFT_SHARE` of the way). It is kept
        only if every calibration photo then counts right; the colour still always asks (it is
        told from the tray by a few percent of lightness), but its counts are no longer lost.
        In dim, noisy photos single pixels of bare tray get darker than any top: a darker level
        is then set from the darkest its 3 x 3 patches get, as counting sees them (it thins out
        darker lines). Returns the profile with the level, before and after grading, or None.
        """
        counter = Counter(graded, self.memo)
        cls = counter.names.index(colour) + 1
        sign = -1.0 if darker else 1.0  # darker tops are found as lighter ones of the negated ratio
        bare, patches, own, n_own = [], [], None, 0
        for s, frame in zip(self.samples, work, strict=True):
            seen = counter.labels(frame)
            view = counter.labeller.half_view(frame, seen.alignment)
            ratio = sign * pixels.lift_ratio(view, seen.labels, cls, darker)
            if s.colour == colour:
                own, n_own = np.where(view.roi > 0, ratio, -np.inf), s.n
            else:
                bare.append(ratio[view.roi > 0])
                if darker:  # each 3 x 3 patch as dark as its lightest pixel (counting thins darks)
                    patches.append(cv2.erode(ratio, np.ones((3, 3), np.uint8))[view.roi > 0])
        if own is None or not bare:
            return None
        # Rings filled up to a cube's area (at half scale), as counting fills them.
        most = float(np.median([m.area for m in graded.colours])) / 4 if darker else 0.0
        for floor in (float(np.percentile(np.concatenate(b), LIFT_TRAY_PERCENTILE))
                      for b in (bare, patches) if b):  # the patches' only if the pixels' fails
            lift = _lift_level(own, n_own, floor, most)
            if lift is None:
                continue
            found, missed = self._tried(
                _changed(profile, colour, shade=-lift) if darker else _changed(
                    profile, colour, lift=lift), work, colour)
            if found is not None and missed == 0:
                return found
        return None

    def _tried(
        self, base: Profile, work: list[np.ndarray], colour: str
    ) -> tuple[tuple[Profile, Profile] | None, int]:
        """``base``, finding ``colour`` another way (by a lift, by outlines), before and after
        grading, and how many cubes its own calibration photo then counts wrong; None (and no
        count) if another photo counts any of it."""
        graded = self._graded(base, work)
        missed = 0
        for s, got in zip(self.samples, self.verified, strict=True):
            if s.colour != colour and got[colour]:
                return None, 0
            if s.colour == colour:
                missed = max(missed, abs(got[colour] - s.n))
        return (base, graded), missed

    def _choose_scale(self, empty: np.ndarray) -> float:
        """Scale so a cube's side is ~TARGET_SIDE working pixels (measured on a first pass over
        the ``empty`` tray's photo and the samples)."""
        w, h = self.image_size
        self.scale0 = min(1.0, FIRST_LOOK / max(w, h))
        size = (round(w * self.scale0), round(h * self.scale0))
        bg = pixels.smooth_background(pixels.to_working(empty, size))
        roi = pixels.roi_mask(_floor_polygon(bg, 10.0), size)
        areas: list[float] = []
        names: list[str] = []
        # Decoded at least as large as the first look, in whole halvings (a 12 MP photo
        # decoded whole and resized took 85 ms, at an eighth 14).
        reduce = max(f for f in REDUCED if f <= max(1.0, 1.0 / self.scale0))
        for s in self.photos(reduce):
            ph, pw = s.image.shape[:2]
            if abs(ph * reduce - h) >= reduce or abs(pw * reduce - w) >= reduce:
                about = "" if reduce == 1 else "about "
                raise VisionError(f"{s.name}: size {about}{pw * reduce}x{ph * reduce} differs "
                                  f"from the empty tray's {w}x{h}")
            if s.colour not in ACHROMATIC and colourless(s.image):
                raise VisionError(
                    f"{s.name}: {NO_COLOUR}: {s.colour} cubes are told apart by their colour"
                )
            mask = _cube_mask(pixels.to_working(s.image, size), bg, roi, s.n)
            areas.extend(a for a, _, _ in mask_blobs(mask & (roi > 0), 12))
            names.append(s.name)
            del s  # the full photo goes before the next is decoded
        if not areas:
            raise VisionError(
                f"{names[0]}: no cubes found in any photo "
                "(are they of the same setup as the empty tray?)"
            )
        self.side0 = math.sqrt(float(np.median(areas)))
        side_full = self.side0 / self.scale0
        if LARGEST_SIDE <= side_full < 1.5 * TARGET_SIDE:
            return THREE_QUARTERS
        # A whole-number reduction keeps area averaging fast (and exact).
        return 1.0 / max(1, round(side_full / TARGET_SIDE))

    def _tray_test(
        self,
        work: list[np.ndarray],
        masks: list[np.ndarray],
        bg: np.ndarray,
        roi: np.ndarray,
        side: float,
        long_side: int,
    ) -> pixels.TrayTest:
        """Learn how shadows, highlights and noise move tray pixels, from the tray near cubes
        (``long_side`` as :func:`_rough_mask` takes it)."""
        k_in = max(3, round(0.35 * side)) | 1
        k_out = max(5, round(1.6 * side)) | 1
        darks, brights, chromas, shades = [], [], [], []
        for frame, mask in zip(work, masks, strict=True):
            al = align(bg, frame, long_side)
            lab_b = cv2.cvtColor(warp_image(bg, al), cv2.COLOR_BGR2LAB)
            lab_f = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)
            roi_a = warp_image(roi, al, cv2.BORDER_CONSTANT)
            gain = pixels.exposure_gain(lab_f, lab_b, roi_a)
            near = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k_in, k_in)))
            ring = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k_out, k_out)))
            sel = (ring > 0) & (near == 0) & (roi_a > 0)
            far = (ring == 0) & (roi_a > 0)
            passed = 0  # far pixels in the strips before: every 7th of the frame's is kept
            for rows, dark, bright, chroma in pixels.tray_features(lab_f, lab_b, gain):
                near_cubes, away = sel[rows], far[rows]
                every = slice(-passed % 7, None, 7)
                passed += int(np.count_nonzero(away))
                shades.append(dark[near_cubes])
                # Copied: a strided view would keep all the strip's far pixels.
                darks += [shades[-1], dark[away][every].copy()]
                brights += [bright[near_cubes], bright[away][every].copy()]
                chromas += [chroma[near_cubes], chroma[away][every].copy()]
        c = np.concatenate(chromas)
        lo = float(np.clip(np.percentile(np.concatenate(darks), 0.5), 0.3, 0.95))
        hi = float(np.clip(np.percentile(np.concatenate(brights), 99.5), 1.05, 2.5))
        ch = float(np.clip(np.percentile(c, 99.5), 3.0, 40.0))
        # The depth of a twentieth of the tray beside the cubes: a hard lamp's shadow covers that
        # much at one depth, while a diffuse light darkens only a thin rim where cubes touch the
        # tray, and noise or a slight misalignment only single pixels.
        self.shadow_depth = float(np.percentile(np.concatenate(shades), 5))
        return pixels.TrayTest(lo, hi, ch)

    def _colour_models(
        self, work: list[np.ndarray], masks: list[np.ndarray], bg: np.ndarray, side: float
    ) -> tuple[ColourModel, ...]:
        """A robust Gaussian per colour from the cores of its calibration cubes."""
        k = max(3, round(0.2 * side)) | 1
        erode = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        models = []
        for colour in COLOURS:
            labs = []
            for s, frame, mask in zip(self.samples, work, masks, strict=True):
                if s.colour != colour:
                    continue
                core = cv2.erode(mask, erode) > 0
                if core.sum() < 30:  # a colour barely standing out: keep its whole blobs
                    core = mask > 0
                labs.append(cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)[core].astype(np.float64))
            lab = np.concatenate(labs)
            if len(lab) >= 30:
                mean, cov = _robust_gaussian(lab)
            elif colour in ACHROMATIC:
                mean, cov = _lost_in_tray(bg, colour)
            else:
                name = next(s.name for s in self.samples if s.colour == colour)
                raise VisionError(
                    f"{name}: no cubes found (too small, or the same colour as the tray?)"
                )
            models.append(
                ColourModel(
                    colour,
                    tuple(mean.tolist()),
                    tuple(tuple(r) for r in cov.tolist()),
                    1.0,
                    True,
                    0.0,
                    0.0,
                )
            )  # type: ignore[arg-type]
        return tuple(models)

    def _seam_stats(
        self, profile: Profile, work: list[np.ndarray]
    ) -> tuple[Profile, list[tuple[str, float, float, float]]]:
        """How dark a seam must be, how much of a lone cube survives seam cutting, and how light
        its top face is, per colour; and the seam-cut tops ``(colour, area, x, y)`` of the lone
        coloured cubes.

        The counter reads a pile's seam-cut pieces against these, so they come from the real
        cubes under the real light (grain, noise, blur) rather than from constants. A colour
        whose faces are as dark-streaked as a seam would be (black in dim light) gets no seams.
        """
        counter = Counter(profile, self.memo)
        lone_tops: list[tuple[str, float, float, float]] = []
        found: dict[str, list[tuple[np.ndarray, np.ndarray, float, float, float, np.ndarray]]] = {
            c: [] for c in COLOURS
        }
        hats: dict[str, list[np.ndarray]] = {c: [] for c in COLOURS}
        for s, frame in zip(self.samples, work, strict=True):
            seen = counter.labels(frame)
            index = counter.names.index(s.colour)
            labels, part = _cubes_part(seen)
            grey = cv2.cvtColor(frame[part], cv2.COLOR_BGR2GRAY)
            mask = cv2.morphologyEx(
                (labels == index + 1).astype(np.uint8),
                cv2.MORPH_OPEN,
                cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)),
            )
            n, comp, stats, cents = pixels.components(mask)
            cents += (part[1].start, part[0].start)
            for j in range(1, n):
                x, y, w, h, area = (int(v) for v in stats[j])
                at = float(cents[j][0]), float(cents[j][1])
                expected = counter.reader.expected_area(index, *at)
                if not 0.8 <= area / expected <= 1.2:
                    continue  # not one lone flat cube
                sub = (comp[y : y + h, x : x + w] == j).astype(np.uint8)
                g = grey[y : y + h, x : x + w].copy()  # a view would keep the whole part's grey
                side = math.sqrt(expected)
                # The face's middle: its rim holds bevels and side faces, darker by design.
                k = max(3, round(0.5 * side)) | 1
                inner = cv2.erode(sub, np.ones((k, k), np.uint8)) > 0
                hats[s.colour].append(seam_hat(sub, g, side)[inner])
                tops = counter.reader.top_area(index, *at) / expected
                found[s.colour].append((sub, g, side, seen.gain, tops, cents[j]))
        models = []
        for m in profile.colours:
            items = found[m.name]
            if len(items) < 2 or sum(h.size for h in hats[m.name]) < 30:
                models.append(m)
                continue
            grain = 1.25 * float(np.percentile(np.concatenate(hats[m.name]), 97))
            # Deeper than the grain reaches, but never so deep that real seams pass unseen:
            # a face the grain then cuts is caught below (its core falls apart).
            depth = min(max(SEAM_DEPTH, grain), SEAM_DEPTH_MAX)
            fracs, greys, lone = [], [], []
            for sub, g, side, gain, tops, (x, y) in items:
                pieces, k = seam_pieces(sub, g, side, depth)
                if k < 1:
                    continue
                sizes = np.bincount(pieces.ravel())[1:]
                top = float(sizes.max())
                fracs.append(top / (float(sub.sum()) * tops))
                greys.append(float(g[pieces == 1 + int(sizes.argmax())].mean()) / gain)
                lone.append((m.name, top, float(x), float(y)))
            usable = len(fracs) >= 2 and float(np.median(fracs)) >= 0.45
            if usable and m.name not in ACHROMATIC:
                lone_tops += lone
            models.append(
                replace(
                    m,
                    core_frac=round(float(np.median(fracs)), 4) if usable else 0.0,
                    face_grey=round(float(np.median(greys)), 2) if usable else 0.0,
                    seam_depth=round(depth, 4) if usable else 0.0,
                )
            )
        return replace(profile, colours=tuple(models)), lone_tops

    def _verify(self, profile: Profile, work: list[np.ndarray]) -> Profile:
        """Count each calibration photo with the new profile (kept in :attr:`verified`), and
        again with its cubes' paint a little darker and lighter; grade each colour on those
        counts."""
        counter = Counter(profile, self.memo)
        self.verified = [counter.count_working(frame).counts for frame in work]
        if self.paint_loses is None:
            self.paint_loses = [
                _paint_loses(counter, s, frame)
                for s, frame in zip(self.samples, work, strict=True)
            ]
        return grade(profile, self.samples, self.verified, self.hard_light, self.paint_loses)

    @property
    def hard_light(self) -> bool:
        """Whether the light is one hard lamp, which black tops glint back like the tray."""
        return self.shadow_depth < HARD_LIGHT


PAINT_SPREAD = (0.8, 1.2)
"""How much darker and lighter than the calibration cubes a cube of their colour may be: wood
takes paint unevenly, and lone flat tops in the shared sample's photos range from 0.76 to 1.17 of
the calibrated top's lightness (red; blue 0.78-1.09; 5th to 95th percentile). A colour whose cubes
so painted are lost in the tray (green cubes on green felt vanish whole at 0.8) is unreliable.
Black and white are told from the tray by lightness alone; where they blend, calibration looks
for their lighter tops instead (:meth:`_Calibration._try_lift`)."""
NEUTRAL_PAINT_SPREAD = (0.85, 1.15)
"""The same for black and white: their lone flat tops in the shared sample's photos range over
0.86-1.10 (white) and 0.96-1.16 (black) of the median top's lightness. Where a white top stands
only a little lighter than the tray (a pale tray; dim, warm light), a cube so painted is lost in
it whole: drawn the way the sample was, a pale tray's drops counted one white cube short without
asking (seed 11, 2 of 25 drops)."""


def _cubes_part(seen: Labelled) -> tuple[np.ndarray, tuple[slice, slice]]:
    """A frame's labels in the box that holds every label but tray (a view; the whole frame if
    there is none), and where that box lies in the frame (rows, columns)."""
    labels, (x0, y0) = seen.crop() if seen.box[2] > seen.box[0] else (seen.labels, (0, 0))
    return labels, np.s_[y0 : y0 + labels.shape[0], x0 : x0 + labels.shape[1]]


def _paint_loses(counter: Counter, sample: Sample, frame: np.ndarray) -> bool:
    """Whether a calibration photo (``frame``, working scale) with each cube's paint as dark or
    as light as :data:`PAINT_SPREAD` allows of the photo's typical cube (black and white:
    :data:`NEUTRAL_PAINT_SPREAD`; the colour's pixels and their rims scaled: a photo's encoded
    values follow the paint's) loses cubes of its colour, or miscounts them without asking.

    A cube the paint turns into an unknown object is not lost, nor one counted twice by a count
    that asks: the count asks for it (a yellow top clipped white where the light is bright)."""
    cls = counter.names.index(sample.colour) + 1
    labels, part = _cubes_part(counter.labels(frame))
    own = (labels == cls).view(np.uint8)
    n, cubes, stats, _ = pixels.components(cv2.dilate(own, np.ones((3, 3), np.uint8)))
    boxes = [np.s_[y : y + h, x : x + w] for x, y, w, h in stats[1:, :4]]
    # Each cube's lightness against the photo's typical cube: one already painted darker or
    # lighter is taken only as far as the spread's end, not beyond it (worn cubes drawn the
    # second way, paint varying by 25%: one white cube at 0.75 lost at 0.85 more graded white
    # on a mid-grey tray as blending into it).
    grey = cv2.cvtColor(frame[part], cv2.COLOR_BGR2GRAY)
    areas = stats[1:, cv2.CC_STAT_AREA]
    lit = np.array([cv2.mean(grey[b], (cubes[b] == j).view(np.uint8))[0]
                    for j, b in enumerate(boxes, start=1)])
    typical = float(np.median(lit[areas >= 0.3 * np.median(areas)])) if n > 1 else 0.0
    for factor in NEUTRAL_PAINT_SPREAD if sample.colour in ACHROMATIC else PAINT_SPREAD:
        painted = frame.copy()  # cube by cube, each in its box: whole-frame copies cost memory
        within = painted[part]
        for j, (light, b) in enumerate(zip(lit, boxes, strict=True), start=1):
            scale = factor * typical / max(light, 1.0)
            scale = min(scale, 1.0) if factor < 1 else max(scale, 1.0)
            cube, region = cubes[b] == j, within[b]
            region[cube] = np.clip(region[cube] * np.float32(scale), 0, 255)
        seen = counter.count_working(painted)
        found = seen.counts[sample.colour]
        unknown = sum(r.startswith(UNKNOWN_OBJECT) for r in seen.reasons)
        if found + unknown < sample.n or (found != sample.n and not seen.needs_review):
            return True
    return False
