"""Shared fixtures: rendered setups calibrated once per test session (calibration takes ~1 s)."""

from __future__ import annotations

import functools
import itertools
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.bench import rig_photos
from tests.bench.bench_vision import drop_sequence, render_drop
from vision import Counter, Profile, calibrate, scenes
from vision import render as rd
from vision.photos import Sample

SIZE = (640, 480)


def calibrated(setup: rd.Setup, seed: int) -> Profile:
    """A setup calibrated on its rendered calibration set (``seed``), as the benchmark does."""
    empty, shots = scenes.calibration_set(setup, seed=seed)
    return calibrate(
        empty=empty, samples=[Sample(c, n, img, f"{c}-{n}.png") for c, n, img in shots]
    )


@functools.lru_cache(maxsize=16)
def rendered_profile(name: str, seed: int = 3) -> tuple[rd.Setup, Profile]:
    """Calibrate a named rendered setup at test size (once per session: profiles are immutable)."""
    setup = scenes.condition(name, SIZE)
    return setup, calibrated(setup, seed)


def bench_drop(
    name: str, seed: int, k: int, physics: bool = False, piles: tuple[float, float] = (0.15, 0.04),
    paint: float = 0.0,
) -> tuple[Counter, np.ndarray, rd.Truth]:
    """Drop ``k`` of a rendered setup in the benchmark (full size; ``piles`` the shares of
    tilted and stacked cubes in piles, or settled by physics; ``paint`` as its ``--paint``), with
    a counter calibrated as the benchmark calibrates it."""
    setup = replace(scenes.condition(name, None), paint_variation=paint)
    counter = Counter(calibrated(setup, seed))
    chosen = next(itertools.islice(drop_sequence(name, seed, None, physics, piles), k, None))
    img, truth = render_drop(chosen, paint)
    return counter, img, truth


@functools.lru_cache(maxsize=4)
def rig_counter(rig_name: str, seed: int) -> tuple[rig_photos.Rig, Counter]:
    """A rig of the second renderer calibrated on its calibration photos, as its folder would
    be (once per session)."""
    rig = rig_photos.RIGS[rig_name]()
    shots = [rig_photos._calibration_photo((rig, seed, k))
             for k in range(1 + len(rig_photos.COLOURS))]  # the empty tray, then each colour
    empty = rig_shot(rig, shots[0][1])
    samples = []
    for name, img in shots[1:]:
        colour, n = name.split("-")
        samples.append(Sample(colour, int(n), rig_shot(rig, img), f"{name}.jpg"))
    return rig, Counter(calibrate(empty=empty, samples=samples))


def rig_shot(rig: rig_photos.Rig, img: np.ndarray) -> np.ndarray:
    """A rendered photo as the rig's camera encodes it."""
    buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rig["post"]["jpeg"])])[1]
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


@pytest.fixture(scope="session")
def ring() -> tuple[rd.Setup, Profile, Counter]:
    setup, profile = rendered_profile("ring")
    return setup, profile, Counter(profile)


@functools.lru_cache(maxsize=16)
def rendered_counter(name: str) -> tuple[rd.Setup, Counter]:
    """A counter for a named rendered setup, built once per session."""
    setup, profile = rendered_profile(name)
    return setup, Counter(profile)


@pytest.fixture(scope="session")
def calib_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A calibration folder in the contract's layout, rendered."""
    folder = tmp_path_factory.mktemp("calib")
    setup = scenes.condition("ring", SIZE)
    empty, shots = scenes.calibration_set(setup, seed=5)
    cv2.imwrite(str(folder / "empty.png"), empty)
    for colour, n, img in shots:
        cv2.imwrite(str(folder / f"{colour}-{n}.jpg"), img)
    return folder


def drop(
    setup: rd.Setup,
    seed: int,
    counts: dict[str, int],
    style: str = "scatter",
    tilted: float = 0.0,
    stacked: float = 0.0,
    shift_mm: float = 0.0,
) -> tuple[np.ndarray, rd.Truth]:
    """Render one drop (optionally with the tray nudged since calibration)."""
    rng = np.random.default_rng(seed)
    cubes = scenes.random_drop(setup, rng, counts, style, tilted=tilted, stacked=stacked)
    at = scenes.drop_setup(setup, rng, shift_mm) if shift_mm else setup
    return rd.render(at, cubes, seed=seed)
