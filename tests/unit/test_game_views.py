"""Replay metrics and physical-table instructions of the two shipped games (issue 7: replay
plots, AI seats at a physical table)."""

from __future__ import annotations

import random

import pytest

from companion.engine import Command, Game
from companion.games.ava import GAME as AVA
from companion.games.cpx import GAME as CPX
from companion.selfplay import play_one


@pytest.mark.parametrize(("game", "ais"), [(AVA, ["tank", "plane"]),
                                           (CPX, ["commander", "random"])])
def test_metrics_and_instructions_follow_a_whole_game(game: Game, ais: list[str]) -> None:
    setup = game.selfplay_setup(ais, seed=3)
    final, log = play_one(game, setup, random.Random(3))
    start = game.metrics(game.initial_state(setup))
    end = game.metrics(final)
    assert start.keys() == end.keys() and len(start) >= 3
    assert all(isinstance(v, int | float) for v in end.values())
    assert start != end
    state = game.initial_state(setup)
    for command in log[:300]:
        if command.seat is not None:
            text = game.instructions(state, command)
            assert text and "{" not in text, text  # words for people, not JSON
        state, _ = game.apply(state, command)


def test_ava_instructions_name_units_and_places() -> None:
    state = AVA.initial_state(AVA.selfplay_setup(["tank", "tank"], seed=1))
    text = AVA.instructions(state, Command("garrison", {"square": 24, "I": 4, "T": 1, "P": 0,
                                                        "B": 0}, 0))
    assert text == "Put 4 infantry and 1 tank on Austria"
    assert AVA.instructions(state, Command("recruit", {"I": 0, "T": 3, "P": 2, "B": 0}, 0)) == (
        "Give the AI 3 tanks and 2 planes from the bank")


def test_cpx_attack_instruction_names_bases_cubes_and_card() -> None:
    state = CPX.initial_state(CPX.selfplay_setup(["random", "random"], seed=0))
    colour = state.players[0]["colour"]
    text = CPX.instructions(state, Command("attack", {"from": "moscow", "to": "kiev", "units": 3,
                                                      "card": "C01"}, 0))
    assert text.startswith(f"Move 3 {colour} cubes from ") and ", play " in text
