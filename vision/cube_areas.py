"""What one cube of each colour covers, from the calibration photos' blobs.

Each photo's blobs are read as whole cubes adding up to the number its name gives; those fit each
colour's one-cube area and the camera geometry that scales it over the image
(:mod:`vision.areamap`). A photo whose blobs hold another whole number of cubes than its name
says is left out of the fit and named in the colour's note: learned from it, the colour's area
would be wrong.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision import pixels
from vision.areamap import AreaMap, fit_area_map
from vision.count import Counter
from vision.photos import Sample
from vision.profile import ACHROMATIC, COLOURS, Profile, VisionError
from vision.traces import SLIVER_FRACTION


def fit_areas(
    profile: Profile, counter: Counter, photos: Iterable[tuple[Sample, np.ndarray]],
    unmeasured: float, tops: Sequence[tuple[str, float, float, float]] = (),
) -> Profile:
    """Fit one-cube area per colour and the camera geometry that scales it over the image
    from the calibration ``photos`` (each sample beside its working frame) as ``counter``
    labels them, and to the seam-cut ``tops`` of lone cubes too, if measured; a colour
    whose area nothing measures takes the others' median, or ``unmeasured`` if none is."""
    # The map's points are the whole photo's at working scale (see Profile.frame_size).
    size = profile.frame_size
    ox, oy = profile.frame_origin
    tops = [(c, a, x + ox, y + oy) for c, a, x, y in tops]
    uneven: dict[str, str] = {}  # why a colour's photo was left out of the area fit
    found: list[tuple[Sample, list[tuple[float, float, float]]]] = []  # each photo's blobs
    measured: list[tuple[Sample, list[tuple[float, float, float, int]]]] = []  # and cubes
    for s, frame in photos:
        blobs = _colour_blobs(counter, frame, s.colour)
        big = [b for b in blobs if b[0] >= 0.15 * max(b2[0] for b2 in blobs)] if blobs else []
        if not big:
            if s.colour in ACHROMATIC:
                continue  # lost in the tray: graded below, and perhaps found by its tops
            raise VisionError(f"{s.name}: no {s.colour} cubes found")
        found.append((s, [(a, x + ox, y + oy) for a, x, y in blobs]))
        ns = cubes_per_blob([b[0] for b in big], s.n)
        if ns is None:  # left out of the area fit
            uneven[s.colour] = (
                f"the {s.colour} blobs in {Path(s.name).name} do not add up to its cubes (one "
                "lit or painted far off the rest?): retake it with the cubes apart, under "
                "even light")
            continue
        measured.append((s, [(b[0], b[1] + ox, b[2] + oy, k)
                             for b, k in zip(big, ns, strict=True)]))
    per = _by_colour(measured)
    area_map, unit_area = _fit_map(per, size, tops)
    misnamed = _misnamed(found, unit_area, area_map, size)
    named = dict(misnamed.values())  # why, by colour, even if its other photos measure it
    if misnamed:
        uneven |= named
        per = _by_colour([m for m in measured if m[0].name not in misnamed])
        area_map, unit_area = _fit_map(per, size, tops)
    follow = {c: 1.0 for c in unit_area}
    for colour in ACHROMATIC:
        if per[colour]:
            follow[colour], unit_area[colour] = _share(area_map, per[colour], size)
    # Areas are given at the floor's median spot, as the map's scale is 1 there (every 16th
    # pixel each way is plenty for a map this smooth).
    floor = np.argwhere(pixels.roi_mask(profile.roi, profile.work_size)[::16, ::16] > 0) * 16
    level = float(np.median([area_map.scale(x + ox, y + oy, 1.0, size) for y, x in floor]))
    area_map = replace(area_map, level=level)
    unit_area = {c: a * level for c, a in unit_area.items()}
    models = []
    fallback = float(np.median(list(unit_area.values()))) if unit_area else unmeasured
    for m in profile.colours:
        area = unit_area.get(m.name)
        note = named.get(m.name, "") if area else "could not measure one cube's area" + (
            f": {uneven[m.name]}" if m.name in uneven else "")
        lone = [a / area_map.scale(x, y, follow.get(m.name, 1.0), size)
                for a, x, y, k in per[m.name] if k == 1]
        models.append(
            replace(
                m, area=area or fallback, reliable=m.reliable and area is not None, note=note,
                perspective=follow.get(m.name, 1.0), area_error=area_error(lone),
            )
        )
    return replace(profile, area_map=area_map, colours=tuple(models))


