"""Export a session (its record, every log entry and its photos) to a zip, and import one back.

The archive is plain JSON inside a zip so a person can read it; an import writes the entries
exactly as logged, so export → import → replay gives identical states.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

from companion.errors import CompanionError
from companion.store import MEDIA_TYPES, Entry, SessionRecord, Store

FORMAT = "tabletop-companion-session"
FORMAT_VERSION = 1


class ArchiveError(CompanionError):
    pass


def export_session(store: Store, session_id: str, out: Path) -> int:
    """Write the archive; returns the number of entries written."""
    record = store.session(session_id)
    if record is None:
        raise ArchiveError(f"no session '{session_id}'")
    entries = store.entries(session_id)
    media = store.session_media(session_id)
    tmp = out.with_name(out.name + ".tmp")
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
            manifest = {"format": FORMAT, "version": FORMAT_VERSION,
                        "schema_version": store.schema_version}
            zf.writestr("manifest.json", json.dumps(manifest, indent=2))
            zf.writestr("session.json", json.dumps(record.to_json(), indent=2, sort_keys=True))
            zf.writestr(
                "entries.jsonl",
                "".join(json.dumps(e.to_json(), sort_keys=True) + "\n" for e in entries),
            )
            for sha, content_type in media:
                found = store.media(sha)
                if found is None:
                    raise ArchiveError(f"photo {sha} of session '{session_id}' is missing")
                zf.write(found[0], f"media/{sha}{MEDIA_TYPES[content_type]}")
        tmp.replace(out)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ArchiveError(f"{out}: cannot write ({exc.strerror or exc})") from exc
    return len(entries)


def import_session(store: Store, path: Path) -> SessionRecord:
    """Read and check the whole archive first; write it only when all of it is sound."""
    try:
        zf = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise ArchiveError(f"{path}: not a session archive ({exc})") from exc
    with zf:
        manifest = _json(zf, path, "manifest.json")
        if manifest.get("format") != FORMAT:
            raise ArchiveError(f"{path}: not a session archive (format '{manifest.get('format')}')")
        if manifest.get("version", 0) > FORMAT_VERSION:
            raise ArchiveError(f"{path}: made by a newer version of the companion")
        try:
            record = SessionRecord(**_json(zf, path, "session.json"))
        except TypeError as exc:
            raise ArchiveError(f"{path}: session.json is not a session record ({exc})") from exc
        entries = []
        for number, line in enumerate(_text(zf, path, "entries.jsonl").splitlines(), 1):
            try:
                entries.append(Entry(**json.loads(line)))
            except (ValueError, TypeError) as exc:
                raise ArchiveError(
                    f"{path}: entries.jsonl line {number} is broken ({exc})"
                ) from exc
        if [e.seq for e in entries] != list(range(1, len(entries) + 1)):
            raise ArchiveError(f"{path}: entries.jsonl has gaps or is out of order")
        if any(e.session != record.id for e in entries):
            raise ArchiveError(f"{path}: entries.jsonl holds entries of another session")
        photos: list[tuple[bytes, str]] = []
        types = {ext: kind for kind, ext in MEDIA_TYPES.items()}
        for name in zf.namelist():
            if not name.startswith("media/") or name.endswith("/"):
                continue
            stem, ext = Path(name).stem, Path(name).suffix
            data = zf.read(name)
            if ext not in types or hashlib.sha256(data).hexdigest() != stem:
                raise ArchiveError(f"{path}: {name} does not match its hash")
            photos.append((data, types[ext]))
    if store.session(record.id) is not None:
        raise ArchiveError(f"session '{record.id}' is already in this database")
    store.create_session(record, entries)
    for data, content_type in photos:
        store.put_media(data, content_type, record.id)
    return record


def _text(zf: zipfile.ZipFile, path: Path, name: str) -> str:
    try:
        return zf.read(name).decode("utf-8")
    except KeyError as exc:
        raise ArchiveError(f"{path}: {name} is missing") from exc
    except (UnicodeDecodeError, zipfile.BadZipFile) as exc:
        raise ArchiveError(f"{path}: {name} is unreadable ({exc})") from exc


def _json(zf: zipfile.ZipFile, path: Path, name: str) -> dict[str, Any]:
    try:
        data = json.loads(_text(zf, path, name))
    except ValueError as exc:
        raise ArchiveError(f"{path}: {name} is not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ArchiveError(f"{path}: {name} is not a JSON object")
    return data
