"""Cues inside one blob that tell touching cubes apart: the dark seams where their bevels meet
(and the tops and faces they cut the blob into), and the cores (pixels far from the blob's edge)
that stand apart where cubes touch by a neck."""

from __future__ import annotations

import math
from typing import NamedTuple

import cv2
import numpy as np

from vision import pixels
from vision.readings import CLUSTER_AREA, posterior_of

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
    Two cubes pressed flush share a core at least 1.3 sides long, and so do two that overlap in
    view (one partly behind the other), however thin that core (physics drops under a tall
    camera: a chain of three read as two cores, one 1.48 sides long). A longer core, or a
    smaller one (a cube mostly hidden), gives no reading: area and seams must decide.
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
    for j in range(1, n):  # however thin: two cubes touching along part of a side share one
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


FLAT_TOP = (0.94, 1.1)
"""Lightness (over a flat top's at calibration) that a flat-lying top shows anywhere on the tray:
fewer than 1 in 100 of them fall outside, while most cubes on an edge or a corner turn their
largest face from an overhead light enough to fall below (0.8-0.94 under a ring light)."""
PAIR_ELONGATION = 1.4
"""Two flat tops side by side in one seam-cut piece are twice as long as wide (second-moment
axes 2 : 1); a piece of two tops' area as compact as a square is one cube standing on a corner,
its three faces uncut (rendered drops: 218 such pieces of two tops at 1.14-2.6, 3 of a corner
cube at 1.07-1.12)."""
SHORT_PAIR = 1.15
"""A piece this large (in tops) that is as elongated as two tops side by side is no single top:
it is two, one of them partly hidden by the tray's rim or a neighbour (physics drops under a
camera tilted 12 degrees: a piece of 1.29 tops at elongation 1.91 was read as one top, and the
blob surely as one cube too few). One top with a side face left on it is under 1.35 long."""
WHOLE_TOP = 0.75
"""A seam-cut piece this large (in lone-cube cores) is one cube's whole top even when lit
unlike a flat one: a cube tilted far enough to show a second face as large as a cube's top (0.6)
shows no face this large, and one on an edge at 45 degrees two faces of 0.7. A flat top shaded by
its neighbours (the shared sample's chain of four, blurred or shrunk: 0.77-0.81 at 0.8 of a flat
top's light) is whole; at 0.82 such chains asked in 3 of the sample's 6 camera changes."""


FLAT_LIGHT = (0.85, 1.18)
"""Lightness (over a flat top's at calibration) of a seam-cut piece that is a top lying flat, as
far as the seams tell: outside it, a face turned from the light (part of a tilted cube)."""
TOP_PIECE = 0.4
"""Least size (in lone-cube cores) of a seam-cut piece that shows a top of its own."""


PIECE_CONFIDENCE = 0.995
"""How sure each seam-cut piece's whole number of tops is, however far within its spread
(:data:`PIECE_SPREAD`) it lies from that number. In 1,040 rendered drops (13 setups, paint
varying by 15%; sample-like piles seed 143, harder ones 144; drops hiding a cube mostly left
out), piles of three or more whose seams agreed with their area held as many cubes 224 times of
226 when every piece lay within a fifth of a top of a whole number, and 106 of 107 when some did
not (such pieces once cost 0.97 each, so these piles asked far more often than they erred).
Pairs read so held two 780 of 780 and 187 of 187 times."""


PIECE_SPREAD = 0.4
"""How far (in tops) a piece of several tops' area may lie from that whole number and still be
read as it: short of halfway to the next. Each top's core varies, and tops packed tight leave
thin seams, so pairs run large: the shared sample's pile of six green cubes (003) and its pile
of sixteen red (010) each cut a pair as one piece of 2.36 tops, and at 0.35 for pairs both were
read from their area alone, the six as five; physics-settled rendered piles the same (2.37,
2.42). Rendered clusters cut at 0.3: 1,067 of 1,376 read, at 0.35-0.4 1,093, as often right."""


