"""The battle phase (§7): battlefields and their order, sides and kinds, the windows' close, the
drop and its confirmation, the counts and outcome, unowned bases and captures.
"""

from __future__ import annotations

from typing import Any

from .abilities import apply_designations, lapse_designations
from .ctx import Ctx, fail
from .data import ROUTE_KIND
from .flow import CAP, compute_order, counts, end_phase, markers_and_checks, start_round
from .ledger import apply_drop_to_tower, check_report
from .state import BATTLE, DISCARD, OVER


def _add(dst: dict[str, int], colour: str, n: int) -> None:
    value = dst.get(colour, 0) + n
    if value:
        dst[colour] = value
    else:
        dst.pop(colour, None)


# --- battlefields (CPX-65, CPX-66) --------------------------------------------------------------


def is_battlefield(ctx: Ctx, base: str) -> bool:
    here = ctx.s.units.get(base)
    if not here:
        return False
    camp = ctx.owner_camp(base)
    if camp is None:
        return True
    return any(ctx.s.players[ctx.s.seat_of_colour(c)]["camp"] != camp for c in here)


def earliest_attack(ctx: Ctx, base: str, camp: str | None = None) -> dict[str, Any] | None:
    """The earliest attack into ``base`` this round (of ``camp``) whose player still has units."""
    s = ctx.s
    for a in s.attacks:
        if a["to"] != base:
            continue
        p = s.players[a["player"]]
        if camp is not None and p["camp"] != camp:
            continue
        if s.units_of(base, p["colour"]) > 0:
            return a
    return None


def lead_of(ctx: Ctx, base: str, camp: str) -> int:
    """CPX-67: the lead attacker, or (no attack) the first player of the camp with units there."""
    a = earliest_attack(ctx, base, camp)
    if a is not None:
        return a["player"]
    s = ctx.s
    for i, p in enumerate(s.players):
        if p["camp"] == camp and s.units_of(base, p["colour"]) > 0:
            return i
    return next(i for i, p in enumerate(s.players) if p["camp"] == camp and not p["out"])


def start_battle_phase(ctx: Ctx) -> None:
    """CPX-65 and CPX-66: list the battlefields in the order of their earliest attack."""
    s = ctx.s
    s.phase = BATTLE
    s.window = None
    first_seq: dict[str, int] = {}
    for a in s.attacks:
        first_seq.setdefault(a["to"], a["seq"])
    fields = [b for b in sorted(s.units) if is_battlefield(ctx, b)]
    fields.sort(key=lambda b: (first_seq.get(b, 10**9), b))
    s.queue = fields
    ctx.emit("phase", phase=BATTLE, battlefields=list(fields))
    next_battlefield(ctx)


def next_battlefield(ctx: Ctx) -> None:
    """Resolve battlefields until one needs the table (a window or a drop), or the phase ends."""
    s = ctx.s
    while s.phase == BATTLE and s.battle is None:
        if not s.queue:
            lapse_designations(ctx)
            _check_phase_invariant(ctx)
            end_phase(ctx)
            return
        base = s.queue.pop(0)
        if not is_battlefield(ctx, base):
            lapse_designations(ctx, base)
            ctx.emit("battle_skipped", base=base)
            continue
        if ctx.owner(base) is None:
            first = earliest_attack(ctx, base)
            camp = (
                s.players[first["player"]]["camp"]
                if first
                else s.players[s.seat_of_colour(next(iter(s.units[base])))]["camp"]
            )
            before = counts(ctx)
            take_unowned(ctx, base, camp)
            markers_and_checks(ctx, before)
            if s.phase == OVER:
                return
            if not is_battlefield(ctx, base):
                lapse_designations(ctx, base)
                continue
        open_battle(ctx, base)


def _check_phase_invariant(ctx: Ctx) -> None:
    """CPX-95: no base holds units of two camps, and no unowned base holds units."""
    for base in ctx.s.units:
        if is_battlefield(ctx, base):
            raise AssertionError(f"battle phase ended with a battlefield left at {base}")


def take_unowned(ctx: Ctx, base: str, camp: str) -> None:
    """CPX-91: the lead attacker returns one unit and takes the base; the cap then applies."""
    s = ctx.s
    lead = lead_of(ctx, base, camp)
    colour = s.colour_of(lead)
    if s.units_of(base, colour):
        s.add_units(base, colour, -1)
        s.pools[colour] += 1
    card = ctx.d.card_of_base[base]
    s.cards[card] = {"holder": lead, "place": DISCARD, "attack": None}
    excess = s.camp_units(base, camp) - CAP
    order = [c for c in s.camp_colours(camp) if c != colour] + [colour]
    for c in order:
        if excess <= 0:
            break
        n = min(excess, s.units_of(base, c))
        if n:
            s.add_units(base, c, -n)
            s.pools[c] += n
            excess -= n
    ctx.emit(
        "base_taken",
        base=base,
        seat=lead,
        card=card,
        table=f"{ctx.faction_name(lead)} returns 1 {colour} from {ctx.base_name(base)} to the "
        f"pool and takes {ctx.card_name(card)}.",
    )


