"""The AI opponents of §16 (AVA-137..AVA-165) as policies over ``legal_commands``.

Each policy only ever returns one of the commands it is offered (AVA-137), so it is bound by
every rule. The numbers come from ``ai_profiles.json`` (AVA-173).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from companion.engine import Command
from companion.games.ava import formulas as fm
from companion.games.ava import rules
from companion.games.ava.data import AvaData
from companion.games.ava.legal import buy_bundles, buy_in_order, recruit_room, share
from companion.games.ava.setup import data_for
from companion.games.ava.state import BUILD, JAIL, JAIL_OFFER, OFFER, RESOLVE, SPIN, AvaState


def find(legal: Sequence[Command], name: str, **args: Any) -> Command | None:
    """The offered command with this name whose args include ``args``."""
    for c in legal:
        if c.name == name and all(c.args.get(k, 0) == v for k, v in args.items()):
            return c
    return None


def units_kw(units: fm.Units) -> dict[str, int]:
    return {"I": units[0], "T": units[1], "P": units[2], "B": units[3]}


def square_value(data: AvaData, state: AvaState, n: int) -> int:
    """AVA-139: W(sq), a square's production per turn in money after ``resource_pct``."""
    prod = data.square(n).production
    total = prod[0] + fm.raw_power((prod[1], prod[2], prod[3], prod[4]), data.costs)
    return total * state.resource_pct // 100


def penalty_outcome(
    data: AvaData, state: AvaState, n: int, available: fm.Units
) -> tuple[int, bool]:
    """AVA-141: (pen_loss, jail_risk) for landing on enemy square ``n`` with ``available``."""
    sq = data.square(n)
    opt = state.options
    pp = fm.penalty_power(
        rules.square_dp(data, state, n), state.penalty_pct, opt["penalty_rounding"]
    )
    ships = sq.seaport or opt["penalty_battleships_anywhere"]
    if opt["penalty_removal"] == "min_overshoot":
        removed, power = fm.removal_min_overshoot(available, pp, ships, data.powers)
    else:
        removed, power = fm.removal_weakest_first(available, pp, ships, data.powers)
    left = fm.sub(available, removed)
    jail = pp > 0 and sum(left) == 0
    if opt["jail_on_unpaid_penalty"] and power < pp:
        jail = True
    return fm.raw_power(removed, data.costs), jail


def min_set(data: AvaData, state: AvaState, n: int, available: fm.Units) -> fm.Units | None:
    """AVA-140 for square ``n`` as the current player sees it."""
    sq = data.square(n)
    if state.owner[n - 1] is None:
        g = sq.neutral_garrison
        return (g, 0, 0, 0) if available[0] >= g else None
    dp = rules.square_dp(data, state, n)
    return fm.min_invasion_set(
        available, dp, (True, True, True, sq.seaport), data.costs, data.powers
    )


def would_win(data: AvaData, state: AvaState, n: int) -> bool:
    opp = 1 - state.current
    if state.options["main_end_condition"] == "sudden_death":
        return n == data.by_ref["uk" if opp == 0 else "germany"]
    bases = state.options["conquest_counts_bases"]
    return rules.territory_count(data, state, opp, bases) == 1


