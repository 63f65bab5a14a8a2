"""End phase, victory and elimination (§8, §9): TV-CPX-48..TV-CPX-50, TV-CPX-52."""

from __future__ import annotations

import pytest

from companion.engine import Command, IllegalMove
from companion.games.cpx.state import HAND_CHOICE, OVER

from .helpers import GAME, SHIPPED, do, drop, pass_all, refused, scenario


def _thirty(opt=None):
    """TV-CPX-48 on the shipped 50-base map: A = P1 17 + P3 12, B = P2 10 + P4 9."""
    d = SHIPPED.data
    fixed = {"london": 1, "paris": 2, "moscow": 0, "berlin": 3}
    rest = [b.id for b in d.bases if b.id not in fixed]
    owners = dict(fixed)
    for seat, n in ((0, 16), (2, 11), (1, 9), (3, 8)):
        for _ in range(n):
            owners[rest.pop()] = seat
    s = scenario(
        4,
        owners=owners,
        game=SHIPPED,
        options=opt,
        acting=3,
        units={
            "london": {"blue": 1, "yellow": 3},
            "paris": {"yellow": 1},
            "moscow": {"red": 1, "green": 3},
            "berlin": {"green": 1},
        },
        attacks=[
            (2, "paris", "london", 3, d.card_of_base["paris"]),
            (3, "berlin", "moscow", 3, d.card_of_base["berlin"]),
        ],
    )
    s.cards[d.card_of_base["paris"]]["place"] = "discard"
    s.cards[d.card_of_base["berlin"]]["place"] = "discard"
    s.recruited = [0, 1, 2]
    return s


def test_tv_cpx_48_thirty_bases_cpx_100_cpx_104_cpx_103_cpx_96() -> None:
    """TV-CPX-48 (CPX-100, CPX-104, CPX-103, CPX-96, G43, G44)."""
    s = _thirty()
    assert (s.camp_bases("A"), s.camp_bases("B")) == (29, 19)
    s = SHIPPED.apply(s, Command("end_move", {}, seat=3))[0]
    s = _shipped_drop(s, {"yellow": 3})
    assert s.phase == OVER and s.result["condition"] == "thirty_bases"
    assert s.result["camp"] == "A" and s.queue == ["moscow"]
    with pytest.raises(IllegalMove) as e:
        SHIPPED.apply(s, Command("pass", {}, seat=0))
    assert e.value.code == "E_GAME_OVER"
    t = _thirty({"victory_check": "end_phase_only"})
    t = _shipped_pass(SHIPPED.apply(t, Command("end_move", {}, seat=3))[0])
    t = _shipped_drop(t, {"yellow": 3})
    assert t.phase != OVER and t.battle["base"] == "moscow" and t.camp_bases("A") == 30
    t = _shipped_drop(t, {"green": 3})
    assert t.phase == HAND_CHOICE and t.result is None and t.camp_bases("A") == 29


def _shipped_pass(s):
    from companion.games.cpx import abilities
    from companion.games.cpx.ctx import Ctx

    for seat in abilities.pass_eligible(Ctx(SHIPPED.data, s)):
        if s.window is None:
            break
        s = SHIPPED.apply(s, Command("pass", {}, seat=seat))[0]
    return s


def _shipped_drop(s, counts):
    s = _shipped_pass(s)
    s = SHIPPED.apply(s, Command("report_drop", {"counts": counts}))[0]
    return _shipped_pass(SHIPPED.apply(s, Command("confirm_drop", {}))[0])


