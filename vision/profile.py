"""The calibration profile: what one tray setup looks like, saved as versioned, validated JSON.

A profile is made once by :func:`vision.calibrate` and read by every count, so it is checked on
load field by field: a hand-edited or stale file fails with one line naming the file and the field
instead of a traceback deep inside the counter.
"""

from __future__ import annotations

import base64
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.areamap import AreaMap

COLOURS: tuple[str, ...] = ("red", "yellow", "blue", "green", "black", "white")
"""The cube colours, in the order every count reports them."""
ACHROMATIC = ("black", "white")
"""Colours with no chroma of their own: only lightness tells them from a grey tray."""

PROFILE_FORMAT = "tabletop-companion/vision-profile"
PROFILE_VERSION = 2


class VisionError(Exception):
    """A problem a person can fix (a missing file, a bad profile), told in one line."""


@dataclass(frozen=True)
class ColourModel:
    """One cube colour as the camera sees it: a Gaussian in OpenCV's 8-bit Lab space.

    ``area`` is the area in working pixels one lone cube of this colour covers at the tray
    floor's median spot, where the area map's scale is 1; ``reliable`` is false when calibration
    could not tell it from the tray or from another colour, and then every count asks for review.
    """

    name: str
    mean: tuple[float, float, float]
    cov: tuple[tuple[float, float, float], ...]
    area: float
    reliable: bool
    tray_separation: float
    colour_separation: float
    note: str = ""
    core_frac: float = 0.0
    """Share of a lone cube's top area left once its seams are cut away (0: not measured)."""
    face_grey: float = 0.0
    """Grey level (0..255) of a flat-lying cube's top face at calibration (0: not measured)."""
    seam_depth: float = 0.0
    """Darkening (share of face lightness) that marks a seam between touching cubes: above what
    a lone cube's grain and noise reach at calibration (0: seams are not used)."""
    perspective: float = 1.0
    """How much of its side faces this colour's pixels hold: a black cube's side faces, seen off
    axis, are as dark as a shadow and read as tray, so its area grows less toward the edges."""
    area_error: float = 0.0
    """Relative standard error of :attr:`area`, from how widely the lone cubes it was measured on
    spread (0: not measured)."""
    lift: float = 0.0
    """Lightness over the tray's (a ratio) from which a tray-coloured patch is this colour's top
    (0: not used). Set for a colour the tray test cannot tell apart (white on a light tray), when
    calibration found that its tops, a little lighter than the tray, count it right."""
    shade: float = 0.0
    """Lightness over the bare tray's (a ratio) at or under which a tray-coloured patch is this
    colour's top (0: not used): set for matte black on a dark tray, whose tops the tray test
    takes for its shade, when neither a lift nor the outlines find them and calibration found
    them darker than any bare tray it saw, counting it right so."""
    glint: float = 0.0
    """Most neutral light (linear, a share of white) this colour's faces may mirror on top of
    their own colour: set for black under one hard lamp, whose tops shine dark grey in the part
    of the tray where they mirror it (0: none). Such a pixel is black where the tray's range
    does not explain it."""
    outlined: bool = False
    """Whether this colour's tops are found by their outlines alone: set for a colour the tray
    test cannot tell apart and no :attr:`lift` finds (white cubes painted unevenly on a light
    tray, some of them darker than it), when calibration found that its outlined tops count it
    right (its own photo within a cube). (A lifted colour is outlined too.)"""


@dataclass(frozen=True)
class Profile:
    """Everything the counter needs about one setup; image data is stored at working scale."""

    image_size: tuple[int, int]
    scale: float
    background_png: str
    roi: tuple[tuple[int, int], ...]
    ratio_range: tuple[float, float]
    chroma_limit: float
    area_map: AreaMap
    colours: tuple[ColourModel, ...]
    version: int = PROFILE_VERSION
    meta: dict[str, Any] = field(default_factory=dict)
    crop: tuple[int, int, int, int] | None = None
    """The part of the photo (x0, y0, x1, y1, photo pixels) the counter reads: the tray and the
    rim watched around it (None: the whole photo). Working coordinates start at its corner."""

    @property
    def box(self) -> tuple[int, int, int, int]:
        """The part of the photo read, as (x0, y0, x1, y1) in photo pixels."""
        return self.crop or (0, 0, *self.image_size)

    @property
    def work_size(self) -> tuple[int, int]:
        """Width and height of the working image the counter computes on."""
        x0, y0, x1, y1 = self.box
        return max(1, round((x1 - x0) * self.scale)), max(1, round((y1 - y0) * self.scale))

    @property
    def frame_size(self) -> tuple[int, int]:
        """The whole photo's size at working scale. The area map's coordinates span it, so that
        it is fitted alike however much of the photo is read."""
        w, h = self.image_size
        return max(1, round(w * self.scale)), max(1, round(h * self.scale))

    @property
    def frame_origin(self) -> tuple[float, float]:
        """Where the working image's corner lies in the whole photo at working scale."""
        return self.box[0] * self.scale, self.box[1] * self.scale

    def to_photo(self, x: float, y: float) -> tuple[float, float]:
        """A working-image point in photo pixels."""
        return x / self.scale + self.box[0], y / self.scale + self.box[1]

    def background(self) -> np.ndarray:
        """The empty tray at working scale, BGR uint8."""
        raw = np.frombuffer(base64.b64decode(self.background_png), np.uint8)
        img = cv2.imdecode(raw, cv2.IMREAD_COLOR)
        if img is None:
            raise VisionError("profile background image does not decode")
        return img

    def colour(self, name: str) -> ColourModel:
        """The model of one colour by name."""
        for model in self.colours:
            if model.name == name:
                return model
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        """A plain dict that :func:`profile_from_json` reads back unchanged."""
        data = asdict(self)
        data = {"format": PROFILE_FORMAT, **data}
        return data

    def save(self, path: str | Path) -> None:
        """Write the profile as JSON (atomically: a crash never leaves half a file)."""
        target = Path(path)
        tmp = target.with_name(target.name + ".tmp")
        try:
            tmp.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
            tmp.replace(target)
        except OSError as exc:
            raise VisionError(f"{target}: cannot write profile: {exc.strerror or exc}") from exc


