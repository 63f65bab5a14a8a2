"""Drops drawn the way the shared sample's photos were: poured and settled by physics, then
rendered by pybullet's tiny renderer after a rig description (the sample's ``rig.json``).

:mod:`vision.render` draws the bench's rendered setups with a lighting model of its own; the
sample's generator drew with pybullet's ER_TINY_RENDERER (flat-shaded bevelled faces, Phong light
from each lamp, ambient occlusion, soft cast shadows, then the camera's exposure, white balance,
vignette, blur, noise, sharpening and JPEG). Unseen rigs drawn that way differ from ours where the
two models differ (how a white cube's sides shade against the tray, how dark a cast shadow is), so
rigs drawn here test the counter from a second, independent side.

    python -m tests.bench.rig_photos OUT --rig NAME [--drops N] [--seed S] [--jobs J]

writes ``OUT`` in the samples' layout (``calib/``, ``tests/NNN.jpg`` + ``NNN.json``) for
``python -m tests.bench.bench_vision OUT``. ``NAME`` is one of :data:`RIGS` or a ``rig.json``.
About 10 s a 1280 x 960 photo (four lamps, drawn at twice the size and reduced, as the sample's).

Shadows are drawn here, not by the renderer: its shadow map dims shadowed light only to 0.8 and
lands shadows a few millimetres off the cube that casts them. Every box (cube, wall) casts its
outline onto the floor along each lamp's direction, softened by the lamp's penumbra.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import math
import multiprocessing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pybullet as pb

from tests.bench.physics_drops import settle
from vision import COLOURS, scenes
from vision.render import PAINTS, UNIT_CUBE, Cube, Setup, cube_corners

Rig = dict[str, Any]

RING: Rig = {
    "desc": "LED ring around the lens: diffuse neutral light from above, mid-grey tray, "
    "straight-down camera (the shared sample's rig)",
    "res": [1280, 960],
    "cam_dist": 40.0,
    "fov_deg": 34.12,
    "tilt_deg": 0.0,
    "tilt_azim": 0.0,
    "roll_deg": 0.0,
    "jitter_cm": 0.3,
    "jitter_roll_deg": 1.0,
    "lights": [
        {"elev": 62.0, "azim": a, "color": [1.0, 1.0, 1.0], "intensity": 0.17, "shadow": 0.55,
         "penumbra": 5.0, "spec": 0.06}
        for a in (30.0, 120.0, 210.0, 300.0)
    ],
    "ambient": 0.44,
    "ambient_color": [1.0, 1.0, 1.0],
    "ao": 0.45,
    "floor": [0.5, 0.5, 0.5],
    "wall": [0.4, 0.4, 0.41],
    "table": [0.2, 0.2, 0.21],
    "post": {"exposure": 1.02, "wb": [1.0, 1.0, 1.0], "vignette": 0.12, "blur": 0.7,
             "read_noise": 1.6, "shot_noise": 0.05, "sharpen": 0.35, "jpeg": 90, "gamma": 1.0,
             "barrel": 0.0},
    "tray_cm": {"floor": [24.0, 18.0], "wall_thickness": 0.8, "wall_height": 2.2,
                "mouth_width": 7.0},
    "cube": {"edge_mm": 10.0, "edge_variation": 0.05, "bevel_frac": 0.06, "paint_spread": 0.15,
             "grain": 0.08, "sheen": 0.028,
             "paint_srgb": {c: list(v) for c, v in PAINTS.items()}},
}
"""The shared sample's rig (its ``rig.json`` params), in this module's layout."""


def from_rig_json(path: Path) -> Rig:
    """A rig from a sample's ``rig.json`` (its camera, lamps, colours and camera processing), or
    from one :func:`write_folder` wrote (this module's layout)."""
    data = json.loads(path.read_text())
    rig = copy.deepcopy(RING)
    if "params" not in data:
        return rig | data
    params = data["params"]
    for key in ("res", "cam_dist", "fov_deg", "tilt_deg", "tilt_azim", "roll_deg", "jitter_cm",
                "jitter_roll_deg", "ambient", "ambient_color", "ao"):
        rig[key] = params.get(key, rig[key])
    rig["lights"] = [_lamp(lamp["elev"], lamp["azim"], lamp["intensity"], lamp["shadow"],
                           lamp["color"], lamp.get("penumbra", 5.0), lamp.get("spec", 0.1))
                     for lamp in params["lights"]]
    for part in ("floor", "wall", "table"):
        rig[part] = params[part]["color"]
    rig["post"].update(params["post"])
    rig["tray_cm"].update({k: v for k, v in data.get("tray_cm", {}).items() if k in rig["tray_cm"]})
    rig["cube"]["paint_srgb"].update(data.get("cube", {}).get("paint_srgb", {}))
    return rig


def _lamp(elev: float, azim: float, intensity: float, shadow: float, colour: Sequence[float]
          = (1.0, 1.0, 1.0), penumbra: float = 5.0, spec: float = 0.1) -> dict[str, Any]:
    return {"elev": elev, "azim": azim, "color": list(colour), "intensity": intensity,
            "shadow": shadow, "penumbra": penumbra, "spec": spec}


def _with(**changes: Any) -> Callable[[], Rig]:
    def make() -> Rig:
        rig = copy.deepcopy(RING)
        for key, value in changes.items():
            if isinstance(value, dict) and isinstance(rig.get(key), dict):
                rig[key].update(value)
            else:
                rig[key] = value
        return rig
    return make


RIGS: dict[str, Callable[[], Rig]] = {
    "ring": _with(),
    "white-floor": _with(floor=[0.85, 0.85, 0.85], wall=[0.8, 0.8, 0.8]),
    "pale-floor": _with(floor=[0.7, 0.7, 0.68]),
    "dark-floor": _with(floor=[0.12, 0.12, 0.13], wall=[0.15, 0.15, 0.16]),
    "wood-floor": _with(floor=[0.55, 0.4, 0.26]),
    "green-felt": _with(floor=[0.12, 0.38, 0.2]),
    "low-lamp": _with(lights=[_lamp(35.0, 30.0, 0.5, 0.9)], ambient=0.2, post={"exposure": 2.0}),
    "desk-lamp": _with(lights=[_lamp(50.0, 150.0, 0.45, 0.75, (1.0, 0.9, 0.75)),
                               _lamp(70.0, 330.0, 0.15, 0.4)], ambient=0.32),
    "window": _with(lights=[_lamp(40.0, 90.0, 0.35, 0.6, (0.9, 0.95, 1.05), penumbra=12.0)],
                    ambient=0.42, post={"wb": [0.95, 1.0, 1.08]}),
    "warm-dim": _with(lights=[_lamp(62.0, a, 0.1, 0.55, (1.0, 0.85, 0.6)) for a in (45, 225)],
                      ambient=0.3, ambient_color=[1.0, 0.9, 0.75],
                      post={"exposure": 0.9, "read_noise": 3.5, "shot_noise": 0.08}),
    "tilt-640": _with(res=[640, 480], tilt_deg=10.0, tilt_azim=60.0),
    "tilt-12": _with(tilt_deg=12.0, tilt_azim=200.0, roll_deg=3.0),
    "close": _with(cam_dist=32.0, post={"blur": 1.1, "jpeg": 80}),
    "phone": _with(res=[1024, 768], cam_dist=46.0, tilt_deg=6.0, tilt_azim=300.0,
                   post={"sharpen": 0.8, "jpeg": 75, "read_noise": 2.5, "vignette": 0.25}),
    "hd-wide": _with(res=[1920, 1080], fov_deg=28.0, tilt_deg=4.0, tilt_azim=200.0),
    "hd-cool": _with(res=[1920, 1080], tilt_deg=8.0, tilt_azim=100.0,
                     post={"wb": [0.85, 1.0, 1.2], "exposure": 0.8, "read_noise": 3.0}),
    "webcam": _with(res=[1280, 720], fov_deg=30.0, tilt_deg=3.0, tilt_azim=20.0,
                    post={"jpeg": 60, "read_noise": 4.0, "blur": 1.2, "sharpen": 0.8,
                          "vignette": 0.3}),
    "wide-lens": _with(cam_dist=24.0, fov_deg=54.2, tilt_deg=5.0, tilt_azim=250.0,
                       post={"barrel": 0.08, "vignette": 0.35}),
    "worn": _with(cube={"paint_spread": 0.25, "grain": 0.12, "edge_variation": 0.08}),
    "small-cubes": _with(res=[1024, 768], cube={"edge_mm": 8.0}),
    "wide-camera": _with(fov_deg=50.8),
    "lamp-phone": _with(lights=[_lamp(50.0, 150.0, 0.45, 0.75, (1.0, 0.9, 0.75)),
                                _lamp(70.0, 330.0, 0.15, 0.4)], ambient=0.32,
                        res=[1024, 768], cam_dist=46.0, tilt_deg=10.0, tilt_azim=120.0,
                        post={"sharpen": 0.8, "jpeg": 60, "read_noise": 3.0, "vignette": 0.25}),
}
"""Rigs unlike the sample's in one way each (tray, lamps, camera), to be drawn the same way."""

SUPERSAMPLE = 2
TABLE_DROP_CM = 1.0
"""How far below the tray's floor the table lies (the tray's base)."""


# --- geometry -------------------------------------------------------------------------------


def _bevelled_cube(half: float, bevel: float) -> tuple[list, list, list]:
    """Vertices, triangle indices and normals of a cube with chamfered edges and corners, each
    face its own vertices (flat shading), wound counter-clockwise seen from outside."""
    inner = half - bevel
    faces: list[tuple[np.ndarray, list[np.ndarray]]] = []
    for axis in range(3):
        for s in (-1, 1):
            n = np.zeros(3)
            n[axis] = s
            a, b = (axis + 1) % 3, (axis + 2) % 3
            pts = []
            for u, v in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                p = np.zeros(3)
                p[axis], p[a], p[b] = s * half, u * inner, v * inner
                pts.append(p)
            faces.append((n, pts))
    for k in range(3):  # edges along axis k
        i, j = (k + 1) % 3, (k + 2) % 3
        for si, sj in itertools.product((-1, 1), repeat=2):
            n = np.zeros(3)
            n[i], n[j] = si, sj
            pts = []
            for sk in (-1, 1):
                for (hi, hj) in ((half, inner), (inner, half)):
                    p = np.zeros(3)
                    p[i], p[j], p[k] = si * hi, sj * hj, sk * inner
                    pts.append(p)
            faces.append((n / math.sqrt(2), pts))
    for signs in itertools.product((-1, 1), repeat=3):
        sv = np.array(signs, float)
        pts = []
        for axis in range(3):
            p = sv * inner
            p[axis] = sv[axis] * half
            pts.append(p)
        faces.append((sv / math.sqrt(3), pts))
    verts, idx, norms = [], [], []
    for n, pts in faces:
        centre = np.mean(pts, axis=0)
        u = pts[0] - centre
        u /= np.linalg.norm(u)
        w = np.cross(n, u)
        ordered = sorted(pts, key=lambda p: math.atan2((p - centre) @ w, (p - centre) @ u))
        base = len(verts)
        verts += [p.tolist() for p in ordered]
        norms += [n.tolist()] * len(ordered)
        idx += [x for t in range(1, len(ordered) - 1) for x in (base, base + t, base + t + 1)]
    return verts, idx, norms


def _quaternion(rot: np.ndarray) -> list[float]:
    """x, y, z, w of a rotation matrix (Shepperd's method)."""
    m = rot
    t = m[0, 0] + m[1, 1] + m[2, 2]
    if t > 0:
        s = 2 * math.sqrt(t + 1)
        return [(m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4]
    k = int(np.argmax(np.diag(m)))
    i, j = (k + 1) % 3, (k + 2) % 3
    s = 2 * math.sqrt(1 + m[k, k] - m[i, i] - m[j, j])
    q = [0.0, 0.0, 0.0, (m[j, i] - m[i, j]) / s]
    q[k], q[i], q[j] = s / 4, (m[i, k] + m[k, i]) / s, (m[j, k] + m[k, j]) / s
    return q


def _box_corners(centre: Sequence[float], half: Sequence[float]) -> np.ndarray:
    """The 8 corners of an upright box."""
    return np.asarray(centre) + UNIT_CUBE * 2 * np.asarray(half)


class _Scene:
    """The tray, its chute and the cubes as pybullet bodies (metres: the renderer's depth range
    is set for them), and every box's corners for casting shadows (centimetres)."""

    def __init__(self, rig: Rig, cubes: Sequence[Cube], rng: np.random.Generator) -> None:
        self.client = pb.connect(pb.DIRECT)
        self.rng = rng
        self.casters: list[np.ndarray] = []
        self.cube_ids: list[int] = []
        self.cube_corners: list[np.ndarray] = []
        self.cube_outlines: list[np.ndarray] = []
        """Each cube's bevelled mesh points (centimetres): what the camera sees of it alone."""
        tray = rig["tray_cm"]
        tw, th = tray["floor"]
        t, h, mouth = tray["wall_thickness"], tray["wall_height"], tray["mouth_width"]
        drop = TABLE_DROP_CM
        self._box((60, 45, 0.5), (0, 0, -drop - 0.5), rig["table"])
        self.floor = self._box((tw / 2, th / 2, drop / 2), (0, 0, -drop / 2), rig["floor"])
        half_h, mid = (h + drop) / 2, (h - drop) / 2  # walls stand on the table
        side = (th - mouth) / 2
        for sy in (-1, 1):
            self._box((tw / 2 + t, t / 2, half_h), (0, sy * (th / 2 + t / 2), mid), rig["wall"])
            self._box((t / 2, side / 2, half_h), (-tw / 2 - t / 2, sy * (th / 2 - side / 2), mid),
                      rig["wall"])
        self._box((t / 2, th / 2, half_h), (tw / 2 + t / 2, 0, mid), rig["wall"])
        wood = [0.42, 0.27, 0.15]
        self._box((6, mouth / 2, 0.3), (-tw / 2 - t - 6 + 0.5, 0, -0.3), wood)
        for sy in (-1, 1):
            self._box((6, 0.3, 0.9), (-tw / 2 - t - 6 + 0.5, sy * (mouth / 2 + 0.3), 0.3),
                      [0.36, 0.22, 0.12])
        spec = rig["cube"]
        for cube in cubes:
            paint = np.asarray(spec["paint_srgb"][cube.colour], float)
            paint = np.clip(paint * (1 + rng.uniform(-1, 1) * spec["paint_spread"]), 0, 1)
            verts, idx, norms = _bevelled_cube(cube.edge / 2000,  # metres
                                               spec["bevel_frac"] * cube.edge / 1000)
            shape = pb.createVisualShape(pb.GEOM_MESH, vertices=verts, indices=idx, normals=norms,
                                         rgbaColor=[*paint, 1], physicsClientId=self.client)
            rot = np.asarray(cube.rotation, float)
            centre = [v / 10 for v in cube.centre]
            body = pb.createMultiBody(0, -1, shape, basePosition=[v / 100 for v in centre],
                                      baseOrientation=_quaternion(rot), physicsClientId=self.client)
            self.cube_ids.append(body)
            self.cube_corners.append(cube_corners(cube) / 10)
            self.cube_outlines.append(np.asarray(centre) + np.asarray(verts) * 100 @ rot.T)
        self.casters += self.cube_corners

    def _box(self, half: Sequence[float], pos: Sequence[float], rgb: Sequence[float]) -> int:
        """A box (centimetres); one standing above the floor casts a shadow."""
        shape = pb.createVisualShape(pb.GEOM_BOX, halfExtents=[v / 100 for v in half],
                                     rgbaColor=[*rgb, 1], physicsClientId=self.client)
        body = pb.createMultiBody(0, -1, shape, basePosition=[v / 100 for v in pos],
                                  physicsClientId=self.client)
        if pos[2] + half[2] > 0.05:
            self.casters.append(_box_corners(pos, half))
        return body

    def close(self) -> None:
        pb.disconnect(self.client)


def _px_per_cm(rig: Rig) -> float:
    """Pixels a centimetre of floor spans under the camera (at the rig's resolution)."""
    return rig["res"][1] / (2 * rig["cam_dist"] * math.tan(math.radians(rig["fov_deg"] / 2)))


class _Camera:
    """The rig's camera at one shot: pybullet's matrices and the projection of tray points."""

    def __init__(self, rig: Rig, rng: np.random.Generator, scale: int = 1) -> None:
        self.size = (rig["res"][0] * scale, rig["res"][1] * scale)
        jx, jy = rng.uniform(-rig["jitter_cm"], rig["jitter_cm"], 2)
        roll = math.radians(rig["roll_deg"] + rng.uniform(-1, 1) * rig["jitter_roll_deg"])
        tilt, azim = math.radians(rig["tilt_deg"]), math.radians(rig["tilt_azim"])
        target = np.array([jx, jy, 0.0])
        eye = target + rig["cam_dist"] * np.array(
            [math.sin(tilt) * math.cos(azim), math.sin(tilt) * math.sin(azim), math.cos(tilt)])
        self.view = pb.computeViewMatrix((eye / 100).tolist(), (target / 100).tolist(),
                                         [-math.sin(roll), math.cos(roll), 0])
        self.proj = pb.computeProjectionMatrixFOV(rig["fov_deg"], self.size[0] / self.size[1],
                                                  0.05, 2.0)
        self.px_per_cm = scale * _px_per_cm(rig)
        self.matrix = (np.array(self.proj).reshape(4, 4).T @ np.array(self.view).reshape(4, 4).T)

    def project(self, pts_cm: np.ndarray) -> np.ndarray:
        """Pixel positions of world points (N x 3, centimetres)."""
        hom = np.c_[pts_cm / 100, np.ones(len(pts_cm))] @ self.matrix.T
        ndc = hom[:, :2] / hom[:, 3:4]
        w, h = self.size
        return np.c_[(ndc[:, 0] + 1) / 2 * w, (1 - ndc[:, 1]) / 2 * h]

    def shot(self, client: int, **light: Any) -> tuple[np.ndarray, np.ndarray]:
        w, h = self.size
        _, _, rgba, _, seg = pb.getCameraImage(w, h, self.view, self.proj, shadow=0,
                                               renderer=pb.ER_TINY_RENDERER,
                                               physicsClientId=client, **light)
        rgb = np.reshape(np.asarray(rgba, np.uint8), (h, w, 4))[..., :3].astype(np.float32) / 255
        return rgb, np.reshape(np.asarray(seg), (h, w))


# --- drawing --------------------------------------------------------------------------------


def _shadow(scene: _Scene, cam: _Camera, direction: np.ndarray) -> np.ndarray:
    """Where the floor lies in each caster's shadow from a lamp in ``direction`` (1 = shadow)."""
    mask = np.zeros(cam.size[::-1], np.uint8)
    for corners in scene.casters:
        lifted = corners[corners[:, 2] > 0]
        if not len(lifted):
            continue
        ground = lifted - lifted[:, 2:3] / direction[2] * direction
        pts = np.vstack([ground, corners[corners[:, 2] <= 0.05]])
        pix = cam.project(pts)
        hull = cv2.convexHull(np.round(pix * 4).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 1, lineType=cv2.LINE_8, shift=2)
    return mask.astype(np.float32)


def _draw(rig: Rig, scene: _Scene, cam: _Camera) -> tuple[np.ndarray, np.ndarray]:
    """Linear light at the drawing size, and the body seen at each pixel."""
    albedo, seg = cam.shot(scene.client, lightAmbientCoeff=1.0, lightDiffuseCoeff=0.0,
                           lightSpecularCoeff=0.0, lightDirection=[0, 0, 1])
    on_floor = (seg == scene.floor).astype(np.float32)
    # Ambient occlusion: the floor darkens next to cubes and walls, the open sky they hide (in
    # the sample's photos to about 0.58 of the open floor where a cube meets it, over ~7 mm).
    near = cv2.GaussianBlur(1 - on_floor, (0, 0), 0.25 * cam.px_per_cm)
    ao = 1 - rig["ao"] * np.clip(near * 2.4, 0, 1) * on_floor
    # Wood grain: the paint on each cube lighter and darker in streaks.
    cubes = np.isin(seg, scene.cube_ids)
    streaks = cv2.blur(scene.rng.standard_normal(seg.shape).astype(np.float32), (int(
        cam.px_per_cm * 0.5), 1)) * math.sqrt(cam.px_per_cm * 0.5)
    grain = 1 + rig["cube"]["grain"] * np.where(cubes, streaks, 0)
    img = albedo * (rig["ambient"] * ao)[..., None] * np.asarray(rig["ambient_color"], np.float32)
    for lamp in rig["lights"]:
        elev, azim = math.radians(lamp["elev"]), math.radians(lamp["azim"])
        direction = np.array([math.cos(elev) * math.cos(azim), math.cos(elev) * math.sin(azim),
                              math.sin(elev)])
        lit, _ = cam.shot(scene.client, lightAmbientCoeff=0.0, lightDiffuseCoeff=1.0,
                          lightSpecularCoeff=lamp["spec"], lightDirection=direction.tolist(),
                          lightColor=lamp["color"])
        shade = _shadow(scene, cam, direction) * on_floor
        soft = 0.02 * lamp["penumbra"] * cam.px_per_cm
        if soft > 0.5:
            shade = cv2.GaussianBlur(shade, (0, 0), soft) * on_floor
        img += lamp["intensity"] * lit * (1 - lamp["shadow"] * shade)[..., None]
    # Painted wood's sheen: some light comes back off the varnish uncoloured (lone flat black
    # tops in the sample's photos read 27 of 255, not the paint's 19).
    return img * grain[..., None] + np.where(cubes, rig["cube"]["sheen"], 0)[..., None], seg


def _camera_output(rig: Rig, linear: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """What the camera makes of the light: exposure, white balance, vignette, blur, noise,
    sharpening and tone (BGR uint8; JPEG comes when it is written)."""
    post = rig["post"]
    img = linear * (post["exposure"] * np.asarray(post["wb"], np.float32))
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2
    img *= (1 - post["vignette"] * r2 / 2)[..., None]
    if post["blur"] > 0:
        img = cv2.GaussianBlur(img, (0, 0), post["blur"])
    v = np.clip(img, 0, None) ** (1 / post["gamma"]) * 255
    v += rng.standard_normal(v.shape).astype(np.float32) * np.sqrt(
        post["read_noise"] ** 2 + post["shot_noise"] ** 2 * 255 * v)
    if post["sharpen"] > 0:
        v += post["sharpen"] * (v - cv2.GaussianBlur(v, (0, 0), 1.0))
    return np.clip(v[..., ::-1], 0, 255).astype(np.uint8)


def _barrel_source(pts: np.ndarray, size: tuple[int, int], k: float) -> np.ndarray:
    """Where in the lens's undistorted view each point (N x 2 pixels) of the photo comes from,
    under barrel distortion ``k``: radii (over the half diagonal) grow by ``1 + k r^2``, scaled
    so the corners stay in place, so the photo shows the same field, its middle magnified by
    ``1 + k`` and its corners squeezed (a wide-angle lens's look)."""
    centre = np.array(size, np.float64) / 2
    d = (pts - centre) / np.hypot(*centre)
    r2 = (d**2).sum(axis=-1, keepdims=True)
    return centre + (pts - centre) * (1 + k * r2) / (1 + k)


def _barrel_point(pts: np.ndarray, size: tuple[int, int], k: float) -> np.ndarray:
    """Where points (N x 2) of the undistorted view land in the photo (inverse of
    :func:`_barrel_source`, by fixed-point iteration: the map is near the identity)."""
    out = pts.astype(np.float64)
    for _ in range(30):
        out = out + (pts - _barrel_source(out, size, k))
    return out


def _distort(linear: np.ndarray, k: float) -> np.ndarray:
    """The lens's barrel distortion ``k`` applied to a drawn image (see :func:`_barrel_source`)."""
    if k == 0:
        return linear
    h, w = linear.shape[:2]
    grid = np.dstack(np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64)))
    src = _barrel_source(grid, (w, h), k).astype(np.float32)
    return cv2.remap(linear, src[..., 0], src[..., 1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)


def photo(rig: Rig, cubes: Sequence[Cube], rng: np.random.Generator
          ) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """A photo of ``cubes`` in the rig's tray (BGR, before the camera's JPEG: :func:`save`), and
    each cube's truth as the sample's ``NNN.json`` gives it (colour, centre, visible share, on
    the floor or not)."""
    scene = _Scene(rig, cubes, rng)
    try:
        cam = _Camera(rig, rng, SUPERSAMPLE)
        linear, seg = _draw(rig, scene, cam)
    finally:
        scene.close()
    size = tuple(rig["res"])
    barrel = rig["post"].get("barrel", 0.0)  # rigs written before it was drawn had none
    linear = _distort(linear, barrel)
    img = _camera_output(rig, cv2.resize(linear, size, interpolation=cv2.INTER_AREA), rng)
    truth = []
    in_sight = np.bincount(seg[seg >= 0], minlength=max(scene.cube_ids, default=0) + 1)
    for cube, body, corners, points in zip(cubes, scene.cube_ids, scene.cube_corners,
                                           scene.cube_outlines, strict=True):
        alone = np.zeros(seg.shape, np.uint8)
        outline = cv2.convexHull(np.round(cam.project(points)).astype(np.int32))
        cv2.fillConvexPoly(alone, outline, 1)
        seen = float(in_sight[body])
        centre = _barrel_point(cam.project(np.array([[v / 10 for v in cube.centre]])),
                               cam.size, barrel)[0] / SUPERSAMPLE
        lowest = float(corners[:, 2].min())
        truth.append({
            "color": cube.colour,
            "center_px": [round(float(centre[0]), 1), round(float(centre[1]), 1)],
            "visible_fraction": round(min(1.0, seen / max(1.0, float(alone.sum()))), 4),
            "on_floor": lowest < 0.1,
            "flat": cube.pose == "flat",
            "edge_mm": round(cube.edge, 2),
            "pos_cm": [round(v / 10, 2) for v in cube.centre],
        })
    return img, truth


# --- drops ----------------------------------------------------------------------------------


def _setup(rig: Rig) -> Setup:
    """The physics drops' tray (and the camera's view of it, which cubes it keeps)."""
    tray = rig["tray_cm"]
    return Setup(size=tuple(rig["res"]), cam_height_mm=rig["cam_dist"] * 10,
                 px_per_mm=_px_per_cm(rig) / 10, tilt_deg=rig["tilt_deg"],
                 tilt_azim_deg=rig["tilt_azim"], tray_mm=tuple(v * 10 for v in tray["floor"]),
                 wall_mm=tray["wall_height"] * 10, wall_thick_mm=tray["wall_thickness"] * 10,
                 mouth_mm=tray["mouth_width"] * 10, cube_mm=rig["cube"]["edge_mm"],
                 cube_variation=rig["cube"]["edge_variation"])


def _apart(cubes: Sequence[Cube]) -> bool:
    """Whether every cube lies flat on the floor, a cube's width from any other."""
    if any(c.pose != "flat" or c.centre[2] > c.edge for c in cubes):
        return False
    xy = np.array([c.centre[:2] for c in cubes])
    gaps = np.hypot(*(xy[:, None] - xy[None]).transpose(2, 0, 1)) + np.eye(len(xy)) * 1e9
    return bool(gaps.min() > 2 * max(c.edge for c in cubes))


def calibration_cubes(rig: Rig, colour: str, n: int, rng: np.random.Generator) -> list[Cube]:
    """``n`` cubes of one colour poured until they come to rest apart and flat, as one would
    retake a calibration photo."""
    setup = _setup(rig)
    for _ in range(200):
        cubes = settle(setup, rng, {colour: n}, "spread")
        if len(cubes) == n and _apart(cubes):
            return cubes
    raise RuntimeError(f"{n} {colour} cubes never came to rest apart")


def _drop(args: tuple[Rig, int, int]) -> tuple[np.ndarray, dict[str, Any]]:
    rig, seed, k = args
    rng = np.random.default_rng([seed, k])
    counts = scenes.random_counts(rng, int(rng.integers(1, 41)) if k else 0)
    mode = "cluster" if k % 3 == 1 else "spread"
    cubes = settle(_setup(rig), rng, counts, mode)
    img, cubes_truth = photo(rig, cubes, rng)
    seen = {c: sum(1 for t in cubes_truth if t["color"] == c) for c in COLOURS}
    reasons = []
    if any(t["visible_fraction"] < 0.6 for t in cubes_truth):
        reasons.append("occluded")
    if any(not t["on_floor"] for t in cubes_truth):
        reasons.append("off_floor")
    return img, {"counts": seen, "total": len(cubes), "hard": bool(reasons),
                 "hard_reasons": reasons, "drop": {"mode": mode}, "cubes": cubes_truth}


def _calibration_photo(args: tuple[Rig, int, int]) -> tuple[str, np.ndarray]:
    rig, seed, k = args
    rng = np.random.default_rng([seed, 1_000_000 + k])
    if k == 0:
        return "empty", photo(rig, [], rng)[0]
    colour, n = COLOURS[k - 1], int(rng.integers(5, 9))
    return f"{colour}-{n}", photo(rig, calibration_cubes(rig, colour, n, rng), rng)[0]


def save(path: Path, rig: Rig, img: np.ndarray) -> None:
    """Write a photo as the rig's camera encodes it."""
    cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, int(rig["post"]["jpeg"])])


