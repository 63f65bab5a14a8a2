"""The move phase (§6): attacks along routes with a route card, retreats, and the end of a move
turn. Nothing is resolved here: attacking units wait on their target for the battle phase.
"""

from __future__ import annotations

from typing import Any

from .battle import earliest_attack
from .ctx import Ctx, fail
from .data import ROUTE_ALLOWS
from .flow import CAP, counts, markers_and_checks, next_mover
from .state import COMMITTED, DISCARD, HAND, MOVE, PLAYED


def _move_turn(ctx: Ctx, seat: int) -> None:
    s = ctx.s
    if s.phase != MOVE:
        fail("E_WRONG_PHASE", "Attacks and retreats belong to the move phase.")
    if s.acting != seat:
        who = ctx.faction_name(s.acting) if s.acting is not None else "nobody"
        fail("E_NOT_YOUR_TURN", f"It is {who}'s move turn.")


def _base(ctx: Ctx, value: Any) -> str:
    return value if isinstance(value, str) else ""


def card_in_hand(ctx: Ctx, seat: int, card: Any) -> str:
    """Check 8 of CPX-56: the card is in his hand (spent and committed cards are not)."""
    c = ctx.s.cards.get(card) if isinstance(card, str) else None
    if c is None or c["holder"] != seat:
        fail("E_CARD_NOT_IN_HAND", f"{ctx.card_name(str(card))} is not in your hand.")
    if c["place"] == PLAYED:
        fail("E_CARD_SPENT", f"{ctx.card_name(card)} has already been used this round.")
    if c["place"] != HAND:
        where = "committed to an attack" if c["place"] == COMMITTED else "in your discard pile"
        fail("E_CARD_NOT_IN_HAND", f"{ctx.card_name(card)} is {where}, not in your hand.")
    return card


def attack(ctx: Ctx, seat: int, args: dict[str, Any]) -> None:
    """CPX-56..CPX-60, with the checks in the spec's order."""
    s = ctx.s
    d = ctx.d
    _move_turn(ctx, seat)
    origin = _base(ctx, args.get("from"))
    target = _base(ctx, args.get("to"))
    units = args.get("units")
    card = args.get("card")
    paired = args.get("paired_card")
    colour = s.colour_of(seat)
    if origin not in d.base_by_id or ctx.owner(origin) != seat:
        fail("E_NOT_OWN_BASE", f"{ctx.base_name(origin)} is not one of your bases.")
    route = d.route(origin, target)
    if route is None:
        fail(
            "E_NOT_ADJACENT", f"No route joins {ctx.base_name(origin)} and {ctx.base_name(target)}."
        )
    if ctx.is_friendly(target, seat):
        fail("E_TARGET_FRIENDLY", f"{ctx.base_name(target)} is a friendly base.")
    if not isinstance(units, int) or isinstance(units, bool):
        fail("E_BAD_REQUEST", "An attack names a whole number of units.")
    if units < 1:
        fail("E_NO_UNITS", "An attack moves at least one unit.")
    own_here = s.units_of(origin, colour)
    if units > own_here:
        fail(
            "E_UNITS_NOT_THERE", f"Only {own_here} of your units stand on {ctx.base_name(origin)}."
        )
    left = (
        own_here - units
        if s.options["leave_one_own_colour"]
        else (ctx.friendly_units(origin, seat) - units)
    )
    if left < 1:
        fail("E_MUST_LEAVE_ONE", f"At least one unit must stay on {ctx.base_name(origin)}.")
    card_in_hand(ctx, seat, card)
    route_mode = s.options["all_terrain_reading"] == "route"
    if paired is not None:
        if not route_mode:
            fail(
                "E_TARGET_INVALID",
                "A paired card is only played with an attack under the route "
                "reading of All-terrain Traverse.",
            )
        card_in_hand(ctx, seat, paired)
        pc = d.card_by_id[paired]
        if paired == card or not any(a.kind == "pair_protect" for a in pc.abilities):
            fail("E_TARGET_INVALID", f"{ctx.card_name(paired)} cannot be paired with an attack.")
        ctype = d.card_by_id[card]
        types = next(a.params["types"] for a in pc.abilities if a.kind == "pair_protect")
        if not any(ctype.counts_as(t) for t in types):
            fail("E_ROUTE_TYPE", f"{ctx.card_name(card)} is not a land card.")
    else:
        ctype = d.card_by_id[card]
        if ctype.type not in ROUTE_ALLOWS[route]:
            allowed = ", ".join(sorted(ROUTE_ALLOWS[route]))
            fail(
                "E_ROUTE_TYPE",
                f"A {route} route allows only {allowed} cards; {ctx.card_name(card)} is "
                f"{ctype.type}.",
            )
    camp = s.players[seat]["camp"]
    if s.options["cap_applies_to_attacks"] and s.camp_units(target, camp) + units > CAP:
        fail(
            "E_CAP_EXCEEDED",
            f"Your camp would have {s.camp_units(target, camp) + units} units on "
            f"{ctx.base_name(target)}; the cap is {CAP}.",
        )
    s.add_units(origin, colour, -units)
    s.add_units(target, colour, units)
    seq = len(s.attacks) + 1
    s.attacks.append(
        {
            "seq": seq,
            "player": seat,
            "from": origin,
            "to": target,
            "units": units,
            "route": route,
            "card": card,
            "paired_card": paired,
        }
    )
    place = COMMITTED if s.options["routing_card_usable"] else PLAYED
    for c in (card, paired):
        if c is not None:
            s.cards[c] = {
                "holder": seat,
                "place": place,
                "attack": seq if place == COMMITTED else None,
            }
    ctx.emit(
        "attacked",
        seat=seat,
        seq=seq,
        origin=origin,
        target=target,
        units=units,
        route=route,
        card=card,
        table=f"Move {units} {colour} from {ctx.base_name(origin)} to {ctx.base_name(target)}.",
    )


