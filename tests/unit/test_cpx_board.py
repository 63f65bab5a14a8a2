"""The Command Post Exercise table drawn for people (issue 7): ``view`` and ``label`` over every
state of a self-played game, in the three languages, and the board template rendered from them."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from flask import Flask, render_template

from companion.engine import Command
from companion.games.cpx import GAME as CPX
from companion.session import SessionService
from companion.store import Store
from web_ui import create_app
from web_ui.auth import TablePins
from web_ui.boards import cpx


def selfplay_states(seed: int = 3, limit: int = 700) -> list[tuple[Any, Command]]:
    """(state, the command applied to it) along a self-played game, chance from the model."""
    setup = CPX.selfplay_setup(["commander", "commander", "random"], seed=seed)
    policies = {k: v() for k, v in CPX.policies().items()}
    rng = random.Random(seed)
    state = CPX.initial_state(setup)
    out = []
    for _ in range(limit):
        if CPX.outcome(state) is not None:
            break
        command = CPX.simulate_chance(state, rng)
        if command is None:
            seat = CPX.to_act(state)[0]
            legal = [c for c in CPX.legal_commands(state) if c.seat == seat]
            command = policies[setup.seats[seat].ai].choose(state, legal, rng)
        out.append((state, command))
        state, _ = CPX.apply(state, command)
    return out


@pytest.fixture(scope="module")
def states() -> list[tuple[Any, Command]]:
    return selfplay_states()


@pytest.fixture
def app(tmp_path: Any) -> Flask:
    from companion.games import GameRegistry

    service = SessionService(Store(tmp_path / "c.db"), GameRegistry([]))
    return create_app(service, simulate=True, pins=TablePins("2468", "1357"))


def no_json(text: str) -> bool:
    return not any(ch in text for ch in "{}[]\"") and "_" not in text.replace("_(", "")


@pytest.mark.parametrize("language", ["en", "zh_Hans", "zh_Hant"])
def test_view_and_labels_over_a_selfplayed_game(app: Flask, states: list[tuple[Any, Command]],
                                                 language: str) -> None:
    phases = set()
    names = set()
    stride = 1 if language == "en" else 5  # every state in English, a sample in Chinese
    with app.test_request_context("/", headers={"Cookie": f"tc_lang={language}"}):
        for i, (state, applied) in enumerate(states):
            phases.add(state.phase)
            if i % stride:
                continue
            board = cpx.view(CPX, state)
            assert len(board["map"]["bases"]) == 50 and len(board["map"]["routes"]) > 50
            assert len(board["players"]) == 3
            for p in board["players"]:
                assert len(p["hand"]) <= 5
                assert any(c["usable"] for c in p["recruitment"]["cells"]) == (p["base_count"] > 0)
            listed = CPX.legal_commands(state) if i % 4 == 0 else [applied]
            for command in [applied, *listed[:40]]:
                names.add(command.name)
                words = cpx.label(CPX, state, command)
                assert words and no_json(words), (command, words)
            if i % 25 == 0:  # the whole fragment renders
                html = render_template("boards/cpx.html", board=board)
                assert html.count("data-base=") == 50
            for form in CPX.count_forms(state):
                title = cpx.label(CPX, state, Command(form.name, dict(form.fixed), seat=form.seat))
                assert no_json(title), title
                assert all(k in board["count_names"] for k in form.counts), form
    if stride == 1:
        assert {"choose_start", "report_drop", "confirm_drop", "choose_hand", "recruit",
                "attack", "end_move", "pass"} <= names
    assert {"priming", "hand_choice", "recruit", "move", "battle"} <= phases


def test_labels_name_bases_cards_colours_and_odds(app: Flask,
                                                  states: list[tuple[Any, Command]]) -> None:
    with app.test_request_context("/"):
        state = next(s for s, c in states if c.name == "attack")
        attack = next(c for c in CPX.legal_commands(state) if c.name == "attack")
        words = cpx.label(CPX, state, attack)
        base = CPX.data.base_by_id[attack.args["to"]].name_en
        card = CPX.data.card_by_id[attack.args["card"]].name_en
        assert base in words and card in words and "win " in words and "%" in words
        board = cpx.view(CPX, state)
        assert board["offers"] and all(0 <= o["win"] <= 100 for g in board["offers"]
                                       for o in g["odds"])
        drop = next(s for s, c in states if c.name == "report_drop")
        counts = cpx.label(CPX, drop, Command("report_drop", {"counts": {"red": 2, "black": 1}}))
        assert counts == "Fell out: 2 red, 1 black"
        assert cpx.view(CPX, drop)["count_names"]["white"] == "white"
    with app.test_request_context("/", headers={"Cookie": "tc_lang=zh_Hans"}):
        words = cpx.label(CPX, state, attack)
        assert CPX.data.base_by_id[attack.args["to"]].name_zh in words


def test_odds_on_offer_are_probabilities_and_remembered(
        app: Flask, states: list[tuple[Any, Command]]) -> None:
    """Every refresh draws the view for each tablet, so the odds of one state are computed once
    and then remembered (the figures are in tests/bench/bench_dashboard.py)."""
    moves = [s for s, _ in states if s.phase == "move" and s.acting is not None]
    busiest = max(moves, key=lambda s: len(CPX.legal_commands(s)))
    with app.test_request_context("/"):
        cpx._ODDS_CACHE.clear()
        board = cpx.view(CPX, busiest)
        remembered = len(cpx._ODDS_CACHE)
        again = cpx.view(CPX, busiest)
        render_template("boards/cpx.html", board=again)
    odds = [o["win"] for g in board["offers"] for o in g["odds"]]
    assert odds and remembered > 0 and len(cpx._ODDS_CACHE) == remembered
    assert all(0 <= p <= 100 for p in odds) and again["offers"] == board["offers"]


def test_hands_are_shown_only_to_their_seat(app: Flask,
                                             states: list[tuple[Any, Command]]) -> None:
    """CPX-46: each player sees only his own hand; the number of cards in it is public."""
    state = next(s for s, _ in states if s.phase == "move")
    with app.test_request_context("/"):  # no tablet (tests, tools): everything
        shown = cpx.view(CPX, state)["players"]
    assert any(p["hand"] for p in shown)
    with app.test_request_context("/sessions/abc/view"):  # a tablet that holds no seat
        hidden = cpx.view(CPX, state)["players"]
    for p, q in zip(shown, hidden, strict=True):
        assert not q["hand"] and not q["discard"] and not q["shown"]
        assert q["hand_size"] == len(p["hand"]) and q["discard_size"] == len(p["discard"])


@pytest.mark.parametrize("language", ["en", "zh_Hans"])
def test_ai_moves_read_as_instructions_in_the_tablets_language(
        app: Flask, states: list[tuple[Any, Command]], language: str) -> None:
    """An AI's move at a physical table, for a person to carry out: cubes, bases, cards."""
    seen = set()
    with app.test_request_context("/", headers={"Cookie": f"tc_lang={language}"}):
        for state, command in states:
            if command.seat is None:
                continue
            text = cpx.instruction(CPX, state, command)
            assert text and no_json(text), text
            assert bool(re.search(r"[\u4e00-\u9fff]", text)) == (language != "en"), text
            seen.add(command.name)
            if command.name == "recruit" and language == "en":
                n = CPX.recruited(state, command)
                assert text.startswith(f"Put {n} ") and n > 0
    assert {"recruit", "attack", "choose_hand"} <= seen
