"""The session log: one SQLite file, append-only entries, drop photos kept beside it by hash.

Durability first (DESIGN principle 4): WAL with ``synchronous=FULL`` and one transaction per
accepted command, so an entry that was acknowledged survives a killed process or a pulled plug.
Entries cannot be updated or deleted: triggers refuse it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.errors import CompanionError

MIGRATIONS: Sequence[str] = (
    # 1: sessions, the append-only log, media
    """
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        game TEXT NOT NULL,
        mode TEXT,
        options TEXT NOT NULL,
        players TEXT NOT NULL,
        seed INTEGER NOT NULL,
        profiles TEXT NOT NULL,
        created REAL NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'finished'))
    );
    CREATE TABLE entries (
        session TEXT NOT NULL REFERENCES sessions(id),
        seq INTEGER NOT NULL CHECK (seq > 0),
        time REAL NOT NULL,
        actor TEXT NOT NULL,
        kind TEXT NOT NULL,
        schema_version INTEGER NOT NULL,
        payload TEXT NOT NULL,
        PRIMARY KEY (session, seq)
    ) WITHOUT ROWID;
    CREATE TRIGGER entries_no_update BEFORE UPDATE ON entries
        BEGIN SELECT RAISE(ABORT, 'the session log is append-only'); END;
    CREATE TRIGGER entries_no_delete BEFORE DELETE ON entries
        BEGIN SELECT RAISE(ABORT, 'the session log is append-only'); END;
    CREATE TABLE media (
        sha256 TEXT PRIMARY KEY,
        session TEXT REFERENCES sessions(id),
        content_type TEXT NOT NULL,
        size INTEGER NOT NULL,
        created REAL NOT NULL
    );
    """,
    # 2: player profiles (modes unlocked and the like), kept across sessions
    """
    CREATE TABLE profiles (
        name TEXT PRIMARY KEY,
        data TEXT NOT NULL,
        updated REAL NOT NULL
    );
    CREATE INDEX sessions_by_created ON sessions(created);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)

MEDIA_TYPES = {"image/jpeg": ".jpg", "image/png": ".png"}


class StoreError(CompanionError):
    pass


@dataclass(frozen=True)
class SessionRecord:
    id: str
    game: str
    mode: str | None
    options: dict[str, Any]
    players: list[dict[str, Any]]
    seed: int
    profiles: dict[str, Any]
    created: float
    status: str

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class NewEntry:
    actor: str
    kind: str
    payload: dict[str, Any]
    schema_version: int = 1


@dataclass(frozen=True)
class Entry:
    session: str
    seq: int
    time: float
    actor: str
    kind: str
    schema_version: int
    payload: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, allow_nan=False)


