"""Synthetic tray photos with exact ground truth (numpy + OpenCV only).

Used three ways: tests and robustness measurements over conditions no sample covers, the product's
simulation mode (the simulated tower renders a photo that the real counter reads), and calibration
sets for setups nobody photographed. The model is simple and explicit: a pinhole camera (tilt,
focal length), a tray (floor texture, walls, a shift), cubes as boxes (any pose, painter's order),
lights with soft floor shadows and specular highlights, then exposure, colour cast, vignette, blur,
noise and JPEG. Units are millimetres; the floor's centre is the origin, z points up.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.profile import COLOURS

PAINTS: dict[str, tuple[float, float, float]] = {
    "red": (0.72, 0.11, 0.09),
    "yellow": (0.95, 0.78, 0.15),
    "blue": (0.11, 0.28, 0.66),
    "green": (0.14, 0.5, 0.22),
    "black": (0.075, 0.07, 0.07),
    "white": (0.92, 0.91, 0.87),
}
"""Cube paint as sRGB 0..1 (red, green, blue)."""


@dataclass(frozen=True)
class Light:
    """A distant light: direction (azimuth, elevation in degrees), strength, colour, shadow."""

    azim: float = 30.0
    elev: float = 60.0
    intensity: float = 0.6
    colour: tuple[float, float, float] = (1.0, 1.0, 1.0)
    shadow: float = 0.6
    penumbra_mm: float = 1.5
    spec: float = 0.08


@dataclass(frozen=True)
class Setup:
    """One camera, tray and light arrangement."""

    size: tuple[int, int] = (1280, 960)
    cam_height_mm: float = 400.0
    px_per_mm: float = 3.9
    tilt_deg: float = 0.0
    tilt_azim_deg: float = 0.0
    tray_mm: tuple[float, float] = (240.0, 180.0)
    wall_mm: float = 22.0
    wall_thick_mm: float = 8.0
    floor_rgb: tuple[float, float, float] = (0.5, 0.5, 0.5)
    floor_texture: str = "plain"
    wall_rgb: tuple[float, float, float] = (0.42, 0.42, 0.43)
    table_rgb: tuple[float, float, float] = (0.2, 0.2, 0.21)
    # Ambient plus the lights on a flat top add up to about 1, so paint shows as its own colour
    # (a white cube near 230 of 255, not clipped; a black one near 25), as in the sample photos.
    lights: tuple[Light, ...] = (
        Light(30, 62, 0.16, shadow=0.5),
        Light(120, 62, 0.16, shadow=0.5),
        Light(210, 62, 0.16, shadow=0.5),
        Light(300, 62, 0.16, shadow=0.5),
    )
    ambient: float = 0.45
    exposure: float = 1.0
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)
    vignette: float = 0.12
    light_falloff: float = 0.0
    """How much less light reaches the far side of the frame than the near side (a lamp beside
    the tray): the light falls off linearly across it, toward ``falloff_azim_deg`` (0: +x)."""
    falloff_azim_deg: float = 0.0
    blur_px: float = 0.7
    read_noise: float = 1.5
    shot_noise: float = 0.04
    sharpen: float = 0.0
    """Unsharp-mask strength, as camera pipelines apply before encoding (0: none)."""
    tone_gamma: float = 1.0
    """Extra tone curve on the encoded image (above 1: lighter mid-tones)."""
    crowd_shade: float = 0.5
    """How much neighbouring cubes darken a cube's faces (ambient occlusion in piles). At 0.5 a
    top with three or more close neighbours shows about 0.955 of a lone top's light, as in the
    sample photos (0.86-1.0 by colour, 0.95 at the median); 0: no darkening."""
    jpeg: int | None = 90
    cube_mm: float = 10.0
    cube_variation: float = 0.04
    paint_variation: float = 0.0
    """How much lighter or darker each cube's paint may be (uniformly, a share of its colour):
    wood takes paint and stain unevenly. Lone flat tops in the shared sample's photos vary from
    0.76 to 1.17 of the calibrated top's lightness (red, 5th to 95th percentile; blue 0.78-1.09)."""
    bevel: float = 0.07
    grain: float = 0.08
    paints: dict[str, tuple[float, float, float]] = field(default_factory=lambda: dict(PAINTS))
    tray_shift_mm: tuple[float, float] = (0.0, 0.0)
    tray_rot_deg: float = 0.0
    mouth_mm: float = 0.0
    """Width of the opening in the -x wall where the tower's chute enters (0: no mouth)."""
    chute_mm: float = 60.0
    chute_rgb: tuple[float, float, float] = (0.55, 0.38, 0.22)


