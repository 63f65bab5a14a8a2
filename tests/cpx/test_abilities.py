"""Card abilities (§7.2, §11): TV-CPX-10, TV-CPX-26..TV-CPX-46, TV-CPX-51."""

from __future__ import annotations

from companion.games.cpx.ctx import Ctx
from companion.games.cpx.flow import next_recruiter
from companion.games.cpx.state import MOVE, RECRUIT

from .helpers import GAME, battle_baseline, do, drop, open_bb, pass_all, refused, scenario


def act(s, seat, card, ability, targets=None, **kw):
    return do(s, "activate", seat, card=card, ability=ability, targets=targets or {}, **kw)


def no(s, seat, card, ability, targets=None, **kw):
    return refused(s, "activate", seat, card=card, ability=ability, targets=targets or {}, **kw)


def black(s):
    return sum(e["count"] for e in s.battle["bonus"] if e["active"] and e["colour"] == "black")


def white(s):
    return sum(e["count"] for e in s.battle["bonus"] if e["active"] and e["colour"] == "white")


def test_tv_cpx_10_lurking_operation_cpx_131_cpx_54_g61() -> None:
    """TV-CPX-10 (CPX-131, CPX-54, CPX-9, CPX-64, CPX-49 check 3)."""

    def make(p1_bases):
        s = scenario(
            owners={**{b: 0 for b in p1_bases}, "B2": 1, "B4": 1, "B7": 1},
            hands={1: ["C16"]},
            phase=RECRUIT,
            acting=None,
        )
        s.window = "recruit"
        ctx = Ctx(GAME.data, s)
        next_recruiter(ctx)
        return ctx.s

    s = make(["B1", "B3"])
    assert s.squads_left == [3]
    assert no(s, 1, "C16", "C16a", {"base": "B5"}) == "E_TARGET_INVALID"
    s = act(s, 1, "C16", "C16a", {"base": "B3"})
    assert refused(s, "recruit", 0, base="B1") == "E_RESOLUTION_PENDING"
    s = pass_all(s)
    assert s.blocked == ["B3"] and not s.stack
    assert refused(s, "recruit", 0, base="B3") == "E_BASE_BLOCKED"
    s = do(s, "recruit", 0, base="B1")
    assert s.acting == 1
    legal_b1 = make(["B1", "B3"])
    act(legal_b1, 1, "C16", "C16a", {"base": "B1"})
    v = pass_all(act(make(["B3"]), 1, "C16", "C16a", {"base": "B3"}))
    assert v.acting == 1 and "B3" not in v.units
    m = scenario(owners={"B1": 0, "B3": 0, "B2": 1, "B4": 1}, hands={1: ["C16"]}, acting=1)
    assert no(m, 1, "C16", "C16a", {"base": "B3"}) == "E_ABILITY_WINDOW"
    m.acting = 0
    assert no(m, 1, "C16", "C16a", {"base": "B3"}) == "E_NOT_YOUR_TURN"


def test_tv_cpx_26_chrono_belt_and_redrop_cpx_123_cpx_109_g54() -> None:
    """TV-CPX-26 (CPX-123, CPX-109, CPX-70, CPX-84)."""
    s = pass_all(open_bb(red=4, tower={"black": 1}, hands={1: ["C06"]}))
    assert no(s, 1, "C06", "C06b") == "E_ABILITY_WINDOW"  # a drop is awaited: no window
    s = drop(s, red=3, blue=1, black=1, white=0)
    assert s.tower["red"] == 1 and s.tower["blue"] == 2 and s.tower["black"] == 0
    s = act(s, 1, "C06", "C06b")
    s = pass_all(s)
    assert s.drop["input"] == {"red": 3, "blue": 1, "black": 1}
    assert refused(s, "report_drop", counts={"red": 5}) == "E_LEDGER_IMPOSSIBLE"
    s = drop(s, red=1, blue=2, black=0, white=0)
    assert s.tower["red"] == 3 and s.tower["blue"] == 1 and s.tower["black"] == 1
    s = pass_all(s)
    assert s.units["B4"] == {"blue": 1} and s.cards["C03"]["holder"] == 1


def test_tv_cpx_26_once_per_battle_and_window_cpx_123() -> None:
    """TV-CPX-26 (CPX-123): a second chrono belt in the same battle; C06b pre-drop."""
    s = open_bb(red=4, hands={1: ["C06"], 0: ["C19"]})
    assert no(s, 1, "C06", "C06b") == "E_ABILITY_WINDOW"
    s = drop(pass_all(s), red=1)
    s = pass_all(act(s, 1, "C06", "C06b"))
    s = drop(s, red=1)
    s.cards["C06"]["place"] = "hand"
    assert no(s, 1, "C06", "C06b") == "E_ONCE_PER_BATTLE"


