"""Cubes that blend into the tray: their tops found by their outlines (vision.faint), and their
counts under a coloured light."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision import Counter, faint, pixels, scenes
from vision import render as rd
from vision.faint import outlined_tops

from .conftest import bench_drop, calibrated

TRAY_L = 225
SIDE = 20  # a top's side in working pixels


def _faint_cube(grey: np.ndarray, x: int, y: int, angle: float) -> None:
    """A white cube on a light tray as the lightness shows it: a top as light as the tray, its
    bevels a thin darker ring and one side face darker still."""
    top = cv2.boxPoints(((x, y), (SIDE, SIDE), angle)).astype(np.int32)
    side = cv2.boxPoints(((x + 4, y + 4), (SIDE, SIDE), angle)).astype(np.int32)
    cv2.fillConvexPoly(grey, side, 175)
    cv2.fillConvexPoly(grey, top, TRAY_L - 2)
    cv2.polylines(grey, [top], True, 195, 1)


def _frame(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A bare light tray's lightness, and the noise a frame of it adds."""
    rng = np.random.default_rng(seed)
    grey = np.full((240, 320), TRAY_L, np.uint8)
    noise = rng.normal(0, 1.5, grey.shape)
    return grey, noise


def _noisy(grey: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """The working frame (BGR) of a lightness drawing, with sensor noise."""
    return cv2.cvtColor(np.clip(grey + noise, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)


def _found_at(mask: np.ndarray, points: list[tuple[int, int]]) -> list[bool]:
    return [bool(mask[y, x]) for x, y in points]


def test_tops_as_light_as_the_tray_are_found_by_their_outlines() -> None:
    cubes = [(60, 60, 0.0), (160, 70, 30.0), (250, 150, 65.0), (90, 170, 12.0)]
    for seed in range(4):
        grey, noise = _frame(seed)
        for x, y, a in cubes:
            _faint_cube(grey, x, y, a)
        labels = np.zeros(grey.shape, np.uint8)
        roi = np.full(grey.shape, 255, np.uint8)
        mask = outlined_tops(_noisy(grey, noise), labels, 6, roi, lambda x, y: SIDE * SIDE, TRAY_L)
        assert all(_found_at(mask, [(x, y) for x, y, _ in cubes])), seed
        # Grown back to about a top's size each, and nothing else.
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
        assert n - 1 == len(cubes)
        assert all(0.8 * SIDE**2 <= a <= 1.8 * SIDE**2 for a in stats[1:, cv2.CC_STAT_AREA])


def test_shadows_glare_long_shapes_and_other_colours_are_not_tops() -> None:
    grey, noise = _frame(7)
    blob = np.zeros(grey.shape, np.float32)
    cv2.circle(blob, (70, 70), 14, 1.0, -1)
    blob = cv2.GaussianBlur(blob, (0, 0), 5)
    grey = (grey - 60 * blob).astype(np.uint8)  # a soft shadow of a top's size
    glare = cv2.GaussianBlur(np.pad(np.ones((16, 16), np.float32), 8), (0, 0), 4)
    grey[150:182, 40:72] = np.clip(grey[150:182, 40:72] + 25 * glare, 0, 255)
    long = cv2.boxPoints(((200, 70), (2 * SIDE, SIDE), 20.0)).astype(np.int32)
    cv2.fillConvexPoly(grey, long, TRAY_L - 2)
    cv2.polylines(grey, [long], True, 190, 1)
    _faint_cube(grey, 230, 170, 10.0)
    labels = np.zeros(grey.shape, np.uint8)
    labels[150:190, 210:250] = 3  # that square is a blue cube's: not a white top
    roi = np.full(grey.shape, 255, np.uint8)
    mask = outlined_tops(_noisy(grey, noise), labels, 6, roi, lambda x, y: SIDE * SIDE, TRAY_L)
    assert not mask.any()
    # The same square left as tray is a top; outside the tray's region it is not looked for.
    labels[:] = pixels.TRAY
    assert _found_at(outlined_tops(_noisy(grey, noise), labels, 6, roi, lambda x, y: 400, TRAY_L),
                     [(230, 170)]) == [True]
    roi[:, 200:] = 0
    assert not outlined_tops(_noisy(grey, noise), labels, 6, roi, lambda x, y: 400, TRAY_L).any()


def test_a_dark_square_is_no_top_of_a_light_colour() -> None:
    """A square patch of the tray's wooden chute, ringed by its edges, passed for a white top
    (fresh white-floor rig, seed 58, drop 39): a region far darker than its colour is none of its
    tops; the same square is a top of a dark colour."""
    grey, noise = _frame(5)
    square = cv2.boxPoints(((90, 90), (SIDE, SIDE), 15.0)).astype(np.int32)
    cv2.fillConvexPoly(grey, square, 90)
    cv2.polylines(grey, [square], True, 60, 1)
    _faint_cube(grey, 220, 140, 25.0)
    labels = np.zeros(grey.shape, np.uint8)
    roi = np.full(grey.shape, 255, np.uint8)
    frame = _noisy(grey, noise)
    light = outlined_tops(frame, labels, 6, roi, lambda x, y: SIDE * SIDE, TRAY_L)
    assert _found_at(light, [(90, 90), (220, 140)]) == [False, True]
    dark = outlined_tops(frame, labels, 5, roi, lambda x, y: SIDE * SIDE, 95)
    assert _found_at(dark, [(90, 90)]) == [True]


def test_white_cubes_in_piles_on_a_light_tray_are_counted() -> None:
    """Light-tray#20 (seed 63, piles like the shared sample's): ten white cubes on a near-white
    tray, in pairs, a pile of three and alone, most against cubes of other colours. Their tops
    match the tray pixel for pixel and the lightness of their tops is lost beside the other
    colours: one was counted. Their outlines ring them all; the count still asks, white being
    unreliable here."""
    counter, img, truth = bench_drop("light-tray", 63, 20, piles=(0.03, 0.01))
    res = counter.count(img)
    assert truth.counts["white"] == 10 and res.counts == truth.counts
    assert res.needs_review and any("white" in r for r in res.reasons)


def test_a_black_cube_in_a_row_between_other_colours_on_a_dark_tray_is_counted() -> None:
    """Dark-tray#17 (seed 63, piles like the shared sample's): a black cube flush between two
    blue ones. Its top is a few levels lighter than the tray, too little for the clear edges on
    its two open sides and too narrow for its lightness between the blue ones: it was not
    counted. The faintest edges, over a wider blur, close its outline."""
    counter, img, truth = bench_drop("dark-tray", 63, 17, piles=(0.03, 0.01))
    res = counter.count(img)
    assert truth.counts["black"] == 1 and res.counts == truth.counts
    assert res.needs_review and any("black" in r for r in res.reasons)


def test_specks_of_a_colour_that_blends_into_the_tray_are_not_hidden_cubes() -> None:
    """A pale tray under a warm light (seed 70, drop 1): the rims of 26 yellow cubes, whitish in
    that light, left four groups of white specks, each counted as a white cube lying hidden
    under them (8 white for 4). White blends into that tray: its specks are as often the tray
    between cubes as a cube. (13 of 13 such specks in 20 drops were none.)"""
    setup = replace(scenes.condition("pale-tray", None), **scenes.CONDITIONS["warm-cast"])
    counter = Counter(calibrated(setup, 70))
    assert counter.profile.colour("white").lift > 0
    rng = np.random.default_rng([70, 7])
    for k in range(2):  # the setup's drops in order: the empty tray, then this one
        counts = scenes.random_counts(rng, int(rng.integers(0, 41)) if k else 0)
        cubes = scenes.random_drop(setup, rng, counts, "cluster", tilted=0.03, stacked=0.01)
        img, truth = rd.render(scenes.drop_setup(setup, rng), cubes, seed=70_000 + k)
    res = counter.count(img)
    assert truth.counts["yellow"] == 26 and res.counts == truth.counts
    assert res.needs_review


def test_canny_from_the_shared_gradients_finds_the_same_edges() -> None:
    """The derivatives made once for passes that share a blur give Canny the edges it finds in
    the image itself, at the frame's edges too (edges drawn up to them, and noise)."""
    rng = np.random.default_rng(4)
    grey = cv2.GaussianBlur(rng.integers(60, 200, (120, 160), np.uint8), (5, 5), 0)
    cv2.rectangle(grey, (0, 30), (50, 119), 230, -1)
    for low, high, blur in {*faint.EDGES, *faint.LIGHT_EDGES}:
        smooth = cv2.GaussianBlur(grey, (blur, blur), 0)
        edges = cv2.Canny(smooth, low, high)
        assert edges.any()
        assert np.array_equal(cv2.Canny(*faint._gradients(smooth), low, high), edges)