@dataclass(frozen=True)
class Cube:
    """One cube: colour, centre (mm), rotation (3x3, body to world) and edge length (mm)."""

    colour: str
    centre: tuple[float, float, float]
    rotation: tuple[tuple[float, float, float], ...]
    edge: float
    pose: str = "flat"


@dataclass(frozen=True)
class Truth:
    """Exact ground truth of a rendered photo."""

    counts: dict[str, int]
    cubes: tuple[dict[str, Any], ...]
    hard: bool

    def to_json(self) -> dict[str, Any]:
        """The layout of the shared samples' ``NNN.json``."""
        return {
            "counts": dict(self.counts),
            "total": sum(self.counts.values()),
            "hard": self.hard,
            "cubes": list(self.cubes),
        }


# --- geometry -------------------------------------------------------------------------------


def rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def rot_y(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


UNIT_CUBE = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
_FACES = (  # corner indices in order around each face, and the outward normal
    ((0, 1, 3, 2), (-1, 0, 0)),
    ((4, 6, 7, 5), (1, 0, 0)),
    ((0, 4, 5, 1), (0, -1, 0)),
    ((2, 3, 7, 6), (0, 1, 0)),
    ((0, 2, 6, 4), (0, 0, -1)),
    ((1, 5, 7, 3), (0, 0, 1)),
)


class Camera:
    """Pinhole camera looking at the floor's centre from ``cam_height_mm``, optionally tilted."""

    def __init__(self, setup: Setup) -> None:
        w, h = setup.size
        t, az = math.radians(setup.tilt_deg), math.radians(setup.tilt_azim_deg)
        d = setup.cam_height_mm
        self.pos = np.array(
            [d * math.sin(t) * math.cos(az), d * math.sin(t) * math.sin(az), d * math.cos(t)]
        )
        fwd = -self.pos / np.linalg.norm(self.pos)
        right = np.array([1.0, 0.0, 0.0]) - fwd * fwd[0]
        right /= np.linalg.norm(right)
        down = np.cross(fwd, right)
        self.rot = np.stack([right, down, fwd])
        self.f = setup.px_per_mm * d
        self.c = np.array([w / 2, h / 2])

    def project(self, pts: np.ndarray) -> np.ndarray:
        """World points (N x 3, mm) to pixel coordinates (N x 2)."""
        pc = (np.asarray(pts, np.float64) - self.pos) @ self.rot.T
        return pc[:, :2] / pc[:, 2:3] * self.f + self.c

    def depth(self, pts: np.ndarray) -> np.ndarray:
        """Distance along the view axis (for painter's order)."""
        return ((np.asarray(pts, np.float64) - self.pos) @ self.rot.T)[:, 2]


def _tray_transform(setup: Setup) -> tuple[np.ndarray, np.ndarray]:
    """Rotation (2x2) and shift of the tray relative to where the camera expects it."""
    a = math.radians(setup.tray_rot_deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]), np.array(
        setup.tray_shift_mm
    )


def to_world(setup: Setup, pts: np.ndarray) -> np.ndarray:
    """Tray coordinates (N x 3) to world coordinates (applies the tray's shift)."""
    rot, shift = _tray_transform(setup)
    out = np.array(pts, np.float64)
    out[:, :2] = out[:, :2] @ rot.T + shift
    return out


def cube_corners(cube: Cube) -> np.ndarray:
    """The 8 corners of a cube in tray coordinates."""
    return UNIT_CUBE * cube.edge @ np.array(cube.rotation).T + np.array(cube.centre)


# --- textures -------------------------------------------------------------------------------


