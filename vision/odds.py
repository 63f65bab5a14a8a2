"""How likely a drop's blob readings are to be wrong, alone and given the exit beam's total.

A reading errs by a cube either way, and a pile may hide one more under its top. The exit beam
counts the cubes going in: a total that agrees leaves only errors that cancel, and one that
differs points at the likeliest blob to change.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

import numpy as np

REVIEW_BELOW = 0.9
"""Results whose confidence is under this ask a person to check them."""


class Reading(Protocol):
    """What the odds need of a blob's reading."""

    @property
    def n(self) -> int: ...

    @property
    def confidence(self) -> float: ...

    @property
    def hidden(self) -> float: ...

    @property
    def area_ratio(self) -> float: ...

    @property
    def down_share(self) -> float: ...


HIDDEN_RISK = 0.015
"""Chance, per cube touching another in a pile, that one more lies unseen beneath them."""


BEAM_FIX_MAX = 2
"""Largest difference from the beam's total that the counter tries to explain blob by blob."""


def beam_fix(blobs: Sequence[Reading], shortfall: int) -> list[int] | None:
    """The likeliest change (-1, 0 or +1 cube) of each blob that makes the total ``shortfall``
    more, by :func:`miscount_odds`; None when a cube no blob shows (wholly hidden, of unknown
    colour) explains it as well, or the difference is too large to explain."""
    if not 0 < abs(shortfall) <= BEAM_FIX_MAX or not blobs:
        return None
    # Max-product over blobs, the state being the change so far (offset by BEAM_FIX_MAX).
    width = 2 * BEAM_FIX_MAX + 1
    best = np.full(width, -np.inf)
    best[BEAM_FIX_MAX] = 0.0
    steps: list[np.ndarray] = []
    for blob in blobs:
        logs = np.log(np.maximum(miscount_odds(blob), 1e-300))
        nxt, pick = np.full(width, -np.inf), np.zeros(width, np.int8)
        for e in (-1, 0, 1):
            moved = np.full(width, -np.inf)
            if e < 0:
                moved[:-1] = best[1:]
            elif e > 0:
                moved[1:] = best[:-1]
            else:
                moved = best.copy()
            better = moved + logs[e + 1] > nxt
            nxt[better], pick[better] = moved[better] + logs[e + 1], e
        best = nxt
        steps.append(pick)
    target = BEAM_FIX_MAX + shortfall
    if not np.isfinite(best[target]):
        return None
    # A cube no blob accounts for (a pile's own odds already hold the cube it may hide).
    if shortfall > 0 and best[target - 1] + math.log(HIDDEN_RISK) >= best[target] + math.log(
            1.0 - HIDDEN_RISK):
        return None  # a cube nobody sees is as likely as any blob's miscount
    changes, state = [], target
    for pick in reversed(steps):
        e = int(pick[state])
        changes.append(e)
        state -= e
    return changes[::-1]


PAIR_EXCESS = 2.3
"""Area (in cube areas) above which a pair may hold a third cube almost wholly under it: the
third's sliver adds area that two cubes seldom show (rendered drops of two seeds: 9 of 62 pairs
read surely as two above it held a third, and 3 of 690 below it)."""
PAIR_EXCESS_RISK = 0.15
SNUG_PAIR = 2.1
"""Area (in cube areas) up to which a pair read as two by its area and its seams or cores hides
a third cube hardly ever; the third's sliver shows from here to :data:`PAIR_EXCESS`. In rendered
drops (17 setups; sample-like piles, seed 50, and physics, seed 45) 1 of 1,101 such pairs up to
it held a third, and 9 of 325 above it."""
SNUG_PAIR_RISK = 0.005
LOOSE_PAIR_RISK = 0.03


LOOSE_PILE = 1.1
"""Area per cube (in cube areas) above which a pile of three or more read surely from its top
hides one more beneath it more often than its size alone says. In rendered drops (6 seeds, 2,190
drops) piles of three read so hid a fourth 9 times in 714 up to it (1.3%), and 4 in 57 above
(7%). Drops settled by physics, where cubes pile as they pour (13 setups, 5 seeds, 3,120 drops),
hide one more under such piles far more often: 14 of 65 above it (22%), against 29 of 1,071
piles of three up to it (2.7%)."""
LOOSE_PILE_RISK = 0.2


def hidden_risk(n: int, ratio: float) -> float:
    """Chance that a pile whose top reads as ``n`` cubes (area and seams or cores agreeing),
    ``ratio`` cube areas in all, hides one more: the most such a reading can be trusted."""
    if n == 2:
        if ratio > PAIR_EXCESS:
            return PAIR_EXCESS_RISK
        return LOOSE_PAIR_RISK if ratio > SNUG_PAIR else SNUG_PAIR_RISK
    risk = HIDDEN_RISK * (n - 1)
    return max(risk, LOOSE_PILE_RISK) if ratio > LOOSE_PILE * n else risk


BEAM_FLOOR = 0.5
"""Blob confidence under which a reading asks for review even when the exit beam's total agrees:
one likelier wrong than right. Above it, a total that agrees settles the reading as far as
:func:`beam_confidence` says, errors that cancel included. In 2,640 rendered drops given their
total (12 setups, paint varying by 15%; harder piles seeds 133, 135 and 138, physics 134 and
136, sample-like 137), it agreed in 2,338: 2 of those were wrong, both asking for readings that
others could cancel; in 41 the one doubt was a reading at 0.5-0.7 (9 of them hid a cube mostly),
all right. Right drops that asked though the total agreed: 5.9% at a floor of 0.7, 4.2% at 0.5."""


def miscount_odds(blob: Reading) -> tuple[float, float, float]:
    """Chances that a blob holds one cube fewer, exactly as many, or one more than it was read
    as: a pile may hide one more; any other doubt goes either way (as its area allows: see
    ``down_share``), but for less than one cube's area read as one cube (a part of a cube, a
    sliver), where the doubt is whether it is a cube, and for a patch read as no cube, which can
    only be one more."""
    rest = 1.0 - blob.confidence
    if blob.n == 0:  # a patch read as no cube
        return 0.0, blob.confidence, rest
    if blob.n == 1 and blob.area_ratio < 1.0:
        return rest, blob.confidence * (1.0 - blob.hidden), blob.confidence * blob.hidden
    down = rest * blob.down_share
    return down, blob.confidence * (1.0 - blob.hidden), rest - down + blob.confidence * blob.hidden


def beam_confidence(blobs: Sequence[Reading]) -> tuple[float, list[float]]:
    """Chance that every reading is right given that their total is right (the exit beam
    agrees), and each blob's own chance on that condition.

    Readings err independently by a cube either way (:func:`miscount_odds`); a right total
    leaves only errors that cancel out.
    """
    if not blobs:
        return 1.0, []
    odds = [np.array(miscount_odds(b)) for b in blobs]
    spread = np.ones(1)
    for o in odds:
        spread = np.convolve(spread, o)
    right_total = float(spread[len(blobs)])  # the middle: errors summing to zero
    all_right = float(np.prod([o[1] for o in odds]))
    each = []
    for i, o in enumerate(odds):
        if o[1] >= REVIEW_BELOW:
            each.append(float(o[1]))  # sure alone; the right total only confirms it
            continue
        # This blob right and the others summing to zero, over a right total.
        others = np.ones(1)
        for j, q in enumerate(odds):
            if j != i:
                others = np.convolve(others, q)
        each.append(float(o[1] * others[len(blobs) - 1] / max(right_total, 1e-12)))
    return all_right / max(right_total, 1e-12), each
