"""Setup (§3, §4: AVA-5, AVA-16, AVA-18..AVA-31) and unlocking modes (§15, AVA-134..AVA-136)."""

from __future__ import annotations

import pytest

from companion.engine import IllegalMove, Seat, Setup
from companion.games.ava import GAME
from companion.games.ava.state import SIDE_NAMES
from tests.ava.helpers import (
    FRANCE,
    GERMANY,
    ITALY,
    JAPAN,
    UK,
    USA,
    fixture_dir,
    new_game,
)

spec = pytest.mark.spec


@spec("AVA-5", "AVA-25")
def test_two_sides_one_seat_each() -> None:
    s = new_game()
    assert [p.side for p in s.players] == ["allies", "axis"]
    assert [p.seat for p in s.players] == [0, 1]
    swapped = Setup(
        seats=[Seat("A", camp="axis"), Seat("B", camp="allies")],
        options={"data_dir": fixture_dir()},
    )
    st = GAME.initial_state(swapped)
    assert st.players[0].seat == 1 and st.players[1].seat == 0
    with pytest.raises(IllegalMove) as info:
        GAME.initial_state(Setup(seats=[Seat("A", camp="axis"), Seat("B", camp="axis")]))
    assert info.value.code == "E_BAD_SETUP"
    with pytest.raises(IllegalMove):
        GAME.initial_state(Setup(seats=[Seat("A")]))


@spec("AVA-25")
def test_against_an_ai_the_human_picks_a_side() -> None:
    st = GAME.initial_state(
        Setup(seats=[Seat("AI", camp="allies", ai="tank"), Seat("Human", camp="axis")])
    )
    assert st.players[0].controller == "tank_ai" and st.players[1].controller == "human"
    with pytest.raises(IllegalMove):
        GAME.initial_state(Setup(seats=[Seat("AI", ai="genius"), Seat("H")]))


@spec("AVA-16")
def test_tokens_are_cosmetic() -> None:
    s = new_game()
    assert s.players[0].token != s.players[1].token  # shown only; no rule reads it


@spec("AVA-18", "AVA-19", "AVA-20", "AVA-29")
def test_initial_counters() -> None:
    s = new_game()
    for p in s.players:
        assert p.strategic_moves_used == p.treaties_signed == p.jail_count == 0
        assert not p.jailed and p.kept_cards == () and p.nukes == 0
        assert not p.skip_next_collection and p.last_garrison_square is None
    assert s.spies_drawn == 0 and s.round == 1
    assert s.landed_square is None and s.offer == "none"
    assert len(s.owner) == len(s.garrison) == 36


@spec("AVA-26", "AVA-27", "AVA-21")
@pytest.mark.parametrize(
    ("mode", "allies", "axis"),
    [
        ("regular", {UK, FRANCE}, {GERMANY, ITALY}),
        ("les_miserables", {UK}, {GERMANY}),
        ("fierce_battle", {UK, FRANCE}, {GERMANY, ITALY}),
        ("no_italy", {UK, USA}, {GERMANY, JAPAN}),
    ],
)
def test_starting_ownership_and_tokens(mode: str, allies: set[int], axis: set[int]) -> None:
    s = new_game(mode=mode)
    assert {n for n in range(1, 37) if s.owner[n - 1] == 0} == allies
    assert {n for n in range(1, 37) if s.owner[n - 1] == 1} == axis
    assert s.players[0].position == UK and s.players[1].position == GERMANY


@spec("AVA-22")
def test_italy_neutral_in_no_italy_and_france_italy_in_les_miserables() -> None:
    assert new_game(mode="no_italy").owner[ITALY - 1] is None
    s = new_game(mode="les_miserables")
    assert s.owner[FRANCE - 1] is None and s.owner[ITALY - 1] is None


@spec("AVA-21", "AVA-24")
def test_mode_values_and_overrides() -> None:
    s = new_game(mode="fierce_battle")
    assert (s.resource_pct, s.penalty_pct, s.luck_pct) == (100, 50, 65)
    s = new_game(mode="fierce_battle", penalty_pct=35, resource_pct=80, luck_pct=10)
    assert (s.resource_pct, s.penalty_pct, s.luck_pct) == (80, 35, 10)


@spec("AVA-24")
def test_bad_settings_are_rejected() -> None:
    for bad in (
        {"jail_limit": 4},
        {"turn_limit": 50},
        {"first_side": "nobody"},
        {"luck_pct": 101},
        {"strategic_move_window_s": 0},
        {"no_such_option": 1},
        {"neutral_must_act": "yes"},
    ):
        with pytest.raises(IllegalMove) as info:
            new_game(**bad)
        assert info.value.code == "E_BAD_SETUP"
    with pytest.raises(IllegalMove):
        new_game(mode="blitz")


