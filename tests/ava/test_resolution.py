"""Resolving the landing square (§9: AVA-55..AVA-87) and the vectors TV-AVA-06..23, 40..42, 60,
66, 67."""

from __future__ import annotations

import pytest

from companion.games.ava import GAME
from tests.ava.helpers import (
    ALBANIA,
    ALLIES,
    AXIS,
    BANK,
    FRANCE,
    GERMANY,
    ITALY,
    JAPAN,
    LEGION,
    NORWAY,
    T24,
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


def allies_on(square: int, money: int = 0, units=(0, 0, 0, 0), **options: object):
    """A new game with the Allies to spin onto ``square`` holding ``money`` and ``units``."""
    del square
    return set_player(new_game(**options), ALLIES, money=money, available=units)


def axis_turn(s):
    """Hand the turn to the Axis at S3 (as if the Allies had just ended theirs)."""
    return edit(s, current=AXIS, step="S3")


# --- neutral territories ------------------------------------------------------------------


@spec("AVA-61", "AVA-97", "TV-AVA-09")
def test_treaty_source_example_1() -> None:
    s = arrive(allies_on(ALBANIA, money=1000), ALBANIA)
    s = do(s, "treaty")
    p = s.players[0]
    assert (p.money, p.treaties_signed, s.owner[ALBANIA - 1], s.step) == (800, 1, ALLIES, "S7")


@spec("AVA-61", "AVA-97", "TV-AVA-10", "TV-AVA-11")
def test_treaty_cost_grows() -> None:
    s = set_player(allies_on(ALBANIA, money=1000), ALLIES, treaties_signed=1)
    s = do(arrive(s, ALBANIA), "treaty")
    assert s.players[0].money == 700 and s.players[0].treaties_signed == 2
    s = set_player(allies_on(ALBANIA, money=1000), ALLIES, treaties_signed=2)
    assert do(arrive(s, ALBANIA), "treaty").players[0].money == 600


@spec("AVA-61", "TV-AVA-12")
def test_treaty_unaffordable() -> None:
    s = arrive(allies_on(ALBANIA, money=199), ALBANIA)
    assert code_of(s, "treaty") == "E_NOT_ENOUGH_MONEY"


@spec("AVA-62", "TV-AVA-67")
def test_treaty_count_scope() -> None:
    for scope, cost in (("own", 300), ("both_players", 500)):
        s = allies_on(ALBANIA, money=1000, treaty_count_scope=scope)
        s = set_player(set_player(s, ALLIES, treaties_signed=1), AXIS, treaties_signed=2)
        s = do(arrive(s, ALBANIA), "treaty")
        assert s.players[0].money == 1000 - cost and s.players[0].treaties_signed == 2


@spec("AVA-58", "TV-AVA-13")
def test_neutral_invasion_infantry_only() -> None:
    s = arrive(allies_on(ALBANIA, units=(20, 1, 0, 0)), ALBANIA)
    assert code_of(s, "invade", I=10, T=1) == "E_NEUTRAL_INFANTRY_ONLY"
    assert code_of(s, "invade", I=0) == "E_NO_UNITS_SELECTED"
    assert code_of(s, "invade", I=21) == "E_UNITS_NOT_AVAILABLE"


@spec("AVA-59", "TV-AVA-14")
def test_neutral_invasion_too_weak() -> None:
    s = arrive(allies_on(ALBANIA, units=(20, 0, 0, 0)), ALBANIA)
    assert code_of(s, "invade", I=9) == "E_INVASION_TOO_WEAK"


@spec("AVA-60", "AVA-63", "AVA-64", "TV-AVA-15")
def test_neutral_invasion_succeeds() -> None:
    s = arrive(allies_on(ALBANIA, units=(20, 0, 0, 0)), ALBANIA)
    s = do(s, "invade", I=12)
    assert s.players[0].available == (8, 0, 0, 0)
    assert s.owner[ALBANIA - 1] == ALLIES and s.players[0].treaties_signed == 0
    assert s.step == "S7" and s.garrison[ALBANIA - 1] == (0, 0, 0, 0)
    s = do(s, "garrison", square=ALBANIA, I=3)  # AVA-63: build on it this turn
    assert s.garrison[ALBANIA - 1] == (3, 0, 0, 0)


@spec("AVA-57", "AVA-56")
def test_neutral_pass_allowed_by_default() -> None:
    s = arrive(allies_on(NORWAY, money=1000), NORWAY)
    assert do(s, "pass").owner[NORWAY - 1] is None


# --- own territory ------------------------------------------------------------------------


@spec("AVA-65", "TV-AVA-66")
def test_own_territory_checks() -> None:
    s = arrive(allies_on(UK, money=1000, units=(5, 0, 0, 0)), UK)
    assert code_of(s, "treaty") == "E_ALREADY_OWNED"
    assert code_of(s, "garrison", square=UK, I=1) == "E_WRONG_STEP"
    assert code_of(s, "invade", I=1) == "E_OPTION_NOT_AVAILABLE"
    s = do(s, "pass")
    assert s.step == "S7"
    assert code_of(s, "treaty") == "E_WRONG_STEP"
    assert do(s, "garrison", square=UK, I=1).garrison[UK - 1] == (1, 0, 0, 0)


# --- enemy territory ----------------------------------------------------------------------


@spec("AVA-67", "AVA-13", "TV-AVA-06")
def test_battleship_against_non_seaport() -> None:
    s = set_square(new_game(), T24, ALLIES)
    s = set_player(axis_turn(s), AXIS, money=0, available=(5, 0, 0, 2))
    s = arrive(s, T24)
    assert code_of(s, "invade", B=1) == "E_BATTLESHIP_NO_SEAPORT"


@spec("AVA-67", "AVA-68", "AVA-69", "TV-AVA-07")
def test_invasion_at_exactly_equal_power() -> None:
    s = set_square(new_game(), FRANCE, ALLIES, (1, 1, 1, 1))
    s = set_player(axis_turn(s), AXIS, money=0, available=(0, 0, 3, 1))
    s = arrive(s, FRANCE)
    s = do(s, "invade", P=3, B=1)
    assert s.players[1].available == (0, 0, 0, 0)
    assert s.garrison[FRANCE - 1] == (0, 0, 0, 0) and s.owner[FRANCE - 1] == AXIS
    assert s.step == "S7" and s.result is None


@spec("AVA-68", "AVA-2", "TV-AVA-08")
def test_invasion_too_weak_changes_nothing() -> None:
    s = set_square(new_game(), FRANCE, ALLIES, (1, 1, 1, 1))
    s = set_player(axis_turn(s), AXIS, money=0, available=(0, 0, 3, 1))
    s = arrive(s, FRANCE)
    assert code_of(s, "invade", P=2, B=1) == "E_INVASION_TOO_WEAK"
    assert code_of(s, "end_turn") == "E_RESOLUTION_PENDING"


@spec("AVA-67")
def test_enemy_invasion_unit_checks() -> None:
    s = set_square(new_game(), FRANCE, ALLIES, (0, 0, 0, 0))
    s = set_player(axis_turn(s), AXIS, money=0, available=(1, 0, 0, 0))
    s = arrive(s, FRANCE)
    assert code_of(s, "invade") == "E_NO_UNITS_SELECTED"
    assert code_of(s, "invade", T=1) == "E_UNITS_NOT_AVAILABLE"


@spec("AVA-70", "AVA-71", "AVA-73", "TV-AVA-16")
def test_penalty_source_example_jails() -> None:
    s = set_square(new_game(), ALBANIA, AXIS, (300, 0, 0, 0))
    s = arrive(set_player(s, ALLIES, money=500, available=(89, 1, 0, 0)), ALBANIA)
    s2 = do(s, "penalty")
    a = s2.players[0]
    assert a.available == (0, 0, 0, 0) and a.money == 500  # money is never taken
    assert a.jailed and a.jail_count == 1 and s2.current == AXIS
    # nothing goes to the opponent: the Axis hold only what their own S1 just collected
    assert s.players[1].available == (0, 0, 0, 0) and s2.players[1].available == (11, 4, 1, 1)


@spec("AVA-70", "AVA-100", "TV-AVA-17")
def test_penalty_with_units_left() -> None:
    s = set_square(new_game(), ALBANIA, AXIS, (300, 0, 0, 0))
    s = arrive(set_player(s, ALLIES, money=0, available=(100, 1, 0, 0)), ALBANIA)
    s = do(s, "penalty")
    assert s.players[0].available == (10, 1, 0, 0) and not s.players[0].jailed
    assert s.step == "S7"


@spec("AVA-99", "AVA-100", "TV-AVA-18")
@pytest.mark.parametrize(
    ("options", "left"),
    [
        ({}, (0, 0, 1, 0)),
        ({"penalty_rounding": "floor"}, (0, 1, 1, 0)),
        ({"penalty_removal": "min_overshoot"}, (0, 2, 0, 0)),
    ],
)
def test_penalty_rounding_and_whole_units(options: dict, left: tuple) -> None:
    s = set_square(new_game(**options), FRANCE, AXIS, (1, 1, 1, 1))
    s = arrive(set_player(s, ALLIES, money=0, available=(0, 3, 1, 0)), FRANCE)
    s = do(s, "penalty")
    assert s.players[0].available == left and not s.players[0].jailed


@spec("AVA-99", "TV-AVA-19")
def test_fierce_battle_penalty() -> None:
    s = set_square(new_game(mode="fierce_battle"), ALBANIA, AXIS, (3, 5, 2, 1))  # DP 45
    s = arrive(set_player(s, ALLIES, money=0, available=(30, 0, 0, 0)), ALBANIA)
    assert do(s, "penalty").players[0].available == (7, 0, 0, 0)


@spec("AVA-99", "TV-AVA-20")
def test_no_italy_penalty() -> None:
    s = set_square(new_game(mode="no_italy"), ALBANIA, AXIS, (3, 5, 2, 1))  # DP 45
    s = arrive(set_player(s, ALLIES, money=0, available=(30, 0, 0, 0)), ALBANIA)
    assert do(s, "penalty").players[0].available == (12, 0, 0, 0)


@spec("AVA-73", "TV-AVA-21")
def test_penalty_with_no_units_jails() -> None:
    s = set_square(new_game(), ALBANIA, AXIS, (10, 0, 0, 0))
    s = arrive(set_player(s, ALLIES, money=0, available=(0, 0, 0, 0)), ALBANIA)
    s = do(s, "penalty")
    assert s.players[0].jailed and s.players[0].jail_count == 1


@spec("AVA-56", "AVA-68", "TV-AVA-22", "AVA-67")
def test_zero_defence_enemy_territory() -> None:
    base = set_square(new_game(), ALBANIA, AXIS, (0, 0, 0, 0))
    s = arrive(set_player(base, ALLIES, money=0, available=(0, 0, 0, 0)), ALBANIA)
    s = do(s, "penalty")
    assert not s.players[0].jailed and s.step == "S7"
    assert code_of(s, "invade", I=1) == "E_WRONG_STEP"
    s = arrive(set_player(base, ALLIES, money=0, available=(1, 0, 0, 0)), ALBANIA)
    assert code_of(s, "invade") == "E_NO_UNITS_SELECTED"
    s = do(s, "invade", I=1)
    assert s.players[0].available == (0, 0, 0, 0) and s.owner[ALBANIA - 1] == ALLIES


@spec("AVA-100", "AVA-73", "TV-AVA-23")
@pytest.mark.parametrize(
    ("options", "left", "jailed"),
    [
        ({}, (0, 0, 0, 2), False),
        ({"penalty_battleships_anywhere": True}, (0, 0, 0, 1), False),
        ({"jail_on_unpaid_penalty": True}, (0, 0, 0, 2), True),
    ],
)
def test_battleships_protected_at_non_seaport(options: dict, left: tuple, jailed: bool) -> None:
    s = set_square(new_game(**options), T24, AXIS, (20, 0, 0, 0))
    s = arrive(set_player(s, ALLIES, money=0, available=(2, 0, 0, 2)), T24)
    s = do(s, "penalty")
    assert s.players[0].available == left and s.players[0].jailed is jailed


@spec("AVA-72")
def test_penalty_from_garrisons_option() -> None:
    s = set_square(new_game(penalty_from_garrisons=True), ALBANIA, AXIS, (30, 0, 0, 0))  # PP 9
    s = set_square(s, UK, ALLIES, (2, 0, 0, 0))
    s = set_square(s, FRANCE, ALLIES, (0, 3, 0, 0))
    s = arrive(set_player(s, ALLIES, money=0, available=(1, 0, 0, 0)), ALBANIA)
    s = do(s, "penalty")
    # 1 available infantry, then UK's 2 infantry, then France: 2 tanks (6) reach 9
    assert s.garrison[UK - 1] == (0, 0, 0, 0) and s.garrison[FRANCE - 1] == (0, 1, 0, 0)
    assert s.players[0].jailed  # no available units left: the jail test looks at available only


@spec("AVA-72", "AVA-14")
def test_penalty_never_takes_garrisons_by_default() -> None:
    s = set_square(new_game(), ALBANIA, AXIS, (30, 0, 0, 0))
    s = set_square(s, UK, ALLIES, (2, 0, 0, 0))
    s = arrive(set_player(s, ALLIES, money=0, available=(1, 0, 0, 0)), ALBANIA)
    s = do(s, "penalty")
    assert s.garrison[UK - 1] == (2, 0, 0, 0)


@spec("AVA-74", "TV-AVA-60")
def test_penalty_before_invasion_option() -> None:
    s = set_square(new_game(penalty_before_invasion=True), FRANCE, AXIS, (1, 1, 1, 1))
    s = arrive(set_player(s, ALLIES, money=0, available=(10, 0, 3, 1)), FRANCE)
    assert s.players[0].available == (3, 0, 3, 1) and s.step == "S6" and s.auto_penalty
    assert code_of(s, "penalty") == "E_OPTION_NOT_AVAILABLE"
    invaded = do(s, "invade", I=3, P=3, B=1)
    assert invaded.owner[FRANCE - 1] == ALLIES
    passed = do(s, "pass")
    assert passed.step == "S7" and passed.owner[FRANCE - 1] == AXIS


@spec("AVA-66", "TV-AVA-66")
def test_enemy_territory_request_checks() -> None:
    s = arrive(set_player(new_game(), ALLIES, money=5000), ITALY)
    assert code_of(s, "treaty") == "E_ALREADY_OWNED"
    assert code_of(s, "build_base") == "E_OPTION_NOT_AVAILABLE"
    assert code_of(s, "pay_ransom") == "E_NOT_JAILED"
    assert code_of(s, "ally") == "E_OPTION_NOT_AVAILABLE"
    n = arrive(set_player(new_game(), ALLIES, money=5000), ALBANIA)
    assert code_of(n, "penalty") == "E_OPTION_NOT_AVAILABLE"


@spec("AVA-109")
def test_jailed_players_territories_still_penalise() -> None:
    s = set_player(new_game(), AXIS, jailed=True, jail_count=1)
    s = set_square(s, ALBANIA, AXIS, (10, 0, 0, 0))
    s = arrive(set_player(s, ALLIES, money=0, available=(10, 0, 0, 0)), ALBANIA)
    assert do(s, "penalty").players[0].available == (7, 0, 0, 0)
    assert do(s, "invade", I=10).owner[ALBANIA - 1] == ALLIES


# --- secret territories -------------------------------------------------------------------


@spec("AVA-76", "AVA-43", "TV-AVA-40")
def test_building_a_secret_base() -> None:
    s = arrive(set_player(new_game(), ALLIES, money=600), LEGION)
    s = do(s, "build_base")
    assert s.players[0].money == 100 and s.owner[LEGION - 1] == ALLIES
    units_before = s.players[0].available
    s = do(s, "end_turn")  # the Axis turn; then the Allies collect Legion infantry
    s = do(arrive(set_player(s, AXIS, money=0), 21), "end_turn")
    assert s.players[0].available[0] - units_before[0] == 5 + 4 + 6


@spec("AVA-76")
def test_secret_base_checks() -> None:
    s = arrive(set_player(new_game(), ALLIES, money=499), LEGION)
    assert code_of(s, "build_base") == "E_NOT_ENOUGH_MONEY"
    assert code_of(s, "treaty") == "E_OPTION_NOT_AVAILABLE"
    owned = arrive(set_square(set_player(new_game(), ALLIES, money=900), LEGION, AXIS), LEGION)
    assert code_of(owned, "build_base") == "E_ALREADY_OWNED"
    terr = arrive(set_player(new_game(), ALLIES, money=900), ALBANIA)
    assert code_of(terr, "build_base") == "E_OPTION_NOT_AVAILABLE"


@spec("AVA-75", "AVA-79", "AVA-78", "TV-AVA-41")
def test_enemy_secret_base_without_spy() -> None:
    s = set_square(new_game(), BANK, AXIS)
    s = arrive(set_player(s, ALLIES, money=0, available=(5, 0, 0, 0)), BANK)
    assert code_of(s, "invade", I=5) == "E_SECRET_NOT_INVADABLE"
    assert code_of(s, "penalty") == "E_OPTION_NOT_AVAILABLE"
    s = do(s, "pass")
    assert s.step == "S7" and s.players[0].available == (5, 0, 0, 0)
    own = arrive(set_square(set_player(new_game(), ALLIES, money=0), BANK, ALLIES), BANK)
    assert do(own, "pass").step == "S7"


@spec("AVA-77", "AVA-85", "TV-AVA-39")
def test_no_garrison_on_secret_or_special() -> None:
    s = set_square(new_game(), BANK, ALLIES)
    s = do(arrive(set_player(s, ALLIES, money=0, available=(5, 0, 0, 0)), BANK), "pass")
    assert code_of(s, "garrison", square=BANK, I=1) == "E_NO_GARRISON_HERE"
    s = set_square(new_game(), USA, ALLIES)
    s = do(arrive(set_player(s, ALLIES, money=0, available=(5, 0, 0, 0)), USA), "pass")
    assert code_of(s, "garrison", square=USA, I=1) == "E_NO_GARRISON_HERE"


# --- special territories ------------------------------------------------------------------


@spec("AVA-82", "AVA-83", "AVA-84", "AVA-85", "AVA-86", "TV-AVA-42")
def test_alliance_rules() -> None:
    s = arrive(set_player(new_game(), ALLIES, money=2500), USA)
    s = do(s, "ally")
    assert s.players[0].money == 500 and s.owner[USA - 1] == ALLIES
    ax = arrive(set_player(axis_turn(new_game()), AXIS, money=5000), USA)
    assert code_of(ax, "ally") == "E_NOT_NATURAL_ALLY"
    assert code_of(ax, "invade", I=1) == "E_SPECIAL_NOT_INVADABLE"
    owned = set_square(axis_turn(new_game()), USA, ALLIES)
    owned = arrive(set_player(owned, AXIS, money=5000, available=(3, 0, 0, 0)), USA)
    assert code_of(owned, "ally") == "E_ALREADY_OWNED"
    assert code_of(owned, "invade", I=3) == "E_SPECIAL_NOT_INVADABLE"
    assert code_of(owned, "penalty") == "E_OPTION_NOT_AVAILABLE"
    assert do(owned, "pass").players[1].available == (3, 0, 0, 0)


@spec("AVA-83")
def test_alliance_unaffordable() -> None:
    s = arrive(set_player(new_game(), ALLIES, money=1999), USA)
    assert code_of(s, "ally") == "E_NOT_ENOUGH_MONEY"
    assert code_of(s, "treaty") == "E_OPTION_NOT_AVAILABLE"


@spec("AVA-55", "AVA-56", "AVA-87")
def test_options_offered_per_square_type() -> None:
    def names(s):
        return sorted({c.name for c in GAME.legal_commands(s)})

    rich = set_player(new_game(), ALLIES, money=900, available=(30, 0, 0, 0))
    assert names(arrive(rich, ALBANIA)) == ["end_turn", "invade", "pass", "treaty"]
    assert names(arrive(rich, ITALY)) == ["invade", "penalty"]
    assert names(arrive(rich, LEGION)) == ["build_base", "end_turn", "pass"]
    assert names(arrive(rich, JAPAN)) == ["end_turn", "pass"]
    assert names(arrive(rich, UK)) == ["end_turn", "pass"]
    assert "pass" in names(arrive(set_player(rich, ALLIES, money=0), 3))


@spec("AVA-56")
def test_each_option_once_per_turn() -> None:
    s = arrive(set_player(new_game(), ALLIES, money=1000, available=(20, 0, 0, 0)), ALBANIA)
    s = do(s, "invade", I=10)
    assert code_of(s, "treaty") == "E_WRONG_STEP"
    assert code_of(s, "pass") == "E_WRONG_STEP"


@spec("AVA-56")
def test_rejected_request_lets_player_try_another() -> None:
    s = arrive(set_player(new_game(), ALLIES, money=1000, available=(5, 0, 0, 0)), ALBANIA)
    assert code_of(s, "invade", I=5) == "E_INVASION_TOO_WEAK"
    assert do(s, "treaty").owner[ALBANIA - 1] == ALLIES


@spec("AVA-69", "AVA-109")
def test_capital_invaded_in_conquest_mode_game_goes_on() -> None:
    s = set_square(new_game(), GERMANY, AXIS, (0, 0, 0, 0))
    s = arrive(set_player(s, ALLIES, money=0, available=(1, 0, 0, 0)), GERMANY)
    s = do(s, "invade", I=1)
    assert s.owner[GERMANY - 1] == ALLIES and s.result is None
