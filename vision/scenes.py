"""What the renderer is asked to draw: where a drop's cubes come to rest (scattered, in piles, in
flush rows, lying on one another), the calibration photos of a setup, and the named setups (trays,
lights, cameras) the counter must handle."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from vision.profile import COLOURS
from vision.render import (
    UNIT_CUBE,
    Camera,
    Cube,
    Light,
    Setup,
    Truth,
    render,
    rot_x,
    rot_y,
    rot_z,
    to_world,
)


def pose_rotation(rng: np.random.Generator, pose: str) -> tuple[np.ndarray, float]:
    """A rotation for a resting pose and the height of the cube's centre (in edges)."""
    yaw = rot_z(rng.uniform(0, 2 * math.pi))
    if pose == "edge":
        return yaw @ rot_x(math.radians(rng.uniform(30, 45))), math.sqrt(2) / 2
    if pose == "corner":
        tilt = rot_x(math.radians(45)) @ rot_y(math.atan(1 / math.sqrt(2)))
        r = yaw @ tilt
        return r, float(np.abs(UNIT_CUBE @ r.T)[:, 2].max())
    if pose == "lean":
        r = yaw @ rot_x(math.radians(rng.uniform(12, 28)))
        return r, float(np.abs(UNIT_CUBE @ r.T)[:, 2].max())
    return yaw, 0.5


def make_cube(
    setup: Setup,
    rng: np.random.Generator,
    colour: str,
    x: float,
    y: float,
    pose: str = "flat",
    z_base: float = 0.0,
) -> Cube:
    """A cube of ``colour`` resting at (x, y) on a surface at height ``z_base``."""
    edge = setup.cube_mm * (1 + rng.uniform(-setup.cube_variation, setup.cube_variation))
    rot, hz = pose_rotation(rng, pose)
    return Cube(
        colour, (x, y, z_base + hz * edge), tuple(tuple(r) for r in rot.tolist()), edge, pose
    )


def placement_area(setup: Setup) -> tuple[float, float]:
    """Width and depth (mm) of the centred part of the floor the camera sees whole.

    Usually the whole floor; a camera set closer (or with a narrower view) sees less of it, and
    cubes out of the picture cannot be counted, so drops (and calibration photos) stay in view.
    """
    tw, th = setup.tray_mm
    for f in np.linspace(1.0, 0.3, 36):
        ax, ay = tw / 2 * f, th / 2 * f
        pts = np.array([[sx * ax, sy * ay, 0.0] for sx in (-1, 0, 1) for sy in (-1, 0, 1)])
        if in_view(setup, pts).all():
            return float(2 * ax), float(2 * ay)
    return tw * 0.3, th * 0.3


def in_view(setup: Setup, pts: np.ndarray) -> np.ndarray:
    """Which tray points (N x 3) the camera sees at least a cube's width inside its frame."""
    uv = Camera(setup).project(to_world(setup, pts))
    pad = setup.cube_mm * setup.px_per_mm
    w, h = setup.size
    return (uv[:, 0] >= pad) & (uv[:, 1] >= pad) & (uv[:, 0] <= w - pad) & (uv[:, 1] <= h - pad)


def _off_floor(
    setup: Setup, x: float, y: float, margin: float, area: tuple[float, float] | None = None
) -> bool:
    """Whether a cube centred at (x, y) would not rest on the floor in view (or in the tray's
    mouth, where the chute meets it: cubes stop there half on the chute)."""
    tw, th = area or setup.tray_mm
    if abs(y) <= th / 2 - margin and abs(x) <= tw / 2 - margin:
        return False
    whole = tw >= setup.tray_mm[0] - 1e-6  # the mouth is in view only when all the floor is
    in_mouth = abs(y) <= setup.mouth_mm / 2 - margin and x >= -tw / 2 - setup.wall_thick_mm
    return not (setup.mouth_mm > 0 and whole and in_mouth and x <= tw / 2 - margin)


def _free(placed: list[tuple[float, float, float]], x: float, y: float, r: float) -> bool:
    return all((x - px) ** 2 + (y - py) ** 2 >= (r + pr) ** 2 for px, py, pr in placed)


