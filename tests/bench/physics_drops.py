"""Tower drops settled by a physics engine (pybullet), for the vision benchmark.

``vision.scenes`` places cubes by rule (piles, rows, cubes on one another at chosen rates); real
cubes pour out of the tower's mouth, slide, bounce and come to rest as physics has them, and that
decides how often a pile hides a cube. Here each cube leaves the mouth in turn at 40-170 cm/s
(slower for a drop that piles up at the mouth), the engine settles them in the tray, and the
resting poses go to :func:`vision.render.render` like any other drop.

Units inside the engine are centimetres, grams and seconds: a 1 cm cube is well inside what the
engine's contact margins handle, where metres would make it a speck.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence

import numpy as np
import pybullet as pb

from vision import scenes
from vision.render import Cube, Setup

GRAVITY = 981.0
"""cm/s^2."""
STEP = 1.0 / 960.0
"""Seconds per engine step: a cube at 170 cm/s moves under a fifth of its edge per step."""
SETTLE_SPEED = 0.3
"""cm/s (and rad/s) under which every cube counts as at rest."""
MAX_SECONDS = 5.0
SPEEDS = {"spread": (40.0, 170.0), "cluster": (25.0, 80.0)}
"""How fast (cm/s) cubes leave the mouth in each kind of drop: ``spread`` ones scatter over the
tray; in ``cluster`` ones most stop together near the mouth."""
MODES = tuple(SPEEDS)


def _box(client: int, half: Sequence[float], pos: Sequence[float], friction: float) -> None:
    shape = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=list(half), physicsClientId=client)
    body = pb.createMultiBody(0, shape, basePosition=list(pos), physicsClientId=client)
    pb.changeDynamics(body, -1, lateralFriction=friction, restitution=0.5,
                      physicsClientId=client)


def _tray(client: int, setup: Setup) -> None:
    """Floor, reaching past the walls (the table, and the chute past the mouth), and four walls,
    the -x one opened by the mouth."""
    tw, th = (v / 10 for v in setup.tray_mm)
    wall, thick = setup.wall_mm / 10, setup.wall_thick_mm / 10
    _box(client, (tw / 2 + thick + 20, th / 2 + thick + 20, 0.5), (0, 0, -0.5), 0.55)
    long_half = (tw / 2 + thick, thick / 2, wall / 2)
    for sy in (-1, 1):
        _box(client, long_half, (0, sy * (th / 2 + thick / 2), wall / 2), 0.4)
    _box(client, (thick / 2, th / 2, wall / 2), (tw / 2 + thick / 2, 0, wall / 2), 0.4)
    mouth = min(setup.mouth_mm / 10, th)
    side = (th - mouth) / 2
    if side > 0:
        for sy in (-1, 1):
            _box(client, (thick / 2, side / 2, wall / 2),
                 (-tw / 2 - thick / 2, sy * (th / 2 - side / 2), wall / 2), 0.4)


def settle(
    setup: Setup, rng: np.random.Generator, counts: dict[str, int], mode: str = "spread"
) -> list[Cube]:
    """The cubes of one drop as they come to rest in the tray. Cubes that leave the tray's floor
    and rim are lost, as they can be from a real tray, and so are cubes the camera does not see
    (a camera set close sees only part of the floor)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    colours = [c for c, n in counts.items() for _ in range(n)]
    rng.shuffle(colours)
    client = pb.connect(pb.DIRECT)
    try:
        pb.setGravity(0, 0, -GRAVITY, physicsClientId=client)
        pb.setPhysicsEngineParameter(fixedTimeStep=STEP, numSolverIterations=30,
                                     physicsClientId=client)
        _tray(client, setup)
        return _pour(client, setup, rng, colours, mode)
    finally:
        pb.disconnect(client)