FIRM_SHORT = 0.28
"""How far (in tops) a piece of several tops may fall short of its whole number for the seams'
count to overrule the area's. Further short, it is as often one top fewer and the crevices left
uncut beside them. Rendered drops (13 setups x 25, paint varying by 15%; sample-like piles seed
194, harder 195): of the 50 blobs whose seams gave another count than their area, the seams were
right in 42 of 46 without such a piece and 0 of 4 with one (2.67-2.71 tops for two cubes, 3.68
for three); agreeing with the area, such pieces were right 14 of 14. Seeds 192, 193 and 197 gave
3 more wrong (2.62, 3.64, 4.70) and 1 right (4.66).

A pair lit as flat tops is two tops still, down to the spread (1.6 tops): tops packed tight, as
physics settles them, leave wide seams, and their area runs short too. Rendered drops (seeds
359-365, 13 setups, every mix of piles): of 97 such pieces of 1.6-1.72 tops in seam counts, 2
were a cube over, both green cubes on green felt (a colour the tray swallows, which always
asks); of 6 lit darker, 1 (a cube on its edge, at 0.78). Physics seed 351: three drops not hard
were read a cube short by their area (black 5 of 6, white 7 of 8 and 3 of 4) against seams cutting
such a pair (1.63-1.70 tops, lit at 0.93-1.0)."""
SHORT_CONFIDENCE = 0.88
"""Most a seam count is trusted when a piece of several tops (a pair too) falls
:data:`FIRM_SHORT` or more short of its number. Such a piece agreeing with the area is still
one top too many at times: in rendered drops (12 setups x 40, harder piles seed 283, physics
284) 19 of 21 such blobs were right, the two others a cube over (pieces of 2.61 and 1.80 tops,
every cube in sight), as was a yellow pile of seed 271 (tall-640 #25, a piece of 2.68), read
surely as four cubes for three."""


class SeamReading(NamedTuple):
    """A blob's cube count from its seam-cut pieces."""

    n: int
    confidence: float
    firm: bool
    """Whether no piece of several tops falls :data:`FIRM_SHORT` or more short of its number
    (but a pair lit as flat tops): only then may the count overrule the area's."""


TURNED_FACE = 0.75
"""Lightness (over a flat top's) under which a pixel of a seam-cut piece lies on a face turned
from the light."""
TURNED_SHARE = 0.3
"""Share of such pixels over which a piece of several tops holds a tilted cube's faces, not flat
tops: in rendered drops (sample-like seed 243, harder 254; paint varying by 15%) the 530 right
readings whose seams agreed and cut pieces of several tops showed at most 0.20 (95th percentile
0.09); three blue cubes, one on its corner in one piece with a flat one, showed 0.58 and were
read surely as four."""


class SeamCut(NamedTuple):
    """A blob cut along its seams: the pieces' labels (1..k), each one's area and summed
    lightness, the lightness of the blob's pixels, one cube's side there (pixels), and the
    blob's mask."""

    labels: np.ndarray
    sizes: np.ndarray
    sums: np.ndarray
    gray: np.ndarray | None = None
    side: float | None = None
    blob: np.ndarray | None = None

    def lightness(self, face: float) -> np.ndarray:
        """Each piece's mean lightness over a flat top's (``face``)."""
        return self.sums / self.sizes / max(1.0, face)

    def turned_share(self, piece: int, face: float) -> float:
        """Share of a piece's (0-based) pixels lit as a face turned from the light."""
        if self.gray is None:
            return 0.0
        light = self.gray[self.labels == piece + 1]
        return float(np.count_nonzero(light < TURNED_FACE * face)) / max(1, light.size)


def cut_at_seams(sub: np.ndarray, gray: np.ndarray, side: float, depth: float) -> SeamCut | None:
    """:func:`seam_pieces` with each piece's area and summed lightness, and the grey levels they
    come from (None: no piece)."""
    labels, k = seam_pieces(sub, gray, side, depth)
    if k == 0:
        return None
    flat = labels.ravel()
    sizes = np.bincount(flat, minlength=k + 1)[1:].astype(np.float64)
    sums = np.bincount(flat, weights=gray.ravel(), minlength=k + 1)[1:]
    return SeamCut(labels, sizes, sums, gray, side, sub)


class TiltedFaces(NamedTuple):
    """What the faces of a blob that looks tilted show."""

    light: float
    """Its largest face's lightness over a flat top's."""
    uneven: bool
    """Whether its faces differ from each other (by more than a fifth)."""


