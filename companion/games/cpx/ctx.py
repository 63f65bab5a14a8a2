"""The working context of one request: the data, a private copy of the state, and the events.

Every rule function takes a :class:`Ctx`, so a request either finishes and its copy becomes the
new state, or raises :class:`IllegalMove` and the copy is dropped (CPX-2).
"""

from __future__ import annotations

from typing import Any, NoReturn

from companion.engine import Event, IllegalMove

from .data import GameData
from .state import State


class Ctx:
    """Data + working state + the events produced so far."""

    __slots__ = ("d", "events", "s")

    def __init__(self, data: GameData, state: State) -> None:
        self.d = data
        self.s = state
        self.events: list[Event] = []

    def emit(self, event_kind: str, /, **data: Any) -> None:
        self.events.append(Event(event_kind, data))

    # --- naming things for people ---------------------------------------------------------------
    def faction_name(self, seat: int) -> str:
        return self.d.faction_by_id[self.s.players[seat]["faction"]].name_en

    def base_name(self, base: str) -> str:
        b = self.d.base_by_id.get(base)
        return f"{b.name_en} ({base})" if b else base

    def card_name(self, card: str) -> str:
        c = self.d.card_by_id.get(card)
        return f"{card} {c.name_en}" if c else card

    # --- ownership -------------------------------------------------------------------------------
    def owner(self, base: str) -> int | None:
        """CPX-22: the holder of the base's card."""
        return self.s.cards[self.d.card_of_base[base]]["holder"]

    def owner_camp(self, base: str) -> str | None:
        o = self.owner(base)
        return None if o is None else self.s.players[o]["camp"]

    def is_friendly(self, base: str, seat: int) -> bool:
        return self.owner_camp(base) == self.s.players[seat]["camp"]

    def friendly_units(self, base: str, seat: int) -> int:
        return self.s.camp_units(base, self.s.players[seat]["camp"])

    def other_camp(self, camp: str) -> str:
        return "B" if camp == "A" else "A"


def fail(code: str, message: str, **details: Any) -> NoReturn:
    """Refuse the request with a catalogue code (§12) and a message a player understands."""
    raise IllegalMove(code, message, **details)
