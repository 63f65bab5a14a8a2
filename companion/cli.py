"""The ``companion`` command: serve the dashboard, inspect, replay, export and import sessions."""

from __future__ import annotations

import argparse
import fcntl
import importlib
import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from companion.config import Config, ConfigError, load_config, to_toml
from companion.engine import IllegalMove
from companion.errors import CompanionError
from companion.games import GameRegistry, UnknownGame
from companion.store import Store


class CliError(CompanionError):
    pass


PLUGINS: tuple[str, ...] = ("companion.hardware.cli", "companion.hardware.camera_cli")
"""Modules that add subcommands: each has ``register(subparsers)``, and every parser it adds
sets ``run`` (``parser.set_defaults(run=function(args, out) -> exit code)``)."""


def add_common_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="config file (TOML)")
    parser.add_argument("--db", metavar="FILE", help="session database (overrides the config)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion", description="Tabletop Companion: the game table's Raspberry Pi."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("serve", help="serve the dashboard (waitress)")
    add_common_options(p)
    p.add_argument("--sim", action="store_true", help="simulate the spinner, tower and camera")
    p.add_argument("--host", help="address to listen on (0.0.0.0 for tablets on the LAN)")
    p.add_argument("--port", type=int, help="TCP port")

    p = sub.add_parser("sessions", help="list the sessions in the database")
    add_common_options(p)
    p.add_argument("--json", action="store_true", help="one JSON object per line")

    p = sub.add_parser("replay", help="rebuild and print a session's state at any point")
    add_common_options(p)
    p.add_argument("session", help="session id")
    p.add_argument("--to", type=int, metavar="SEQ", help="stop after this log entry")
    p.add_argument("--json", action="store_true", help="print the state as JSON")

    p = sub.add_parser("export", help="write a session (log and photos) to a zip file")
    add_common_options(p)
    p.add_argument("session", help="session id")
    p.add_argument("-o", "--out", required=True, metavar="FILE.zip", help="archive to write")

    p = sub.add_parser("import", help="read a session exported with 'export'")
    add_common_options(p)
    p.add_argument("archive", metavar="FILE.zip")

    p = sub.add_parser("doctor", help="what hardware is found and what is simulated")
    add_common_options(p)
    p.add_argument("--sim", action="store_true", help="report as 'serve --sim' would run")

    p = sub.add_parser("config", help="show the effective configuration")
    add_common_options(p)
    p.add_argument("action", choices=["show"], help="'show': print the config as TOML")

    p = sub.add_parser("selfplay", help="play seeded games between AIs and print win rates")
    add_common_options(p)
    p.add_argument("--game", required=True, help="game id (e.g. ava, cpx)")
    p.add_argument("--ai", action="append", required=True, metavar="LEVEL",
                   help="AI level of a side; give it once per side")
    p.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--mode", help="game mode")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p = sub.add_parser("tower", help="the cube tower's model, fitted from logged drops")
    tower = p.add_subparsers(dest="tower_command", required=True, metavar="ACTION")
    p = tower.add_parser("fit", help="fit pass-through p and release q by maximum likelihood")
    add_common_options(p)
    p.add_argument("sessions", nargs="*", metavar="SESSION",
                   help="sessions to fit from (default: every Command Post Exercise session)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_tower_fit)

    for module_name in PLUGINS:
        importlib.import_module(module_name).register(sub)
    for name, choice in sub.choices.items():
        if name in COMMANDS:
            choice.set_defaults(run=COMMANDS[name])
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args, out))
    except (CompanionError, IllegalMove) as exc:
        message = exc.message if isinstance(exc, IllegalMove) else str(exc)
        print(f"companion: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


# --- helpers ---------------------------------------------------------------------------------
def config_from_args(args: argparse.Namespace) -> Config:
    config, _ = load_config(args.config)
    if getattr(args, "db", None):
        config = config.model_copy(
            update={"storage": config.storage.model_copy(update={"db": Path(args.db)})}
        )
    return config


def _registry(config: Config) -> GameRegistry:
    try:
        return GameRegistry(config.games.extra)
    except UnknownGame as exc:
        raise ConfigError(f"games.extra: {exc}") from exc


def _open_store(config: Config, *, must_exist: bool = True) -> Store:
    path = config.db_path
    if must_exist and not path.exists():
        raise CliError(f"{path}: no session database here yet (start one with 'companion serve')")
    return Store(path)


class WriterLock:
    """One writer per database: the server holds this lock, and so does an import."""

    def __init__(self, db: Path) -> None:
        self.path = db.with_name(db.name + ".lock")
        self._fh: Any = None

    def __enter__(self) -> WriterLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a+")
        try:
            fcntl.flock(self._fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._fh.close()
            raise CliError(
                f"{self.path.with_suffix('')}: another companion is writing to this database"
            ) from None
        self._fh.truncate(0)
        self._fh.write(str(os.getpid()))
        self._fh.flush()
        return self

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self._fh, fcntl.LOCK_UN)
        self._fh.close()


def _session_game(store: Store, registry: GameRegistry, session_id: str) -> Any:
    record = store.session(session_id)
    if record is None:
        raise CliError(f"no session '{session_id}' in {store.path}")
    try:
        return record, registry.get(record.game)
    except UnknownGame as exc:
        raise CliError(str(exc)) from exc


# --- commands --------------------------------------------------------------------------------
def cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    from waitress import serve

    from companion.session import SessionService
    from web_ui import create_app
    from web_ui.auth import TablePins, secret_key

    config = config_from_args(args)
    host = args.host or config.server.host
    port = args.port or config.server.port
    simulate = args.sim or config.hardware.simulate
    registry = _registry(config)
    with WriterLock(config.db_path):
        store = Store(config.db_path)
        service = SessionService(
            store,
            registry,
            auto_accept=config.readings.auto_accept,
            confirm_ai_moves=config.readings.confirm_ai_moves and not simulate,
        )
        pins = TablePins.make(config.server.pin, config.server.host_pin)
        secret = secret_key(config.db_path.with_name("secret.key"))
        from companion.config import config_path
        from companion.hardware.cli import store_offset
        from companion.hardware.table import TableHardware

        table = TableHardware(
            service, config, simulate,
            save_offset=lambda offset: store_offset(config_path(args.config), args.config,
                                                    offset),
        ).start()
        app = create_app(service, simulate=simulate, config=config, pins=pins, secret=secret,
                         table=table)
        signal.signal(signal.SIGTERM, _raise_interrupt)
        shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        mode = "simulation" if simulate else "hardware"
        print(f"Tabletop Companion ({mode}) on http://{shown}:{port}/  (database {store.path})\n"
              f"  table PIN {pins.table} · host PIN {pins.host}", file=out, flush=True)
        try:
            serve(app, host=host, port=port, threads=config.server.threads,
                  channel_timeout=3600, ident="tabletop-companion", _quiet=True)
        except OSError as exc:
            raise CliError(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from exc
        except KeyboardInterrupt:
            pass
        finally:
            table.close()
            service.close()
            store.close()
    return 0


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def cmd_sessions(args: argparse.Namespace, out: TextIO) -> int:
    store = _open_store(config_from_args(args))
    records = store.sessions()
    for r in records:
        if args.json:
            print(json.dumps({**r.to_json(), "entries": store.last_seq(r.id)}), file=out)
        else:
            players = ", ".join(p["name"] for p in r.players)
            print(f"{r.id}  {r.game:<6} {r.status:<8} {store.last_seq(r.id):>6} entries  "
                  f"{players}", file=out)
    if not records and not args.json:
        print("no sessions", file=out)
    return 0


def cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    from companion.history import fold
    from companion.session import setup_of

    config = config_from_args(args)
    store = _open_store(config)
    record, game = _session_game(store, _registry(config), args.session)
    history = fold(game, setup_of(record), store.iter_entries(record.id), args.to)
    if args.json:
        print(json.dumps({"session": record.id, "seq": history.last_seq,
                          "state_id": history.state_id, "state": game.dump_state(history.state)},
                         sort_keys=True), file=out)
    else:
        print(f"{game.title} · session {record.id} · after entry {history.last_seq}", file=out)
        print(game.summary(history.state), file=out)
    return 0


def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    from companion.archive import export_session

    store = _open_store(config_from_args(args))
    count = export_session(store, args.session, Path(args.out))
    print(f"exported session {args.session} ({count} entries) to {args.out}", file=out)
    return 0


def cmd_import(args: argparse.Namespace, out: TextIO) -> int:
    from companion.archive import import_session

    config = config_from_args(args)
    with WriterLock(config.db_path):
        store = _open_store(config, must_exist=False)
        record = import_session(store, Path(args.archive))
        print(f"imported session {record.id} ({store.last_seq(record.id)} entries)", file=out)
    return 0


def cmd_doctor(args: argparse.Namespace, out: TextIO) -> int:
    from companion.doctor import format_checks, run_checks

    config = config_from_args(args)
    print(format_checks(run_checks(config, args.sim or config.hardware.simulate)), file=out)
    return 0


def cmd_config(args: argparse.Namespace, out: TextIO) -> int:
    config, source = load_config(args.config)
    print(f"# from {source or 'built-in defaults'}", file=out)
    print(to_toml(config), file=out, end="")
    return 0


def cmd_selfplay(args: argparse.Namespace, out: TextIO) -> int:
    from companion.selfplay import format_report, run_selfplay

    registry = _registry(config_from_args(args))
    try:
        game = registry.get(args.game)
    except UnknownGame as exc:
        raise CliError(str(exc)) from exc
    report = run_selfplay(game, args.ai, args.games, args.seed, args.mode)
    print(json.dumps(report) if args.json else format_report(report), file=out)
    return 0


def cmd_tower_fit(args: argparse.Namespace, out: TextIO) -> int:
    from companion.games.cpx.tower_model import fit, records_from_commands
    from companion.history import fold
    from companion.session import setup_of

    config = config_from_args(args)
    store = _open_store(config)
    registry = _registry(config)
    wanted = args.sessions or [r.id for r in store.sessions() if r.game == "cpx"]
    if not wanted:
        raise CliError(f"no Command Post Exercise session in {store.path}")
    records = []
    for session_id in wanted:
        record, game = _session_game(store, registry, session_id)
        if record.game != "cpx":
            raise CliError(f"session '{session_id}' is {game.title}, not Command Post Exercise")
        setup = setup_of(record)
        history = fold(game, setup, store.iter_entries(record.id))
        records += records_from_commands(game, setup, [a.command for a in history.applied])
    try:
        result = fit(records)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    if args.json:
        print(json.dumps({"sessions": wanted, **result.to_json()}), file=out)
    else:
        print(f"{len(wanted)} session(s), {len(records)} colour-drops", file=out)
        print(result.summary(), file=out)
    return 0


COMMANDS = {
    "serve": cmd_serve,
    "sessions": cmd_sessions,
    "replay": cmd_replay,
    "export": cmd_export,
    "import": cmd_import,
    "doctor": cmd_doctor,
    "config": cmd_config,
    "selfplay": cmd_selfplay,
}

if __name__ == "__main__":
    sys.exit(main())
