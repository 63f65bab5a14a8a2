"""The tower ledger (§10): what the tower must contain, the checks on a drop report, and the
conservation of cubes that every accepted request must keep.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .ctx import Ctx, fail
from .data import COLOURS
from .state import State


def check_report(s: State, counts: Any) -> dict[str, int]:
    """CPX-106: every count a non-negative integer of a known colour, then ``out <= T + in``."""
    drop = s.drop
    assert drop is not None
    if not isinstance(counts, Mapping):
        fail("E_COUNT_INVALID", "A drop report must give a count for each colour.")
    out: dict[str, int] = {}
    for colour, n in counts.items():
        if colour not in COLOURS:
            fail("E_COUNT_INVALID", f"'{colour}' is not a cube colour.", colour=colour)
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            fail(
                "E_COUNT_INVALID",
                f"The count of {colour} cubes must be a whole number of 0 or more, not {n!r}.",
                colour=colour,
            )
        out[colour] = n
    for colour in COLOURS:
        n = out.get(colour, 0)
        most = s.tower.get(colour, 0) + drop["input"].get(colour, 0)
        if n > most:
            fail(
                "E_LEDGER_IMPOSSIBLE",
                f"{n} {colour} cubes cannot have fallen out: only {most} could "
                f"({s.tower.get(colour, 0)} inside the tower, {drop['input'].get(colour, 0)} "
                "dropped). Please count again.",
                colour=colour,
                reported=n,
                most=most,
            )
    return {c: out.get(c, 0) for c in COLOURS if out.get(c, 0)}


def apply_drop_to_tower(s: State, inp: Mapping[str, int], out: Mapping[str, int]) -> None:
    """CPX-107 step 2: ``T[c] := T[c] + in[c] - out[c]`` for every colour in play."""
    for colour in s.supply:
        value = s.tower.get(colour, 0) + inp.get(colour, 0) - out.get(colour, 0)
        assert value >= 0, "the report was checked against the ledger"
        s.tower[colour] = value


def colour_totals(s: State) -> dict[str, int]:
    """CPX-13: for each colour in play, the cubes counted over every place a cube can be."""
    totals = {c: 0 for c in s.supply}
    for colour in totals:
        totals[colour] += s.pools.get(colour, 0) + s.markers.get(colour, 0)
        totals[colour] += s.tower.get(colour, 0) + s.out_tray.get(colour, 0)
        totals[colour] += s.bound.get(colour, 0)
    for here in s.units.values():
        for colour, n in here.items():
            totals[colour] += n
    for entry in s.set_aside:
        totals[entry["colour"]] += entry["count"]
    if s.battle is not None:
        for entry in s.battle["bonus"]:
            if entry["active"]:
                totals[entry["colour"]] += entry["count"]
    return totals


def check_conservation(ctx: Ctx) -> None:
    """CPX-110: a failure is an engine bug; raising undoes the request that caused it."""
    totals = colour_totals(ctx.s)
    for colour, total in totals.items():
        if total != ctx.s.supply[colour]:
            raise AssertionError(
                f"cube conservation broken for {colour}: {total} != {ctx.s.supply[colour]}"
            )
