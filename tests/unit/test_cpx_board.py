"""The Command Post Exercise table drawn for people (issue 7): ``view`` and ``label`` over every
state of a self-played game, in the three languages, and the board template rendered from them."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask, render_template

from companion.engine import Command
from companion.games.cpx import GAME as CPX
from companion.session import SessionService
from companion.store import Store
from tests.support.selfplay import transitions
from web_ui import boards, create_app
from web_ui.auth import TablePins
from web_ui.boards import cpx


def selfplay_states(seed: int = 3, limit: int = 700) -> list[tuple[Any, Command]]:
    """(state, the command applied to it) along a self-played game, chance from the model."""
    setup = CPX.selfplay_setup(["commander", "commander", "random"], seed=seed)
    return [(state, command) for state, command, _, _ in transitions(CPX, setup, seed, limit)]


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


# --- a tap on a base, the zoom presets, the lists computed once per view ------------------------
def busiest_move(states: list[tuple[Any, Command]]) -> Any:
    moves = [s for s, _ in states if s.phase == "move" and s.acting is not None]
    return max(moves, key=lambda s: len(CPX.legal_commands(s)))


def attribute(html: str, name: str) -> list[str]:
    return [m.replace("&#34;", '"') for m in re.findall(rf'{name}="([^"]*)"', html)]


def test_every_button_form_and_offer_names_its_bases(app: Flask,
                                                     states: list[tuple[Any, Command]]) -> None:
    """A tap on a base shows only what names it (app.js reads data-bases): every attack button
    carries its origin and target, every odds row too, and what names no base carries none."""
    busy = busiest_move(states)
    with app.test_request_context("/"):
        board = boards.board(CPX, busy)
        actions = boards.actions(CPX, busy, lambda seat: True)
        html = render_template("boards/actions.html", board=board, actions=actions,
                               limit_label=boards.limit_label)
        map_html = render_template("boards/cpx.html", board=board)
    attacks = [b for b in actions["buttons"] if b["name"] == "attack"]
    assert len(attacks) > 100
    for button in attacks:
        args = json_args(button["command"])
        assert button["bases"].split() == [args["from"], args["to"]], button
    ends = [b for b in actions["buttons"] if b["name"] == "end_move"]
    assert ends and all(b["bases"] == "" for b in ends)  # stays shown under any filter
    for button in actions["buttons"]:
        if button["name"] == "activate":
            targets = json_args(button["command"])["targets"]
            for key in ("from", "to", "base", "battlefield", "origin"):
                if key in targets:
                    assert targets[key] in button["bases"].split(), button
    # rendered: one data-bases per button that names a base, and one per odds row
    assert len(attribute(html, "data-bases")) == sum(1 for b in actions["buttons"] if b["bases"])
    rows = re.findall(r'<tr data-bases="([^"]*)">', map_html)
    assert len(rows) == len(board["offers"]) > 0
    assert rows == [f"{o['from_id']} {o['to_id']}" for o in board["offers"]]


def json_args(command: str) -> dict[str, Any]:
    import json

    args: dict[str, Any] = json.loads(command)["args"]
    return args


def test_places_of_every_listed_command_over_a_game(states: list[tuple[Any, Command]]) -> None:
    """Whatever a command names under from, to or base (and Rapid Deployment's FROM>TO keys)
    is among its places, and its places are bases only."""
    bases = set(CPX.data.base_by_id)
    seen = set()
    for state, _ in states[::9]:
        for command in CPX.legal_commands(state):
            found = cpx.places(CPX, dict(command.args))
            assert set(found) <= bases and len(found) == len(set(found)), command
            for key in ("from", "to", "base"):
                if key in command.args:
                    assert command.args[key] in found, command
            if found:
                seen.add(command.name)
        for form in CPX.count_forms(state):
            for key in form.counts:
                if ">" in key:
                    assert set(key.split(">")) <= set(cpx.places(CPX, [list(form.counts)]))
    assert {"choose_start", "recruit", "attack"} <= seen
    assert cpx.places(CPX, {"counts": {"red": 2}, "card": "C05", "source": "camera"}) == []


def test_zoom_presets_frame_their_bases_in_the_maps_shape(
        app: Flask, states: list[tuple[Any, Command]]) -> None:
    """A region's button sets the map's viewBox to its preset: inside the whole map, of the
    same shape (so it fills the map's frame), closer in, and with its bases in view."""
    with app.test_request_context("/"):
        m = cpx.view(CPX, states[0][0])["map"]
    fx, fy, fw, fh = (float(v) for v in m["viewbox"].split())
    at = {b["id"]: (b["x"], b["y"]) for b in m["bases"]}
    presets = {r["id"]: [float(v) for v in r["viewbox"].split()] for r in m["regions"]}
    assert set(presets) == {"europe", "east_asia"}
    for rid, (x, y, w, h) in presets.items():
        assert fx <= x and x + w <= fx + fw + 0.2 and fy <= y and y + h <= fy + fh + 0.2, rid
        assert abs(w / h - fw / fh) < 0.01 and w <= fw / cpx.REGION_MIN_ZOOM, rid
    x, y, w, h = presets["europe"]
    for base in ("london", "paris", "berlin", "rome", "moscow", "istanbul"):
        bx, by = at[base]
        assert x < bx < x + w and y < by < y + h, base


class Counted:
    """Counts the calls of one engine method (the lists a view is drawn from)."""

    def __init__(self, method: Callable[[Any], Any]) -> None:
        self.method, self.calls = method, 0

    def __call__(self, state: Any) -> Any:
        self.calls += 1
        return self.method(state)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Counted, Counted]]:
    legal, forms = Counted(CPX.legal_commands), Counted(CPX.count_forms)
    monkeypatch.setattr(CPX, "legal_commands", legal)
    monkeypatch.setattr(CPX, "count_forms", forms)
    yield legal, forms