def _colour_blobs(
    counter: Counter, frame: np.ndarray, colour: str
) -> list[tuple[float, float, float]]:
    """(area, x, y) of the blobs of ``colour`` the counter's labelling finds in a frame."""
    labels = counter.labels(frame).labels
    index = counter.names.index(colour) + 1
    mask = cv2.morphologyEx(
        (labels == index).astype(np.uint8),
        cv2.MORPH_OPEN,
        cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)),
    )
    return mask_blobs(mask)


def mask_blobs(mask: np.ndarray, min_area: float = 0.0) -> list[tuple[float, float, float]]:
    """(area, x, y) of a mask's blobs of ``min_area`` and over."""
    n, _, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
    return [(float(stats[j, cv2.CC_STAT_AREA]), float(centres[j][0]), float(centres[j][1]))
            for j in range(1, n) if stats[j, cv2.CC_STAT_AREA] >= min_area]


PERSPECTIVE_PRIOR = 0.05
"""Weight pulling a colour's share of the side faces toward 1 (all of them): one photo of a few
cubes near the centre says little about the edges."""


def _share(
    area_map: AreaMap, items: list[tuple[float, float, float, int]], size: tuple[int, int]
) -> tuple[float, float]:
    """How much of its side faces one colour's mask holds (least squares, shrunk to all of
    them: a black cube's side faces off axis are as dark as a shadow and read as tray), and the
    colour's top area at the image centre."""
    top = np.array([area_map.top(x, y, size) for _, x, y, _ in items])
    side = np.array([area_map.side(x, y) for _, x, y, _ in items])
    per_cube = np.array([a / n for a, _, _, n in items]) / top
    unit = float(np.median(per_cube / (1.0 + side)))
    y = per_cube / unit - 1.0 - side
    k = float(np.clip(1.0 + float(side @ y) / (float(side @ side) + PERSPECTIVE_PRIOR), 0.0, 1.5))
    return k, float(np.median(per_cube / (1.0 + k * side)))


def area_error(areas: Sequence[float]) -> float:
    """Relative standard error of the median of lone cubes' ``areas`` (each brought to the
    floor's median spot): 1.25 robust standard deviations over the root of their number (0 for
    fewer than three)."""
    if len(areas) < 3:
        return 0.0
    v = np.asarray(areas, float)
    mid = float(np.median(v))
    return round(1.25 * 1.4826 * float(np.median(np.abs(v - mid))) / mid / math.sqrt(len(v)), 3)


WHOLE_CUBES = 0.25
"""Most a calibration photo's blob may differ from a whole number of cubes (in the one-cube area
the other colours' photos give there) for it to tell how many it holds: a cube on its edge shows
up to ~1.4 times its face, on its corner ~1.7 (and is then told nothing of). The sample's lone
coloured and black cubes read 0.83-1.25 (its white ones 0.7-0.91: they tell nothing)."""


def _by_colour(
    measured: Sequence[tuple[Sample, list[tuple[float, float, float, int]]]],
) -> dict[str, list[tuple[float, float, float, int]]]:
    """The photos' blobs ``(area, x, y, cubes)`` gathered by colour."""
    per: dict[str, list[tuple[float, float, float, int]]] = {c: [] for c in COLOURS}
    for s, items in measured:
        per[s.colour] += items
    return per