def tilted_face(cut: SeamCut, top_core: float, face: float) -> TiltedFaces | None:
    """A blob's faces, when they are shaded as a tilted cube's are, not as a flat top; else None.

    A cube on an edge or a corner turns its faces from the light: the largest face is lighter or
    darker than a flat-lying top of that colour (``face``), or the faces differ from each other.
    Two stacked cubes both show flat tops. ``top_core`` is a lone flat cube's core area there.
    """
    big = cut.sizes >= 0.15 * top_core
    if not big.any():
        return None
    light = cut.lightness(face)[big]
    main = float(light[int(np.argmax(cut.sizes[big]))])
    uneven = bool(light.max() / max(1e-3, light.min()) > 1.2)
    low, high = FLAT_TOP
    if not low <= main <= high or uneven:
        return TiltedFaces(main, uneven)
    return None


def _lit_flat(light: np.ndarray) -> np.ndarray:
    return (FLAT_LIGHT[0] <= light) & (light <= FLAT_LIGHT[1])


def seam_tops(cut: SeamCut, top_core: float, face: float) -> int:
    """How many seam-cut pieces show a top of their own (:data:`TOP_PIECE` of a top or more, lit
    as a flat top or a whole top), however unevenly the seams cut them.

    This is no count (a piece may be part of a top), but a blob read as fewer cubes than it shows
    tops is doubtful: cubes packed tight hide each other's sides, so their area and their cores
    can come out a cube short while every top still shows. (Physics drops under a camera tilted
    12 degrees: five white cubes packed tight covered 4.08 cube areas and showed four cores, and
    were read surely as four; their seams cut five pieces of 0.56-0.87 of a top.)
    """
    q = cut.sizes / top_core
    shown_whole = _lit_flat(cut.lightness(face)) | (q >= WHOLE_TOP)
    return int(np.count_nonzero((q >= TOP_PIECE) & shown_whole))


EDGE_PIECE = (1.2, 1.6)
EDGE_LIGHT = 0.8
"""A seam-cut piece of this many tops, lit darker than this (over a flat top), is one cube on
its edge: its two faces lie side by side uncut, one of them turned from the light. In a flush
row or block it is what the row's outline counts twice (rendered drops, sample-like seed 312
and harder 315, cool-cast: rows of three read surely holding an edge cube beside a flat one,
pieces of 1.37 and 1.39 tops at 0.73 and 0.69); no right row reading among 338 others of
seeds 314-315 showed such a piece."""
TURNED_PIECE = 0.6
"""A seam-cut piece (of a fifth of a top or more) lit darker than this is a face turned far from
the light, of a cube on its edge or its corner, whatever its size: the seams may cut such a
cube's faces apart. Sample-like seed 372 tall-640 #16: a flat black cube and one on its edge in
a row, 2.51 sides long, were read surely as a row of three, the drop not asking; their seams
cut a top and a piece of 0.26 tops at 0.42. In 845 row or block readings of sample-like seed
375 and harder 376 (13 setups x 40) no piece was lit under 0.7."""


def edge_piece(cut: SeamCut, top_core: float, face: float) -> bool:
    """Whether a seam-cut piece is one cube on its edge (:data:`EDGE_PIECE`) or a face turned far
    from the light (:data:`TURNED_PIECE`)."""
    tops = cut.sizes / top_core
    light = cut.lightness(face)
    edge = (EDGE_PIECE[0] <= tops) & (tops <= EDGE_PIECE[1]) & (light < EDGE_LIGHT)
    return bool(np.any(edge | ((tops >= 0.2) & (light < TURNED_PIECE))))


def whole_tops(q: float, long: float) -> int | None:
    """How many tops a seam-cut piece (or a lobe of one) of ``q`` tops' area and elongation
    ``long`` holds, when it is a whole number of them: else None."""
    m = max(1, round(q))
    if (m == 1 and not 0.6 <= q <= 1.35) or (m > 1 and abs(q - m) > PIECE_SPREAD):
        return None
    if m == 2 and long < PAIR_ELONGATION:
        return None  # one cube on a corner, not two tops
    if m == 1 and q >= SHORT_PAIR and long >= PAIR_ELONGATION:
        return None  # two tops side by side, one partly hidden (by the rim, a neighbour)
    return m