def random_drop(
    setup: Setup,
    rng: np.random.Generator,
    counts: dict[str, int],
    style: str = "scatter",
    tilted: float = 0.1,
    stacked: float = 0.0,
) -> list[Cube]:
    """Cubes for a drop: ``scatter`` (apart), ``cluster`` (touching piles), ``rows`` (flush rows
    and 2x2 blocks). ``tilted`` is the share on an edge, a corner or leaning; ``stacked`` the share
    lying on another cube."""
    colours = [c for c, n in counts.items() for _ in range(n)]
    rng.shuffle(colours)
    tw, th = area = placement_area(setup)
    e = setup.cube_mm
    margin = e * 0.9
    placed: list[tuple[float, float, float]] = []
    cubes: list[Cube] = []
    centres = [
        (rng.uniform(-tw / 2 + 3 * e, tw / 2 - 3 * e), rng.uniform(-th / 2 + 3 * e, th / 2 - 3 * e))
        for _ in range(1 + len(colours) // 8)
    ]
    if setup.mouth_mm > 0 and tw >= setup.tray_mm[0] - 1e-6:  # they pile up at the mouth
        centres[0] = (-tw / 2 + rng.uniform(0.5, 3) * e, rng.uniform(-0.3, 0.3) * setup.mouth_mm)
    i = 0
    while i < len(colours):
        colour = colours[i]
        pose = "flat"
        if rng.random() < tilted:
            pose = str(rng.choice(["edge", "corner", "lean"], p=[0.5, 0.15, 0.35]))
        if style == "rows" and i + 1 < len(colours) and rng.random() < 0.7:
            block = int(rng.choice([2, 3, 4]))
            group = colours[i : i + block]
            yaw = rng.uniform(0, 2 * math.pi)
            for _ in range(200):
                cx, cy = (
                    rng.uniform(-tw / 2 + 2 * e, tw / 2 - 2 * e),
                    rng.uniform(-th / 2 + 2 * e, th / 2 - 2 * e),
                )
                if _free(placed, cx, cy, e * 1.5):
                    break
            offsets = (
                [(0, 0), (1, 0), (0, 1), (1, 1)] if block == 4 else [(k, 0) for k in range(block)]
            )
            gap = e * (1.0 + rng.uniform(0.0, 0.04))
            for col, (ox, oy) in zip(group, offsets, strict=False):
                dx = (ox - 0.5) * gap
                dy = (oy - 0.5 * (block == 4)) * gap
                x = cx + dx * math.cos(yaw) - dy * math.sin(yaw)
                y = cy + dx * math.sin(yaw) + dy * math.cos(yaw)
                edge = e * (1 + rng.uniform(-setup.cube_variation, setup.cube_variation))
                rot = rot_z(yaw + rng.uniform(-0.03, 0.03))
                cubes.append(
                    Cube(col, (x, y, edge / 2), tuple(tuple(r) for r in rot.tolist()), edge, "flat")
                )
                placed.append((x, y, e * 0.72))
            i += len(group)
            continue
        if cubes and rng.random() < stacked:
            base = cubes[int(rng.integers(len(cubes)))]
            if base.pose == "flat" and base.centre[2] < e:
                off = rng.uniform(-0.35, 0.35, 2) * e
                cubes.append(
                    make_cube(
                        setup,
                        rng,
                        colour,
                        base.centre[0] + off[0],
                        base.centre[1] + off[1],
                        "flat",
                        base.centre[2] + base.edge / 2,
                    )
                )
                i += 1
                continue
        radius = e * (0.72 if pose == "flat" else 0.9)
        for attempt in range(400):
            if style == "cluster":
                cx, cy = centres[int(rng.integers(len(centres)))]
                # Next to a cube already in the pile (touching), or at the pile's centre.
                near = [
                    c
                    for c in cubes
                    if (c.centre[0] - cx) ** 2 + (c.centre[1] - cy) ** 2 < (6 * e) ** 2
                ]
                if near and attempt < 300:
                    anchor = near[int(rng.integers(len(near)))]
                    ang = rng.uniform(0, 2 * math.pi)
                    dist = (
                        e
                        * rng.uniform(0.95, 1.25)
                        * (1.2 if pose != "flat" or anchor.pose != "flat" else 1.0)
                    )
                    x, y = (
                        anchor.centre[0] + dist * math.cos(ang),
                        anchor.centre[1] + dist * math.sin(ang),
                    )
                else:
                    x, y = (
                        cx + rng.normal(0, e * (1 + attempt / 50)),
                        cy + rng.normal(0, e * (1 + attempt / 50)),
                    )
                r = radius * 0.66
            else:
                x, y = (
                    rng.uniform(-tw / 2 + margin, tw / 2 - margin),
                    rng.uniform(-th / 2 + margin, th / 2 - margin),
                )
                r = radius * 1.25
            if _off_floor(setup, x, y, margin, area):
                continue
            if _free(placed, x, y, r):
                break
        cubes.append(make_cube(setup, rng, colour, x, y, pose))
        placed.append((x, y, radius))
        i += 1
    return cubes


def calibration_set(
    setup: Setup, seed: int = 0, per_colour: int = 6
) -> tuple[np.ndarray, list[tuple[str, int, np.ndarray]]]:
    """An empty tray and one photo per colour of ``per_colour`` cubes set apart, flat."""
    rng = np.random.default_rng(seed)
    empty, _ = render(setup, [], seed=seed)
    shots = []
    for k, colour in enumerate(COLOURS):
        cubes = random_drop(setup, rng, {colour: per_colour}, "scatter", tilted=0.0)
        img, _ = render(setup, cubes, seed=seed + 101 + k)
        shots.append((colour, per_colour, img))
    return empty, shots


# --- named setups ---------------------------------------------------------------------------

CONDITIONS: dict[str, dict[str, Any]] = {
    "ring": {},
    "tilt12": {"tilt_deg": 12.0, "tilt_azim_deg": 35.0},
    "light-tray": {"floor_rgb": (0.88, 0.87, 0.84), "wall_rgb": (0.8, 0.8, 0.78)},
    "pale-tray": {"floor_rgb": (0.8, 0.78, 0.74), "wall_rgb": (0.7, 0.7, 0.68)},
    "dark-tray": {
        "floor_rgb": (0.13, 0.13, 0.14),
        "wall_rgb": (0.1, 0.1, 0.11),
        "table_rgb": (0.3, 0.3, 0.3),
    },
    "warm-cast": {
        "cast": (1.18, 1.0, 0.72),
        "lights": tuple(Light(a, 60, 0.16, (1.0, 0.85, 0.6), 0.5) for a in (30, 120, 210, 300)),
    },
    "cool-cast": {"cast": (0.8, 0.97, 1.2)},
    "dim-noisy": {"exposure": 0.42, "read_noise": 4.5, "shot_noise": 0.12, "blur_px": 0.9},
    "harsh-light": {
        "lights": (Light(40, 48, 1.0, shadow=0.85, penumbra_mm=0.6, spec=0.35),),
        "ambient": 0.22,
    },
    # A desk lamp in a dark room: one hard light, crisp shadows, matte paint that still shines.
    "desk-lamp": {
        "lights": (Light(40, 48, 1.0, shadow=0.85, penumbra_mm=0.6, spec=0.06),),
        "ambient": 0.22,
    },
    # A lamp beside the table: the far side of the tray gets 40% of the light the near side gets.
    "side-lamp": {"light_falloff": 0.6, "falloff_azim_deg": 20.0},
    "wood-tray": {
        "floor_rgb": (0.62, 0.45, 0.28),
        "floor_texture": "wood",
        "wall_rgb": (0.5, 0.36, 0.22),
    },
    "felt-tray": {"floor_rgb": (0.16, 0.38, 0.22), "floor_texture": "felt"},
    "red-felt": {"floor_rgb": (0.5, 0.13, 0.11), "floor_texture": "felt"},
    "blur-jpeg": {"blur_px": 1.6, "jpeg": 55},
    "small-camera": {"size": (640, 480), "px_per_mm": 1.95, "read_noise": 2.5},
    "wide-lens": {"cam_height_mm": 260.0, "px_per_mm": 3.9},
    "mouth": {"mouth_mm": 70.0, "tilt_deg": 5.0, "tilt_azim_deg": 200.0},
    "tall-640": {"size": (640, 480), "px_per_mm": 1.6, "cam_height_mm": 330.0, "mouth_mm": 70.0},
    # A 16:9 camera whose frame the tray fills from top to bottom: its rim lies at the frame's
    # edge and slides in and out of view as the tray moves.
    "wide-frame": {"size": (1920, 1080), "px_per_mm": 5.85},
    # A camera further from the tray, or wider: cubes about 25 pixels across at 1280 x 960 (read
    # at full size or at 3/4, see calibrate.LARGEST_SIDE), and the tray with its rim about half
    # the frame (only that part is read).
    "far-camera": {"px_per_mm": 2.3},
}
"""Setups the counter must handle, as changes to the default (a diffuse ring light over a
mid-grey tray). Drops in these are counted after calibrating on the same setup; ``shift_mm`` in
:func:`drop_setup` moves the tray a little between calibration and drop."""


def condition(name: str, size: tuple[int, int] | None = None) -> Setup:
    """A named setup; ``size`` renders it at another resolution (same field of view)."""
    changes = dict(CONDITIONS[name])
    setup = replace(Setup(), **changes)
    if size is not None and size != setup.size:
        setup = replace(setup, size=size, px_per_mm=setup.px_per_mm * size[0] / setup.size[0])
    return setup


def drop_setup(setup: Setup, rng: np.random.Generator, shift_mm: float = 3.0) -> Setup:
    """The setup as it is at a later drop: the tray nudged by up to ``shift_mm`` and ~1 degree."""
    ang = rng.uniform(0, 2 * math.pi)
    dist = rng.uniform(0, shift_mm)
    return replace(
        setup,
        tray_shift_mm=(dist * math.cos(ang), dist * math.sin(ang)),
        tray_rot_deg=float(rng.uniform(-1, 1)),
    )


def setup_salt(name: str) -> int:
    """A number of a setup's own, mixed into its drops' seeds so setups fail independently."""
    return sum(ord(ch) * (i + 1) for i, ch in enumerate(name))


@dataclass(frozen=True)
class BenchDrop:
    """One drop of a named setup's benchmark sequence, ready to render."""

    index: int
    style: str
    setup: Setup
    """The setup as the tray lies at this drop (nudged since calibration)."""
    cubes: list[Cube]
    seed: int
    """The render's seed (its noise, grain and lighting jitter)."""


def bench_drops(
    name: str,
    seed: int,
    piles: tuple[float, float] = (0.15, 0.04),
    size: tuple[int, int] | None = None,
) -> Iterator[BenchDrop]:
    """The benchmark's drops of a named setup, in order, without end: the first empty, then 0-40
    cubes scattered, in piles and in flush rows by turns, each setup from its own stream (see
    :func:`setup_salt`); in piles, ``piles`` are the shares of cubes that tilt and that lie on
    another (cubes apart lie flat)."""
    setup = condition(name, size)
    salt = setup_salt(name)
    rng = np.random.default_rng([seed, salt])
    styles = ("scatter", "cluster", "rows")
    for k in itertools.count():
        counts = random_counts(rng, int(rng.integers(0, 41)) if k else 0)
        style = styles[k % 3]
        tilted, stacked = (0.0, 0.0) if style == "scatter" else piles
        cubes = random_drop(setup, rng, counts, style, tilted=tilted, stacked=stacked)
        yield BenchDrop(k, style, drop_setup(setup, rng), cubes, seed * 100_000 + salt + k)


def random_counts(rng: np.random.Generator, total: int) -> dict[str, int]:
    """``total`` cubes spread over the colours unevenly (a few colours dominate, as in play)."""
    weights = rng.dirichlet(np.full(len(COLOURS), 0.6))
    picks = rng.choice(len(COLOURS), size=total, p=weights)
    return {c: int((picks == i).sum()) for i, c in enumerate(COLOURS)}


def render_drop(
    counts: dict[str, int],
    setup: Setup | None = None,
    seed: int = 0,
    style: str = "cluster",
) -> tuple[np.ndarray, Truth]:
    """One simulated tower drop of ``counts`` (what simulation mode shows the real counter).

    Cubes apart lie flat; in piles some lean or tilt, as they do out of a tower.
    """
    setup = setup or Setup()
    for colour, n in counts.items():
        if colour not in COLOURS or n < 0:
            raise ValueError(f"bad cube count {colour}={n}")
    rng = np.random.default_rng(seed)
    tilted = 0.0 if style == "scatter" else 0.12
    cubes = random_drop(setup, rng, counts, style, tilted=tilted, stacked=0.0)
    return render(setup, cubes, seed=seed)