def test_tv_cpx_27_knight_squadron_and_sides_cpx_118_cpx_113_cpx_71() -> None:
    """TV-CPX-27 (CPX-118, CPX-113, CPX-71 check 4)."""
    s = pass_all(act(open_bb(hands={0: ["C01", "C14"], 1: ["C21"]}), 0, "C01", "C01a"))
    assert black(s) == 2
    assert no(s, 1, "C21", "C21a") == "E_ABILITY_SIDE"
    assert no(s, 0, "C14", "C14b") == "E_ABILITY_SIDE"
    d = pass_all(act(open_bb(hands={1: ["C01"]}), 1, "C01", "C01a"))
    assert white(d) == 2


def test_tv_cpx_28_tesla_surge_and_battle_kinds_cpx_126_cpx_69() -> None:
    """TV-CPX-28 (CPX-126, CPX-69, G30)."""
    s = pass_all(act(open_bb(hands={0: ["C10"]}), 0, "C10", "C10b"))
    assert black(s) == 2
    land = scenario(
        owners={"B1": 0, "B3": 1, "B2": 1},
        units={"B1": {"red": 1}, "B3": {"blue": 2, "red": 2}},
        hands={0: ["C10"]},
        acting=1,
        attacks=[(0, "B1", "B3", 2, "C14")],
    )
    land.recruited = [0]
    land = do(land, "end_move", 1)
    assert no(land, 0, "C10", "C10b") == "E_ABILITY_CONDITION"

    def two(opt=None):
        s = scenario(
            owners={"B1": 0, "B3": 0, "B4": 1, "B2": 1},
            units={"B1": {"red": 1}, "B3": {"red": 1}, "B4": {"blue": 2, "red": 4}},
            hands={0: ["C10"]},
            acting=1,
            options=opt,
            attacks=[(0, "B3", "B4", 2, "C14"), (0, "B1", "B4", 2, "C07")],
        )
        s.recruited = [0]
        return do(s, "end_move", 1)

    t = two()
    assert t.battle["kinds"] == ["land", "sea"]
    act(t, 0, "C10", "C10b")
    assert no(two({"battle_kind_rule": "first_attack"}), 0, "C10", "C10b") == "E_ABILITY_CONDITION"
    assert no(open_bb(hands={1: ["C10"]}), 1, "C10", "C10b") == "E_ABILITY_SIDE"


def test_tv_cpx_29_rift_device_cpx_121() -> None:
    """TV-CPX-29 (CPX-121)."""
    assert no(open_bb(blue=2, hands={1: ["C04"]}), 1, "C04", "C04b") == "E_ABILITY_CONDITION"
    s = pass_all(act(open_bb(blue=3, hands={1: ["C04"]}), 1, "C04", "C04b"))
    assert white(s) == 3
    assert no(open_bb(hands={0: ["C04"]}), 0, "C04", "C04b") == "E_ABILITY_SIDE"


def test_tv_cpx_30_blackout_missile_cpx_119_cpx_45_g50() -> None:
    """TV-CPX-30 (CPX-119, CPX-45 item 2, CPX-13)."""
    s = open_bb(red=7, hands={1: ["C01"]})
    assert no(s, 1, "C01", "C01b", {"units": {"red": 4}}) == "E_TARGET_INVALID"
    s = pass_all(act(s, 1, "C01", "C01b", {"units": {"red": 3}}))
    assert s.units["B4"] == {"red": 4, "blue": 3}
    assert s.set_aside == [{"colour": "red", "count": 3, "base": "B4"}]
    s = pass_all(s)
    assert s.drop["input"] == {"red": 4, "blue": 3}
    s = pass_all(drop(s, red=3, blue=1))
    assert s.round == 2 and s.units["B4"] == {"red": 5} and s.set_aside == []
    lost = open_bb(red=7, hands={1: ["C01"]})
    lost = pass_all(pass_all(act(lost, 1, "C01", "C01b", {"units": {"red": 3}})))
    pool = lost.pools["red"]
    lost = pass_all(drop(lost, blue=2))
    assert lost.round == 2 and lost.cards["C03"]["holder"] == 1
    assert lost.pools["red"] == pool + 3 and lost.set_aside == []
    p = open_bb(red=7, hands={1: ["C01"]}, options={"blackout_return": "pool"})
    p = pass_all(pass_all(act(p, 1, "C01", "C01b", {"units": {"red": 3}})))
    pool = p.pools["red"]
    p = pass_all(drop(p, red=3, blue=1))
    assert p.units["B4"] == {"red": 2} and p.pools["red"] == pool + 1 + 3