def encode_background(img: np.ndarray) -> str:
    """PNG-encode the working-scale background for embedding in JSON."""
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise VisionError("cannot encode background image")
    return base64.b64encode(buf.tobytes()).decode("ascii")


def _need(data: dict[str, Any], key: str, kind: type | tuple[type, ...], within: str = "") -> Any:
    """``data[key]`` of type ``kind``; ``within`` names the object holding it in messages."""
    name = f"{within}.{key}" if within else key
    if key not in data:
        raise ValueError(f"missing field '{name}'")
    value = data[key]
    if isinstance(value, bool) and kind in (int, float, (int, float)):
        raise ValueError(f"field '{name}' must be a number")
    if not isinstance(value, kind):
        raise ValueError(f"field '{name}' has the wrong type")
    return value


def _numbers(value: Any, key: str, n: int | None = None) -> tuple[float, ...]:
    if not isinstance(value, list) or (n is not None and len(value) != n):
        raise ValueError(f"field '{key}' must be a list of {n or 'some'} numbers")
    out = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise ValueError(f"field '{key}' must hold finite numbers")
        out.append(float(v))
    return tuple(out)


def _optional_number(
    data: dict[str, Any], key: str, name: str, default: float = 0.0
) -> float:
    """A field added after version 1 was fixed: absent means its default (0: not measured)."""
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"colour '{name}': '{key}' must be a number")
    if value < 0:
        raise ValueError(f"colour '{name}': '{key}' must not be negative")
    return float(value)


def _shade(data: dict[str, Any], name: str) -> float:
    """A colour's :attr:`ColourModel.shade`: under 1 (at 1 the bare tray would be the colour)."""
    shade = _optional_number(data, "shade", name)
    if shade >= 1:
        raise ValueError(f"colour '{name}': 'shade' must be under 1")
    return shade


def _optional_flag(data: dict[str, Any], key: str, name: str) -> bool:
    """A true-or-false field added after version 1 was fixed: absent means false."""
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise ValueError(f"colour '{name}': '{key}' must be true or false")
    return value


def _colour_from_json(data: Any) -> ColourModel:
    if not isinstance(data, dict):
        raise ValueError("each entry of 'colours' must be an object")
    name = _need(data, "name", str)
    if name not in COLOURS:
        raise ValueError(f"unknown colour '{name}'")
    cov_raw = _need(data, "cov", list)
    if len(cov_raw) != 3:
        raise ValueError(f"colour '{name}': 'cov' must be 3x3")
    cov = tuple(_numbers(row, f"{name}.cov", 3) for row in cov_raw)
    cov_m = np.array(cov)
    if not np.allclose(cov_m, cov_m.T, atol=1e-6) or np.linalg.eigvalsh(cov_m).min() <= 0:
        raise ValueError(f"colour '{name}': 'cov' must be symmetric positive definite")
    area = float(_need(data, "area", (int, float)))
    if not area > 0:
        raise ValueError(f"colour '{name}': 'area' must be positive")
    return ColourModel(
        name=name,
        mean=_numbers(data.get("mean"), f"{name}.mean", 3),  # type: ignore[arg-type]
        cov=cov,
        area=area,
        reliable=bool(_need(data, "reliable", bool)),
        tray_separation=float(_need(data, "tray_separation", (int, float))),
        colour_separation=float(_need(data, "colour_separation", (int, float))),
        note=str(data.get("note", "")),
        core_frac=_optional_number(data, "core_frac", name),
        face_grey=_optional_number(data, "face_grey", name),
        seam_depth=_optional_number(data, "seam_depth", name),
        perspective=_optional_number(data, "perspective", name, 1.0),
        area_error=_optional_number(data, "area_error", name),
        lift=_optional_number(data, "lift", name),
        shade=_shade(data, name),
        glint=_optional_number(data, "glint", name),
        outlined=_optional_flag(data, "outlined", name),
    )


