"""Abilities that move units (CPX-116): Paratroopers, Shrink Ray, Combustion Boost, Part-time
Transport and Rapid Deployment — their target checks (at activation) and moves (at resolution).

Moves use routes of any colour and need no route card; every destination respects the cap of 10
friendly units; an origin may be left empty unless ``card_moves_leave_one``.
"""

from __future__ import annotations

from typing import Any

from .ctx import Ctx, fail
from .data import Ability
from .flow import CAP

Targets = dict[str, Any]


def _count(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        fail("E_TARGET_INVALID", f"Name a whole number of {what}.")
    return value


def _base(ctx: Ctx, value: Any) -> str:
    if not isinstance(value, str) or value not in ctx.d.base_by_id:
        fail("E_TARGET_INVALID", f"There is no base '{value}'.")
    return value


def _leave_one(ctx: Ctx, seat: int, origin: str, leaving: int) -> None:
    """G47 option: check 7 of CPX-56 for card moves."""
    if ctx.s.options["card_moves_leave_one"] and ctx.friendly_units(origin, seat) - leaving < 1:
        fail(
            "E_MUST_LEAVE_ONE", f"At least one friendly unit must stay on {ctx.base_name(origin)}."
        )


def _battle_base(ctx: Ctx) -> str:
    b = ctx.s.battle
    if b is None:
        fail("E_ABILITY_WINDOW", "That ability is used in a battle.")
    return b["base"]


def _room(ctx: Ctx, base: str, seat: int, extra: dict[str, int]) -> int:
    return CAP - ctx.friendly_units(base, seat) - extra.get(base, 0)


# --- Paratroopers (CPX-120) -------------------------------------------------------------------


def check_paradrop(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    s = ctx.s
    field = _battle_base(ctx)
    colour = s.colour_of(seat)
    near = [b for b in ctx.d.adjacency[field] if ctx.owner(b) == seat and s.units_of(b, colour)]
    if not near:
        fail("E_ABILITY_CONDITION", "None of your bases next to the battlefield has your units.")
    origin = t.get("origin")
    if not isinstance(origin, str) or origin not in ctx.d.base_by_id or ctx.owner(origin) != seat:
        fail("E_TARGET_INVALID", "The origin must be one of your own bases.")
    if ctx.d.route(origin, field) is None:
        fail("E_NOT_ADJACENT", f"{ctx.base_name(origin)} is not next to the battlefield.")
    n = _count(t.get("units"), "units")
    if not 1 <= n <= min(ab.params["max"], s.units_of(origin, colour)):
        fail("E_TARGET_INVALID", f"Move 1 to {ab.params['max']} of your units that stand there.")
    if s.camp_units(field, s.players[seat]["camp"]) + n > CAP:
        fail("E_CAP_EXCEEDED", f"Your camp would have more than {CAP} units on the battlefield.")
    _leave_one(ctx, seat, origin, n)
    return {"moves": [{"from": origin, "to": field, "colour": colour, "units": n}]}


# --- Shrink Ray (CPX-122) -------------------------------------------------------------------


def check_displace(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    s = ctx.s
    field = _battle_base(ctx)
    camp = s.players[seat]["camp"]
    any_camp = s.options["shrink_ray_units"] == "any"
    here = s.units.get(field, {})
    eligible = {
        c: n for c, n in here.items() if any_camp or s.players[s.seat_of_colour(c)]["camp"] != camp
    }
    if not eligible:
        fail("E_ABILITY_CONDITION", "No unit on the battlefield can be moved.")
    picks = t.get("units")
    if not isinstance(picks, list) or not 1 <= len(picks) <= ab.params["max"]:
        fail("E_TARGET_INVALID", f"Name 1 to {ab.params['max']} units, each with a destination.")
    used: dict[str, int] = {}
    sent: dict[str, int] = {}
    moves = []
    for pick in picks:
        colour = pick.get("colour") if isinstance(pick, dict) else None
        if colour not in eligible or used.get(colour, 0) >= eligible[colour]:
            fail("E_TARGET_INVALID", "Name units that stand on the battlefield and may be moved.")
        used[colour] = used.get(colour, 0) + 1
        owner = s.seat_of_colour(colour)
        assert owner is not None
        dest = pick.get("to")
        options = [
            b
            for b in ctx.d.adjacency[field]
            if ctx.is_friendly(b, owner) and _room(ctx, b, owner, sent) > 0
        ]
        if dest == "pool":
            if options:
                fail("E_TARGET_INVALID", "A base next to the battlefield can take that unit.")
        else:
            dest = _base(ctx, dest)
            if ctx.d.route(field, dest) is None:
                fail("E_NOT_ADJACENT", f"{ctx.base_name(dest)} is not next to the battlefield.")
            if not ctx.is_friendly(dest, owner):
                fail("E_TARGET_INVALID", f"{ctx.base_name(dest)} is not friendly to that unit.")
            if _room(ctx, dest, owner, sent) <= 0:
                fail("E_CAP_EXCEEDED", f"{ctx.base_name(dest)} has no room for that unit.")
            sent[dest] = sent.get(dest, 0) + 1
        moves.append({"from": field, "to": dest, "colour": colour, "units": 1})
    return {"moves": moves}


# --- Combustion Boost (CPX-124) -----------------------------------------------------------------


def check_single_move(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    s = ctx.s
    colour = s.colour_of(seat)
    origin = t.get("from")
    if (
        not isinstance(origin, str)
        or origin not in ctx.d.base_by_id
        or ctx.owner(origin) != seat
        or not s.units_of(origin, colour)
    ):
        fail("E_TARGET_INVALID", "Move one of your units from one of your own bases.")
    n = _count(t.get("units", 1), "units")
    most = s.units_of(origin, colour) if s.options["combustion_boost_units"] == "any_number" else 1
    if not 1 <= n <= most:
        fail("E_TARGET_INVALID", f"{ab.name_en} moves {'1' if most == 1 else '1 or more'} unit(s).")
    dest = _base(ctx, t.get("to"))
    field = s.battle["base"] if s.battle is not None and s.window == "pre_drop" else None
    if dest == origin or not (ctx.is_friendly(dest, seat) or dest == field):
        fail("E_TARGET_INVALID", "The destination is another friendly base or the battlefield.")
    if ctx.friendly_units(dest, seat) + n > CAP:
        fail("E_CAP_EXCEEDED", f"{ctx.base_name(dest)} would hold more than {CAP} friendly units.")
    _leave_one(ctx, seat, origin, n)
    return {"moves": [{"from": origin, "to": dest, "colour": colour, "units": n}]}


# --- Part-time Transport (CPX-127) ----------------------------------------------------------


def check_transport(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    s = ctx.s
    colour = s.colour_of(seat)
    origin = t.get("from")
    if not isinstance(origin, str) or origin not in ctx.d.base_by_id or ctx.owner(origin) != seat:
        fail("E_TARGET_INVALID", "The origin must be one of your own bases.")
    legs = t.get("moves")
    two_steps = s.options["transport_reading"] == "two_steps"
    most_legs = 1 if two_steps else ab.params["destinations"]
    if not isinstance(legs, list) or not 1 <= len(legs) <= most_legs:
        fail("E_TARGET_INVALID", f"Name 1 to {most_legs} destinations.")
    reach = ctx.d.within_steps(origin, 2) if two_steps else ctx.d.adjacency[origin]
    dests = []
    for leg in legs:
        dest = leg.get("to") if isinstance(leg, dict) else None
        if not isinstance(dest, str) or dest not in reach:
            fail("E_NOT_ADJACENT", f"{ctx.base_name(str(dest))} is out of reach.")
        dests.append(dest)
    if len(set(dests)) != len(dests):
        fail("E_TARGET_INVALID", "Name each destination once.")
    for dest in dests:
        if not ctx.is_friendly(dest, seat):
            fail("E_TARGET_INVALID", f"{ctx.base_name(dest)} is not a friendly base.")
    counts = [_count(leg.get("units"), "units") for leg in legs]
    if any(n < 1 for n in counts) or sum(counts) > s.units_of(origin, colour):
        fail("E_TARGET_INVALID", "Move at least 1 unit to each destination, from what is there.")
    for dest, n in zip(dests, counts, strict=True):
        if ctx.friendly_units(dest, seat) + n > CAP:
            fail("E_CAP_EXCEEDED", f"{ctx.base_name(dest)} would hold more than {CAP} units.")
    _leave_one(ctx, seat, origin, sum(counts))
    return {
        "moves": [
            {"from": origin, "to": d, "colour": colour, "units": n}
            for d, n in zip(dests, counts, strict=True)
        ]
    }


# --- Rapid Deployment (CPX-139) ---------------------------------------------------------------


def check_multi_move(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    s = ctx.s
    colour = s.colour_of(seat)
    legs = t.get("moves")
    if not isinstance(legs, list) or not legs:
        fail("E_TARGET_INVALID", f"Name 1 to {ab.params['count']} of your units to move.")
    taken: dict[str, int] = {}
    total = 0
    for leg in legs:
        origin = leg.get("from") if isinstance(leg, dict) else None
        n = _count(leg.get("units", 1) if isinstance(leg, dict) else None, "units")
        if not isinstance(origin, str) or n < 1:
            fail("E_TARGET_INVALID", "Each move names a base of your units and a number.")
        taken[origin] = taken.get(origin, 0) + n
        total += n
        if taken[origin] > s.units_of(origin, colour):
            fail("E_TARGET_INVALID", f"Not that many of your units stand on {origin}.")
    if total > ab.params["count"]:
        fail("E_TARGET_INVALID", f"{ab.name_en} moves at most {ab.params['count']} units.")
    for leg in legs:
        dest = leg.get("to")
        if (
            not isinstance(dest, str)
            or dest not in ctx.d.base_by_id
            or not ctx.is_friendly(dest, seat)
        ):
            fail("E_TARGET_INVALID", f"{ctx.base_name(str(dest))} is not a friendly base.")
    arriving: dict[str, int] = {}
    for leg in legs:
        dest = leg["to"]
        if dest not in ctx.d.within_steps(leg["from"], ab.params["steps"]):
            fail(
                "E_NOT_ADJACENT",
                f"{ctx.base_name(dest)} is more than {ab.params['steps']} steps from "
                f"{ctx.base_name(leg['from'])}.",
            )
        arriving[dest] = arriving.get(dest, 0) + leg.get("units", 1)
    for dest, n in arriving.items():
        leaving = taken.get(dest, 0)
        if ctx.friendly_units(dest, seat) - leaving + n > CAP:
            fail("E_CAP_EXCEEDED", f"{ctx.base_name(dest)} would hold more than {CAP} units.")
    for origin, n in taken.items():
        if ctx.owner(origin) == seat:
            _leave_one(ctx, seat, origin, n)
    return {
        "moves": [
            {"from": leg["from"], "to": leg["to"], "colour": colour, "units": leg.get("units", 1)}
            for leg in legs
        ]
    }


# --- the move itself, at resolution -----------------------------------------------------------


def effect_moves(ctx: Ctx, act: dict[str, Any]) -> None:
    s = ctx.s
    for m in act["targets"]["moves"]:
        n = min(m["units"], s.units_of(m["from"], m["colour"]))
        if not n:
            continue
        s.add_units(m["from"], m["colour"], -n)
        if m["to"] == "pool":
            s.pools[m["colour"]] += n
        else:
            s.add_units(m["to"], m["colour"], n)
        ctx.emit(
            "units_moved",
            origin=m["from"],
            to=m["to"],
            colour=m["colour"],
            units=n,
            table=f"Move {n} {m['colour']} from {ctx.base_name(m['from'])} to "
            f"{'the pool' if m['to'] == 'pool' else ctx.base_name(m['to'])}.",
        )
