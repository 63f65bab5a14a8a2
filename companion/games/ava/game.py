"""The Allies vs Axis engine behind the ``companion.engine.Game`` contract."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from companion.engine import (
    JSON,
    Command,
    Deadline,
    Event,
    Game,
    Outcome,
    RuleOption,
    Seat,
    Setup,
)
from companion.games.ava import legal, rules
from companion.games.ava import options as opts
from companion.games.ava import setup as setup_mod
from companion.games.ava.data import MODE_IDS, load_data
from companion.games.ava.state import OFFER, SIDE_NAMES, SPIN, AvaState, from_json, to_json


class AvaGame(Game):
    id: ClassVar[str] = "ava"
    title: ClassVar[str] = "Allies vs Axis"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 2
    modes: ClassVar[Sequence[str]] = MODE_IDS
    event_schema_version: ClassVar[int] = 1

    def initial_state(self, setup: Setup) -> AvaState:
        state = setup_mod.initial_state(setup)
        data = setup_mod.data_for(state.data_dir)
        rules.begin_turn(data, state, [])  # the first S1 gives the first resources (G9)
        return state

    def legal_commands(self, state: AvaState) -> list[Command]:
        return legal.legal_commands(state)

    def apply(self, state: AvaState, command: Command) -> tuple[AvaState, list[Event]]:
        return rules.apply(state, command)

    def dump_state(self, state: AvaState) -> JSON:
        return to_json(state)

    def load_state(self, data: JSON) -> AvaState:
        return from_json(data)

    def outcome(self, state: AvaState) -> Outcome | None:
        if state.result is None:
            return None
        winner = state.result["winner"]
        seats = [] if winner is None else [state.players[SIDE_NAMES.index(winner)].seat]
        return Outcome(winners=seats, reason=state.result["reason"], turns=state.result["round"])

    def deadline(self, state: AvaState) -> Deadline | None:
        """AVA-50: no answer inside the window counts as declining the strategic move."""
        at = rules.offer_deadline(state)
        if at is None:
            return None
        return Deadline(at=at, command=Command("decline_move", {}, seat=state.me.seat))

    def rule_options(self) -> Sequence[RuleOption]:
        return opts.rule_options(load_data().settings_defaults)

    def policies(self) -> Mapping[str, type]:
        from companion.games.ava.ai import POLICIES

        return dict(POLICIES)

    def simulate_chance(self, state: AvaState, rng: random.Random) -> Command | None:
        """A spin when the game waits for one and the player has nothing else to do first."""
        if state.result is not None or state.step != SPIN:
            return None
        if any(c.name != "spin" for c in legal.legal_commands(state)):
            return None
        return Command("spin", {"value": rng.randint(1, 6)}, seat=state.me.seat)

    def selfplay_setup(self, ais: Sequence[str], seed: int, mode: str | None = None) -> Setup:
        """Seat i plays side i (0 Allies, 1 Axis); a 300-round limit guarantees an end."""
        if len(ais) != 2:
            raise ValueError("Allies vs Axis self-play needs exactly two AIs")
        seats = [
            Seat(name=f"{ai} ({side})", camp=side, ai=ai)
            for ai, side in zip(ais, SIDE_NAMES, strict=True)
        ]
        return Setup(seats=seats, mode=mode, options={"turn_limit": 300}, seed=seed)

    def summary(self, state: AvaState) -> str:
        data = setup_mod.data_for(state.data_dir)
        lines = [f"Allies vs Axis, {state.mode}, round {state.round}, step {state.step}"]
        for side, p in enumerate(state.players):
            owned = [data.square(n).name_en for n in rules.owned_squares(state, side)]
            lines.append(
                f"{p.side:6} ({p.controller}) on {p.position}: $M {p.money}, units "
                f"I{p.available[0]} T{p.available[1]} P{p.available[2]} B{p.available[3]}, "
                f"jail {p.jail_count}{' (jailed)' if p.jailed else ''}, "
                f"cards {list(p.kept_cards)}, owns {len(owned)}: {', '.join(owned)}"
            )
        if state.result:
            lines.append(f"over: {state.result}")
        else:
            lines.append(f"to act: {state.me.side}")
        if state.step == OFFER:
            lines.append("strategic move offer open")
        return "\n".join(lines)

    def profile_updates(self, setup: Setup, state: AvaState) -> Mapping[str, JSON]:
        """AVA-135: a human beating the Battleship AI unlocks the next mode for his profile."""
        if state.result is None or state.result["winner"] is None:
            return {}
        data = setup_mod.data_for(state.data_dir)
        win_side = SIDE_NAMES.index(state.result["winner"])
        winner = state.players[win_side]
        loser = state.players[1 - win_side]
        seat = setup.seats[winner.seat]
        if winner.controller != "human" or loser.controller != "battleship_ai" or not seat.profile:
            return {}
        order = data.mode_order()
        index = order.index(state.mode)
        if index + 1 >= len(order):
            return {}
        stored: Any = setup.profiles.get(seat.profile) or {}
        profile = dict(stored) if isinstance(stored, Mapping) else {}
        have = setup_mod.unlocked_modes(data, profile)
        new = order[index + 1]
        if new in have:
            return {}
        profile["unlocked_modes"] = [m for m in order if m in {*have, new}]
        return {seat.profile: profile}
