"""Jail (§12: AVA-101, AVA-103..AVA-109) and TV-AVA-16, 31..34."""

from __future__ import annotations

import pytest

from companion.games.ava import GAME
from tests.ava.helpers import (
    ALBANIA,
    ALLIES,
    AXIS,
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


def jailed_allies(jail_count: int, money: int, **options: object):
    """The Allies at S2 of their turn, jailed ``jail_count`` times, after collecting."""
    s = set_player(new_game(**options), ALLIES, jailed=True, jail_count=jail_count, money=money)
    return edit(s, step="S2")


def jail_them(jail_count_before: int = 0, **options: object):
    """The Allies land on Axis-held Albania (DP 300) with (89, 1, 0, 0) and take the penalty."""
    s = set_square(new_game(**options), ALBANIA, AXIS, (300, 0, 0, 0))
    s = set_player(s, ALLIES, money=10000, available=(89, 1, 0, 0), jail_count=jail_count_before)
    return do(arrive(s, ALBANIA), "penalty")


@spec("AVA-103", "AVA-107", "TV-AVA-16", "TV-AVA-34")
def test_jailing_ends_the_turn_at_once() -> None:
    s = jail_them()
    a = s.players[0]
    assert a.jailed and a.jail_count == 1 and a.position == ALBANIA
    assert s.current == AXIS and s.step == "S3"
    assert code_of(s, "pay_ransom", seat=0) == "E_NOT_YOUR_TURN"


@spec("AVA-107", "TV-AVA-34")
def test_ransom_payable_immediately() -> None:
    s = jail_them(ransom_payable_immediately=True)
    assert s.current == ALLIES and s.step == "S2_now"
    names = {c.name for c in GAME.legal_commands(s)}
    assert names == {"pay_ransom", "end_turn"}
    assert code_of(s, "recruit", I=1) == "E_JAILED"
    paid = do(s, "pay_ransom")
    assert not paid.players[0].jailed and paid.players[0].jail_count == 1
    assert paid.players[0].money == 8000 and paid.current == AXIS
    assert paid.players[0].position == ALBANIA
    declined = do(s, "end_turn")
    assert declined.players[0].jailed and declined.current == AXIS


@spec("AVA-104", "AVA-105", "AVA-101", "TV-AVA-31")
def test_ransom_paid_to_the_opponent() -> None:
    s = set_player(jailed_allies(2, 5000), AXIS, money=100)
    s = do(s, "pay_ransom")
    assert s.players[0].money == 1000 and s.players[1].money == 4100
    assert not s.players[0].jailed and s.step == "S3"
    s = do(s, "spin", value=1)  # the token moves on from where he was jailed
    assert s.step in ("S6", "S5")


@spec("AVA-104", "AVA-106", "TV-AVA-32")
def test_unable_to_pay() -> None:
    s = set_player(new_game(), ALLIES, money=0, available=(0, 0, 0, 0))
    s = do(arrive(s, QUIET), "end_turn")
    s = set_player(s, ALLIES, jailed=True, jail_count=1, money=1200)
    s = do(arrive(set_player(s, AXIS, money=0), QUIET), "end_turn")
    assert s.step == "S2" and s.players[0].money == 1900
    assert code_of(s, "pay_ransom") == "E_NOT_ENOUGH_MONEY"
    assert code_of(s, "spin", value=3) == "E_JAILED"
    s = do(s, "end_turn")
    assert s.current == AXIS
    s = do(arrive(set_player(s, AXIS, money=0), QUIET), "end_turn")
    assert s.players[0].money == 2600
    s = do(s, "pay_ransom")
    assert s.players[0].money == 600 and s.step == "S3"
    assert do(s, "spin", value=2).players[0].position == QUIET + 2


@spec("AVA-106", "AVA-47", "AVA-33")
def test_jailed_player_may_only_pay_or_end() -> None:
    s = set_player(jailed_allies(1, 0), ALLIES, kept_cards=("S04",), nukes=1)
    for name, args in [
        ("spin", {"value": 2}),
        ("recruit", {"I": 1}),
        ("pass", {}),
        ("strategic_move", {"direction": "forward", "steps": 1}),
        ("garrison", {"square": 1, "I": 1}),
        ("use_card", {"card": "S04"}),
        ("nuke", {"target": 20}),
        ("invade", {"I": 1}),
    ]:
        assert code_of(s, name, **args) == "E_JAILED", name
    assert [c.name for c in GAME.legal_commands(s)] == ["end_turn"]


@spec("AVA-105")
def test_ransom_when_not_jailed() -> None:
    s = new_game()
    assert code_of(s, "pay_ransom") == "E_NOT_JAILED"
    s = do(arrive(set_player(s, ALLIES, money=0), QUIET), "pass")
    assert code_of(s, "pay_ransom") == "E_NOT_JAILED"


@spec("AVA-103", "AVA-130", "TV-AVA-33")
def test_jail_limit() -> None:
    s = jail_them(jail_count_before=2)
    assert s.result == {"winner": "axis", "reason": "jail", "round": 1}
    five = jail_them(jail_count_before=2, jail_limit=5)
    assert five.result is None and five.players[0].jail_count == 3 and five.players[0].jailed
    five = edit(five, current=ALLIES, step="S2")
    assert code_of(set_player(five, ALLIES, money=5999), "pay_ransom") == "E_NOT_ENOUGH_MONEY"
    assert do(set_player(five, ALLIES, money=6000), "pay_ransom").players[0].money == 0


@spec("AVA-108")
def test_paying_does_not_reset_the_count() -> None:
    s = do(jailed_allies(1, 3000), "pay_ransom")
    assert s.players[0].jail_count == 1
