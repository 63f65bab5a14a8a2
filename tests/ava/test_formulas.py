"""§11 formulas (AVA-95..AVA-102) and their source examples (TV-AVA-01..05, 16..20)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.ava import formulas as fm

spec = pytest.mark.spec


@spec("AVA-96", "TV-AVA-01")
def test_defence_power_source_example() -> None:
    assert fm.defence_power((1, 1, 1, 1), seaport=True) == 22


@spec("AVA-96", "TV-AVA-02")
def test_defence_power_pairing_and_full_cross() -> None:
    assert fm.defence_power((10, 2, 0, 0), seaport=True) == 18
    assert fm.defence_power((10, 2, 0, 0), seaport=True, support_model="full_cross") == 36
    assert fm.defence_power((1, 1, 1, 1), seaport=True, support_model="full_cross") == 22


@spec("AVA-96", "TV-AVA-03")
def test_defence_power_mixed() -> None:
    assert fm.defence_power((3, 5, 2, 1), seaport=True) == 45


@spec("AVA-96", "TV-AVA-04")
def test_defence_power_empty() -> None:
    assert fm.defence_power((0, 0, 0, 0), seaport=True) == 0


@spec("AVA-13", "AVA-96")
def test_battleships_add_nothing_without_seaport() -> None:
    assert fm.defence_power((1, 1, 1, 1), seaport=False) == 1 + 3 + 5 + 3


@spec("AVA-95", "TV-AVA-05", "AVA-13")
def test_invasion_power_source_example_no_support() -> None:
    assert fm.invasion_power((1, 1, 1, 1), seaport=True) == 16
    assert fm.invasion_power((1, 1, 1, 1), seaport=False) == 9


@spec("AVA-97")
def test_treaty_cost_formula() -> None:
    assert fm.treaty_cost(10, 0) == 200
    assert fm.treaty_cost(10, 1) == 300
    assert fm.treaty_cost(10, 2) == 400


@spec("AVA-98", "AVA-49")
def test_strategic_cost_sequence() -> None:
    assert [fm.strategic_cost(u, 1) for u in range(3)] == [1000, 2000, 3000]
    assert [fm.strategic_cost(u, 2) for u in range(3)] == [2000, 4000, 6000]


@spec("AVA-99", "AVA-4", "TV-AVA-19", "TV-AVA-20")
def test_penalty_power_rounding() -> None:
    assert fm.penalty_power(300, 30) == 90
    assert fm.penalty_power(22, 30) == 7
    assert fm.penalty_power(22, 30, "floor") == 6
    assert fm.penalty_power(21, 30, "ceil") == 7  # 6.3 -> 7
    assert fm.penalty_power(45, 50) == 23
    assert fm.penalty_power(45, 40) == 18
    assert fm.penalty_power(10, 30) == 3
    assert fm.penalty_power(0, 50) == 0


@spec("AVA-100", "TV-AVA-16", "TV-AVA-17")
def test_removal_weakest_first_whole_units() -> None:
    assert fm.removal_weakest_first((89, 1, 0, 0), 90, True) == ((89, 1, 0, 0), 92)
    assert fm.removal_weakest_first((100, 1, 0, 0), 90, True) == ((90, 0, 0, 0), 90)


@spec("AVA-100", "TV-AVA-18")
def test_removal_options() -> None:
    assert fm.removal_weakest_first((0, 3, 1, 0), 7, True) == ((0, 3, 0, 0), 9)
    assert fm.removal_min_overshoot((0, 3, 1, 0), 7, True) == ((0, 1, 1, 0), 8)
    # not enough power: everything eligible goes
    assert fm.removal_min_overshoot((1, 1, 0, 2), 50, False) == ((1, 1, 0, 0), 4)
    assert fm.removal_min_overshoot((5, 5, 5, 5), 0, True) == ((0, 0, 0, 0), 0)


@spec("AVA-100", "AVA-13")
def test_removal_skips_battleships_without_seaport() -> None:
    assert fm.removal_weakest_first((2, 0, 0, 2), 6, False) == ((2, 0, 0, 0), 2)
    assert fm.removal_weakest_first((2, 0, 0, 2), 6, True) == ((2, 0, 0, 1), 9)


@spec("AVA-101")
def test_ransom_grows_with_jailings() -> None:
    assert [fm.ransom(n) for n in (1, 2, 3)] == [2000, 4000, 6000]


@spec("AVA-102")
def test_army_power_counts_everything_without_support() -> None:
    assert fm.army_power([(10, 0, 0, 0), (20, 5, 2, 0)]) == 55
    assert fm.army_power([(0, 0, 0, 1)]) == 7


@spec("AVA-39")
def test_collection_sums_before_rounding() -> None:
    assert fm.collection([(400, 5, 2, 1, 1)], 50) == (200, 2, 1, 0, 0)
    assert fm.collection([(400, 5, 2, 1, 1)], 50, "half_up") == (200, 3, 1, 1, 1)
    assert fm.collection([(0, 1, 0, 0, 0), (0, 1, 0, 0, 0)], 50) == (0, 1, 0, 0, 0)


@spec("AVA-140")
def test_minimal_invasion_set_is_cheapest() -> None:
    costs = (50, 140, 220, 300)
    # power 22 from (0,0,3,1): planes+ship; infantry only would be cheapest if enough
    assert fm.min_invasion_set((30, 0, 0, 0), 22, (True,) * 4, costs) == (22, 0, 0, 0)
    assert fm.min_invasion_set((0, 0, 3, 1), 22, (True,) * 4, costs) == (0, 0, 3, 1)
    assert fm.min_invasion_set((0, 0, 3, 1), 22, (True, True, True, False), costs) is None
    assert fm.min_invasion_set((1, 0, 0, 0), 0, (True,) * 4, costs) == (1, 0, 0, 0)
    assert fm.min_invasion_set((0, 0, 0, 0), 0, (True,) * 4, costs) is None
    # tanks (3 power for 140) beat infantry (3 power for 150)
    assert fm.min_invasion_set((10, 2, 0, 0), 6, (True,) * 4, costs) == (0, 2, 0, 0)


@spec("AVA-140")
@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(
    available=st.tuples(*(st.integers(0, 25) for _ in range(4))),
    defence=st.integers(-3, 120),
    seaport=st.booleans(),
)
def test_minimal_invasion_set_matches_exhaustive_search(
    available: tuple[int, int, int, int], defence: int, seaport: bool
) -> None:
    """AVA-140: the fast search finds exactly what trying every count finds."""
    costs = (50, 140, 220, 300)
    allowed = (True, True, True, seaport)
    fast = fm.min_invasion_set(available, defence, allowed, costs)
    pool = fm.eligible(available, seaport)
    if sum(pool) == 0 or fm.raw_power(pool) < defence:
        assert fast is None
    elif defence <= 0:
        assert fast is not None and sum(fast) == 1
    else:
        assert fast == fm._min_invasion_brute(pool, defence, costs, fm.POWERS)
