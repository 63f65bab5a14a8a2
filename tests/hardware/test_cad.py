"""Printable models (hardware/cad/*.scad): each renders with OpenSCAD, lies flat on the bed, and
has the dimensions the build needs (tray for 40 cubes in one layer, camera at the height its
field of view needs)."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from companion.hardware.pins import REPO

CAD = REPO / "hardware" / "cad"
MODELS = ("tower", "tray", "camera_mount", "encoder_mount")
OPENSCAD = shutil.which("openscad")

pytestmark = pytest.mark.skipif(
    OPENSCAD is None,
    reason="openscad is not installed (Debian package 'openscad'; tests/system_deps.sh "
           "installs it)",
)


def _openscad(model: str, out: Path) -> str:
    assert OPENSCAD is not None
    done = subprocess.run([OPENSCAD, "-o", str(out), str(CAD / f"{model}.scad")],
                          capture_output=True, text=True, timeout=240, check=False)
    log = done.stdout + done.stderr
    assert done.returncode == 0, f"{model}.scad failed:\n{log}"
    assert "WARNING" not in log and "ERROR" not in log, f"{model}.scad:\n{log}"
    return log


def _echoes(model: str, tmp_path: Path) -> dict[str, str]:
    """The model's echo() values, without rendering its geometry (OpenSCAD's .echo export)."""
    out = tmp_path / f"{model}.echo"
    _openscad(model, out)
    found: dict[str, str] = {}
    for line in out.read_text().splitlines():
        for key, value in re.findall(r"(\w+) = (\[[^\]]*\]|[^,]+)", line.removeprefix("ECHO: ")):
            found[key] = value.strip()
    return found


def _vector(text: str) -> list[float]:
    return [float(v) for v in text.strip("[]").split(",")]


@pytest.mark.parametrize("model", MODELS)
def test_cad_model_renders_to_a_solid_lying_on_the_bed(model: str, tmp_path: Path) -> None:
    stl = tmp_path / f"{model}.stl"
    _openscad(model, stl)
    vertices = [tuple(map(float, m)) for m in re.findall(
        r"vertex\s+(\S+)\s+(\S+)\s+(\S+)", stl.read_text())]
    assert len(vertices) > 100, f"{model}: empty or trivial geometry"
    zs = [v[2] for v in vertices]
    assert min(zs) == pytest.approx(0.0, abs=1e-6), f"{model}: not flat on the print bed"
    for axis in range(3):
        extent = max(v[axis] for v in vertices) - min(v[axis] for v in vertices)
        assert extent <= 300, f"{model}: {extent:.0f} mm does not fit a 300 mm printer"


def test_cad_tray_holds_forty_cubes_in_one_layer(tmp_path: Path) -> None:
    echo = _echoes("tray", tmp_path)
    width, depth = _vector(echo["tray_inner"])
    cubes, cube = 40, 10
    assert width * depth >= 3 * cubes * cube * cube  # room to lie apart, not only to pack
    assert min(width, depth) >= 6 * cube
    assert float(echo["tray_floor_per_cube"]) == pytest.approx(width * depth / (cubes * 100))


def test_cad_camera_height_follows_its_field_of_view(tmp_path: Path) -> None:
    tray_w, tray_d = _vector(_echoes("tray", tmp_path)["tray_inner"])
    echo = _echoes("camera_mount", tmp_path)
    height = float(echo["camera_height"])
    view_w, view_d = _vector(echo["camera_view"])
    assert view_w >= tray_w and view_d >= tray_d  # the whole floor is in the picture
    hfov, vfov = 66, 41  # Raspberry Pi Camera Module 3, standard lens
    expected = max(view_w / 2 / math.tan(math.radians(hfov / 2)),
                   view_d / 2 / math.tan(math.radians(vfov / 2)))
    assert height == pytest.approx(expected, abs=0.01)
    # the gallows puts the lens there, over the middle of the tray
    lens = dict(zip(("above", "over"), (float(echo["lens_above_floor"]),
                                        float(echo["lens_over_tray_x"])), strict=True))
    assert lens["above"] == pytest.approx(height, abs=0.01)
    assert lens["over"] == pytest.approx((tray_w + 2 * 3) / 2, abs=0.01)
    # and no higher than needed: the long side or the short side just fills the frame
    assert (view_w / 2 / math.tan(math.radians(hfov / 2)) == pytest.approx(height, abs=0.01)
            or view_d / 2 / math.tan(math.radians(vfov / 2)) == pytest.approx(height, abs=0.01))


def test_cad_tower_exit_fits_cubes_and_the_beam_sees_them(tmp_path: Path) -> None:
    echo = _echoes("tower", tmp_path)
    cube = 10
    assert float(echo["tower_channel"]) >= 4 * cube
    assert float(_echoes("tray", tmp_path)["tray_entry"]) >= float(echo["tower_channel"])
    assert float(echo["exit_height"]) >= 2 * cube
    assert 0 < float(echo["beam_above_ramp"]) < cube  # every cube breaks the beam
    assert int(echo["baffles"]) >= 3


def test_cad_encoder_mount_holds_the_encoder_and_grips_its_shaft(tmp_path: Path) -> None:
    echo = _echoes("encoder_mount", tmp_path)
    body_d, body_len = _vector(echo["encoder_body"])
    inside_d, inside_h = _vector(echo["cup_inside"])
    assert body_d < inside_d <= body_d + 1.5  # holds it without rattling
    assert inside_h >= body_len + 10  # room for the cable's bend
    assert 6.0 <= float(echo["hub_bore"]) <= 6.2  # press fit on the 6 mm shaft
