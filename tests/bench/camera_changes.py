"""The same photos as another camera of the same rig would take them: smaller, in dim and noisy
light, slanted, under a warm cast, blurred, dim and blurred at once, smaller and further up
(sharp, blurred or smoothed), or turned about its axis; or lit by a lamp to one side. Ground
truth counts stay true, so any folder in the samples' layout measures the counter under
conditions its own photos do not show."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np


def _jpeg(img: np.ndarray, quality: int) -> np.ndarray:
    return cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], 1)


def half(img: np.ndarray) -> np.ndarray:
    """A camera of half the resolution (1280 x 960 -> 640 x 480)."""
    h, w = img.shape[:2]
    return _jpeg(cv2.resize(img, (w // 2, h // 2), interpolation=cv2.INTER_AREA), 90)


def dim(img: np.ndarray) -> np.ndarray:
    """A dim light: 0.42 of the exposure and read noise of 4 grey levels."""
    rng = np.random.default_rng(int(img[::97, ::89].sum()))
    return np.clip(img * 0.42 + rng.normal(0.0, 4.0, img.shape), 0, 255).astype(np.uint8)


def keystone(img: np.ndarray) -> np.ndarray:
    """A slanted view: the far edge 12% narrower than the near one."""
    h, w = img.shape[:2]
    corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    moved = np.float32([[0.06 * w, 0], [0.94 * w, 0], [w, h], [0, h]])
    m = cv2.getPerspectiveTransform(corners, moved)
    return cv2.warpPerspective(img, m, (w, h), borderMode=cv2.BORDER_REPLICATE)


def warm(img: np.ndarray) -> np.ndarray:
    """A warm cast (tungsten): blue down a quarter, red up 15%."""
    return np.clip(img * np.array([0.75, 1.0, 1.15]), 0, 255).astype(np.uint8)


def blur(img: np.ndarray) -> np.ndarray:
    """Mild defocus and strong JPEG compression."""
    return _jpeg(cv2.GaussianBlur(img, (0, 0), 1.6), 55)


def far(img: np.ndarray) -> np.ndarray:
    """A camera of half the resolution further up: the tray fills 0.7 of the frame (the table
    around it continued from the frame's edge)."""
    h, w = img.shape[:2]
    small = cv2.resize(img, (round(0.7 * w), round(0.7 * h)), interpolation=cv2.INTER_AREA)
    top, left = (h - small.shape[0]) // 2, (w - small.shape[1]) // 2
    wide = cv2.copyMakeBorder(small, top, h - small.shape[0] - top, left,
                              w - small.shape[1] - left, cv2.BORDER_REPLICATE)
    return half(wide)


def rolled(img: np.ndarray) -> np.ndarray:
    """A camera turned 4 degrees about its axis and 8% closer (the frame's corners then hold
    no border): the tray's rim reaches the frame's edge."""
    h, w = img.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), 4.0, 1.08)
    return cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def lamp(img: np.ndarray) -> np.ndarray:
    """Lit by a lamp to one side: the photo's values scaled from 1.1 on the lamp's side down to
    0.8 on the far side, which gets about half the light."""
    w = img.shape[1]
    fall = np.linspace(0.8, 1.1, w, dtype=np.float32)[None, :, None]  # the lamp on the right
    return np.clip(img * fall, 0, 255).astype(np.uint8)


def dim_blur(img: np.ndarray) -> np.ndarray:
    """A dim room and a cheap camera at once: :func:`dim`, then :func:`blur`."""
    return blur(dim(img))


def far_blur(img: np.ndarray) -> np.ndarray:
    """A cheap camera further up: :func:`far`, then :func:`blur` (cubes about 18 pixels wide,
    their rims smeared over 3)."""
    return blur(far(img))


def far_smoothed(img: np.ndarray) -> np.ndarray:
    """A camera further up whose processing smooths noise away: :func:`far`, then an
    edge-keeping filter that flattens each face's grain and softens its rims."""
    return cv2.bilateralFilter(far(img), 9, 40, 5)


CHANGES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "half": half,
    "dim": dim,
    "keystone": keystone,
    "warm": warm,
    "blur": blur,
    "dim+blur": dim_blur,
    "far": far,
    "rolled": rolled,
    "lamp": lamp,
    "far+blur": far_blur,
    "far+smoothed": far_smoothed,
}