# --- opening a battle (CPX-67..CPX-69) ---------------------------------------------------------


def open_battle(ctx: Ctx, base: str) -> None:
    s = ctx.s
    owner = ctx.owner(base)
    assert owner is not None
    dcamp = s.players[owner]["camp"]
    acamp = ctx.other_camp(dcamp)
    att = [a for a in s.attacks if a["to"] == base and s.players[a["player"]]["camp"] == acamp]
    if s.options["battle_kind_rule"] == "first_attack":
        att = att[:1]
    kinds = sorted({ROUTE_KIND[a["route"]] for a in att})
    if s.options["battle_cards_by"] == "participants":
        eligible = sorted(
            {owner}
            | {i for i, p in enumerate(s.players) if not p["out"] and s.units_of(base, p["colour"])}
        )
    else:
        eligible = s.active_seats()
    s.battle = {
        "base": base,
        "attacker_camp": acamp,
        "defender_camp": dcamp,
        "lead_attacker": lead_of(ctx, base, acamp),
        "lead_defender": owner,
        "kinds": kinds,
        "bonus": [],
        "modifiers": [],
        "direct": False,
        "chrono_used": False,
        "drops": 0,
        "eligible": eligible,
        "step": "pre_drop",
        "outcome": None,
        "before": counts(ctx),
    }
    s.window = "pre_drop"
    s.passes = []
    apply_designations(ctx, base)
    ctx.emit(
        "battle_opened",
        base=base,
        attacker_camp=acamp,
        defender_camp=dcamp,
        lead_attacker=s.battle["lead_attacker"],
        lead_defender=owner,
        kinds=kinds,
    )


def close_window(ctx: Ctx) -> None:
    """CPX-74: everyone eligible has passed with the stack empty; go on with the battle."""
    s = ctx.s
    b = s.battle
    assert b is not None
    s.passes = []
    if b["step"] == "pre_drop":
        s.window = None
        acamp = b["attacker_camp"]
        bound_att = sum(s.bound.get(c, 0) for c in s.camp_colours(acamp))
        if s.camp_units(b["base"], acamp) == 0 and bound_att == 0:
            cancel_battle(ctx)
            return
        if b["direct"]:
            direct_resolution(ctx)
            return
        inp = dict(s.units.get(b["base"], {}))
        for e in b["bonus"]:
            if e["active"]:
                _add(inp, e["colour"], e["count"])
        b["step"] = "drop"
        s.drop = {"kind": "battle", "input": inp, "report": None, "source": None}
        shown = ", ".join(f"{n} {c}" for c, n in sorted(inp.items())) or "nothing"
        ctx.emit("drop_awaited", kind="battle", base=b["base"], input=inp, table=f"Drop: {shown}.")
    elif b["step"] == "after_drop":
        s.window = None
        compute_outcome(ctx)


def cancel_battle(ctx: Ctx) -> None:
    """CPX-81: no attacker left; bonus cubes back, defenders' bound units back, owner keeps all."""
    s = ctx.s
    b = s.battle
    assert b is not None
    _return_bonus(ctx)
    _return_bound(ctx, b["defender_camp"])
    ctx.emit("battle_cancelled", base=b["base"])
    finish_battle(ctx)


def _return_bonus(ctx: Ctx) -> None:
    b = ctx.s.battle
    assert b is not None
    for e in b["bonus"]:
        if e["active"]:
            ctx.s.pools[e["colour"]] += e["count"]
            e["active"] = False


def _return_bound(ctx: Ctx, winner_camp: str) -> None:
    """CPX-140: the winning camp's bound units return within the cap, its lead's first."""
    s = ctx.s
    b = s.battle
    assert b is not None
    base = b["base"]
    lead = b["lead_defender"] if winner_camp == b["defender_camp"] else b["lead_attacker"]
    colours = sorted(
        s.bound, key=lambda c: (s.players[s.seat_of_colour(c)]["camp"] != winner_camp, c)
    )
    colours.sort(key=lambda c: 0 if c == s.colour_of(lead) else 1)
    for colour in colours:
        n = s.bound.pop(colour)
        seat = s.seat_of_colour(colour)
        back = 0
        if s.players[seat]["camp"] == winner_camp and not s.players[seat]["out"]:
            back = max(0, min(n, CAP - s.camp_units(base, winner_camp)))
        if back:
            s.add_units(base, colour, back)
        s.pools[colour] += n - back


