"""The AI opponents (§16: AVA-137..AVA-165) and TV-AVA-62, 63."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from companion.engine import Command
from companion.games.ava import GAME
from companion.games.ava.ai import (
    BattleshipPolicy,
    PlanePolicy,
    RandomPolicy,
    TankPolicy,
    penalty_outcome,
    square_value,
)
from companion.games.ava.setup import data_for
from tests.ava.helpers import (
    ALBANIA,
    ALLIES,
    AXIS,
    FRANCE,
    GERMANY,
    ITALY,
    LEGION,
    UK,
    USA,
    arrive,
    code_of,
    copy_default_data,
    do,
    edit,
    edit_json,
    fixture_dir,
    new_game,
    set_player,
    set_square,
)

spec = pytest.mark.spec


def choice(policy, state) -> Command:
    legal = GAME.legal_commands(state)
    c = policy.choose(state, legal, random.Random(0))
    assert c in legal  # AVA-137: only offered commands
    return c


def ai_game(level: str, side: int = ALLIES, **options: object):
    ais = (level, None) if side == ALLIES else (None, level)
    options.setdefault("battleship_ai_advantage", "money")
    return new_game(ais=ais, **options)


@spec("AVA-146", "TV-AVA-63")
def test_tank_neutral_choice() -> None:
    s = arrive(set_player(ai_game("tank"), ALLIES, money=1000, available=(25, 0, 0, 0)), ALBANIA)
    assert choice(TankPolicy(), s).name == "treaty"
    s = arrive(set_player(ai_game("tank"), ALLIES, money=300, available=(25, 0, 0, 0)), ALBANIA)
    c = choice(TankPolicy(), s)
    assert (c.name, dict(c.args)) == ("invade", {"I": 10, "T": 0, "P": 0, "B": 0})
    s = arrive(set_player(ai_game("tank"), ALLIES, money=300, available=(19, 0, 0, 0)), ALBANIA)
    assert choice(TankPolicy(), s).name == "pass"


@spec("AVA-145", "AVA-140")
def test_tank_enemy_choice() -> None:
    base = set_square(ai_game("tank"), ITALY, AXIS, (10, 0, 0, 0))
    strong = arrive(set_player(base, ALLIES, money=0, available=(20, 0, 0, 0)), ITALY)
    c = choice(TankPolicy(), strong)
    assert (c.name, c.args["I"]) == ("invade", 10)
    weak = arrive(set_player(base, ALLIES, money=0, available=(19, 0, 0, 0)), ITALY)
    assert choice(TankPolicy(), weak).name == "penalty"


@spec("AVA-144", "AVA-147", "AVA-149", "AVA-148", "AVA-143")
def test_tank_moves_builds_and_defends() -> None:
    s = set_player(ai_game("tank"), ALLIES, money=5000, position=30)
    s5 = do(s, "spin", value=1)
    assert choice(TankPolicy(), s5).name == "decline_move"
    s = arrive(set_player(ai_game("tank"), ALLIES, money=600), LEGION)
    assert choice(TankPolicy(), s).name == "build_base"
    s = arrive(set_player(ai_game("tank"), ALLIES, money=2000), USA)
    assert choice(TankPolicy(), s).name == "ally"
    s = do(
        arrive(set_player(ai_game("tank"), ALLIES, money=1000, available=(10, 5, 0, 1)), FRANCE),
        "pass",
    )
    c = choice(TankPolicy(), s)
    # budget 600: four tanks (560); the 40 left buys no infantry
    assert (c.name, dict(c.args)) == ("recruit", {"I": 0, "T": 4, "P": 0, "B": 0})
    s = do(s, "recruit", T=4)
    c = choice(TankPolicy(), s)
    # 80% of (10, 9, 0, 1); France is a seaport but floor(0.8) battleships is 0
    assert (c.name, dict(c.args)) == (
        "garrison",
        {"square": FRANCE, "I": 8, "T": 7, "P": 0, "B": 0},
    )
    s = do(s, "garrison", **c.args)
    assert choice(TankPolicy(), s).name == "end_turn"


@spec("AVA-150", "AVA-156")
def test_cards_used_at_first_opportunity_on_best_target() -> None:
    s = set_square(ai_game("tank"), ITALY, AXIS, (4, 2, 3, 0))
    s = set_square(s, GERMANY, AXIS, (0, 0, 1, 0))
    s = set_player(s, ALLIES, kept_cards=("S02",))
    c = choice(TankPolicy(), s)
    assert (c.name, dict(c.args)) == ("use_card", {"card": "S02", "target": ITALY})
    s = set_player(ai_game("plane"), ALLIES, kept_cards=("S04",))
    assert choice(PlanePolicy(), s).name == "use_card"


@spec("AVA-151")
def test_plane_escape_move() -> None:
    s = set_square(ai_game("plane"), ITALY, AXIS, (50, 0, 0, 0))
    s = set_player(s, ALLIES, money=4000, available=(0, 0, 0, 0), position=ITALY - 1)
    s5 = do(s, "spin", value=1)
    c = choice(PlanePolicy(), s5)
    assert (c.name, dict(c.args)) == ("strategic_move", {"direction": "forward", "steps": 1})
    s = set_player(s, ALLIES, money=3000)  # 1000 > 30% of 3000
    assert choice(PlanePolicy(), do(s, "spin", value=1)).name == "decline_move"


@spec("AVA-152", "AVA-141", "AVA-173")
def test_plane_enemy_choice() -> None:
    """The shipped threshold is 350% (see ai_profiles.json); the spec's 150% is a data edit."""
    base = set_square(ai_game("plane"), ITALY, AXIS, (10, 0, 0, 0))  # DP 10, PP 3
    s = arrive(set_player(base, ALLIES, money=0, available=(30, 0, 0, 0)), ITALY)
    d = data_for(s.data_dir)
    assert d.ai_profiles["plane_ai"]["invade_cost_vs_penalty_pct"] == 350
    assert penalty_outcome(d, s, ITALY, (30, 0, 0, 0)) == (150, False)
    assert choice(PlanePolicy(), s).name == "invade"  # 500 <= 3.5 x 150
    dearer = set_square(ai_game("plane"), ITALY, AXIS, (11, 0, 0, 0))  # DP 11, PP 3
    s = arrive(set_player(dearer, ALLIES, money=0, available=(30, 0, 0, 0)), ITALY)
    assert choice(PlanePolicy(), s).name == "penalty"  # 550 > 3.5 x 150
    small = set_square(ai_game("plane"), ITALY, AXIS, (5, 0, 0, 0))  # DP 5, PP 2
    s = arrive(set_player(small, ALLIES, money=0, available=(0, 0, 2, 0)), ITALY)
    assert penalty_outcome(d, s, ITALY, (0, 0, 2, 0)) == (220, False)
    c = choice(PlanePolicy(), s)  # 2 x 220 <= 3 x 220
    assert (c.name, dict(c.args)) == ("invade", {"I": 0, "T": 0, "P": 1, "B": 0})