def test_tv_cpx_31_shrink_ray_cpx_122_g53() -> None:
    """TV-CPX-31 (CPX-122)."""
    s = open_bb(red=4, blue=2, hands={1: ["C05"]})
    pick = [{"colour": "red", "to": "B1"}, {"colour": "red", "to": "B1"}]
    s2 = pass_all(act(s, 1, "C05", "C05b", {"units": pick}))
    assert s2.units["B1"] == {"red": 3} and s2.units["B4"] == {"red": 2, "blue": 2}
    assert no(s, 1, "C05", "C05b", {"units": [{"colour": "red", "to": "pool"}] * 2}) == (
        "E_TARGET_INVALID"
    )
    assert no(s, 1, "C05", "C05b", {"units": [{"colour": "blue", "to": "B2"}] * 2}) == (
        "E_TARGET_INVALID"
    )
    full = open_bb(red=4, blue=2, hands={1: ["C05"]}, units={"B1": {"red": 9}})
    assert no(full, 1, "C05", "C05b", {"units": pick}) == "E_CAP_EXCEEDED"
    act(
        full,
        1,
        "C05",
        "C05b",
        {"units": [{"colour": "red", "to": "B1"}, {"colour": "red", "to": "pool"}]},
    )
    anyc = open_bb(red=4, blue=2, hands={1: ["C05"]}, options={"shrink_ray_units": "any"})
    act(anyc, 1, "C05", "C05b", {"units": [{"colour": "blue", "to": "B2"}] * 2})


def test_tv_cpx_32_death_to_spies_cpx_125_cpx_73_cpx_75() -> None:
    """TV-CPX-32 (CPX-125, CPX-73, CPX-75, CPX-72)."""
    s = open_bb(hands={0: ["C12"], 1: ["C09"]})
    assert no(s, 1, "C09", "C09b", {"activation": 1}) == "E_TARGET_INVALID"
    s = act(s, 0, "C12", "C12a")
    assert no(s, 0, "C12", "C12b") == "E_CARD_SPENT"
    s = act(s, 1, "C09", "C09b", {"activation": 1})
    s = pass_all(s)
    assert black(s) == 0 and not s.stack
    assert s.cards["C12"]["place"] == "played" and s.cards["C09"]["place"] == "played"
    own = open_bb(hands={0: ["C12", "C09"]})
    own = act(own, 0, "C12", "C12a")
    assert no(own, 0, "C09", "C09b", {"activation": 1}) == "E_TARGET_INVALID"


def test_tv_cpx_33_smoke_bomb_cpx_132_g62() -> None:
    """TV-CPX-33 (CPX-132, CPX-9 prompt)."""
    s = open_bb(hands={0: ["C08", "C02"], 1: ["C16"]})
    s = act(act(s, 0, "C08", "C08a"), 1, "C16", "C16b", {"activation": 1})
    s = pass_all(s)
    assert s.prompt == {"kind": "smoke_discard", "seat": 0, "activation": 1}
    assert refused(s, "smoke_discard", 0, card="C08") == "E_DISCARD_INVALID"
    assert no(s, 0, "C02", "C02a") == "E_RESOLUTION_PENDING"
    kept = do(s, "smoke_discard", 0, card="C02")
    assert black(kept) == 3 and kept.cards["C02"]["place"] == "discard"
    lost = do(s, "smoke_discard", 0, card="none")
    assert black(lost) == 0


def test_tv_cpx_34_high_speed_ram_chain_cpx_136_g65() -> None:
    """TV-CPX-34 (CPX-136, CPX-73 items 4-5, CPX-78)."""

    def chain(targets):
        s = open_bb(hands={0: ["C13", "C09", "C02"], 1: ["C16", "C19"]})
        s = act(s, 0, "C13", "C13a")
        s = act(s, 1, "C16", "C16b", {"activation": 1})
        s = act(s, 0, "C09", "C09b", {"activation": 2})
        return act(s, 1, "C19", "C19b", {"activations": targets})

    s = pass_all(chain([3, 1]))
    assert s.prompt is None and black(s) == 0 and not s.stack
    v = pass_all(chain([3]))
    assert v.prompt["seat"] == 0
    v = do(v, "smoke_discard", 0, card="C02")
    assert black(v) == 3
    t = open_bb(hands={0: ["C02"], 1: ["C19"]})
    t = act(t, 0, "C02", "C02a")
    assert no(t, 1, "C19", "C19b", {"activations": [1]}) == "E_TARGET_INVALID"
    assert no(t, 1, "C19", "C19b", {"activations": [1, 2, 3]}) == "E_TARGET_INVALID"