class BasePolicy:
    """Shared flow: jail, spin, card use, building; subclasses decide the choices of §16."""

    profile: str = ""
    keep_useless_cards = False
    """AVA-150 uses every card at once, even where it removes nothing; the hard AI waits."""

    def choose(self, state: AvaState, legal: Sequence[Command], rng: random.Random) -> Command:
        if not legal:
            raise ValueError("no legal command to choose from")
        data = data_for(state.data_dir)
        step = state.step
        if step in (JAIL, JAIL_OFFER):  # AVA-165: pay as soon as affordable
            return find(legal, "pay_ransom") or legal[-1]
        if state.discard_owed:
            return find(legal, "discard", card=state.me.kept_cards[-1]) or legal[0]
        if step == SPIN:
            return self.before_spin(data, state, legal) or self.spin(legal, rng)
        if step == OFFER:
            return self.strategic(data, state, legal) or legal[0]
        card = self.use_cards(data, state, legal)
        if card is not None:
            return card
        if step == RESOLVE:
            return self.resolve(data, state, legal)
        if step == BUILD:
            return self.build(data, state, legal)
        return legal[0]

    # --- common pieces -------------------------------------------------------------------
    def spin(self, legal: Sequence[Command], rng: random.Random) -> Command:
        """A fair spin when the policy must spin by itself (no table spinner in simulation)."""
        return find(legal, "spin", value=rng.randint(1, 6)) or legal[0]

    def before_spin(
        self, data: AvaData, state: AvaState, legal: Sequence[Command]
    ) -> Command | None:
        return self.use_cards(data, state, legal)

    def strategic(self, data: AvaData, state: AvaState, legal: Sequence[Command]) -> Command | None:
        return find(legal, "decline_move")

    def use_cards(self, data: AvaData, state: AvaState, legal: Sequence[Command]) -> Command | None:
        """AVA-150: every kept card at its first legal opportunity; Battle of Britain and Pearl
        Harbor on the enemy territory that loses the most defence power (ties: lowest square)."""
        best: tuple[int, int, Command] | None = None
        for c in legal:
            if c.name != "use_card":
                continue
            target = c.args.get("target")
            if target is None:
                return c
            card = data.cards[c.args["card"]]
            if card.kind == "destroy_garrison_type":
                k = "ITPB".index(card.params["unit"])
                g = list(state.garrison[target - 1])
                seaport = data.square(target).seaport
                model = state.options["support_model"]
                before = fm.defence_power(state.garrison[target - 1], seaport, model, data.powers)
                g[k] = 0
                after = fm.defence_power((g[0], g[1], g[2], g[3]), seaport, model, data.powers)
                loss = before - after
                if loss <= 0 and self.keep_useless_cards:
                    continue
            else:
                loss = 0
            key = (-loss, target)
            if best is None or key < best[:2]:
                best = (key[0], key[1], c)
        return best[2] if best else None

    def resolve(self, data: AvaData, state: AvaState, legal: Sequence[Command]) -> Command:
        n = state.landed_square
        assert n is not None
        sq = data.square(n)
        owner = state.owner[n - 1]
        p = state.me
        choice: Command | None = None
        if sq.type == "territory" and owner == 1 - state.current:
            choice = self.enemy(data, state, legal, n)
        elif sq.type == "territory" and owner is None:
            choice = self.neutral(data, state, legal, n)
            if choice is None and find(legal, "pass") is None:
                choice = best_neutral(data, state, legal, n)  # AVA-137 fallback (AVA-161)
        elif sq.type == "secret" and owner is None:
            choice = find(legal, "build_base")
        elif sq.type == "special" and owner is None and sq.natural_side == p.side:
            choice = find(legal, "ally")
        return choice or find(legal, "pass") or find(legal, "penalty") or legal[0]

    def enemy(
        self, data: AvaData, state: AvaState, legal: Sequence[Command], n: int
    ) -> Command | None:
        raise NotImplementedError

    def neutral(
        self, data: AvaData, state: AvaState, legal: Sequence[Command], n: int
    ) -> Command | None:
        raise NotImplementedError

    def recruit_plan(self, data: AvaData, state: AvaState) -> fm.Units:
        raise NotImplementedError

    def defence_pct(self, data: AvaData, state: AvaState, n: int) -> int:
        prof = data.ai_profiles[self.profile]
        capital = data.by_ref["uk" if state.current == 0 else "germany"]
        return prof["capital_defense_share_pct"] if n == capital else prof["defense_share_pct"]

    def build(self, data: AvaData, state: AvaState, legal: Sequence[Command]) -> Command:
        p = state.me
        if sum(p.recruited_this_turn) == 0:
            plan = self.recruit_plan(data, state)
            if sum(plan):
                c = find(legal, "recruit", **units_kw(plan))
                if c is not None:
                    return c
        n = state.landed_square
        if p.garrisoned_this_turn is None and n is not None:
            placed = share(p.available, self.defence_pct(data, state, n), data.square(n).seaport)
            if sum(placed):
                c = find(legal, "garrison", square=n, **units_kw(placed))
                if c is not None:
                    return c
        return find(legal, "end_turn") or legal[-1]


def best_neutral(
    data: AvaData, state: AvaState, legal: Sequence[Command], n: int
) -> Command | None:
    """AVA-161: the cheaper of treaty and invasion (valued 50 × garrison); ties sign."""
    g = data.square(n).neutral_garrison
    treaty = find(legal, "treaty")
    invade = find(legal, "invade", I=g, T=0, P=0, B=0)
    if treaty and invade:
        return treaty if rules.treaty_price(data, state, n) <= 50 * g else invade
    return treaty or invade


