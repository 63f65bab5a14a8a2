"""Setup, priming, turn order and the recruit phase (§3, §4, §5): TV-CPX-01..TV-CPX-09."""

from __future__ import annotations

import pytest

from companion.engine import IllegalMove, Seat, Setup
from companion.games.cpx.ctx import Ctx
from companion.games.cpx.flow import compute_order
from companion.games.cpx.state import HAND_CHOICE, MOVE, PRIMING, RECRUIT

from .helpers import GAME, do, refused, scenario, setup


def _primed(**options):
    s = GAME.initial_state(setup(2, first=1, **options))
    s = do(s, "choose_start", 1, base="B2")
    return do(s, "choose_start", 0, base="B1")


def test_tv_cpx_01_setup_and_priming_cpx_34_cpx_36_cpx_37_cpx_38_cpx_39_cpx_16() -> None:
    """TV-CPX-01 (CPX-34, CPX-36, CPX-37, CPX-38, CPX-39, CPX-16, CPX-105, CPX-107)."""
    s = _primed()
    assert s.phase == PRIMING and s.tower == {c: 0 for c in s.tower}
    assert s.drop["input"] == {"red": 7, "blue": 7, "black": 5, "white": 5}
    assert s.units == {"B2": {"blue": 3}, "B1": {"red": 3}}
    s = do(s, "report_drop", counts={"red": 4, "blue": 2, "black": 3, "white": 1})
    s = do(s, "confirm_drop")
    assert s.tower == {"red": 3, "blue": 5, "black": 2, "white": 4}  # yellow, green: not in play
    assert s.pools == {"red": 53, "blue": 51, "black": 58, "white": 56}
    assert s.order == [0, 1] and s.phase == HAND_CHOICE and s.round == 1
    s2 = _primed(first_round_first_player="first_chooser")
    s2 = do(s2, "report_drop", counts={"red": 4, "blue": 2, "black": 3, "white": 1})
    assert do(s2, "confirm_drop").order == [1, 0]


def test_tv_cpx_02_priming_report_refused_cpx_106_cpx_12() -> None:
    """TV-CPX-02 (CPX-106, CPX-12): impossible and invalid reports change nothing."""
    s = _primed()
    assert refused(s, "report_drop", counts={"red": 8}) == "E_LEDGER_IMPOSSIBLE"
    assert refused(s, "report_drop", counts={"yellow": 1}) == "E_LEDGER_IMPOSSIBLE"
    assert refused(s, "report_drop", counts={"red": -1}) == "E_COUNT_INVALID"
    assert refused(s, "report_drop", counts={"purple": 1}) == "E_COUNT_INVALID"
    do(s, "report_drop", counts={"red": 4, "blue": 2, "black": 3, "white": 1})
    s = _primed(priming_neutral_per_player=True)
    assert s.drop["input"]["black"] == 10
    do(s, "report_drop", counts={"black": 8})


def test_tv_cpx_03_setup_errors_cpx_31_cpx_32_cpx_33() -> None:
    """TV-CPX-03 (CPX-31, CPX-32, CPX-33): player counts, camps, factions, seating turns."""
    five = Setup(seats=[Seat(f"P{i}") for i in range(5)])
    with pytest.raises(IllegalMove) as e:
        GAME.initial_state(five)
    assert e.value.code == "E_SETUP_INVALID"
    camps = Setup(seats=[Seat(f"P{i}", camp="A" if i < 3 else "B") for i in range(4)])
    with pytest.raises(IllegalMove) as e:
        GAME.initial_state(camps)
    assert e.value.code == "E_SETUP_INVALID"
    twice = Setup(seats=[Seat("P1", colour="soviet"), Seat("P2", colour="red", camp="B")])
    with pytest.raises(IllegalMove) as e:
        GAME.initial_state(twice)
    assert e.value.code == "E_SETUP_INVALID"
    s = GAME.initial_state(setup(2, first=1))
    assert refused(s, "choose_start", 0, base="B1") == "E_NOT_YOUR_TURN"
    assert refused(s, "choose_start", 1, base="B1") == "E_START_BASE_COLOUR"
    assert refused(s, "choose_start", 1, base="B3") == "E_START_BASE_COLOUR"


