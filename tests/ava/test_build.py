"""Recruitment and building defence (§10: AVA-88..AVA-94) and TV-AVA-35..39."""

from __future__ import annotations

import pytest

from companion.games.ava import GAME
from tests.ava.helpers import (
    ALLIES,
    FRANCE,
    T24,
    UK,
    arrive,
    code_of,
    do,
    new_game,
    set_player,
    set_square,
)

spec = pytest.mark.spec


def in_s7(square: int = FRANCE, money: int = 0, units=(0, 0, 0, 0), **options: object):
    s = set_player(new_game(**options), ALLIES, money=money, available=units)
    return do(arrive(s, square, decline=True), "pass")


@spec("AVA-89", "TV-AVA-35")
def test_recruitment_maximum() -> None:
    s = in_s7(money=10000)
    s = do(s, "recruit", I=24, T=16, P=10, B=6)
    assert s.players[0].money == 2560
    assert code_of(s, "recruit", I=1) == "E_RECRUIT_LIMIT"


@spec("AVA-89")
def test_limits_are_per_turn_cumulative() -> None:
    s = in_s7(money=10000)
    s = do(s, "recruit", T=10)
    s = do(s, "recruit", T=6)
    assert s.players[0].recruited_this_turn == (0, 16, 0, 0)
    assert code_of(s, "recruit", T=1) == "E_RECRUIT_LIMIT"
    assert code_of(in_s7(money=100), "recruit", I=3) == "E_NOT_ENOUGH_MONEY"
    assert code_of(s, "recruit") == "E_NO_UNITS_SELECTED"


@spec("AVA-89")
def test_limits_reset_next_turn() -> None:
    s = do(do(in_s7(money=10000), "recruit", T=16), "end_turn")
    assert s.current == 1 and s.players[0].recruited_this_turn == (0, 16, 0, 0)
    s = do(do(arrive(set_player(s, 1, money=0), 21), "pass"), "end_turn")
    assert s.players[0].recruited_this_turn == (0, 0, 0, 0)


@spec("AVA-89")
def test_battleships_recruitable_without_seaport() -> None:
    s = in_s7(T24, money=1000)
    assert do(s, "recruit", B=1).players[0].available[3] >= 1


@spec("AVA-88", "TV-AVA-36")
def test_recruit_too_early() -> None:
    s = set_player(new_game(), ALLIES, money=5000)
    assert code_of(s, "recruit", I=1) == "E_WRONG_STEP"
    s6 = arrive(s, 3)
    assert code_of(s6, "recruit", I=1) == "E_WRONG_STEP"


@spec("AVA-88")
def test_recruit_before_resolution_option() -> None:
    s = set_player(new_game(recruit_before_resolution=True), ALLIES, money=5000)
    assert code_of(s, "recruit", I=1) == "E_WRONG_STEP"
    s6 = arrive(s, 3)
    assert do(s6, "recruit", I=1).step == "S6"


@spec("AVA-90", "AVA-91", "TV-AVA-37")
def test_defence_on_the_wrong_territory() -> None:
    s = in_s7(FRANCE, units=(5, 0, 0, 1))
    assert code_of(s, "garrison", square=UK, I=5) == "E_NOT_LANDED_TERRITORY"
    s = do(s, "garrison", square=FRANCE, B=1)
    assert s.garrison[FRANCE - 1] == (0, 0, 0, 1) and s.players[0].available == (5, 0, 0, 0)
    t = set_square(set_player(new_game(), ALLIES, money=0, available=(0, 0, 0, 1)), T24, ALLIES)
    t = do(arrive(t, T24), "pass")
    assert code_of(t, "garrison", square=T24, B=1) == "E_BATTLESHIP_NO_SEAPORT"


@spec("AVA-91")
def test_defence_checks_in_order() -> None:
    s = in_s7(FRANCE, units=(5, 0, 0, 0))
    assert code_of(s, "garrison", square=3, I=1) == "E_NO_GARRISON_HERE"
    assert code_of(s, "garrison", square=FRANCE, I=6) == "E_UNITS_NOT_AVAILABLE"
    assert code_of(s, "garrison", square=FRANCE) == "E_NO_UNITS_SELECTED"
    enemy = set_player(new_game(), ALLIES, money=0, available=(5, 0, 0, 0))
    enemy = do(arrive(enemy, 20), "penalty")
    assert code_of(enemy, "garrison", square=20, I=1) == "E_NOT_OWN_TERRITORY"
    neutral = do(arrive(set_player(new_game(), ALLIES, money=0), 22), "pass")
    assert code_of(neutral, "garrison", square=22, I=1) == "E_NOT_OWN_TERRITORY"


@spec("AVA-92", "TV-AVA-38")
def test_defence_before_moving() -> None:
    s = set_player(new_game(), ALLIES, available=(5, 0, 0, 0), position=FRANCE)
    assert code_of(s, "garrison", square=FRANCE, I=1) == "E_WRONG_STEP"
    s6 = arrive(s, FRANCE)
    assert code_of(s6, "garrison", square=FRANCE, I=1) == "E_WRONG_STEP"


@spec("AVA-93")
def test_garrison_is_permanent() -> None:
    s = do(in_s7(FRANCE, units=(5, 0, 0, 0)), "garrison", square=FRANCE, I=3)
    assert code_of(s, "withdraw", square=FRANCE, I=1) == "E_GARRISON_PERMANENT"
    assert s.garrison[FRANCE - 1] == (3, 0, 0, 0)


@spec("AVA-93")
def test_withdrawal_option() -> None:
    s = do(
        in_s7(FRANCE, units=(5, 0, 0, 0), allow_garrison_withdrawal=True),
        "garrison",
        square=FRANCE,
        I=3,
    )
    assert code_of(s, "withdraw", square=FRANCE, I=4) == "E_UNITS_NOT_AVAILABLE"
    assert code_of(s, "withdraw", square=UK, I=1) == "E_NOT_LANDED_TERRITORY"
    s = do(s, "withdraw", square=FRANCE, I=2)
    assert s.garrison[FRANCE - 1] == (1, 0, 0, 0) and s.players[0].available == (4, 0, 0, 0)
    early = set_player(new_game(allow_garrison_withdrawal=True), ALLIES, money=0)
    assert code_of(arrive(early, FRANCE), "withdraw", square=FRANCE, I=1) == "E_WRONG_STEP"


@spec("AVA-94")
def test_rebuild_same_square_allowed_by_default_and_option() -> None:
    for option, allowed in ((False, True), (True, False)):
        s = do(
            in_s7(FRANCE, units=(5, 0, 0, 0), no_rebuild_same_square=option),
            "garrison",
            square=FRANCE,
            I=1,
        )
        s = do(s, "end_turn")
        s = do(do(arrive(set_player(s, 1, money=0), 21), "pass"), "end_turn")
        assert s.players[0].last_garrison_square == FRANCE
        s = do(arrive(set_player(s, ALLIES, money=0), FRANCE), "pass")
        if allowed:
            assert do(s, "garrison", square=FRANCE, I=1).garrison[FRANCE - 1] == (2, 0, 0, 0)
        else:
            assert code_of(s, "garrison", square=FRANCE, I=1) == "E_WRONG_STEP"
            assert not [c for c in GAME.legal_commands(s) if c.name == "garrison"]


@spec("AVA-90")
def test_last_garrison_square_none_without_building() -> None:
    s = do(in_s7(FRANCE, units=(5, 0, 0, 0)), "end_turn")
    s = do(do(arrive(set_player(s, 1, money=0), 21), "pass"), "end_turn")
    assert s.players[0].last_garrison_square is None