class TankPolicy(BasePolicy):
    """Easy: never moves strategically, defends strongly, invades only with a big margin."""

    profile = "tank_ai"

    def enemy(
        self, data: AvaData, state: AvaState, legal: Sequence[Command], n: int
    ) -> Command | None:
        """AVA-145: invade only if 2 × IP(minimal set) ≤ IP(all allowed units)."""
        p = state.me
        ratio = data.ai_profiles[self.profile]["invade_power_ratio_pct"]
        seaport = data.square(n).seaport
        best = min_set(data, state, n, p.available)
        if best is not None:
            ip_best = fm.invasion_power(best, seaport, data.powers)
            ip_all = fm.invasion_power(p.available, seaport, data.powers)
            if 100 * ip_best <= ratio * ip_all:
                c = find(legal, "invade", **units_kw(best))
                if c:
                    return c
        return find(legal, "penalty")

    def neutral(
        self, data: AvaData, state: AvaState, legal: Sequence[Command], n: int
    ) -> Command | None:
        """AVA-146: treaty if it costs at most half the money, else invade with a 2× margin."""
        p = state.me
        g = data.square(n).neutral_garrison
        prof = data.ai_profiles[self.profile]
        if prof["treaty_money_multiple"] * rules.treaty_price(data, state, n) <= p.money:
            return find(legal, "treaty")
        if p.available[0] >= prof["neutral_invade_infantry_multiple"] * g:
            return find(legal, "invade", I=g, T=0, P=0, B=0)
        return None

    def recruit_plan(self, data: AvaData, state: AvaState) -> fm.Units:
        prof = data.ai_profiles[self.profile]
        budget = state.me.money * prof["recruit_budget_pct"] // 100
        return buy_in_order(data, budget, recruit_room(data, state), prof["recruit_order"])


class PlanePolicy(BasePolicy):
    """Medium: moderate defence, invades more, escapes an enemy square with a 1-step move."""

    profile = "plane_ai"

    def strategic(self, data: AvaData, state: AvaState, legal: Sequence[Command]) -> Command | None:
        """AVA-151."""
        p = state.me
        n = p.position
        c1 = fm.strategic_cost(p.strategic_moves_used, 1)
        enemy = data.square(n).type == "territory" and state.owner[n - 1] == 1 - state.current
        pct = data.ai_profiles[self.profile]["escape_max_money_pct"]
        if enemy and min_set(data, state, n, p.available) is None and 100 * c1 <= pct * p.money:
            for direction, delta in (("forward", 1), ("back", 1)):
                m = (n - 1 + delta) % 36 + 1
                m_enemy = (
                    data.square(m).type == "territory" and state.owner[m - 1] == 1 - state.current
                )
                c = find(legal, "strategic_move", direction=direction, steps=1)
                if not m_enemy and c:
                    return c
        return find(legal, "decline_move")

    def enemy(
        self, data: AvaData, state: AvaState, legal: Sequence[Command], n: int
    ) -> Command | None:
        """AVA-152: invade if 2 × inv_cost ≤ 3 × pen_loss, or to avoid jail."""
        p = state.me
        pct = data.ai_profiles[self.profile]["invade_cost_vs_penalty_pct"]
        best = min_set(data, state, n, p.available)
        if best is not None:
            cost = fm.raw_power(best, data.costs)
            loss, jail = penalty_outcome(data, state, n, p.available)
            if 100 * cost <= pct * loss or jail:
                c = find(legal, "invade", **units_kw(best))
                if c:
                    return c
        return find(legal, "penalty")

    def neutral(
        self, data: AvaData, state: AvaState, legal: Sequence[Command], n: int
    ) -> Command | None:
        """AVA-153."""
        p = state.me
        g = data.square(n).neutral_garrison
        if p.available[0] >= g and 50 * g <= rules.treaty_price(data, state, n):
            return find(legal, "invade", I=g, T=0, P=0, B=0)
        return find(legal, "treaty")

    def recruit_plan(self, data: AvaData, state: AvaState) -> fm.Units:
        prof = data.ai_profiles[self.profile]
        budget = state.me.money * prof["recruit_budget_pct"] // 100
        return buy_bundles(data, budget, recruit_room(data, state), prof["recruit_bundle"])