def test_tv_cpx_35_psychic_burst_cpx_137_cpx_76_g66() -> None:
    """TV-CPX-35 (CPX-137, CPX-76, G33)."""
    s = open_bb(hands={1: ["C03", "C14", "C17"], 0: ["C20"]})
    s = pass_all(act(s, 1, "C03", "C03b"))
    s = pass_all(act(s, 1, "C14", "C14b"))
    assert white(s) == 4
    s = pass_all(act(s, 0, "C20", "C20b"))
    assert white(s) == 0
    s = pass_all(act(s, 1, "C17", "C17a"))
    assert white(s) == 0 and s.cards["C17"]["place"] == "played"
    s = pass_all(s)
    assert s.drop["input"] == {"red": 5, "blue": 3}
    assert no(open_bb(hands={1: ["C20"]}), 1, "C20", "C20b") == "E_ABILITY_SIDE"


def _air_battle(hands, opt=None):
    s = scenario(
        owners={"B5": 1, "B1": 0, "B2": 1},
        units={"B1": {"red": 1}, "B5": {"blue": 2, "red": 3}},
        hands=hands,
        acting=1,
        options=opt,
        attacks=[(0, "B1", "B5", 3, "C22")],
    )
    s.recruited = [0]
    return do(s, "end_move", 1)


def test_tv_cpx_36_sea_wing_cpx_130_g60() -> None:
    """TV-CPX-36 (CPX-130, CPX-19, CPX-76)."""

    def bonuses(opt=None):
        s = _air_battle({0: ["C21", "C02", "C09"], 1: ["C15"]}, opt)
        for c in ("C21", "C02", "C09"):
            s = pass_all(act(s, 0, c, c + "a"))
        assert black(s) == 6
        return s

    s = pass_all(act(bonuses(), 1, "C15", "C15a"))
    assert black(s) == 2
    assert no(bonuses(), 1, "C15", "C15b") == "E_ABILITY_CONDITION"
    one = {"sea_wing_types": "choose_one"}
    assert black(pass_all(act(bonuses(one), 1, "C15", "C15a", {"type": "land"}))) == 2
    assert black(pass_all(act(bonuses(one), 1, "C15", "C15a", {"type": "navy"}))) == 5


def test_tv_cpx_37_sinister_drag_fork_cpx_128_g58() -> None:
    """TV-CPX-37 (CPX-128, CPX-85)."""
    s = open_bb(red=2, tower={"white": 3}, hands={1: ["C03", "C17"], 0: ["C12"]})
    s = pass_all(act(s, 1, "C03", "C03b"))
    s = pass_all(act(s, 0, "C12", "C12b"))
    assert white(s) == 0
    s = pass_all(pass_all(act(s, 1, "C17", "C17a")))
    assert s.drop["input"] == {"red": 2, "blue": 3}
    s = pass_all(drop(s, red=2, blue=1, black=0, white=3))
    assert s.units["B4"] == {"red": 1} and s.cards["C03"]["holder"] == 0
    assert s.tower["red"] == 0 and s.tower["blue"] == 2 and s.tower["white"] == 0


def test_tv_cpx_38_captain_fury_cpx_129_g59() -> None:
    """TV-CPX-38 (CPX-129, CPX-75)."""
    s = open_bb(blue=4, hands={0: ["C13"], 1: ["C09"]})
    s = act(s, 0, "C13", "C13b", {"units": {"blue": 3}})
    assert s.units["B4"] == {"red": 3, "blue": 4}
    done = pass_all(s)
    assert done.units["B4"] == {"red": 3, "blue": 1}
    c = pass_all(act(s, 1, "C09", "C09b", {"activation": 1}))
    assert c.units["B4"] == {"red": 3, "blue": 4}
    r = open_bb(blue=4, hands={0: ["C13"], 1: ["C09"]}, options={"captain_fury_refund": True})
    r = act(act(r, 0, "C13", "C13b", {"units": {"blue": 3}}), 1, "C09", "C09b", {"activation": 1})
    assert pass_all(r).units["B4"] == {"red": 5, "blue": 4}
    assert no(open_bb(red=1, hands={0: ["C13"]}), 0, "C13", "C13b", {"units": {"blue": 3}}) == (
        "E_ABILITY_CONDITION"
    )


