"""Every firmware file compiles with mpy-cross, so MicroPython accepts its syntax."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from companion.hardware.sim.tower_device import FIRMWARE_DIR

FILES = sorted(FIRMWARE_DIR.glob("*.py"))


def test_the_firmware_has_its_modules() -> None:
    names = {f.stem for f in FILES}
    assert {"main", "pins", "tower", "beam", "button", "lights", "protocol", "ticks"} <= names


@pytest.mark.parametrize("source", FILES, ids=[f.name for f in FILES])
def test_firmware_file_compiles_with_mpy_cross(source: Path, tmp_path: Path) -> None:
    out = tmp_path / (source.stem + ".mpy")
    result = subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(out), str(source)],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert out.read_bytes()[:1] == b"M"  # the .mpy header


def test_mpy_cross_rejects_what_micropython_cannot_run(tmp_path: Path) -> None:
    """The check has teeth: a CPython-only construct fails to compile."""
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\nmatch x:\n    case 1:\n        pass\n")
    result = subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(tmp_path / "b.mpy"),
                             str(bad)], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode != 0


# What MicroPython on the Pico offers, plus the firmware's own modules.
MICROPYTHON_MODULES = {"array", "machine", "micropython", "neopixel", "os", "select", "sys",
                       "time"}


@pytest.mark.parametrize("source", FILES, ids=[f.name for f in FILES])
def test_firmware_imports_only_what_micropython_has(source: Path) -> None:
    """No typing, dataclasses or other CPython-only modules at run time."""
    own = {f.stem for f in FILES}
    imported = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0 and node.module, "relative imports do not work at the root"
            imported.add(node.module.split(".")[0])
    assert imported <= MICROPYTHON_MODULES | own, imported - MICROPYTHON_MODULES - own
