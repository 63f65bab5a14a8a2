"""The session log: schema and migrations, durability settings, append-only entries, media."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from companion.store import MIGRATIONS, SCHEMA_VERSION, NewEntry, SessionRecord, Store, StoreError


def record(session_id: str = "s1") -> SessionRecord:
    return SessionRecord(session_id, "tally", None, {}, [{"name": "A"}, {"name": "B"}], 1, {},
                         0.0, "active")


def test_new_database_has_current_schema_wal_and_full_sync(store: Store) -> None:
    assert store.schema_version == SCHEMA_VERSION
    db = store._db
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_forward_migration_from_version_1_keeps_data(db_path: Path) -> None:
    raw = sqlite3.connect(db_path)
    raw.executescript(MIGRATIONS[0])
    raw.execute("INSERT INTO sessions VALUES ('old','tally',NULL,'{}','[]',1,'{}',0,'active')")
    raw.execute("PRAGMA user_version = 1")
    raw.commit()
    raw.close()
    store = Store(db_path)
    assert store.schema_version == SCHEMA_VERSION
    assert store.session("old") is not None
    store.put_profiles({"ann": {"wins": 1}})  # table added by migration 2
    assert store.profiles(["ann"]) == {"ann": {"wins": 1}}


def test_newer_schema_is_refused_with_a_clear_error(db_path: Path) -> None:
    raw = sqlite3.connect(db_path)
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.close()
    with pytest.raises(StoreError, match="newer version"):
        Store(db_path)


def test_a_file_that_is_not_a_database_is_a_clear_error(db_path: Path) -> None:
    db_path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a usable session database"):
        Store(db_path)


def test_append_numbers_entries_and_reads_them_back(store: Store) -> None:
    store.create_session(record())
    first = store.append("s1", [NewEntry("seat:0", "command", {"a": 1})])
    more = store.append("s1", [NewEntry("seat:1", "command", {"a": 2}),
                               NewEntry("timer", "command", {"a": 3}, 2)])
    assert [e.seq for e in first + more] == [1, 2, 3]
    read = store.entries("s1")
    assert [e.payload["a"] for e in read] == [1, 2, 3]
    assert read[2].schema_version == 2 and read[2].actor == "timer"
    assert [e.seq for e in store.entries("s1", after=1, upto=2)] == [2]


def test_entries_are_append_only(store: Store) -> None:
    store.create_session(record())
    store.append("s1", [NewEntry("host", "command", {})])
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store._db.execute("UPDATE entries SET actor = 'x'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store._db.execute("DELETE FROM entries")
    assert store.entries("s1")[0].actor == "host"


def test_entries_of_an_unknown_session_are_refused(store: Store) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        store.append("nope", [NewEntry("host", "command", {})])
    assert store.entries("nope") == []


def test_duplicate_session_is_refused(store: Store) -> None:
    store.create_session(record())
    with pytest.raises(StoreError, match="already exists"):
        store.create_session(record())


def test_media_is_kept_beside_the_database_by_hash(store: Store) -> None:
    store.create_session(record())
    data = b"\xff\xd8\xff fake jpeg bytes"
    sha = store.put_media(data, "image/jpeg", "s1")
    assert sha == store.put_media(data, "image/jpeg", "s1")  # idempotent
    path, kind = store.media(sha) or (None, None)
    assert kind == "image/jpeg" and path is not None
    assert path.read_bytes() == data and path.parent.parent == store.path.parent / "media"
    assert store.session_media("s1") == [(sha, "image/jpeg")]
    with pytest.raises(StoreError, match="unsupported media type"):
        store.put_media(b"x", "text/plain")


def test_iter_entries_pages_through_long_logs(store: Store) -> None:
    store.create_session(record())
    store.append("s1", [NewEntry("host", "command", {"i": i}) for i in range(25)])
    assert [e.payload["i"] for e in store.iter_entries("s1", chunk=4)] == list(range(25))