@spec("AVA-28")
def test_starting_money_and_garrison() -> None:
    s = new_game(starting_money=1000)
    assert s.players[1].money == 1000  # the Axis have not collected yet
    assert s.garrison[UK - 1] == (0, 0, 0, 0)
    s = new_game(starting_garrison="neutral_value")
    assert s.garrison[UK - 1] == (40, 0, 0, 0) and s.garrison[FRANCE - 1] == (25, 0, 0, 0)
    s = new_game(mode="no_italy", starting_garrison="neutral_value")
    assert s.garrison[USA - 1] == (0, 0, 0, 0)


@spec("AVA-30", "AVA-157")
@pytest.mark.parametrize(
    ("kind", "money", "units", "nukes"),
    [
        ("money", 5000, (0, 0, 0, 0), 0),
        ("army", 0, (20, 6, 3, 1), 0),
        ("nuke", 0, (0, 0, 0, 0), 1),
    ],
)
def test_battleship_ai_advantage(kind: str, money: int, units: tuple, nukes: int) -> None:
    s = new_game(ais=(None, "battleship"), battleship_ai_advantage=kind)
    axis = s.players[1]
    assert (axis.money, axis.available, axis.nukes, axis.advantage) == (money, units, nukes, kind)
    assert s.players[0].nukes == 0


@spec("AVA-157")
def test_battleship_advantage_random_is_drawn_from_the_seed() -> None:
    kinds = {new_game(ais=(None, "battleship"), seed=k).players[1].advantage for k in range(30)}
    assert kinds == {"money", "army", "nuke"}
    assert (
        new_game(ais=(None, "battleship"), seed=7).players[1].advantage
        == new_game(ais=(None, "battleship"), seed=7).players[1].advantage
    )


@spec("AVA-31")
def test_first_side() -> None:
    assert new_game().current == 0
    assert new_game(first_side="axis").current == 1
    assert {new_game(first_side="random", seed=k).current for k in range(20)} == {0, 1}


@spec("AVA-134", "AVA-136", "TV-AVA-64")
def test_fresh_profile_only_regular() -> None:
    with pytest.raises(IllegalMove) as info:
        new_game(mode="fierce_battle", unlock_all_modes=False, profiles={"alice": {}, "bob": {}})
    assert info.value.code == "E_MODE_LOCKED"
    assert new_game(mode="regular", unlock_all_modes=False).mode == "regular"
    for mode in ("regular", "les_miserables", "fierce_battle", "no_italy"):
        assert new_game(mode=mode, unlock_all_modes=True).mode == mode


def _finished(winner_side: int, mode: str, ais: tuple, unlocked: list[str] | None = None):
    profiles = {"alice": {"unlocked_modes": unlocked or []}}
    seats = [
        Seat("Alice", camp="allies", ai=ais[0], profile="alice"),
        Seat("Bob", camp="axis", ai=ais[1], profile="bob"),
    ]
    setup = Setup(
        seats=seats,
        mode=mode,
        options={"data_dir": fixture_dir(), "unlock_all_modes": True},
        profiles=profiles,
    )
    st = GAME.initial_state(setup)
    st.result = {"winner": SIDE_NAMES[winner_side], "reason": "conquest", "round": 9}
    return setup, st


@spec("AVA-135", "TV-AVA-64")
def test_unlock_progression() -> None:
    setup, st = _finished(0, "regular", (None, "battleship"))
    update = GAME.profile_updates(setup, st)
    assert update == {"alice": {"unlocked_modes": ["regular", "les_miserables"]}}
    # the stored profile now allows Les Misérables but not Fierce Battle
    profiles = dict(update)
    assert new_game(mode="les_miserables", unlock_all_modes=False, profiles=profiles).mode
    with pytest.raises(IllegalMove):
        new_game(mode="fierce_battle", unlock_all_modes=False, profiles=profiles)
    # beating the Plane AI unlocks nothing; losing unlocks nothing
    setup, st = _finished(0, "les_miserables", (None, "plane"), ["les_miserables"])
    assert GAME.profile_updates(setup, st) == {}
    setup, st = _finished(1, "regular", (None, "battleship"))
    assert GAME.profile_updates(setup, st) == {}
    # the last mode unlocks nothing further
    setup, st = _finished(
        0, "no_italy", (None, "battleship"), ["les_miserables", "fierce_battle", "no_italy"]
    )
    assert GAME.profile_updates(setup, st) == {}


@spec("AVA-135")
def test_games_without_humans_lock_nothing() -> None:
    setup = GAME.selfplay_setup(["tank", "plane"], seed=3, mode="no_italy")
    assert GAME.initial_state(setup).mode == "no_italy"
