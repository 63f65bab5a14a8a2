"""A pinned trajectory of one full seeded 4-player game (OpenSpiel-style playthrough).

Regenerate with ``.venv/bin/python -m tests.cpx.playthrough`` after a deliberate rules change;
``test_playthrough`` regenerates it in memory and diffs it against the file.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

from companion.games.cpx import GAME

FILE = Path(__file__).with_name("playthrough_4p.json")
AIS = ["commander", "random", "commander", "random"]
SEED = 5


def state_hash(state: Any) -> str:
    text = json.dumps(GAME.dump_state(state), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def generate() -> dict[str, Any]:
    rng = random.Random(SEED)
    setup = GAME.selfplay_setup(AIS, SEED)
    policies = {name: cls() for name, cls in GAME.policies().items()}
    s = GAME.initial_state(setup)
    steps = []
    while GAME.outcome(s) is None and len(steps) < 20_000:
        cmd = GAME.simulate_chance(s, rng)
        if cmd is None:
            seat = GAME.to_act(s)[0]
            legal = [c for c in GAME.legal_commands(s) if c.seat == seat]
            cmd = policies[AIS[seat]].choose(s, legal, rng)
        s, events = GAME.apply(s, cmd)
        steps.append(
            {"command": cmd.to_json(), "events": [e.kind for e in events], "state": state_hash(s)}
        )
    out = GAME.outcome(s)
    return {
        "setup": setup.to_json(),
        "steps": steps,
        "outcome": out.to_json() if out else None,
        "final": GAME.dump_state(s),
    }


def main() -> None:
    FILE.write_text(json.dumps(generate(), ensure_ascii=False, indent=0, sort_keys=True) + "\n")
    print(f"wrote {FILE}")


if __name__ == "__main__":
    main()
