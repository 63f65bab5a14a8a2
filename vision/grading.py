"""Grade each calibrated colour: how well it separates from the tray and from the other colours,
whether its own photos count right, and what to change when it cannot be told apart reliably
(a colour graded unreliable always asks for review); and the report calibration prints."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision import pixels
from vision.photos import Sample
from vision.profile import ACHROMATIC, ColourModel, Profile

SEPARATE_FROM_TRAY = 0.7
"""Least share of a coloured cube's area that a cube of the colour shows against the tray (every
cube is the same size: one that shows less is partly lost in the tray)."""
CLEAR_TOPS_SEPARATE = 0.45
"""The same for black and white whose tops stand clear of the tray (:data:`CLEAR_TOP`) and hold
together (their seams' core is measured): their side faces and blurred rims, as neutral as the
tray's shadow, may pass for it while the tops show whole. White on the shared sample's mid-grey
tray shows 0.54-0.80 of a coloured cube's area (0.54 through a 640 x 480 camera further up,
blurred), its tops 1.64-1.83 times the tray's lightness. A black or white whose tops do not
stand clear needs :data:`SEPARATE_FROM_TRAY`: white on a pale tray (its tops 1.27 times the
tray) showing 0.66 lost most of its cubes in rendered drops (seed 556: 15 of 40 drops read white
short and did not ask). Blacks and whites lost in their trays show 0.07-0.54, never hold
together as tops, and are lit within 10% of the tray (rendered light, pale and dark trays, seeds
501-508)."""
CLEAR_TOP = 1.4
"""How many times lighter than the bare tray (white) or darker (black) a colour's top faces
are when they stand clear of it."""
SEPARATE_FROM_COLOURS = 3.0
"""Least Mahalanobis distance from the nearest other colour."""
MID_GREY = "use a tray of another shade (a mid-grey tray suits all six colours)"
AREA_ERROR_LIMIT = 0.03
"""Standard error of a colour's one-cube area above which the report advises more cubes: a pile
read from its area is off by its size times this (nine cubes at 3%: a quarter cube) on top of its
cubes' own spread. Six cubes painted and turned as in the shared sample's photos give 3-4%."""


def grade(
    profile: Profile, samples: Sequence[Sample], verified: Sequence[dict[str, int]],
    hard_light: bool, paint_loses: Sequence[bool],
) -> Profile:
    """The profile with each colour graded, given each calibration photo's counts under it
    (``verified``, in the order of ``samples``), whether a single hard light casts the
    shadows (black tops mirror it), and whether each photo's cubes are lost or miscounted
    without asking when their paint is a little darker or lighter (``paint_loses``; paint
    varies from cube to cube)."""
    reference = float(np.median([m.area for m in profile.colours if m.name not in ACHROMATIC]))
    tray_grey = _tray_grey(profile)
    models, report = [], []
    for m, colour_sep in zip(profile.colours, _colour_separations(profile), strict=True):
        problems = _miscounted(m.name, samples, verified)
        tray_sep = min(1.0, m.area / reference)
        least = _least_separation(m, tray_grey)
        glare = m.name == "black" and hard_light
        fragile = any(s.colour == m.name and loses
                      for s, loses in zip(samples, paint_loses, strict=True))
        reliable = (m.reliable and not problems and tray_sep >= least
                    and colour_sep >= SEPARATE_FROM_COLOURS and not glare and not m.lift
                    and not m.shade and not m.outlined and not fragile)
        note = "" if reliable else m.note or _advice(
            m, glare, tray_sep < least, colour_sep, problems, fragile)
        grades = {"tray_separation": round(tray_sep, 3),
                  "colour_separation": round(colour_sep, 2), "reliable": reliable, "note": note}
        models.append(replace(m, **grades))
        report.append({"colour": m.name, **grades, "area_error": m.area_error})
    meta = {
        "report": report,
        "ratio_range": list(profile.ratio_range),
        "chroma_limit": profile.chroma_limit,
    }
    return replace(profile, colours=tuple(models), meta=meta)


def _tray_grey(profile: Profile) -> float:
    """The bare tray's median grey level on the floor (1..255: a black tray's is taken as 1)."""
    bg = profile.background()
    grey = cv2.cvtColor(bg, cv2.COLOR_BGR2GRAY)
    floor = pixels.roi_mask(profile.roi, (bg.shape[1], bg.shape[0])) > 0
    return max(1.0, float(np.median(grey[floor])))


def _least_separation(m: ColourModel, tray_grey: float) -> float:
    """The least share of a coloured cube's area that a cube of colour ``m`` must show against
    the tray (see :data:`SEPARATE_FROM_TRAY`)."""
    if m.name not in ACHROMATIC or m.core_frac <= 0:
        return SEPARATE_FROM_TRAY
    top = m.face_grey / tray_grey
    clear = top >= CLEAR_TOP if m.name == "white" else top <= 1 / CLEAR_TOP
    return CLEAR_TOPS_SEPARATE if clear else SEPARATE_FROM_TRAY


def _colour_separations(profile: Profile) -> list[float]:
    """Each colour's Mahalanobis distance (under the two colours' mean covariance) from the
    nearest other colour."""
    means = [np.array(m.mean) for m in profile.colours]
    covs = [np.array(m.cov) for m in profile.colours]
    out = []
    for i, mean in enumerate(means):
        out.append(min(
            math.sqrt(float((means[j] - mean) @ np.linalg.inv((covs[i] + covs[j]) / 2)
                            @ (means[j] - mean)))
            for j in range(len(means)) if j != i
        ))
    return out


def _miscounted(
    colour: str, samples: Sequence[Sample], verified: Sequence[dict[str, int]]
) -> list[str]:
    """The colour's own calibration photos that did not count right, as report lines."""
    problems = []
    for s, got in zip(samples, verified, strict=True):
        if s.colour != colour:
            continue
        others = sum(v for k, v in got.items() if k != colour)
        if got[colour] != s.n or others:
            problems.append(f"{Path(s.name).name} counted {got[colour]} of {s.n}"
                            + (f" (+{others} of other colours)" if others else ""))
    return problems


