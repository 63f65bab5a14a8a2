"""The move phase (§6): attacks, route types, the cap, retreats. TV-CPX-11..TV-CPX-15."""

from __future__ import annotations

from companion.games.cpx.state import BATTLE

from .helpers import do, refused, scenario


def test_tv_cpx_11_legal_attacks_cpx_56_cpx_58_cpx_59_cpx_19() -> None:
    """TV-CPX-11 (CPX-56, CPX-58, CPX-59, CPX-19, CPX-18)."""
    s = scenario(
        owners={"B1": 0, "B2": 1}, units={"B1": {"red": 6}}, hands={0: ["C14", "C10", "C02"]}
    )
    s = do(s, "attack", 0, **{"from": "B1", "to": "B3", "units": 2, "card": "C14"})
    s = do(s, "attack", 0, **{"from": "B1", "to": "B4", "units": 1, "card": "C10"})
    s = do(s, "attack", 0, **{"from": "B1", "to": "B5", "units": 2, "card": "C02"})
    assert s.units["B1"] == {"red": 1}
    assert [a["seq"] for a in s.attacks] == [1, 2, 3]
    assert [a["route"] for a in s.attacks] == ["yellow", "blue", "pink"]
    assert all(s.cards[c]["place"] == "committed" for c in ("C14", "C10", "C02"))


def test_tv_cpx_12_route_types_cpx_18_cpx_19_cpx_60() -> None:
    """TV-CPX-12 (CPX-18, CPX-19, CPX-60)."""
    s = scenario(
        owners={"B1": 0, "B2": 1}, units={"B1": {"red": 6}}, hands={0: ["C14", "C10", "C13"]}
    )
    a = {"from": "B1", "units": 1}
    assert refused(s, "attack", 0, **a, to="B4", card="C14") == "E_ROUTE_TYPE"
    assert refused(s, "attack", 0, **a, to="B5", card="C10") == "E_ROUTE_TYPE"
    assert refused(s, "attack", 0, **a, to="B5", card="C13") == "E_ROUTE_TYPE"
    assert refused(s, "attack", 0, **a, to="B3", card="C13") == "E_ROUTE_TYPE"
    s = do(s, "attack", 0, **a, to="B4", card="C13")
    assert refused(s, "attack", 0, **a, to="B4", card="C13") == "E_CARD_NOT_IN_HAND"


def test_tv_cpx_13_other_attack_errors_cpx_57_cpx_63() -> None:
    """TV-CPX-13 (CPX-56 checks 2-8, CPX-57, G20)."""
    s = scenario(owners={"B1": 0, "B4": 1, "B2": 1}, units={"B1": {"red": 3}}, hands={0: ["C14"]})
    a = {"from": "B1", "card": "C14"}
    assert refused(s, "attack", 0, **a, to="B3", units=3) == "E_MUST_LEAVE_ONE"
    assert refused(s, "attack", 0, **a, to="B7", units=1) == "E_NOT_ADJACENT"
    assert refused(s, "attack", 0, **a, to="B3", units=0) == "E_NO_UNITS"
    assert refused(s, "attack", 0, **a, to="B3", units=4) == "E_UNITS_NOT_THERE"
    s2 = scenario(owners={"B1": 0, "B3": 0, "B2": 1}, units={"B1": {"red": 3}}, hands={0: ["C14"]})
    assert refused(s2, "attack", 0, **a, to="B3", units=1) == "E_TARGET_FRIENDLY"
    s3 = scenario(
        owners={"B1": 0, "B4": 1, "B2": 1},
        units={"B1": {"red": 3}, "B4": {"red": 2}},
        hands={0: ["C14"]},
    )
    assert refused(s3, "attack", 0, **{"from": "B4", "to": "B3", "units": 1, "card": "C14"}) == (
        "E_NOT_OWN_BASE"
    )
    assert refused(s, "attack", 1, **a, to="B3", units=1) == "E_NOT_YOUR_TURN"
    s4 = scenario(owners={"B1": 0, "B4": 1, "B2": 1, "B17": 0}, units={"B1": {"red": 3}})
    assert refused(s4, "attack", 0, **a, to="B3", units=1) == "E_CARD_NOT_IN_HAND"
    four = {"B1": 0, "B2": 1, "B7": 2, "B8": 3}
    s5 = scenario(4, owners=four, units={"B1": {"red": 2, "yellow": 1}}, hands={0: ["C14"]})
    do(s5, "attack", 0, **a, to="B3", units=2)
    s6 = scenario(
        4,
        owners=four,
        units={"B1": {"red": 2, "yellow": 1}},
        hands={0: ["C14"]},
        options={"leave_one_own_colour": True},
    )
    assert refused(s6, "attack", 0, **a, to="B3", units=2) == "E_MUST_LEAVE_ONE"
    s7 = scenario(4, owners={**four, "B3": 2}, units={"B1": {"red": 3}}, hands={0: ["C14"]})
    assert refused(s7, "attack", 0, **a, to="B3", units=1) == "E_TARGET_FRIENDLY"


