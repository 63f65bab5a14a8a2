"""The synthetic tray renderer: exact ground truth, deterministic, every named setup renders."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision import COLOURS, scenes
from vision import render as rd

from .conftest import SIZE, drop


def test_ground_truth_counts_are_what_was_placed() -> None:
    setup = scenes.condition("ring", SIZE)
    counts = {"red": 3, "yellow": 0, "blue": 2, "green": 1, "black": 4, "white": 2}
    img, truth = drop(setup, 11, counts, "cluster", tilted=0.3, stacked=0.1)
    assert truth.counts == counts
    assert len(truth.cubes) == sum(counts.values())
    assert img.shape == (SIZE[1], SIZE[0], 3) and img.dtype == np.uint8
    for cube in truth.cubes:
        assert 0.0 <= cube["visible_fraction"] <= 1.0
        x, y = cube["center_px"]
        assert 0 <= x < SIZE[0] and 0 <= y < SIZE[1]


def test_same_seed_same_image_other_seed_other_image() -> None:
    setup = scenes.condition("ring", SIZE)
    a, _ = drop(setup, 4, {"red": 2, "blue": 2})
    b, _ = drop(setup, 4, {"red": 2, "blue": 2})
    c, _ = drop(setup, 5, {"red": 2, "blue": 2})
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_a_cube_under_another_is_marked_hidden() -> None:
    setup = scenes.condition("ring", SIZE)
    rng = np.random.default_rng(0)
    low = scenes.make_cube(setup, rng, "red", 0.0, 0.0)
    top = scenes.make_cube(setup, rng, "blue", 0.5, 0.0, z_base=low.edge)
    _, truth = rd.render(setup, [low, top])
    assert truth.cubes[0]["visible_fraction"] < 0.4 < truth.cubes[1]["visible_fraction"]
    assert truth.hard


@pytest.mark.parametrize("name", sorted(scenes.CONDITIONS))
def test_every_named_condition_renders(name: str) -> None:
    setup = scenes.condition(name, (320, 240))
    img, truth = drop(setup, 2, {c: 1 for c in COLOURS}, shift_mm=3.0)
    assert img.shape == (240, 320, 3)
    assert sum(truth.counts.values()) == len(COLOURS)


def test_a_lamp_beside_the_tray_lights_its_far_side_less() -> None:
    """The light falls off linearly across the frame, toward the lamp's far side."""
    plain = replace(scenes.condition("ring", SIZE), vignette=0.0, read_noise=0.0, shot_noise=0.0)
    lamp = replace(plain, light_falloff=0.6, falloff_azim_deg=0.0)  # far side: +x
    lit = [(rd.render(s, [])[0].astype(np.float64) / 255.0) ** 2.2 for s in (plain, lamp)]
    h, w = lit[0].shape[:2]
    for x, expected in ((0.3, 1 - 0.6 * 0.3), (0.7, 1 - 0.6 * 0.7)):
        strip = np.s_[h // 3 : 2 * h // 3, round(x * w) - 2 : round(x * w) + 3]
        assert lit[1][strip].mean() / lit[0][strip].mean() == pytest.approx(expected, abs=0.03)


def test_render_drop_is_what_simulation_mode_uses(ring: tuple) -> None:
    setup, _, counter = ring
    img, truth = scenes.render_drop({"red": 3, "green": 2}, setup, seed=9, style="scatter")
    assert truth.counts["red"] == 3 and truth.counts["green"] == 2
    assert counter.count(img).counts == truth.counts
    with pytest.raises(ValueError, match="purple"):
        scenes.render_drop({"purple": 1}, setup)


def test_tone_curve_lightens_mid_tones_and_sharpening_darkens_the_tray_beside_a_cube() -> None:
    plain = scenes.condition("ring", SIZE)
    rng = np.random.default_rng(2)
    cube = scenes.make_cube(plain, rng, "white", 0.0, 0.0)
    base, truth = rd.render(plain, [cube], seed=2)
    lighter, _ = rd.render(replace(plain, tone_gamma=1.3), [cube], seed=2)
    sharp, _ = rd.render(replace(plain, sharpen=1.0), [cube], seed=2)
    assert lighter.mean() > base.mean() + 10
    # Just outside the cube's top, the tray gets a dark halo; far from it, nothing changes.
    x, y = (round(v) for v in truth.cubes[0]["center_px"])
    half = round(plain.cube_mm * plain.px_per_mm / 2)
    beside = (slice(y - 3, y + 4), slice(x + half + 2, x + half + 4))
    far = (slice(20, 60), slice(20, 60))
    assert sharp[beside].mean() < base[beside].mean() - 3
    assert abs(float(sharp[far].mean()) - float(base[far].mean())) < 1.5


def test_cubes_in_a_pile_darken_each_others_tops() -> None:
    """Ambient occlusion: a top with neighbours all round is darker than a lone one, and only
    cube pixels change (the floor keeps its own contact shading)."""
    setup = scenes.condition("ring", SIZE)
    rng = np.random.default_rng(4)
    edge = setup.cube_mm
    pile = [scenes.make_cube(setup, rng, "yellow", dx * 1.05 * edge, dy * 1.05 * edge)
            for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
    lone = scenes.make_cube(setup, rng, "yellow", 80.0, 40.0)
    shaded, truth = rd.render(setup, [*pile, lone], seed=4)
    plain, _ = rd.render(replace(setup, crowd_shade=0.0), [*pile, lone], seed=4)

    def top(img: np.ndarray, i: int) -> float:
        x, y = (round(v) for v in truth.cubes[i]["center_px"])
        return float(img[y - 2 : y + 3, x - 2 : x + 3].mean())

    assert top(shaded, 4) < 0.96 * top(plain, 4)  # the middle of the pile
    assert top(shaded, 9) > 0.99 * top(plain, 9)  # the lone cube
    assert top(shaded, 4) < 0.96 * top(shaded, 9)
    far = (slice(20, 60), slice(20, 60))
    assert abs(float(shaded[far].mean()) - float(plain[far].mean())) < 0.5


def test_each_cube_may_be_painted_a_little_lighter_or_darker() -> None:
    """Wood takes paint unevenly (the shared sample's lone tops range over 0.76-1.17 of the
    calibrated lightness): with ``paint_variation`` each cube gets its own shade of its colour,
    within that share; without it, cubes of a colour are painted alike."""
    setup = scenes.condition("ring", SIZE)
    rng = np.random.default_rng(6)
    cubes = [scenes.make_cube(setup, rng, "red", x, 0.0) for x in (-60.0, -20.0, 20.0, 60.0)]

    def tops(at: rd.Setup) -> np.ndarray:
        img, truth = rd.render(at, cubes, seed=6)
        centres = [[round(v) for v in c["center_px"]] for c in truth.cubes]
        return np.array([img[y - 2 : y + 3, x - 2 : x + 3].mean() for x, y in centres])

    alike, varied = tops(setup), tops(replace(setup, paint_variation=0.15))
    assert np.ptp(alike) < 0.03 * alike.max(), alike
    assert np.ptp(varied) > 0.06 * varied.max(), varied
    assert np.all(np.abs(varied / alike - 1) < 0.16), (varied, alike)