def test_settings_are_fixed_cpx_35() -> None:
    """CPX-35: unknown options and bad values are refused at setup."""
    with pytest.raises(IllegalMove) as e:
        GAME.initial_state(setup(2, turn_order="alphabetical"))
    assert e.value.code == "E_SETUP_INVALID"
    s = GAME.initial_state(setup(2))
    assert refused(s, "setup", 0, options={"turn_order": "ranking"}) == "E_WRONG_PHASE"


def test_tv_cpx_04_turn_order_and_ties_cpx_41_cpx_42_cpx_98() -> None:
    """TV-CPX-04 (CPX-41, CPX-42, CPX-98)."""
    s = scenario(4, owners={"B1": 0, "B2": 1, "B7": 2, "B8": 3})
    assert compute_order(Ctx(GAME.data, s), first_round=True) == [0, 1, 2, 3]
    owners = {}
    bases = [f"B{i}" for i in range(1, 19)]
    for seat, n in ((0, 4), (1, 6), (2, 2), (3, 6)):
        for _ in range(n):
            owners[bases.pop()] = seat
    s = scenario(4, owners=owners)
    assert compute_order(Ctx(GAME.data, s)) == [1, 2, 3, 0]
    s = scenario(4, owners=owners, options={"turn_order": "ranking"})
    assert compute_order(Ctx(GAME.data, s)) == [1, 3, 0, 2]


def test_tv_cpx_05_player_out_is_skipped_cpx_43() -> None:
    """TV-CPX-05 (CPX-43, CPX-101 item 5)."""
    owners = {}
    bases = [f"B{i}" for i in range(1, 18)]
    for seat, n in ((0, 5), (1, 5), (3, 7)):
        for _ in range(n):
            owners[bases.pop()] = seat
    s = scenario(4, owners=owners)
    s.players[2]["out"] = True
    s.markers["yellow"] = 0
    s.pools["yellow"] += 1
    assert compute_order(Ctx(GAME.data, s)) == [3, 0, 1]
    assert refused(s, "end_move", 2) == "E_PLAYER_OUT"


def _recruiting(owners, units, pool=None, n=2, blocked=()):
    s = scenario(
        n,
        owners=owners,
        units=units,
        phase=RECRUIT,
        acting=None,
        pools={"red": pool} if pool is not None else None,
    )
    s.window = "recruit"
    s.blocked = list(blocked)
    from companion.games.cpx.flow import next_recruiter

    ctx = Ctx(GAME.data, s)
    next_recruiter(ctx)
    return ctx.s


def test_tv_cpx_06_squads_and_placement_cpx_48_cpx_49_cpx_53() -> None:
    """TV-CPX-06 (CPX-48, CPX-49, CPX-53, CPX-26)."""
    owners = {"B1": 0, "B3": 0, "B5": 0, "B9": 0, "B2": 1}
    s = _recruiting(owners, {"B1": {"red": 2}, "B3": {"red": 10}, "B5": {"red": 5}}, pool=20)
    assert s.squads_left == [2, 3]
    assert refused(s, "recruit", 0, base="B2") == "E_NOT_OWN_BASE"
    s = do(s, "recruit", 0, base="B9")
    assert s.units["B9"] == {"red": 2} and s.pools["red"] == 18
    s = do(s, "recruit", 0, base="B3")
    assert s.units["B3"] == {"red": 10} and s.pools["red"] == 18
    assert s.acting == 1
    assert refused(s, "recruit", 0, base="B1") == "E_NOT_YOUR_TURN"


