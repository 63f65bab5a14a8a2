"""Find out what hardware this machine has and what the companion would simulate instead.

Looks without importing Pi-only modules (``find_spec`` only), so it runs anywhere.
"""

from __future__ import annotations

import glob
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

from companion.config import Config

PICO_USB_VENDOR = 0x2E8A  # Raspberry Pi (RP2040 boards, the tower's Pico)


@dataclass(frozen=True)
class Check:
    part: str
    found: bool
    detail: str
    mode: str  # "real", "simulated" or "—"


def board_model() -> str | None:
    path = Path("/proc/device-tree/model")
    try:
        return path.read_bytes().rstrip(b"\0").decode("utf-8", "replace")
    except OSError:
        return None


def _has_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def run_checks(config: Config, simulate: bool) -> list[Check]:
    checks: list[Check] = []
    version = ".".join(map(str, sys.version_info[:3]))
    checks.append(Check("python", sys.version_info >= (3, 11), version, "—"))
    model = board_model()
    is_pi = bool(model and "Raspberry Pi" in model)
    checks.append(Check("board", is_pi, model or "not a Raspberry Pi", "—"))

    gpio = is_pi and (_has_module("lgpio") or _has_module("RPi.GPIO"))
    gpio_detail = "lgpio pin factory" if gpio else "no GPIO pin factory (gpiozero MockFactory)"
    checks.append(Check("spinner (GPIO)", gpio, gpio_detail, _mode(gpio, simulate)))

    ports = []
    if _has_module("serial.tools.list_ports"):
        from serial.tools import list_ports

        ports = [p.device for p in list_ports.comports() if p.vid == PICO_USB_VENDOR]
    tower_detail = ", ".join(ports) if ports else "no Pico on USB serial (pseudo-terminal link)"
    checks.append(Check("tower (serial)", bool(ports), tower_detail, _mode(bool(ports), simulate)))

    cameras = sorted(glob.glob("/dev/video*"))
    picam = _has_module("picamera2")
    camera = picam or bool(cameras)
    if picam:
        camera_detail = "picamera2"
    elif cameras:
        camera_detail = ", ".join(cameras[:3])
    else:
        camera_detail = "no camera (rendered tray images)"
    checks.append(Check("camera", camera, camera_detail, _mode(camera, simulate)))

    db = config.db_path
    parent = db.parent if db.parent.exists() else Path.home()
    writable = _writable(parent)
    checks.append(Check("database", writable, str(db), "—"))
    return checks


def _mode(found: bool, simulate: bool) -> str:
    return "real" if found and not simulate else "simulated"


def _writable(path: Path) -> bool:
    import os

    return os.access(path, os.W_OK)


def format_checks(checks: list[Check]) -> str:
    width = max(len(c.part) for c in checks)
    lines = []
    for c in checks:
        mark = "ok " if c.found else "-- "
        mode = f"[{c.mode}]" if c.mode != "—" else ""
        lines.append(f"{mark}{c.part:<{width}}  {c.detail} {mode}".rstrip())
    return "\n".join(lines)
