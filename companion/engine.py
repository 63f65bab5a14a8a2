"""The contract every rules engine implements, and the value types that cross it.

An engine is pure: ``apply(state, command)`` returns a new state and the events that explain the
change, or raises :class:`IllegalMove` and leaves ``state`` untouched. Chance enters only as data
inside commands (a spinner value, cube counts, a ``seed`` the session logs), so replaying the log
reproduces every state exactly. Nothing here reads hardware, the network, the clock or storage.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

JSON = Any
"""A value made of dict, list, str, int, float, bool and None only."""

Viewer = frozenset[int] | None
"""Whose secrets a reader may see: the seats it holds (empty for a spectator), or ``None`` for
every seat (the host, and tools such as the CLI, replays for tests and the AIs)."""


def sees(viewer: Viewer, seat: int | None) -> bool:
    """Whether a reader with ``viewer`` may see what belongs to ``seat`` (``None``: the table's,
    which everyone sees)."""
    return viewer is None or seat is None or seat in viewer


class IllegalMove(Exception):
    """A command the rules forbid, with a stable error code and a reason a player understands."""

    def __init__(self, code: str, message: str, **details: JSON) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"code": self.code, "message": self.message}
        if self.details:
            out["details"] = self.details
        return out


@dataclass(frozen=True)
class Command:
    """A request to change the game.

    ``seat`` is the seat the request is made by (``None``: the table itself, e.g. the tower or the
    host). ``at`` is the session's timestamp in seconds, set when the command is accepted, so rules
    with time windows stay deterministic on replay. ``seed`` is the session's logged randomness for
    commands that need it (a digital shuffle); engines derive any chance from it and nothing else.
    """

    name: str
    args: Mapping[str, JSON] = field(default_factory=dict)
    seat: int | None = None
    at: float | None = None
    seed: int | None = None

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"name": self.name, "args": dict(self.args)}
        for key in ("seat", "at", "seed"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Command:
        if not isinstance(data, Mapping):
            raise IllegalMove("E_BAD_REQUEST", "A command must be a JSON object.")
        name = data.get("name")
        if not isinstance(name, str) or not name:
            raise IllegalMove("E_BAD_REQUEST", "A command needs a 'name' (text).")
        args = data.get("args", {})
        if not isinstance(args, Mapping):
            raise IllegalMove("E_BAD_REQUEST", "A command's 'args' must be a JSON object.")
        seat = data.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or seat < 0):
            raise IllegalMove("E_BAD_REQUEST", "A command's 'seat' must be a seat number.")
        at = data.get("at")
        if at is not None and (not isinstance(at, int | float) or isinstance(at, bool)):
            raise IllegalMove("E_BAD_REQUEST", "A command's 'at' must be a number of seconds.")
        seed = data.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise IllegalMove("E_BAD_REQUEST", "A command's 'seed' must be a whole number.")
        return cls(name=name, args=dict(args), seat=seat, at=at, seed=seed)

    def matches(self, other: Command) -> bool:
        """Same request, ignoring the session's stamps (time and seed)."""
        return (self.name, dict(self.args), self.seat) == (other.name, dict(other.args), other.seat)


@dataclass(frozen=True)
class Limit:
    """A linear limit on a form's counts, ``min <= sum(weights[k] * counts[k]) <= max``, named
    for people by ``label`` (``cost``, ``power``, ``units``): the dashboard shows the running total
    against it, e.g. invasion power against the defence it must reach."""

    label: str
    weights: Mapping[str, int]
    min: int | None = None
    max: int | None = None

    def total(self, counts: Mapping[str, int]) -> int:
        return sum(w * counts.get(k, 0) for k, w in self.weights.items())

    def holds(self, counts: Mapping[str, int]) -> bool:
        total = self.total(counts)
        return (self.min is None or total >= self.min) and (self.max is None or total <= self.max)

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"label": self.label, "weights": dict(self.weights)}
        if self.min is not None:
            out["min"] = self.min
        if self.max is not None:
            out["max"] = self.max
        return out


