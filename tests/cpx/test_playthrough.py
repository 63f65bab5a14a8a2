"""The pinned 4-player playthrough: replay determinism over a whole game (CPX-29 event log)."""

from __future__ import annotations

import json

from companion.engine import Command, Setup
from companion.games.cpx import GAME

from .playthrough import FILE, generate, state_hash


def test_playthrough_replays_exactly_cpx_29() -> None:
    """Replaying the logged commands reproduces every state hash and the final state."""
    pinned = json.loads(FILE.read_text())
    s = GAME.initial_state(Setup.from_json(pinned["setup"]))
    for step in pinned["steps"]:
        s, events = GAME.apply(s, Command.from_json(step["command"]))
        assert [e.kind for e in events] == step["events"]
        assert state_hash(s) == step["state"]
    assert GAME.dump_state(s) == pinned["final"]


def test_playthrough_regenerates_identically() -> None:
    """The script, run again (AIs and simulated tower included), gives the same file."""
    fresh = json.loads(json.dumps(generate(), ensure_ascii=False, sort_keys=True))
    pinned = json.loads(FILE.read_text())
    assert fresh == pinned
