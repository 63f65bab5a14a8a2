"""How many cubes one blob holds, and how sure that is: from its area against one cube's expected
area and its shape, and then checked by a second cue's count (its seams, its separate cores)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from vision.odds import SNUG_PAIR, SNUG_PAIR_RISK, hidden_risk

NOISE_FRACTION = 0.3
"""Blobs smaller than this many cube areas are noise (a sliver of seam, a speck of glare)."""
PARTIAL_FRACTION = 0.62
"""Blobs between noise and this are a cube mostly hidden, or not a cube: always doubtful."""
CLUSTER_AREA = 1.85
"""Cube areas above which a blob is read as a cluster, from its area's likelihood; up to it, as
one cube or two by its area and shape."""
TILT_OR_PAIR = "one tilted cube or two overlapping"
"""Why a blob of 1.3-1.85 cube areas, not square, is read as two."""
LINE = "a thin line, no cube's shape (a rim's edge, a shadow or a glare?)"
"""Why a blob far longer than a cube but much thinner holds none."""
LINE_WIDTH, LINE_LENGTH = 0.4, 2.0
"""A blob thinner than this (in cube sides) and longer than that is a line: a cube mostly hidden
shows a strip at most its diagonal long (about 1.6 sides, seen off axis). Seen in the shared
sample taken 1.33 times closer: the tray rim's shadow and glare at the floor's edge, 5-7 sides
long and 0.2 thick, read as a black and a white cube."""


ONE_CUBE_ASPECT, STRIP_AREA = 1.6, 0.9
"""Most a cube's least rectangle is longer than wide: its top is square, and a tilt or the
camera's angle adds at most a face's width one way; but a cube partly hidden (under this many
cube areas) shows a strip. Rendered drops (sample-like piles seed 353, harder 354, 13 setups x
40; physics 355, x30): 15,791 blobs of 0.9-1.32 cube areas and a single cube's outline holding
one cube were at most 1.54 times as long as wide, and 2,690 of 0.72-0.9 at most 1.59. Two flat
tops side by side, their side faces hidden by neighbours, cover little more than one cube's area
under a tilted camera, in a longer rectangle (sample-like seed 352 tilt12 #38: 1.17 cube areas,
1.74 times as long as wide, read surely as one cube)."""


TILTED_OR_STACKED = "one tilted cube, or two stacked"
LARGER_THAN_ONE = "one cube, larger than expected (tilted, or hiding another?)"
CORNER_AREA, CORNER_SIDE, CORNER_SQUARE = 2.3, 1.65, 0.85
"""A blob of more than 1.85 cube areas (read as a cluster) whose least rectangle is at most this
long (in cube sides) and this square is one cube on its corner: its outline a hexagon, 1.86-2.07
cube areas off the camera's axis, 1.49-1.58 sides each way. Rendered drops (harder piles seed
274, physics 275; 12 setups x 40): 2 of 2 such blobs were one cube on its corner, read as a pair
at 0.93 (the drop of seed 273 mouth #29 did not ask); every pair there lay at least 1.70 sides
long and at most 0.73 as wide as long."""


BUMP_RATIO, BUMP_FILL = 1.15, 0.87
"""A cube's area and more that fills less of its least rectangle than a square does: the corner
of another cube lying under it bulges from one side. In 845 rendered drops (harder piles seed 183,
physics 184; 13 setups, paint varying), 3 of 9 such blobs read as one cube held two (a tenth to a
quarter of the second showing), against 4 of 2,569 other blobs read so above 1.05 cube areas;
a lone cube fills 0.93 of its rectangle or more in 95 of 100 (median 0.97). Filling 0.86-0.87,
2 of 5 held two (fresh rigs of the second renderer, 272 drops: a red cube under a black one, a
sliver of it joined to a red neighbour, filling 0.861; rendered seed 70, 630 drops), against 1 of
21 filling 0.87-0.89 (those and physics seed 72, heavy piles seed 95: 840 drops)."""
BUMP_CONFIDENCE = 0.67
ONE_WITH_BUMP = "one cube, bulging on one side (another's corner under it?)"


TOO_LARGE = "far more than a drop's cubes cover: no cube's colour, or an object on the tray?"
"""Why a blob larger than :data:`MAX_CLUSTER` cubes could cover holds none: no drop holds that
many, so the colour's calibrated area is wrong or the blob is something else (a sheet, a card)."""


AREA_ALLOWS = 0.1
"""Least posterior weight (:func:`posterior_of`) at which a cluster's area allows a count that
another cue gives: below it, the area makes that count unlikely."""
ROW_OR_BLOCK = "row or block of"
"""How a filled rectangle of whole cubes (a flush row, a block) is read: counted by its length."""
SHAPE_DISPUTES = 0.5
"""How sure a row or block's count is (by its length) when its area makes that count unlikely
(under :data:`AREA_ALLOWS`): off the camera's axis, a flush row hides all but one of its cubes'
side faces, so three show 2.2 cube areas. Rendered drops (harder and sample-like piles, paint
varying by 15%; seeds 229-233, 2,840 drops over 13 setups and 6 with the camera off axis): 96
blobs whose shape gave another count than their area held the shape's 95 times, the area's
never; the one whose area made it unlikely, an L of three over 2.15 cube areas (wide-lens), was
read as two at 0.93. So was a row of three over 2.18 cube areas, 2.64 sides long (tilt12, seed
227), and that drop did not ask."""


def read_blob(
    area_ratio: float, long_side: float, short_side: float, solidity: float, fill: float
) -> tuple[int, float, str]:
    """How many cubes a blob holds, how sure that is, and why.

    ``long_side``/``short_side`` are the blob's minimum-area rectangle sides in units of one
    cube's expected side; ``solidity`` is area over convex-hull area, ``fill`` area over that
    rectangle's area.
    """
    r = area_ratio
    if r < NOISE_FRACTION:
        return 0, 1.0, "noise"
    if short_side < LINE_WIDTH and long_side > LINE_LENGTH:
        return 0, 0.5, LINE
    if r < PARTIAL_FRACTION:
        # A black or white cube in shade or glare, most often (41 of 46 in rendered drops; the
        # rest were shadows or the other part of a split cube): it asks, unless the beam agrees.
        return 1, 0.8, "partial: a mostly hidden cube, or not a cube"
    single_shape = long_side <= 1.55 and solidity >= 0.88 and (
        long_side < ONE_CUBE_ASPECT * short_side or r < STRIP_AREA)
    if r <= 1.32:
        if single_shape:
            if r < 0.72:
                # Right in 54 of 54 such blobs in 1,200 rendered drops (2 seeds, both pile mixes).
                return 1, 0.98, "one cube, smaller than expected (partly hidden?)"
            if r > 1.27:
                return 1, 0.85, LARGER_THAN_ONE
            if r > BUMP_RATIO and fill < BUMP_FILL:
                return 1, BUMP_CONFIDENCE, ONE_WITH_BUMP
            # Wrong 2 times in 12,174 such blobs of rendered drops (both pile mixes).
            return 1, 0.9995, "one cube"
        if r < 1.15:
            return 1, 0.5, "one cube's area in a long or dented shape"
        # A lone cube is square from above; more than its area in another shape is most often
        # two overlapping, each hiding part of the other.
        return 2, 0.5, "two overlapping cubes, or one tilted (a long or dented shape)"
    if r <= CLUSTER_AREA:
        if single_shape and short_side <= 1.45:
            # A cube rests tilted only against something: alone, this may be a stack of two.
            return 1, 0.8 if r <= 1.7 else 0.6, TILTED_OR_STACKED
        if long_side >= 1.75 or solidity < 0.82:
            # Under 1.6 areas: 24 of 24 distinct such blobs in rendered drops held two.
            return 2, 0.97 if r >= 1.6 else 0.9, "two overlapping cubes"
        # Not square, so not one cube (22 of 22 such blobs in rendered drops held two), unless
        # one on a corner whose faces show it (the counter checks).
        return 2, 0.8, TILT_OR_PAIR
    if r <= CORNER_AREA and long_side <= CORNER_SIDE and short_side >= CORNER_SQUARE * long_side:
        # As wide as it is long, a hexagon: two cubes never lie so (side by side or overlapping
        # they are half as long again as wide), so this is one cube on its corner, seen off the
        # camera's axis, or stacked on another.
        return 1, 0.6, TILTED_OR_STACKED
    if r > 2.0 * MAX_CLUSTER:  # past every likelihood tabulated: no reading would mean anything
        return 0, 0.0, TOO_LARGE
    # A cluster: read from the simulated likelihood of n cubes (flat, tilted or partly hidden).
    best, post = posterior(r)
    grid = grid_count(long_side, short_side, fill, solidity)
    if grid == best:
        return best, max(post, 0.98), f"{ROW_OR_BLOCK} {best}"
    if grid:
        # A filled rectangle one or two cubes wide is a flush row or block: its length counts
        # the cubes better than its area (neighbours hide each other's sides), surely while the
        # area leaves that count likely.
        if posterior_of(r, grid) >= AREA_ALLOWS:
            return grid, 0.96, f"{ROW_OR_BLOCK} {grid}"
        return grid, SHAPE_DISPUTES, f"{ROW_OR_BLOCK} {grid}, but with the area of {best}"
    return best, post, f"cluster of {best}"


def r_small(why: str) -> bool:
    """Whether a blob reading is the one of a single cube smaller than expected."""
    return why.startswith("one cube, smaller")


L_SOLIDITY = 0.93
"""Most solidity of an L of three: of the blobs with an L's box and fill at 0.9-0.93 in 1,440
rendered drops (harder piles seeds 114 and 115, physics 116 and 117, half with paint varying by
15%), 50 of 50 held three; most had been read from their area alone, as two, and asked."""


GRID_SIDE_FACE = 0.4
"""Most a flush row or block's outline exceeds its tops (in cube sides), across and along alike:
off the camera's axis each cube shows side faces, but in a row only those on its outside show,
so a row of k cubes is k tops long plus one side face, and one top plus that face wide."""
GRID_SIDE_FACE_TYPICAL = 0.12
"""The side face most rows show (in cube sides): where two counts fit a rectangle, the one
needing a side face nearer this is taken."""


def grid_count(long_side: float, short_side: float, fill: float, solidity: float) -> int:
    """Cubes in a blob that is a filled rectangle of whole cubes (a row, a 2 x k block) or a 2 x 2
    block missing one corner (an L of three: it fills 3/4 of its box and 6/7 of its hull, more
    where blur or dim light fills its inner corner), else 0.

    A rectangle a tops wide and k long shows its outer side faces only (:data:`GRID_SIDE_FACE`):
    it is ``a * t + s`` wide and ``k * t + s`` long, with tops of side ``t``.
    """
    if 0.62 <= fill <= 0.8 and 0.8 <= solidity <= L_SOLIDITY:
        return 3 if 0.8 <= short_side / 2 <= long_side / 2 <= 1.12 else 0
    if fill < 0.86 or solidity < 0.93:
        return 0
    fits = []
    for across in (1, 2):
        if abs(long_side - short_side) <= 0.18 * across and 0.8 <= short_side / across <= 1.12:
            fits.append((0.0, across * across))  # as long as wide: a square block
        for along in range(across + 1, 2 * MAX_CLUSTER):
            face = (along * short_side / across - long_side) / (along / across - 1)
            top = (short_side - max(face, 0.0)) / across
            if top < 0.72:
                break  # more cubes only need smaller tops
            if -0.2 <= face <= GRID_SIDE_FACE and top <= 1.12:
                fits.append((abs(face - GRID_SIDE_FACE_TYPICAL), across * along))
    return min(fits)[1] if fits else 0


MAX_CLUSTER = 48
BIN = 0.05
"""Cluster area likelihoods are tabulated in bins of this many cube areas."""


def cluster_table() -> np.ndarray:
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


_TABLE = cluster_table()


def posterior_of(r: float, n: int) -> float:
    """Posterior weight of exactly ``n`` cubes for a blob of area ratio ``r``."""
    b = min(int(r / BIN), _TABLE.shape[1] - 1)
    like = _TABLE[1:, b]
    return float(like[n - 1] / like.sum()) if 1 <= n <= MAX_CLUSTER else 0.0


def posterior(r: float) -> tuple[int, float]:
    """Most likely cube count of a blob with area ratio ``r``, and its posterior weight."""
    b = min(int(r / BIN), _TABLE.shape[1] - 1)
    like = _TABLE[1:, b]
    post = like / like.sum()
    i = int(post.argmax())
    return i + 1, float(post[i])


OUTVOTED_CONFIDENCE = 0.9
"""Most a reading is trusted when two cues agree on a count the third did not give (area
against seams and cores: 22 of 24 such blobs in rendered drops were right, not 98.5%)."""


CONFIRMED_PAIR = 1.0 - SNUG_PAIR_RISK
"""How sure a pair of at most :data:`~vision.odds.SNUG_PAIR` cube areas is when a second cue
agrees: as sure as it is that no third cube hides under it (that is what such pairs get wrong)."""


class Reading(NamedTuple):
    """A blob read as ``n`` cubes."""

    n: int
    confidence: float
    why: str
    hidden: float = 0.0
    """Chance that one more cube lies unseen under the pile (its top read surely)."""
    disputed: bool = False
    """Whether a second cue gave another count."""


def first_reading(n: int, conf: float, why: str, ratio: float) -> Reading:
    """A blob's reading from its area and shape, before any second cue.

    A row or block is a top read surely, as a pile whose cues agree is: it may hide one more cube
    beneath it as such a pile may (:func:`~vision.odds.hidden_risk`; rendered drops, seed 55: a
    row of two over 2.3 cube areas, read sure at 0.98, held a third, and the drop did not ask).
    """
    return Reading(n, conf, why, hidden_risk(n, ratio) if why.startswith(ROW_OR_BLOCK) else 0.0)


def second_cue(
    ratio: float, reading: Reading, cue_n: int, cue_conf: float, agree: str, disagree: str,
    keep: bool = False, beyond_area: bool = False,
) -> Reading:
    """A blob's reading checked by a second cue's count.

    Agreement is taken as sure as the surer cue, no more: both miss a cube hidden under another,
    so their agreement is not independent evidence, and a pile can hide a cube under the others
    whatever its top shows. Two cues that disagree mean one is wrong, so the blob asks; the cue's
    count is kept when the area allows it (it sees what area alone cannot), or even where the
    area makes it unlikely if ``beyond_area``, unless ``keep``, a cue known to err there: a cube
    whose faces show it tilted is cut by its own edges into pieces that look like more tops (34
    of 34 such blobs in rendered drops held one cube), and seams resting on a piece well short
    of its whole tops (:data:`~vision.cues.FIRM_SHORT`) overcount.
    """
    n, conf, why, hidden, disputed = reading
    if cue_n == n:
        if disputed:  # two cues against a third: not sure
            cue_conf = min(cue_conf, OUTVOTED_CONFIDENCE)
        elif n == 2 and ratio <= SNUG_PAIR:
            cue_conf = max(cue_conf, CONFIRMED_PAIR)
        return Reading(n, max(conf, cue_conf), f"{why}; {agree}", hidden_risk(n, ratio), disputed)
    if not keep and (beyond_area or ratio < CLUSTER_AREA
                     or posterior_of(ratio, cue_n) >= AREA_ALLOWS):
        n = cue_n
    return Reading(n, min(conf, 0.8), f"{why}, but {disagree}", hidden, True)
