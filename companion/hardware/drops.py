"""The drop pipeline: a finished drop becomes a tower reading the session can trust or question.

Beam says the drop is over → lights on → photo → count by colour → compare with the beam's count
→ a reading with the photo, counts, confidence and every doubt → the session, which applies it
only when nothing is doubtful and the tower ledger can explain it. Anything that fails on the
way becomes "enter the counts by hand", never a crash.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from companion.errors import CompanionError
from companion.hardware.camera import CameraError, CameraOwner
from companion.session import SessionError, SessionService
from companion.store import Entry

log = logging.getLogger(__name__)

COLOURS = ("red", "yellow", "blue", "green", "black", "white")
JPEG_QUALITY = 92


class CounterLike(Protocol):
    """What the pipeline needs of :class:`vision.Counter`."""

    def count(self, frame: np.ndarray, expected_total: int | None = None) -> Any: ...


@dataclass(frozen=True)
class DropResult:
    """What one drop produced, for the dashboard and the log."""

    counts: Mapping[str, int]
    confidence: float
    needs_review: bool
    reasons: tuple[str, ...]
    beam_count: int | None
    photo: str | None = None
    annotated: str | None = None
    count_ms: float | None = None
    entries: tuple[Entry, ...] = field(default=())

    @property
    def by_hand(self) -> bool:
        return self.photo is None or self.count_ms is None


@dataclass
class DropPipeline:
    service: SessionService
    camera: CameraOwner | None
    counter: CounterLike | None
    lights: Callable[[bool], None] | None = None
    annotate: Callable[[np.ndarray, Any], np.ndarray] | None = None
    min_confidence: float = 0.9

    def process(self, session_id: str, beam_count: int | None) -> DropResult:
        """Photograph, count and report one finished drop to ``session_id``."""
        reasons: list[str] = []
        frame = None
        if self.camera is None:
            reasons.append("no camera: enter the counts by hand")
        else:
            self._switch_lights(True, reasons)
            try:
                frame = self.camera.capture()
            except CameraError as exc:
                reasons.append(f"the photo failed ({exc}): enter the counts by hand")
            finally:
                self._switch_lights(False, reasons)
        if frame is None:
            return self._by_hand(session_id, beam_count, reasons)
        reasons.extend(frame.warnings)
        photo = self._keep(session_id, frame.image)
        if self.counter is None:
            reasons.append("the tray is not calibrated: enter the counts by hand")
            return self._by_hand(session_id, beam_count, reasons, photo)
        started = time.perf_counter()
        try:
            result = self.counter.count(frame.image, expected_total=beam_count)
        except Exception as exc:  # a counter failure must never lose the drop
            log.exception("counting a drop photo failed")
            reasons.append(f"the photo could not be counted ({exc}): enter the counts by hand")
            return self._by_hand(session_id, beam_count, reasons, photo)
        count_ms = (time.perf_counter() - started) * 1000
        counts = {c: int(result.counts.get(c, 0)) for c in COLOURS}
        total = sum(counts.values())
        if beam_count is not None and beam_count != total:
            reasons.append(f"the beam counted {beam_count} cubes, the photo shows {total}")
        if result.needs_review:
            reasons.extend(r for r in result.reasons or ["the counter is not sure"]
                           if r not in reasons)
        if result.confidence < self.min_confidence:
            reasons.append(f"confidence {result.confidence:.0%} is low")
        annotated = None
        if self.annotate is not None:
            try:
                annotated = self._keep(session_id, self.annotate(frame.image, result))
            except Exception:  # the marked-up photo is a help, not a requirement
                log.exception("annotating a drop photo failed")
        return self._report(session_id, counts, float(result.confidence), reasons, beam_count,
                            photo, annotated, count_ms)

    def _by_hand(self, session_id: str, beam_count: int | None, reasons: list[str],
                 photo: str | None = None) -> DropResult:
        return self._report(session_id, dict.fromkeys(COLOURS, 0), 0.0, reasons, beam_count,
                            photo, None, None, source="manual")

    def _report(self, session_id: str, counts: dict[str, int], confidence: float,
                reasons: list[str], beam_count: int | None, photo: str | None,
                annotated: str | None, count_ms: float | None,
                source: str = "camera") -> DropResult:
        detail: dict[str, Any] = {"beam_count": beam_count, "reasons": reasons}
        if annotated:
            detail["annotated"] = annotated
        if count_ms is not None:
            detail["count_ms"] = round(count_ms, 1)
        entries: list[Entry] = []
        try:
            entries = self.service.add_reading(
                session_id,
                source="tower",
                command_json={"name": "report_drop", "args": {"counts": counts,
                                                             "source": source}},
                confidence=max(0.0, min(1.0, confidence)),
                needs_review=bool(reasons),
                media=photo,
                detail=detail,
            )
        except (SessionError, CompanionError) as exc:
            reasons = [*reasons, f"the session did not take the reading ({exc})"]
        review = bool(reasons) or any(e.payload.get("needs_review") for e in entries[:1])
        return DropResult(counts, confidence, review, tuple(reasons), beam_count, photo,
                          annotated, count_ms, tuple(entries))

    def _keep(self, session_id: str, image: np.ndarray) -> str | None:
        import cv2

        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if not ok:
            return None
        return self.service.store.put_media(data.tobytes(), "image/jpeg", session_id)

    def _switch_lights(self, on: bool, reasons: list[str]) -> None:
        if self.lights is None:
            return
        try:
            self.lights(on)
        except Exception as exc:  # a light that will not switch is not worth losing a drop
            log.exception("switching the light ring failed")
            if on:
                reasons.append(f"the light ring did not switch on ({exc})")