@dataclass(frozen=True)
class CountForm:
    """Every legal command of one shape whose args are whole-number counts (units to recruit,
    cubes counted), too many to list one by one.

    A command is legal by this form when it has the form's ``name`` and ``seat``, exactly the
    ``fixed`` args, no other args than the counts, each count ``k`` (missing means 0) within the
    inclusive range ``counts[k]``, and every limit holds. No other command of that name is legal.
    With ``within`` set, the counts sit in one object arg of that name instead of at the top.
    """

    name: str
    seat: int | None
    counts: Mapping[str, tuple[int, int]]
    limits: Sequence[Limit] = ()
    fixed: Mapping[str, JSON] = field(default_factory=dict)
    within: str | None = None

    def admits(self, command: Command) -> bool:
        if command.name != self.name or command.seat != self.seat:
            return False
        args = dict(command.args)
        for key, value in self.fixed.items():
            if key not in args or args.pop(key) != value:
                return False
        if self.within is not None:
            inner = args.pop(self.within, None)
            if args or not isinstance(inner, Mapping):
                return False
            args = dict(inner)
        if not set(args) <= set(self.counts):
            return False
        counts: dict[str, int] = {}
        for key, (low, high) in self.counts.items():
            value = args.get(key, 0)
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                return False
            counts[key] = value
        return all(limit.holds(counts) for limit in self.limits)

    def to_json(self) -> dict[str, JSON]:
        return {
            "name": self.name,
            "seat": self.seat,
            "fixed": dict(self.fixed),
            "counts": {k: list(v) for k, v in self.counts.items()},
            "limits": [limit.to_json() for limit in self.limits],
            "within": self.within,
        }


@dataclass(frozen=True)
class Event:
    """Something that happened, for people (the dashboard) and for the log."""

    kind: str
    data: Mapping[str, JSON] = field(default_factory=dict)

    def to_json(self) -> dict[str, JSON]:
        return {"kind": self.kind, "data": dict(self.data)}

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Event:
        return cls(kind=str(data["kind"]), data=dict(data.get("data", {})))


@dataclass(frozen=True)
class Seat:
    """One place at the table: who sits there and, for an AI seat, which policy plays it."""

    name: str
    colour: str | None = None
    camp: str | None = None
    ai: str | None = None
    profile: str | None = None

    def to_json(self) -> dict[str, JSON]:
        return {k: v for k, v in self.__dict__.items() if v is not None}

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Seat:
        if not isinstance(data, Mapping):
            raise IllegalMove("E_BAD_SETUP", "Each seat must be a JSON object with a 'name'.")
        unknown = set(data) - {"name", "colour", "camp", "ai", "profile"}
        if unknown:
            fields = ", ".join(sorted(unknown))
            raise IllegalMove("E_BAD_SETUP", f"Unknown seat field(s): {fields}.")
        name = data.get("name")
        if not isinstance(name, str) or not name.strip():
            raise IllegalMove("E_BAD_SETUP", "Each seat needs a name.")
        for key in ("colour", "camp", "ai", "profile"):
            if data.get(key) is not None and not isinstance(data[key], str):
                raise IllegalMove("E_BAD_SETUP", f"A seat's '{key}' must be text.")
        return cls(
            name=name.strip(),
            colour=data.get("colour"),
            camp=data.get("camp"),
            ai=data.get("ai"),
            profile=data.get("profile"),
        )