def test_tv_cpx_07_cap_counts_partner_cpx_50() -> None:
    """TV-CPX-07 (CPX-50): a partner's units count for the cap of 10."""
    owners = {"B1": 0, "B2": 1, "B7": 2, "B8": 3}
    s = _recruiting(owners, {"B1": {"red": 6, "yellow": 3}}, pool=30, n=4)
    s = do(s, "recruit", 0, base="B1")
    assert s.units["B1"] == {"red": 7, "yellow": 3} and s.pools["red"] == 29


def test_tv_cpx_08_short_pool_cpx_52_cpx_51() -> None:
    """TV-CPX-08 (CPX-52, CPX-51): place what there is; recruitment is compulsory."""
    owners = {"B1": 0, "B3": 0, "B5": 0, "B9": 0, "B2": 1}
    s = _recruiting(owners, {}, pool=1)
    s = do(s, "recruit", 0, base="B1")
    assert s.pools["red"] == 0
    s = do(s, "recruit", 0, base="B1")
    assert s.units["B1"] == {"red": 1} and s.acting == 1


def test_tv_cpx_09_hand_choice_cpx_46_cpx_47_cpx_97() -> None:
    """TV-CPX-09 (CPX-46, CPX-47, CPX-24)."""
    held = ["B1", "B10", "B11", "B12", "B13", "B14", "B15"]  # C08 C02 C05 C06 C07 C09 C10
    s = scenario(owners={**{b: 0 for b in held}, "B2": 1}, phase=HAND_CHOICE, acting=None)
    for p in s.players:
        p["hand_chosen"] = False
    for c in s.cards.values():
        if c["holder"] is not None:
            c["place"] = "collection"
    six = ["C08", "C02", "C05", "C06", "C07", "C09"]
    assert refused(s, "choose_hand", 0, cards=six) == "E_HAND_TOO_LARGE"
    assert refused(s, "choose_hand", 0, cards=["C17"]) == "E_CARD_NOT_OWNED"
    assert refused(s, "choose_hand", 0, cards=["C08", "C08"]) == "E_CARD_NOT_OWNED"
    s = do(s, "choose_hand", 0, cards=["C08", "C02", "C05", "C06", "C07"])
    assert refused(s, "recruit", 0, base="B1") == "E_WRONG_PHASE"
    assert refused(s, "choose_hand", 0, cards=[]) == "E_WRONG_PHASE"
    assert s.cards["C09"]["place"] == "discard" and s.cards["C10"]["place"] == "discard"
    s = do(s, "choose_hand", 1, cards=[])
    assert s.phase == RECRUIT


def test_round_has_four_phases_cpx_40_cpx_44_cpx_45() -> None:
    """CPX-40, CPX-44, CPX-45: recruit, move, battle, end; one actor at a time."""
    s = _primed()
    s = do(s, "report_drop", counts={})
    s = do(s, "confirm_drop")
    s = do(s, "choose_hand", 0, cards=["C08"])
    s = do(s, "choose_hand", 1, cards=["C17"])
    assert s.phase == RECRUIT and s.acting == 0
    assert refused(s, "recruit", 1, base="B2") == "E_NOT_YOUR_TURN"
    assert refused(s, "end_move", 0) == "E_WRONG_PHASE"
    s = do(s, "recruit", 0, base="B1")
    s = do(s, "recruit", 1, base="B2")
    assert s.phase == MOVE and s.acting == 0
    s = do(s, "end_move", 0)
    s = do(s, "end_move", 1)
    assert s.round == 2 and s.phase == HAND_CHOICE


def test_cubes_per_colour_option_cpx_11_cpx_147() -> None:
    """CPX-11, CPX-147: the supply is 60 per colour, or 50 by option (G2)."""
    assert set(GAME.initial_state(setup(2)).supply.values()) == {60}
    s = GAME.initial_state(setup(2, cubes_per_colour=50))
    assert set(s.supply.values()) == {50} and s.pools["red"] == 50
