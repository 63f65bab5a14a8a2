"""The Allies vs Axis table for people: the view, every button's words and an AI's moves as
instructions, in all three languages, over a whole self-played game."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest
from flask import Flask, render_template

from companion.engine import Command, CountForm, Limit
from companion.games import GameRegistry
from companion.games.ava import GAME as AVA
from companion.session import SessionService
from companion.store import Store
from tests.support.selfplay import transitions
from web_ui import boards, create_app
from web_ui.auth import TablePins
from web_ui.boards import ava

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def states() -> list[tuple[Any, Command]]:
    """(state, the command an AI chose in it) along a game of Battleship against Plane."""
    setup = AVA.selfplay_setup(["battleship", "plane"], seed=5)
    return [(state, command) for state, command, _, _ in transitions(AVA, setup, 5, 400)]


@pytest.fixture
def app(tmp_path: Any) -> Flask:
    service = SessionService(Store(tmp_path / "t.db"), GameRegistry())
    return create_app(service, simulate=True, pins=TablePins("2468", "1357"))


@pytest.mark.parametrize("language", ["en", "zh_Hans", "zh_Hant"])
def test_view_labels_and_instructions_in_each_language(
        app: Flask, states: list[tuple[Any, Command]], language: str) -> None:
    with app.test_request_context("/", headers={"Cookie": f"tc_lang={language}"}):
        for state, command in states[::7]:
            html = render_template("boards/ava.html", board=ava.view(AVA, state))
            assert html.count('class="sq') == 36
            actions = boards.actions(AVA, state, lambda seat: True)
            assert all(b["bases"] == "" for b in actions["buttons"])  # no places to filter by
            words = [b["label"] for b in actions["buttons"]] + [f.title for f in actions["forms"]]
            words.append(ava.instruction(AVA, state, command))
            for text in words:
                assert text and "{" not in text and "_" not in text, text
                assert bool(CJK.search(text)) == (language != "en") or text.isdigit(), text


UNITS = Limit("units", {"I": 1, "T": 1}, min=1)
RECRUIT = CountForm("recruit", 0, {"I": (0, 5), "T": (0, 2)},
                    (Limit("cost", {"I": 50, "T": 140}, max=700), UNITS))


def test_form_key_is_what_the_form_is() -> None:
    """The tablet keeps a half-entered form when the redrawn one has the same key (app.js): an
    equal form, built again (counts in another order too), keeps it; another range, limit, seat
    or fixed arg makes another form."""
    cost = Limit("cost", {"T": 140, "I": 50}, max=700)
    again = CountForm("recruit", 0, {"T": (0, 2), "I": (0, 5)},
                      (cost, Limit("units", {"T": 1, "I": 1}, min=1)))
    assert boards.form_key(again) == boards.form_key(RECRUIT)
    assert boards.FormView(RECRUIT, "Recruit", presets=[{"I": 1}]).key == boards.form_key(RECRUIT)
    changed = [
        replace(RECRUIT, counts={"I": (0, 4), "T": (0, 2)}),  # fewer infantry now
        replace(RECRUIT, counts={"I": (1, 5), "T": (0, 2)}),
        replace(RECRUIT, counts={"I": (0, 5)}),
        replace(RECRUIT, limits=(Limit("cost", {"I": 50, "T": 140}, max=650), UNITS)),
        replace(RECRUIT, seat=1),
        replace(RECRUIT, name="garrison"),
        replace(RECRUIT, fixed={"square": 4}),
        replace(RECRUIT, within="counts"),
    ]
    keys = {boards.form_key(f) for f in changed}
    assert len(keys) == len(changed) and boards.form_key(RECRUIT) not in keys


def test_every_drawn_form_carries_its_key(app: Flask, states: list[tuple[Any, Command]]) -> None:
    """Over a game: each rendered count form's data-form-key is its form's key, and the same
    state drawn twice gives the same keys."""
    drawn = 0
    with app.test_request_context("/"):
        for state, _ in states[::3]:
            actions = boards.actions(AVA, state, lambda seat: True)
            html = render_template("boards/actions.html", board=ava.view(AVA, state),
                                   actions=actions, limit_label=boards.limit_label)
            keys = re.findall(r'data-form-key="([0-9a-f]+)"', html)
            assert keys == [boards.form_key(v.form) for v in actions["forms"]]
            assert keys == [v.key for v in boards.actions(AVA, state, lambda seat: True)["forms"]]
            drawn += len(keys)
    assert drawn > 0
