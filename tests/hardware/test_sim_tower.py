"""The simulated tower keeps a hidden inventory: pass-through p, later release q (issue 6)."""

from __future__ import annotations

import random

import pytest

from companion.hardware.sim.tower import COLOURS, CubeTower


def test_every_cube_is_inside_or_out() -> None:
    tower = CubeTower(rng=random.Random(1))
    dropped = dict.fromkeys(COLOURS, 0)
    came_out = dict.fromkeys(COLOURS, 0)
    for i in range(200):
        cubes = {"red": i % 5, "blue": 3, "black": i % 2}
        out = tower.drop(cubes)
        for colour in COLOURS:
            dropped[colour] += cubes.get(colour, 0)
            came_out[colour] += out[colour]
            assert tower.inside[colour] >= 0
    for colour in COLOURS:
        assert dropped[colour] == came_out[colour] + tower.inside[colour]
    rest = tower.empty()
    assert sum(rest.values()) + sum(came_out.values()) == sum(dropped.values())
    assert sum(tower.inside.values()) == 0


def test_pass_through_and_release_rates_match_p_and_q() -> None:
    tower = CubeTower(p=0.7, q=0.2, rng=random.Random(2))
    out = tower.drop({"red": 20_000})
    assert abs(out["red"] / 20_000 - 0.7) < 0.015
    inside = tower.inside["red"]
    released = tower.drop({})["red"]
    assert abs(released / inside - 0.2) < 0.03


def test_extremes_and_bad_input() -> None:
    assert CubeTower(p=1.0, q=0.0).drop({"green": 7})["green"] == 7
    keeper = CubeTower(p=0.0, q=0.0)
    assert keeper.drop({"white": 4})["white"] == 0 and keeper.inside["white"] == 4
    with pytest.raises(ValueError, match="probability"):
        CubeTower(p=1.5)
    with pytest.raises(ValueError, match="unknown cube colour"):
        CubeTower().drop({"purple": 1})
    with pytest.raises(ValueError, match="negative"):
        CubeTower().drop({"red": -1})