def test_tv_cpx_14_cap_on_attacks_cpx_56_check_10() -> None:
    """TV-CPX-14 (CPX-56 check 10, G21)."""

    def make(**opt):
        return scenario(
            owners={"B3": 1, "B1": 0, "B7": 0, "B2": 1},
            units={"B3": {"blue": 2}, "B1": {"red": 10}, "B7": {"red": 5}},
            hands={0: ["C14", "C21"]},
            options=opt,
        )

    s = do(make(), "attack", 0, **{"from": "B1", "to": "B3", "units": 8, "card": "C14"})
    assert s.units["B3"] == {"red": 8, "blue": 2}
    assert refused(s, "attack", 0, **{"from": "B7", "to": "B3", "units": 3, "card": "C21"}) == (
        "E_CAP_EXCEEDED"
    )
    do(s, "attack", 0, **{"from": "B7", "to": "B3", "units": 2, "card": "C21"})
    s = do(
        make(cap_applies_to_attacks=False),
        "attack",
        0,
        **{"from": "B1", "to": "B3", "units": 8, "card": "C14"},
    )
    s = do(s, "attack", 0, **{"from": "B7", "to": "B3", "units": 3, "card": "C21"})
    assert s.units["B3"]["red"] == 11


def _retreat_position(b2_blue: int = 5):
    s = scenario(
        owners={"B2": 1, "B4": 1, "B1": 0},
        units={"B2": {"blue": b2_blue}, "B4": {"blue": 4}, "B1": {"red": 6}},
        hands={0: ["C10"], 1: ["C03"]},
    )
    s = do(s, "attack", 0, **{"from": "B1", "to": "B4", "units": 5, "card": "C10"})
    return do(s, "end_move", 0)


def test_tv_cpx_15_retreat_cpx_61_cpx_62_cpx_63_cpx_94() -> None:
    """TV-CPX-15 (CPX-61, CPX-62, CPX-63, CPX-94, CPX-21)."""
    s = _retreat_position()
    assert refused(s, "retreat", 1, base="B2", to="B4") == "E_RETREAT_NOT_ALLOWED"
    assert refused(s, "retreat", 1, base="B4", to="B6") == "E_NOT_ADJACENT"
    assert refused(s, "retreat", 1, base="B4", to="B3") == "E_TARGET_INVALID"
    before = (s.base_count(0), s.base_count(1))
    s2 = do(s, "retreat", 1, base="B4", to="B2")
    assert s2.units["B2"] == {"blue": 9} and s2.units["B4"] == {"red": 5}
    assert s2.cards["C03"] == {"holder": 0, "place": "discard", "attack": None}
    assert (s2.base_count(0), s2.base_count(1)) == (before[0] + 1, before[1] - 1)
    s2 = do(s2, "end_move", 1)
    assert s2.phase != BATTLE or "B4" not in s2.queue
    assert refused(_retreat_position(7), "retreat", 1, base="B4", to="B2") == "E_CAP_EXCEEDED"
    s3 = scenario(
        owners={"B2": 1, "B3": 0, "B1": 0},
        units={"B2": {"blue": 5}, "B3": {"red": 2}},
        hands={1: ["C14"]},
        acting=1,
        order=[0, 1],
    )
    s3.recruited = [0]
    s3 = do(s3, "attack", 1, **{"from": "B2", "to": "B3", "units": 1, "card": "C14"})
    assert refused(s3, "retreat", 0, base="B3", to="B1") == "E_NOT_YOUR_TURN"


def test_end_move_and_phase_order_cpx_55_cpx_44() -> None:
    """CPX-55, CPX-44: move turns in order; nothing resolves in the move phase."""
    s = scenario(
        owners={"B1": 0, "B2": 1}, units={"B1": {"red": 4}, "B2": {"blue": 3}}, hands={0: ["C14"]}
    )
    s = do(s, "attack", 0, **{"from": "B1", "to": "B3", "units": 2, "card": "C14"})
    assert s.units["B3"] == {"red": 2}
    assert refused(s, "end_move", 1) == "E_NOT_YOUR_TURN"
    s = do(s, "end_move", 0)
    assert s.acting == 1
    assert refused(s, "pass", 1) == "E_WRONG_PHASE"
