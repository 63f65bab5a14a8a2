"""A tiny game that exercises every part of the engine contract, for testing the session service.

Each turn the table spins (chance as data, ``seat=None``), the player to move adds 1–3 to a
shared total, and is then offered a time-limited "double" (add the spin again) that lapses into a
decline. First to reach the target wins. Schema version 2 renamed ``add``'s ``amount`` to ``n``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from companion.engine import (
    Command,
    Deadline,
    Event,
    Game,
    IllegalMove,
    Outcome,
    RuleOption,
    Setup,
)


class Greedy:
    def choose(self, state: Any, legal: Sequence[Command], rng: random.Random) -> Command:
        return max(legal, key=lambda c: (c.name != "decline", c.args.get("n", 0)))


class Uniform:
    def choose(self, state: Any, legal: Sequence[Command], rng: random.Random) -> Command:
        return rng.choice(list(legal))


class Tally(Game):
    id = "tally"
    title = "Tally"
    min_seats = 2
    max_seats = 2
    event_schema_version = 2

    def rule_options(self) -> Sequence[RuleOption]:
        return (
            RuleOption("target", 21, "Total that wins."),
            RuleOption("window_s", 3, "Seconds to take the double offer; null for no limit."),
        )

    def initial_state(self, setup: Setup) -> dict[str, Any]:
        target = setup.options.get("target", 21)
        if not isinstance(target, int) or target < 1:
            raise IllegalMove("E_BAD_SETUP", "The target must be a whole number of at least 1.")
        if setup.mode not in (None, "normal", "locked"):
            raise IllegalMove("E_BAD_SETUP", f"Tally has no mode '{setup.mode}'.")
        if setup.mode == "locked":
            profile = setup.seats[0].profile
            if not (profile and setup.profiles.get(profile, {}).get("wins", 0) >= 1):
                raise IllegalMove("E_MODE_LOCKED", "Win a normal game first to unlock this mode.")
        return {
            "total": 0,
            "turn": 0,
            "phase": "spin",
            "spin": None,
            "offer_at": None,
            "target": target,
            "window_s": setup.options.get("window_s", 3),
            "turns": 0,
            "winner": None,
        }

    def legal_commands(self, state: Mapping[str, Any]) -> list[Command]:
        if state["winner"] is not None:
            return []
        if state["phase"] == "spin":
            return [Command("spin", {"value": v}) for v in range(1, 7)]
        seat = state["turn"]
        if state["phase"] == "add":
            return [Command("add", {"n": n}, seat) for n in (1, 2, 3)]
        return [Command("double", {}, seat), Command("decline", {}, seat)]

    def apply(
        self, state: Mapping[str, Any], command: Command
    ) -> tuple[dict[str, Any], list[Event]]:
        if state["winner"] is not None:
            raise IllegalMove("E_GAME_OVER", "The game is over.")
        new = dict(state)
        name, args = command.name, command.args
        if name not in ("spin", "add", "double", "decline"):
            raise IllegalMove("E_UNKNOWN_COMMAND", f"Tally has no command '{name}'.")
        if name != "spin" and command.seat != state["turn"]:
            raise IllegalMove("E_NOT_YOUR_TURN", f"It is seat {state['turn']}'s turn.")
        wanted = {"spin": "spin", "add": "add", "double": "offer", "decline": "offer"}[name]
        if state["phase"] != wanted:
            raise IllegalMove("E_WRONG_STEP", f"You cannot {name} now.")
        if name == "spin":
            value = args.get("value")
            if not isinstance(value, int) or not 1 <= value <= 6:
                raise IllegalMove("E_BAD_VALUE", "A spin is a whole number from 1 to 6.")
            new.update(phase="add", spin=value)
            return new, [Event("spun", {"value": value})]
        if name == "add":
            n = args.get("n")
            if n not in (1, 2, 3):
                raise IllegalMove("E_BAD_VALUE", "You can add 1, 2 or 3.")
            new.update(total=state["total"] + n, phase="offer", offer_at=command.at)
            return self._maybe_win(new, [Event("added", {"seat": command.seat, "n": n})])
        if name == "double":
            window = state["window_s"]
            if window is not None and command.at is not None and state["offer_at"] is not None \
                    and command.at > state["offer_at"] + window:
                raise IllegalMove("E_WINDOW_CLOSED", "The offer has closed.")
            new["total"] = state["total"] + state["spin"]
            return self._maybe_win(new, [Event("doubled", {"seat": command.seat})], next_turn=True)
        return self._next_turn(new), [Event("declined", {"seat": command.seat})]

    def _maybe_win(
        self, new: dict[str, Any], events: list[Event], next_turn: bool = False
    ) -> tuple[dict[str, Any], list[Event]]:
        if new["total"] >= new["target"]:
            new["winner"] = new["turn"]
            return new, [*events, Event("won", {"seat": new["turn"]})]
        return (self._next_turn(new) if next_turn else new), events

    def _next_turn(self, new: dict[str, Any]) -> dict[str, Any]:
        new.update(turn=1 - new["turn"], phase="spin", spin=None, offer_at=None,
                   turns=new["turns"] + 1)
        return new

    def deadline(self, state: Mapping[str, Any]) -> Deadline | None:
        if state["phase"] != "offer" or state["window_s"] is None or state["offer_at"] is None:
            return None
        return Deadline(state["offer_at"] + state["window_s"],
                        Command("decline", {}, state["turn"]))

    def outcome(self, state: Mapping[str, Any]) -> Outcome | None:
        if state["winner"] is None:
            return None
        return Outcome([state["winner"]], "target reached", state["turns"] + 1)

    def metrics(self, state: Mapping[str, Any]) -> Mapping[str, float]:
        return {"total": state["total"], "turns": state["turns"]}

    def dump_state(self, state: Mapping[str, Any]) -> dict[str, Any]:
        return dict(state)

    def load_state(self, data: Mapping[str, Any]) -> dict[str, Any]:
        return dict(data)

    def policies(self) -> Mapping[str, type]:
        return {"greedy": Greedy, "random": Uniform}

    def simulate_chance(self, state: Mapping[str, Any], rng: random.Random) -> Command | None:
        return Command("spin", {"value": rng.randint(1, 6)}) if state["phase"] == "spin" else None

    def selfplay_setup(self, ais: Sequence[str], seed: int, mode: str | None = None) -> Setup:
        from companion.engine import Seat

        return Setup([Seat(f"AI {i + 1}", ai=ai) for i, ai in enumerate(ais)], mode, {}, seed)

    def profile_updates(self, setup: Setup, state: Mapping[str, Any]) -> Mapping[str, Any]:
        out = {}
        for i, seat in enumerate(setup.seats):
            if seat.profile:
                wins = setup.profiles.get(seat.profile, {}).get("wins", 0)
                out[seat.profile] = {"wins": wins + (1 if state["winner"] == i else 0)}
        return out

    def upcast(self, kind: str, payload: Any, version: int) -> Any:
        if version < 2 and kind in ("command", "correction"):
            command = dict(payload["command"])
            if command["name"] == "add" and "amount" in command["args"]:
                command["args"] = {"n": command["args"]["amount"]}
            payload = {**payload, "command": command}
        return payload


GAME = Tally()