class BattleshipPolicy(BasePolicy):
    """Hard: scores strategic moves, values squares by production, uses its nuke (AVA-157..165)."""

    profile = "battleship_ai"
    keep_useless_cards = True

    def weights(self, data: AvaData) -> dict[str, int]:
        return data.ai_profiles[self.profile]["score_weights"]

    def score(self, data: AvaData, state: AvaState, n: int, money: int) -> int:
        """AVA-159's table, judged with the money left after the move."""
        w = self.weights(data)
        sq = data.square(n)
        owner = state.owner[n - 1]
        p = state.me
        value = w["value_multiplier"] * square_value(data, state, n)
        if sq.type == "territory":
            if owner is None:
                g = sq.neutral_garrison
                costs = []
                tc = rules.treaty_price(data, state, n)
                if money >= tc:
                    costs.append(tc)
                if p.available[0] >= g:
                    costs.append(50 * g)
                return value - min(costs) if costs else 0
            if owner == state.current:
                return w["own"]
            best = min_set(data, state, n, p.available)
            if best is not None:
                bonus = w["win"] if would_win(data, state, n) else 0
                return value - fm.raw_power(best, data.costs) + bonus
            loss, jail = penalty_outcome(data, state, n, p.available)
            return -loss - (w["jail"] if jail else 0)
        if sq.type == "fortune":
            return w["fortune"]
        if sq.type == "strategy":
            return w["strategy"]
        if sq.type == "secret" and owner is None and money >= w["secret_cost"]:
            return value - w["secret_cost"]
        if (
            sq.type == "special"
            and owner is None
            and sq.natural_side == p.side
            and money >= w["special_cost"]
        ):
            return value - w["special_cost"]
        return 0

    def strategic(self, data: AvaData, state: AvaState, legal: Sequence[Command]) -> Command | None:
        p = state.me
        best_cmd = find(legal, "decline_move")
        best = self.score(data, state, p.position, p.money)
        for c in legal:  # legal lists the moves in AVA-142's tie order
            if c.name != "strategic_move":
                continue
            steps = c.args["steps"]
            cost = fm.strategic_cost(p.strategic_moves_used, steps)
            delta = steps if c.args["direction"] == "forward" else -steps
            m = (p.position - 1 + delta) % 36 + 1
            s = self.score(data, state, m, p.money - cost) - cost
            if s > best:
                best, best_cmd = s, c
        return best_cmd

    def before_spin(
        self, data: AvaData, state: AvaState, legal: Sequence[Command]
    ) -> Command | None:
        """AVA-164: nuke the strongest enemy territory 2..8 squares ahead (sudden death: the
        capital), then use cards as AVA-150."""
        if state.me.nukes > 0:
            target = self.nuke_target(data, state)
            if target is not None:
                c = find(legal, "nuke", target=target)
                if c:
                    return c
        return self.use_cards(data, state, legal)

    def nuke_target(self, data: AvaData, state: AvaState) -> int | None:
        opp = 1 - state.current
        if state.options["main_end_condition"] == "sudden_death":
            cap = data.by_ref["uk" if opp == 0 else "germany"]
            ok = state.owner[cap - 1] == opp and rules.square_dp(data, state, cap) > 0
            return cap if ok else None
        best: tuple[int, int] | None = None
        pos = state.me.position
        for ahead in range(2, 9):
            m = (pos - 1 + ahead) % 36 + 1
            if data.square(m).type != "territory" or state.owner[m - 1] != opp:
                continue
            dp = rules.square_dp(data, state, m)
            if dp > 0 and (best is None or dp > best[0]):
                best = (dp, m)
        return best[1] if best else None

    def enemy(
        self, data: AvaData, state: AvaState, legal: Sequence[Command], n: int
    ) -> Command | None:
        """AVA-160: invade if inv_cost ≤ 15·W + pen_loss, or to avoid jail."""
        p = state.me
        best = min_set(data, state, n, p.available)
        if best is not None:
            cost = fm.raw_power(best, data.costs)
            loss, jail = penalty_outcome(data, state, n, p.available)
            value = self.weights(data)["value_multiplier"] * square_value(data, state, n)
            if cost <= value + loss or jail:
                c = find(legal, "invade", **units_kw(best))
                if c:
                    return c
        return find(legal, "penalty")

    def neutral(
        self, data: AvaData, state: AvaState, legal: Sequence[Command], n: int
    ) -> Command | None:
        return best_neutral(data, state, legal, n)

    def recruit_plan(self, data: AvaData, state: AvaState) -> fm.Units:
        prof = data.ai_profiles[self.profile]
        p = state.me
        reserve = (
            prof["recruit_reserve_per_jail"] * (p.jail_count + 1) + prof["recruit_reserve_base"]
        )
        budget = max(0, p.money - reserve)
        return buy_in_order(data, budget, recruit_room(data, state), prof["recruit_order"])


class RandomPolicy:
    """The yardstick: uniform over the offered commands."""

    def choose(self, state: AvaState, legal: Sequence[Command], rng: random.Random) -> Command:
        if not legal:
            raise ValueError("no legal command to choose from")
        return legal[rng.randrange(len(legal))]


POLICIES: dict[str, type] = {
    "tank": TankPolicy,
    "plane": PlanePolicy,
    "battleship": BattleshipPolicy,
    "random": RandomPolicy,
}
