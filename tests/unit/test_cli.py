"""The companion CLI: every command has --help; errors are one line and a non-zero exit."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from companion.cli import build_parser, main
from companion.games import GameRegistry
from companion.session import SessionService
from companion.store import Store
from tests.conftest import TALLY


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "c.toml"
    path.write_text(f'[storage]\ndb = "{tmp_path / "c.db"}"\n[games]\nextra = ["{TALLY}"]\n')
    return path


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


def played_session(db: Path) -> str:
    store = Store(db)
    service = SessionService(store, GameRegistry([TALLY]))
    sid = service.create("tally", {"seats": [{"name": "Ann"}, {"name": "Bob"}],
                                   "options": {"window_s": None}}).id
    service.submit(sid, {"name": "spin", "args": {"value": 4}}, actor="host", state_id=0)
    service.submit(sid, {"name": "add", "args": {"n": 2}, "seat": 0}, actor="seat:0",
                   state_id=1)
    store.put_media(b"\x89PNG fake", "image/png", sid)
    service.close()
    store.close()
    return sid


def test_every_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert {"serve", "sessions", "replay", "export", "import", "doctor", "config",
            "selfplay"} <= set(commands)
    for name in commands:
        with pytest.raises(SystemExit) as done:
            main([name, "--help"])
        assert done.value.code == 0
        assert "usage: companion " + name in capsys.readouterr().out


def test_sessions_and_replay(config: Path, tmp_path: Path) -> None:
    sid = played_session(tmp_path / "c.db")
    code, out = run("sessions", "--config", str(config))
    assert code == 0 and sid in out and "Ann, Bob" in out
    code, out = run("replay", sid, "--config", str(config), "--json")
    assert code == 0 and json.loads(out)["state"]["total"] == 2
    code, out = run("replay", sid, "--config", str(config), "--json", "--to", "1")
    assert json.loads(out)["state"]["total"] == 0 and json.loads(out)["seq"] == 1
    code, out = run("replay", sid, "--config", str(config))
    assert code == 0 and "after entry 2" in out


def test_export_import_replay_gives_identical_states(config: Path, tmp_path: Path) -> None:
    sid = played_session(tmp_path / "c.db")
    archive = tmp_path / "s.zip"
    assert run("export", sid, "-o", str(archive), "--config", str(config))[0] == 0
    _, original = run("replay", sid, "--config", str(config), "--json")
    other = tmp_path / "other.db"
    code, out = run("import", str(archive), "--config", str(config), "--db", str(other))
    assert code == 0 and "2 entries" in out
    _, imported = run("replay", sid, "--config", str(config), "--db", str(other), "--json")
    assert imported == original
    a, b = Store(tmp_path / "c.db"), Store(other)
    assert a.entries(sid) == b.entries(sid) and a.session(sid) == b.session(sid)
    assert a.session_media(sid) == b.session_media(sid)
    assert run("import", str(archive), "--config", str(config), "--db", str(other))[0] == 2


def test_broken_archives_are_refused_whole(config: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    sid = played_session(tmp_path / "c.db")
    archive = tmp_path / "s.zip"
    run("export", sid, "-o", str(archive), "--config", str(config))
    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(archive) as src, zipfile.ZipFile(broken, "w") as dst:
        for item in src.namelist():
            data = src.read(item)
            if item == "entries.jsonl":
                data = data.splitlines()[1] + b"\n"  # entry 1 missing
            dst.writestr(item, data)
    other = tmp_path / "other.db"
    capsys.readouterr()
    assert run("import", str(broken), "--config", str(config), "--db", str(other))[0] == 2
    assert "gaps" in capsys.readouterr().err
    assert Store(other).sessions() == []
    (tmp_path / "junk.zip").write_text("not a zip")
    assert run("import", str(tmp_path / "junk.zip"), "--config", str(config))[0] == 2


def test_errors_are_one_line_and_non_zero(config: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    played_session(tmp_path / "c.db")
    for argv in (
        ["replay", "nope", "--config", str(config)],
        ["export", "nope", "-o", str(tmp_path / "x.zip"), "--config", str(config)],
        ["sessions", "--db", str(tmp_path / "none.db"), "--config", str(config)],
        ["config", "show", "--config", str(tmp_path / "missing.toml")],
        ["selfplay", "--game", "tally", "--ai", "genius", "--ai", "random", "--config",
         str(config)],
    ):
        capsys.readouterr()
        code, _ = run(*argv)
        err = capsys.readouterr().err
        assert code == 2 and err.startswith("companion: error: ") and err.count("\n") == 1


def test_bad_config_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[server]\nprot = 1\n")
    assert run("config", "show", "--config", str(bad))[0] == 2
    assert "server.prot: unknown key" in capsys.readouterr().err


def test_config_show_and_doctor(config: Path) -> None:
    code, out = run("config", "show", "--config", str(config))
    assert code == 0 and "[storage]" in out and str(config) in out
    code, out = run("doctor", "--config", str(config), "--sim")
    assert code == 0 and "spinner (GPIO)" in out and "[simulated]" in out


def test_selfplay_json(config: Path) -> None:
    code, out = run("selfplay", "--game", "tally", "--ai", "greedy", "--ai", "random",
                    "--games", "20", "--seed", "5", "--json", "--config", str(config))
    report = json.loads(out)
    assert code == 0 and report["games"] == 20
    assert [s["ai"] for s in report["seats"]] == ["greedy", "random"]
    assert sum(s["wins"] for s in report["seats"]) + report["draws"] == 20
    assert report["mean_turns"] > 0
    _, again = run("selfplay", "--game", "tally", "--ai", "greedy", "--ai", "random",
                   "--games", "20", "--seed", "5", "--json", "--config", str(config))
    assert json.loads(again)["seats"] == report["seats"]  # seeded: the same games again


def test_one_writer_per_database(tmp_path: Path) -> None:
    from companion.cli import CliError, WriterLock

    db = tmp_path / "c.db"
    with WriterLock(db), pytest.raises(CliError, match="another companion is writing"), \
            WriterLock(db):
        pass
    with WriterLock(db):  # released again
        pass
