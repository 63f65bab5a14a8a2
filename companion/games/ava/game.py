"""The Allies vs Axis engine behind the ``companion.engine.Game`` contract."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from companion.engine import (
    JSON,
    Command,
    CountForm,
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
from companion.games.ava.data import MODE_IDS, UNIT_TYPES, load_data
from companion.games.ava.formulas import army_power
from companion.games.ava.state import OFFER, SIDE_NAMES, SPIN, AvaState, from_json, to_json

UNIT_WORDS = (("infantry", "infantry"), ("tank", "tanks"), ("plane", "planes"),
              ("battleship", "battleships"))


def units_text(args: Mapping[str, Any]) -> str:
    """"3 infantry and 2 tanks" from ``{"I": 3, "T": 2, "P": 0, "B": 0}``."""
    parts = [f"{args[key]} {words[args[key] != 1]}"
             for key, words in zip(UNIT_TYPES, UNIT_WORDS, strict=True) if args.get(key)]
    if not parts:
        return "no units"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


class AvaGame(Game):
    id: ClassVar[str] = "ava"
    title: ClassVar[str] = "Allies vs Axis"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 2
    modes: ClassVar[Sequence[str]] = MODE_IDS
    event_schema_version: ClassVar[int] = 1

    def metrics(self, state: AvaState) -> dict[str, float]:
        """Per side: money, territories held and army power (stockpile plus garrisons)."""
        powers = setup_mod.data_for(state.data_dir).powers
        out: dict[str, float] = {}
        for side, player in enumerate(state.players):
            name = SIDE_NAMES[side].capitalize()
            held = [sq for sq, owner in enumerate(state.owner) if owner == side]
            out[f"{name} money"] = player.money
            out[f"{name} territories"] = len(held)
            out[f"{name} army power"] = army_power(
                [player.available, *(state.garrison[sq] for sq in held)], powers)
        return out

    def instructions(self, state: AvaState, command: Command) -> str:
        """What a person does on the board for an AI's move, in the table's words."""
        data = setup_mod.data_for(state.data_dir)
        square = command.args.get("square", state.landed_square)
        where = data.square(square).name_en if isinstance(square, int) else "the board"
        args = command.args
        name = command.name
        if name == "spin":
            return "Spin the spinner for the AI" if "value" not in args else (
                f"The AI's spin is {args['value']}: move its piece")
        if name == "garrison":
            return f"Put {units_text(args)} on {where}"
        if name == "withdraw":
            return f"Take {units_text(args)} off {where}"
        if name == "recruit":
            return f"Give the AI {units_text(args)} from the bank"
        if name == "invade":
            return f"The AI invades {where} with {units_text(args)}"
        if name == "strategic_move":
            return (f"Move the AI's piece {args.get('steps')} square(s) "
                    f"{args.get('direction')}")
        if name in ("decline_move", "pass", "end_turn"):
            return {"decline_move": "The AI declines the strategic move",
                    "pass": "The AI passes", "end_turn": "The AI ends its turn"}[name]
        if name in ("treaty", "build_base", "ally", "penalty"):
            verb = {"treaty": "signs a treaty with", "build_base": "builds a base on",
                    "ally": "allies with", "penalty": "pays the penalty on"}[name]
            return f"The AI {verb} {where}"
        if name == "use_card":
            card = data.cards.get(str(args.get("card")))
            return f"The AI plays {card.name_en if card else args.get('card')}"
        if name == "pay_ransom":
            return "The AI pays the ransom to leave jail"
        return super().instructions(state, command)

    def initial_state(self, setup: Setup) -> AvaState:
        state = setup_mod.initial_state(setup)
        data = setup_mod.data_for(state.data_dir)
        rules.begin_turn(data, state, [])  # the first S1 gives the first resources (G9)
        return state

    def legal_commands(self, state: AvaState) -> list[Command]:
        return legal.legal_commands(state)

    def count_forms(self, state: AvaState) -> list[CountForm]:
        return legal.count_forms(state)

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

    def seat_choices(self) -> Mapping[str, Sequence[str]]:
        return {"camp": SIDE_NAMES}

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
