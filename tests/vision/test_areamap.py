"""The area map: the camera geometry fitted from a few calibration cubes."""

from __future__ import annotations

import math

import numpy as np

from vision.areamap import AreaMap, fit_area_map

SIZE = (640, 480)


def _cubes(rng: np.random.Generator, truth: AreaMap, n: int, noise: float = 0.05
           ) -> list[tuple[str, float, float, float]]:
    """Lone cubes at random spots and turns, with the area the geometry gives them."""
    out = []
    for i in range(n):
        x, y = rng.uniform(60, 580), rng.uniform(50, 430)
        turn = rng.uniform(0, math.pi / 2)
        width = abs(math.cos(turn)) + abs(math.sin(turn))
        top = 400.0 * truth.top(x, y, SIZE)
        area = top * (1 + truth.shift(x, y) * width) * (1 + rng.normal(0, noise))
        out.append((("red", "blue", "green")[i % 3], area, x, y))
    return out


def test_the_geometry_of_an_off_centre_camera_is_recovered() -> None:
    """40 cubes with 3% noise pin a tilted camera's map to within 8% everywhere on the image
    (a flat map is 70% off at the far corner)."""
    truth = AreaMap(nadir=(250.0, 300.0), lift=1 / 700, slope=(0.1, -0.15))
    for seed in range(4):
        fitted, tops = fit_area_map(_cubes(np.random.default_rng(seed), truth, 40, 0.03), SIZE)
        assert math.dist(fitted.nadir, truth.nadir) < 60
        assert abs(fitted.lift / truth.lift - 1) < 0.25
        for x, y in [(40, 40), (600, 40), (320, 240), (40, 440), (600, 440)]:
            want = truth.scale(x, y, 1.0, SIZE)
            got = fitted.scale(x, y, 1.0, SIZE) * tops["red"] / 400.0
            assert abs(got / want - 1) < 0.08, (seed, x, y, got, want)


def test_two_cubes_read_as_one_do_not_bend_the_map() -> None:
    truth = AreaMap(nadir=(320.0, 240.0), lift=1 / 1000)
    cubes = _cubes(np.random.default_rng(2), truth, 30, noise=0.03)
    clean, _ = fit_area_map(cubes, SIZE)
    name, area, x, y = cubes[0]
    cubes[0] = (name, 2 * area, x, y)
    kept, _ = fit_area_map(cubes, SIZE)
    assert abs(kept.lift - clean.lift) < 0.15 * clean.lift
    assert math.dist(kept.nadir, clean.nadir) < 40


def test_a_flat_map_from_too_few_cubes() -> None:
    cubes = [("red", 400.0, 100.0, 100.0), ("red", 420.0, 300.0, 200.0)]
    fitted, tops = fit_area_map(cubes, SIZE)
    assert fitted == AreaMap() and 400 <= tops["red"] <= 420
    assert fitted.scale(600, 400, 1.0, SIZE) == 1.0