def _pour(
    client: int, setup: Setup, rng: np.random.Generator, colours: list[str], mode: str
) -> list[Cube]:
    tw = setup.tray_mm[0] / 10
    mouth = (setup.mouth_mm or 70.0) / 10
    slow, fast = SPEEDS[mode]
    bodies: list[tuple[int, str, float]] = []
    gap = int(rng.uniform(0.02, 0.06) / STEP)  # steps between cubes leaving the mouth
    steps, quiet = 0, 0
    while steps * STEP < MAX_SECONDS + gap * STEP * len(colours):
        k = len(bodies)
        if k < len(colours) and steps == k * gap:
            edge = setup.cube_mm / 10 * (1 + rng.uniform(-setup.cube_variation,
                                                          setup.cube_variation))
            shape = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=[edge / 2] * 3,
                                            physicsClientId=client)
            pos = (-tw / 2 + edge, rng.uniform(-0.35, 0.35) * mouth, rng.uniform(0.6, 2.0))
            orn = pb.getQuaternionFromEuler(list(rng.uniform(0, 2 * math.pi, 3)))
            body = pb.createMultiBody(0.6 * edge**3, shape, basePosition=pos,
                                      baseOrientation=orn, physicsClientId=client)
            pb.changeDynamics(body, -1, lateralFriction=0.45, restitution=0.35,
                              rollingFriction=0.001, spinningFriction=0.001,
                              linearDamping=0.04, angularDamping=0.04, physicsClientId=client)
            speed, ang = rng.uniform(slow, fast), rng.uniform(-1.0, 1.0)
            pb.resetBaseVelocity(body, [speed * math.cos(ang), speed * math.sin(ang), 0],
                                 list(rng.normal(0, 10, 3)), physicsClientId=client)
            bodies.append((body, colours[k], edge))
        pb.stepSimulation(physicsClientId=client)
        steps += 1
        if len(bodies) == len(colours) and steps % 48 == 0:
            moving = max((max(map(abs, v)) + max(map(abs, w)) for v, w in (
                pb.getBaseVelocity(b, physicsClientId=client) for b, _, _ in bodies)), default=0)
            quiet = quiet + 1 if moving < SETTLE_SPEED else 0
            if quiet >= 4:
                break
    cubes = []
    outer_x, outer_y = (v / 2 + setup.wall_thick_mm for v in setup.tray_mm)
    past_mouth = setup.chute_mm - setup.wall_thick_mm if setup.mouth_mm else 0.0
    for body, colour, edge in bodies:
        pos, orn = pb.getBasePositionAndOrientation(body, physicsClientId=client)
        x, y, z = (v * 10 for v in pos)
        if z < 0 or abs(y) > outer_y or not -outer_x - past_mouth <= x <= outer_x:
            continue  # off the tray (its rim included) and the chute
        rot = np.array(pb.getMatrixFromQuaternion(orn)).reshape(3, 3)
        upright = float(np.abs(rot[2]).max())  # cosine of the nearest face normal to vertical
        pose = "flat" if upright > math.cos(math.radians(8)) else "tilted"
        cubes.append(Cube(colour, (x, y, z), tuple(tuple(r) for r in rot.tolist()),
                          edge * 10, pose))
    return _in_view(setup, cubes)


def _in_view(setup: Setup, cubes: list[Cube]) -> list[Cube]:
    if not cubes:
        return cubes
    seen = scenes.in_view(setup, np.array([c.centre for c in cubes]))
    return [c for c, ok in zip(cubes, seen, strict=True) if ok]


def bench_drops(
    name: str, seed: int, size: tuple[int, int] | None = None
) -> Iterator[scenes.BenchDrop]:
    """A named setup's benchmark drops settled by physics, in order, without end: the first
    empty, then 0-40 cubes, a third of the drops slow enough to pile up at the mouth."""
    setup = scenes.condition(name, size)
    salt = scenes.setup_salt(name)
    rng = np.random.default_rng([seed, salt, 7])
    for k in itertools.count():
        counts = scenes.random_counts(rng, int(rng.integers(0, 41)) if k else 0)
        mode = MODES[int(k % 3 == 1)]
        at = scenes.drop_setup(setup, rng)
        cubes = settle(at, rng, counts, mode)
        yield scenes.BenchDrop(k, mode, at, cubes, seed * 100_000 + salt + k)