def test_tv_cpx_49_elimination_and_camp_defeat_cpx_101_cpx_102() -> None:
    """TV-CPX-49 (CPX-101, CPX-102, CPX-66 skip, CPX-9 E_PLAYER_OUT)."""
    s = scenario(
        4,
        owners={"B1": 0, "B3": 0, "B4": 1, "B7": 2, "B8": 3},
        units={
            "B1": {"red": 1},
            "B4": {"blue": 2, "red": 4},
            "B3": {"red": 1, "blue": 2},
            "B7": {"yellow": 1},
            "B8": {"green": 1},
        },
        acting=3,
        attacks=[(0, "B1", "B4", 4, "C07"), (1, "B4", "B3", 2, "C03")],
    )
    s.recruited = [0, 1, 2]
    s = pass_all(do(s, "end_move", 3))
    assert s.battle["base"] == "B4"
    s = pass_all(drop(s, red=3))
    assert s.players[1]["out"] and s.markers["blue"] == 0
    assert "blue" not in s.units.get("B3", {})
    assert s.tower["blue"] == 2 and s.phase != OVER
    assert refused(s, "choose_hand", 1, cards=[]) == "E_PLAYER_OUT"
    assert s.phase == HAND_CHOICE and 1 not in s.order
    t = scenario(
        4,
        owners={"B1": 0, "B8": 3, "B7": 2},
        units={"B1": {"red": 1}, "B8": {"green": 1, "yellow": 4}, "B7": {"yellow": 1}},
        acting=3,
        attacks=[(2, "B7", "B8", 4, "C16")],
    )
    t.players[1]["out"] = True
    t.markers["blue"] = 0
    t.pools["blue"] += 1
    t.recruited = [0, 1, 2]
    t = pass_all(do(t, "end_move", 3))
    t = pass_all(drop(t, yellow=3))
    assert t.phase == OVER and t.result["condition"] == "camp_defeat"
    assert t.result["camp"] == "A" and GAME.outcome(t).winners == [0, 2]
    assert refused(t, "choose_hand", 0, cards=[]) == "E_GAME_OVER"


def test_tv_cpx_50_end_phase_and_next_round_cpx_97_cpx_99_cpx_45() -> None:
    """TV-CPX-50 (CPX-97, CPX-99, CPX-45, CPX-119 return to pool)."""
    s = scenario(
        owners={"B1": 0, "B2": 1, "B4": 0},
        units={"B1": {"red": 2}, "B2": {"blue": 1}},
        hands={0: ["C14"]},
        acting=1,
    )
    s.recruited = [0]
    s.cards["C08"]["place"] = "played"
    s.cards["C12"] = {"holder": 0, "place": "committed", "attack": 1}
    s.set_aside = [{"colour": "red", "count": 3, "base": "B2"}]
    s.pools["red"] -= 3
    pool = s.pools["red"]
    s = do(s, "end_move", 1)
    assert s.round == 2 and s.phase == HAND_CHOICE
    assert all(c["place"] == "collection" for c in s.cards.values() if c["holder"] == 0)
    assert s.set_aside == [] and s.pools["red"] == pool + 3
    s = do(s, "choose_hand", 0, cards=["C03", "C08", "C12", "C14"])
    assert s.cards["C03"]["place"] == "hand"


def test_tv_cpx_52_cubes_of_a_player_who_is_out_cpx_85_cpx_101_g45() -> None:
    """TV-CPX-52 (CPX-85, CPX-101 item 4, G45)."""
    from .test_battle import _two_v_two_b4

    s = _two_v_two_b4({"yellow": 2}, red=3, blue=2, green=0, out=[2])
    s = pass_all(drop(s, red=1, yellow=2))
    assert s.units["B4"] == {"red": 1} and s.cards["C03"]["holder"] == 0
    assert s.tower["red"] == 2 and s.tower["yellow"] == 0 and s.tower["blue"] == 2
    v = _two_v_two_b4({"yellow": 2}, red=3, blue=2, green=0, out=[2])
    v = pass_all(drop(v, red=1, yellow=2, blue=2))
    assert v.units["B4"] == {"red": 1}
    w = _two_v_two_b4({"yellow": 2}, red=3, blue=2, green=0, out=[2])
    w.options["eliminated_colour_counts"] = False
    w = pass_all(drop(w, red=1, yellow=2, blue=2))
    assert w.units["B4"] == {"blue": 1} and w.cards["C03"]["holder"] == 1
