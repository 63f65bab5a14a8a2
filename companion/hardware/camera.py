"""Cameras for the tower tray behind one small interface, and the one thread that owns the device.

Adapters: picamera2 (the Pi's camera; imported only when opened), OpenCV ``VideoCapture`` (USB
webcams), a folder of images (replaying photos) and synthetic (a renderer fed by the simulated
tower). Exactly one thread talks to the device; callers ask it for a frame and wait.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from companion.errors import CompanionError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


class CameraError(CompanionError):
    pass


@dataclass(frozen=True)
class Frame:
    """A BGR image with where it came from and anything doubtful about how it was taken."""

    image: np.ndarray
    taken_at: float
    source: str
    metadata: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()


class Camera(Protocol):
    name: str

    def open(self) -> None: ...

    def grab(self) -> Frame: ...

    def close(self) -> None: ...


# --- picamera2 ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class LockedExposure:
    """Exposure and colour gains fixed after calibration, so drop photos match the profile."""

    exposure_us: int
    analogue_gain: float
    colour_gains: tuple[float, float]

    def controls(self) -> dict[str, Any]:
        return {
            "AeEnable": False,
            "AwbEnable": False,
            "ExposureTime": self.exposure_us,
            "AnalogueGain": self.analogue_gain,
            "ColourGains": self.colour_gains,
        }

    def mismatches(self, metadata: Mapping[str, Any], tolerance: float = 0.05) -> list[str]:
        """What the frame's metadata says differs from the lock (the sensor may not obey)."""
        out = []
        checks = [
            ("ExposureTime", self.exposure_us),
            ("AnalogueGain", self.analogue_gain),
        ]
        gains = metadata.get("ColourGains")
        for key, wanted in checks:
            got = metadata.get(key)
            if got is None or abs(float(got) - wanted) > tolerance * wanted:
                out.append(f"{key} is {got}, locked at {wanted}")
        if gains is None or any(
            abs(float(g) - w) > tolerance * w for g, w in zip(gains, self.colour_gains, strict=True)
        ):
            out.append(f"ColourGains are {gains}, locked at {self.colour_gains}")
        return out

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, Any]) -> LockedExposure:
        try:
            red, blue = metadata["ColourGains"]
            return cls(int(metadata["ExposureTime"]), float(metadata["AnalogueGain"]),
                       (float(red), float(blue)))
        except (KeyError, TypeError, ValueError) as exc:
            raise CameraError(f"the camera reported no exposure to lock ({exc})") from exc


class Picamera2Camera:
    """The Raspberry Pi camera: a still configuration, BGR frames, exposure locked if given."""

    name = "picamera2"

    def __init__(self, size: tuple[int, int] = (1280, 960),
                 lock: LockedExposure | None = None) -> None:
        self.size = size
        self.lock = lock
        self._camera: Any = None

    def open(self) -> None:
        try:
            from picamera2 import Picamera2  # Pi-only: imported here and nowhere else
        except ImportError as exc:
            raise CameraError(
                "picamera2 is not installed (on Raspberry Pi OS: sudo apt install "
                "python3-picamera2, and make the venv with --system-site-packages)"
            ) from exc
        try:
            camera = Picamera2()
            # "RGB888" is laid out B, G, R per pixel: what OpenCV expects.
            config = camera.create_still_configuration(main={"size": self.size,
                                                             "format": "RGB888"})
            camera.configure(config)
            if self.lock is not None:
                camera.set_controls(self.lock.controls())
            camera.start()
        except Exception as exc:  # the library raises RuntimeError, OSError, IndexError…
            raise CameraError(f"cannot start the Pi camera ({exc})") from exc
        self._camera = camera

    def grab(self) -> Frame:
        request = self._camera.capture_request()
        try:
            image = request.make_array("main")
            metadata = dict(request.get_metadata())
        finally:
            request.release()
        warnings = tuple(self.lock.mismatches(metadata)) if self.lock else ()
        return Frame(np.ascontiguousarray(image[:, :, :3]), time.time(), self.name, metadata,
                     warnings)

    def current_exposure(self) -> LockedExposure:
        """What auto-exposure settled on now: the values to lock after calibration."""
        return LockedExposure.from_metadata(self._camera.capture_metadata())

    def close(self) -> None:
        if self._camera is not None:
            try:
                self._camera.stop()
                self._camera.close()
            finally:
                self._camera = None


# --- OpenCV VideoCapture -----------------------------------------------------------------------
class OpenCVCamera:
    """A USB webcam (or a video file). Stale buffered frames are flushed before each grab."""

    name = "opencv"

    def __init__(self, device: int | str = 0, size: tuple[int, int] | None = (1280, 720),
                 flush: int = 4) -> None:
        self.device = device
        self.size = size
        self.flush = flush
        self._capture: Any = None

    def open(self) -> None:
        import cv2

        capture = cv2.VideoCapture(self.device)
        if not capture.isOpened():
            raise CameraError(f"cannot open camera '{self.device}'")
        if self.size is not None and isinstance(self.device, int):
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self._capture = capture

    def grab(self) -> Frame:
        for _ in range(self.flush if isinstance(self.device, int) else 0):
            self._capture.grab()
        ok, image = self._capture.read()
        if not ok or image is None:
            raise CameraError(f"camera '{self.device}' gave no frame")
        return Frame(image, time.time(), self.name, {"device": str(self.device)})

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