def test_tv_cpx_39_raging_bull_charge_cpx_138_g67() -> None:
    """TV-CPX-39 (CPX-138, CPX-109, CPX-70)."""
    s = open_bb(hands={0: ["C02", "C21"], 1: ["C17", "C06"]})
    s = pass_all(act(s, 0, "C02", "C02a"))
    s = pass_all(act(s, 1, "C17", "C17a"))
    s = pass_all(act(s, 0, "C21", "C21b"))
    tower = dict(s.tower)
    s = pass_all(s)
    assert s.units["B4"] == {"red": 1} and s.tower == tower
    assert s.cards["C03"]["holder"] == 0 and s.drop is None


def test_tv_cpx_40_binding_restraint_cpx_140_g69() -> None:
    """TV-CPX-40 (CPX-140)."""
    s = open_bb(red=6, blue=4, hands={0: ["C22"]})
    s = pass_all(act(s, 0, "C22", "C22b", {"units": {"blue": 3}}))
    assert s.units["B4"] == {"red": 3, "blue": 1} and s.bound == {"red": 3, "blue": 3}
    s = pass_all(s)
    assert s.drop["input"] == {"red": 3, "blue": 1}
    s = pass_all(drop(s, red=2))
    assert s.units["B4"] == {"red": 5} and s.bound == {}
    assert s.tower["red"] == 1 and s.tower["blue"] == 1
    d = open_bb(red=6, blue=4, hands={1: ["C22"]})
    d = pass_all(act(d, 1, "C22", "C22b", {"units": {"red": 2}}))
    assert d.bound == {"red": 2, "blue": 2}


def _move_turn(opt=None):
    return scenario(
        owners={"B1": 0, "B3": 0, "B5": 0, "B7": 0, "B2": 1, "B4": 1},
        units={"B1": {"red": 3}, "B3": {"red": 2}, "B5": {"red": 1}, "B7": {"red": 1}},
        hands={0: ["C11", "C22", "C08"]},
        options=opt,
    )


def test_tv_cpx_41_move_window_abilities_cpx_127_cpx_139_cpx_124_cpx_116() -> None:
    """TV-CPX-41 (CPX-127, CPX-139, CPX-124, CPX-116, CPX-64)."""
    s = _move_turn()
    t = {"from": "B1", "moves": [{"to": "B3", "units": 1}, {"to": "B5", "units": 2}]}
    r = pass_all(act(s, 0, "C11", "C11b", t))
    assert "B1" not in r.units and r.units["B3"] == {"red": 3} and r.units["B5"] == {"red": 3}
    assert no(s, 0, "C11", "C11b", {"from": "B1", "moves": [{"to": "B4", "units": 1}]}) == (
        "E_TARGET_INVALID"
    )
    assert no(_move_turn({"card_moves_leave_one": True}), 0, "C11", "C11b", t) == (
        "E_MUST_LEAVE_ONE"
    )
    m = {"moves": [{"from": "B3", "to": "B5", "units": 1}, {"from": "B1", "to": "B3", "units": 2}]}
    r = pass_all(act(s, 0, "C22", "C22a", m))
    assert r.units["B1"] == {"red": 1} and r.units["B3"] == {"red": 3}
    assert r.units["B5"] == {"red": 2}
    four = {"moves": m["moves"] + [{"from": "B5", "to": "B1", "units": 1}]}
    assert no(s, 0, "C22", "C22a", four) == "E_TARGET_INVALID"
    far = {"moves": [{"from": "B5", "to": "B7", "units": 1}]}
    assert no(s, 0, "C22", "C22a", far) == "E_NOT_ADJACENT"
    assert no(s, 0, "C22", "C22a", {"moves": [{"from": "B1", "to": "B4", "units": 1}]}) == (
        "E_TARGET_INVALID"
    )
    act(s, 0, "C08", "C08b", {"from": "B5", "to": "B7"})
    assert no(s, 0, "C08", "C08b", {"from": "B1", "to": "B7", "units": 2}) == "E_TARGET_INVALID"
    r = pass_all(
        act(
            _move_turn({"combustion_boost_units": "any_number"}),
            0,
            "C08",
            "C08b",
            {"from": "B1", "to": "B7", "units": 2},
        )
    )
    assert r.units["B1"] == {"red": 1} and r.units["B7"] == {"red": 3}
    assert no(s, 0, "C08", "C08b", {"from": "B5", "to": "B6"}) == "E_TARGET_INVALID"


