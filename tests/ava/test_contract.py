"""The engine contract around the rules: state JSON, options, deadline, AIs, summary (AVA-3,
AVA-17, AVA-20, AVA-24, AVA-50)."""

from __future__ import annotations

import json
import re

import pytest

from companion.engine import Command, Game, IllegalMove
from companion.games import load_game
from companion.games.ava import GAME
from tests.ava.helpers import ALBANIA, ALLIES, arrive, do, new_game, set_player
from tests.ava.test_spec_coverage import SPEC

spec = pytest.mark.spec


def test_game_instance() -> None:
    assert isinstance(GAME, Game) and GAME.id == "ava"
    assert load_game("companion.games.ava:GAME") is GAME
    assert tuple(GAME.modes) == ("regular", "les_miserables", "fierce_battle", "no_italy")


@spec("AVA-20")
def test_state_json_round_trip() -> None:
    s = arrive(
        set_player(new_game(deck_model="shuffled_finite"), ALLIES, money=5000, kept_cards=("S01",)),
        17,
    )
    data = GAME.dump_state(s)
    text = json.dumps(data, sort_keys=True)
    back = GAME.load_state(json.loads(text))
    assert back == s
    assert json.dumps(GAME.dump_state(back), sort_keys=True) == text


def test_load_state_rejects_garbage() -> None:
    good = GAME.dump_state(new_game())
    money_text = json.loads(json.dumps(good))
    money_text["players"][0]["money"] = "lots"
    for bad in (
        None,
        [],
        {"mode": "regular"},
        {**good, "players": [1]},
        {**good, "owner": [0] * 35},
        {**good, "step": "S9"},
        money_text,
    ):
        with pytest.raises(IllegalMove) as info:
            GAME.load_state(bad)
        assert info.value.code == "E_BAD_STATE"


def test_apply_never_mutates_its_input() -> None:
    s = arrive(set_player(new_game(), ALLIES, money=1000, available=(20, 0, 0, 0)), ALBANIA)
    before = json.dumps(GAME.dump_state(s), sort_keys=True)
    do(s, "invade", I=10)
    do(s, "treaty")
    assert json.dumps(GAME.dump_state(s), sort_keys=True) == before


@spec("AVA-3", "AVA-24", "AVA-174")
def test_every_named_rule_option_exists() -> None:
    """AVA-3: the decisions of §18 name rule options; each is offered with its default."""
    text = SPEC.read_text(encoding="utf-8") if SPEC.exists() else pytest.skip("no spec")
    section = text.split("## 18. Gaps and decisions", 1)[1].split("## 19.", 1)[0]
    named: set[str] = set()
    for line in section.splitlines():
        if "→" in line:
            for code in re.findall(r"`([a-z_]+)\s*=", line.split("→")[0] + line):
                named.add(code)
    offered = {o.name: o for o in GAME.rule_options()}
    assert named, "no options parsed from §18"
    assert named <= set(offered), sorted(named - set(offered))
    assert offered["penalty_rounding"].default == "half_up"
    assert offered["penalty_rounding"].choices == ["half_up", "ceil", "floor"]
    assert all(o.description for o in offered.values())


@spec("AVA-17")
def test_summary_shows_the_profile() -> None:
    text = GAME.summary(new_game())
    assert "$M 700" in text and "I9 T3 P2 B1" in text and "owns 2" in text


def test_to_act_and_deadline_and_policies() -> None:
    s = new_game()
    assert GAME.to_act(s) == [0]
    assert GAME.deadline(s) is None
    assert set(GAME.policies()) == {"tank", "plane", "battleship", "random"}


def test_simulate_chance_only_when_waiting_for_a_spin() -> None:
    import random

    s = new_game()
    c = GAME.simulate_chance(s, random.Random(1))
    assert c is not None and c.name == "spin" and 1 <= c.args["value"] <= 6 and c.seat == 0
    with_card = set_player(s, ALLIES, kept_cards=("S04",))
    assert GAME.simulate_chance(with_card, random.Random(1)) is None  # the player may act first
    assert GAME.simulate_chance(do(s, "spin", value=2), random.Random(1)) is None


def test_selfplay_setup() -> None:
    setup = GAME.selfplay_setup(["battleship", "tank"], seed=5, mode="fierce_battle")
    st = GAME.initial_state(setup)
    assert [p.controller for p in st.players] == ["battleship_ai", "tank_ai"]
    assert st.mode == "fierce_battle" and st.options["turn_limit"] == 300
    with pytest.raises(ValueError):
        GAME.selfplay_setup(["tank"], seed=1)


def test_illegal_move_reports_code_and_message() -> None:
    s = new_game()
    with pytest.raises(IllegalMove) as info:
        GAME.apply(s, Command("garrison", {"square": 1, "I": 1}, seat=0))
    assert info.value.to_json()["code"] == "E_WRONG_STEP"
    assert "defences" in info.value.to_json()["message"].lower()
