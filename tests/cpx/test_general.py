"""General rules: conventions, terms, the table's instructions, options (§0, §2, §7, §11.1)."""

from __future__ import annotations

from companion.engine import Command
from companion.games.cpx.options import OPTION_SPECS

from .helpers import GAME, SHIPPED, do, open_bb, pass_all, refused, scenario, setup


def test_every_decision_option_is_offered_cpx_3_cpx_148() -> None:
    """CPX-3, CPX-148: each named option of §13 is a rule option with its default."""
    names = {o.name for o in SHIPPED.rule_options()}
    assert names == set(OPTION_SPECS) == set(SHIPPED.data.settings_defaults)
    for o in SHIPPED.rule_options():
        assert o.default in o.choices and o.description


def test_own_friendly_enemy_cpx_5_cpx_7() -> None:
    """CPX-5, CPX-7: a partner's base is friendly but not own."""
    s = scenario(
        4, owners={"B1": 0, "B3": 2, "B2": 1, "B8": 3}, units={"B1": {"red": 4}}, hands={0: ["C14"]}
    )
    a = {"from": "B1", "to": "B3", "units": 1, "card": "C14"}
    assert refused(s, "attack", 0, **a) == "E_TARGET_FRIENDLY"
    assert refused(s, "attack", 0, **{**a, "from": "B3"}) == "E_NOT_OWN_BASE"


def test_marker_is_not_a_unit_cpx_6_cpx_37() -> None:
    """CPX-6, CPX-37: the marker cube leaves the pool but stands on no base."""
    s = do(GAME.initial_state(setup(2)), "choose_start", 0, base="B1")
    assert s.units == {"B1": {"red": 3}} and s.markers["red"] == 1 and s.pools["red"] == 56


def test_events_tell_the_table_what_to_do_cpx_8() -> None:
    """CPX-8: accepted requests come with instructions for the physical table."""
    s = GAME.initial_state(setup(2))
    _, events = GAME.apply(s, Command("choose_start", {"base": "B1"}, seat=0))
    assert "Put 3 red on" in events[0].data["table"]


def test_participants_option_limits_battle_cards_cpx_68_g29() -> None:
    """CPX-68: under battle_cards_by = participants only those involved may play or pass."""
    owners = {"B1": 0, "B4": 1, "B2": 1, "B7": 2, "B8": 3}
    t = scenario(
        4,
        owners=owners,
        units={"B1": {"red": 1}, "B4": {"blue": 2, "red": 3}},
        acting=3,
        attacks=[(0, "B1", "B4", 3, "C07")],
        options={"battle_cards_by": "participants"},
    )
    t.recruited = [0, 1, 2]
    t = do(t, "end_move", 3)
    assert t.battle["eligible"] == [0, 1]
    assert refused(t, "pass", 2) == "E_ABILITY_WINDOW"


def test_bonus_cubes_are_not_units_cpx_80_cpx_112() -> None:
    """CPX-80, CPX-112: white bonus cubes do not count for Rift Device's unit condition."""
    s = open_bb(blue=2, hands={1: ["C04", "C03"]})
    s = pass_all(do(s, "activate", 1, card="C03", ability="C03b", targets={}))
    assert refused(s, "activate", 1, card="C04", ability="C04b", targets={}) == (
        "E_ABILITY_CONDITION"
    )


def test_drop_input_and_report_source_cpx_82_cpx_111() -> None:
    """CPX-82, CPX-111: units and bonus cubes go in; the report's source is recorded."""
    s = pass_all(
        pass_all(
            do(open_bb(hands={0: ["C12"]}), "activate", 0, card="C12", ability="C12a", targets={})
        )
    )
    assert s.drop["input"] == {"red": 5, "blue": 3, "black": 3}
    _, events = GAME.apply(s, Command("report_drop", {"counts": {"red": 1}, "source": "camera"}))
    assert events[0].data["source"] == "camera"
    assert "tower:" in GAME.summary(s)


def test_activator_names_the_colours_cpx_117_g48() -> None:
    """CPX-117: in 2 v 2 the activating player picks which enemy colours are hit."""
    owners = {"B1": 0, "B4": 1, "B2": 1, "B7": 2, "B8": 3}
    s = scenario(
        4,
        owners=owners,
        units={"B1": {"red": 1}, "B4": {"blue": 2, "green": 2, "red": 3}},
        acting=3,
        attacks=[(0, "B1", "B4", 3, "C07")],
        hands={0: ["C19"]},
    )
    s.recruited = [0, 1, 2]
    s = do(s, "end_move", 3)
    for colour in ("blue", "green"):
        t = pass_all(
            do(s, "activate", 0, card="C19", ability="C19a", targets={"units": {colour: 1}})
        )
        assert t.units["B4"][colour] == 1


def test_conservation_failure_is_an_engine_bug_cpx_110() -> None:
    """CPX-110: a state that lost a cube makes the request fail loudly, changing nothing."""
    import pytest

    s = scenario(owners={"B1": 0, "B2": 1}, units={"B1": {"red": 3}}, hands={0: ["C14"]})
    s.pools["red"] -= 1
    with pytest.raises(AssertionError, match="conservation"):
        GAME.apply(s, Command("end_move", {}, seat=0))


def test_load_state_refuses_what_is_not_a_state_cpx_27() -> None:
    """CPX-27: a stored state must have the fields of §2; anything else is a clear error."""
    import pytest

    with pytest.raises(ValueError, match="not a Command Post Exercise state"):
        SHIPPED.load_state({"players": []})
    with pytest.raises(ValueError, match="unknown state field"):
        SHIPPED.load_state({"bogus": 1})
    s = SHIPPED.initial_state(SHIPPED.selfplay_setup(["random"] * 2, 1))
    assert SHIPPED.dump_state(SHIPPED.load_state(SHIPPED.dump_state(s))) == SHIPPED.dump_state(s)
