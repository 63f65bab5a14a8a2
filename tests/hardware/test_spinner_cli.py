"""Spinner CLI plugin (companion.hardware.cli): calibrate and simulate, on a parser we build."""

from __future__ import annotations

import argparse
import io
import json
import tomllib
from pathlib import Path

import pytest

import companion.cli as companion_cli
import companion.hardware.spinner as spinner_module
from companion.config import load_config
from companion.hardware import cli as spinner_cli
from companion.hardware.spinner import SpinnerError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion")
    sub = parser.add_subparsers(dest="command", required=True)
    spinner_cli.register(sub)
    return parser


def _run(argv: list[str]) -> tuple[int, str]:
    args = _parser().parse_args(argv)
    out = io.StringIO()
    return args.run(args, out), out.getvalue()


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("TABLETOP_COMPANION_CONFIG", raising=False)
    monkeypatch.setattr(spinner_module, "is_raspberry_pi", lambda: False)


def test_spinner_cli_every_action_has_common_options_and_a_runner() -> None:
    for action in (["calibrate"], ["simulate"]):
        args = _parser().parse_args(["spinner", *action, "--config", "x.toml", "--db", "y.db"])
        assert args.config == "x.toml" and args.db == "y.db"
        assert callable(args.run)


def test_spinner_cli_simulate_json_scores_every_spin(tmp_path: Path) -> None:
    code, text = _run(["spinner", "simulate", "--spins", "30", "--seed", "4", "--json"])
    assert code == 0
    figures = json.loads(text)
    assert figures["spins"] == 30
    assert figures["correct"] + figures["ambiguous"] + figures["wrong"] + figures["missing"] == 30
    assert figures["wrong"] == 0
    for key in ("sustained_edge_rate_per_s", "cpu_us_per_edge", "peak_edge_rate_per_s"):
        assert figures[key] > 0


def test_spinner_cli_simulate_text_and_overrides() -> None:
    code, text = _run(["spinner", "simulate", "--spins", "5", "--steps-per-rev", "200",
                       "--index", "--max-rps", "4"])
    assert code == 0
    assert "5 spins at 2–4 rev/s" in text and "200 steps/rev" in text and "index on" in text
    code, text = _run(["spinner", "simulate", "--spins", "10", "--index", "--drop-rate", "0.01",
                       "--json"])
    figures = json.loads(text)
    assert figures["drop_rate"] == 0.01 and figures["missed_edges"] > 0
    assert figures["wrong"] == 0


def test_spinner_cli_simulate_rejects_bad_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _parser().parse_args(["spinner", "simulate", "--max-rps", "0"])
    assert "turns per second" in capsys.readouterr().err
    with pytest.raises(SpinnerError, match="--min-rps"):
        _run(["spinner", "simulate", "--min-rps", "8", "--max-rps", "4"])
    with pytest.raises(SpinnerError, match="steps_per_rev"):
        _run(["spinner", "simulate", "--steps-per-rev", "5"])
    with pytest.raises(SystemExit):
        _parser().parse_args(["spinner", "simulate", "--drop-rate", "0.5"])


def test_spinner_cli_calibrate_sim_stores_the_offset_and_keeps_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[server]\nport = 9123\n[hardware.spinner]\noffset_steps = 3\n")
    code, text = _run(["spinner", "calibrate", "--sim", "--config", str(path),
                       "--db", str(tmp_path / "other.db")])
    assert code == 0
    assert f"written to {path}" in text
    config, _ = load_config(path)
    assert config.server.port == 9123
    assert config.hardware.spinner.offset_steps != 3
    assert f"offset_steps = {config.hardware.spinner.offset_steps}" in text
    assert "other.db" not in path.read_text()  # --db is for this run, not for the file
    tomllib.loads(path.read_text())


def test_spinner_cli_calibrate_in_simulation_mode_then_no_reading_is_wrong(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[hardware]\nsimulate = true\n[hardware.spinner]\nuse_index = true\n")
    code, text = _run(["spinner", "calibrate", "--config", str(path)])
    assert code == 0
    assert "check: 12 spins, " in text and " 0 wrong" in text
    assert load_config(path)[0].hardware.spinner.use_index


def test_spinner_cli_calibrate_default_path_is_created(tmp_path: Path) -> None:
    code, _ = _run(["spinner", "calibrate", "--sim"])
    assert code == 0
    assert (tmp_path / "home/.config/tabletop-companion/config.toml").exists()


def test_spinner_cli_calibrate_without_a_pi_is_one_clear_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(companion_cli, "PLUGINS", ("companion.hardware.cli",))
    path = tmp_path / "config.toml"
    path.write_text("[server]\nport = 9000\n")
    code = companion_cli.main(["spinner", "calibrate", "--config", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "no Raspberry Pi GPIO" in err and "--sim" in err
    assert path.read_text() == "[server]\nport = 9000\n"  # nothing written


def test_spinner_cli_calibrate_bad_config_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[server\nport = ")
    with pytest.raises(companion_cli.ConfigError, match="not valid TOML"):
        _run(["spinner", "calibrate", "--sim", "--config", str(path)])
    assert path.read_text() == "[server\nport = "
    assert list(tmp_path.iterdir()) == [path]


def test_spinner_cli_calibrate_on_hardware_waits_for_enter_then_stores(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from gpiozero.pins.mock import MockFactory

    monkeypatch.setattr(spinner_cli, "hardware_pin_factory", MockFactory)
    monkeypatch.setattr("sys.stdin", io.StringIO("\n"))
    path = tmp_path / "config.toml"
    path.write_text("[hardware.spinner]\nsteps_per_rev = 80\nuse_index = false\n")
    code, text = _run(["spinner", "calibrate", "--config", str(path)])
    assert code == 0 and "Point the spinner at the middle of sector 1" in text
    # the encoder has not moved since power-up: the pointer rests half a step past zero
    assert load_config(path)[0].hardware.spinner.offset_steps == round(0.5 - 80 / 12) % 80


def test_spinner_cli_calibrate_on_hardware_without_confirmation_stores_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from gpiozero.pins.mock import MockFactory

    monkeypatch.setattr(spinner_cli, "hardware_pin_factory", MockFactory)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    path = tmp_path / "config.toml"
    path.write_text("[hardware.spinner]\noffset_steps = 7\n")
    with pytest.raises(SpinnerError, match="no confirmation"):
        _run(["spinner", "calibrate", "--config", str(path)])
    assert path.read_text() == "[hardware.spinner]\noffset_steps = 7\n"
