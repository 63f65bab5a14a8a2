"""Draw what was counted onto the photo, for people and for the dashboard.

Every counted cube gets its outline in its colour and a short label; blobs the counter was unsure
of get a yellow box with a question mark; a header line gives the counts and whether the reading
needs review.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.count import CountResult
from vision.profile import COLOURS

DRAW_BGR: dict[str, tuple[int, int, int]] = {
    "red": (40, 40, 230),
    "yellow": (0, 220, 255),
    "blue": (230, 110, 20),
    "green": (60, 190, 40),
    "black": (30, 30, 30),
    "white": (250, 250, 250),
}
SHORT = {"red": "R", "yellow": "Y", "blue": "B", "green": "G", "black": "K", "white": "W"}


def _text(
    img: np.ndarray, text: str, org: tuple[int, int], scale: float, colour: tuple[int, int, int]
) -> None:
    """Text with a dark halo so it reads on any tray."""
    thick = max(1, round(scale * 2))
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), thick + 2, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def annotate(frame: np.ndarray, result: CountResult) -> np.ndarray:
    """A copy of ``frame`` with the detections of ``result`` drawn on it, and a box around each
    doubtful reading."""
    out = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    w = out.shape[1]
    size = max(0.35, w / 1800)
    line = max(1, round(w / 640))
    for det in result.detections:
        pts = np.array(det.outline, np.int32).reshape(-1, 1, 2)
        edge = DRAW_BGR[det.colour]
        cv2.polylines(out, [pts], True, (0, 0, 0), line + 2, cv2.LINE_AA)
        cv2.polylines(out, [pts], True, edge, line, cv2.LINE_AA)
        cx, cy = round(det.centre[0]), round(det.centre[1])
        _text(
            out,
            SHORT[det.colour],
            (cx - round(6 * size * 2), cy + round(6 * size * 2)),
            size,
            (255, 255, 255),
        )
    for blob in result.blobs:
        if min(blob.confidence, 1.0 - blob.hidden) < 0.9:  # slivers (n = 0) are marked too
            x, y, bw, bh = blob.box
            cv2.rectangle(
                out, (x - 3, y - 3), (x + bw + 3, y + bh + 3), (0, 215, 255), line, cv2.LINE_AA
            )
            _text(out, "?", (x + bw + 4, y + round(14 * size * 2)), size * 1.2, (0, 215, 255))
    counts = "  ".join(f"{SHORT[c]}{result.counts[c]}" for c in COLOURS)
    status = "CHECK" if result.needs_review else "ok"
    header = f"{counts}   total {result.total}   conf {result.confidence:.2f}  {status}"
    bar = round(34 * size * 2)
    cv2.rectangle(out, (0, 0), (w, bar), (0, 0, 0), -1)
    _text(
        out,
        header,
        (8, round(bar * 0.72)),
        size * 1.1,
        (0, 215, 255) if result.needs_review else (255, 255, 255),
    )
    return out
