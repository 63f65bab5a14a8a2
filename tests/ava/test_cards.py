"""Cards (§13: AVA-110..AVA-126, AVA-33) and TV-AVA-46..56, 68."""

from __future__ import annotations

import random

import pytest

from companion.engine import Command
from companion.games.ava import GAME, cards
from companion.games.ava.setup import data_for
from tests.ava.helpers import (
    AIRBASE,
    ALLIES,
    AXIS,
    BANK,
    FACTORY,
    FRANCE,
    ITALY,
    JAPAN,
    T24,
    UK,
    USA,
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


def data():
    return data_for(new_game().data_dir)


def land_drawing(state, square: int, card_id: str):
    """Spin onto a card square with the first logged seed whose draw is ``card_id``."""
    pos = (square - 2) % 36 + 1
    state = set_player(state, state.current, position=pos)
    for seed in range(5000):
        new, _ = GAME.apply(state, Command("spin", {"value": 1}, seat=state.me.seat, seed=seed))
        if new.step == "S5":
            new, _ = GAME.apply(new, Command("decline_move", {}, seat=state.me.seat, seed=seed))
        if new.last_card == card_id:
            return new
    raise AssertionError(f"no seed draws {card_id}")


@spec("AVA-112", "AVA-23", "TV-AVA-46")
@pytest.mark.parametrize(("luck", "low", "high"), [(65, 0.63, 0.67), (50, 0.48, 0.52)])
def test_luck_weighting(luck: int, low: float, high: float) -> None:
    d, s = data(), new_game()
    rng = random.Random(12345)
    picks = [
        cards.pick_replacement(d, s, "fortune", rng, luck, "class_weighting") for _ in range(10000)
    ]
    share = sum(c.beneficial for c in picks) / len(picks)
    assert low <= share <= high
    rng2 = random.Random(12345)
    again = [
        cards.pick_replacement(d, s, "fortune", rng2, luck, "class_weighting") for _ in range(10000)
    ]
    assert [c.id for c in picks] == [c.id for c in again]


@spec("AVA-23", "AVA-112")
def test_luck_model_none_ignores_luck() -> None:
    d, s = data(), new_game()
    rng = random.Random(5)
    picks = [cards.pick_replacement(d, s, "fortune", rng, 100, "none") for _ in range(4000)]
    share = sum(c.beneficial for c in picks) / len(picks)
    assert 0.45 <= share <= 0.55  # 4 of 8 fortune cards are beneficial, equal weights


@spec("AVA-113", "AVA-81", "TV-AVA-48")
def test_spy_limit() -> None:
    d = data()
    s = edit(new_game(), spies_drawn=4)
    rng = random.Random(77)
    ids = {
        cards.pick_replacement(d, s, "strategy", rng, 100, "class_weighting").id
        for _ in range(10000)
    }
    assert "S01" not in ids and "S02" in ids


@spec("AVA-112", "AVA-113")
def test_shuffled_finite_deck() -> None:
    s = new_game(deck_model="shuffled_finite")
    d = data_for(s.data_dir)
    assert sorted(s.decks[0]) == sorted(c.id for c in d.cards.values() if c.deck == "fortune")
    assert s.decks[1].count("S01") == 4
    rng = random.Random(3)
    drawn = []
    for _ in range(60):
        c = cards.draw(d, s, "strategy", rng)
        assert c is not None
        drawn.append(c.id)
        cards.retire(d, s, c.id)
    assert drawn.count("S01") == 4 and s.spies_drawn == 4
    assert all(drawn[:13].count(c) == 1 for c in ("S02", "S05", "S10"))  # one pass: 13 cards


@spec("AVA-110", "AVA-114", "AVA-87")
def test_fortune_acts_at_once() -> None:
    s = land_drawing(set_player(new_game(), ALLIES, money=0), 3, "F01")
    assert s.players[0].money == 1000 and s.step == "S6" and s.players[0].kept_cards == ()
    assert do(s, "pass").step == "S7"


@spec("AVA-56", "AVA-114", "AVA-118", "TV-AVA-56")
def test_beneficial_fortune_cards_and_recruit_limits() -> None:
    s = land_drawing(set_player(new_game(), ALLIES, money=5000, available=(0, 0, 0, 0)), 3, "F02")
    assert s.players[0].available == (12, 0, 0, 0)
    assert do(do(s, "pass"), "recruit", I=24).players[0].available == (36, 0, 0, 0)
    d = data()
    for cid, money, units in (("F03", 0, (0, 3, 1, 0)), ("F04", 300, (0, 0, 0, 1))):
        st = set_player(new_game(), ALLIES, money=0, available=(0, 0, 0, 0))
        cards.apply_immediate(d, st, d.cards[cid], [])
        assert (st.players[0].money, st.players[0].available) == (money, units)


@spec("AVA-117", "AVA-126", "AVA-118", "TV-AVA-55")
def test_harmful_immediate_cards() -> None:
    d = data()

    def after(cid: str, **player):
        st = set_player(new_game(), ALLIES, **player)
        cards.apply_immediate(d, st, d.cards[cid], [])
        return st

    assert after("F05", money=1234).players[0].money == 988
    assert after("F06", available=(15, 0, 0, 0)).players[0].available == (8, 0, 0, 0)
    assert after("F07", available=(0, 0, 0, 1)).players[0].available == (0, 0, 0, 0)
    assert after("F08", money=300).players[0].money == 0
    assert after("S08", money=700).players[0].money == 0
    assert after("S09", money=900, kept_cards=()).players[0].money == 400
    poor = after("F06", available=(1, 0, 0, 0), money=0)
    assert poor.players[0].available == (1, 0, 0, 0) and not poor.players[0].jailed


@spec("AVA-118", "AVA-126")
def test_cards_never_jail() -> None:
    d = data()
    st = set_player(new_game(), ALLIES, available=(0, 0, 0, 2), money=0)
    cards.apply_immediate(d, st, d.cards["F07"], [])
    assert st.players[0].available == (0, 0, 0, 0) and not st.players[0].jailed


@spec("AVA-118", "TV-AVA-55")
def test_partisans() -> None:
    d = data()
    st = set_square(set_square(new_game(), UK, ALLIES, (6, 1, 0, 0)), FRANCE, ALLIES, (6, 0, 0, 0))
    cards.apply_immediate(d, st, d.cards["S10"], [])
    assert st.garrison[UK - 1] == (3, 1, 0, 0) and st.garrison[FRANCE - 1] == (6, 0, 0, 0)
    empty = new_game()
    cards.apply_immediate(d, empty, d.cards["S10"], [])
    assert empty.garrison == new_game().garrison


@spec("AVA-126", "TV-AVA-55", "TV-AVA-68")
def test_double_agent_human_discard() -> None:
    s = set_player(new_game(), ALLIES, money=700, kept_cards=("S02", "S04"))
    s = land_drawing(s, 17, "S09")
    assert s.discard_owed and s.players[0].money == 700
    assert code_of(s, "end_turn") == "E_RESOLUTION_PENDING"
    assert code_of(s, "pass") == "E_RESOLUTION_PENDING"
    assert code_of(s, "discard", card="S03") == "E_CARD_NOT_HELD"
    s = do(s, "discard", card="S04")
    assert s.players[0].kept_cards == ("S02",) and s.players[0].money == 700
    assert do(s, "pass").step == "S7"
    assert code_of(s, "discard", card="S02") == "E_WRONG_STEP"


@spec("AVA-126", "AVA-118")
def test_double_agent_ai_discards_most_recent() -> None:
    s = set_player(new_game(ais=("tank", None)), ALLIES, money=700, kept_cards=("S02", "S04"))
    s = land_drawing(s, 17, "S09")
    assert not s.discard_owed and s.players[0].kept_cards == ("S02",)


@spec("AVA-115", "AVA-87")
def test_kept_strategy_card() -> None:
    s = land_drawing(set_player(new_game(), ALLIES, money=0), 17, "S04")
    assert s.players[0].kept_cards == ("S04",)
    s = land_drawing(edit(s, step="S3"), 17, "S04")
    assert s.players[0].kept_cards == ("S04", "S04")  # no limit on kept cards


@spec("AVA-80", "AVA-119", "AVA-116", "TV-AVA-47")
def test_spy_use() -> None:
    s = set_square(new_game(), AIRBASE, AXIS)
    s = set_player(s, ALLIES, kept_cards=("S01",), money=700)
    s = arrive(s, AIRBASE)
    s = do(s, "use_card", card="S01")
    assert s.owner[AIRBASE - 1] is None and s.players[0].kept_cards == () and s.step == "S6"
    s = do(s, "build_base")
    assert s.players[0].money == 200 and s.owner[AIRBASE - 1] == ALLIES


@spec("AVA-119", "AVA-116", "TV-AVA-48")
def test_spy_preconditions() -> None:
    s = arrive(set_player(new_game(), ALLIES, kept_cards=("S01",), money=0), BANK)
    assert code_of(s, "use_card", card="S01") == "E_CARD_PRECONDITION"
    assert code_of(s, "use_card", card="S02", target=ITALY) == "E_CARD_NOT_HELD"
    assert code_of(s, "use_card", card="ZZZ") == "E_CARD_NOT_HELD"
    s7 = do(s, "pass")
    assert code_of(s7, "use_card", card="S01") == "E_WRONG_STEP"


@spec("AVA-120", "TV-AVA-49")
def test_battle_of_britain() -> None:
    s = set_square(new_game(), ITALY, AXIS, (4, 2, 3, 0))
    s = set_player(s, ALLIES, kept_cards=("S02",))
    assert code_of(s, "use_card", card="S02", target=UK) == "E_CARD_PRECONDITION"
    assert code_of(s, "use_card", card="S02", target=3) == "E_CARD_PRECONDITION"
    assert code_of(s, "use_card", card="S02") == "E_CARD_PRECONDITION"
    s = do(s, "use_card", card="S02", target=ITALY)  # in S3, wherever the token is
    assert s.garrison[ITALY - 1] == (4, 2, 0, 0)
    from companion.games.ava.rules import square_dp

    assert square_dp(data(), s, ITALY) == 12


@spec("AVA-121", "TV-AVA-50")
def test_pearl_harbor() -> None:
    s = set_square(set_square(new_game(), ITALY, AXIS, (0, 0, 0, 2)), T24, AXIS, (0, 0, 0, 0))
    s = set_player(s, ALLIES, kept_cards=("S03",))
    assert code_of(s, "use_card", card="S03", target=T24) == "E_CARD_PRECONDITION"
    s = do(s, "use_card", card="S03", target=ITALY)
    assert s.garrison[ITALY - 1] == (0, 0, 0, 0)


@spec("AVA-122", "AVA-41", "TV-AVA-51")
def test_siege_of_leningrad() -> None:
    s = set_player(new_game(), ALLIES, kept_cards=("S04", "S04"), money=0)
    s = do(s, "use_card", card="S04")
    assert s.players[1].skip_next_collection
    assert code_of(s, "use_card", card="S04") == "E_CARD_PRECONDITION"
    s = set_player(s, AXIS, money=0, available=(0, 0, 0, 0))
    s = do(arrive(s, QUIET), "end_turn")
    assert s.players[1].money == 0 and not s.players[1].skip_next_collection
    s = do(arrive(set_player(s, AXIS, money=0), QUIET), "end_turn")
    s = do(arrive(set_player(s, ALLIES, money=0), QUIET), "end_turn")
    assert s.players[1].money == 700


@spec("AVA-123", "AVA-76", "TV-AVA-52")
def test_secret_blueprint() -> None:
    s = arrive(set_player(new_game(), ALLIES, kept_cards=("S05",), money=0), FACTORY)
    s2 = do(s, "use_card", card="S05")
    assert s2.owner[FACTORY - 1] == ALLIES and s2.players[0].money == 0 and s2.step == "S7"
    own = arrive(
        set_square(set_player(new_game(), ALLIES, kept_cards=("S05",), money=0), BANK, ALLIES), BANK
    )
    assert code_of(own, "use_card", card="S05") == "E_CARD_PRECONDITION"


@spec("AVA-124", "AVA-84", "TV-AVA-53")
def test_defection() -> None:
    s = set_player(edit(new_game(), current=AXIS), AXIS, kept_cards=("S06",), money=2500)
    s = arrive(s, USA)
    assert code_of(s, "ally") == "E_NOT_NATURAL_ALLY"
    s2 = do(s, "use_card", card="S06")
    assert s2.players[1].money == 500 and s2.owner[USA - 1] == AXIS and s2.step == "S7"
    poor = arrive(
        set_player(edit(new_game(), current=AXIS), AXIS, kept_cards=("S06",), money=1999), USA
    )
    assert code_of(poor, "use_card", card="S06") == "E_NOT_ENOUGH_MONEY"
    taken = set_square(
        set_player(edit(new_game(), current=AXIS), AXIS, kept_cards=("S06",), money=5000),
        USA,
        ALLIES,
    )
    assert code_of(arrive(taken, USA), "use_card", card="S06") == "E_CARD_PRECONDITION"


@spec("AVA-125", "AVA-86", "TV-AVA-54")
def test_isolationism() -> None:
    s = set_player(new_game(mode="no_italy"), ALLIES, kept_cards=("S07",), money=5000)
    assert code_of(s, "use_card", card="S07", target=USA) == "E_CARD_PRECONDITION"
    s = do(s, "use_card", card="S07", target=JAPAN)
    assert s.owner[JAPAN - 1] is None
    s = arrive(s, JAPAN)
    assert code_of(s, "ally") == "E_NOT_NATURAL_ALLY"


@spec("AVA-33", "AVA-116")
def test_card_use_windows() -> None:
    s = set_player(new_game(), ALLIES, kept_cards=("S04",), money=5000, position=30)
    s5 = do(s, "spin", value=1)
    assert s5.step == "S5"
    assert code_of(s5, "use_card", card="S04") == "E_WRONG_STEP"
    s6 = do(s5, "decline_move")
    assert do(s6, "use_card", card="S04").players[1].skip_next_collection
    s7 = do(s6, "pass")
    assert do(s7, "use_card", card="S04").players[1].skip_next_collection
    other = edit(s, current=AXIS)
    assert code_of(other, "use_card", seat=0, card="S04") == "E_NOT_YOUR_TURN"