@dataclass(frozen=True)
class Setup:
    """Everything ``initial_state`` needs: fixed when the session is created and logged with it.

    ``profiles`` is a snapshot of the seated players' stored profiles (e.g. unlocked modes) taken
    at creation, so a replay sees exactly what the engine saw.
    """

    seats: Sequence[Seat]
    mode: str | None = None
    options: Mapping[str, JSON] = field(default_factory=dict)
    seed: int = 0
    profiles: Mapping[str, JSON] = field(default_factory=dict)

    def to_json(self) -> dict[str, JSON]:
        return {
            "seats": [s.to_json() for s in self.seats],
            "mode": self.mode,
            "options": dict(self.options),
            "seed": self.seed,
            "profiles": dict(self.profiles),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Setup:
        if not isinstance(data, Mapping):
            raise IllegalMove("E_BAD_SETUP", "A setup must be a JSON object.")
        seats = data.get("seats")
        if not isinstance(seats, list) or not seats:
            raise IllegalMove("E_BAD_SETUP", "A setup needs a list of seats.")
        options = data.get("options") or {}
        if not isinstance(options, Mapping):
            raise IllegalMove("E_BAD_SETUP", "Rule options must be a JSON object.")
        mode = data.get("mode")
        if mode is not None and not isinstance(mode, str):
            raise IllegalMove("E_BAD_SETUP", "The mode must be text.")
        seed = data.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise IllegalMove("E_BAD_SETUP", "The seed must be a whole number.")
        return cls(
            seats=[Seat.from_json(s) for s in seats],
            mode=mode,
            options=dict(options),
            seed=seed,
            profiles=dict(data.get("profiles") or {}),
        )


@dataclass(frozen=True)
class Deadline:
    """A time limit the session enforces: if the state is unchanged at ``at``, apply ``command``."""

    at: float
    command: Command


class Policy(Protocol):
    """An AI: picks one of the legal commands. Randomness only from the ``rng`` it is given."""

    def choose(self, state: Any, legal: Sequence[Command], rng: random.Random) -> Command: ...


@dataclass(frozen=True)
class RuleOption:
    """A named rule option, shown in the lobby with its default."""

    name: str
    default: JSON
    description: str
    choices: Sequence[JSON] | None = None

    def to_json(self) -> dict[str, JSON]:
        out = {"name": self.name, "default": self.default, "description": self.description}
        if self.choices is not None:
            out["choices"] = list(self.choices)
        return out


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: the winning seats (empty for a draw), why, and its length."""

    winners: Sequence[int]
    reason: str
    turns: int

    def to_json(self) -> dict[str, JSON]:
        return {"winners": list(self.winners), "reason": self.reason, "turns": self.turns}


class Game:
    """Base class for a game's rules. Subclasses implement the abstract five; the rest has defaults.

    State objects are treated as immutable values: ``apply`` must not change the state it is given.
    """

    id: ClassVar[str]
    title: ClassVar[str]
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 2
    modes: ClassVar[Sequence[str]] = ()
    event_schema_version: ClassVar[int] = 1

    # --- the engine proper -------------------------------------------------------------------
    def initial_state(self, setup: Setup) -> Any:
        raise NotImplementedError

    def legal_commands(self, state: Any) -> list[Command]:
        raise NotImplementedError

    def apply(self, state: Any, command: Command) -> tuple[Any, list[Event]]:
        raise NotImplementedError

    def dump_state(self, state: Any) -> JSON:
        raise NotImplementedError

    def load_state(self, data: JSON) -> Any:
        raise NotImplementedError

    def count_forms(self, state: Any) -> list[CountForm]:
        """The commands made of counts that are legal now, as forms. ``legal_commands`` then
        lists only useful instances of them (the AIs' choices, quick buttons)."""
        return []

    def offers(self, state: Any, command: Command) -> bool:
        """Whether the rules allow ``command`` now: ``apply`` accepts it exactly when this holds."""
        return any(f.admits(command) for f in self.count_forms(state)) or any(
            command.matches(c) for c in self.legal_commands(state)
        )

    # --- what the session asks about a state ---------------------------------------------------
    def to_act(self, state: Any, legal: Sequence[Command] | None = None) -> list[int]:
        """Seats that may act now (empty when the game is over or only the table may act);
        ``legal`` saves listing the commands again when the caller has them."""
        commands = self.legal_commands(state) if legal is None else legal
        return sorted({c.seat for c in commands if c.seat is not None})

    def outcome(self, state: Any) -> Outcome | None:
        """``None`` while the game goes on."""
        raise NotImplementedError

    def is_over(self, state: Any) -> bool:
        return self.outcome(state) is not None

    def deadline(self, state: Any) -> Deadline | None:
        """A time-limited offer that is open now, if any."""
        return None

    def rule_options(self) -> Sequence[RuleOption]:
        return ()

    def seat_choices(self) -> Mapping[str, Sequence[str]]:
        """The values a seat's ``camp`` and ``colour`` may take, for the lobby's choices
        (a field not named here is not used by the game)."""
        return {}

    def policies(self) -> Mapping[str, type]:
        """AI levels by name; each value is constructed with no arguments and is a Policy."""
        return {}

    def simulate_chance(self, state: Any, rng: random.Random) -> Command | None:
        """In simulation and self-play: the table's next chance input (a spin, a drop's counts)
        when the game is waiting for one, else ``None``. Real play gets these from hardware."""
        return None

    def tower_drop(self, state: Any) -> Mapping[str, int] | None:
        """The cubes by colour the table must put into the cube tower now, while a drop is
        awaited and not yet reported; ``None`` otherwise. The simulated tower drops these."""
        return None

    def selfplay_setup(self, ais: Sequence[str], seed: int, mode: str | None = None) -> Setup:
        """A setup for a self-play game in which side ``i`` is played by AI level ``ais[i]``."""
        raise NotImplementedError

    def summary(self, state: Any) -> str:
        """A few readable lines about a state, for the CLI."""
        import json

        return json.dumps(self.dump_state(state), indent=2, sort_keys=True)

    def metrics(self, state: Any) -> Mapping[str, float]:
        """Numbers worth plotting over a game (money, bases, army power, cubes in the tower),
        by a readable name."""
        return {}

    def instructions(self, state: Any, command: Command) -> str:
        """What a person must do on the physical board to carry out ``command`` (an AI's move),
        e.g. "Put 2 tanks on France". Games should say it in the table's words."""
        args = ", ".join(f"{k} {v}" for k, v in command.args.items())
        return f"{command.name} {args}".strip()

    def profile_updates(self, setup: Setup, state: Any) -> Mapping[str, JSON]:
        """New profile data by profile name once a game is over (e.g. modes unlocked)."""
        return {}

    # --- what each reader may see ----------------------------------------------------------------
    def redact_state(self, state_json: JSON, viewer: Viewer) -> JSON:
        """``dump_state``'s output as a reader with ``viewer`` may see it. Every state that
        leaves the server passes through here, so a game with hidden information (a hand of
        cards) blanks what other seats hold secretly, keeping what is public (a hand's size).
        Must not change ``state_json``. The default: nothing is secret, returned unchanged."""
        return state_json

    def visible_state(self, state: Any, viewer: Viewer) -> JSON:
        """The state as JSON as a reader with ``viewer`` may see it (what leaves the server)."""
        return self.redact_state(self.dump_state(state), viewer)

    def redact_entry(self, entry_json: JSON, viewer: Viewer) -> JSON:
        """A log entry (``Entry.to_json()``; at least its ``kind`` and ``payload``) as a reader
        with ``viewer`` may see it: commands, readings and events of other seats lose the
        arguments that would reveal a secret. Every entry that leaves the server (the log, the
        live stream, pending readings, write replies) passes through here. Must not change
        ``entry_json``. The default: nothing is secret, returned unchanged."""
        return entry_json

    def upcast(self, kind: str, payload: JSON, version: int) -> JSON:
        """Bring a logged entry payload written at an older ``event_schema_version`` up to date."""
        return payload
