"""``legal_commands`` and ``count_forms``: everything that may be done now, and nothing else.

Together they are complete and exact: ``apply`` accepts a request exactly when it is listed or
admitted by a count form (in the spelling of :mod:`.shape`). Choices made of counts are forms:
a drop's counts (CPX-106), the mix of cubes a prompt asks for (CPX-86), a hand as 0/1 counts
per card (CPX-46) and Rapid Deployment's moves as counts per route (CPX-139); ``legal_commands``
lists a few useful instances of each. Every other choice (attacks with their card or paired
cards, retreats, every target of every ability) is listed one by one: their numbers stay in
the low thousands at most (measured in tests/cpx/test_properties.py and the bench).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations, product
from typing import Any

from companion.engine import Command, CountForm, IllegalMove, Limit

from . import abilities
from .ctx import Ctx
from .data import COLOURS, RESPONSE_KINDS, ROUTE_ALLOWS, Ability
from .flow import CAP, own_bases
from .moves import retreat_allowed
from .shape import SOURCES, offer_spelling, route_key
from .state import BATTLE, CHOOSE_START, COMMITTED, HAND, HAND_CHOICE, MOVE, OVER, RECRUIT

MAX_HAND_OPTIONS = 21
"""Hands listed as quick choices; the hand form admits every hand."""
MAX_SAMPLES = 12
"""Instances of a Rapid Deployment form listed as quick choices."""


def legal_commands(ctx: Ctx) -> list[Command]:
    s = ctx.s
    if s.phase == OVER:
        return []
    if s.prompt is not None:
        return _prompt_answers(ctx)
    if s.drop is not None:
        if s.drop["report"] is not None:
            return [Command("confirm_drop", {})]
        # A quick choice: nothing fell out always passes the ledger (CPX-106). The forms
        # admit every other possible report.
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


def count_forms(ctx: Ctx) -> list[CountForm]:
    """The legal requests made of counts, as forms (see the module's docstring)."""
    s = ctx.s
    if s.phase == OVER:
        return []
    p = s.prompt
    if p is not None:
        if p["kind"] != "choose_units":
            return []
        avail = p["available"]
        return [
            CountForm(
                "choose_units",
                p["seat"],
                {c: (0, n) for c, n in sorted(avail.items())},
                [Limit("cubes", {c: 1 for c in avail}, min=p["r"], max=p["r"])],
                within="mix",
            )
        ]
    if s.drop is not None:
        return _drop_forms(ctx)
    if s.phase == HAND_CHOICE:
        out = []
        for seat, player in enumerate(s.players):
            if player["hand_chosen"]:
                continue
            cards = s.cards_of(seat)
            out.append(
                CountForm(
                    "choose_hand",
                    seat,
                    {c: (0, 1) for c in cards},
                    [Limit("cards", {c: 1 for c in cards}, max=5)],
                    within="cards",
                )
            )
        return out
    return [f for seat in _acting_seats(ctx) for f in _multi_move_forms(ctx, seat)]


def _drop_forms(ctx: Ctx) -> list[CountForm]:
    """CPX-106: each colour from 0 to what the tower holds plus what was dropped. A report
    replaces a provisional one (CPX-83), so the forms stay until the drop is confirmed."""
    s = ctx.s
    drop = s.drop
    assert drop is not None
    most = {c: s.tower.get(c, 0) + drop["input"].get(c, 0) for c in COLOURS}
    counts = {c: (0, n) for c, n in most.items()}
    limits = [Limit("cubes out", {c: 1 for c in COLOURS}, max=sum(most.values()))]
    fixed: list[dict[str, Any]] = [{}] + [{"source": src} for src in SOURCES]
    return [CountForm("report_drop", None, counts, limits, f, within="counts") for f in fixed]


def _acting_seats(ctx: Ctx) -> list[int]:
    """Seats that may activate a card now (the same seats ``legal_commands`` asks)."""
    s = ctx.s
    if s.stack and not s.resolving:
        return abilities.responders(ctx)
    if s.phase == RECRUIT or (s.phase == BATTLE and s.window in ("pre_drop", "after_drop")):
        return abilities.window_players(ctx)
    if s.phase == MOVE and s.acting is not None:
        return [s.acting]
    return []


def hands(ctx: Ctx, seat: int) -> list[list[str]]:
    """Quick choices: all hands of min(5, n) cards when they are few, else n windows over the
    sorted cards. The hand form admits every hand of 0 to 5 of the player's cards."""
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
    """Every legal attack of CPX-56, with a paired card under the route reading (CPX-134)."""
    s = ctx.s
    d = ctx.d
    colour = s.colour_of(seat)
    camp = s.players[seat]["camp"]
    hand = s.cards_of(seat, HAND)
    pairs: list[tuple[str, str]] = []
    if s.options["all_terrain_reading"] == "route":
        for pc in hand:
            for ab in d.card_by_id[pc].abilities:
                if ab.kind != "pair_protect":
                    continue
                for c in hand:
                    if c != pc and any(d.card_by_id[c].counts_as(t) for t in ab.params["types"]):
                        pairs.append((c, pc))
    pairs = sorted(set(pairs))
    out = []
    cap_rule = s.options["cap_applies_to_attacks"]
    for origin in own_bases(ctx, seat):
        own = s.units_of(origin, colour)
        if own < 1:
            continue
        friendly = ctx.friendly_units(origin, seat)
        most = own - 1 if s.options["leave_one_own_colour"] else min(own, friendly - 1)
        for target, route in d.adjacency[origin].items():
            if ctx.is_friendly(target, seat):
                continue
            top = min(most, CAP - s.camp_units(target, camp)) if cap_rule else most
            if top < 1:
                continue
            plays: list[dict[str, str]] = [
                {"card": c} for c in hand if d.card_by_id[c].type in ROUTE_ALLOWS[route]
            ]
            plays += [{"card": c, "paired_card": pc} for c, pc in pairs]
            for play in plays:
                for units in range(1, top + 1):
                    args = {"from": origin, "to": target, "units": units, **play}
                    out.append(Command("attack", args, seat=seat))
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


# --- activations ---------------------------------------------------------------------------------


def _splits(pool: dict[str, int], want: int) -> list[dict[str, int]]:
    """Every way to name ``want`` units by colour from ``pool``."""
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
    return out


def _fields(ctx: Ctx) -> list[str]:
    """The battlefield being resolved and, under ``designate_any_battlefield``, later ones."""
    s = ctx.s
    if s.battle is None:
        return []
    later = [q for q in s.queue if q != s.battle["base"]]
    return [s.battle["base"]] + (later if s.options["designate_any_battlefield"] else [])


def _named(ctx: Ctx, field: str, t: dict[str, Any]) -> dict[str, Any]:
    b = ctx.s.battle
    assert b is not None
    return t if field == b["base"] else {**t, "battlefield": field}


def _enemy(ctx: Ctx, seat: int, base: str) -> dict[str, int]:
    s = ctx.s
    camp = s.players[seat]["camp"]
    return {
        c: n
        for c, n in s.units.get(base, {}).items()
        if s.players[s.seat_of_colour(c)]["camp"] != camp
    }


def _candidate_targets(ctx: Ctx, seat: int, ab: Ability) -> Iterator[dict[str, Any]]:
    """A superset of the valid targets of one ability now, in the rules' spelling (each is
    then checked by the ability's own check)."""
    s = ctx.s
    d = ctx.d
    kind, params = ab.kind, ab.params
    camp = s.players[seat]["camp"]
    colour = s.colour_of(seat)
    b = s.battle
    if kind in ("cancel_one", "smoke"):
        yield from ({"activation": a["id"]} for a in s.stack if a["camp"] != camp)
    elif kind == "cancel_by_type":
        ids = sorted(a["id"] for a in s.stack if a["camp"] != camp)
        for k in range(1, params["max"] + 1):
            yield from ({"activations": list(c)} for c in combinations(ids, k))
    elif kind == "block_recruit":
        yield from ({"base": x.id} for x in d.bases)
    elif kind == "cancel_attack_by_type":
        if s.options["sea_wing_types"] == "choose_one" and len(params["types"]) > 1:
            yield from ({"type": t} for t in params["types"])
        else:
            yield {}
    elif kind == "single_move":
        field = b["base"] if b is not None and s.window == "pre_drop" else None
        dests = [x.id for x in d.bases if ctx.is_friendly(x.id, seat) or x.id == field]
        for origin in own_bases(ctx, seat):
            n = s.units_of(origin, colour)
            most = n if s.options["combustion_boost_units"] == "any_number" else min(n, 1)
            for dest, units in product(dests, range(1, most + 1)):
                yield {"from": origin, "to": dest, "units": units}
    elif kind == "transport_adjacent":
        yield from _transport_targets(ctx, seat, ab)
    elif kind == "multi_move":
        keys = _multi_move_keys(ctx, seat, ab)
        for counts in _count_vectors(list(keys), keys, params["count"]):
            yield {"moves": _legs(counts)}
    elif b is None:
        yield {}
    elif kind == "paradrop":
        for x in d.adjacency[b["base"]]:
            for n in range(1, min(params["max"], s.units_of(x, colour)) + 1):
                yield {"origin": x, "units": n}
    elif kind == "displace_units":
        here = sorted(s.units.get(b["base"], {}))
        picks = [
            {"colour": c, "to": x} for c in here for x in [*d.adjacency[b["base"]], "pool"]
        ]
        for k in range(1, params["max"] + 1):
            yield from ({"units": list(p)} for p in product(picks, repeat=k))
    elif kind in ("destroy_units", "sacrifice_destroy"):
        enemy = _enemy(ctx, seat, b["base"])
        want = min(params["n" if kind == "destroy_units" else "destroy"], sum(enemy.values()))
        yield from ({"units": m} for m in _splits(enemy, want))
    elif kind in ("set_aside_half", "bind_half"):
        for field in _fields(ctx):
            enemy = _enemy(ctx, seat, field)
            e = sum(enemy.values())
            want = e // 2 if kind == "set_aside_half" else min(s.units_of(field, colour) // 2, e)
            for m in _splits(enemy, want):
                yield _named(ctx, field, {"units": m})
    elif kind == "direct_resolution":
        for field in _fields(ctx):
            yield _named(ctx, field, {})
    else:
        yield {}


def _transport_targets(ctx: Ctx, seat: int, ab: Ability) -> Iterator[dict[str, Any]]:
    """CPX-127: 1 to ``destinations`` distinct friendly bases, at least 1 unit each (legs in
    the order of their destinations: the order does not change what is legal)."""
    s = ctx.s
    d = ctx.d
    colour = s.colour_of(seat)
    two_steps = s.options["transport_reading"] == "two_steps"
    most_legs = 1 if two_steps else ab.params["destinations"]
    for origin in own_bases(ctx, seat):
        n = s.units_of(origin, colour)
        if n < 1:
            continue
        reach = d.within_steps(origin, 2) if two_steps else d.adjacency[origin]
        dests = sorted(x for x in reach if ctx.is_friendly(x, seat))
        for k in range(1, most_legs + 1):
            for chosen in combinations(dests, k):
                rooms = [min(n, CAP - ctx.friendly_units(x, seat)) for x in chosen]
                for units in product(*(range(1, r + 1) for r in rooms)):
                    if sum(units) <= n:
                        moves = [{"to": x, "units": u} for x, u in zip(chosen, units, strict=True)]
                        yield {"from": origin, "moves": moves}


def _multi_move_keys(ctx: Ctx, seat: int, ab: Ability) -> dict[str, int]:
    """CPX-139: route keys ``FROM>TO`` (own units anywhere, to a friendly base within
    ``steps``), each with the most units it can carry."""
    s = ctx.s
    colour = s.colour_of(seat)
    keys: dict[str, int] = {}
    for origin in sorted(x for x in s.units if s.units_of(x, colour)):
        most = min(ab.params["count"], s.units_of(origin, colour))
        for dest in sorted(ctx.d.within_steps(origin, ab.params["steps"])):
            if ctx.is_friendly(dest, seat):
                keys[route_key(origin, dest)] = most
    return keys


def _count_vectors(keys: list[str], most: dict[str, int], total: int) -> Iterator[dict[str, int]]:
    """Every assignment of 1..``total`` units over ``keys`` (at most ``most[k]`` each)."""
    if total < 1:
        return
    for i, k in enumerate(keys):
        for n in range(1, min(most[k], total) + 1):
            yield {k: n}
            for rest in _count_vectors(keys[i + 1 :], most, total - n):
                yield {k: n, **rest}


def _legs(counts: dict[str, int]) -> list[dict[str, Any]]:
    legs = []
    for key in sorted(counts):
        origin, dest = key.split(">")
        legs.append({"from": origin, "to": dest, "units": counts[key]})
    return legs


def _multi_move_forms(ctx: Ctx, seat: int) -> list[CountForm]:
    """CPX-139 Rapid Deployment as counts per route, alone or paired with All-terrain Traverse
    (CPX-134), with the limits its check applies: ``count`` units in all, no more from a base
    than stand there, the cap of 10 on arrival (less what leaves), and one unit left behind
    under ``card_moves_leave_one``."""
    s = ctx.s
    out = []
    for fixed, ab in _plays(ctx, seat):
        if ab.kind != "multi_move":
            continue
        keys = _multi_move_keys(ctx, seat, ab)
        if not keys:
            continue
        count = ab.params["count"]
        limits = [Limit("units", {k: 1 for k in keys}, min=1, max=count)]
        colour = s.colour_of(seat)
        by_origin: dict[str, list[str]] = {}
        by_dest: dict[str, dict[str, int]] = {}
        for k in keys:
            origin, dest = k.split(">")
            by_origin.setdefault(origin, []).append(k)
            by_dest.setdefault(dest, {})[k] = 1
        for origin, ks in by_origin.items():
            have = s.units_of(origin, colour)
            if have < count and len(ks) > 1:
                limits.append(Limit(f"from {origin}", {k: 1 for k in ks}, max=have))
            if s.options["card_moves_leave_one"] and ctx.owner(origin) == seat:
                stay = ctx.friendly_units(origin, seat) - 1
                if stay < count:
                    limits.append(Limit(f"left on {origin}", {k: 1 for k in ks}, max=stay))
        for dest, weights in by_dest.items():
            room = CAP - ctx.friendly_units(dest, seat)
            if room < count:
                for k in by_origin.get(dest, []):
                    weights[k] = -1
                limits.append(Limit(f"units on {dest}", weights, max=room))
        spelled = {k: v for k, v in fixed.items() if k != "targets"}
        if "paired_card" in fixed:
            spelled["paired_ability"] = ab.id
        out.append(
            CountForm(
                "activate",
                seat,
                {k: (0, n) for k, n in keys.items()},
                limits,
                spelled,
                within="targets",
            )
        )
    return out


def _plays(ctx: Ctx, seat: int) -> Iterator[tuple[dict[str, Any], Ability]]:
    """Each card ability the seat may use now (checks 1-4 of CPX-71 passed), as the args of
    its activation without targets and the ability whose targets are still to name: a
    pair of All-terrain Traverse (CPX-134) names the paired card's ability."""
    s = ctx.s
    d = ctx.d
    for cid, ab in _usable_abilities(ctx, seat):
        if ab.kind != "pair_protect":
            args: dict[str, Any] = {"card": cid, "ability": ab.id, "targets": {}}
            if _card_ok(ctx, seat, args):
                yield args, ab
            continue
        for paired in s.cards_of(seat):
            if paired == cid or s.cards[paired]["place"] not in (HAND, COMMITTED):
                continue
            pc = d.card_by_id[paired]
            if not any(pc.counts_as(t) for t in ab.params["types"]):
                continue
            for inner in pc.abilities:
                if inner.kind in RESPONSE_KINDS or inner.kind == "pair_protect":
                    continue
                args = {
                    "card": cid,
                    "ability": ab.id,
                    "paired_card": paired,
                    "targets": {"ability": inner.id, "targets": {}},
                }
                if _card_ok(ctx, seat, args):
                    yield args, inner


def _card_ok(ctx: Ctx, seat: int, args: dict[str, Any]) -> bool:
    try:
        abilities.check_card(ctx, seat, args)
    except IllegalMove:
        return False
    return True


def _usable_abilities(ctx: Ctx, seat: int) -> Iterator[tuple[str, Ability]]:
    window = abilities.current_window(ctx)
    for cid in sorted(ctx.s.cards):
        c = ctx.s.cards[cid]
        if c["holder"] != seat or c["place"] not in (HAND, COMMITTED):
            continue
        for ab in ctx.d.card_by_id[cid].abilities:
            if _worth_trying(ctx, seat, ab, window):
                yield cid, ab


def _activations(ctx: Ctx, seat: int) -> Iterator[Command]:
    """Activations of the seat's usable cards that pass every check of ``activate`` now, in
    the spelling of :func:`.shape.offer_spelling`. Rapid Deployment (alone or paired) is a
    count form instead; a few of its instances are listed as quick choices."""
    for args, ab in _plays(ctx, seat):
        check = abilities.CHECKS[ab.kind]
        paired = "paired_card" in args
        shown = 0
        for t in _candidate_targets(ctx, seat, ab):
            try:
                check(ctx, seat, ab, t)
            except IllegalMove:
                continue
            if ab.kind == "multi_move":
                if shown >= MAX_SAMPLES:
                    break
                shown += 1
            targets = {"ability": ab.id, "targets": t} if paired else t
            cmd = Command("activate", {**args, "targets": targets}, seat=seat)
            # Candidates are made in the offered spelling, except Rapid Deployment's legs.
            yield offer_spelling(cmd) if ab.kind == "multi_move" else cmd


def activations_for(ctx: Ctx, seat: int) -> list[Command]:
    return list(_activations(ctx, seat))


def has_activation(ctx: Ctx, seat: int) -> bool:
    """Whether the seat could activate anything now (for ``auto_pass``), without listing all."""
    return next(_activations(ctx, seat), None) is not None


def _worth_trying(ctx: Ctx, seat: int, ab: Any, window: str | None) -> bool:
    """Cheap filters (window, side, a pending target) before the exact checks."""
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
