"""Profiles: versioned JSON, validated on load, every problem one line naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision import Profile, VisionError, load_profile
from vision.profile import PROFILE_VERSION


def test_round_trip_keeps_every_field(ring: tuple, tmp_path: Path) -> None:
    _, profile, _ = ring
    path = tmp_path / "p.json"
    profile.save(path)
    again = load_profile(path)
    assert json.loads(json.dumps(again.to_json())) == json.loads(path.read_text())
    assert again.colours == profile.colours and again.area_map == profile.area_map
    assert again.version == PROFILE_VERSION


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda d: d.pop("colours"), "colours"),
        (lambda d: d.update(version=99), "version 99"),
        (lambda d: d.update(version=1), "calibrate again"),
        (lambda d: d.update(format="other"), "not a vision profile"),
        (lambda d: d.update(scale=7), "scale"),
        (lambda d: d.update(ratio_range=[1.2, 0.9]), "ratio_range"),
        (lambda d: d["colours"][0].update(name="purple"), "purple"),
        (
            lambda d: d["colours"][1].update(cov=[[1, 0, 0], [0, -1, 0], [0, 0, 1]]),
            "positive definite",
        ),
        (lambda d: d["colours"].pop(), "each of"),
        (lambda d: d.update(background_png="AAAA"), "background_png"),
        (lambda d: d.update(area_map=[1, 2]), "area_map"),
        (lambda d: d["area_map"].update(nadir=[1]), "area_map.nadir"),
        (lambda d: d["area_map"].update(lift=-0.1), "area_map.lift"),
        (lambda d: d["area_map"].pop("level"), "missing field 'area_map.level'"),
        (lambda d: d["colours"][5].update(lift=-1.0), "lift"),
        (lambda d: d["colours"][4].update(shade=1.2), "'shade' must be under 1"),
        (lambda d: d["colours"][4].update(shade=-0.5), "'shade' must not be negative"),
        (lambda d: d["colours"][4].update(glint="bright"), "'glint' must be a number"),
        (lambda d: d["colours"][5].update(outlined="yes"), "'outlined' must be true or false"),
        (lambda d: d.update(crop=[0, 0, 100_000, 480]), "field 'crop' must be a box"),
        (lambda d: d.update(crop=[0.5, 0, 320, 240]), "field 'crop' must be a box"),
        (lambda d: d.update(crop=[40, 30, 360, 270]), "does not match the crop"),
    ],
)
def test_invalid_profile_is_one_line_naming_the_file(
    ring: tuple, tmp_path: Path, change, needle: str
) -> None:
    _, profile, _ = ring
    data = json.loads(json.dumps(profile.to_json()))
    change(data)
    path = _write(tmp_path, data)
    with pytest.raises(VisionError) as err:
        load_profile(path)
    msg = str(err.value)
    assert str(path) in msg and needle in msg and "\n" not in msg


def test_unreadable_or_not_json_profile(tmp_path: Path) -> None:
    with pytest.raises(VisionError, match="cannot read profile"):
        load_profile(tmp_path / "missing.json")
    bad = tmp_path / "x.json"
    bad.write_text("{not json")
    with pytest.raises(VisionError, match=r"x\.json: not valid JSON"):
        load_profile(bad)


def test_save_is_atomic_and_reports_unwritable_target(ring: tuple, tmp_path: Path) -> None:
    _, profile, _ = ring
    with pytest.raises(VisionError, match="cannot write profile"):
        profile.save(tmp_path / "no-such-dir" / "p.json")
    profile.save(tmp_path / "p.json")
    assert not list(tmp_path.glob("*.tmp"))
    assert isinstance(load_profile(tmp_path / "p.json"), Profile)