def _noise(rng: np.random.Generator, shape: tuple[int, int], scale: float) -> np.ndarray:
    """Smooth value noise in about [-1, 1] (blurred white noise)."""
    small = rng.standard_normal(
        (max(2, int(shape[0] / scale)), max(2, int(shape[1] / scale)))
    ).astype(np.float32)
    big = cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)
    return big / max(1e-6, float(np.abs(big).max()))


def _wood(
    rng: np.random.Generator, shape: tuple[int, int], strength: float, period: float
) -> np.ndarray:
    """Multiplicative wood-grain pattern around 1 (stripes bent by low-frequency noise)."""
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, math.pi)
    along = xx * math.cos(a) + yy * math.sin(a)
    across = -xx * math.sin(a) + yy * math.cos(a)
    warp = _noise(rng, shape, max(4.0, min(h, w) / 3)) * period * 1.5
    phase = (across + warp) / period * 2 * math.pi + 0.15 * np.sin(along / (period * 7))
    stripes = 0.5 + 0.5 * np.sin(phase) ** 3
    fine = rng.standard_normal(shape).astype(np.float32) * 0.25
    return 1.0 + strength * (stripes - 0.5 + fine * 0.5)


def _lin(rgb: Sequence[float]) -> np.ndarray:
    return np.power(np.asarray(rgb, np.float32), 2.2)


# --- rendering ------------------------------------------------------------------------------


def _light_dirs(setup: Setup) -> list[np.ndarray]:
    out = []
    for light in setup.lights:
        az, el = math.radians(light.azim), math.radians(light.elev)
        out.append(
            np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
        )
    return out


SHININESS = 12.0
"""Phong exponent of cube paint and tray plastic: a broad satin sheen."""


def _shade(
    setup: Setup, normal: np.ndarray, view: np.ndarray, albedo: np.ndarray, spec_scale: float = 1.0
) -> np.ndarray:
    """Linear RGB radiance of a flat face: ambient + diffuse + a little specular.

    The specular lobe is Phong's (the mirrored light against the view): a satin face glints only
    when turned to mirror a light into the lens, as painted wood does.
    """
    out = albedo * setup.ambient
    for light, ldir in zip(setup.lights, _light_dirs(setup), strict=True):
        col = np.asarray(light.colour, np.float32) * light.intensity
        diff = float(normal @ ldir)
        mirror = 2.0 * diff * normal - ldir
        spec = light.spec * spec_scale * max(0.0, float(mirror @ view)) ** SHININESS
        out = out + col * (albedo * max(0.0, diff) + spec * (diff > 0))
    return out


class _Canvas:
    """A linear-RGB float image plus an id buffer, painted back to front."""

    def __init__(self, setup: Setup) -> None:
        w, h = setup.size
        self.rgb = np.zeros((h, w, 3), np.float32)
        self.ids = np.full((h, w), -1, np.int32)

    def paint(
        self, img: np.ndarray, alpha: np.ndarray, box: tuple[int, int, int, int], ident: int
    ) -> None:
        x, y, w, h = box
        region = self.rgb[y : y + h, x : x + w]
        a = alpha[..., None]
        region[:] = region * (1 - a) + img * a
        self.ids[y : y + h, x : x + w][alpha > 0.5] = ident