def test_tv_cpx_42_paratroopers_and_boost_in_battle_cpx_120_cpx_124() -> None:
    """TV-CPX-42 (CPX-120, CPX-124)."""
    s = open_bb(
        red=3,
        blue=2,
        hands={0: ["C02", "C08"]},
        owners={"B3": 0, "B5": 0},
        units={"B3": {"red": 4}, "B5": {"red": 1}},
    )
    r = pass_all(act(s, 0, "C02", "C02b", {"origin": "B3", "units": 2}))
    assert r.units["B4"] == {"red": 5, "blue": 2} and r.units["B3"] == {"red": 2}
    assert no(s, 0, "C02", "C02b", {"origin": "B5", "units": 1}) == "E_NOT_ADJACENT"
    assert no(s, 0, "C02", "C02b", {"origin": "B3", "units": 3}) == "E_TARGET_INVALID"
    r = pass_all(act(r, 0, "C08", "C08b", {"from": "B5", "to": "B4"}))
    assert r.units["B4"] == {"red": 6, "blue": 2} and "B5" not in r.units
    nine = open_bb(red=9, blue=2, hands={0: ["C02"]}, owners={"B3": 0}, units={"B3": {"red": 4}})
    assert no(nine, 0, "C02", "C02b", {"origin": "B3", "units": 2}) == "E_CAP_EXCEEDED"
    act(nine, 0, "C02", "C02b", {"origin": "B3", "units": 1})


def test_tv_cpx_43_fan_salvo_naval_gun_cancelled_battle_cpx_133_cpx_135_cpx_81() -> None:
    """TV-CPX-43 (CPX-133, CPX-135, CPX-81, CPX-115, G35)."""
    s = open_bb(red=3, blue=2, hands={0: ["C02"], 1: ["C17", "C19"]})
    s = pass_all(act(s, 0, "C02", "C02a"))
    s = pass_all(act(s, 1, "C17", "C17b", {"units": {"red": 2}}))
    assert s.units["B4"] == {"red": 1, "blue": 2}
    s = pass_all(act(s, 1, "C19", "C19a", {"units": {"red": 1}}))
    tower = dict(s.tower)
    s = pass_all(s)
    assert s.units["B4"] == {"blue": 2} and s.cards["C03"]["holder"] == 1
    assert s.tower == tower and s.drop is None
    p1 = open_bb(hands={0: ["C17"]})
    assert no(p1, 0, "C17", "C17b", {"units": {"blue": 2}}) == "E_ABILITY_SIDE"
    empty = open_bb(blue=0, hands={0: ["C19"]})
    assert no(empty, 0, "C19", "C19a", {"units": {"blue": 1}}) == "E_ABILITY_CONDITION"


def test_tv_cpx_44_all_terrain_traverse_cpx_134_cpx_77_g64() -> None:
    """TV-CPX-44 (CPX-134, CPX-77, CPX-78)."""
    s = _air_battle({0: ["C18", "C04", "C21", "C02"], 1: ["C09", "C15"]})
    s = act(s, 0, "C18", "C18a", {"ability": "C04a"}, paired_card="C04")
    assert no(s, 1, "C09", "C09b", {"activation": 1}) == "E_TARGET_PROTECTED"
    s = pass_all(s)
    assert black(s) == 3
    s = pass_all(act(s, 0, "C21", "C21a"))
    assert black(s) == 6
    s = pass_all(act(s, 1, "C15", "C15a"))
    assert black(s) == 3
    f = _air_battle({0: ["C18", "C02", "C09"]})
    assert no(f, 0, "C18", "C18a", {"ability": "C02a"}, paired_card="C02") == "E_TARGET_INVALID"
    assert no(f, 0, "C18", "C18a", {"ability": "C09b"}, paired_card="C09") == "E_TARGET_INVALID"
    act(f, 0, "C18", "C18a", {"ability": "C09a"}, paired_card="C09")
    route = {"all_terrain_reading": "route"}
    m = scenario(
        owners={"B1": 0, "B2": 1},
        units={"B1": {"red": 3}},
        hands={0: ["C18", "C04"]},
        options=route,
    )
    a = {"from": "B1", "to": "B4", "units": 2, "card": "C04"}
    r = do(m, "attack", 0, **a, paired_card="C18")
    assert r.cards["C18"]["place"] == "committed" and not r.stack
    assert refused(m, "attack", 0, **a) == "E_ROUTE_TYPE"
    plain = scenario(owners={"B1": 0, "B2": 1}, units={"B1": {"red": 3}}, hands={0: ["C18", "C04"]})
    assert refused(plain, "attack", 0, **a, paired_card="C18") == "E_TARGET_INVALID"
    rb = _air_battle({0: ["C18", "C04"]}, route)
    assert no(rb, 0, "C18", "C18a", {"ability": "C04a"}, paired_card="C04") == "E_ABILITY_WINDOW"


