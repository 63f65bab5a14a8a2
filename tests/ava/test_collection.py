"""Collecting resources (§6: AVA-38..AVA-43) and TV-AVA-43..45."""

from __future__ import annotations

import pytest

from companion.games.ava import rules
from companion.games.ava.setup import data_for
from tests.ava.helpers import (
    ALBANIA,
    ALLIES,
    AXIS,
    BANK,
    USA,
    arrive,
    do,
    new_game,
    set_player,
    set_square,
)

spec = pytest.mark.spec
QUIET = 4  # Belgium in the fixture data: a neutral territory with no card


@spec("AVA-38", "AVA-39", "TV-AVA-43")
def test_collection_regular() -> None:
    s = new_game()  # the first S1 already ran for the Allies: UK + France
    assert s.players[0].money == 700 and s.players[0].available == (9, 3, 2, 1)


@spec("AVA-39", "TV-AVA-44")
@pytest.mark.parametrize(("rounding", "want"), [("floor", (2, 1, 0, 0)), ("half_up", (3, 1, 1, 1))])
def test_collection_les_miserables(rounding: str, want: tuple) -> None:
    s = new_game(mode="les_miserables", resource_rounding=rounding)
    assert s.players[0].money == 200 and s.players[0].available == want


@spec("AVA-38", "TV-AVA-45")
def test_collection_includes_secret_and_special_through_turns() -> None:
    s = set_square(new_game(mode="no_italy"), BANK, ALLIES)
    s = set_player(s, ALLIES, money=0, available=(0, 0, 0, 0))
    s = do(arrive(s, QUIET), "end_turn")
    s = do(arrive(set_player(s, AXIS, money=0), QUIET), "end_turn")
    assert s.owner[USA - 1] == ALLIES and s.current == ALLIES
    assert s.players[0].money == 1400 and s.players[0].available == (10, 4, 3, 2)


@spec("AVA-41", "AVA-42")
def test_skip_flag_and_collected_units_do_not_count_as_recruits() -> None:
    data = data_for(new_game().data_dir)
    s = set_player(new_game(), ALLIES, money=0, available=(0, 0, 0, 0), skip_next_collection=True)
    events: list = []
    rules.collect(data, s, events)
    assert s.players[0].money == 0 and not s.players[0].skip_next_collection
    assert events[0].kind == "collection_skipped"
    rules.collect(data, s, [])
    assert s.players[0].money == 700 and s.players[0].recruited_this_turn == (0, 0, 0, 0)


@spec("AVA-43")
def test_acquired_square_produces_from_next_turn() -> None:
    s = set_player(new_game(), ALLIES, money=1000, available=(0, 0, 0, 0))
    s = do(arrive(s, ALBANIA), "treaty")
    assert s.players[0].money == 800 and s.players[0].available == (0, 0, 0, 0)
    s = do(s, "end_turn")
    s = do(arrive(set_player(s, AXIS, money=0), QUIET), "end_turn")
    assert s.players[0].money == 800 + 700 + 100 and s.players[0].available == (11, 3, 2, 1)


@spec("AVA-40")
def test_jailed_player_collects() -> None:
    s = set_player(new_game(), ALLIES, money=0, available=(0, 0, 0, 0))
    s = do(arrive(s, QUIET), "end_turn")
    s = set_player(s, ALLIES, jailed=True, jail_count=1, money=0)
    s = do(arrive(set_player(s, AXIS, money=0), QUIET), "end_turn")
    assert s.step == "S2" and s.players[0].money == 700
