"""AI players for empty seats: ``random`` (uniform among legal commands) and ``commander``.

``commander`` keeps to the legal commands it is given and scores them with the rules' own
numbers: it recruits on threatened frontier bases, attacks where the tower odds favour it,
plays bonus cards in the battles its camp fights, and passes otherwise.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar

from companion.engine import Command

from .ctx import Ctx
from .data import GameData, default_data
from .odds import attack_odds
from .state import State

_DEFAULT_WIN = 0.62


class RandomPolicy:
    """Uniform among the legal commands."""

    def choose(self, state: Any, legal: Sequence[Command], rng: random.Random) -> Command:
        return legal[rng.randrange(len(legal))]


def _bonus_value(ctx: Ctx, card: str) -> int:
    return max(
        (int(a.params.get("n", 0)) for a in ctx.d.card_by_id[card].abilities),
        default=0,
    )


class Commander:
    """A heuristic commander built on the odds and the legal commands.

    It reads the map, cards and recruitment from ``data``: the contract builds a policy with no
    arguments, so :func:`policies_for` hands the game's data over as a class attribute.
    """

    data: ClassVar[GameData | None] = None

    def __init__(
        self,
        win_threshold: float = _DEFAULT_WIN,
        samples: int = 400,
        garrison: int = 1,
        data: GameData | None = None,
    ) -> None:
        self._data = data or type(self).data or default_data()
        self.win_threshold = win_threshold
        self.samples = samples
        self.garrison = garrison

    def choose(self, state: State, legal: Sequence[Command], rng: random.Random) -> Command:
        ctx = Ctx(self._data, state)
        if ctx.d.card_by_id.keys() != state.cards.keys():
            # Another game's data: scoring would read the wrong map. Only an unbound policy
            # can get here (the game's own policies carry its data).
            return legal[rng.randrange(len(legal))]
        by_name: dict[str, list[Command]] = {}
        for c in legal:
            by_name.setdefault(c.name, []).append(c)
        for name in ("choose_units", "smoke_discard"):
            if name in by_name:
                return by_name[name][0] if name == "choose_units" else self._smoke(ctx, by_name)
        if "choose_start" in by_name:
            return rng.choice(by_name["choose_start"])
        if "choose_hand" in by_name:
            return max(by_name["choose_hand"], key=lambda c: self._hand_score(ctx, c))
        if "recruit" in by_name:
            return max(by_name["recruit"], key=lambda c: self._recruit_score(ctx, c, rng))
        if "attack" in by_name or "end_move" in by_name:
            return self._move(ctx, by_name, rng)
        if "activate" in by_name:
            best = self._battle_card(ctx, by_name["activate"])
            if best is not None:
                return best
        if "pass" in by_name:
            return by_name["pass"][0]
        return legal[rng.randrange(len(legal))]

    # --- pieces -------------------------------------------------------------------------------
    def _smoke(self, ctx: Ctx, by_name: dict[str, list[Command]]) -> Command:
        options = by_name["smoke_discard"]
        cards = [c for c in options if c.args["card"] != "none"]
        if not cards:
            return options[0]
        return min(cards, key=lambda c: _bonus_value(ctx, c.args["card"]))

    def _hand_score(self, ctx: Ctx, cmd: Command) -> float:
        cards = cmd.args["cards"]
        types = {ctx.d.card_by_id[c].type for c in cards}
        return sum(_bonus_value(ctx, c) for c in cards) + 1.5 * len(types) + len(cards)

    def _recruit_score(self, ctx: Ctx, cmd: Command, rng: random.Random) -> float:
        """Reinforce where enemies stand next door, and where there is something to take."""
        s = ctx.s
        base = cmd.args["base"]
        seat = cmd.seat
        assert seat is not None
        camp = s.players[seat]["camp"]
        here = ctx.friendly_units(base, seat)
        room = 10 - here
        if room <= 0:
            return -100.0
        threat = 0
        chances = 0.0
        for n in ctx.d.adjacency[base]:
            owner_camp = ctx.owner_camp(n)
            if owner_camp is None:
                chances += 1.0
            elif owner_camp != camp:
                enemy = s.camp_units(n, owner_camp)
                threat += enemy
                chances += 2.0 if enemy < here else 0.5
        return threat - 0.6 * here + chances + 0.1 * room + rng.random() * 0.01

    def _move(self, ctx: Ctx, by_name: dict[str, list[Command]], rng: random.Random) -> Command:
        s = ctx.s
        end = by_name.get("end_move", [None])[0]
        best: tuple[float, Command] | None = None
        settled: dict[str, bool] = {}
        odds_of: dict[tuple[str, int], float] = {}  # the odds do not depend on the card played
        for cmd in by_name.get("attack", []):
            if "paired_card" in cmd.args:
                continue  # a second card spent on protection the odds do not model
            seat = cmd.seat
            assert seat is not None
            target = cmd.args["to"]
            units = cmd.args["units"]
            origin = cmd.args["from"]
            if target not in settled:
                settled[target] = self._already_won(ctx, seat, target, rng)
            if settled[target]:
                continue  # another card and more units there would be wasted
            own_left = s.units_of(origin, s.colour_of(seat)) - units
            owner = ctx.owner(target)
            if owner is None and not s.units.get(target):
                # An empty unowned base costs the one unit that takes it (CPX-91): one unit buys
                # a base (a card and a higher recruitment row), a second one would guard it.
                score = 3.5 - 0.4 * abs(units - self.garrison) - (0.3 if own_left < 2 else 0)
            else:
                if (target, units) not in odds_of:
                    odds_of[target, units] = attack_odds(
                        ctx.d,
                        s,
                        seat,
                        target,
                        units,
                        samples=self.samples,
                        seed=rng.randrange(1 << 30),
                    ).win
                win = odds_of[target, units]
                if win < self.win_threshold:
                    continue
                score = 4.0 * win + 0.2 * units - (0.5 if own_left < 2 else 0)
            cheap = -0.1 * _bonus_value(ctx, cmd.args["card"])
            total = score + cheap
            if best is None or total > best[0]:
                best = (total, cmd)
        if best is not None:
            return best[1]
        if end is not None:
            return end
        return rng.choice([c for cmds in by_name.values() for c in cmds])

    def _already_won(self, ctx: Ctx, seat: int, target: str, rng: random.Random) -> bool:
        """Our camp's units already there take the base (unowned, no rival) or win likely."""
        s = ctx.s
        camp = s.players[seat]["camp"]
        ours = s.camp_units(target, camp)
        if not ours:
            return False
        rivals = sum(s.units.get(target, {}).values()) - ours
        if ctx.owner(target) is None and rivals == 0:
            return True
        odds = attack_odds(
            ctx.d, s, seat, target, 0, samples=self.samples, seed=rng.randrange(1 << 30)
        )
        return odds.win >= self.win_threshold + 0.15

    def _battle_card(self, ctx: Ctx, options: list[Command]) -> Command | None:
        s = ctx.s
        b = s.battle
        scored: list[tuple[float, Command]] = []
        for cmd in options:
            ab = ctx.d.ability_by_id[cmd.args["ability"]]
            if ab.kind in ("cancel_one", "cancel_by_type", "smoke"):
                targets = [a for a in s.stack if a["camp"] != s.players[cmd.seat]["camp"]]
                if any(
                    a["kind"] in ("attack_bonus", "defence_bonus", "side_bonus") for a in targets
                ):
                    scored.append((2.0, cmd))
                continue
            if b is None or s.stack:
                continue
            if ab.kind in (
                "attack_bonus",
                "defence_bonus",
                "side_bonus",
                "attack_bonus_in_kind",
                "defence_bonus_if_units",
            ):
                scored.append((float(ab.params["n"]), cmd))
            elif ab.kind in ("destroy_units", "sacrifice_destroy"):
                scored.append((1.5, cmd))
        if not scored:
            return None
        return max(scored, key=lambda x: x[0])[1]


POLICIES: dict[str, type] = {"commander": Commander, "random": RandomPolicy}
"""The policies on the shipped data."""


def policies_for(data: GameData) -> dict[str, type]:
    """The policies bound to ``data`` (constructed with no arguments, as the contract asks)."""
    bound = type("Commander", (Commander,), {"data": data, "__doc__": Commander.__doc__})
    return {"commander": bound, "random": RandomPolicy}
