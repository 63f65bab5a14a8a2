"""The game state the engine keeps (§2), as plain JSON-shaped containers.

A state is a value: the rules clone it before changing anything, so the state given to ``apply``
is never touched and a refused request leaves nothing half-done (CPX-2). Base ownership is not
stored: it is the holder of the base's card (CPX-22), one fact in one place.
"""

from __future__ import annotations

import copy
import marshal
from dataclasses import dataclass, field, fields
from typing import Any

# Card places (CPX-24).
SUPPLY = "supply"
COLLECTION = "collection"
HAND = "hand"
DISCARD = "discard"
PLAYED = "played"
COMMITTED = "committed"

# Phases and steps.
CHOOSE_START = "choose_start"
PRIMING = "priming"
HAND_CHOICE = "hand_choice"
RECRUIT = "recruit"
MOVE = "move"
BATTLE = "battle"
OVER = "over"


@dataclass
class State:
    """Everything that changes during a game. Field names follow §2."""

    players: list[dict[str, Any]]
    """Per seat: ``faction``, ``colour``, ``camp``, ``out``, ``out_round``, ``hand_chosen``."""
    options: dict[str, Any]
    supply: dict[str, int]
    pools: dict[str, int]
    markers: dict[str, int]
    units: dict[str, dict[str, int]]
    """Base id -> colour -> count (only non-zero counts are kept)."""
    cards: dict[str, dict[str, Any]]
    """Card id -> ``{"holder": seat | None, "place": ..., "attack": seq | None}``."""
    tower: dict[str, int]
    out_tray: dict[str, int] = field(default_factory=dict)
    set_aside: list[dict[str, Any]] = field(default_factory=list)
    bound: dict[str, int] = field(default_factory=dict)
    designated: list[dict[str, Any]] = field(default_factory=list)
    """Effects waiting for a later battlefield (option ``designate_any_battlefield``)."""
    phase: str = CHOOSE_START
    round: int = 0
    first_chooser: int = 0
    choosers_left: list[int] = field(default_factory=list)
    order: list[int] = field(default_factory=list)
    acting: int | None = None
    squads_left: list[int] = field(default_factory=list)
    recruited: list[int] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    attacks: list[dict[str, Any]] = field(default_factory=list)
    queue: list[str] = field(default_factory=list)
    battle: dict[str, Any] | None = None
    drop: dict[str, Any] | None = None
    stack: list[dict[str, Any]] = field(default_factory=list)
    resolving: bool = False
    next_activation: int = 1
    passes: list[int] = field(default_factory=list)
    window: str | None = None
    prompt: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    commands: int = 0

    def clone(self) -> State:
        """A deep copy: the only way the rules start changing a state.

        ``marshal`` copies plain containers an order of magnitude faster than ``deepcopy``, and
        the state holds nothing else (it must serialise to JSON anyway).
        """
        return State(**_copy({f.name: getattr(self, f.name) for f in _FIELDS}))

    def to_json(self) -> dict[str, Any]:
        return _copy({f.name: getattr(self, f.name) for f in _FIELDS})

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> State:
        names = {f.name for f in _FIELDS}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown state field(s): {', '.join(sorted(unknown))}")
        return cls(**copy.deepcopy(data))

    # --- derived facts -------------------------------------------------------------------------
    def camp_of(self, seat: int) -> str:
        return self.players[seat]["camp"]

    def colour_of(self, seat: int) -> str:
        return self.players[seat]["colour"]

    def seat_of_colour(self, colour: str) -> int | None:
        for i, p in enumerate(self.players):
            if p["colour"] == colour:
                return i
        return None

    def camp_colours(self, camp: str) -> list[str]:
        return [p["colour"] for p in self.players if p["camp"] == camp]

    def active_seats(self) -> list[int]:
        return [i for i, p in enumerate(self.players) if not p["out"]]

    def units_of(self, base: str, colour: str) -> int:
        return self.units.get(base, {}).get(colour, 0)

    def camp_units(self, base: str, camp: str) -> int:
        here = self.units.get(base, {})
        return sum(here.get(c, 0) for c in self.camp_colours(camp))

    def add_units(self, base: str, colour: str, n: int) -> None:
        here = self.units.setdefault(base, {})
        value = here.get(colour, 0) + n
        if value < 0:
            raise AssertionError(f"negative units of {colour} on {base}")
        if value:
            here[colour] = value
        else:
            here.pop(colour, None)
        if not here:
            self.units.pop(base, None)

    def cards_of(self, seat: int, place: str | None = None) -> list[str]:
        return sorted(
            cid
            for cid, c in self.cards.items()
            if c["holder"] == seat and (place is None or c["place"] == place)
        )

    def base_count(self, seat: int) -> int:
        return sum(1 for c in self.cards.values() if c["holder"] == seat)

    def camp_bases(self, camp: str) -> int:
        return sum(
            1
            for c in self.cards.values()
            if c["holder"] is not None and self.players[c["holder"]]["camp"] == camp
        )


_FIELDS = fields(State)


def _copy(value: dict[str, Any]) -> dict[str, Any]:
    return marshal.loads(marshal.dumps(value))