def _area_map_from_json(data: Any) -> AreaMap:
    if not isinstance(data, dict):
        raise ValueError("field 'area_map' must be an object")
    lift = float(_need(data, "lift", (int, float), "area_map"))
    level = float(_need(data, "level", (int, float), "area_map"))
    if not 0 <= lift < 1:
        raise ValueError("field 'area_map.lift' must be between 0 and 1")
    if not level > 0:
        raise ValueError("field 'area_map.level' must be positive")
    return AreaMap(
        nadir=_numbers(data.get("nadir"), "area_map.nadir", 2),  # type: ignore[arg-type]
        lift=lift,
        slope=_numbers(data.get("slope"), "area_map.slope", 2),  # type: ignore[arg-type]
        level=level,
    )


def profile_from_json(data: Any) -> Profile:
    """Validate a decoded JSON document and build the profile; ``ValueError`` says what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("top level must be an object")
    if data.get("format") != PROFILE_FORMAT:
        raise ValueError(f"not a vision profile (format must be '{PROFILE_FORMAT}')")
    version = _need(data, "version", int)
    if version != PROFILE_VERSION:
        raise ValueError(
            f"profile version {version} is not supported (expected {PROFILE_VERSION}): "
            "calibrate again"
        )
    size = _numbers(data.get("image_size"), "image_size", 2)
    if min(size) < 16 or any(v != int(v) for v in size):
        raise ValueError("field 'image_size' must be two whole numbers >= 16")
    scale = float(_need(data, "scale", (int, float)))
    if not 0.05 <= scale <= 1.0:
        raise ValueError("field 'scale' must be between 0.05 and 1")
    roi_raw = _need(data, "roi", list)
    roi = tuple(tuple(int(v) for v in _numbers(p, "roi", 2)) for p in roi_raw)
    if len(roi) < 3:
        raise ValueError("field 'roi' must be a polygon of at least 3 points")
    lo, hi = _numbers(data.get("ratio_range"), "ratio_range", 2)
    if not 0 < lo < 1 < hi:
        raise ValueError("field 'ratio_range' must satisfy 0 < low < 1 < high")
    chroma = float(_need(data, "chroma_limit", (int, float)))
    if not chroma > 0:
        raise ValueError("field 'chroma_limit' must be positive")
    area_map = _area_map_from_json(data.get("area_map"))
    colours = tuple(_colour_from_json(c) for c in _need(data, "colours", list))
    if sorted(c.name for c in colours) != sorted(COLOURS):
        raise ValueError(f"field 'colours' must describe each of {', '.join(COLOURS)} once")
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise ValueError("field 'meta' must be an object")
    crop = None
    if data.get("crop") is not None:  # added within version 2: absent means the whole photo
        box = _numbers(data["crop"], "crop", 4)
        crop = tuple(int(v) for v in box)
        x0, y0, x1, y1 = crop
        if crop != box or not (0 <= x0 < x1 <= size[0] and 0 <= y0 < y1 <= size[1]
                               and min(x1 - x0, y1 - y0) >= 16):
            raise ValueError("field 'crop' must be a box (x0, y0, x1, y1) at least 16 pixels "
                             "each way within image_size")
    profile = Profile(
        image_size=(int(size[0]), int(size[1])),
        scale=scale,
        background_png=_need(data, "background_png", str),
        roi=roi,  # type: ignore[arg-type]
        ratio_range=(lo, hi),
        chroma_limit=chroma,
        area_map=area_map,
        colours=colours,
        version=version,
        meta=meta,
        crop=crop,  # type: ignore[arg-type]
    )
    try:
        bg = profile.background()
    except (VisionError, ValueError) as exc:
        raise ValueError("field 'background_png' is not a PNG image") from exc
    if (bg.shape[1], bg.shape[0]) != profile.work_size:
        raise ValueError("field 'background_png' does not match the crop (or image_size) x scale")
    return profile


def load_profile(path: str | Path) -> Profile:
    """Read and validate a profile file; any problem is a :class:`VisionError` naming the file."""
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise VisionError(f"{source}: cannot read profile: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise VisionError(f"{source}: not a profile (not UTF-8 text)") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise VisionError(f"{source}: not valid JSON (line {exc.lineno}: {exc.msg})") from exc
    try:
        return profile_from_json(data)
    except (ValueError, TypeError) as exc:
        raise VisionError(f"{source}: invalid profile: {exc}") from exc
