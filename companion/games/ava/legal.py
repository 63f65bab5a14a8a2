"""What the current player may do now: the dashboard's buttons and the AIs' choices.

Commands without unit counts are listed completely. A request with unit counts (invade, recruit,
garrison, withdraw) has far too many legal count combinations to list, so each is described
exactly by a :class:`CountForm` (ranges per unit type, cost and power limits), and the list holds
a menu of instances: every single-type amount that matters (1, a few, all), the minimal invasion
set, and the spending and defence shares the AI profiles use (AVA-143, AVA-148, AVA-154, AVA-162).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from companion.engine import Command, CountForm, Limit
from companion.games.ava import formulas as fm
from companion.games.ava import rules
from companion.games.ava.data import UNIT_TYPES, AvaData
from companion.games.ava.setup import data_for
from companion.games.ava.state import BUILD, JAIL, JAIL_OFFER, OFFER, RESOLVE, SPIN, AvaState

STRATEGIC_ORDER = (("forward", 1), ("back", 1), ("forward", 2), ("back", 2))  # AVA-142


def units_args(units: fm.Units) -> dict[str, int]:
    return {u: n for u, n in zip(UNIT_TYPES, units, strict=True)}


def share(available: fm.Units, pct: int, seaport: bool) -> fm.Units:
    """AVA-143: floor(count × s / 100) of each type, battleships only at seaports."""
    i, t, p, b = (n * pct // 100 for n in available)
    return i, t, p, (b if seaport else 0)


def buy_in_order(data: AvaData, budget: int, room: fm.Units, order: Iterable[str]) -> fm.Units:
    """As many of each type in ``order`` as budget and per-turn room allow (AVA-148, AVA-162)."""
    counts = [0, 0, 0, 0]
    for u in order:
        k = UNIT_TYPES.index(u)
        n = min(room[k], budget // data.costs[k])
        counts[k] = n
        budget -= n * data.costs[k]
    return counts[0], counts[1], counts[2], counts[3]


def buy_bundles(data: AvaData, budget: int, room: fm.Units, bundle: dict[str, int]) -> fm.Units:
    """AVA-154: the largest number of whole bundles the budget and limits allow."""
    per = tuple(bundle.get(u, 0) for u in UNIT_TYPES)
    price = fm.raw_power((per[0], per[1], per[2], per[3]), data.costs)
    k = budget // price if price else 0
    for n, r in zip(per, room, strict=True):
        if n:
            k = min(k, r // n)
    return per[0] * k, per[1] * k, per[2] * k, per[3] * k


def recruit_room(data: AvaData, state: AvaState) -> fm.Units:
    """What the per-turn limits still allow this turn (AVA-89)."""
    return fm.sub(data.limits, state.me.recruited_this_turn)


def ai_recruit_plans(data: AvaData, state: AvaState) -> list[fm.Units]:
    """The purchases the three AI profiles would make now (AVA-148, AVA-154, AVA-162)."""
    p = state.me
    room = recruit_room(data, state)
    prof = data.ai_profiles
    tank = prof["tank_ai"]
    plane = prof["plane_ai"]
    ship = prof["battleship_ai"]
    plans = [
        buy_in_order(
            data, p.money * tank["recruit_budget_pct"] // 100, room, tank["recruit_order"]
        ),
        buy_bundles(
            data, p.money * plane["recruit_budget_pct"] // 100, room, plane["recruit_bundle"]
        ),
    ]
    reserve = ship["recruit_reserve_per_jail"] * (p.jail_count + 1) + ship["recruit_reserve_base"]
    plans.append(buy_in_order(data, max(0, p.money - reserve), room, ship["recruit_order"]))
    return plans


def defence_shares(data: AvaData) -> list[int]:
    """Every share an AI profile places (AVA-149, AVA-155, AVA-163), plus all (100%)."""
    pcts = {100}
    for prof in data.ai_profiles.values():
        pcts.add(prof["defense_share_pct"])
        pcts.add(prof["capital_defense_share_pct"])
    return sorted(pcts)


def _dedupe(units_list: Iterable[fm.Units]) -> list[fm.Units]:
    seen: list[fm.Units] = []
    for u in units_list:
        if sum(u) > 0 and u not in seen:
            seen.append(u)
    return seen


def single_type_amounts(limit: int) -> list[int]:
    return sorted({n for n in (1, 5, 10, limit) if 1 <= n <= limit})


def invade_options(data: AvaData, state: AvaState) -> list[fm.Units]:
    """Invasion selections worth a button: minimal set, one type only, everything allowed."""
    n = state.landed_square
    assert n is not None
    sq = data.square(n)
    p = state.me
    owner = state.owner[n - 1]
    if owner is None:
        g = sq.neutral_garrison
        return _dedupe([(g, 0, 0, 0), (p.available[0], 0, 0, 0)]) if p.available[0] >= g else []
    dp = rules.square_dp(data, state, n)
    allowed = (True, True, True, sq.seaport)
    pool = fm.eligible(p.available, sq.seaport)
    out: list[fm.Units] = []
    best = fm.min_invasion_set(p.available, dp, allowed, data.costs, data.powers)
    if best is not None:
        out.append(best)
    for k in range(4):
        if not allowed[k] or pool[k] == 0:
            continue
        need = max(1, -(-dp // data.powers[k]))
        if need <= pool[k]:
            u = [0, 0, 0, 0]
            u[k] = need
            out.append((u[0], u[1], u[2], u[3]))
    if fm.invasion_power(pool, sq.seaport, data.powers) >= dp:
        out.append(pool)
    return _dedupe(out)


def unit_ranges(high: Sequence[int]) -> dict[str, tuple[int, int]]:
    return {u: (0, max(0, n)) for u, n in zip(UNIT_TYPES, high, strict=True)}


AT_LEAST_ONE_UNIT = Limit("units", dict.fromkeys(UNIT_TYPES, 1), min=1)


def invade_form(data: AvaData, state: AvaState) -> CountForm | None:
    """AVA-58..AVA-60 (neutral: infantry only, at least the garrison) and AVA-67 (IP ≥ DP)."""
    n = state.landed_square
    if state.step != RESOLVE or n is None or data.square(n).type != "territory":
        return None
    sq = data.square(n)
    p = state.me
    owner = state.owner[n - 1]
    if owner == state.current:
        return None
    if owner is None:
        g = sq.neutral_garrison
        if p.available[0] < max(g, 1):
            return None
        ranges = unit_ranges((0, 0, 0, 0))
        ranges["I"] = (max(g, 1), p.available[0])
        return CountForm("invade", p.seat, ranges, (Limit("power", {"I": 1}, min=g),))
    pool = fm.eligible(p.available, sq.seaport)
    weights = dict(zip(UNIT_TYPES, data.powers, strict=True))
    if fm.invasion_power(pool, sq.seaport, data.powers) < max(1, rules.square_dp(data, state, n)):
        return None
    power = Limit("power", weights, min=rules.square_dp(data, state, n))
    return CountForm("invade", p.seat, unit_ranges(pool), (power, AT_LEAST_ONE_UNIT))


def recruit_form(data: AvaData, state: AvaState) -> CountForm | None:
    """AVA-88, AVA-89: within the money and what the per-turn limits still allow."""
    allowed = state.step == BUILD or (
        state.step == RESOLVE and state.options["recruit_before_resolution"]
    )
    p = state.me
    room = recruit_room(data, state)
    most = [min(r, p.money // c) for r, c in zip(room, data.costs, strict=True)]
    if not allowed or not any(n > 0 for n in most):
        return None
    cost = Limit("cost", dict(zip(UNIT_TYPES, data.costs, strict=True)), max=p.money)
    return CountForm("recruit", p.seat, unit_ranges(most), (cost, AT_LEAST_ONE_UNIT))


def _own_landed_territory(data: AvaData, state: AvaState) -> int | None:
    n = state.landed_square
    if state.step != BUILD or n is None or state.owner[n - 1] != state.current:
        return None
    return n if data.square(n).type == "territory" else None


def garrison_form(data: AvaData, state: AvaState) -> CountForm | None:
    """AVA-90..AVA-92 (and AVA-94's option): only on the own territory landed on this turn."""
    n = _own_landed_territory(data, state)
    rebuild_refused = state.options["no_rebuild_same_square"]
    if n is None or (rebuild_refused and n == state.me.last_garrison_square):
        return None
    pool = fm.eligible(state.me.available, data.square(n).seaport)
    if sum(pool) == 0:
        return None
    return CountForm(
        "garrison", state.me.seat, unit_ranges(pool), (AT_LEAST_ONE_UNIT,), fixed={"square": n}
    )


def withdraw_form(data: AvaData, state: AvaState) -> CountForm | None:
    """AVA-93's option: units leave the landed own territory's garrison."""
    n = _own_landed_territory(data, state)
    if n is None or not state.options["allow_garrison_withdrawal"]:
        return None
    held = fm.eligible(state.garrison[n - 1], data.square(n).seaport)
    if sum(held) == 0:
        return None
    return CountForm(
        "withdraw", state.me.seat, unit_ranges(held), (AT_LEAST_ONE_UNIT,), fixed={"square": n}
    )


def count_forms(state: AvaState) -> list[CountForm]:
    if state.result is not None or state.discard_owed or state.step in (JAIL, JAIL_OFFER):
        return []
    data = data_for(state.data_dir)
    found = (
        invade_form(data, state),
        recruit_form(data, state),
        garrison_form(data, state),
        withdraw_form(data, state),
    )
    return [f for f in found if f is not None]


def resolution_commands(data: AvaData, state: AvaState) -> list[tuple[str, dict[str, Any]]]:
    n = state.landed_square
    assert n is not None
    sq = data.square(n)
    p = state.me
    owner = state.owner[n - 1]
    opp = 1 - state.current
    out: list[tuple[str, dict[str, Any]]] = []
    can_pass = True
    if sq.type == "territory":
        if owner is None:
            if p.money >= rules.treaty_price(data, state, n):
                out.append(("treaty", {}))
            out += [("invade", units_args(u)) for u in invade_options(data, state)]
        elif owner == opp:
            if not state.auto_penalty:
                out.append(("penalty", {}))
                can_pass = False
            out += [("invade", units_args(u)) for u in invade_options(data, state)]
    elif sq.type == "secret" and owner is None and p.money >= 500:
        out.append(("build_base", {}))
    elif sq.type == "special" and owner is None and sq.natural_side == p.side and p.money >= 2000:
        out.append(("ally", {}))
    if can_pass and not rules.mandatory_pending(data, state):
        out.append(("pass", {}))
    return out


def recruit_commands(data: AvaData, state: AvaState) -> list[dict[str, Any]]:
    form = recruit_form(data, state)
    if form is None:
        return []
    options: list[fm.Units] = []
    for k, (_, most) in enumerate(form.counts.values()):
        for amount in single_type_amounts(most):
            u = [0, 0, 0, 0]
            u[k] = amount
            options.append((u[0], u[1], u[2], u[3]))
    options += ai_recruit_plans(data, state)
    return [units_args(u) for u in _dedupe(options)]


def garrison_commands(data: AvaData, state: AvaState) -> list[dict[str, Any]]:
    form = garrison_form(data, state)
    if form is None:
        return []
    n = form.fixed["square"]
    pool = tuple(high for _, high in form.counts.values())
    options: list[fm.Units] = []
    for k in range(4):
        for amount in sorted({1, pool[k]}):
            if 1 <= amount <= pool[k]:
                u = [0, 0, 0, 0]
                u[k] = amount
                options.append((u[0], u[1], u[2], u[3]))
    seaport = data.square(n).seaport
    options += [share(state.me.available, pct, seaport) for pct in defence_shares(data)]
    return [{"square": n, **units_args(u)} for u in _dedupe(options)]


def withdraw_commands(data: AvaData, state: AvaState) -> list[dict[str, Any]]:
    form = withdraw_form(data, state)
    if form is None:
        return []
    n = form.fixed["square"]
    g = state.garrison[n - 1]
    options: list[fm.Units] = [g]
    for k in range(4):
        if g[k]:
            u = [0, 0, 0, 0]
            u[k] = g[k]
            options.append((u[0], u[1], u[2], u[3]))
    return [{"square": n, **units_args(u)} for u in _dedupe(options)]


def card_commands(data: AvaData, state: AvaState) -> list[tuple[str, dict[str, Any]]]:
    """Kept cards and the nuke, with every valid target (AVA-116, AVA-158)."""
    out: list[tuple[str, dict[str, Any]]] = []
    p = state.me
    for card_id in dict.fromkeys(p.kept_cards):
        card = data.cards[card_id]
        if card.kind in rules.S6_CARD_KINDS and state.step != RESOLVE:
            continue
        if card.kind in ("destroy_garrison_type", "isolationism"):
            for target in range(1, 37):
                if rules.card_target_ok(data, state, card_id, target) is None:
                    out.append(("use_card", {"card": card_id, "target": target}))
        elif rules.card_target_ok(data, state, card_id, None) is None:
            if card.kind == "defection" and p.money < card.params["cost"]:
                continue
            out.append(("use_card", {"card": card_id}))
    if p.nukes > 0:
        for target in range(1, 37):
            if (
                data.square(target).type == "territory"
                and state.owner[target - 1] == 1 - state.current
            ):
                out.append(("nuke", {"target": target}))
    return out


def legal_commands(state: AvaState) -> list[Command]:
    if state.result is not None:
        return []
    data = data_for(state.data_dir)
    p = state.me
    seat = p.seat
    found: list[tuple[str, dict[str, Any]]] = []
    step = state.step
    if step in (JAIL, JAIL_OFFER):
        if p.money >= fm.ransom(p.jail_count):
            found.append(("pay_ransom", {}))
        found.append(("end_turn", {}))
    elif state.discard_owed:
        found += [("discard", {"card": c}) for c in dict.fromkeys(p.kept_cards)]
    elif step == SPIN:
        found += [("spin", {"value": v}) for v in range(1, 7)]
        if state.options["ai_virtual_spin"] and p.controller != "human":
            found.append(("spin", {}))
        found += card_commands(data, state)
    elif step == OFFER:
        found.append(("decline_move", {}))
        for direction, steps in STRATEGIC_ORDER:
            if p.money >= fm.strategic_cost(p.strategic_moves_used, steps):
                found.append(("strategic_move", {"direction": direction, "steps": steps}))
    elif step == RESOLVE:
        found += resolution_commands(data, state)
        found += card_commands(data, state)
        if state.options["recruit_before_resolution"]:
            found += [("recruit", a) for a in recruit_commands(data, state)]
        if not rules.mandatory_pending(data, state):
            found.append(("end_turn", {}))
    elif step == BUILD:
        found += [("recruit", a) for a in recruit_commands(data, state)]
        found += [("garrison", a) for a in garrison_commands(data, state)]
        found += [("withdraw", a) for a in withdraw_commands(data, state)]
        found += card_commands(data, state)
        found.append(("end_turn", {}))
    return [Command(name, args, seat=seat) for name, args in found]
