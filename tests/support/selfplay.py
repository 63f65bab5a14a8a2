"""A seeded self-played game, step by step: the states the board and redaction tests walk."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from companion.engine import Command, Event, Game, Setup


def transitions(
    game: Game, setup: Setup, seed: int, limit: int
) -> Iterator[tuple[Any, Command, Any, list[Event]]]:
    """(state, command, next state, events) for up to ``limit`` steps of a game every seat of
    which is an AI, chance drawn from the game's own model."""
    policies = {k: v() for k, v in game.policies().items()}
    rng = random.Random(seed)
    state = game.initial_state(setup)
    for _ in range(limit):
        if game.is_over(state):
            return
        command = game.simulate_chance(state, rng)
        if command is None:
            seat = game.to_act(state)[0]
            legal = [c for c in game.legal_commands(state) if c.seat == seat]
            command = policies[setup.seats[seat].ai].choose(state, legal, rng)
        new, events = game.apply(state, command)
        yield state, command, new, events
        state = new
