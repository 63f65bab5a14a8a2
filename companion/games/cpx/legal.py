"""``legal_commands``: what may be done now, for the dashboard's buttons and the AI.

Where the choices are too many to list (a hand from a large collection, a drop's counts), one
or a few representative commands stand for them; every listed command is accepted by ``apply``.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from companion.engine import Command, IllegalMove

from . import abilities
from .ctx import Ctx
from .data import COLOURS, RESPONSE_KINDS, ROUTE_ALLOWS
from .flow import CAP, own_bases
from .moves import retreat_allowed
from .state import BATTLE, CHOOSE_START, HAND, HAND_CHOICE, MOVE, OVER, RECRUIT

MAX_HAND_OPTIONS = 21
MAX_TARGETS = 12


def legal_commands(ctx: Ctx) -> list[Command]:
    s = ctx.s
    if s.phase == OVER:
        return []
    if s.prompt is not None:
        return _prompt_answers(ctx)
    if s.drop is not None:
        if s.drop["report"] is not None:
            return [Command("confirm_drop", {})]
        # Representative: a report that nothing fell out always passes the ledger (CPX-106).
        return [Command("report_drop", {"counts": {c: 0 for c in COLOURS}})]
    if s.phase == CHOOSE_START:
        seat = s.choosers_left[0]
        colour = s.colour_of(seat)
        return [
            Command("choose_start", {"base": b.id}, seat=seat)
            for b in ctx.d.bases
            if b.faction_colour == colour
        ]
    if s.phase == HAND_CHOICE:
        out = []
        for seat, p in enumerate(s.players):
            if not p["hand_chosen"]:
                out += [Command("choose_hand", {"cards": h}, seat=seat) for h in hands(ctx, seat)]
        return out
    out: list[Command] = []
    if s.stack and not s.resolving:
        for seat in abilities.responders(ctx):
            out += activations_for(ctx, seat)
            if seat not in s.passes:
                out.append(Command("pass", {}, seat=seat))
        return out
    if s.phase == RECRUIT:
        if s.acting is not None:
            for base in own_bases(ctx, s.acting):
                if base not in s.blocked:
                    out.append(Command("recruit", {"base": base}, seat=s.acting))
        for seat in abilities.window_players(ctx):
            out += activations_for(ctx, seat)
    elif s.phase == MOVE and s.acting is not None:
        seat = s.acting
        out += attacks_for(ctx, seat)
        out += retreats_for(ctx, seat)
        out += activations_for(ctx, seat)
        out.append(Command("end_move", {}, seat=seat))
    elif s.phase == BATTLE and s.window in ("pre_drop", "after_drop"):
        for seat in abilities.window_players(ctx):
            out += activations_for(ctx, seat)
            if seat not in s.passes:
                out.append(Command("pass", {}, seat=seat))
    return out


def hands(ctx: Ctx, seat: int) -> list[list[str]]:
    """All hands of min(5, n) cards when they are few, else n windows over the sorted cards."""
    cards = ctx.s.cards_of(seat)
    k = min(5, len(cards))
    combos = list(combinations(cards, k))
    if len(combos) <= MAX_HAND_OPTIONS:
        return [list(c) for c in combos]
    n = len(cards)
    return [sorted(cards[(i + j) % n] for j in range(k)) for i in range(n)]


def _prompt_answers(ctx: Ctx) -> list[Command]:
    s = ctx.s
    p = s.prompt
    assert p is not None
    seat = p["seat"]
    if p["kind"] == "smoke_discard":
        out = [Command("smoke_discard", {"card": "none"}, seat=seat)]
        out += [Command("smoke_discard", {"card": c}, seat=seat) for c in s.cards_of(seat, HAND)]
        return out
    avail = p["available"]
    colours = sorted(avail)
    out = [Command("choose_units", {"mix": dict(p["proposal"])}, seat=seat)]
    if len(colours) == 2:
        a, b = colours
        for n in range(0, p["r"] + 1):
            mix = {a: n, b: p["r"] - n}
            if n <= avail[a] and p["r"] - n <= avail[b]:
                mix = {c: v for c, v in mix.items() if v}
                if mix != p["proposal"]:
                    out.append(Command("choose_units", {"mix": mix}, seat=seat))
    return out


def attacks_for(ctx: Ctx, seat: int) -> list[Command]:
    """Every legal attack of CPX-56 (default reading: no paired card)."""
    s = ctx.s
    d = ctx.d
    colour = s.colour_of(seat)
    camp = s.players[seat]["camp"]
    hand = [c for c in s.cards_of(seat, HAND)]
    out = []
    for origin in own_bases(ctx, seat):
        own = s.units_of(origin, colour)
        if own < 1:
            continue
        friendly = ctx.friendly_units(origin, seat)
        most = own - 1 if s.options["leave_one_own_colour"] else min(own, friendly - 1)
        for target, route in d.adjacency[origin].items():
            if ctx.is_friendly(target, seat):
                continue
            room = CAP - s.camp_units(target, camp) if s.options["cap_applies_to_attacks"] else CAP
            top = min(most, room) if s.options["cap_applies_to_attacks"] else most
            if top < 1:
                continue
            for card in hand:
                if d.card_by_id[card].type not in ROUTE_ALLOWS[route]:
                    continue
                for units in range(1, top + 1):
                    out.append(
                        Command(
                            "attack",
                            {"from": origin, "to": target, "units": units, "card": card},
                            seat=seat,
                        )
                    )
    return out


def retreats_for(ctx: Ctx, seat: int) -> list[Command]:
    s = ctx.s
    camp = s.players[seat]["camp"]
    out = []
    for base in own_bases(ctx, seat):
        if not retreat_allowed(ctx, seat, base):
            continue
        moving = s.camp_units(base, camp)
        for dest in ctx.d.adjacency[base]:
            if ctx.is_friendly(dest, seat) and s.camp_units(dest, camp) + moving <= CAP:
                out.append(Command("retreat", {"base": base, "to": dest}, seat=seat))
    return out


def _splits(pool: dict[str, int], want: int) -> list[dict[str, int]]:
    colours = sorted(c for c, n in pool.items() if n)
    out: list[dict[str, int]] = []

    def rec(i: int, left: int, acc: dict[str, int]) -> None:
        if i == len(colours):
            if left == 0:
                out.append({c: n for c, n in acc.items() if n})
            return
        c = colours[i]
        for n in range(min(left, pool[c]), -1, -1):
            acc[c] = n
            rec(i + 1, left - n, acc)
        acc.pop(c, None)

    rec(0, want, {})
    return out[:8]


def _candidate_targets(
    ctx: Ctx, seat: int, kind: str, params: dict[str, Any]
) -> list[dict[str, Any]]:
    s = ctx.s
    camp = s.players[seat]["camp"]
    b = s.battle
    if kind in ("cancel_one", "smoke"):
        return [{"activation": a["id"]} for a in s.stack if a["camp"] != camp]
    if kind == "cancel_by_type":
        ids = [a["id"] for a in s.stack if a["camp"] != camp]
        return [{"activations": [i]} for i in ids] + [
            {"activations": list(p)} for p in combinations(ids, 2) if params["max"] >= 2
        ]
    if kind == "block_recruit":
        return [{"base": base.id} for base in ctx.d.bases]
    if kind == "cancel_attack_by_type":
        if s.options["sea_wing_types"] == "choose_one" and len(params["types"]) > 1:
            return [{"type": t} for t in params["types"]]
        return [{}]
    colour = s.colour_of(seat)
    if kind in ("single_move", "transport_adjacent", "multi_move", "paradrop"):
        mine = [x for x in own_bases(ctx, seat) if s.units_of(x, colour)]
        friendly = {x.id for x in ctx.d.bases if ctx.is_friendly(x.id, seat)}
    if kind == "single_move":
        out = []
        for origin in mine:
            dests = [x for x in ctx.d.adjacency[origin] if x in friendly]
            if b is not None:
                dests.insert(0, b["base"])
            out += [{"from": origin, "to": x} for x in dests[:3]]
        return out[:MAX_TARGETS]
    if kind == "transport_adjacent":
        out = []
        for origin in mine:
            n = s.units_of(origin, colour)
            out += [
                {"from": origin, "moves": [{"to": x, "units": n}]}
                for x in ctx.d.adjacency[origin]
                if x in friendly
            ]
        return out[:MAX_TARGETS]
    if kind == "multi_move":
        out = []
        for origin in sorted(x for x in s.units if s.units_of(x, colour)):
            reach = ctx.d.within_steps(origin, params["steps"])
            out += [
                {"moves": [{"from": origin, "to": x, "units": 1}]} for x in reach if x in friendly
            ][:2]
        return out[:MAX_TARGETS]
    if kind == "pair_protect":
        out = []
        for cid in s.cards_of(seat, HAND):
            card = ctx.d.card_by_id[cid]
            if not any(card.counts_as(t) for t in params["types"]):
                continue
            for ab in card.abilities:
                for inner in _candidate_targets(ctx, seat, ab.kind, dict(ab.params))[:3]:
                    out.append({"paired_card": cid, "ability": ab.id, "targets": inner})
        return out[:MAX_TARGETS]
    if b is None:
        return [{}]
    base = b["base"]
    if kind == "paradrop":
        return [
            {"origin": x, "units": n}
            for x in ctx.d.adjacency[base]
            if x in mine
            for n in range(1, min(params["max"], s.units_of(x, colour)) + 1)
        ][:MAX_TARGETS]
    if kind == "displace_units":
        here = s.units.get(base, {})
        any_camp = s.options["shrink_ray_units"] == "any"
        out = []
        for c in sorted(here):
            owner = s.seat_of_colour(c)
            if not any_camp and s.players[owner]["camp"] == camp:
                continue
            dests = [
                x
                for x in ctx.d.adjacency[base]
                if ctx.is_friendly(x, owner) and ctx.friendly_units(x, owner) < CAP
            ]
            out.append({"units": [{"colour": c, "to": dests[0] if dests else "pool"}]})
        return out
    enemy = {
        c: n
        for c, n in s.units.get(base, {}).items()
        if s.players[s.seat_of_colour(c)]["camp"] != camp
    }
    e = sum(enemy.values())
    if kind == "destroy_units":
        return [{"units": m} for m in _splits(enemy, min(params["n"], e))] if e else []
    if kind == "sacrifice_destroy":
        return [{"units": m} for m in _splits(enemy, min(params["destroy"], e))] if e else []
    if kind == "set_aside_half":
        return [{"units": m} for m in _splits(enemy, e // 2)] if e >= 2 else []
    if kind == "bind_half":
        k = min(s.units_of(base, s.colour_of(seat)) // 2, e)
        return [{"units": m} for m in _splits(enemy, k)] if k else []
    return [{}]


def activations_for(ctx: Ctx, seat: int) -> list[Command]:
    """Activations of the seat's usable cards that pass every check of ``activate`` now."""
    s = ctx.s
    window = abilities.current_window(ctx)
    out = []
    for cid, c in s.cards.items():
        if c["holder"] != seat or c["place"] not in (HAND, "committed"):
            continue
        card = ctx.d.card_by_id[cid]
        for ab in card.abilities:
            if not _worth_trying(ctx, seat, ab, window):
                continue
            for targets in _candidate_targets(ctx, seat, ab.kind, dict(ab.params)):
                cmd_args: dict[str, Any] = {"card": cid, "ability": ab.id, "targets": targets}
                if ab.kind == "pair_protect":
                    cmd_args["paired_card"] = targets["paired_card"]
                    cmd_args["targets"] = {k: v for k, v in targets.items() if k != "paired_card"}
                try:
                    abilities.validate(ctx, seat, cmd_args)
                except IllegalMove:
                    continue
                out.append(Command("activate", cmd_args, seat=seat))
    return out


def _worth_trying(ctx: Ctx, seat: int, ab: Any, window: str | None) -> bool:
    """Cheap filters (window, side, a pending target) before the exact trial by ``apply``."""
    if ab.kind == "pair_protect":
        return ctx.s.options["all_terrain_reading"] == "protect" and window not in (
            None,
            "response",
        )
    if ab.kind in RESPONSE_KINDS:
        return bool(ctx.s.stack)
    if not abilities._fits_window(ab, window):
        return False
    if ab.side in ("attacker", "defender"):
        return abilities._side_of(ctx, seat) == ab.side
    return True
