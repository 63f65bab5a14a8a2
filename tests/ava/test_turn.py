"""Turn structure, spin and movement (§5, §7: AVA-2, AVA-15, AVA-32..AVA-37, AVA-44..AVA-47)."""

from __future__ import annotations

import pytest

from companion.engine import Command, IllegalMove
from companion.games.ava import GAME
from tests.ava.helpers import (
    ALBANIA,
    ALLIES,
    AXIS,
    FRANCE,
    ITALY,
    UK,
    arrive,
    code_of,
    do,
    new_game,
    set_player,
    set_square,
)

spec = pytest.mark.spec


@spec("AVA-32", "AVA-44", "AVA-45", "TV-AVA-28")
def test_spin_moves_clockwise_with_wrap() -> None:
    s = set_player(new_game(), ALLIES, position=34, money=0)
    s = do(s, "spin", value=5)
    assert s.players[0].position == 3 and s.step == "S6" and s.landed_square == 3


@spec("AVA-15", "TV-AVA-30")
@pytest.mark.parametrize("value", [0, 7, -1, 2.5, "3", None, True])
def test_invalid_spinner_reading(value: object) -> None:
    s = new_game()
    assert code_of(s, "spin", value=value) == "E_SPIN_INVALID"


@spec("AVA-15", "AVA-138")
def test_virtual_spin_only_for_ai_with_option() -> None:
    s = new_game(ais=("tank", None), ai_virtual_spin=True)
    new, _ = GAME.apply(s, Command("spin", {}, seat=0, seed=99))
    again, _ = GAME.apply(s, Command("spin", {}, seat=0, seed=99))
    assert new.spin_value == again.spin_value and 1 <= new.spin_value <= 6
    assert code_of(new_game(ai_virtual_spin=True), "spin") == "E_SPIN_INVALID"
    assert code_of(new_game(ais=("tank", None)), "spin") == "E_SPIN_INVALID"


@spec("AVA-34", "AVA-2")
def test_only_the_player_to_act() -> None:
    s = new_game()
    assert code_of(s, "spin", seat=AXIS, value=3) == "E_NOT_YOUR_TURN"
    with pytest.raises(IllegalMove) as info:
        GAME.apply(s, Command("spin", {"value": 3}, seat=None))
    assert info.value.code == "E_NOT_YOUR_TURN"


@spec("AVA-2", "AVA-32")
def test_error_precedence_game_over_first() -> None:
    s = new_game()
    s.result = {"winner": "axis", "reason": "conquest", "round": 1}
    assert code_of(s, "spin", seat=AXIS, value=3) == "E_GAME_OVER"


@spec("AVA-32", "AVA-36", "TV-AVA-36", "TV-AVA-38")
def test_wrong_step_requests_before_spin() -> None:
    s = new_game()
    for name, args in [
        ("recruit", {"I": 1}),
        ("garrison", {"square": FRANCE, "I": 1}),
        ("pass", {}),
        ("invade", {"I": 1}),
        ("end_turn", {}),
        ("decline_move", {}),
        ("treaty", {}),
    ]:
        assert code_of(s, name, **args) == "E_WRONG_STEP", name


@spec("AVA-2")
def test_unknown_and_malformed_commands() -> None:
    s = arrive(set_player(new_game(), ALLIES, money=0), ALBANIA)
    assert code_of(s, "teleport") == "E_BAD_REQUEST"
    assert code_of(s, "invade", I=-3) == "E_BAD_REQUEST"
    assert code_of(s, "invade", I="ten") == "E_BAD_REQUEST"


@spec("AVA-35", "AVA-46")
def test_passing_squares_has_no_effect() -> None:
    s = set_player(new_game(), ALLIES, position=36, money=0)  # passes UK (1) going to 3
    before = s.players[0].available
    s = do(s, "spin", value=3)
    assert s.landed_square == 3 and s.owner[UK - 1] == 0
    assert s.draws == 1  # only the final square (fortune) acted
    assert s.players[0].available[1:] == before[1:] or s.last_card is not None


@spec("AVA-36", "TV-AVA-69")
def test_end_turn_in_s6_is_a_pass_and_skips_s7() -> None:
    s = set_player(new_game(), ALLIES, money=1000, available=(0, 0, 0, 0))
    s = arrive(s, ALBANIA)
    s = do(s, "end_turn")
    assert s.owner[ALBANIA - 1] is None and s.current == AXIS and s.step == "S3"


@spec("AVA-36", "AVA-57", "TV-AVA-69")
def test_neutral_must_act() -> None:
    s = set_player(new_game(neutral_must_act=True), ALLIES, money=1000, available=(0, 0, 0, 0))
    s = arrive(s, ALBANIA)
    assert code_of(s, "end_turn") == "E_RESOLUTION_PENDING"
    assert code_of(s, "pass") == "E_OPTION_NOT_AVAILABLE"
    poor = set_player(new_game(neutral_must_act=True), ALLIES, money=150, available=(0, 0, 0, 0))
    poor = arrive(poor, ALBANIA)
    assert do(poor, "pass").step == "S7"


@spec("AVA-36", "AVA-66", "TV-AVA-61")
def test_mandatory_resolution_on_enemy_territory() -> None:
    s = set_player(new_game(), ALLIES, money=0)
    s = arrive(s, ITALY)
    assert code_of(s, "end_turn") == "E_RESOLUTION_PENDING"
    assert code_of(s, "pass") == "E_OPTION_NOT_AVAILABLE"


@spec("AVA-32", "AVA-36")
def test_full_turn_order_and_alternation() -> None:
    s = set_player(new_game(), ALLIES, money=0)
    s = arrive(s, 3)  # fortune
    assert s.step == "S6"
    s = do(s, "pass")
    assert s.step == "S7"
    assert code_of(s, "pass") == "E_WRONG_STEP"
    s = do(s, "end_turn")
    assert s.current == AXIS and s.step == "S3" and s.round == 1
    s = set_player(s, AXIS, money=0)
    s = arrive(s, 21)
    s = do(s, "end_turn")
    assert s.current == ALLIES and s.round == 2 and s.turns_played == 2


@spec("AVA-37", "TV-AVA-65")
def test_requests_after_the_end() -> None:
    s = set_player(new_game(), AXIS, available=(0, 0, 0, 0))
    s = set_square(s, ITALY, None)
    s = set_square(s, 19, 1, (0, 0, 0, 0))
    s = set_player(s, ALLIES, available=(1, 0, 0, 0), money=0)
    s = set_square(s, 22, 1)  # Axis hold Albania (undefended) and Germany
    s = set_square(s, 19, 0)  # Allies already took Germany: the Axis own only Albania
    s = arrive(s, 22)
    s = do(s, "invade", I=1)
    assert GAME.outcome(s) is not None and s.result["reason"] == "conquest"
    assert code_of(s, "spin", value=1) == "E_GAME_OVER"
    assert GAME.legal_commands(s) == []


@spec("AVA-2")
def test_rejected_request_leaves_state_identical() -> None:
    s = arrive(set_player(new_game(), ALLIES, money=0), ITALY)
    before = GAME.dump_state(s)
    with pytest.raises(IllegalMove):
        GAME.apply(s, Command("invade", {"I": 100}, seat=0))
    assert GAME.dump_state(s) == before