def _warp_tile(
    tile: np.ndarray, quad: np.ndarray, size: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray, tuple[int, int, int, int]] | None:
    """Warp a square tile onto an image quad; returns the patch, its coverage and its box."""
    w, h = size
    x0, y0 = np.floor(quad.min(0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 2
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    n = tile.shape[0]
    src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    m = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
    patch = cv2.warpPerspective(
        tile, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    cover = cv2.warpPerspective(
        np.ones((n, n), np.float32),
        m,
        (x1 - x0, y1 - y0),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
    )
    return patch, cover, (x0, y0, x1 - x0, y1 - y0)


def _face_tile(
    setup: Setup, rng: np.random.Generator, radiance: np.ndarray, n: int = 40
) -> np.ndarray:
    """A face's texture: grain and a darker bevel along its border (the seam between cubes)."""
    grain = (
        _wood(rng, (n, n), setup.grain * 2.0, rng.uniform(2.5, 5.0))
        if setup.grain > 0
        else np.ones((n, n), np.float32)
    )
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) + 0.5
    edge = np.minimum(np.minimum(xx, n - xx), np.minimum(yy, n - yy)) / n
    bevel = np.clip(edge / max(1e-3, setup.bevel), 0, 1) * 0.35 + 0.65
    return radiance[None, None, :] * (grain * bevel)[..., None]


def render(setup: Setup, cubes: Sequence[Cube], seed: int = 0) -> tuple[np.ndarray, Truth]:
    """Render a tray holding ``cubes``; returns a BGR uint8 photo and its ground truth."""
    rng = np.random.default_rng(seed)
    cam = Camera(setup)
    canvas = _Canvas(setup)
    _draw_floor(setup, cam, canvas, rng, cubes)
    _draw_walls(setup, cam, canvas, rng)
    # Cubes, back to front.
    order = sorted(
        range(len(cubes)),
        key=lambda i: -float(cam.depth(to_world(setup, np.array([cubes[i].centre])))[0]),
    )
    alone = np.zeros(len(cubes))
    for i in order:
        alone[i] = _draw_cube(setup, cam, canvas, rng, cubes[i], i)
    if setup.crowd_shade > 0:
        _shade_crowds(setup, canvas, len(cubes))
    visible = np.bincount(canvas.ids[canvas.ids >= 0].ravel(), minlength=len(cubes))
    img = _finish(setup, canvas.rgb, rng)
    truth = _truth(setup, cam, cubes, visible, alone)
    return img, truth


def _draw_floor(
    setup: Setup, cam: Camera, canvas: _Canvas, rng: np.random.Generator, cubes: Sequence[Cube]
) -> None:
    """The table, and the tray floor lit and shadowed by the cubes on it (its full-size float
    layers are let go on return: they were most of a render's memory)."""
    w, h = setup.size
    tw, th = setup.tray_mm
    shade_floor = np.full((h, w), setup.ambient, np.float32)
    light_floor = np.zeros((h, w, 3), np.float32)
    # Table, tray floor (textured, through the floor homography), tray walls.
    table = _lin(setup.table_rgb) * (
        setup.ambient + sum(li.intensity * math.sin(math.radians(li.elev)) for li in setup.lights)
    )
    canvas.rgb[:] = table * (1 + 0.05 * _noise(rng, (h, w), 40.0))[..., None]
    mm_px = 0.5
    ext = setup.chute_mm if setup.mouth_mm > 0 else 0.0
    tex_w, tex_h = (
        int((tw + 2 * setup.wall_thick_mm + ext) / mm_px),
        int((th + 2 * setup.wall_thick_mm) / mm_px),
    )
    albedo = np.ones((tex_h, tex_w, 3), np.float32) * _lin(setup.floor_rgb)
    if setup.floor_texture == "wood":
        albedo *= _wood(rng, (tex_h, tex_w), 0.18, rng.uniform(5, 9))[..., None]
    elif setup.floor_texture == "felt":
        albedo *= (
            1
            + 0.08 * _noise(rng, (tex_h, tex_w), 3.0)
            + 0.03 * rng.standard_normal((tex_h, tex_w)).astype(np.float32)
        )[..., None]
    else:
        albedo *= (1 + 0.02 * _noise(rng, (tex_h, tex_w), 20.0))[..., None]
    origin = np.array([-tw / 2 - setup.wall_thick_mm - ext, th / 2 + setup.wall_thick_mm])
    if setup.mouth_mm > 0:
        # The chute: a wooden run from outside the tray through the mouth to the floor's edge.
        x1 = int((setup.chute_mm + setup.wall_thick_mm) / mm_px)
        ya = int((origin[1] - setup.mouth_mm / 2) / mm_px)
        yb = int((origin[1] + setup.mouth_mm / 2) / mm_px)
        wood = _wood(rng, (yb - ya, x1), 0.22, rng.uniform(5, 9))
        albedo[ya:yb, :x1] = _lin(setup.chute_rgb)[None, None, :] * wood[..., None]
    # The floor texture's own frame moves with the tray: compose the tray motion into it.
    src = np.array([[0, 0], [tex_w, 0], [tex_w, tex_h], [0, tex_h]], np.float32)
    corners_t = np.array([[origin[0] + x * mm_px, origin[1] - y * mm_px, 0.0] for x, y in src])
    dst = cam.project(to_world(setup, corners_t)).astype(np.float32)
    hom = cv2.getPerspectiveTransform(src, dst)
    floor_img = cv2.warpPerspective(
        albedo, hom, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
    )
    floor_cov = cv2.warpPerspective(
        np.ones((tex_h, tex_w), np.float32), hom, (w, h), flags=cv2.INTER_LINEAR
    )
    inner = np.array(
        [[-tw / 2, -th / 2, 0], [tw / 2, -th / 2, 0], [tw / 2, th / 2, 0], [-tw / 2, th / 2, 0]]
    )
    floor_mask = np.zeros((h, w), np.uint8)
    polys = [inner]
    if setup.mouth_mm > 0:
        m2, xa = setup.mouth_mm / 2, -tw / 2 - setup.wall_thick_mm - setup.chute_mm
        polys.append(np.array([[xa, -m2, 0], [-tw / 2, -m2, 0], [-tw / 2, m2, 0], [xa, m2, 0]]))
    for poly in polys:
        cv2.fillConvexPoly(
            floor_mask,
            np.round(cam.project(to_world(setup, poly)) * 16).astype(np.int32),
            255,
            cv2.LINE_AA,
            4,
        )
    # Shadows of the cubes on the floor, one soft mask per light.
    for light, ldir in zip(setup.lights, _light_dirs(setup), strict=True):
        mask = np.zeros((h, w), np.float32)
        if light.shadow > 0:
            for cube in cubes:
                pts = cube_corners(cube)
                flat = pts - ldir[None, :] * (pts[:, 2:3] / ldir[2])
                img_pts = cam.project(to_world(setup, flat))
                hull = cv2.convexHull(np.round(img_pts * 16).astype(np.int32))
                cv2.fillConvexPoly(mask, hull, 1.0, cv2.LINE_AA, 4)
            sigma = max(0.5, light.penumbra_mm * setup.px_per_mm)
            mask = cv2.GaussianBlur(mask, (0, 0), sigma)
        lit = (
            light.intensity
            * max(0.0, math.sin(math.radians(light.elev)))
            * (1 - light.shadow * np.clip(mask, 0, 1))
        )
        light_floor += lit[..., None] * np.asarray(light.colour, np.float32)
    # Contact darkening (ambient occlusion) right around each cube's footprint.
    ao = np.zeros((h, w), np.float32)
    for cube in cubes:
        pts = cube_corners(cube)
        low = pts[pts[:, 2] < cube.centre[2]]
        foot = cam.project(to_world(setup, np.c_[low[:, :2], np.zeros(len(low))]))
        cv2.fillConvexPoly(ao, cv2.convexHull(np.round(foot).astype(np.int32)), 1.0)
    ao = cv2.GaussianBlur(ao, (0, 0), setup.cube_mm * setup.px_per_mm * 0.25)
    shade_floor = shade_floor * (1 - 0.4 * np.clip(ao, 0, 1))
    floor_rgb = light_floor  # reused in place: light_floor is not needed after
    floor_rgb += shade_floor[..., None]
    floor_rgb *= floor_img
    a = (floor_cov * (floor_mask.astype(np.float32) / 255.0))[..., None]
    canvas.rgb *= 1 - a
    floor_rgb *= a
    canvas.rgb += floor_rgb


def _shade_crowds(setup: Setup, canvas: _Canvas, n: int) -> None:
    """Darken each cube's pixels by how much of their surroundings other cubes fill."""
    sigma = 0.6 * setup.cube_mm * setup.px_per_mm
    reach = int(3 * sigma)
    covered = canvas.ids >= 0
    on_cube = covered.astype(np.float32)
    h, w = on_cube.shape
    ys, xs = np.nonzero(covered)
    ids = canvas.ids[ys, xs]
    for i in range(n):
        mine = ids == i
        if not mine.any():
            continue
        y0, y1 = max(0, ys[mine].min() - reach), min(h, ys[mine].max() + reach + 1)
        x0, x1 = max(0, xs[mine].min() - reach), min(w, xs[mine].max() + reach + 1)
        own = (canvas.ids[y0:y1, x0:x1] == i).astype(np.float32)
        others = on_cube[y0:y1, x0:x1] - own
        # A blur this wide loses nothing at a quarter of the resolution.
        small = cv2.resize(others, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (0, 0), sigma / 4, borderType=cv2.BORDER_CONSTANT)
        near = cv2.resize(small, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
        region = canvas.rgb[y0:y1, x0:x1]
        region *= np.where(own > 0, 1.0 - setup.crowd_shade * np.clip(near, 0, 1), 1.0)[..., None]


def _draw_walls(setup: Setup, cam: Camera, canvas: _Canvas, rng: np.random.Generator) -> None:
    """The inner wall faces and the wall tops, flat-shaded, where they face the camera."""
    tw, th = setup.tray_mm
    hgt, t = setup.wall_mm, setup.wall_thick_mm
    albedo = _lin(setup.wall_rgb)
    x0, x1, y0, y1 = -tw / 2, tw / 2, -th / 2, th / 2
    m2 = setup.mouth_mm / 2
    left = (
        [
            ([[x0, y0, 0], [x0, -m2, 0], [x0, -m2, hgt], [x0, y0, hgt]], (1, 0, 0)),
            ([[x0, m2, 0], [x0, y1, 0], [x0, y1, hgt], [x0, m2, hgt]], (1, 0, 0)),
        ]
        if m2 > 0
        else [([[x0, y0, 0], [x0, y1, 0], [x0, y1, hgt], [x0, y0, hgt]], (1, 0, 0))]
    )
    quads = [
        *left,
        ([[x1, y1, 0], [x1, y0, 0], [x1, y0, hgt], [x1, y1, hgt]], (-1, 0, 0)),
        ([[x1, y0, 0], [x0, y0, 0], [x0, y0, hgt], [x1, y0, hgt]], (0, 1, 0)),
        ([[x0, y1, 0], [x1, y1, 0], [x1, y1, hgt], [x0, y1, hgt]], (0, -1, 0)),
    ]
    tops = [
        [[x0 - t, y0 - t, hgt], [x1 + t, y0 - t, hgt], [x1 + t, y0, hgt], [x0 - t, y0, hgt]],
        [[x0 - t, y1, hgt], [x1 + t, y1, hgt], [x1 + t, y1 + t, hgt], [x0 - t, y1 + t, hgt]],
        *(
            [
                [[x0 - t, y0, hgt], [x0, y0, hgt], [x0, -m2, hgt], [x0 - t, -m2, hgt]],
                [[x0 - t, m2, hgt], [x0, m2, hgt], [x0, y1, hgt], [x0 - t, y1, hgt]],
            ]
            if m2 > 0
            else [[[x0 - t, y0, hgt], [x0, y0, hgt], [x0, y1, hgt], [x0 - t, y1, hgt]]]
        ),
        [[x1, y0, hgt], [x1 + t, y0, hgt], [x1 + t, y1, hgt], [x1, y1, hgt]],
    ]
    rot, _ = _tray_transform(setup)
    for pts, normal in [(q, n) for q, n in quads] + [(q, (0, 0, 1)) for q in tops]:
        world = to_world(setup, np.array(pts, np.float64))
        n3 = np.array([*(rot @ np.array(normal[:2], np.float64)), normal[2]])
        centre = world.mean(0)
        view = cam.pos - centre
        view /= np.linalg.norm(view)
        if n3 @ view <= 0:
            continue
        rad = _shade(setup, n3, view, albedo, 0.3) * (0.75 if normal[2] == 0 else 1.0)
        pts = np.round(cam.project(world) * 16).astype(np.int32)
        cv2.fillConvexPoly(canvas.rgb, pts, tuple(float(v) for v in rad), cv2.LINE_8, 4)


def _draw_cube(
    setup: Setup, cam: Camera, canvas: _Canvas, rng: np.random.Generator, cube: Cube, ident: int
) -> float:
    """Paint a cube's visible faces; returns how many pixels it covers alone."""
    corners = to_world(setup, cube_corners(cube))
    rot_t, _ = _tray_transform(setup)
    r3 = np.eye(3)
    r3[:2, :2] = rot_t
    body = r3 @ np.array(cube.rotation)
    img = cam.project(corners)
    paint = np.asarray(setup.paints[cube.colour])
    if setup.paint_variation:
        paint = np.minimum(1.0, paint * (1 + rng.uniform(-1, 1) * setup.paint_variation))
    albedo = _lin(paint)
    faces = []
    for idx, normal in _FACES:
        n = body @ np.array(normal, np.float64)
        centre = corners[list(idx)].mean(0)
        view = cam.pos - centre
        view /= np.linalg.norm(view)
        if n @ view <= 1e-6:
            continue
        faces.append((idx, n, view))
    alone = cv2.contourArea(cv2.convexHull(img.astype(np.float32)))
    for idx, n, view in faces:
        rad = _shade(setup, n, view, albedo)
        tile = _face_tile(setup, rng, rad.astype(np.float32))
        got = _warp_tile(tile, img[list(idx)], setup.size)
        if got is None:
            continue
        patch, cover, box = got
        canvas.paint(patch, cover, box, ident)
    return float(alone)


def _finish(setup: Setup, rgb: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light falloff, then the camera: exposure, colour cast, vignette, blur, gamma and tone,
    sharpening, noise, JPEG."""
    # Full-size float layers are reused in place where they can be (memory, on a Pi).
    h, w = rgb.shape[:2]
    yy, xx = (v.astype(np.float32) for v in np.ogrid[0:h, 0:w])
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    light = setup.exposure * (1 - setup.vignette * r2)
    del r2
    if setup.light_falloff > 0:
        a = math.radians(setup.falloff_azim_deg)
        reach = abs(math.cos(a)) * w / 2 + abs(math.sin(a)) * h / 2
        along = ((xx - w / 2) * math.cos(a) + (yy - h / 2) * math.sin(a)) / (2 * reach) + 0.5
        light *= 1 - setup.light_falloff * along
    out = rgb * light[..., None]
    out *= np.asarray(setup.cast, np.float32)
    if setup.blur_px > 0:
        out = cv2.GaussianBlur(out, (0, 0), setup.blur_px)
    gamma = (np.power(np.linspace(0, 1, 4096, dtype=np.float32), 1 / 2.2) * 255.0).astype(
        np.float32
    )
    np.nan_to_num(out, copy=False)
    out *= 4095.0
    srgb = gamma[np.clip(out, 0, 4095, out=out).astype(np.uint16)]
    del out
    if setup.tone_gamma != 1.0:
        srgb = 255.0 * np.power(srgb / 255.0, 1.0 / setup.tone_gamma)
    if setup.sharpen > 0:
        srgb = srgb + setup.sharpen * (srgb - cv2.GaussianBlur(srgb, (0, 0), 1.0))
    spread = srgb * (setup.shot_noise**2)
    spread *= 2.0
    spread += setup.read_noise**2
    np.sqrt(spread, out=spread)
    spread *= rng.standard_normal(srgb.shape).astype(np.float32)
    srgb += spread
    del spread
    bgr = np.clip(srgb[..., ::-1], 0, 255).astype(np.uint8)
    if setup.jpeg:
        _, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(setup.jpeg)])
        bgr = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return bgr


def _truth(
    setup: Setup, cam: Camera, cubes: Sequence[Cube], visible: np.ndarray, alone: np.ndarray
) -> Truth:
    counts = {c: 0 for c in COLOURS}
    out = []
    hard = False
    for i, cube in enumerate(cubes):
        counts[cube.colour] += 1
        centre = cam.project(to_world(setup, np.array([cube.centre])))[0]
        frac = float(min(1.0, visible[i] / alone[i])) if alone[i] > 0 else 0.0
        hard = hard or frac < 0.6
        out.append(
            {
                "color": cube.colour,
                "center_px": [round(float(centre[0]), 1), round(float(centre[1]), 1)],
                "visible_fraction": round(frac, 4),
                "visible_px": round(float(visible[i]), 1),
                "alone_px": round(float(alone[i]), 1),
                "pose": cube.pose,
            }
        )
    return Truth(counts, tuple(out), hard)