def test_tv_cpx_45_route_cards_cpx_60_g23() -> None:
    """TV-CPX-45 (CPX-60, CPX-71 check 2, CPX-93)."""

    def make(opt=None):
        s = scenario(
            owners={"B3": 1, "B4": 1, "B1": 0, "B2": 1},
            units={"B1": {"red": 5}},
            hands={0: ["C12", "C10"]},
            options=opt,
        )
        s = do(s, "attack", 0, **{"from": "B1", "to": "B3", "units": 2, "card": "C12"})
        s = do(s, "attack", 0, **{"from": "B1", "to": "B4", "units": 2, "card": "C10"})
        s = do(s, "end_move", 0)
        return do(s, "end_move", 1)

    s = make()
    assert s.battle["base"] == "B3"
    assert no(s, 0, "C10", "C10a") == "E_CARD_NOT_IN_HAND"
    s = pass_all(act(s, 0, "C12", "C12a"))
    assert black(s) == 3
    s = pass_all(drop(pass_all(s), blue=0))
    s = pass_all(s) if s.battle and s.battle["base"] == "B3" else s
    assert s.battle["base"] == "B4"
    act(s, 0, "C10", "C10a")
    assert no(make({"routing_card_usable": False}), 0, "C12", "C12a") == "E_CARD_SPENT"


def test_tv_cpx_46_windows_cpx_70_cpx_71_cpx_64() -> None:
    """TV-CPX-46 (CPX-70, CPX-71 checks 1 and 3, CPX-9)."""
    s = scenario(
        owners={"B1": 0, "B5": 0, "B2": 1},
        units={"B1": {"red": 6}, "B5": {"red": 1}},
        hands={0: ["C04", "C11", "C22", "C06", "C16"]},
    )
    assert no(s, 0, "C04", "C04a") == "E_ABILITY_WINDOW"
    assert no(s, 0, "C06", "C06b") == "E_ABILITY_WINDOW"
    t = {"from": "B1", "moves": [{"to": "B5", "units": 1}]}
    s2 = act(s, 0, "C11", "C11b", t)
    assert refused(s2, "end_move", 0) == "E_RESOLUTION_PENDING"
    assert no(s2, 0, "C04", "C04a") == "E_ABILITY_WINDOW"
    s.acting = 1
    assert no(s, 0, "C22", "C22a", {"moves": [{"from": "B1", "to": "B5"}]}) == "E_NOT_YOUR_TURN"
    b = open_bb(hands={0: ["C11", "C16"]})
    assert no(b, 0, "C11", "C11b", t) == "E_ABILITY_WINDOW"
    assert no(b, 0, "C16", "C16a", {"base": "B2"}) == "E_ABILITY_WINDOW"


def test_tv_cpx_51_passes_and_the_stack_cpx_73_cpx_74() -> None:
    """TV-CPX-51 (CPX-73, CPX-74, CPX-9, CPX-82)."""
    s = open_bb(hands={0: ["C12"]})
    s = act(s, 0, "C12", "C12a")
    s = do(do(s, "pass", 0), "pass", 1)
    assert black(s) == 3 and not s.stack and s.window == "pre_drop"
    assert refused(s, "report_drop", counts={}) == "E_WRONG_PHASE"
    s = pass_all(s)
    assert s.drop["input"] == {"red": 5, "blue": 3, "black": 3}
    m = scenario(
        owners={"B1": 0, "B5": 0, "B2": 1},
        units={"B1": {"red": 6}, "B5": {"red": 1}},
        hands={0: ["C11", "C14"]},
    )
    m = act(m, 0, "C11", "C11b", {"from": "B1", "moves": [{"to": "B5", "units": 1}]})
    a = {"from": "B1", "to": "B3", "units": 1, "card": "C14"}
    assert refused(m, "attack", 0, **a) == "E_RESOLUTION_PENDING"
    assert refused(m, "retreat", 0, base="B1", to="B5") == "E_RESOLUTION_PENDING"
    m = pass_all(m)
    assert m.units["B1"] == {"red": 5} and m.units["B5"] == {"red": 2} and m.phase == MOVE
    do(m, "attack", 0, **a)
    assert refused(m, "pass", 0) == "E_WRONG_PHASE"


