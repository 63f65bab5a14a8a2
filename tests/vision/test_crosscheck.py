"""A blob's first reading checked by its seams: seams shallower than the colour's calibrated
depth confirm a count the area already gives, and change nothing else."""

from __future__ import annotations

import numpy as np
import pytest

from vision.crosscheck import checked_reading
from vision.cues import cut_at_seams
from vision.profile import ColourModel

SIDE = 22
FACE = 200.0


def _chain(k: int, seam_dark: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A row of ``k`` flat tops touching side by side (mask, lightness), each seam between them
    a 2-pixel line ``seam_dark`` darker than the faces, the faces grained by a level or two."""
    w = k * SIDE
    sub = np.zeros((SIDE + 6, w + 6), np.uint8)
    sub[3 : 3 + SIDE, 3 : 3 + w] = 1
    grey = np.full(sub.shape, FACE) + rng.normal(0.0, 1.5, sub.shape)
    for i in range(1, k):
        x = 3 + i * SIDE
        grey[3 : 3 + SIDE, x - 1 : x + 1] = FACE * (1.0 - seam_dark)
    return sub, np.clip(grey, 0, 255).astype(np.uint8)


def _model(seam_depth: float) -> ColourModel:
    return ColourModel("yellow", (80.0, 0.0, 60.0), ((1.0, 0, 0), (0, 1.0, 0), (0, 0, 1.0)),
                       float(SIDE * SIDE), True, 1.0, 10.0, core_frac=1.0, face_grey=FACE,
                       seam_depth=seam_depth)


def _top(depth: float) -> float:
    """A lone top's seam-cut core, as calibration measures it."""
    sub, grey = _chain(1, 0.0, np.random.default_rng(0))
    cut = cut_at_seams(sub, grey, SIDE, depth)
    assert cut is not None
    return float(cut.sizes.max())


@pytest.mark.parametrize("k", [3, 4])
def test_shallower_seams_confirm_a_cluster_its_area_reads(k: int) -> None:
    """Seams 0.22 deep (:func:`~vision.cues.seam_hat`) where calibration set the depth at 0.3
    (one odd lone cube set it so: a fresh rig under a camera tilted 12 degrees, yellow): the
    calibrated depth cuts nothing, the shallower one cuts the tops apart, and their count
    confirms the area's (there a chain of four yellow cubes along the tray's wall, seams
    0.2-0.31 deep, was read from its area alone at 0.63)."""
    sub, grey = _chain(k, 0.35, np.random.default_rng(k))
    model = _model(0.3)
    assert cut_at_seams(sub, grey, SIDE, 0.3).sizes.size == 1  # the calibrated depth: one piece
    first = (k, 0.63, f"cluster of {k}")
    reading = checked_reading(first, float(k), sub, grey, SIDE, _top(0.3), FACE, model)
    assert reading.n == k
    assert reading.why == f"cluster of {k}; shallower seams agree"
    assert reading.confidence >= 0.9


def test_shallower_seams_that_disagree_change_nothing() -> None:
    """A chain of four whose area says three: the shallower seams' four do not overrule the
    area (only the calibrated depth's seams may), and the reading still asks."""
    sub, grey = _chain(4, 0.35, np.random.default_rng(4))
    first = (3, 0.63, "cluster of 3")
    reading = checked_reading(first, 3.4, sub, grey, SIDE, _top(0.3), FACE, _model(0.3))
    assert (reading.n, reading.confidence, reading.why) == first


def test_seams_at_the_calibrated_floor_are_not_tried_again() -> None:
    """A colour whose seams calibration left at the floor depth gets no second cut: seams too
    faint to cut there are the grain's."""
    sub, grey = _chain(4, 0.15, np.random.default_rng(5))  # 0.09 deep
    first = (4, 0.63, "cluster of 4")
    reading = checked_reading(first, 4.0, sub, grey, SIDE, _top(0.1), FACE, _model(0.1))
    assert (reading.n, reading.why) == (4, "cluster of 4")