def _advice(
    m: ColourModel, glare: bool, blends: bool, colour_sep: float, problems: list[str],
    fragile: bool,
) -> str:
    """What to change so that an unreliable colour can be counted."""
    if m.lift:
        return (f"{m.name} blends into the tray and is found only by its slightly lighter "
                f"top: {MID_GREY}")
    if m.shade:
        return (f"{m.name} blends into the tray's shade and is found only by its darker top: "
                f"{MID_GREY}")
    if m.outlined:
        return f"{m.name} blends into the tray and is found only by its tops' outlines: {MID_GREY}"
    if glare:
        return ("black tops mirror a single hard light and look like the tray where they catch "
                "it: use diffuse light (a ring light)")
    if blends:
        return f"{m.name} blends into the tray: {MID_GREY}"
    if fragile:
        return (f"{m.name} cubes painted a little darker or lighter than these are lost in the "
                f"tray: {MID_GREY}")
    if colour_sep < SEPARATE_FROM_COLOURS:
        return (f"{m.name} looks too much like another colour under this light: "
                "use whiter, more even light")
    if problems:
        return "; ".join(problems) + ": retake the photo with the cubes apart, or check its name"
    return ""


def format_report(profile: Profile) -> str:
    """The short calibration report printed by ``python -m vision calibrate``."""
    side = math.sqrt(float(np.median([c.area for c in profile.colours]))) / profile.scale
    lines = [
        f"calibrated {profile.image_size[0]}x{profile.image_size[1]}, "
        f"working scale {profile.scale:.3f}, one cube ~{side:.0f} px wide"
    ]
    lines.append(f"{'colour':<8} {'vs tray':>8} {'vs colours':>10} {'area':>7}  status")
    for c in profile.colours:
        status = (
            "ok"
            if c.reliable
            else "WARNING: " + (c.note or "unreliable") + "; its counts will always ask for review"
        )
        if c.area_error > AREA_ERROR_LIMIT:
            status += "; lay more cubes in its photo for a surer area (4 times as many halve it)"
        error = f"±{c.area_error:.1%}" if c.area_error else "-"
        lines.append(
            f"{c.name:<8} {c.tray_separation:>8.0%} {c.colour_separation:>10.1f} {error:>7}  "
            f"{status}"
        )
    return "\n".join(lines)