def retreat_allowed(ctx: Ctx, seat: int, base: str) -> bool:
    """Check 3 of CPX-61: hostile units entered by an attack this round, and some are there."""
    s = ctx.s
    camp = s.players[seat]["camp"]
    for a in s.attacks:
        p = s.players[a["player"]]
        if a["to"] == base and p["camp"] != camp and s.units_of(base, p["colour"]) > 0:
            return True
    return False


def retreat(ctx: Ctx, seat: int, args: dict[str, Any]) -> None:
    """CPX-61 and CPX-62: all friendly units leave; the card goes to the lead attacker."""
    s = ctx.s
    d = ctx.d
    _move_turn(ctx, seat)
    base = _base(ctx, args.get("base"))
    dest = _base(ctx, args.get("to"))
    if base not in d.base_by_id or ctx.owner(base) != seat:
        fail("E_NOT_OWN_BASE", f"{ctx.base_name(base)} is not one of your bases.")
    if not retreat_allowed(ctx, seat, base):
        fail(
            "E_RETREAT_NOT_ALLOWED",
            f"No hostile attack stands on {ctx.base_name(base)}: there is nothing to retreat from.",
        )
    if d.route(base, dest) is None:
        fail("E_NOT_ADJACENT", f"No route joins {ctx.base_name(base)} and {ctx.base_name(dest)}.")
    if not ctx.is_friendly(dest, seat):
        fail("E_TARGET_INVALID", f"{ctx.base_name(dest)} is not a friendly base.")
    camp = s.players[seat]["camp"]
    moving = {c: s.units_of(base, c) for c in s.camp_colours(camp) if s.units_of(base, c)}
    total = s.camp_units(dest, camp) + sum(moving.values())
    if total > CAP:
        fail(
            "E_CAP_EXCEEDED",
            f"{ctx.base_name(dest)} would hold {total} friendly units; the cap is {CAP}.",
        )
    before = counts(ctx)
    for colour, n in moving.items():
        s.add_units(base, colour, -n)
        s.add_units(dest, colour, n)
    first = earliest_attack(ctx, base, ctx.other_camp(camp))
    assert first is not None
    lead = first["player"]
    card = d.card_of_base[base]
    s.cards[card] = {"holder": lead, "place": DISCARD, "attack": None}
    moved = ", ".join(f"{n} {c}" for c, n in moving.items()) or "no units"
    ctx.emit(
        "retreated",
        seat=seat,
        base=base,
        to=dest,
        card=card,
        captor=lead,
        table=f"Move {moved} from {ctx.base_name(base)} to {ctx.base_name(dest)}; give "
        f"{ctx.card_name(card)} to {ctx.faction_name(lead)}.",
    )
    markers_and_checks(ctx, before)


def end_move(ctx: Ctx, seat: int) -> None:
    _move_turn(ctx, seat)
    ctx.emit("move_ended", seat=seat)
    next_mover(ctx)