# --- a folder of photos ------------------------------------------------------------------------
class FolderCamera:
    """Replays photos from a folder in name order, one per grab; ``loop`` starts again."""

    name = "folder"

    def __init__(self, folder: str | Path, loop: bool = True) -> None:
        self.folder = Path(folder)
        self.loop = loop
        self._files: list[Path] = []
        self._next = 0

    def open(self) -> None:
        if not self.folder.is_dir():
            raise CameraError(f"{self.folder}: no such folder of photos")
        self._files = sorted(p for p in self.folder.iterdir()
                             if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self._files:
            raise CameraError(f"{self.folder}: no .jpg or .png photos in it")
        self._next = 0

    def grab(self) -> Frame:
        import cv2

        if self._next >= len(self._files):
            if not self.loop:
                raise CameraError(f"{self.folder}: no more photos")
            self._next = 0
        path = self._files[self._next]
        self._next += 1
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise CameraError(f"{path}: not a readable image")
        return Frame(image, time.time(), self.name, {"file": str(path)})

    def close(self) -> None:
        self._files = []


# --- synthetic ---------------------------------------------------------------------------------
class SyntheticCamera:
    """Simulation: each grab shows whatever the scene callable renders (the simulated tray)."""

    name = "synthetic"

    def __init__(self, scene: Callable[[], tuple[np.ndarray, Mapping[str, Any]]]) -> None:
        self.scene = scene

    def open(self) -> None:
        pass

    def grab(self) -> Frame:
        image, truth = self.scene()
        return Frame(image, time.time(), self.name, dict(truth))

    def close(self) -> None:
        pass


# --- the owner thread --------------------------------------------------------------------------
class CameraOwner:
    """The one thread that talks to a camera. Opens it lazily and again after a failure."""

    def __init__(self, camera: Camera, timeout_s: float = 10.0) -> None:
        self.camera = camera
        self.timeout_s = timeout_s
        self._requests: queue.Queue[tuple[Callable[[], Any], queue.Queue[Any]] | None] = (
            queue.Queue()
        )
        self._opened = False
        self.last_error: str | None = None
        self._thread = threading.Thread(target=self._run, name=f"camera-{camera.name}",
                                        daemon=True)
        self._thread.start()

    @property
    def state(self) -> str:
        if self.last_error:
            return f"error: {self.last_error}"
        return "ready" if self._opened else "idle"

    def capture(self) -> Frame:
        """A fresh frame, or :class:`CameraError` with the reason (never a hang)."""
        result = self._call(self._grab)
        assert isinstance(result, Frame)
        return result

    def call(self, action: Callable[[Camera], Any]) -> Any:
        """Run ``action(camera)`` on the owner thread (e.g. reading exposure to lock)."""
        return self._call(lambda: (self._ensure_open(), action(self.camera))[1])

    def close(self) -> None:
        if self._thread.is_alive():
            self._requests.put(None)
            self._thread.join(self.timeout_s)

    def _call(self, work: Callable[[], Any]) -> Any:
        if not self._thread.is_alive():
            raise CameraError("the camera has been closed")
        reply: queue.Queue[Any] = queue.Queue(maxsize=1)
        self._requests.put((work, reply))
        try:
            ok, value = reply.get(timeout=self.timeout_s)
        except queue.Empty:
            raise CameraError(f"the camera did not answer within {self.timeout_s:g} s") from None
        if not ok:
            raise value
        return value

    def _ensure_open(self) -> None:
        if not self._opened:
            self.camera.open()
            self._opened = True

    def _grab(self) -> Frame:
        self._ensure_open()
        return self.camera.grab()

    def _run(self) -> None:
        while True:
            item = self._requests.get()
            if item is None:
                break
            work, reply = item
            try:
                value = work()
                self.last_error = None
                reply.put((True, value))
            except Exception as exc:  # any device failure becomes a CameraError for the caller
                self.last_error = str(exc)
                if self._opened:
                    self._safe_close()
                error = exc if isinstance(exc, CameraError) else CameraError(
                    f"{self.camera.name} camera failed ({exc})")
                reply.put((False, error))
        self._safe_close()

    def _safe_close(self) -> None:
        with contextlib.suppress(Exception):  # a broken device must not kill the owner thread
            self.camera.close()
        self._opened = False


def make_camera(kind: str, device: str = "0", *, scene: Callable[[], Any] | None = None,
                lock: LockedExposure | None = None) -> Camera:
    """The adapter for a config's ``hardware.camera.kind``; ``auto`` prefers the Pi camera."""
    if kind == "auto":
        import importlib.util

        if importlib.util.find_spec("picamera2") is not None:
            kind = "picamera2"
        elif scene is not None:
            kind = "synthetic"
        else:
            kind = "opencv"
    if kind == "picamera2":
        return Picamera2Camera(lock=lock)
    if kind == "opencv":
        return OpenCVCamera(int(device) if device.isdigit() else device)
    if kind == "folder":
        return FolderCamera(device)
    if kind == "synthetic":
        if scene is None:
            raise CameraError("the synthetic camera needs the simulated tower to draw the tray")
        return SyntheticCamera(scene)
    raise CameraError(f"unknown camera kind '{kind}'")
