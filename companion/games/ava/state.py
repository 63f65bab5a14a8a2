"""The AVA game state (AVA-18..AVA-20) as plain, JSON-friendly values.

Everything held here is immutable (ints, strings, tuples) except the dataclass fields themselves,
so ``clone`` only copies the two players and the top level: ``apply`` then edits the copy and the
state it was given stays untouched.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from companion.engine import IllegalMove
from companion.games.ava.formulas import NO_UNITS, Units

SIDE_NAMES = ("allies", "axis")

# Turn steps (AVA-32). S1 (collect) and S4 (move) happen inside the commands that reach them.
JAIL = "S2"
SPIN = "S3"
OFFER = "S5"
RESOLVE = "S6"
BUILD = "S7"
JAIL_OFFER = "S2_now"  # ransom_payable_immediately: offered once at the jailing (AVA-107)
OVER = "over"


@dataclass(slots=True)
class Player:
    """One side's counters (AVA-18)."""

    side: str
    seat: int
    controller: str  # human | tank_ai | plane_ai | battleship_ai | random_ai
    token: int = 0
    money: int = 0
    available: Units = NO_UNITS
    position: int = 1
    strategic_moves_used: int = 0
    treaties_signed: int = 0
    jail_count: int = 0
    jailed: bool = False
    kept_cards: tuple[str, ...] = ()
    skip_next_collection: bool = False
    recruited_this_turn: Units = NO_UNITS
    last_garrison_square: int | None = None
    garrisoned_this_turn: int | None = None
    nukes: int = 0
    advantage: str | None = None


@dataclass(slots=True)
class AvaState:
    """A whole game (AVA-19, AVA-20). Player 0 is the Allies, player 1 the Axis."""

    mode: str
    options: dict[str, Any]
    resource_pct: int
    penalty_pct: int
    luck_pct: int
    data_dir: str | None
    seed: int
    first_side: int
    players: tuple[Player, Player]
    owner: tuple[int | None, ...]  # per square 1..36 (index 0 = square 1): side index or None
    garrison: tuple[Units, ...]  # per square; only territories ever hold units
    current: int = 0
    round: int = 1
    turns_played: int = 0
    step: str = SPIN
    spin_value: int | None = None
    spin_square: int | None = None
    landed_square: int | None = None
    offer: str = "none"  # none | open | declined | taken
    offer_at: float | None = None
    auto_penalty: bool = False
    spy_used: bool = False
    discard_owed: bool = False
    spies_drawn: int = 0
    limited_drawn: dict[str, int] = field(default_factory=dict)
    draws: int = 0
    decks: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    discards: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    last_card: str | None = None
    result: dict[str, Any] | None = None

    def clone(self) -> AvaState:
        p0, p1 = self.players
        return dataclasses.replace(
            self,
            players=(dataclasses.replace(p0), dataclasses.replace(p1)),
            limited_drawn=dict(self.limited_drawn),
        )

    @property
    def me(self) -> Player:
        return self.players[self.current]

    @property
    def them(self) -> Player:
        return self.players[1 - self.current]


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_thaw(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _thaw(v) for k, v in value.items()}
    return value


def _freeze(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    return value


_PLAYER_FIELDS = [f.name for f in dataclasses.fields(Player)]
_STATE_FIELDS = [f.name for f in dataclasses.fields(AvaState)]
_DICT_FIELDS = {"options", "limited_drawn", "result"}


def to_json(state: AvaState) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in _STATE_FIELDS:
        value = getattr(state, name)
        if name == "players":
            out[name] = [{k: _thaw(getattr(p, k)) for k in _PLAYER_FIELDS} for p in value]
        else:
            out[name] = _thaw(value)
    return out


def from_json(data: Any) -> AvaState:
    """Rebuild a state from ``to_json`` output; a malformed document is ``E_BAD_STATE``."""
    if not isinstance(data, dict):
        raise IllegalMove("E_BAD_STATE", "An AVA state must be a JSON object.")
    missing = [n for n in _STATE_FIELDS if n not in data]
    unknown = sorted(set(data) - set(_STATE_FIELDS))
    if missing or unknown:
        raise IllegalMove(
            "E_BAD_STATE", f"AVA state fields wrong: missing {missing}, unknown {unknown}."
        )
    kwargs: dict[str, Any] = {}
    for name in _STATE_FIELDS:
        value = data[name]
        if name == "players":
            if not isinstance(value, list) or len(value) != 2:
                raise IllegalMove("E_BAD_STATE", "An AVA state needs exactly two players.")
            players = []
            for p in value:
                if not isinstance(p, dict) or set(p) != set(_PLAYER_FIELDS):
                    raise IllegalMove("E_BAD_STATE", "An AVA player entry has the wrong fields.")
                players.append(Player(**{k: _freeze(p[k]) for k in _PLAYER_FIELDS}))
            kwargs[name] = (players[0], players[1])
        elif name in _DICT_FIELDS:
            if value is not None and not isinstance(value, dict):
                raise IllegalMove("E_BAD_STATE", f"AVA state field '{name}' must be an object.")
            kwargs[name] = dict(value) if value is not None else None
        else:
            kwargs[name] = _freeze(value)
    if kwargs["limited_drawn"] is None:
        kwargs["limited_drawn"] = {}
    _check_shape(kwargs)
    return AvaState(**kwargs)


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_units(value: Any) -> bool:
    return isinstance(value, tuple) and len(value) == 4 and all(_is_count(v) for v in value)


def _check_shape(kwargs: dict[str, Any]) -> None:
    """Enough checking that a tampered or truncated document fails here, not mid-game."""

    def bad(what: str) -> IllegalMove:
        return IllegalMove("E_BAD_STATE", f"AVA state: {what}.")

    owner, garrison = kwargs["owner"], kwargs["garrison"]
    if (
        not isinstance(owner, tuple)
        or len(owner) != 36
        or any(o not in (None, 0, 1) for o in owner)
    ):
        raise bad("'owner' needs 36 entries of 0, 1 or null")
    if not isinstance(garrison, tuple) or len(garrison) != 36 or not all(map(_is_units, garrison)):
        raise bad("'garrison' needs 36 unit counts")
    if kwargs["current"] not in (0, 1) or kwargs["first_side"] not in (0, 1):
        raise bad("'current' and 'first_side' must be 0 or 1")
    if kwargs["step"] not in (JAIL, SPIN, OFFER, RESOLVE, BUILD, JAIL_OFFER, OVER):
        raise bad(f"unknown step {kwargs['step']!r}")
    if not isinstance(kwargs["options"], dict):
        raise bad("'options' must be an object")
    for i, p in enumerate(kwargs["players"]):
        for name in ("money", "strategic_moves_used", "treaties_signed", "jail_count", "nukes"):
            if not _is_count(getattr(p, name)):
                raise bad(f"player {i} '{name}' must be a whole number of 0 or more")
        if not _is_units(p.available) or not _is_units(p.recruited_this_turn):
            raise bad(f"player {i} unit counts must be four whole numbers")
        if not (isinstance(p.position, int) and 1 <= p.position <= 36):
            raise bad(f"player {i} 'position' must be a square 1..36")
