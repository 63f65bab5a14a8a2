"""``companion camera lock`` and ``companion camera capture``: a CLI plugin.

A tray is calibrated once under fixed light, so the Pi camera's exposure and colour gains must
stay as they were: ``lock`` stores what auto-exposure settled on in the config, and every later
photo (the calibration photos taken with ``capture``, and every drop) uses and checks it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from companion.cli import CliError, add_common_options, config_from_args
from companion.config import CameraConfig, ConfigError, update_config_file
from companion.hardware.camera import (
    Camera,
    CameraError,
    CameraOwner,
    LockedExposure,
    Picamera2Camera,
    make_camera,
)


def register(subparsers: Any) -> None:
    group = subparsers.add_parser("camera", help="lock the Pi camera's exposure, take photos")
    actions = group.add_subparsers(dest="camera_action", required=True, metavar="ACTION")
    p = actions.add_parser("lock", help="store the exposure and colour gains the camera "
                                        "settled on, so every later photo matches")
    add_common_options(p)
    p.set_defaults(run=cmd_lock)
    p = actions.add_parser("capture", help="take one photo with the configured camera (for a "
                                           "calibration folder: empty.jpg, red-6.jpg, ...)")
    add_common_options(p)
    p.add_argument("out", metavar="FILE", help="where to write the photo (.jpg or .png)")
    p.set_defaults(run=cmd_capture)


def locked_exposure(config: CameraConfig) -> LockedExposure | None:
    if config.exposure_us is None or config.analogue_gain is None or config.colour_gains is None:
        return None
    return LockedExposure(config.exposure_us, config.analogue_gain, config.colour_gains)


def configured_camera(config: CameraConfig) -> Camera:
    try:
        return make_camera(config.kind, config.device, lock=locked_exposure(config))
    except CameraError as exc:
        raise CliError(str(exc)) from exc


def cmd_lock(args: argparse.Namespace, out: TextIO) -> int:
    config = config_from_args(args)
    camera = configured_camera(config.hardware.camera)
    if not isinstance(camera, Picamera2Camera):
        raise CliError(f"only the Pi camera's exposure can be locked, not a {camera.name} "
                       "camera's (set hardware.camera.kind = \"picamera2\")")
    camera.lock = None  # read what auto-exposure settles on now, not the old lock
    owner = CameraOwner(camera)
    try:
        owner.capture()  # let auto-exposure settle on a real frame first
        lock = owner.call(lambda cam: cam.current_exposure())
    except CameraError as exc:
        raise CliError(str(exc)) from exc
    finally:
        owner.close()
    try:
        target = update_config_file(args.config, ("hardware", "camera"), {
            "exposure_us": lock.exposure_us, "analogue_gain": lock.analogue_gain,
            "colour_gains": list(lock.colour_gains)})
    except ConfigError as exc:
        raise CliError(str(exc)) from exc
    print(f"locked exposure {lock.exposure_us} µs, gain {lock.analogue_gain:.2f}, colour gains "
          f"{lock.colour_gains[0]:.2f}/{lock.colour_gains[1]:.2f} in {target}", file=out)
    return 0


def cmd_capture(args: argparse.Namespace, out: TextIO) -> int:
    import cv2

    config = config_from_args(args)
    path = Path(args.out)
    if path.suffix.lower() not in (".jpg", ".jpeg", ".png"):
        raise CliError(f"{path}: the photo must be a .jpg or .png file")
    owner = CameraOwner(configured_camera(config.hardware.camera))
    try:
        frame = owner.capture()
    except CameraError as exc:
        raise CliError(str(exc)) from exc
    finally:
        owner.close()
    if not cv2.imwrite(str(path), frame.image):
        raise CliError(f"{path}: cannot write the photo")
    height, width = frame.image.shape[:2]
    print(f"wrote {path} ({width}×{height}, {frame.source})", file=out)
    for warning in frame.warnings:
        print(f"warning: {warning}", file=out)
    return 0