def write_folder(out: Path, rig: Rig, drops: int, seed: int, jobs: int = 1) -> None:
    """A calibration set and ``drops`` drops of one rig, in the samples' layout."""
    (out / "calib").mkdir(parents=True, exist_ok=True)
    (out / "tests").mkdir(parents=True, exist_ok=True)
    (out / "rig.json").write_text(json.dumps(rig, indent=1))
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        calib = [(rig, seed, k) for k in range(len(COLOURS) + 1)]
        for name, img in pool.imap(_calibration_photo, calib):
            save(out / "calib" / f"{name}.jpg", rig, img)
        for k, (img, truth) in enumerate(pool.imap(_drop, [(rig, seed, k) for k in range(drops)])):
            save(out / "tests" / f"{k:03d}.jpg", rig, img)
            (out / "tests" / f"{k:03d}.json").write_text(json.dumps(truth, indent=1))
            print(f"{out.name} {k:03d}: {truth['total']} cubes{' (hard)' if truth['hard'] else ''}",
                  flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--rig", default="ring", help=f"{', '.join(RIGS)} or a rig.json")
    ap.add_argument("--drops", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    rig = RIGS[args.rig]() if args.rig in RIGS else from_rig_json(Path(args.rig))
    write_folder(args.out, rig, args.drops, args.seed, args.jobs)


if __name__ == "__main__":
    main()