def test_the_lists_are_computed_once_per_view(app: Flask, states: list[tuple[Any, Command]],
                                              counted: tuple[Counted, Counted]) -> None:
    """A busy move turn lists hundreds of commands: one view (the board with its offers and
    count names, and the buttons) computes them once, or not at all when handed them."""
    busy = busiest_move(states)
    legal, forms = counted
    legal.calls = forms.calls = 0  # finding the busiest state counted too
    with app.test_request_context("/"):
        boards.board(CPX, busy)
        boards.actions(CPX, busy, lambda seat: True)
        boards.actions(CPX, busy, lambda seat: seat == 0)  # another tablet's view, same request
    assert (legal.calls, forms.calls) == (1, 1)
    given = (CPX.legal_commands.method(busy), CPX.count_forms.method(busy))
    legal.calls = forms.calls = 0
    with app.test_request_context("/"):
        board = boards.board(CPX, busy, legal=given[0], forms=given[1])
        shown = boards.actions(CPX, busy, lambda seat: True, legal=given[0], forms=given[1])
    assert (legal.calls, forms.calls) == (0, 0)
    with app.test_request_context("/"):  # the same drawing as when computed here
        assert boards.board(CPX, busy) == board
        assert boards.actions(CPX, busy, lambda seat: True)["buttons"] == shown["buttons"]
    without = busy
    for state, _ in states:  # a new state in the same request is not mistaken for the old
        if state.phase == "recruit":
            without = state
            break
    with app.test_request_context("/"):
        first = boards.actions(CPX, busy, lambda seat: True)
        second = boards.actions(CPX, without, lambda seat: True)
    assert first["buttons"] != second["buttons"]
    assert {b["name"] for b in second["buttons"]} <= {"recruit", "activate", "pass"}


def test_a_table_refresh_computes_the_lists_once(app: Flask,
                                                 counted: tuple[Counted, Counted]) -> None:
    """The table's live refresh (``/sessions/<id>/view``) draws board and buttons from one
    computation of the lists."""
    from tests.integration.test_api import joined

    client = joined(app.test_client())
    created = client.post("/api/sessions", json={"game": "cpx", "seats": [
        {"name": "Ann", "colour": "soviet", "camp": "A"},
        {"name": "Bob", "colour": "allies", "camp": "B"}]})
    assert created.status_code == 201, created.json
    legal, forms = counted
    legal.calls = forms.calls = 0
    reply = client.get(f"/sessions/{created.json['session']['id']}/view")
    assert reply.status_code == 200 and "data-bases=" in reply.json["actions"]
    assert (legal.calls, forms.calls) == (1, 1)
