"""What a session's log means: the state after its entries, honouring undos, readings and fixes.

The live service and every replay fold entries through this one class, so a replay reproduces
exactly what the table saw. Undo never edits the log: an ``undo`` entry names the command it
takes back, and the state is rebuilt from the nearest checkpoint.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.engine import Command, Event, Game, IllegalMove, Setup
from companion.errors import CompanionError
from companion.store import Entry

STATE_CHANGING = frozenset({"command", "correction", "undo"})
"""Entry kinds that change the game state (and so the state id)."""


class CorruptLog(CompanionError):
    pass


def is_human(actor: str) -> bool:
    """Undo takes back what people did (including readings they let through), never what the
    AIs, the timers or the companion itself did."""
    return not (actor.startswith("ai:") or actor in ("timer", "system"))


@dataclass
class Applied:
    seq: int
    actor: str
    command: Command


@dataclass
class History:
    game: Game
    setup: Setup
    checkpoint_every: int = 64
    state: Any = None
    state_id: int = 0
    last_seq: int = 0
    applied: list[Applied] = field(default_factory=list)
    readings: dict[int, dict[str, Any]] = field(default_factory=dict)
    _checkpoints: dict[int, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.state = self.game.initial_state(self.setup)
        self._checkpoints[0] = self.state

    # --- live path: the service has already run the engine and committed the entry ----------------
    def record(self, entry: Entry, new_state: Any = None) -> None:
        kind, payload = entry.kind, entry.payload
        if kind in ("command", "correction"):
            self._push(entry.seq, entry.actor, Command.from_json(payload["command"]), new_state)
            self.readings.pop(payload.get("reading", -1), None)
        elif kind == "undo":
            self._undo(payload["target"], entry.seq)
        elif kind == "reading":
            for seq in payload.get("supersedes", ()):
                self.readings.pop(seq, None)
            self.readings[entry.seq] = payload
        elif kind == "dismiss":
            self.readings.pop(payload["reading"], None)
        self.last_seq = entry.seq

    # --- replay path: recompute every state from the logged commands ------------------------------
    def replay(self, entry: Entry) -> list[Event]:
        entry = self.upcast(entry)
        events: list[Event] = []
        new_state = None
        if entry.kind in ("command", "correction"):
            command = Command.from_json(entry.payload["command"])
            try:
                new_state, events = self.game.apply(self.state, command)
            except IllegalMove as exc:
                raise CorruptLog(
                    f"entry {entry.seq} ({command.name}) no longer applies: {exc.message}"
                ) from exc
        elif entry.kind == "undo" and self.index_of(entry.payload.get("target", -1)) is None:
            raise CorruptLog(f"entry {entry.seq} undoes entry {entry.payload.get('target')}, "
                             "which is not an applied command")
        self.record(entry, new_state)
        return events

    def upcast(self, entry: Entry) -> Entry:
        if entry.schema_version >= self.game.event_schema_version:
            return entry
        payload = self.game.upcast(entry.kind, entry.payload, entry.schema_version)
        return Entry(entry.session, entry.seq, entry.time, entry.actor, entry.kind,
                     self.game.event_schema_version, payload)

    # --- undo -------------------------------------------------------------------------------------
    def undo_target(self) -> Applied | None:
        """The last command a person made, which an undo would take back (with all after it)."""
        return next((a for a in reversed(self.applied) if is_human(a.actor)), None)

    def index_of(self, seq: int) -> int | None:
        return next((i for i, a in enumerate(self.applied) if a.seq == seq), None)

    def _push(self, seq: int, actor: str, command: Command, state: Any) -> None:
        self.applied.append(Applied(seq, actor, command))
        self.state = state
        self.state_id = seq
        if len(self.applied) % self.checkpoint_every == 0:
            self._checkpoints[len(self.applied)] = state

    def _undo(self, target_seq: int, seq: int) -> None:
        index = self.index_of(target_seq)
        if index is None:
            raise CorruptLog(f"undo of entry {target_seq}, which is not an applied command")
        del self.applied[index:]
        for n in [n for n in self._checkpoints if n > index]:
            del self._checkpoints[n]
        base = max(self._checkpoints)
        state = self._checkpoints[base]
        for applied in self.applied[base:]:
            state, _ = self.game.apply(state, applied.command)
        self.state = state
        self.state_id = seq


def timeline(game: Game, setup: Setup, entries: Any) -> list[dict[str, Any]]:
    """One point per log entry: what it was and the game's metrics right after it."""
    history = History(game, setup)
    points = [{"seq": 0, "kind": "start", "actor": "", "name": "",
               "metrics": dict(game.metrics(history.state))}]
    for entry in entries:
        history.replay(entry)
        command = entry.payload.get("command") or {}
        points.append({"seq": entry.seq, "kind": entry.kind, "actor": entry.actor,
                       "name": command.get("name", ""), "time": entry.time,
                       "metrics": dict(game.metrics(history.state))})
    return points


def fold(game: Game, setup: Setup, entries: Any, upto: int | None = None) -> History:
    """Replay entries (in order) into a fresh history, stopping after ``upto`` if given."""
    history = History(game, setup)
    for entry in entries:
        if upto is not None and entry.seq > upto:
            break
        history.replay(entry)
    return history
