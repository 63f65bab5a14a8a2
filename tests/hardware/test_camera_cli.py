"""`companion camera lock` stores the Pi camera's settled exposure; `capture` takes a photo with
the configured camera (for calibration folders). Issue 6: camera adapters."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.config import load_config
from companion.hardware.camera import Picamera2Camera
from companion.hardware.camera_cli import configured_camera, locked_exposure
from tests.hardware.fake_picamera2 import FakePicamera2


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


def test_lock_stores_what_auto_exposure_settled_on(tmp_path: Path,
                                                  fake_picamera2: type[FakePicamera2]) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[hardware.camera]\nkind = "picamera2"\n[server]\nport = 9001\n')
    code, text = run("camera", "lock", "--config", str(config))
    assert code == 0 and "locked exposure 8000 µs" in text
    loaded, _ = load_config(config)
    assert loaded.server.port == 9001  # the rest of the file is kept
    lock = locked_exposure(loaded.hardware.camera)
    assert lock is not None and lock.colour_gains == (1.8, 1.5)
    camera = configured_camera(loaded.hardware.camera)
    assert isinstance(camera, Picamera2Camera) and camera.lock == lock


def test_lock_needs_the_pi_camera(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f'[hardware.camera]\nkind = "folder"\ndevice = "{tmp_path}"\n')
    assert run("camera", "lock", "--config", str(config))[0] == 2
    assert "only the Pi camera" in capsys.readouterr().err


def test_capture_writes_a_photo_from_the_configured_camera(tmp_path: Path) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()
    cv2.imwrite(str(photos / "a.png"), np.full((40, 60, 3), 90, np.uint8))
    config = tmp_path / "c.toml"
    config.write_text(f'[hardware.camera]\nkind = "folder"\ndevice = "{photos}"\n')
    code, text = run("camera", "capture", str(tmp_path / "empty.png"), "--config", str(config))
    assert code == 0 and "60×40" in text
    assert cv2.imread(str(tmp_path / "empty.png")).shape == (40, 60, 3)
    assert run("camera", "capture", str(tmp_path / "x.gif"), "--config", str(config))[0] == 2
