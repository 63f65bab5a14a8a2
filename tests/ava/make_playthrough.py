"""Regenerate the checked-in AVA playthrough: one full seeded game, every command and state.

Like OpenSpiel's playthroughs, the file pins a whole trajectory; ``test_playthrough`` replays it
and diffs. Run ``.venv/bin/python -m tests.ava.make_playthrough`` after an intended rules change
and review the diff. Each line is JSON: first the setup and initial state, then per step the
command, the events' kinds, and the fields of the state that changed (the full state is the
initial one plus every change).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from companion.engine import Command, Setup
from companion.games.ava import GAME

PATH = Path(__file__).with_name("playthrough_regular.jsonl")
SEED = 2024
AIS = ("battleship", "plane")


def setup() -> Setup:
    base = GAME.selfplay_setup(list(AIS), seed=SEED, mode="regular")
    return Setup(
        seats=base.seats,
        mode="regular",
        seed=SEED,
        options={
            "turn_limit": 100,
            "turn_limit_unit": "player_turn",
            "battleship_ai_advantage": "army",
        },
    )


def changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in after.items():
        if key == "players":
            for i, (p0, p1) in enumerate(zip(before[key], value, strict=True)):
                diff = {k: v for k, v in p1.items() if p0[k] != v}
                if diff:
                    out[f"players.{i}"] = diff
        elif before[key] != value:
            out[key] = value
    return out


def lines() -> list[str]:
    """The playthrough as JSON lines, computed afresh."""
    st = setup()
    state = GAME.initial_state(st)
    policies = {name: cls() for name, cls in GAME.policies().items()}
    rng = random.Random(SEED)
    out = [
        json.dumps(
            {"setup": st.to_json(), "state": GAME.dump_state(state)},
            sort_keys=True,
            ensure_ascii=False,
        )
    ]
    while not GAME.is_over(state):
        command = GAME.simulate_chance(state, rng)
        if command is None:
            ai = st.seats[state.me.seat].ai
            command = policies[ai].choose(state, GAME.legal_commands(state), rng)
        command = Command(command.name, command.args, seat=command.seat, seed=rng.randrange(2**31))
        before = GAME.dump_state(state)
        state, events = GAME.apply(state, command)
        out.append(
            json.dumps(
                {
                    "command": command.to_json(),
                    "events": [e.kind for e in events],
                    "changed": changed(before, GAME.dump_state(state)),
                },
                sort_keys=True,
                ensure_ascii=False,
            )
        )
    outcome = GAME.outcome(state)
    assert outcome is not None
    out.append(json.dumps({"outcome": outcome.to_json()}, sort_keys=True))
    return out


def main() -> None:
    text = "\n".join(lines()) + "\n"
    PATH.write_text(text, encoding="utf-8")
    print(f"wrote {PATH} ({len(text.splitlines())} lines, {len(text)} bytes)")


if __name__ == "__main__":
    main()