def _fit_map(
    per: dict[str, list[tuple[float, float, float, int]]], size: tuple[int, int],
    tops: Sequence[tuple[str, float, float, float]],
) -> tuple[AreaMap, dict[str, float]]:
    """The camera geometry and each colour's one-cube area (see :func:`fit_area_map`) from the
    calibration photos' blobs ``(area, x, y, cubes)`` per colour: the chromatic colours', whose
    whole cubes stand out from the tray (black loses its side faces to shade), if any."""
    chromatic = [(c, a / k, x, y) for c, items in per.items() if c not in ACHROMATIC
                 for a, x, y, k in items]
    return fit_area_map(
        chromatic or [(c, a / k, x, y) for c, items in per.items() for a, x, y, k in items],
        size, tops if chromatic else (),
    )


def _misnamed(
    found: Sequence[tuple[Sample, Sequence[tuple[float, float, float]]]],
    unit_area: dict[str, float], area_map: AreaMap, size: tuple[int, int],
) -> dict[str, tuple[str, str]]:
    """Each photo whose blobs ``(area, x, y)`` hold another number of cubes than its name says,
    by name, with its colour and why it is left out of the area fit: by the one-cube area the
    other chromatic colours' photos give (``unit_area``, scaled over the image by ``area_map``).
    Its colour's area would be learned wrong: six red cubes named eight, two read as two each.
    Specks aside, a blob off a whole number of cubes tells nothing: a blue cube under one hard
    lamp, lit and painted far lighter than the rest, shows only a side face (0.18 of a cube) as
    blue, and the other five do not make the photo's name wrong."""
    out = {}
    for s, blobs in found:
        others = [a for c, a in unit_area.items() if c not in ACHROMATIC and c != s.colour]
        if not others:
            continue
        unit = float(np.median(others))
        sizes = [a / (unit * area_map.scale(x, y, 1.0, size)) for a, x, y in blobs]
        seen = whole_cubes([v for v in sizes if v >= SLIVER_FRACTION])
        if seen is not None and seen != s.n:
            name = Path(s.name)
            out[s.name] = s.colour, (
                f"{name.name} shows {seen} {s.colour} cubes, not {s.n} as its name says: rename "
                f"it {s.colour}-{seen}{name.suffix} if it holds {seen}, else retake it with all "
                f"{s.n} in sight and apart")
    return out


def whole_cubes(sizes: Sequence[float]) -> int | None:
    """How many cubes blobs of these ``sizes`` (in one cube's area each) hold, or None when one
    is not near a whole number (:data:`WHOLE_CUBES`): a photo whose cubes lie apart and flat tells
    its number of cubes, whatever its name says."""
    v = np.asarray(sizes, float)
    whole = np.round(v)
    if not len(v) or whole.min() < 1 or np.abs(v - whole).max() > WHOLE_CUBES:
        return None
    return int(whole.sum())


LONE_SPREAD = 1.7
"""How much larger than the photo's mean cube one lone cube may look: on its corner a cube shows
up to ~1.7x its face's area."""


def cubes_per_blob(areas: Sequence[float], n: int) -> list[int] | None:
    """A whole number of cubes for each blob of a calibration photo holding ``n`` cubes, adding
    up to ``n``, or None: by the median blob's area, else by the mean cube's; a photo with as
    many blobs as cubes, none larger than :data:`LONE_SPREAD` mean cubes, has one in each."""
    sizes = np.asarray(areas, float)
    unit = float(np.median(sizes)) if len(sizes) >= n else float(sizes.sum() / n)
    ns = np.maximum(1, np.round(sizes / unit)).astype(int)
    if ns.sum() != n and len(sizes) <= n:
        unit = float(sizes.sum() / n)
        ns = np.maximum(1, np.round(sizes / unit)).astype(int)
    if ns.sum() != n and len(sizes) == n and sizes.max() <= LONE_SPREAD * unit:
        ns = np.ones(n, int)
    return [int(k) for k in ns] if ns.sum() == n else None
