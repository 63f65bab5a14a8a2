"""Fixtures shared by the hardware tests."""

from __future__ import annotations

import sys
import types

import pytest

from tests.hardware.fake_picamera2 import FakePicamera2


@pytest.fixture
def fake_picamera2(monkeypatch: pytest.MonkeyPatch) -> type[FakePicamera2]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    return FakePicamera2
