"""Camera adapters behind one interface, and the single owner thread (issue 6: camera adapters)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.hardware.camera import (
    CameraError,
    CameraOwner,
    FolderCamera,
    Frame,
    LockedExposure,
    OpenCVCamera,
    Picamera2Camera,
    SyntheticCamera,
    make_camera,
)
from tests.hardware.fake_picamera2 import FakePicamera2, picture


def test_folder_camera_replays_photos_in_order_and_loops(tmp_path: Path) -> None:
    for i, value in enumerate((10, 20, 30)):
        cv2.imwrite(str(tmp_path / f"{i:03}.png"), picture(value))
    (tmp_path / "notes.txt").write_text("not a photo")
    camera = FolderCamera(tmp_path)
    camera.open()
    seen = [int(camera.grab().image[0, 0, 0]) for _ in range(4)]
    assert seen == [10, 20, 30, 10]
    once = FolderCamera(tmp_path, loop=False)
    once.open()
    for _ in range(3):
        once.grab()
    with pytest.raises(CameraError, match="no more photos"):
        once.grab()


def test_folder_camera_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="no such folder"):
        FolderCamera(tmp_path / "nope").open()
    with pytest.raises(CameraError, match=r"no \.jpg or \.png"):
        FolderCamera(tmp_path).open()
    (tmp_path / "broken.jpg").write_bytes(b"\xff\xd8 not really a jpeg")
    camera = FolderCamera(tmp_path)
    camera.open()
    with pytest.raises(CameraError, match=r"broken\.jpg: not a readable image"):
        camera.grab()


def test_opencv_camera_reads_a_real_capture(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    assert writer.isOpened()
    for value in (50, 120, 200):
        writer.write(picture(value))
    writer.release()
    camera = OpenCVCamera(str(path))
    camera.open()
    frame = camera.grab()
    assert frame.image.shape == (48, 64, 3) and abs(int(frame.image.mean()) - 50) < 8
    camera.close()
    with pytest.raises(CameraError, match="cannot open camera"):
        OpenCVCamera(str(tmp_path / "missing.avi")).open()


def test_picamera2_still_bgr_and_locked_exposure(fake_picamera2: type[FakePicamera2]) -> None:
    lock = LockedExposure(8000, 2.0, (1.8, 1.5))
    camera = Picamera2Camera(lock=lock)
    camera.open()
    device = fake_picamera2.last
    assert device is not None
    assert device.config["main"]["format"] == "RGB888" and device.started
    assert device.controls["AeEnable"] is False and device.controls["ExposureTime"] == 8000
    frame = camera.grab()
    assert frame.warnings == () and device.requests[-1].released
    device.metadata["ExposureTime"] = 16000  # the sensor did not obey the lock
    assert "ExposureTime is 16000" in camera.grab().warnings[0]
    assert camera.current_exposure() == LockedExposure(16000, 2.0, (1.8, 1.5))


def test_picamera2_missing_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(CameraError, match="python3-picamera2"):
        Picamera2Camera().open()


class Flaky:
    name = "flaky"

    def __init__(self) -> None:
        self.opens = 0
        self.fail_next = True
        self.threads: set[str] = set()

    def open(self) -> None:
        self.opens += 1

    def grab(self) -> Frame:
        self.threads.add(threading.current_thread().name)
        if self.fail_next:
            self.fail_next = False
            raise OSError("USB reset")
        return Frame(picture(1), 0.0, self.name)

    def close(self) -> None:
        pass


def test_owner_thread_turns_failures_into_errors_and_reopens() -> None:
    camera = Flaky()
    owner = CameraOwner(camera)
    with pytest.raises(CameraError, match="flaky camera failed \\(USB reset\\)"):
        owner.capture()
    assert owner.state.startswith("error")
    assert owner.capture().source == "flaky"
    assert camera.opens == 2 and owner.state == "ready"
    assert camera.threads == {"camera-flaky"}  # only the owner thread touched the device
    owner.close()
    with pytest.raises(CameraError, match="closed"):
        owner.capture()


def test_owner_never_hangs_on_a_stuck_camera() -> None:
    release = threading.Event()

    def stuck() -> tuple[np.ndarray, dict[str, Any]]:
        release.wait(5)
        return picture(0), {}

    owner = CameraOwner(SyntheticCamera(stuck), timeout_s=0.2)
    with pytest.raises(CameraError, match="did not answer"):
        owner.capture()
    release.set()
    owner.close()


def test_make_camera_picks_adapters(tmp_path: Path) -> None:
    assert isinstance(make_camera("folder", str(tmp_path)), FolderCamera)
    assert isinstance(make_camera("opencv", "0"), OpenCVCamera)
    assert isinstance(make_camera("synthetic", scene=lambda: (picture(0), {})), SyntheticCamera)
    assert isinstance(make_camera("auto", scene=lambda: (picture(0), {})), SyntheticCamera)
    with pytest.raises(CameraError, match="needs the simulated tower"):
        make_camera("synthetic")
