"""The battle phase (§7) and the tower ledger (§10): TV-CPX-16..TV-CPX-25, TV-CPX-47."""

from __future__ import annotations

from companion.games.cpx.state import BATTLE, HAND_CHOICE

from .helpers import do, drop, open_bb, pass_all, refused, scenario

T0 = {"red": 2, "blue": 1, "black": 2, "white": 4}


def _dropped(**report):
    s = pass_all(open_bb(tower=dict(T0)))
    assert s.drop["input"] == {"red": 5, "blue": 3}
    before = dict(s.pools)
    s = drop(s, **report)
    s = pass_all(s)
    return s, {c: s.pools[c] - before[c] for c in before}


def test_tv_cpx_16_attacker_wins_limited_by_own_cubes_cpx_86_cpx_85_cpx_107() -> None:
    """TV-CPX-16 (CPX-86, CPX-85, CPX-89, CPX-93, CPX-107, CPX-94)."""
    s, delta = _dropped(red=3, blue=1, black=2, white=1)
    assert s.units["B4"] == {"red": 3}
    assert s.cards["C03"] == {"holder": 0, "place": "collection", "attack": None}
    assert delta == {"red": 0, "blue": 1, "black": 2, "white": 1}
    assert s.tower == {"red": 4, "blue": 3, "black": 0, "white": 3}


def test_tv_cpx_17_attacker_wins_limited_by_difference_cpx_86() -> None:
    """TV-CPX-17 (CPX-86, CPX-89)."""
    s, delta = _dropped(red=5, blue=0, black=1, white=2)
    assert s.units["B4"] == {"red": 4}
    assert delta == {"red": 1, "blue": 0, "black": 1, "white": 2}
    assert s.tower == {"red": 2, "blue": 4, "black": 1, "white": 2}


def test_tv_cpx_18_tie_goes_to_defender_cpx_87() -> None:
    """TV-CPX-18 (CPX-87)."""
    s, delta = _dropped(red=2, blue=1, black=0, white=1)
    assert s.units["B4"] == {"blue": 1}
    assert s.cards["C03"]["holder"] == 1
    assert delta == {"red": 2, "blue": 0, "black": 0, "white": 1}
    assert s.tower == {"red": 5, "blue": 3, "black": 2, "white": 3}


def test_tv_cpx_19_defender_wins_with_white_only_cpx_88_cpx_90() -> None:
    """TV-CPX-19 (CPX-88, CPX-90, CPX-7)."""
    s, delta = _dropped(red=1, blue=0, black=0, white=3)
    assert "B4" not in s.units and s.cards["C03"]["holder"] == 1
    assert delta == {"red": 1, "blue": 0, "black": 0, "white": 3}
    assert s.tower == {"red": 6, "blue": 4, "black": 2, "white": 1}


def test_tv_cpx_20_attacker_wins_with_black_only_cpx_90() -> None:
    """TV-CPX-20 (CPX-90, G26)."""
    s, delta = _dropped(red=0, blue=1, black=2, white=0)
    assert "B4" not in s.units and s.cards["C03"]["holder"] == 0
    assert delta == {"red": 0, "blue": 1, "black": 2, "white": 0}
    assert s.tower == {"red": 7, "blue": 3, "black": 0, "white": 4}


def _two_v_two_b4(tower, red=4, blue=2, green=1, out=None):
    owners = {"B1": 0, "B4": 1, "B2": 1, "B7": 2, "B8": 3}
    s = scenario(
        4,
        owners=owners,
        units={"B1": {"red": 1}, "B4": {"blue": blue, "green": green, "red": red}},
        tower=tower,
        acting=3,
        attacks=[(0, "B1", "B4", red, "C07")],
    )
    s.recruited = [0, 1, 2]
    for seat in out or ():
        s.players[seat]["out"] = True
        colour = s.players[seat]["colour"]
        s.pools[colour] += s.markers[colour]
        s.markers[colour] = 0
        for card in s.cards.values():
            if card["holder"] == seat:
                card.update(holder=None, place="supply")
    return pass_all(do(s, "end_move", 3))


def test_tv_cpx_21_camp_colours_and_old_cubes_cpx_85_g74() -> None:
    """TV-CPX-21 (CPX-85, CPX-86 choose_units, CPX-28, CPX-30)."""
    s = _two_v_two_b4({"yellow": 3, "green": 2, "black": 1})
    assert s.drop["input"] == {"red": 4, "blue": 2, "green": 1}
    s = drop(s, red=1, yellow=2, blue=1, green=2, black=1, white=0)
    s = pass_all(s)
    assert s.prompt["kind"] == "choose_units" and s.prompt["proposal"] == {"red": 1}
    assert refused(s, "choose_units", 0, mix={"red": 2}) == "E_TARGET_INVALID"
    assert refused(s, "choose_units", 0, mix={"blue": 1}) == "E_TARGET_INVALID"
    alt = do(s, "choose_units", 0, mix={"yellow": 1})
    assert alt.units["B4"] == {"yellow": 1}
    s = do(s, "choose_units", 0, mix={"red": 1})
    assert s.units["B4"] == {"red": 1}
    assert s.cards["C03"]["holder"] == 0
    assert s.tower == {"red": 3, "yellow": 1, "blue": 1, "green": 1, "black": 0, "white": 0}