SINGLE_FILE = 1.5
"""Width (in cube sides) under which a seam-cut piece holds its tops in single file."""
ROW_SLACK = 0.6
"""How many tops more than its length shows a single-file piece may be read as."""
ROW_WHOLE = 0.25
"""How near a whole number of tops a single-file piece's length must come to count them."""


def row_length(cut: SeamCut, piece: int) -> float | None:
    """How many tops a seam-cut piece (0-based ``piece``) holds by its length, where it holds
    them in single file (else None): a row of ``m`` cubes is ``m - 1`` sides longer than it is
    wide, however far light or blur spreads its outline, while its area spreads with it."""
    if cut.side is None:
        return None
    pts = cv2.findNonZero((cut.labels == piece + 1).astype(np.uint8))
    (_, _), (w, h), _ = cv2.minAreaRect(pts)
    long, short = max(w, h) / cut.side, min(w, h) / cut.side
    return None if short >= SINGLE_FILE else 1.0 + long - short


def row_fits(length: float | None, m: int) -> bool:
    """Whether a seam-cut piece read as ``m`` tops by its area is long enough for them, if it
    holds them in single file (its :func:`row_length`). Rendered drops drawn the second way
    (16:9 camera, seed 15, #3): three white cubes flush in a row cut as one piece of 3.94 tops,
    3.24 x 1.14 sides, read surely as four, the area agreeing (five cubes over 6.09 cube areas)."""
    return length is None or m <= length + ROW_SLACK


def row_tops(length: float | None, q: float) -> int | None:
    """Tops of a single-file piece (its :func:`row_length`) whose area (``q`` tops) lies between
    whole numbers, from its length, when that is nearly whole and the area within
    :data:`ROW_SLACK` of it; else None. Drawn the second way (ring, seed 12, #2): five white
    cubes, two pairs cut as pieces of 2.46 and 2.53 tops (2.01 x 0.95 and 2.11 x 1.00 sides) and
    a single, read as six by their area."""
    if length is None:
        return None
    m = round(length)
    if m < 2 or abs(length - m) > ROW_WHOLE or abs(q - m) > ROW_SLACK:
        return None
    return m


STRAY_REACH = 0.5
"""Distance (in cube sides) from every seam-cut piece beyond which a blob's pixels belong to no
cube the pieces show: side faces and seams lie closer."""
STRAY_TOPS = 0.2
"""Area (in tops) of such pixels from which a blob holds a part of a cube that no piece shows."""


def stray_tops(cut: SeamCut, top_core: float) -> float:
    """How much of the blob (in tops) lies :data:`STRAY_REACH` or more from every seam-cut piece:
    the sliver of a cube under the others, too thin to be cut as a piece of its own.

    Drawn the second way (wide lens, seed 19, #22): a green cube 45% in sight under a red one
    showed an L a third of a side wide along it, joined to a green pair, read surely as two at
    2.28 cube areas; 0.63 tops of it lay so far. In 48 folders drawn so (1,370 drops), the 2,020
    pairs and piles of three whose seams agreed and whose boxes held as many cubes showed at most
    0.08 tops so far; 3 of the 28 whose boxes held one more showed 0.44-0.63.
    """
    if cut.blob is None or cut.side is None:
        return 0.0
    dist = cv2.distanceTransform((cut.labels == 0).astype(np.uint8), cv2.DIST_L2, 3)
    far = (cut.blob > 0) & (dist > STRAY_REACH * cut.side)
    return float(np.count_nonzero(far)) / top_core


LOBE_NECK = 0.6
"""Width (in sides of a top's core) under which a neck joins two lobes of one seam-cut piece."""