class Store:
    """The one writer of a database file. Thread-safe: every call holds the store's lock."""

    def __init__(self, path: str | os.PathLike[str], clock: Any = time.time) -> None:
        self.path = Path(path).expanduser()
        self.media_dir = self.path.parent / "media"
        self._clock = clock
        self._lock = threading.RLock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=30
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a usable session database ({exc})") from exc
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot open ({exc.strerror or exc})") from exc
        self._next_seq: dict[str, int] = {}

    # --- schema ---------------------------------------------------------------------------------
    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: written by a newer version of the companion "
                f"(schema {version}, this one knows {SCHEMA_VERSION})"
            )
        for number in range(version, SCHEMA_VERSION):
            with self._transaction():
                for statement in _statements(MIGRATIONS[number]):
                    self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {number + 1}")

    @property
    def schema_version(self) -> int:
        with self._lock:
            return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    # --- sessions -------------------------------------------------------------------------------
    def create_session(self, record: SessionRecord, entries: Iterable[Entry] = ()) -> None:
        """Create a session; with ``entries`` (an import), write them exactly as they were."""
        with self._lock, self._transaction():
            try:
                self._db.execute(
                    "INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?,?)",
                    (
                        record.id,
                        record.game,
                        record.mode,
                        _dumps(record.options),
                        _dumps(record.players),
                        record.seed,
                        _dumps(record.profiles),
                        record.created,
                        record.status,
                    ),
                )
            except sqlite3.IntegrityError as exc:
                raise StoreError(f"session '{record.id}' already exists") from exc
            for e in entries:
                self._db.execute(
                    "INSERT INTO entries VALUES (?,?,?,?,?,?,?)",
                    (record.id, e.seq, e.time, e.actor, e.kind, e.schema_version,
                     _dumps(e.payload)),
                )
            self._next_seq.pop(record.id, None)

    def session(self, session_id: str) -> SessionRecord | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return _session_from_row(row) if row else None

    def sessions(self) -> list[SessionRecord]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM sessions ORDER BY created, id").fetchall()
        return [_session_from_row(r) for r in rows]

    def set_status(self, session_id: str, status: str) -> None:
        with self._lock, self._transaction():
            self._db.execute("UPDATE sessions SET status = ? WHERE id = ?", (status, session_id))

    # --- entries --------------------------------------------------------------------------------
    def last_seq(self, session_id: str) -> int:
        with self._lock:
            row = self._db.execute(
                "SELECT MAX(seq) FROM entries WHERE session = ?", (session_id,)
            ).fetchone()
        return int(row[0] or 0)

    def append(self, session_id: str, new: Sequence[NewEntry]) -> list[Entry]:
        """Commit entries in one durable transaction; returns them with their sequence numbers."""
        with self._lock:
            seq = self._next_seq.get(session_id) or self.last_seq(session_id) + 1
            now = self._clock()
            out = []
            with self._transaction():
                for offset, item in enumerate(new):
                    entry = Entry(
                        session=session_id,
                        seq=seq + offset,
                        time=now,
                        actor=item.actor,
                        kind=item.kind,
                        schema_version=item.schema_version,
                        payload=item.payload,
                    )
                    self._db.execute(
                        "INSERT INTO entries VALUES (?,?,?,?,?,?,?)",
                        (
                            session_id,
                            entry.seq,
                            entry.time,
                            entry.actor,
                            entry.kind,
                            entry.schema_version,
                            _dumps(entry.payload),
                        ),
                    )
                    out.append(entry)
            self._next_seq[session_id] = seq + len(new)
            return out

    def entries(self, session_id: str, after: int = 0, upto: int | None = None) -> list[Entry]:
        return list(self.iter_entries(session_id, after, upto))

    def iter_entries(
        self, session_id: str, after: int = 0, upto: int | None = None, chunk: int = 2000
    ) -> Iterator[Entry]:
        last = after
        while True:
            with self._lock:
                rows = self._db.execute(
                    "SELECT * FROM entries WHERE session = ? AND seq > ? AND seq <= ? "
                    "ORDER BY seq LIMIT ?",
                    (session_id, last, upto if upto is not None else 2**62, chunk),
                ).fetchall()
            for row in rows:
                yield Entry(row[0], row[1], row[2], row[3], row[4], row[5], json.loads(row[6]))
            if len(rows) < chunk:
                return
            last = rows[-1][1]

    # --- media ----------------------------------------------------------------------------------
    def put_media(self, data: bytes, content_type: str, session_id: str | None = None) -> str:
        """Keep a photo beside the database, named by its SHA-256; returns the hash."""
        if content_type not in MEDIA_TYPES:
            raise StoreError(f"unsupported media type '{content_type}' (jpeg or png only)")
        sha = hashlib.sha256(data).hexdigest()
        path = self.media_path(sha, content_type)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(path.suffix + ".tmp")
            with open(tmp, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
            _fsync_dir(path.parent)
        with self._lock, self._transaction():
            self._db.execute(
                "INSERT OR IGNORE INTO media VALUES (?,?,?,?,?)",
                (sha, session_id, content_type, len(data), self._clock()),
            )
        return sha

    def media_path(self, sha: str, content_type: str) -> Path:
        return self.media_dir / sha[:2] / f"{sha}{MEDIA_TYPES[content_type]}"

    def media(self, sha: str) -> tuple[Path, str] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT content_type FROM media WHERE sha256 = ?", (sha,)
            ).fetchone()
        if row is None:
            return None
        path = self.media_path(sha, row[0])
        return (path, row[0]) if path.exists() else None

    def session_media(self, session_id: str) -> list[tuple[str, str]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT sha256, content_type FROM media WHERE session = ? ORDER BY sha256",
                (session_id,),
            ).fetchall()
        return [(r[0], r[1]) for r in rows]

    # --- profiles -------------------------------------------------------------------------------
    def profiles(self, names: Iterable[str]) -> dict[str, Any]:
        names = list(names)
        with self._lock:
            rows = self._db.execute(
                f"SELECT name, data FROM profiles WHERE name IN ({','.join('?' * len(names))})",
                names,
            ).fetchall()
        return {r[0]: json.loads(r[1]) for r in rows}

    def put_profiles(self, updates: dict[str, Any]) -> None:
        with self._lock, self._transaction():
            for name, data in updates.items():
                self._db.execute(
                    "INSERT INTO profiles VALUES (?,?,?) ON CONFLICT(name) DO UPDATE "
                    "SET data = excluded.data, updated = excluded.updated",
                    (name, _dumps(data), self._clock()),
                )

    # --- health ---------------------------------------------------------------------------------
    def integrity_check(self) -> str:
        with self._lock:
            return str(self._db.execute("PRAGMA integrity_check").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT, rolled back on any error."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self._db.execute("COMMIT" if exc_type is None else "ROLLBACK")


def _statements(script: str) -> list[str]:
    """Split a migration into statements (triggers keep their inner semicolons)."""
    out, buf = [], ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out


def _session_from_row(row: Sequence[Any]) -> SessionRecord:
    return SessionRecord(
        id=row[0],
        game=row[1],
        mode=row[2],
        options=json.loads(row[3]),
        players=json.loads(row[4]),
        seed=row[5],
        profiles=json.loads(row[6]),
        created=row[7],
        status=row[8],
    )


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
