"""The command-line contract: ``python -m vision calibrate`` and ``count`` exactly as specified."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from vision import COLOURS, scenes
from vision.__main__ import main

from .conftest import SIZE, drop

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def profile_path(calib_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("prof") / "tray.json"
    assert main(["calibrate", str(calib_dir), "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], list[dict]]:
    folder = tmp_path_factory.mktemp("photos")
    setup = scenes.condition("ring", SIZE)
    paths, truths = [], []
    for k, counts in enumerate([{"red": 2, "blue": 1}, {}, {"white": 2, "black": 2}]):
        img, truth = drop(setup, 300 + k, counts)
        path = folder / f"drop{k}.jpg"
        cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        paths.append(path)
        truths.append(truth.counts)
    return paths, truths


def test_calibrate_prints_a_report_per_colour(
    calib_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "p.json"
    assert main(["calibrate", str(calib_dir), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert all(c in text for c in COLOURS) and out.is_file()


def test_calibrate_error_is_one_line_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["calibrate", str(tmp_path), "--out", str(tmp_path / "p.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "empty.jpg" in err
    assert not (tmp_path / "p.json").exists()


def test_count_json_one_object_per_line_per_image(
    profile_path: Path, photos: tuple, capsys: pytest.CaptureFixture[str]
) -> None:
    paths, truths = photos
    assert main(["count", "--profile", str(profile_path), "--json", *map(str, paths)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == len(paths)
    for line, path, truth in zip(lines, paths, truths, strict=True):
        obj = json.loads(line)
        assert obj["image"] == str(path)
        assert set(obj["counts"]) == set(COLOURS)
        assert obj["counts"] == {c: truth.get(c, 0) for c in COLOURS}
        assert (
            isinstance(obj["needs_review"], bool) and 0 <= obj["confidence"] <= 1 and obj["ms"] > 0
        )


def test_unreadable_image_gives_an_error_line_and_the_others_are_counted(
    profile_path: Path, photos: tuple, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths, _ = photos
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"nope")
    assert (
        main(
            [
                "count",
                "--profile",
                str(profile_path),
                "--json",
                str(paths[0]),
                str(bad),
                str(paths[2]),
            ]
        )
        == 1
    )
    captured = capsys.readouterr()
    objs = [json.loads(x) for x in captured.out.strip().splitlines()]
    assert [o["image"] for o in objs] == [str(paths[0]), str(bad), str(paths[2])]
    assert "error" in objs[1] and "counts" in objs[0] and "counts" in objs[2]
    assert str(bad) in captured.err and captured.err.count("\n") == 1


def test_table_output_and_annotated_images(
    profile_path: Path, photos: tuple, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths, _ = photos
    out_dir = tmp_path / "ann"
    assert (
        main(
            ["count", "--profile", str(profile_path), "--annotate", str(out_dir), *map(str, paths)]
        )
        == 0
    )
    table = capsys.readouterr().out
    assert "red" in table and "review" in table and "drop0" in table
    written = sorted(out_dir.glob("*.jpg"))
    assert [p.name for p in written] == [
        "drop0.annotated.jpg",
        "drop1.annotated.jpg",
        "drop2.annotated.jpg",
    ]
    original = cv2.imread(str(paths[0]))
    annotated = cv2.imread(str(written[0]))
    assert annotated.shape == original.shape and (annotated != original).any()


def test_bad_profile_is_an_error_exit(
    tmp_path: Path, photos: tuple, capsys: pytest.CaptureFixture[str]
) -> None:
    prof = tmp_path / "p.json"
    prof.write_text("[]")
    assert main(["count", "--profile", str(prof), str(photos[0][0])]) == 2
    assert str(prof) in capsys.readouterr().err


def test_module_runs_as_a_program(profile_path: Path, photos: tuple) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "vision",
            "count",
            "--profile",
            str(profile_path),
            "--json",
            str(photos[0][0]),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["image"] == str(photos[0][0])


def test_a_reader_that_stops_reading_ends_the_run_quietly(
    profile_path: Path, photos: tuple
) -> None:
    """``count --json ... | head -1``: the next line meets a closed pipe; no traceback."""
    run = subprocess.Popen(
        [sys.executable, "-m", "vision", "count", "--profile", str(profile_path), "--json",
         *[str(p) for p in photos[0] * 200]],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
    )
    assert run.stdout is not None and run.stderr is not None
    assert "counts" in json.loads(run.stdout.readline())
    run.stdout.close()
    err = run.stderr.read().decode()
    assert run.wait(timeout=120) == 1
    assert "Traceback" not in err and "BrokenPipe" not in err