@spec("AVA-152")
def test_plane_invades_to_avoid_jail() -> None:
    base = set_square(ai_game("plane"), ITALY, AXIS, (5, 0, 0, 0))  # DP 5, PP 2
    s = arrive(set_player(base, ALLIES, money=0, available=(0, 0, 1, 0)), ITALY)
    assert penalty_outcome(data_for(s.data_dir), s, ITALY, (0, 0, 1, 0)) == (220, True)
    assert choice(PlanePolicy(), s).name == "invade"
    s = arrive(set_player(base, ALLIES, money=0, available=(4, 0, 0, 0)), ITALY)
    assert choice(PlanePolicy(), s).name == "penalty"  # cannot invade


@spec("AVA-153", "AVA-154", "AVA-155")
def test_plane_neutral_recruit_defence() -> None:
    s = arrive(set_player(ai_game("plane"), ALLIES, money=1000, available=(10, 0, 0, 0)), ALBANIA)
    assert choice(PlanePolicy(), s).name == "treaty"  # 50 x 10 = 500 > TC 200
    s = arrive(
        set_player(
            ai_game("plane"), ALLIES, money=1000, available=(10, 0, 0, 0), treaties_signed=3
        ),
        ALBANIA,
    )
    assert choice(PlanePolicy(), s).name == "invade"  # 500 <= TC 500
    s = do(
        arrive(set_player(ai_game("plane"), ALLIES, money=2000, available=(9, 4, 2, 1)), FRANCE),
        "pass",
    )
    c = choice(PlanePolicy(), s)
    assert dict(c.args) == {"I": 8, "T": 4, "P": 2, "B": 0}  # 2 bundles of 700 in 1600
    s = do(s, "recruit", **c.args)
    c = choice(PlanePolicy(), s)
    assert dict(c.args) == {"square": FRANCE, "I": 8, "T": 4, "P": 2, "B": 0}