# --- the drop (CPX-82..CPX-84, CPX-106..CPX-109) ------------------------------------------------


def report_drop(ctx: Ctx, counts_in: Any, source: Any) -> None:
    s = ctx.s
    if s.drop is None:
        fail("E_WRONG_PHASE", "No drop is awaited now.")
    out = check_report(s, counts_in)
    s.drop["report"] = out
    s.drop["source"] = source if source in ("camera", "manual") else "manual"
    ctx.emit("drop_reported", counts=out, source=s.drop["source"], provisional=True)


def confirm_drop(ctx: Ctx) -> None:
    s = ctx.s
    drop = s.drop
    if drop is None or drop["report"] is None:
        fail("E_WRONG_PHASE", "There is no accepted drop report to confirm.")
    inp, out = drop["input"], drop["report"]
    if drop["kind"] == "priming":
        for colour, n in inp.items():
            s.pools[colour] -= n
        apply_drop_to_tower(s, inp, out)
        for colour, n in out.items():
            s.pools[colour] += n
        s.drop = None
        ctx.emit("drop_confirmed", kind="priming", counts=out, tower=dict(s.tower))
        s.order = compute_order(ctx, first_round=True)
        start_round(ctx)
        return
    b = s.battle
    assert b is not None
    if drop["kind"] == "battle":
        s.units.pop(b["base"], None)
        for e in b["bonus"]:
            e["active"] = False
    else:
        s.out_tray = {}
    apply_drop_to_tower(s, inp, out)
    s.out_tray = dict(out)
    s.drop = None
    b["drops"] += 1
    b["step"] = "after_drop"
    s.window = "after_drop"
    s.passes = []
    ctx.emit("drop_confirmed", kind=drop["kind"], counts=out, tower=dict(s.tower))


def start_redrop(ctx: Ctx) -> None:
    """CPX-123: the fell-out cubes of the voided drop are dropped again."""
    s = ctx.s
    b = s.battle
    assert b is not None
    b["chrono_used"] = True
    b["step"] = "drop"
    s.window = None
    inp = dict(s.out_tray)
    s.drop = {"kind": "redrop", "input": inp, "report": None, "source": None}
    shown = ", ".join(f"{n} {c}" for c, n in sorted(inp.items())) or "nothing"
    ctx.emit("drop_awaited", kind="redrop", base=b["base"], input=inp, table=f"Drop: {shown}.")


# --- counts and outcome (CPX-85..CPX-90) ---------------------------------------------------------


def _counts_for(ctx: Ctx, colour: str, camp: str) -> bool:
    s = ctx.s
    seat = s.seat_of_colour(colour)
    if seat is None or s.players[seat]["camp"] != camp:
        return False
    return not s.players[seat]["out"] or s.options["eliminated_colour_counts"]


def _placeable(ctx: Ctx, cubes: dict[str, int], camp: str) -> dict[str, int]:
    s = ctx.s
    out = {}
    for colour, n in cubes.items():
        seat = s.seat_of_colour(colour)
        if (
            n
            and seat is not None
            and s.players[seat]["camp"] == camp
            and not s.players[seat]["out"]
        ):
            out[colour] = n
    return out


def _white_counts(ctx: Ctx) -> bool:
    b = ctx.s.battle
    assert b is not None
    return not any(m["kind"] == "deny_white" for m in b["modifiers"])


def compute_outcome(ctx: Ctx) -> None:
    s = ctx.s
    b = s.battle
    assert b is not None
    fell = s.out_tray
    acamp, dcamp = b["attacker_camp"], b["defender_camp"]
    a = sum(n for c, n in fell.items() if _counts_for(ctx, c, acamp)) + fell.get("black", 0)
    d = sum(n for c, n in fell.items() if _counts_for(ctx, c, dcamp))
    if _white_counts(ctx):
        d += fell.get("white", 0)
    _decide(ctx, a, d, dict(fell), "tray")


def direct_resolution(ctx: Ctx) -> None:
    """CPX-138: units plus bonus cubes compared without the tower."""
    s = ctx.s
    b = s.battle
    assert b is not None
    base = b["base"]
    acamp, dcamp = b["attacker_camp"], b["defender_camp"]
    black = sum(e["count"] for e in b["bonus"] if e["active"] and e["colour"] == "black")
    white = sum(e["count"] for e in b["bonus"] if e["active"] and e["colour"] == "white")
    a = s.camp_units(base, acamp) + black
    d = s.camp_units(base, dcamp) + white
    cubes = dict(s.units.pop(base, {}))
    for e in b["bonus"]:
        if e["active"]:
            _add(cubes, e["colour"], e["count"])
            e["active"] = False
    s.out_tray = cubes
    _decide(ctx, a, d, cubes, "direct")