def test_tv_cpx_22_unowned_base_cpx_91_cpx_41_g41() -> None:
    """TV-CPX-22 (CPX-91, G41): resolved with no window; the end phase follows."""
    s = scenario(
        owners={"B1": 0, "B2": 1},
        units={"B1": {"red": 1}, "B3": {"red": 2}},
        acting=1,
        attacks=[(0, "B1", "B3", 2, "C14")],
    )
    s.recruited = [0]
    tower = dict(s.tower)
    pool = s.pools["red"]
    s = do(s, "end_move", 1)
    assert s.units["B3"] == {"red": 1} and s.pools["red"] == pool + 1
    assert s.cards["C04"]["holder"] == 0
    assert s.tower == tower and s.phase == HAND_CHOICE and s.round == 2


def test_tv_cpx_23_unowned_base_both_camps_cpx_92_g40() -> None:
    """TV-CPX-23 (CPX-92, CPX-67, CPX-69)."""
    s = scenario(
        owners={"B1": 0, "B2": 1},
        units={"B1": {"red": 1}, "B2": {"blue": 1}, "B3": {"red": 3, "blue": 4}},
        acting=1,
        attacks=[(0, "B1", "B3", 3, "C14"), (1, "B2", "B3", 4, "C21")],
    )
    s.recruited = [0]
    s = do(s, "end_move", 1)
    assert s.phase == BATTLE and s.battle["lead_defender"] == 0
    assert s.battle["attacker_camp"] == "B" and s.battle["kinds"] == ["land"]
    assert s.units["B3"] == {"red": 2, "blue": 4} and s.cards["C04"]["holder"] == 0
    s = pass_all(s)
    s = drop(s, red=1, blue=3)
    s = pass_all(s)
    assert s.units["B3"] == {"blue": 2} and s.cards["C04"]["holder"] == 1
    assert s.tower["red"] == 1 and s.tower["blue"] == 1


def test_tv_cpx_24_bonus_short_pool_and_played_card_capture_cpx_79_cpx_113() -> None:
    """TV-CPX-24 (CPX-79, CPX-113, G34, CPX-86 item 2)."""
    s = open_bb(tower={}, pools={"black": 2}, hands={0: ["C12"], 1: ["C03"]})
    s = do(s, "activate", 0, card="C12", ability="C12a")
    s = pass_all(s)
    assert s.pools["black"] == 0
    s = do(s, "activate", 1, card="C03", ability="C03b")
    s = pass_all(s)
    s = pass_all(s)
    assert s.drop["input"] == {"red": 5, "blue": 3, "black": 2, "white": 2}
    s = drop(s, red=2, blue=1, black=2, white=0)
    s = pass_all(s)
    assert s.units["B4"] == {"red": 2}
    assert s.cards["C03"]["holder"] == 0 and s.pools["black"] == 2
    assert s.tower["black"] == 58 and s.tower["white"] == 2


def test_tv_cpx_25_refusal_and_correction_cpx_83_cpx_108() -> None:
    """TV-CPX-25 (CPX-83, CPX-106, CPX-108, CPX-84)."""
    s = pass_all(open_bb(red=3, blue=2, tower={"red": 1}))
    assert s.drop["input"] == {"red": 3, "blue": 2}
    assert refused(s, "confirm_drop") == "E_WRONG_PHASE"
    assert refused(s, "report_drop", counts={"red": 2.5}) == "E_COUNT_INVALID"
    assert refused(s, "report_drop", counts={"red": 5, "blue": 2}) == "E_LEDGER_IMPOSSIBLE"
    s = do(s, "report_drop", counts={"red": 4, "blue": 2})
    s = do(s, "report_drop", counts={"red": 3, "blue": 2})
    s = do(s, "confirm_drop")
    assert s.tower["red"] == 1 and s.tower["blue"] == 0
    s = pass_all(s)
    assert s.units["B4"] == {"red": 1} and s.cards["C03"]["holder"] == 0
    assert refused(s, "report_drop", counts={}) == "E_WRONG_PHASE"
    assert refused(s, "confirm_drop") == "E_WRONG_PHASE"


def test_tv_cpx_47_battlefield_order_cpx_66_cpx_65_g27() -> None:
    """TV-CPX-47 (CPX-65, CPX-66, CPX-91, CPX-92)."""
    s = scenario(
        owners={"B1": 0, "B5": 0, "B2": 1, "B6": 1},
        units={
            "B1": {"red": 1},
            "B2": {"blue": 1},
            "B6": {"blue": 1},
            "B3": {"blue": 2, "red": 2},
            "B5": {"blue": 2, "red": 1},
            "B4": {"red": 2},
        },
        acting=0,
        order=[1, 0],
        attacks=[
            (1, "B2", "B3", 2, "C14"),
            (1, "B6", "B5", 2, "C18"),
            (0, "B1", "B4", 2, "C10"),
            (0, "B1", "B3", 2, "C02"),
        ],
    )
    s.recruited = [1]
    s = do(s, "end_move", 0)
    assert s.battle["base"] == "B3" and s.queue == ["B5", "B4"]
    assert s.cards["C04"]["holder"] == 1 and s.battle["attacker_camp"] == "A"


def test_unowned_base_cap_after_taking_cpx_91_g21() -> None:
    """CPX-91: with cap_applies_to_attacks = false, the cap applies once the base is taken."""
    s = scenario(
        owners={"B1": 0, "B2": 1},
        units={"B1": {"red": 1}, "B3": {"red": 12}},
        acting=1,
        attacks=[(0, "B1", "B3", 12, "C14")],
        options={"cap_applies_to_attacks": False},
    )
    s.recruited = [0]
    pool = s.pools["red"]
    s = do(s, "end_move", 1)
    assert s.units["B3"] == {"red": 10} and s.pools["red"] == pool + 2
