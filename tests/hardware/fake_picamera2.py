"""A stand-in for the Pi-only picamera2 library: records what the adapter asked of it."""

from __future__ import annotations

from typing import Any

import numpy as np


def picture(value: int, size: tuple[int, int] = (48, 64)) -> np.ndarray:
    return np.full((*size, 3), value, np.uint8)


class FakeRequest:
    def __init__(self, metadata: dict[str, Any]) -> None:
        self.metadata = metadata
        self.released = False

    def make_array(self, name: str) -> np.ndarray:
        assert name == "main"
        return picture(77)

    def get_metadata(self) -> dict[str, Any]:
        return self.metadata

    def release(self) -> None:
        self.released = True


class FakePicamera2:
    """Stands in for the Pi-only library: records what the adapter asked of it."""

    last: FakePicamera2 | None = None

    def __init__(self) -> None:
        FakePicamera2.last = self
        self.controls: dict[str, Any] = {}
        self.config: Any = None
        self.started = False
        self.metadata = {"ExposureTime": 8000, "AnalogueGain": 2.0, "ColourGains": (1.8, 1.5)}
        self.requests: list[FakeRequest] = []

    def create_still_configuration(self, main: dict[str, Any]) -> dict[str, Any]:
        return {"main": main}

    def configure(self, config: Any) -> None:
        self.config = config

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.controls.update(controls)

    def start(self) -> None:
        self.started = True

    def capture_request(self) -> FakeRequest:
        self.requests.append(FakeRequest(dict(self.metadata)))
        return self.requests[-1]

    def capture_metadata(self) -> dict[str, Any]:
        return dict(self.metadata)

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        pass