@spec("AVA-159", "AVA-139", "AVA-142")
def test_battleship_scores_strategic_moves() -> None:
    s = set_square(ai_game("battleship"), ITALY, AXIS, (200, 0, 0, 0))
    s = set_player(s, ALLIES, money=3000, available=(0, 0, 0, 0), position=ITALY - 1)
    s5 = do(s, "spin", value=1)
    d = data_for(s.data_dir)
    assert square_value(d, s5, ALBANIA) == 100 + 100
    c = choice(BattleshipPolicy(), s5)
    bp = BattleshipPolicy()
    assert bp.score(d, s5, ITALY, 3000) == -10000  # staying: no units to lose, but jail
    assert bp.score(d, s5, ALBANIA, 1000) - 2000 == 15 * 200 - 200 - 2000
    # back 2 reaches Finland (W 390, TC 240): 15 x 390 - 240 - 2000 beats forward 2
    assert (c.name, dict(c.args)) == ("strategic_move", {"direction": "back", "steps": 2})


@spec("AVA-160", "AVA-161")
def test_battleship_enemy_and_neutral() -> None:
    base = set_square(ai_game("battleship"), ITALY, AXIS, (10, 0, 0, 0))
    s = arrive(set_player(base, ALLIES, money=0, available=(30, 0, 0, 0)), ITALY)
    assert choice(BattleshipPolicy(), s).name == "invade"  # 500 <= 15*W + loss
    s = arrive(
        set_player(ai_game("battleship"), ALLIES, money=1000, available=(10, 0, 0, 0)), ALBANIA
    )
    assert choice(BattleshipPolicy(), s).name == "treaty"  # 200 < 500
    s = arrive(
        set_player(ai_game("battleship"), ALLIES, money=100, available=(10, 0, 0, 0)), ALBANIA
    )
    assert choice(BattleshipPolicy(), s).name == "invade"


@spec("AVA-162", "AVA-163")
def test_battleship_recruit_and_defence() -> None:
    s = do(
        arrive(
            set_player(
                ai_game("battleship"), ALLIES, money=4000, available=(10, 0, 0, 0), jail_count=0
            ),
            UK,
        ),
        "pass",
    )
    c = choice(BattleshipPolicy(), s)
    assert dict(c.args) == {"I": 0, "T": 7, "P": 0, "B": 0}  # (4000-3000) // 140 = 7 tanks
    s = do(s, "recruit", **c.args)
    c = choice(BattleshipPolicy(), s)
    assert dict(c.args) == {"square": UK, "I": 10, "T": 7, "P": 0, "B": 0}  # capital: 100%
    f = do(
        arrive(set_player(ai_game("battleship"), ALLIES, money=0, available=(10, 5, 0, 0)), FRANCE),
        "pass",
    )
    assert dict(choice(BattleshipPolicy(), f).args) == {
        "square": FRANCE,
        "I": 6,
        "T": 3,
        "P": 0,
        "B": 0,
    }


