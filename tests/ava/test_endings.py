"""End conditions (§14: AVA-127..AVA-133) and TV-AVA-57..59, 65."""

from __future__ import annotations

import pytest

from companion.games.ava import GAME
from tests.ava.helpers import (
    ALLIES,
    AXIS,
    BANK,
    FRANCE,
    GERMANY,
    ITALY,
    UK,
    USA,
    arrive,
    code_of,
    do,
    edit,
    new_game,
    set_player,
    set_square,
)

spec = pytest.mark.spec
QUIET = 4


@spec("AVA-129", "AVA-133", "TV-AVA-57")
def test_sudden_death() -> None:
    s = set_square(new_game(main_end_condition="sudden_death"), UK, ALLIES, (20, 5, 0, 0))
    s = set_player(edit(s, current=AXIS), AXIS, money=0, available=(40, 0, 0, 0))
    from companion.games.ava.rules import square_dp
    from companion.games.ava.setup import data_for

    assert square_dp(data_for(s.data_dir), s, UK) == 40
    s = do(arrive(s, UK), "invade", I=40)
    assert s.result == {"winner": "axis", "reason": "sudden_death", "round": 1}
    assert GAME.outcome(s).winners == [1] and GAME.outcome(s).reason == "sudden_death"
    assert code_of(s, "spin", value=1) == "E_GAME_OVER"


@spec("AVA-129")
def test_sudden_death_allies_take_germany() -> None:
    s = set_square(new_game(main_end_condition="sudden_death"), GERMANY, AXIS)
    s = do(arrive(set_player(s, ALLIES, money=0, available=(1, 0, 0, 0)), GERMANY), "invade", I=1)
    assert s.result["winner"] == "allies"


@spec("AVA-129", "AVA-128")
def test_sudden_death_ignores_other_losses() -> None:
    s = set_square(new_game(main_end_condition="sudden_death"), ITALY, AXIS)
    s = do(arrive(set_player(s, ALLIES, money=0, available=(1, 0, 0, 0)), ITALY), "invade", I=1)
    assert s.result is None


@spec("AVA-128", "TV-AVA-58")
@pytest.mark.parametrize(("counts_bases", "over"), [(False, True), (True, False)])
def test_conquest(counts_bases: bool, over: bool) -> None:
    s = new_game(conquest_counts_bases=counts_bases)
    s = set_square(set_square(s, UK, AXIS), BANK, ALLIES)
    s = set_square(s, USA, ALLIES)
    s = set_square(s, FRANCE, ALLIES, (0, 0, 0, 0))
    s = set_player(edit(s, current=AXIS), AXIS, money=0, available=(1, 0, 0, 0))
    s = do(arrive(s, FRANCE), "invade", I=1)
    assert (s.result is not None) is over
    if over:
        assert s.result["winner"] == "axis" and s.result["reason"] == "conquest"


@spec("AVA-131", "AVA-132", "TV-AVA-59")
def test_turn_limit_rounds_and_tie_break() -> None:
    s = new_game(turn_limit=100)
    s = edit(s, round=100, current=AXIS)
    s = set_player(s, AXIS, money=0, available=(50, 0, 0, 0))
    s = set_player(s, ALLIES, money=0, available=(10, 0, 0, 0))
    s = set_square(s, UK, ALLIES, (20, 5, 2, 0))
    s = do(arrive(s, QUIET), "end_turn")
    assert s.result == {"winner": "allies", "reason": "turn_limit", "round": 100}


@spec("AVA-132")
@pytest.mark.parametrize(("allies_money", "winner"), [(10, "allies"), (0, None)])
def test_turn_limit_money_then_draw(allies_money: int, winner: str | None) -> None:
    s = edit(new_game(turn_limit=100), round=100, current=AXIS)
    s = set_player(s, AXIS, money=0, available=(0, 0, 0, 0))
    s = set_player(s, ALLIES, money=allies_money, available=(0, 0, 0, 0))
    s = set_square(s, 4, None)
    s = do(arrive(s, 22), "pass")
    s = set_player(s, AXIS, money=0)
    s = do(s, "end_turn")
    assert s.result["winner"] == winner
    assert GAME.outcome(s).winners == ([] if winner is None else [0])


@spec("AVA-132")
def test_turn_limit_more_territories_first() -> None:
    s = set_square(edit(new_game(turn_limit=100), round=100, current=AXIS), 22, AXIS)
    s = set_player(s, ALLIES, money=10**6, available=(500, 0, 0, 0))
    s = do(arrive(set_player(s, AXIS, money=0), 24), "pass")
    assert do(s, "end_turn").result["winner"] == "axis"


@spec("AVA-131")
def test_turn_limit_not_before_round_complete() -> None:
    s = edit(new_game(turn_limit=100), round=100)  # Allies' turn of round 100
    s = do(arrive(set_player(s, ALLIES, money=0), QUIET), "end_turn")
    assert s.result is None and s.current == AXIS


@spec("AVA-131")
def test_turn_limit_player_turns() -> None:
    s = edit(new_game(turn_limit=100, turn_limit_unit="player_turn"), turns_played=99)
    s = do(arrive(set_player(s, ALLIES, money=0), QUIET), "end_turn")
    assert s.result is not None and s.result["reason"] == "turn_limit"


@spec("AVA-127", "AVA-37", "AVA-130")
def test_first_condition_met_ends_and_nothing_more() -> None:
    s = set_square(new_game(), 22, AXIS, (300, 0, 0, 0))
    s = set_player(s, ALLIES, jail_count=2, available=(0, 0, 0, 0), money=0)
    s = do(arrive(s, 22), "penalty")
    assert s.result["reason"] == "jail" and s.step == "over"
    assert GAME.legal_commands(s) == [] and GAME.to_act(s) == []