def _two_fields(opt=None, hands=None):
    s = scenario(
        owners={"B1": 0, "B3": 1, "B4": 1, "B2": 1},
        units={"B1": {"red": 1}, "B4": {"blue": 1, "red": 2}, "B3": {"blue": 2, "red": 5}},
        hands=hands,
        acting=1,
        options=opt,
        attacks=[(0, "B1", "B4", 2, "C07"), (0, "B1", "B3", 5, "C14")],
    )
    s.recruited = [0]
    return do(s, "end_move", 1)


def test_designate_any_battlefield_option_cpx_114_g46() -> None:
    """CPX-114: by default only the current battlefield; by option a later one, applied when
    that battle opens; it lapses if that battlefield is skipped."""
    s = _two_fields(hands={0: ["C21", "C01"]})
    assert s.battle["base"] == "B4" and s.queue == ["B3"]
    assert no(s, 0, "C21", "C21b", {"battlefield": "B3"}) == "E_TARGET_INVALID"
    opt = {"designate_any_battlefield": True}
    s = _two_fields(opt, hands={0: ["C21"], 1: ["C01"]})
    assert no(s, 0, "C21", "C21b", {"battlefield": "B9"}) == "E_TARGET_INVALID"
    s = pass_all(act(s, 0, "C21", "C21b", {"battlefield": "B3"}))
    s = pass_all(act(s, 1, "C01", "C01b", {"battlefield": "B3", "units": {"red": 2}}))
    assert len(s.designated) == 2 and s.units["B3"] == {"blue": 2, "red": 5}
    s = pass_all(drop(pass_all(s), blue=1))
    assert s.battle["base"] == "B3" and s.battle["direct"] is True
    assert s.units["B3"] == {"blue": 2, "red": 3} and s.designated == []
    s = pass_all(s)
    # direct: A 3 > D 2 keeps 1 red; the 2 set-aside red come back at the next round's start
    assert s.round == 2 and s.units["B3"] == {"red": 3} and s.cards["C04"]["holder"] == 0
    lapse = _two_fields(opt, hands={0: ["C21"], 1: ["C17"]})
    lapse = pass_all(act(lapse, 0, "C21", "C21b", {"battlefield": "B3"}))
    lapse.units["B3"] = {"blue": 2}
    lapse.pools["red"] += 5
    lapse = pass_all(drop(pass_all(lapse), blue=1))
    assert lapse.designated == [] and lapse.battle is None


def test_auto_pass_option_cpx_74_g31() -> None:
    """CPX-74: with auto_pass, players with nothing to play pass by themselves."""
    s = open_bb(hands={0: ["C12"]}, options={"auto_pass": True})
    assert s.passes == [1]
    s = do(s, "pass", 0)
    assert s.drop is not None
    quiet = battle_baseline(options={"auto_pass": True})
    quiet.cards["C07"] = {"holder": 0, "place": "played", "attack": None}
    quiet.recruited = [0]
    quiet = do(quiet, "end_move", 1)
    assert quiet.drop is not None and quiet.window is None


def test_transport_two_steps_reading_cpx_127_g57() -> None:
    """CPX-127 option transport_reading = two_steps: one friendly base 1 or 2 steps away."""
    s = _move_turn({"transport_reading": "two_steps"})
    r = pass_all(act(s, 0, "C11", "C11b", {"from": "B1", "moves": [{"to": "B7", "units": 2}]}))
    assert r.units["B1"] == {"red": 1} and r.units["B7"] == {"red": 3}
    two = {"from": "B1", "moves": [{"to": "B3", "units": 1}, {"to": "B5", "units": 1}]}
    assert no(s, 0, "C11", "C11b", two) == "E_TARGET_INVALID"
    assert no(
        _move_turn(), 0, "C11", "C11b", {"from": "B1", "moves": [{"to": "B7", "units": 1}]}
    ) == ("E_NOT_ADJACENT")