def lobes_agree(cut: SeamCut, piece: int, top_core: float, m: int) -> bool:
    """Whether a seam-cut piece of ``m`` tops (0-based ``piece``), split at its necks, holds
    whole tops in every lobe, ``m`` in all (true of a piece without necks).

    A cube on its corner or its edge joined by a neck to a flat top makes such a piece: its
    faces, uncut and lit alike at low resolution, pass for tops, but its lobe is as compact as a
    square (two tops lie side by side) or between whole tops. Rendered drops: sample-like seed
    312 small camera #22, a flat and a corner cube in one piece of 2.76 tops, read surely as
    one cube over; harder 330 and sample-like 331 (13 setups x 60), 36 pieces of three tops or
    more in seam readings: 3 of the 6 whose count was wrong, a cube over, held such lobes (1.44,
    1.46; two lobes of 1.15 and 1.27 for a piece of 2.63), none of the 30 right. A piece of two
    tops' area may be three cubes, each partly hidden by the next and joined to it by a neck
    (physics seed 386 tilt12 #45: three lobes in a piece of 2.29 tops, read surely as a pair).
    """
    mask = (cut.labels == piece + 1).astype(np.uint8)
    k = max(3, round(LOBE_NECK * math.sqrt(top_core)) | 1)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    n, lobes = cv2.connectedComponents(cv2.morphologyEx(mask, cv2.MORPH_OPEN, disc),
                                       connectivity=4)
    if n < 3:
        return True  # one lobe: the piece's own reading is all there is
    sizes = np.bincount(lobes.ravel(), minlength=n)[1:] / top_core
    total = 0
    for q, long in zip(sizes, piece_elongation(lobes, n - 1), strict=True):
        tops = whole_tops(q, long)
        if tops is None:
            return False
        total += tops
    return total == m


def seam_count(cut: SeamCut, top_core: float, face: float, ratio: float) -> SeamReading | None:
    """Cubes in a blob of ``ratio`` cube areas from its seam-cut pieces, how sure that is, and
    whether it may overrule the area's count, when every piece reads cleanly; else None.

    Each piece is a whole number of cube tops (its area against a lone flat cube's core area
    there, ``top_core``), lit like a flat top (``face``); a face turned from the light, a piece
    between whole numbers, or much of the blob lost in seams leaves the reading to area. So do
    pieces holding more than 1.2 tops per cube area of the blob, unless each is a single top: a
    piece of several tops is then inflated, while single tops are what flat cubes overlapping in
    view show (each one's side face over the next, off the camera's axis).
    """
    # Measured only where a piece may hold two tops, the one place it decides.
    tops = cut.sizes / top_core
    elongation = (piece_elongation(cut.labels, len(cut.sizes)) if (tops >= SHORT_PAIR).any()
                  else np.ones(len(cut.sizes)))
    n, conf, kept, read, firm, sure, single = 0, 1.0, 0.0, 0, True, True, True
    for k, (q, size, light, long) in enumerate(zip(tops, cut.sizes, cut.lightness(face),
                                                   elongation, strict=True)):
        if q < 0.08:
            continue  # grain or a glint, not a face
        if q < 0.2:
            return None  # a sliver: maybe the visible part of a cube under the others
        m = whole_tops(q, long)
        length = row_length(cut, k) if m != 1 else None
        by_length = m is None
        if by_length:
            m = row_tops(length, q)  # its area spread beyond whole tops: a row counts by length
        if m is None or (m > 1 and not (lobes_agree(cut, k, top_core, m) and row_fits(length, m))):
            return None
        if not _lit_flat(light) and q < WHOLE_TOP:
            return None  # a face turned from the light: part of a tilted cube
        if m > 1 and cut.turned_share(k, face) > TURNED_SHARE:
            return None  # a tilted cube's faces among its tops
        conf *= PIECE_CONFIDENCE
        short = m > 1 and q <= m - FIRM_SHORT
        sure = sure and not short and not by_length
        firm = firm and (not short or (m == 2 and _lit_flat(light)))
        single = single and m == 1
        n += m
        kept += size
        read += 1
    if n == 0 or not 0.65 <= kept / (top_core * ratio) <= (math.inf if single else 1.2):
        return None
    if stray_tops(cut, top_core) >= STRAY_TOPS:
        return None  # a part of a cube no piece shows: maybe one under the others
    if n >= 3 and read == 1:
        return None  # nothing cut: one piece of several tops is the blob's area over again
    if not 0.75 <= ratio / n <= 1.4:
        return None
    if ratio >= CLUSTER_AREA and posterior_of(ratio, n) < 0.02:
        return None
    return SeamReading(n, conf if sure else min(conf, SHORT_CONFIDENCE), firm)
