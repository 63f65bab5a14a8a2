"""Who may do what at the table: a PIN to join, roles (host, player seat, spectator), CSRF.

A tablet joins with the table PIN (players, spectators) or the host PIN and gets a signed,
HttpOnly cookie naming its role, the seats it holds and a CSRF token. Every write must carry
that token in ``X-CSRF-Token``; a player acts only for the seats it holds; a spectator reads.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask, current_app, request, session

from companion.session import SessionError

ROLES = ("host", "player", "spectator")
JOIN_ATTEMPTS = 8  # wrong PINs allowed per address per minute


class Forbidden(SessionError):
    status = 403
    code = "E_FORBIDDEN"


class NotJoined(SessionError):
    status = 401
    code = "E_NOT_JOINED"


class TooManyAttempts(SessionError):
    status = 429
    code = "E_TOO_MANY_ATTEMPTS"


@dataclass(frozen=True)
class TablePins:
    table: str
    host: str

    @classmethod
    def make(cls, table: str = "", host: str = "") -> TablePins:
        table = table or f"{secrets.randbelow(10**6):06d}"
        host = host or f"{secrets.randbelow(10**6):06d}"
        while host == table:
            host = f"{secrets.randbelow(10**6):06d}"
        return cls(table, host)


def secret_key(path: Path) -> bytes:
    """A per-install signing key kept beside the database, so joins survive a restart."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        key = secrets.token_bytes(32)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_bytes(key)
        return key


class JoinLimiter:
    """Slows down PIN guessing: a few wrong PINs per address per minute."""

    def __init__(self, limit: int = JOIN_ATTEMPTS, window_s: float = 60.0) -> None:
        self.limit = limit
        self.window_s = window_s
        self._failures: dict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def check(self, address: str) -> None:
        with self._lock:
            failures = self._failures[address]
            while failures and failures[0] < time.monotonic() - self.window_s:
                failures.popleft()
            if len(failures) >= self.limit:
                raise TooManyAttempts("Too many wrong PINs; wait a minute and try again.")

    def failed(self, address: str) -> None:
        with self._lock:
            self._failures[address].append(time.monotonic())


def install(app: Flask, pins: TablePins, key: bytes) -> None:
    app.secret_key = key
    app.config.update(
        SESSION_COOKIE_NAME="tc_access",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        PERMANENT_SESSION_LIFETIME=7 * 24 * 3600,
    )
    app.extensions["companion_pins"] = pins
    app.extensions["companion_join_limiter"] = JoinLimiter()


def pins() -> TablePins:
    found: TablePins = current_app.extensions["companion_pins"]
    return found


def join(pin: str, role: str) -> dict[str, Any]:
    """Check the PIN for the role and grant the role to this tablet."""
    limiter: JoinLimiter = current_app.extensions["companion_join_limiter"]
    address = request.remote_addr or "?"
    limiter.check(address)
    if role not in ROLES:
        raise SessionError(f"Unknown role '{role}' (host, player or spectator).", "E_BAD_REQUEST")
    wanted = pins().host if role == "host" else pins().table
    if not isinstance(pin, str) or not hmac.compare_digest(pin.encode(), wanted.encode()):
        limiter.failed(address)
        raise Forbidden("That PIN is not right.", "E_WRONG_PIN")
    session.clear()
    session.permanent = True
    session.update(role=role, seats={}, csrf=secrets.token_urlsafe(24))
    return whoami()


def take_seat(session_id: str, seat: int) -> dict[str, Any]:
    """A player tablet takes a seat (it may hold several, e.g. one tablet for two seats)."""
    require_writer()
    if role() != "player":
        raise Forbidden("Join as a player to take a seat.", "E_NOT_A_PLAYER")
    seats = {k: list(v) for k, v in session.get("seats", {}).items()}
    seats[session_id] = sorted({*seats.get(session_id, []), seat})
    session["seats"] = seats
    return whoami()


def leave() -> None:
    session.clear()


def whoami() -> dict[str, Any]:
    return {"role": session.get("role"), "seats": session.get("seats", {}),
            "csrf": session.get("csrf")}


def role() -> str | None:
    value = session.get("role")
    return value if value in ROLES else None


def seats_held(session_id: str) -> set[int]:
    return set(session.get("seats", {}).get(session_id, []))


def viewer(session_id: str) -> frozenset[int] | None:
    """Whose secrets (a hand of cards) this tablet may see in a session, from its signed role
    alone, never from the request: ``None`` (every seat) for the host, the seats a player holds,
    no seat for a spectator or a tablet that has not joined. Everything that sends a state or
    log entries to a tablet redacts with this (``Game.redact_state``, ``Game.redact_entry``)."""
    current = role()
    if current == "host":
        return None
    if current == "player":
        return frozenset(seats_held(session_id))
    return frozenset()


def require_reader() -> None:
    if role() is None:
        raise NotJoined("Join the table first (the PIN is on the host screen).")


def require_writer() -> None:
    """Any write: a joined role that may act, with the CSRF token of its join."""
    require_reader()
    token = request.headers.get("X-CSRF-Token", "")
    if not hmac.compare_digest(token.encode(), str(session.get("csrf", "")).encode()):
        raise Forbidden("This request lacks the table's CSRF token; reload the page.",
                        "E_CSRF")
    if role() == "spectator":
        raise Forbidden("Spectators can watch but not act.", "E_SPECTATOR")


def act_as(session_id: str, seat: int | None) -> str:
    """The actor a write is logged under; a player may act only for a seat it holds.

    Commands of the table itself (``seat`` None: a spin, a drop's counts) may come from any
    player at the table or the host.
    """
    require_writer()
    if role() == "host":
        return f"seat:{seat}" if seat is not None else "host"
    held = seats_held(session_id)
    if not held:
        raise Forbidden("You hold no seat in this session.", "E_NOT_SEATED")
    if seat is None:
        return f"seat:{min(held)}"
    if seat not in held:
        raise Forbidden(f"You cannot act for seat {seat}.", "E_NOT_YOUR_SEAT")
    return f"seat:{seat}"
