"""Counted cubes as the annotations and the dashboard draw them: a centre and an outline in
full-image pixels, from a blob found at the working scale."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

ToPhoto = Callable[[Any, Any], tuple[Any, Any]]
"""Working-image coordinates (numbers or arrays) to photo pixels (:meth:`Profile.to_photo`)."""


@dataclass(frozen=True)
class Detection:
    """One counted cube: where it is (full-image pixels), its outline, colour and score 0..1."""

    colour: str
    centre: tuple[float, float]
    outline: tuple[tuple[int, int], ...]
    score: float

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form."""
        return {
            "colour": self.colour,
            "centre": [round(self.centre[0], 1), round(self.centre[1], 1)],
            "outline": [list(p) for p in self.outline],
            "score": round(self.score, 3),
        }


def cube_detections(
    name: str,
    sub: np.ndarray,
    contour: np.ndarray,
    origin: tuple[int, int],
    n: int,
    conf: float,
    to_photo: ToPhoto,
) -> list[Detection]:
    """Split a blob (mask ``sub``, outline ``contour``, at ``origin`` of the working image) into
    ``n`` cube outlines by k-means on its pixels."""
    if n <= 0:
        return []
    if n == 1:
        return [detection(name, contour, origin, conf, to_photo)]
    ys, xs = np.nonzero(sub != 0)
    pts = np.stack([xs, ys], 1).astype(np.float32)
    # k-means on a subsample (outlines only need to be about right), then every pixel to
    # its nearest centre by a distance transform: a big pile costs a millisecond, not ten.
    step = max(1, len(pts) // (60 * n))
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_MAX_ITER, 10, 0.5)
    cv2.setRNGSeed(1)
    _, _, centres = cv2.kmeans(pts[::step], n, None, criteria, 1, cv2.KMEANS_PP_CENTERS)
    h, w = sub.shape
    cx = np.clip(np.rint(centres[:, 0]).astype(int), 0, w - 1)
    cy = np.clip(np.rint(centres[:, 1]).astype(int), 0, h - 1)
    seeds = np.ones((h, w), np.uint8)
    seeds[cy, cx] = 0
    _, nearest = cv2.distanceTransformWithLabels(
        seeds, cv2.DIST_L2, 3, labelType=cv2.DIST_LABEL_PIXEL
    )
    nearest[sub == 0] = 0
    out = []
    for k in sorted(set(int(v) for v in nearest[cy, cx])):
        part = (nearest == k).astype(np.uint8)
        contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if contours:
            out.append(detection(name, max(contours, key=cv2.contourArea), origin, conf, to_photo))
    while len(out) < n:  # two centres on one pixel: the blob's outline stands for both
        out.append(detection(name, contour, origin, conf, to_photo))
    return out[:n]


def detection(
    name: str, contour: np.ndarray, origin: tuple[int, int], conf: float, to_photo: ToPhoto
) -> Detection:
    """One cube from its outline in blob coordinates, mapped to full-image pixels."""
    ox, oy = origin
    m = cv2.moments(contour)
    if m["m00"] > 0:
        cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
    else:
        cx, cy = float(contour[0, 0, 0]), float(contour[0, 0, 1])
    poly = cv2.approxPolyDP(contour, 0.7, True)
    px, py = to_photo(poly[:, 0, 0] + ox + 0.5, poly[:, 0, 1] + oy + 0.5)
    pts = np.rint(np.stack([px, py], 1)).astype(int)
    outline = tuple(map(tuple, pts.tolist()))
    return Detection(name, to_photo(cx + ox + 0.5, cy + oy + 0.5), outline, conf)
