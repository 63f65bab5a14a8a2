"""Strategic moves (§8: AVA-48..AVA-54, AVA-98) and the 3-second window (AVA-50)."""

from __future__ import annotations

import pytest

from companion.engine import Command
from companion.games.ava import GAME
from tests.ava.helpers import ALLIES, code_of, do, edit, new_game, set_player

spec = pytest.mark.spec


def offered(money: int, at: float | None = None, **options: object):
    s = set_player(new_game(**options), ALLIES, money=money, position=30)
    new, _ = GAME.apply(s, Command("spin", {"value": 1}, seat=0, at=at))
    return new


@spec("AVA-48", "AVA-49", "TV-AVA-25")
def test_offer_lists_only_affordable_moves() -> None:
    s = offered(1500)
    assert s.step == "S5"
    moves = [dict(c.args) for c in GAME.legal_commands(s) if c.name == "strategic_move"]
    assert moves == [{"direction": "forward", "steps": 1}, {"direction": "back", "steps": 1}]
    assert code_of(s, "strategic_move", direction="forward", steps=2) == "E_NOT_ENOUGH_MONEY"


@spec("AVA-48", "TV-AVA-25")
def test_no_offer_below_c1() -> None:
    s = offered(999)
    assert s.step == "S6" and s.offer == "none"
    assert code_of(s, "strategic_move", direction="forward", steps=1) == "E_WRONG_STEP"


@spec("AVA-51", "AVA-53", "TV-AVA-24", "AVA-98")
def test_cost_sequence_over_four_turns() -> None:
    s = set_player(new_game(), ALLIES, money=20000)
    paid = []
    for direction, steps in [("forward", 1), ("back", 2), ("forward", 1), ("forward", 2)]:
        s = edit(s, step="S3", offer="none", current=ALLIES)
        s = set_player(s, ALLIES, position=30)
        s = do(s, "spin", value=1)
        before = s.players[0].money
        s = do(s, "strategic_move", direction=direction, steps=steps)
        paid.append(before - s.players[0].money)
        assert s.step == "S6" and s.offer == "taken"
    assert paid == [1000, 4000, 3000, 8000]
    assert s.players[0].money == 4000 and s.players[0].strategic_moves_used == 4


@spec("AVA-51", "AVA-53", "TV-AVA-27")
def test_wraps_back_past_square_one_and_only_final_square_resolves() -> None:
    s = set_player(new_game(), ALLIES, money=5000, position=31)
    s = do(s, "spin", value=6)
    assert s.players[0].position == 1
    s = do(s, "strategic_move", direction="back", steps=2)
    assert s.players[0].position == 35 and s.landed_square == 35
    assert s.draws == 1 and s.last_card is not None and s.last_card.startswith("S")


@spec("AVA-52", "TV-AVA-29")
def test_second_strategic_move() -> None:
    s = do(offered(5000), "strategic_move", direction="forward", steps=1)
    assert code_of(s, "strategic_move", direction="back", steps=1) == "E_STRATEGIC_MOVE_USED"
    s = do(s, "pass")
    assert code_of(s, "strategic_move", direction="back", steps=1) == "E_STRATEGIC_MOVE_USED"


@spec("AVA-50", "TV-AVA-26")
def test_window_closed() -> None:
    s = offered(5000, at=100.0)
    assert s.offer_at == 100.0
    late = Command("strategic_move", {"direction": "forward", "steps": 1}, seat=0, at=103.2)
    with pytest.raises(Exception) as info:
        GAME.apply(s, late)
    assert getattr(info.value, "code", None) == "E_WINDOW_CLOSED"
    on_time = Command("strategic_move", {"direction": "forward", "steps": 1}, seat=0, at=103.0)
    assert GAME.apply(s, on_time)[0].offer == "taken"
    deadline = GAME.deadline(s)
    assert deadline is not None and deadline.at == 103.0
    assert deadline.command.name == "decline_move" and deadline.command.seat == 0
    declined, _ = GAME.apply(s, deadline.command)
    assert declined.step == "S6" and declined.landed_square == 31  # the spin square resolves
    assert code_of(declined, "strategic_move", direction="forward", steps=1) == "E_WINDOW_CLOSED"
    assert GAME.deadline(declined) is None


@spec("AVA-50")
def test_window_option() -> None:
    s = offered(5000, at=0.0, strategic_move_window_s=10)
    assert GAME.deadline(s).at == 10.0
    s = offered(5000, at=0.0, strategic_move_window_s=None)
    assert GAME.deadline(s) is None
    late = Command("strategic_move", {"direction": "back", "steps": 1}, seat=0, at=9999.0)
    assert GAME.apply(s, late)[0].offer == "taken"


@spec("AVA-50")
def test_decline_at_once() -> None:
    s = do(offered(5000), "decline_move")
    assert s.step == "S6" and s.offer == "declined"


@spec("AVA-54")
def test_offer_after_paying_ransom() -> None:
    s = set_player(new_game(), ALLIES, money=5000, jailed=True, jail_count=1)
    s = edit(s, step="S2")
    s = do(s, "pay_ransom")
    assert s.step == "S3"
    s = do(s, "spin", value=2)
    assert s.step == "S5"


@spec("AVA-51")
def test_strategic_move_args_checked() -> None:
    s = offered(5000)
    assert code_of(s, "strategic_move", direction="left", steps=1) == "E_BAD_REQUEST"
    assert code_of(s, "strategic_move", direction="forward", steps=3) == "E_BAD_REQUEST"


@spec("AVA-53")
def test_spin_square_not_resolved_after_move() -> None:
    s = set_player(new_game(), ALLIES, money=5000, position=1)
    s = do(s, "spin", value=2)  # square 3 is fortune
    s = do(s, "strategic_move", direction="forward", steps=1)
    assert s.landed_square == 4 and s.draws == 0