def _decide(ctx: Ctx, a: int, d: int, cubes: dict[str, int], source: str) -> None:
    s = ctx.s
    b = s.battle
    assert b is not None
    if a > d:
        winner, diff = "attacker", a - d
    elif a == d:
        winner, diff = "tie", 0
    else:
        winner, diff = "defender", d - a
    camp = b["attacker_camp"] if winner == "attacker" else b["defender_camp"]
    lead = b["lead_attacker"] if winner == "attacker" else b["lead_defender"]
    avail = _placeable(ctx, cubes, camp) if winner != "tie" else {}
    r = min(diff, sum(avail.values()), CAP)
    b["outcome"] = {"winner": winner, "A": a, "D": d, "r": r, "source": source}
    ctx.emit("battle_counts", base=b["base"], A=a, D=d, winner=winner, r=r)
    proposal = propose_mix(ctx, avail, r, lead)
    several = sum(1 for n in avail.values() if n) > 1
    if winner != "tie" and several and 0 < r < sum(avail.values()):
        s.prompt = {
            "kind": "choose_units",
            "seat": lead,
            "r": r,
            "available": avail,
            "proposal": proposal,
        }
        ctx.emit("prompt", **s.prompt)
        return
    finish_outcome(ctx, proposal)


def propose_mix(ctx: Ctx, avail: dict[str, int], r: int, lead: int) -> dict[str, int]:
    """CPX-86: as many of the lead's own colour as possible, then his partner's."""
    own = ctx.s.colour_of(lead)
    mix: dict[str, int] = {}
    left = r
    for colour in sorted(avail, key=lambda c: (c != own, c)):
        n = min(left, avail[colour])
        if n:
            mix[colour] = n
            left -= n
    return mix


def choose_units(ctx: Ctx, seat: int, mix: Any) -> None:
    s = ctx.s
    p = s.prompt
    assert p is not None and p["kind"] == "choose_units"
    if seat != p["seat"]:
        fail("E_NOT_YOUR_TURN", f"{ctx.faction_name(p['seat'])} chooses which cubes go back.")
    if not isinstance(mix, dict) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in mix.values()
    ):
        fail("E_TARGET_INVALID", "The mix gives a whole number of cubes for each colour.")
    mix = {c: n for c, n in mix.items() if n}
    if sum(mix.values()) != p["r"] or any(n > p["available"].get(c, 0) for c, n in mix.items()):
        fail(
            "E_TARGET_INVALID",
            f"Choose exactly {p['r']} cubes from those that fell out: {p['available']}.",
        )
    s.prompt = None
    finish_outcome(ctx, mix)


def finish_outcome(ctx: Ctx, mix: dict[str, int]) -> None:
    """CPX-86..CPX-90: cubes back on the base, the rest to the pools, the card to the winner."""
    s = ctx.s
    b = s.battle
    assert b is not None
    base = b["base"]
    outcome = b["outcome"]
    tray = s.out_tray
    for colour, n in mix.items():
        _add(tray, colour, -n)
        s.add_units(base, colour, n)
    for colour, n in tray.items():
        s.pools[colour] += n
    s.out_tray = {}
    winner = outcome["winner"]
    if winner == "tie":
        colour = s.colour_of(b["lead_defender"])
        if s.pools[colour] > 0:
            s.pools[colour] -= 1
            s.add_units(base, colour, 1)
    if winner == "attacker":
        lead = b["lead_attacker"]
        card = ctx.d.card_of_base[base]
        s.cards[card] = {"holder": lead, "place": DISCARD, "attack": None}
        ctx.emit(
            "card_captured",
            base=base,
            card=card,
            seat=lead,
            table=f"Give {ctx.card_name(card)} to {ctx.faction_name(lead)} (discard pile).",
        )
    _return_bonus(ctx)
    _return_bound(ctx, b["attacker_camp"] if winner == "attacker" else b["defender_camp"])
    placed = ", ".join(f"{n} {c}" for c, n in sorted(s.units.get(base, {}).items())) or "nothing"
    ctx.emit(
        "battle_resolved",
        base=base,
        winner=winner,
        table=f"{ctx.base_name(base)} now holds {placed}; the other cubes go to their pools.",
    )
    finish_battle(ctx)


def finish_battle(ctx: Ctx) -> None:
    s = ctx.s
    b = s.battle
    assert b is not None
    s.battle = None
    s.window = None
    s.passes = []
    markers_and_checks(ctx, b["before"])
    next_battlefield(ctx)