@spec("AVA-158", "AVA-164", "TV-AVA-62")
def test_nuke() -> None:
    s = set_square(
        ai_game("battleship", side=AXIS, battleship_ai_advantage="nuke"),
        FRANCE,
        ALLIES,
        (5, 2, 1, 0),
    )
    s = edit(s, current=AXIS)
    s = set_player(s, AXIS, position=FRANCE - 4)
    c = choice(BattleshipPolicy(), s)
    assert (c.name, dict(c.args)) == ("nuke", {"target": FRANCE})
    s2 = do(s, "nuke", target=FRANCE)
    assert s2.garrison[FRANCE - 1] == (0, 0, 0, 0) and s2.players[1].nukes == 0
    assert code_of(s2, "nuke", target=FRANCE) == "E_NO_NUKE"
    assert code_of(s, "nuke", target=USA) == "E_CARD_PRECONDITION"
    assert code_of(s, "nuke", target=GERMANY) == "E_CARD_PRECONDITION"
    s5 = do(set_player(s, AXIS, money=5000), "spin", value=1)
    assert code_of(s5, "nuke", target=FRANCE) == "E_WRONG_STEP"


@spec("AVA-164")
def test_nuke_in_sudden_death_targets_capital() -> None:
    s = ai_game(
        "battleship", side=AXIS, battleship_ai_advantage="nuke", main_end_condition="sudden_death"
    )
    s = set_square(edit(s, current=AXIS), UK, ALLIES, (3, 0, 0, 0))
    assert dict(choice(BattleshipPolicy(), s).args) == {"target": UK}
    s = set_square(s, UK, ALLIES, (0, 0, 0, 0))
    assert choice(BattleshipPolicy(), s).name == "spin"


@spec("AVA-165", "AVA-137")
def test_jail_choices() -> None:
    s = edit(
        set_player(ai_game("battleship"), ALLIES, jailed=True, jail_count=1, money=2500), step="S2"
    )
    assert choice(BattleshipPolicy(), s).name == "pay_ransom"
    s = set_player(s, ALLIES, money=100)
    assert choice(BattleshipPolicy(), s).name == "end_turn"


@spec("AVA-137")
def test_ai_respects_neutral_must_act() -> None:
    s = arrive(
        set_player(
            ai_game("tank", neutral_must_act=True), ALLIES, money=300, available=(15, 0, 0, 0)
        ),
        ALBANIA,
    )
    c = choice(TankPolicy(), s)  # its own rule would pass; AVA-161 picks treaty (200 <= 500)
    assert c.name == "treaty"


def test_random_policy_uniform_over_legal() -> None:
    """The yardstick AI (not in the spec) picks among every offered command."""
    s = arrive(set_player(new_game(), ALLIES, money=900, available=(30, 0, 0, 0)), ALBANIA)
    legal = GAME.legal_commands(s)
    seen = {RandomPolicy().choose(s, legal, random.Random(k)).name for k in range(60)}
    assert seen == {c.name for c in legal}


@spec("AVA-152", "AVA-173")
def test_plane_threshold_is_data(tmp_path: Path) -> None:
    """With the spec's 150% in a house-rules copy the same landing is a penalty."""
    folder = copy_default_data(tmp_path / "data")
    for name in ("territories.json", "secret_bases.json", "specials.json"):
        (folder / name).write_text((Path(fixture_dir()) / name).read_text("utf-8"), "utf-8")
    edit_json(
        folder,
        "ai_profiles.json",
        lambda d: d["profiles"]["plane_ai"].update(invade_cost_vs_penalty_pct=150),
    )
    base = set_square(
        new_game(ais=("plane", None), data_dir=str(folder)), ITALY, AXIS, (10, 0, 0, 0)
    )
    s = arrive(set_player(base, ALLIES, money=0, available=(30, 0, 0, 0)), ITALY)
    assert choice(PlanePolicy(), s).name == "penalty"  # 500 > 1.5 x 150


@spec("AVA-150")
def test_tank_uses_a_card_even_without_effect_battleship_waits() -> None:
    s = set_player(ai_game("tank"), ALLIES, kept_cards=("S02",))  # no enemy planes anywhere
    c = choice(TankPolicy(), s)
    assert (c.name, dict(c.args)) == ("use_card", {"card": "S02", "target": GERMANY})
    b = set_player(ai_game("battleship"), ALLIES, kept_cards=("S02",))
    assert choice(BattleshipPolicy(), b).name == "spin"
