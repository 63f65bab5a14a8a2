"""The session service: the only writer of game state.

Every change goes the same way (DESIGN: inputs → commands → engine → events → log → dashboard):
validate against the current state id, run the pure engine, commit the entry durably, fold it into
the history, then wake subscribers. Nothing is published before it is committed.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.engine import Command, Game, IllegalMove, Policy, Setup, Viewer, sees
from companion.errors import CompanionError
from companion.games import GameRegistry, UnknownGame
from companion.history import History, fold, is_human
from companion.store import Entry, NewEntry, SessionRecord, Store

log = logging.getLogger(__name__)


class SessionError(CompanionError):
    """A refused request. ``status`` is the HTTP status the dashboard answers with."""

    status = 400
    code = "E_BAD_REQUEST"

    def __init__(self, message: str, code: str | None = None, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.code
        self.details = details

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            out["details"] = self.details
        return out


class NotFound(SessionError):
    status = 404
    code = "E_NOT_FOUND"


class StaleState(SessionError):
    status = 409
    code = "E_STALE_STATE"


class EngineFailure(SessionError):
    """The rules engine itself failed (a bug, e.g. a broken conservation check): logged with
    the state, and the request is refused with nothing changed."""

    status = 500
    code = "E_ENGINE"


class Refused(SessionError):
    """The rules say no (an :class:`IllegalMove`)."""

    status = 422

    @classmethod
    def from_illegal(cls, exc: IllegalMove) -> Refused:
        return cls(exc.message, exc.code, **exc.details)


@dataclass
class LiveSession:
    record: SessionRecord
    game: Game
    setup: Setup
    history: History
    lock: threading.RLock = field(default_factory=threading.RLock)
    changed: threading.Condition = field(init=False)
    policies: dict[int, Policy] = field(default_factory=dict)
    timer: threading.Timer | None = None

    def __post_init__(self) -> None:
        self.changed = threading.Condition(self.lock)


class SessionService:
    def __init__(
        self,
        store: Store,
        games: GameRegistry,
        *,
        clock: Callable[[], float] = time.time,
        auto_accept: bool = True,
        confirm_ai_moves: bool = False,
        ai_max_steps: int = 10_000,
    ) -> None:
        self.store = store
        self.games = games
        self.clock = clock
        self.auto_accept = auto_accept
        self.confirm_ai_moves = confirm_ai_moves
        self.ai_max_steps = ai_max_steps
        self._live: dict[str, LiveSession] = {}
        self._open_lock = threading.Lock()
        self._closed = False

    # --- sessions -------------------------------------------------------------------------------
    def create(self, game_id: str, setup_json: Mapping[str, Any]) -> SessionRecord:
        game = self._game(game_id)
        try:
            setup = Setup.from_json({**setup_json, "profiles": {}})
        except IllegalMove as exc:
            raise Refused.from_illegal(exc) from exc
        if "seed" not in setup_json:
            setup = Setup(setup.seats, setup.mode, setup.options, secrets.randbits(63))
        if not game.min_seats <= len(setup.seats) <= game.max_seats:
            raise Refused(
                f"{game.title} is played by {game.min_seats}–{game.max_seats} players, "
                f"not {len(setup.seats)}.",
                "E_BAD_SETUP",
            )
        levels = game.policies()
        for seat in setup.seats:
            if seat.ai is not None and seat.ai not in levels:
                known = ", ".join(sorted(levels)) or "none"
                raise Refused(f"Unknown AI level '{seat.ai}' (known: {known}).", "E_BAD_SETUP")
        profiles = self.store.profiles(s.profile for s in setup.seats if s.profile)
        setup = Setup(setup.seats, setup.mode, setup.options, setup.seed, profiles)
        try:
            history = History(game, setup)
        except IllegalMove as exc:
            raise Refused.from_illegal(exc) from exc
        record = SessionRecord(
            id=uuid.uuid4().hex[:12],
            game=game.id,
            mode=setup.mode,
            options=dict(setup.options),
            players=[s.to_json() for s in setup.seats],
            seed=setup.seed,
            profiles=dict(profiles),
            created=self.clock(),
            status="active",
        )
        self.store.create_session(record)
        live = LiveSession(record, game, setup, history)
        with self._open_lock:
            self._live[record.id] = live
        with live.lock:
            self._after_change(live)
        return record

    def sessions(self) -> list[SessionRecord]:
        return self.store.sessions()

    def open(self, session_id: str) -> LiveSession:
        """The live session, loaded from the log (and replayed) on first use."""
        with self._open_lock:
            live = self._live.get(session_id)
            if live is not None:
                return live
            record = self.store.session(session_id)
            if record is None:
                raise NotFound(f"No session '{session_id}'.")
            game = self._game(record.game)
            setup = setup_of(record)
            history = fold(game, setup, self.store.iter_entries(session_id))
            live = LiveSession(record, game, setup, history)
            self._live[session_id] = live
        with live.lock:
            self._schedule_deadline(live)
        return live

    def snapshot(
        self, session_id: str, seat: int | None = None, viewer: Viewer = None
    ) -> dict[str, Any]:
        """The table now, as a reader with ``viewer`` may see it (``None``: everything, for the
        host and tools): the game's redacted state, and only the legal commands and forms of
        seats it may see (another seat's would name its hidden cards) and of the table.
        ``seat`` narrows the commands further to that seat's and the table's."""
        live = self.open(session_id)
        with live.lock:
            game, state = live.game, live.history.state
            outcome = game.outcome(state)
            deadline = game.deadline(state)
            every = game.legal_commands(state)
            legal = [c for c in every if sees(viewer, c.seat)]
            forms = [f for f in game.count_forms(state) if sees(viewer, f.seat)]
            if seat is not None:
                legal = [c for c in legal if c.seat in (seat, None)]
                forms = [f for f in forms if f.seat in (seat, None)]
            return {
                "session": live.record.to_json(),
                "state": game.visible_state(state, viewer),
                "state_id": live.history.state_id,
                "last_seq": live.history.last_seq,
                "to_act": game.to_act(state, every),
                "legal": [c.to_json() for c in legal],
                "forms": [f.to_json() for f in forms],
                "outcome": outcome.to_json() if outcome else None,
                "deadline": {"at": deadline.at,
                             "command": _command_json(game, deadline.command, viewer)}
                if deadline
                else None,
                "readings": {str(k): v for k, v in self._readings(live, viewer).items()},
                "can_undo": live.history.undo_target() is not None,
            }

    def legal(
        self, session_id: str, seat: int | None = None, viewer: Viewer = None
    ) -> list[Command]:
        """Legal commands now, of the seats ``viewer`` may see and the table's (``seat``: only
        that seat's)."""
        live = self.open(session_id)
        with live.lock:
            legal = live.game.legal_commands(live.history.state)
        legal = [c for c in legal if sees(viewer, c.seat)]
        return legal if seat is None else [c for c in legal if c.seat == seat]

    def readings(self, session_id: str, viewer: Viewer = None) -> dict[int, dict[str, Any]]:
        """Pending readings by sequence number, as ``viewer`` may see them."""
        live = self.open(session_id)
        with live.lock:
            return self._readings(live, viewer)

    def entries_json(
        self, session_id: str, after: int = 0, viewer: Viewer = None
    ) -> list[dict[str, Any]]:
        """Log entries after ``after`` as they leave the server: brought up to date, then as
        ``viewer`` may see them (the log itself keeps everything)."""
        live = self.open(session_id)
        return [self.entry_json(live, e, viewer) for e in self.store.entries(session_id, after)]

    def entry_json(self, live: LiveSession, entry: Entry, viewer: Viewer = None) -> dict[str, Any]:
        """One entry, brought up to date, as ``viewer`` may see it."""
        out: dict[str, Any] = live.game.redact_entry(live.history.upcast(entry).to_json(), viewer)
        return out

    def _readings(self, live: LiveSession, viewer: Viewer) -> dict[int, dict[str, Any]]:
        return {seq: live.game.redact_entry({"kind": "reading", "seq": seq, "payload": r},
                                            viewer)["payload"]
                for seq, r in live.history.readings.items()}

    # --- changes --------------------------------------------------------------------------------
    def submit(
        self,
        session_id: str,
        command_json: Mapping[str, Any],
        *,
        actor: str,
        state_id: int | None,
    ) -> list[Entry]:
        """Apply one command made against ``state_id``; returns the committed entries."""
        live = self.open(session_id)
        command = self._parse_command(live, command_json)
        with live.lock:
            self._check_state_id(live, state_id)
            entries = self._apply(live, command, actor)
            entries += self._after_change(live)
        return entries

    def undo(self, session_id: str, *, actor: str, state_id: int | None) -> list[Entry]:
        """Take back the last command a person made, and everything the AIs did after it."""
        live = self.open(session_id)
        with live.lock:
            self._check_state_id(live, state_id)
            target = live.history.undo_target()
            if target is None:
                raise Refused("There is nothing to undo.", "E_NOTHING_TO_UNDO")
            index = live.history.index_of(target.seq)
            reverted = [a.seq for a in live.history.applied[index:]]
            entries = self._commit(
                live,
                NewEntry(actor, "undo", {"target": target.seq, "reverted": reverted},
                         live.game.event_schema_version),
            )
            entries += self._after_change(live)
        return entries

    def add_reading(
        self,
        session_id: str,
        *,
        source: str,
        command_json: Mapping[str, Any],
        confidence: float,
        needs_review: bool,
        candidates: list[Mapping[str, Any]] | None = None,
        media: str | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> list[Entry]:
        """Log an automatic reading (spinner, tower counts); apply it at once only when sure.

        A reading the rules refuse (counts the tower ledger cannot explain) is kept for review
        with the reason, never applied.
        """
        live = self.open(session_id)
        command = self._parse_command(live, command_json)
        if not 0.0 <= confidence <= 1.0:
            raise SessionError("A reading's confidence must be between 0 and 1.")
        with live.lock:
            problem = None
            try:
                live.game.apply(live.history.state, self._stamp(command))
            except IllegalMove as exc:
                problem = exc.to_json()
            superseded = [
                seq for seq, r in live.history.readings.items() if r["source"] == source
            ]
            payload: dict[str, Any] = {
                "source": source,
                "command": command.to_json(),
                "confidence": confidence,
                "needs_review": needs_review or problem is not None,
                "state_id": live.history.state_id,
                "supersedes": superseded,
            }
            for key, value in (("candidates", candidates), ("media", media),
                               ("detail", detail), ("problem", problem)):
                if value is not None:
                    payload[key] = value if not isinstance(value, Mapping) else dict(value)
            entries = self._commit(live, NewEntry(source, "reading", payload,
                                                  live.game.event_schema_version))
            if self.auto_accept and not payload["needs_review"]:
                entries += self._apply(live, command, source,
                                       reading=entries[0].seq)
            entries += self._after_change(live) if len(entries) > 1 else []
            live.changed.notify_all()
        return entries

    def simulate_reading(self, session_id: str, rng: random.Random) -> list[Entry]:
        """Simulation mode: the game's simulated spinner or tower gives the next chance input,
        which then goes through the same reading path as real hardware."""
        live = self.open(session_id)
        with live.lock:
            command = live.game.simulate_chance(live.history.state, rng)
        if command is None:
            raise Refused("The table is not waiting for a spin or a drop.", "E_NO_CHANCE_NEEDED")
        return self.add_reading(session_id, source="simulator", command_json=command.to_json(),
                                confidence=1.0, needs_review=False)

    def confirm_reading(self, session_id: str, reading_seq: int, *, actor: str) -> list[Entry]:
        """Apply a pending reading. For an AI's move, a person confirms it was carried out on
        the board; it is logged as the AI's, with who confirmed it."""
        live = self.open(session_id)
        with live.lock:
            reading = self._pending(live, reading_seq)
            command = Command.from_json(reading["command"])
            if reading["source"].startswith("ai:"):
                if reading["state_id"] != live.history.state_id:
                    raise StaleState("The table changed since the AI decided; it decides again.")
                entries = self._apply(live, command, reading["source"], reading=reading_seq,
                                      confirmed_by=actor)
            else:
                entries = self._apply(live, command, actor, reading=reading_seq)
            entries += self._after_change(live)
        return entries

    def correct_reading(
        self, session_id: str, reading_seq: int, args: Mapping[str, Any], *, actor: str
    ) -> list[Entry]:
        """A person says what the reading should have been; the corrected command is applied."""
        live = self.open(session_id)
        if not isinstance(args, Mapping):
            raise SessionError("A correction's 'args' must be a JSON object.")
        with live.lock:
            reading = self._pending(live, reading_seq)
            original = Command.from_json(reading["command"])
            command = Command(original.name, dict(args), original.seat)
            entries = self._apply(live, command, actor, "correction",
                                  reading=reading_seq, original_args=dict(original.args))
            entries += self._after_change(live)
        return entries

    def dismiss_reading(self, session_id: str, reading_seq: int, *, actor: str) -> list[Entry]:
        live = self.open(session_id)
        with live.lock:
            self._pending(live, reading_seq)
            entries = self._commit(live, NewEntry(actor, "dismiss", {"reading": reading_seq},
                                                  live.game.event_schema_version))
            live.changed.notify_all()
        return entries

    # --- following ------------------------------------------------------------------------------
    def wait(self, session_id: str, after: int, timeout: float) -> list[Entry]:
        """Entries after ``after``; blocks up to ``timeout`` seconds for the next one."""
        live = self.open(session_id)
        with live.lock:
            live.changed.wait_for(lambda: live.history.last_seq > after or self._closed, timeout)
        return self.store.entries(session_id, after=after)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        self._closed = True
        for live in list(self._live.values()):
            with live.lock:
                if live.timer:
                    live.timer.cancel()
                live.changed.notify_all()

    # --- internals ------------------------------------------------------------------------------
    def _game(self, game_id: str) -> Game:
        try:
            return self.games.get(game_id)
        except UnknownGame as exc:
            raise NotFound(str(exc).capitalize() + ".", "E_UNKNOWN_GAME") from exc

    def _parse_command(self, live: LiveSession, data: Mapping[str, Any]) -> Command:
        try:
            command = Command.from_json(data)
        except IllegalMove as exc:
            raise SessionError(exc.message, exc.code) from exc
        if command.seat is not None and command.seat >= len(live.setup.seats):
            raise SessionError(
                f"There is no seat {command.seat} at this table "
                f"(seats 0–{len(live.setup.seats) - 1}).",
                "E_NO_SUCH_SEAT",
            )
        return command

    def _check_state_id(self, live: LiveSession, state_id: int | None) -> None:
        if state_id is not None and state_id != live.history.state_id:
            raise StaleState(
                "The table has changed since this was sent; look again and retry.",
                current_state_id=live.history.state_id,
            )

    def _pending(self, live: LiveSession, reading_seq: int) -> dict[str, Any]:
        reading = live.history.readings.get(reading_seq)
        if reading is None:
            raise NotFound(f"No pending reading {reading_seq}.", "E_NO_SUCH_READING")
        return reading

    def _stamp(self, command: Command, at: float | None = None) -> Command:
        """The session's time and logged randomness; whatever a client sent for them is ignored."""
        return Command(command.name, command.args, command.seat,
                       self.clock() if at is None else at, secrets.randbits(63))

    def _apply(
        self,
        live: LiveSession,
        command: Command,
        actor: str,
        kind: str = "command",
        at: float | None = None,
        **extra: Any,
    ) -> list[Entry]:
        command = self._stamp(command, at)
        try:
            new_state, events = live.game.apply(live.history.state, command)
        except IllegalMove as exc:
            raise Refused.from_illegal(exc) from exc
        except Exception as exc:
            log.exception("the %s engine failed on %s in session %s; state: %s", live.game.id,
                          command.to_json(), live.record.id,
                          live.game.dump_state(live.history.state))
            raise EngineFailure(
                "The rules engine failed on this request; nothing changed. The log has the "
                f"details ({type(exc).__name__}).") from exc
        payload = {"command": command.to_json(), "events": [e.to_json() for e in events], **extra}
        return self._commit(
            live, NewEntry(actor, kind, payload, live.game.event_schema_version), new_state
        )

    def _commit(self, live: LiveSession, new: NewEntry, new_state: Any = None) -> list[Entry]:
        entries = self.store.append(live.record.id, [new])
        live.history.record(entries[0], new_state)
        return entries

    def _after_change(self, live: LiveSession) -> list[Entry]:
        """Let AI seats move, keep the session status and deadline current, wake subscribers."""
        entries = self._drive_ai(live)
        game, state = live.game, live.history.state
        over = game.outcome(state) is not None
        status = "finished" if over else "active"
        if status != live.record.status:
            self.store.set_status(live.record.id, status)
            live.record = dataclasses.replace(live.record, status=status)
            if over:
                self.store.put_profiles(dict(game.profile_updates(live.setup, state)))
        self._schedule_deadline(live)
        live.changed.notify_all()
        return entries

    def _drive_ai(self, live: LiveSession) -> list[Entry]:
        """Let AI seats decide. At a physical table each decision waits, as a reading with
        instructions for a person, until someone confirms it was done on the board."""
        entries = self._drop_stale_ai_moves(live)
        game = live.game
        for _ in range(self.ai_max_steps):
            state = live.history.state
            if game.outcome(state) is not None:
                break
            ai_seats = [s for s in game.to_act(state) if live.setup.seats[s].ai]
            if not ai_seats:
                break
            seat = ai_seats[0]
            level = live.setup.seats[seat].ai or ""
            policy = live.policies.get(seat)
            if policy is None:
                policy = live.policies[seat] = game.policies()[level]()
            legal = [c for c in game.legal_commands(state) if c.seat == seat]
            rng = random.Random(f"{live.setup.seed}:{live.history.last_seq}")
            command = policy.choose(state, legal, rng)
            if not self.confirm_ai_moves:
                entries += self._apply(live, command, f"ai:{level}")
                continue
            if any(r["source"].startswith("ai:") for r in live.history.readings.values()):
                break
            payload = {
                "source": f"ai:{level}",
                "command": command.to_json(),
                "confidence": 1.0,
                "needs_review": True,
                "state_id": live.history.state_id,
                "supersedes": [],
                "detail": {"instructions": game.instructions(state, command)},
            }
            entries += self._commit(live, NewEntry(f"ai:{level}", "reading", payload,
                                                   game.event_schema_version))
            break
        return entries

    def _drop_stale_ai_moves(self, live: LiveSession) -> list[Entry]:
        """An AI move decided on a state that has since changed (an undo) is withdrawn."""
        stale = [seq for seq, r in live.history.readings.items()
                 if r["source"].startswith("ai:") and r["state_id"] != live.history.state_id]
        entries: list[Entry] = []
        for seq in stale:
            entries += self._commit(live, NewEntry("system", "dismiss",
                                                   {"reading": seq, "stale": True},
                                                   live.game.event_schema_version))
        return entries

    def _schedule_deadline(self, live: LiveSession) -> None:
        if live.timer is not None:
            live.timer.cancel()
            live.timer = None
        deadline = live.game.deadline(live.history.state)
        if deadline is None or self._closed:
            return
        timer = threading.Timer(
            max(0.0, deadline.at - self.clock()),
            self._on_deadline,
            (live.record.id, live.history.state_id),
        )
        timer.daemon = True
        live.timer = timer
        timer.start()

    def _on_deadline(self, session_id: str, state_id: int) -> None:
        live = self.open(session_id)
        with live.lock:
            if self._closed or live.history.state_id != state_id:
                return
            deadline = live.game.deadline(live.history.state)
            if deadline is None:
                return
            try:
                self._apply(live, deadline.command, "timer", at=deadline.at)
            except Refused:
                return
            self._after_change(live)


def _command_json(game: Game, command: Command, viewer: Viewer) -> dict[str, Any]:
    """A command outside the log (a deadline's) redacted like a logged one."""
    entry = {"kind": "command", "payload": {"command": command.to_json(), "events": []}}
    out: dict[str, Any] = game.redact_entry(entry, viewer)["payload"]["command"]
    return out


def setup_of(record: SessionRecord) -> Setup:
    return Setup.from_json(
        {
            "seats": record.players,
            "mode": record.mode,
            "options": record.options,
            "seed": record.seed,
            "profiles": record.profiles,
        }
    )


__all__ = [
    "LiveSession",
    "NotFound",
    "Refused",
    "SessionError",
    "SessionService",
    "StaleState",
    "is_human",
    "setup_of",
]
