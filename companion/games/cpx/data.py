"""Loading and validating the game's data files (§15): factions, map, base cards, recruitment
cards, cube supply and rule-option defaults.

Rules are data where the source gives numbers, so a table can copy the folder and edit it for
house rules; every file is checked on load and a violation names the file, the entry, the field
and the rule (CPX-141). Fixtures (CPX-150) are loaded with ``shipped=False``, which checks only
their structure.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Any

from .designed import DESIGNED_CARDS

PLAYER_COLOURS: tuple[str, ...] = ("red", "blue", "yellow", "green")
NEUTRAL_COLOURS: tuple[str, ...] = ("black", "white")
COLOURS: tuple[str, ...] = PLAYER_COLOURS + NEUTRAL_COLOURS
ROUTE_COLOURS: tuple[str, ...] = ("yellow", "blue", "pink")
CARD_TYPES: tuple[str, ...] = ("land", "navy", "air", "amphibious")
BATTLE_KINDS: tuple[str, ...] = ("land", "sea", "air")
ROUTE_KIND: dict[str, str] = {"yellow": "land", "blue": "sea", "pink": "air"}

# CPX-18 and CPX-19: which card types may attack along a route of each colour.
ROUTE_ALLOWS: dict[str, frozenset[str]] = {
    "yellow": frozenset({"land", "air", "amphibious"}),
    "blue": frozenset({"navy", "air", "amphibious"}),
    "pink": frozenset({"air"}),
}

FACTIONS_EXPECTED: tuple[tuple[str, str, str, int], ...] = (
    ("soviet", "red", "苏联", 1),
    ("allies", "blue", "盟军", 2),
    ("rising_sun", "yellow", "升阳", 3),
    ("orcs", "green", "兽族", 4),
)

BONUS_KINDS = frozenset({"attack_bonus", "defence_bonus", "side_bonus"})


@dataclass(frozen=True)
class KindSpec:
    """The fixed window and side of an ability kind and the ranges of its parameters (CPX-145)."""

    window: str
    side: str
    params: Mapping[str, tuple[str, Any]]


def _rng(lo: int, hi: int) -> tuple[str, Any]:
    return ("int", (lo, hi))


_TYPES = ("types", None)
_KIND = ("kind", None)
_BOOL = ("bool", None)

KINDS: dict[str, KindSpec] = {
    "attack_bonus": KindSpec("pre_drop", "attacker", {"n": _rng(1, 3)}),
    "defence_bonus": KindSpec("pre_drop", "defender", {"n": _rng(1, 3)}),
    "side_bonus": KindSpec("pre_drop", "either", {"n": _rng(1, 3)}),
    "attack_bonus_in_kind": KindSpec(
        "pre_drop", "attacker", {"battle_kind": _KIND, "n": _rng(1, 3)}
    ),
    "defence_bonus_if_units": KindSpec(
        "pre_drop", "defender", {"min": _rng(2, 5), "n": _rng(1, 3)}
    ),
    "set_aside_half": KindSpec("pre_drop", "either", {}),
    "paradrop": KindSpec("pre_drop", "either", {"max": _rng(1, 3)}),
    "displace_units": KindSpec("pre_drop", "either", {"max": _rng(1, 3)}),
    "chrono_redrop": KindSpec("after_drop", "either", {}),
    "single_move": KindSpec("move_or_pre_drop", "either", {}),
    "cancel_one": KindSpec("response", "either", {}),
    "transport_adjacent": KindSpec("move", "none", {"destinations": _rng(1, 2)}),
    "deny_white": KindSpec("pre_drop", "attacker", {}),
    "sacrifice_destroy": KindSpec(
        "pre_drop", "either", {"sacrifice": _rng(1, 3), "destroy": _rng(1, 4)}
    ),
    "cancel_attack_by_type": KindSpec(
        "pre_drop", "either", {"battle_kind": _KIND, "types": _TYPES}
    ),
    "block_recruit": KindSpec("recruit", "none", {}),
    "smoke": KindSpec("response", "either", {}),
    "destroy_units": KindSpec("pre_drop", "either", {"n": _rng(1, 3), "defending_only": _BOOL}),
    "pair_protect": KindSpec("paired", "paired", {"types": _TYPES}),
    "cancel_by_type": KindSpec("response", "either", {"max": _rng(1, 2), "types": _TYPES}),
    "void_defence": KindSpec("pre_drop", "attacker", {}),
    "direct_resolution": KindSpec("pre_drop", "either", {}),
    "multi_move": KindSpec("move", "none", {"count": _rng(1, 3), "steps": _rng(1, 2)}),
    "bind_half": KindSpec("pre_drop", "either", {}),
}

RESPONSE_KINDS = frozenset(k for k, spec in KINDS.items() if spec.window == "response")


class DataInvalid(Exception):
    """A data file breaks a constraint of §15 (``E_DATA_INVALID``): the engine does not start."""

    code = "E_DATA_INVALID"

    def __init__(self, file: str, entry: str, field_name: str, rule: str, message: str) -> None:
        self.file, self.entry, self.field, self.rule = file, entry, field_name, rule
        where = f"{file}: {entry}" + (f", field '{field_name}'" if field_name else "")
        super().__init__(f"{where}: {message} ({rule})")


@dataclass(frozen=True)
class Faction:
    id: str
    colour: str
    name_zh: str
    name_en: str
    priority: int


@dataclass(frozen=True)
class Base:
    id: str
    name_en: str
    name_zh: str
    faction_colour: str | None
    card: str
    x: float = 0.0
    y: float = 0.0


@dataclass(frozen=True)
class Route:
    a: str
    b: str
    colour: str


@dataclass(frozen=True)
class Ability:
    id: str
    card: str
    name_zh: str
    name_en: str
    text_zh: str
    window: str
    side: str
    kind: str
    params: Mapping[str, Any]


@dataclass(frozen=True)
class Card:
    id: str
    base: str
    name_zh: str
    name_en: str
    type: str
    abilities: tuple[Ability, ...]

    def counts_as(self, card_type: str) -> bool:
        """CPX-19: an amphibious card is land and navy in every type test, never air."""
        if self.type == card_type:
            return True
        return self.type == "amphibious" and card_type in ("land", "navy")


@dataclass(frozen=True)
class RecruitmentCard:
    faction: str
    name_zh: str
    name_en: str
    cells: tuple[tuple[int, int], ...]

    def squads(self, base_count: int) -> list[int]:
        """CPX-26: the topmost cell with ``min_bases <= b`` and every cell below it."""
        for i, (min_bases, _cubes) in enumerate(self.cells):
            if min_bases <= base_count:
                return [c for _m, c in self.cells[i:]]
        return []


@dataclass(frozen=True)
class GameData:
    """Everything the rules read that is not state, with the look-ups they need precomputed."""

    factions: tuple[Faction, ...]
    bases: tuple[Base, ...]
    routes: tuple[Route, ...]
    cards: tuple[Card, ...]
    recruitment: tuple[RecruitmentCard, ...]
    supply: Mapping[str, int]
    settings_defaults: Mapping[str, Any]
    adjacency: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    base_by_id: Mapping[str, Base] = field(default_factory=dict)
    card_by_id: Mapping[str, Card] = field(default_factory=dict)
    card_of_base: Mapping[str, str] = field(default_factory=dict)
    ability_by_id: Mapping[str, Ability] = field(default_factory=dict)
    faction_by_id: Mapping[str, Faction] = field(default_factory=dict)
    faction_by_colour: Mapping[str, Faction] = field(default_factory=dict)
    recruitment_by_faction: Mapping[str, RecruitmentCard] = field(default_factory=dict)

    def route(self, a: str, b: str) -> str | None:
        """The colour of the route joining ``a`` and ``b``, or ``None`` if they are not adjacent."""
        return self.adjacency.get(a, {}).get(b)

    def within_steps(self, start: str, steps: int) -> dict[str, int]:
        """Bases reachable from ``start`` in 1..``steps`` steps along routes of any colour."""
        seen = {start: 0}
        frontier = deque([start])
        while frontier:
            here = frontier.popleft()
            if seen[here] == steps:
                continue
            for nxt in self.adjacency[here]:
                if nxt not in seen:
                    seen[nxt] = seen[here] + 1
                    frontier.append(nxt)
        del seen[start]
        return seen


# --- reading ------------------------------------------------------------------------------------


def _read(directory: Path, name: str) -> Any:
    path = directory / name
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataInvalid(name, "file", "", "CPX-141", f"missing file {path}") from None
    except json.JSONDecodeError as exc:
        raise DataInvalid(
            name, f"line {exc.lineno}", "", "CPX-141", f"not JSON: {exc.msg}"
        ) from None


def _need(obj: Any, key: str, kind: type | tuple[type, ...], file: str, entry: str) -> Any:
    if not isinstance(obj, Mapping):
        raise DataInvalid(file, entry, "", "CPX-141", "must be a JSON object")
    if key not in obj:
        raise DataInvalid(file, entry, key, "CPX-141", "is missing")
    value = obj[key]
    if kind is int and (not isinstance(value, int) or isinstance(value, bool)):
        raise DataInvalid(file, entry, key, "CPX-141", "must be a whole number")
    if not isinstance(value, kind):
        raise DataInvalid(
            file, entry, key, "CPX-141", f"has the wrong type ({type(value).__name__})"
        )
    return value


def _parse_factions(raw: Any) -> tuple[Faction, ...]:
    f = "factions.json"
    if not isinstance(raw, list):
        raise DataInvalid(f, "file", "", "CPX-142", "must be a list")
    out = []
    for i, e in enumerate(raw):
        entry = f"entry {i}"
        out.append(
            Faction(
                id=_need(e, "id", str, f, entry),
                colour=_need(e, "colour", str, f, entry),
                name_zh=_need(e, "name_zh", str, f, entry),
                name_en=_need(e, "name_en", str, f, entry),
                priority=_need(e, "priority", int, f, entry),
            )
        )
    return tuple(out)


def _parse_map(raw: Any) -> tuple[tuple[Base, ...], tuple[Route, ...]]:
    f = "map.json"
    bases_raw = _need(raw, "bases", list, f, "file")
    routes_raw = _need(raw, "routes", list, f, "file")
    bases = []
    for i, e in enumerate(bases_raw):
        entry = f"base {i}" if not isinstance(e, Mapping) else f"base {e.get('id', i)}"
        colour = e.get("faction_colour") if isinstance(e, Mapping) else None
        if colour is not None and colour not in PLAYER_COLOURS:
            raise DataInvalid(f, entry, "faction_colour", "CPX-143", f"unknown colour {colour!r}")
        x = e.get("x", 0) if isinstance(e, Mapping) else 0
        y = e.get("y", 0) if isinstance(e, Mapping) else 0
        if not isinstance(x, int | float) or not isinstance(y, int | float):
            raise DataInvalid(f, entry, "x/y", "CPX-143", "map coordinates must be numbers")
        bases.append(
            Base(
                id=_need(e, "id", str, f, entry),
                name_en=_need(e, "name_en", str, f, entry),
                name_zh=_need(e, "name_zh", str, f, entry),
                faction_colour=colour,
                card=_need(e, "card", str, f, entry),
                x=float(x),
                y=float(y),
            )
        )
    routes = []
    for i, e in enumerate(routes_raw):
        entry = f"route {i}"
        colour = _need(e, "colour", str, f, entry)
        if colour not in ROUTE_COLOURS:
            raise DataInvalid(f, entry, "colour", "CPX-143", f"unknown route colour {colour!r}")
        routes.append(Route(_need(e, "a", str, f, entry), _need(e, "b", str, f, entry), colour))
    return tuple(bases), tuple(routes)


def _check_params(kind: str, params: Any, file: str, entry: str) -> dict[str, Any]:
    spec = KINDS[kind]
    if not isinstance(params, Mapping):
        raise DataInvalid(file, entry, "params", "CPX-145", "must be a JSON object")
    if set(params) != set(spec.params):
        want = ", ".join(sorted(spec.params)) or "none"
        raise DataInvalid(file, entry, "params", "CPX-145", f"kind {kind} takes parameters: {want}")
    for name, (ptype, prange) in spec.params.items():
        value = params[name]
        bad = False
        if ptype == "int":
            lo, hi = prange
            bad = not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi
        elif ptype == "bool":
            bad = not isinstance(value, bool)
        elif ptype == "kind":
            bad = value not in BATTLE_KINDS
        elif ptype == "types":
            bad = (
                not isinstance(value, list)
                or not value
                or any(t not in CARD_TYPES for t in value)
                or len(set(value)) != len(value)
            )
        if bad:
            raise DataInvalid(
                file, entry, f"params.{name}", "CPX-145", f"{value!r} is out of range"
            )
    return dict(params)


def _parse_cards(raw: Any) -> tuple[Card, ...]:
    f = "base_cards.json"
    if not isinstance(raw, list):
        raise DataInvalid(f, "file", "", "CPX-144", "must be a list")
    cards = []
    for i, e in enumerate(raw):
        entry = f"card {e.get('id', i)}" if isinstance(e, Mapping) else f"card {i}"
        cid = _need(e, "id", str, f, entry)
        ctype = _need(e, "type", str, f, entry)
        if ctype not in CARD_TYPES:
            raise DataInvalid(f, entry, "type", "CPX-144", f"unknown unit type {ctype!r}")
        abilities_raw = _need(e, "abilities", list, f, entry)
        if len(abilities_raw) != 2:
            raise DataInvalid(f, entry, "abilities", "CPX-23", "a card has exactly two abilities")
        abilities = []
        for j, a in enumerate(abilities_raw):
            aentry = f"{entry}, ability {j}"
            kind = _need(a, "kind", str, f, aentry)
            if kind not in KINDS:
                raise DataInvalid(f, aentry, "kind", "CPX-145", f"unknown ability kind {kind!r}")
            params = _check_params(kind, a.get("params", {}), f, aentry)
            spec = KINDS[kind]
            side = spec.side
            if kind == "destroy_units":
                side = "defender" if params["defending_only"] else "either"
            window = _need(a, "window", str, f, aentry)
            if window != spec.window:
                raise DataInvalid(
                    f, aentry, "window", "CPX-145", f"kind {kind} has window {spec.window}"
                )
            if _need(a, "side", str, f, aentry) != side:
                raise DataInvalid(f, aentry, "side", "CPX-145", f"kind {kind} has side {side}")
            aid = _need(a, "id", str, f, aentry)
            if aid != cid + "ab"[j]:
                raise DataInvalid(f, aentry, "id", "CPX-144", f"must be {cid + 'ab'[j]}")
            abilities.append(
                Ability(
                    id=aid,
                    card=cid,
                    name_zh=_need(a, "name_zh", str, f, aentry),
                    name_en=_need(a, "name_en", str, f, aentry),
                    text_zh=_need(a, "text_zh", str, f, aentry),
                    window=window,
                    side=side,
                    kind=kind,
                    params=params,
                )
            )
        if (abilities[0].kind, dict(abilities[0].params)) == (
            abilities[1].kind,
            dict(abilities[1].params),
        ):
            raise DataInvalid(f, entry, "abilities", "CPX-144", "the two abilities must differ")
        cards.append(
            Card(
                id=cid,
                base=_need(e, "base", str, f, entry),
                name_zh=_need(e, "name_zh", str, f, entry),
                name_en=_need(e, "name_en", str, f, entry),
                type=ctype,
                abilities=tuple(abilities),
            )
        )
    return tuple(cards)


def _parse_recruitment(raw: Any) -> tuple[RecruitmentCard, ...]:
    f = "recruitment_cards.json"
    if not isinstance(raw, list):
        raise DataInvalid(f, "file", "", "CPX-146", "must be a list")
    out = []
    for i, e in enumerate(raw):
        entry = f"card {e.get('faction', i)}" if isinstance(e, Mapping) else f"card {i}"
        cells = []
        for j, c in enumerate(_need(e, "cells", list, f, entry)):
            centry = f"{entry}, cell {j}"
            cells.append((_need(c, "min_bases", int, f, centry), _need(c, "cubes", int, f, centry)))
        out.append(
            RecruitmentCard(
                faction=_need(e, "faction", str, f, entry),
                name_zh=_need(e, "name_zh", str, f, entry),
                name_en=_need(e, "name_en", str, f, entry),
                cells=tuple(cells),
            )
        )
    return tuple(out)


# --- structure checks (every data set, fixtures included: CPX-141) -----------------------------


def _check_structure(data: GameData) -> None:
    base_ids = [b.id for b in data.bases]
    if len(set(base_ids)) != len(base_ids):
        dup = next(b for b in base_ids if base_ids.count(b) > 1)
        raise DataInvalid("map.json", f"base {dup}", "id", "CPX-143", "duplicate base id")
    known = set(base_ids)
    pairs: set[frozenset[str]] = set()
    for i, r in enumerate(data.routes):
        entry = f"route {i} ({r.a}-{r.b})"
        if r.a not in known or r.b not in known:
            missing = r.a if r.a not in known else r.b
            raise DataInvalid("map.json", entry, "a/b", "CPX-18", f"unknown base {missing!r}")
        if r.a == r.b:
            raise DataInvalid(
                "map.json", entry, "a/b", "CPX-18", "a route joins two different bases"
            )
        pair = frozenset((r.a, r.b))
        if pair in pairs:
            raise DataInvalid("map.json", entry, "a/b", "CPX-18", "at most one route per pair (G4)")
        pairs.add(pair)
    card_ids = [c.id for c in data.cards]
    if len(set(card_ids)) != len(card_ids):
        dup = next(c for c in card_ids if card_ids.count(c) > 1)
        raise DataInvalid("base_cards.json", f"card {dup}", "id", "CPX-144", "duplicate card id")
    for b in data.bases:
        card = data.card_by_id.get(b.card)
        if card is None:
            raise DataInvalid(
                "map.json", f"base {b.id}", "card", "CPX-22", f"unknown card {b.card}"
            )
        if card.base != b.id:
            raise DataInvalid(
                "base_cards.json", f"card {card.id}", "base", "CPX-22", f"must be {b.id}"
            )
    for c in data.cards:
        if c.base not in known:
            raise DataInvalid("base_cards.json", f"card {c.id}", "base", "CPX-22", "unknown base")
    cards_used = [b.card for b in data.bases]
    if len(set(cards_used)) != len(cards_used) or set(cards_used) != set(card_ids):
        raise DataInvalid("map.json", "bases", "card", "CPX-22", "every base has exactly one card")
    if sorted((f.id, f.colour) for f in data.factions) != sorted(
        (fid, col) for fid, col, _zh, _p in FACTIONS_EXPECTED
    ):
        raise DataInvalid(
            "factions.json", "file", "id/colour", "CPX-142", "the four factions of CPX-10"
        )
    factions = {f.id for f in data.factions}
    for rc in data.recruitment:
        if rc.faction not in factions:
            raise DataInvalid(
                "recruitment_cards.json", f"card {rc.faction}", "faction", "CPX-146", "unknown"
            )
        mins = [m for m, _ in rc.cells]
        if not mins or mins[-1] != 1 or any(a <= b for a, b in pairwise(mins)):
            raise DataInvalid(
                "recruitment_cards.json",
                f"card {rc.faction}",
                "cells",
                "CPX-26",
                "labels must decrease strictly from top to bottom, ending at 1",
            )
    if sorted(rc.faction for rc in data.recruitment) != sorted(factions):
        raise DataInvalid(
            "recruitment_cards.json", "file", "faction", "CPX-146", "exactly one card per faction"
        )
    for colour in COLOURS:
        value = data.supply.get(colour)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise DataInvalid("supply.json", colour, colour, "CPX-147", "must be a whole number")


# --- shipped-data constraints (CPX-142..CPX-149) ------------------------------------------------


def _check_shipped(data: GameData) -> None:
    fm, fc, fr = "map.json", "base_cards.json", "recruitment_cards.json"
    by_id = {f.id: f for f in data.factions}
    for fid, colour, zh, prio in FACTIONS_EXPECTED:
        f = by_id[fid]
        if (f.colour, f.name_zh, f.priority) != (colour, zh, prio):
            raise DataInvalid("factions.json", f"faction {fid}", "", "CPX-142", "must match CPX-10")
    if len(data.bases) != 50:
        raise DataInvalid(fm, "bases", "", "CPX-17", f"exactly 50 bases, found {len(data.bases)}")
    for attr in ("name_en", "name_zh"):
        names = [getattr(b, attr) for b in data.bases]
        if len(set(names)) != len(names):
            raise DataInvalid(fm, "bases", attr, "CPX-143", "base names must be unique")
    for b in data.bases:
        if len(data.adjacency[b.id]) < 2:
            raise DataInvalid(fm, f"base {b.id}", "routes", "CPX-143", "needs at least 2 routes")
    reach = data.within_steps(data.bases[0].id, len(data.bases))
    if len(reach) != len(data.bases) - 1:
        lost = next(b.id for b in data.bases[1:] if b.id not in reach)
        raise DataInvalid(fm, f"base {lost}", "routes", "CPX-143", "the map must be connected")
    for colour in ROUTE_COLOURS:
        n = sum(1 for r in data.routes if r.colour == colour)
        if n < 10:
            raise DataInvalid(
                fm, "routes", "colour", "CPX-143", f"only {n} {colour} routes (min 10)"
            )
    for colour in PLAYER_COLOURS:
        if not any(b.faction_colour == colour for b in data.bases):
            raise DataInvalid(fm, "bases", "faction_colour", "CPX-143", f"no {colour} base")
    for r in data.routes:
        ca = data.base_by_id[r.a].faction_colour
        cb = data.base_by_id[r.b].faction_colour
        if ca and cb and ca != cb:
            raise DataInvalid(
                fm, f"route {r.a}-{r.b}", "", "CPX-143", "bases of different colours are adjacent"
            )
    for b in data.bases:
        if b.faction_colour is None:
            continue
        card = data.card_by_id[b.card]
        if not any(card.type in ROUTE_ALLOWS[c] for c in data.adjacency[b.id].values()):
            raise DataInvalid(
                fm,
                f"base {b.id}",
                "card",
                "CPX-143",
                "its card cannot attack along any of its routes",
            )
    # base cards
    for cid, ref in DESIGNED_CARDS.items():
        card = data.card_by_id.get(cid)
        if card is None:
            raise DataInvalid(fc, f"card {cid}", "", "CPX-144", "a designed card is missing")
        if (card.name_zh, card.name_en, card.type) != (ref["name_zh"], ref["name_en"], ref["type"]):
            raise DataInvalid(fc, f"card {cid}", "name/type", "CPX-144", "must match §11.2")
        for ab, want in zip(card.abilities, ref["abilities"], strict=True):
            got = {
                "id": ab.id,
                "name_zh": ab.name_zh,
                "name_en": ab.name_en,
                "text_zh": ab.text_zh,
                "window": ab.window,
                "side": ab.side,
                "kind": ab.kind,
                "params": dict(ab.params),
            }
            for key, value in want.items():
                if got[key] != value:
                    raise DataInvalid(fc, f"ability {ab.id}", key, "CPX-144", "must match §11.2")
    authored = [c for c in data.cards if c.id not in DESIGNED_CARDS]
    if len(authored) != 28 or len(data.cards) != 50:
        raise DataInvalid(fc, "file", "", "CPX-144", "22 designed and 28 authored cards")
    for attr in ("name_zh", "name_en"):
        names = [getattr(c, attr) for c in data.cards]
        if len(set(names)) != len(names):
            raise DataInvalid(fc, "cards", attr, "CPX-144", "card names must be unique")
    with_bonus = sum(1 for c in authored if any(a.kind in BONUS_KINDS for a in c.abilities))
    if with_bonus < 22:
        raise DataInvalid(
            fc, "authored cards", "abilities", "CPX-144", f"only {with_bonus} have a bonus (min 22)"
        )
    for t in CARD_TYPES:
        n = sum(1 for c in data.cards if c.type == t)
        if n < 8:
            raise DataInvalid(fc, "cards", "type", "CPX-144", f"only {n} {t} cards (min 8)")
    # recruitment cards
    shapes = [rc.cells for rc in data.recruitment]
    if len(set(shapes)) != len(shapes):
        raise DataInvalid(fr, "file", "cells", "CPX-146", "the four cards must differ")
    for rc in data.recruitment:
        entry = f"card {rc.faction}"
        if not 3 <= len(rc.cells) <= 10:
            raise DataInvalid(fr, entry, "cells", "CPX-146", "3 to 10 cells")
        if rc.cells[0][0] > 30:
            raise DataInvalid(fr, entry, "cells", "CPX-146", "top label at most 30")
        if any(not 1 <= c <= 10 for _m, c in rc.cells):
            raise DataInvalid(fr, entry, "cubes", "CPX-146", "cubes from 1 to 10")
        if sum(rc.squads(1)) < 3:
            raise DataInvalid(fr, entry, "cells", "CPX-146", "b = 1 must give at least 3 cubes")
    for b in range(1, 31):
        totals = [sum(rc.squads(b)) for rc in data.recruitment]
        if max(totals) - min(totals) > 4:
            raise DataInvalid(
                fr, "file", "cells", "CPX-146", f"totals differ by more than 4 at b = {b}: {totals}"
            )
    # supply and settings
    per = data.settings_defaults.get("cubes_per_colour")
    for colour in COLOURS:
        if data.supply[colour] != per:
            raise DataInvalid(
                "supply.json", colour, colour, "CPX-147", "must equal cubes_per_colour"
            )
        least = 11 if colour in PLAYER_COLOURS else 20
        if data.supply[colour] < least:
            raise DataInvalid("supply.json", colour, colour, "CPX-147", f"at least {least}")


def build(
    factions: Sequence[Faction],
    bases: Sequence[Base],
    routes: Sequence[Route],
    cards: Sequence[Card],
    recruitment: Sequence[RecruitmentCard],
    supply: Mapping[str, int],
    settings_defaults: Mapping[str, Any],
    shipped: bool = True,
) -> GameData:
    """Assemble a data set with its look-ups, then validate it (all of §15 if ``shipped``)."""
    adjacency: dict[str, dict[str, str]] = {b.id: {} for b in bases}
    for r in routes:
        if r.a in adjacency and r.b in adjacency:
            adjacency[r.a][r.b] = r.colour
            adjacency[r.b][r.a] = r.colour
    data = GameData(
        factions=tuple(factions),
        bases=tuple(bases),
        routes=tuple(routes),
        cards=tuple(cards),
        recruitment=tuple(recruitment),
        supply=dict(supply),
        settings_defaults=dict(settings_defaults),
        adjacency=adjacency,
        base_by_id={b.id: b for b in bases},
        card_by_id={c.id: c for c in cards},
        card_of_base={b.id: b.card for b in bases},
        ability_by_id={a.id: a for c in cards for a in c.abilities},
        faction_by_id={f.id: f for f in factions},
        faction_by_colour={f.colour: f for f in factions},
        recruitment_by_faction={rc.faction: rc for rc in recruitment},
    )
    _check_structure(data)
    if shipped:
        _check_shipped(data)
    return data


def load_data(directory: str | Path, shipped: bool = True) -> GameData:
    """Load and validate a data folder; raises :class:`DataInvalid` naming file, entry and field."""
    d = Path(directory)
    bases, routes = _parse_map(_read(d, "map.json"))
    supply = _read(d, "supply.json")
    if not isinstance(supply, Mapping):
        raise DataInvalid("supply.json", "file", "", "CPX-147", "must be a JSON object")
    settings = _read(d, "settings_defaults.json")
    if not isinstance(settings, Mapping):
        raise DataInvalid("settings_defaults.json", "file", "", "CPX-148", "must be a JSON object")
    return build(
        _parse_factions(_read(d, "factions.json")),
        bases,
        routes,
        _parse_cards(_read(d, "base_cards.json")),
        _parse_recruitment(_read(d, "recruitment_cards.json")),
        supply,
        settings,
        shipped=shipped,
    )


DATA_DIR = Path(__file__).with_name("data")


@cache
def default_data() -> GameData:
    """The shipped data set, loaded and validated once."""
    return load_data(DATA_DIR)
