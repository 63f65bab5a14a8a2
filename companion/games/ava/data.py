"""Loading and validating the AVA data files (AVA-166..AVA-175).

The rules take every number the source leaves open from these files, so a house-rules copy of the
folder plays differently without code changes. Each file is checked on load; the first violation
raises :class:`DataError`, naming the file, the entry and the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

DEFAULT_DATA_DIR = Path(__file__).parent / "data"

UNIT_TYPES: tuple[str, ...] = ("I", "T", "P", "B")
RESOURCES: tuple[str, ...] = ("money", *UNIT_TYPES)
SIDES: tuple[str, str] = ("allies", "axis")
SQUARE_TYPES: tuple[str, ...] = ("territory", "fortune", "strategy", "secret", "special")
TYPE_COUNTS = {"territory": 24, "fortune": 3, "strategy": 3, "secret": 4, "special": 2}
SECRET_SQUARES = (5, 14, 23, 32)
REQUIRED_TERRITORIES = ("uk", "germany", "france", "italy", "albania", "norway")
SECRET_NAMES_ZH = ("中立銀行", "外國軍團", "秘密空軍基地", "地下工廠")
MODE_IDS = ("regular", "les_miserables", "fierce_battle", "no_italy")
CARD_KINDS = (
    "money_delta",
    "money_pct_loss",
    "units_delta",
    "units_half_loss",
    "destroy_garrison_type",
    "skip_collection",
    "free_secret_base",
    "defection",
    "isolationism",
    "spy",
    "discard_kept_or_money",
    "partisans",
)
DATA_FILES = (
    "board.json",
    "territories.json",
    "secret_bases.json",
    "specials.json",
    "modes.json",
    "units.json",
    "cards.json",
    "ai_profiles.json",
    "settings_defaults.json",
)


class DataError(ValueError):
    """A data file breaks a constraint; the message names file, entry and field."""

    def __init__(self, file: str, entry: str, field: str, problem: str) -> None:
        super().__init__(f"{file}: {entry}: {field}: {problem}")
        self.file = file
        self.entry = entry
        self.field = field
        self.problem = problem


Production = tuple[int, int, int, int, int]
"""money, I, T, P, B per turn."""


@dataclass(frozen=True)
class Square:
    """One board square with everything the rules need about it."""

    number: int
    type: str
    ref: str
    name_en: str
    name_zh: str
    production: Production
    seaport: bool = False
    neutral_garrison: int = 0
    natural_side: str | None = None


@dataclass(frozen=True)
class Unit:
    id: str
    name_en: str
    name_zh: str
    cost: int
    power: int
    supports: tuple[str, ...]
    recruit_limit: int


@dataclass(frozen=True)
class Mode:
    id: str
    name_en: str
    name_zh: str
    allies_start: tuple[str, ...]
    axis_start: tuple[str, ...]
    resource_pct: int
    penalty_pct: int
    luck_pct: int
    unlock_index: int


@dataclass(frozen=True)
class Card:
    id: str
    deck: str
    name_en: str
    name_zh: str
    beneficial: bool
    kept: bool
    per_game_limit: int | None
    weight: int
    copies: int
    kind: str
    params: dict[str, Any]


@dataclass(frozen=True)
class AvaData:
    """The whole validated data set; shared read-only by every state that uses it."""

    squares: tuple[Square, ...]  # index 0 is square 1
    by_ref: dict[str, int]  # territory/secret/special id -> square number
    units: tuple[Unit, ...]  # in UNIT_TYPES order
    modes: dict[str, Mode]
    cards: dict[str, Card]
    ai_profiles: dict[str, dict[str, Any]]
    settings_defaults: dict[str, Any]

    def square(self, number: int) -> Square:
        return self.squares[number - 1]

    @cached_property
    def powers(self) -> tuple[int, int, int, int]:
        p = tuple(u.power for u in self.units)
        return p[0], p[1], p[2], p[3]

    @cached_property
    def costs(self) -> tuple[int, int, int, int]:
        c = tuple(u.cost for u in self.units)
        return c[0], c[1], c[2], c[3]

    @cached_property
    def limits(self) -> tuple[int, int, int, int]:
        c = tuple(u.recruit_limit for u in self.units)
        return c[0], c[1], c[2], c[3]

    def mode_order(self) -> list[str]:
        return [m.id for m in sorted(self.modes.values(), key=lambda m: m.unlock_index)]


# --- small checked readers -------------------------------------------------------------------


def _read(folder: Path, name: str) -> Any:
    path = folder / name
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(name, "(file)", "(file)", f"missing in {folder}") from None
    except OSError as exc:
        raise DataError(name, "(file)", "(file)", f"cannot be read: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(
            name, "(file)", f"line {exc.lineno}", f"is not valid JSON: {exc.msg}"
        ) from None


def _list(doc: Any, file: str, key: str) -> list[dict[str, Any]]:
    if not isinstance(doc, dict) or not isinstance(doc.get(key), list):
        raise DataError(file, "(top level)", key, "must be a list under this key")
    for i, item in enumerate(doc[key]):
        if not isinstance(item, dict):
            raise DataError(file, f"entry {i}", "(entry)", "must be an object")
    return doc[key]


def _int(value: Any, file: str, entry: str, field: str, minimum: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise DataError(file, entry, field, "must be a whole number")
    if value < minimum:
        raise DataError(file, entry, field, f"must be at least {minimum}")
    return value


def _str(value: Any, file: str, entry: str, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise DataError(file, entry, field, "must be non-empty text")
    return value


def _bool(value: Any, file: str, entry: str, field: str) -> bool:
    if not isinstance(value, bool):
        raise DataError(file, entry, field, "must be true or false")
    return value


def _production(value: Any, file: str, entry: str) -> Production:
    if not isinstance(value, dict):
        raise DataError(file, entry, "production", "must be an object with money, I, T, P, B")
    unknown = set(value) - set(RESOURCES)
    if unknown:
        raise DataError(file, entry, "production", f"unknown resource(s) {sorted(unknown)}")
    vals = [_int(value.get(r, 0), file, entry, f"production.{r}") for r in RESOURCES]
    return vals[0], vals[1], vals[2], vals[3], vals[4]


def _entry_name(item: dict[str, Any], i: int) -> str:
    ident = item.get("id", item.get("square"))
    return f"entry {i} ({ident})" if ident is not None else f"entry {i}"


# --- the files --------------------------------------------------------------------------------


def _load_places(folder: Path) -> tuple[tuple[Square, ...], dict[str, int]]:
    """board.json + territories.json + secret_bases.json + specials.json (AVA-166..169)."""
    places: dict[str, tuple[str, dict[str, Any]]] = {}
    names: dict[str, set[str]] = {"name_en": set(), "name_zh": set()}

    terr_items = _list(_read(folder, "territories.json"), "territories.json", "territories")
    for i, t in enumerate(terr_items):
        f, e = "territories.json", _entry_name(t, i)
        tid = _str(t.get("id"), f, e, "id")
        for key in ("name_en", "name_zh"):
            name = _str(t.get(key), f, e, key)
            if name in names[key]:
                raise DataError(f, e, key, f"name '{name}' is used twice")
            names[key].add(name)
        prod = _production(t.get("production"), f, e)
        seaport = _bool(t.get("seaport"), f, e, "seaport")
        garrison = _int(t.get("neutral_garrison"), f, e, "neutral_garrison", minimum=1)
        _int(t.get("square"), f, e, "square", minimum=1)
        if prod[0] <= 0:
            raise DataError(f, e, "production.money", "every territory must produce money")
        if prod[1] <= 0:
            raise DataError(f, e, "production.I", "every territory must produce infantry")
        if prod[4] > 0 and not seaport:
            raise DataError(
                f, e, "production.B", "only a seaport territory can produce battleships"
            )
        if tid in places:
            raise DataError(f, e, "id", f"id '{tid}' is used twice")
        t = {**t, "_prod": prod, "_seaport": seaport, "_garrison": garrison}
        places[tid] = ("territory", t)
    if len(terr_items) != 24:
        raise DataError(
            "territories.json", "(top level)", "territories", "needs exactly 24 entries"
        )
    for tid in REQUIRED_TERRITORIES:
        if tid not in places:
            raise DataError("territories.json", tid, "id", "this territory must exist (AVA-10)")
    if places["albania"][1]["_garrison"] != 10:
        raise DataError("territories.json", "albania", "neutral_garrison", "must be 10 (source)")
    counts = [sum(1 for _, t in places.values() if t["_prod"][k] > 0) for k in (2, 3, 4)]
    if not counts[0] >= counts[1] >= counts[2] >= 1:
        raise DataError(
            "territories.json",
            "(all)",
            "production",
            "need #territories with tanks >= with planes >= with battleships >= 1",
        )

    sec_items = _list(_read(folder, "secret_bases.json"), "secret_bases.json", "secret_bases")
    if len(sec_items) != 4:
        raise DataError("secret_bases.json", "(top level)", "secret_bases", "needs exactly 4")
    for i, s in enumerate(sec_items):
        f, e = "secret_bases.json", _entry_name(s, i)
        sid = _str(s.get("id"), f, e, "id")
        _str(s.get("name_en"), f, e, "name_en")
        _str(s.get("name_zh"), f, e, "name_zh")
        _int(s.get("square"), f, e, "square", minimum=1)
        prod = _production(s.get("production"), f, e)
        if sum(prod) <= 0:
            raise DataError(f, e, "production", "a secret base must produce something")
        if sid in places:
            raise DataError(f, e, "id", f"id '{sid}' is used twice")
        places[sid] = ("secret", {**s, "_prod": prod})
    zh = {s["name_zh"] for s in sec_items}
    if zh != set(SECRET_NAMES_ZH):
        raise DataError("secret_bases.json", "(all)", "name_zh", f"must be {SECRET_NAMES_ZH}")

    spec_items = _list(_read(folder, "specials.json"), "specials.json", "specials")
    if {s.get("id") for s in spec_items} != {"usa", "japan"} or len(spec_items) != 2:
        raise DataError("specials.json", "(top level)", "id", "needs exactly usa and japan")
    for i, s in enumerate(spec_items):
        f, e = "specials.json", _entry_name(s, i)
        _str(s.get("name_en"), f, e, "name_en")
        _str(s.get("name_zh"), f, e, "name_zh")
        want_side, want_sq = ("allies", 28) if s["id"] == "usa" else ("axis", 10)
        if s.get("natural_side") != want_side:
            raise DataError(f, e, "natural_side", f"must be '{want_side}'")
        if s.get("square") != want_sq:
            raise DataError(f, e, "square", f"must be {want_sq}")
        places[s["id"]] = ("special", {**s, "_prod": _production(s.get("production"), f, e)})

    board_items = _list(_read(folder, "board.json"), "board.json", "squares")
    f = "board.json"
    seen: dict[int, dict[str, Any]] = {}
    for i, b in enumerate(board_items):
        e = _entry_name(b, i)
        sq = _int(b.get("square"), f, e, "square", minimum=1)
        if sq > 36:
            raise DataError(f, e, "square", "must be 1..36")
        if sq in seen:
            raise DataError(f, e, "square", f"square {sq} appears twice")
        if b.get("type") not in SQUARE_TYPES:
            raise DataError(f, e, "type", f"must be one of {SQUARE_TYPES}")
        seen[sq] = b
    missing = [n for n in range(1, 37) if n not in seen]
    if missing:
        raise DataError(f, "(all)", "square", f"squares missing: {missing}")
    for typ, want in TYPE_COUNTS.items():
        have = sum(1 for b in seen.values() if b["type"] == typ)
        if have != want:
            raise DataError(f, "(all)", "type", f"needs {want} '{typ}' squares, has {have}")
    for sq in SECRET_SQUARES:
        if seen[sq]["type"] != "secret":
            raise DataError(f, f"square {sq}", "type", "must be secret (AVA-7)")
    fixed = {10: ("special", "japan"), 28: ("special", "usa"), 1: ("territory", "uk")}
    fixed[19] = ("territory", "germany")
    for sq, (typ, ref) in fixed.items():
        if (seen[sq]["type"], seen[sq].get("ref")) != (typ, ref):
            raise DataError(f, f"square {sq}", "ref", f"must be {typ} '{ref}' (AVA-6, AVA-7)")

    squares: list[Square] = []
    by_ref: dict[str, int] = {}
    used: set[str] = set()
    for n in range(1, 37):
        b = seen[n]
        e = f"square {n}"
        typ = b["type"]
        if typ in ("fortune", "strategy"):
            en, zh = ("Fortune", "財富") if typ == "fortune" else ("Strategy", "策略")
            squares.append(Square(n, typ, typ, en, zh, (0, 0, 0, 0, 0)))
            continue
        ref = b.get("ref")
        if ref not in places or places[ref][0] != typ:
            raise DataError(f, e, "ref", f"'{ref}' is not a known {typ}")
        if ref in used:
            raise DataError(f, e, "ref", f"'{ref}' is placed twice")
        used.add(ref)
        item = places[ref][1]
        if item.get("square") != n:
            source = {"territory": "territories", "secret": "secret_bases"}.get(typ, "specials")
            raise DataError(f"{source}.json", ref, "square", f"must be {n} as in board.json")
        squares.append(
            Square(
                number=n,
                type=typ,
                ref=ref,
                name_en=item["name_en"],
                name_zh=item["name_zh"],
                production=item["_prod"],
                seaport=item.get("_seaport", False),
                neutral_garrison=item.get("_garrison", 0),
                natural_side=item.get("natural_side"),
            )
        )
        by_ref[ref] = n
    return tuple(squares), by_ref


def _load_units(folder: Path) -> tuple[Unit, ...]:
    f = "units.json"
    items = _list(_read(folder, f), f, "units")
    by_id = {u.get("id"): u for u in items}
    if sorted(by_id, key=str) != sorted(UNIT_TYPES) or len(items) != 4:
        raise DataError(f, "(top level)", "id", "needs exactly the units I, T, P, B")
    out = []
    for uid in UNIT_TYPES:
        u = by_id[uid]
        supports = u.get("supports")
        if not isinstance(supports, list) or any(s not in UNIT_TYPES for s in supports):
            raise DataError(f, uid, "supports", "must be a list of unit ids")
        out.append(
            Unit(
                id=uid,
                name_en=_str(u.get("name_en"), f, uid, "name_en"),
                name_zh=_str(u.get("name_zh"), f, uid, "name_zh"),
                cost=_int(u.get("cost"), f, uid, "cost", minimum=1),
                power=_int(u.get("power"), f, uid, "power", minimum=1),
                supports=tuple(supports),
                recruit_limit=_int(u.get("recruit_limit"), f, uid, "recruit_limit", minimum=1),
            )
        )
    return tuple(out)


def _load_modes(folder: Path, by_ref: dict[str, int]) -> dict[str, Mode]:
    f = "modes.json"
    items = _list(_read(folder, f), f, "modes")
    modes: dict[str, Mode] = {}
    for i, m in enumerate(items):
        e = _entry_name(m, i)
        mid = _str(m.get("id"), f, e, "id")
        starts = []
        for key in ("allies_start", "axis_start"):
            lst = m.get(key)
            if not isinstance(lst, list) or not lst:
                raise DataError(f, mid, key, "must be a non-empty list of ids")
            for ref in lst:
                if ref not in by_ref:
                    raise DataError(f, mid, key, f"'{ref}' is not a territory or special")
            starts.append(tuple(lst))
        both = set(starts[0]) & set(starts[1])
        if both:
            raise DataError(f, mid, "axis_start", f"{sorted(both)} on both start lists")
        pcts = [_int(m.get(k), f, mid, k) for k in ("resource_pct", "penalty_pct", "luck_pct")]
        if pcts[2] > 100:
            raise DataError(f, mid, "luck_pct", "must be 0..100")
        modes[mid] = Mode(
            id=mid,
            name_en=_str(m.get("name_en"), f, mid, "name_en"),
            name_zh=_str(m.get("name_zh"), f, mid, "name_zh"),
            allies_start=starts[0],
            axis_start=starts[1],
            resource_pct=pcts[0],
            penalty_pct=pcts[1],
            luck_pct=pcts[2],
            unlock_index=_int(m.get("unlock_index"), f, mid, "unlock_index"),
        )
    if sorted(modes) != sorted(MODE_IDS):
        raise DataError(f, "(top level)", "id", f"needs exactly the modes {MODE_IDS}")
    if sorted(m.unlock_index for m in modes.values()) != [0, 1, 2, 3]:
        raise DataError(f, "(all)", "unlock_index", "must be 0, 1, 2, 3 once each")
    return modes


def _load_cards(folder: Path) -> dict[str, Card]:
    f = "cards.json"
    items = _list(_read(folder, f), f, "cards")
    cards: dict[str, Card] = {}
    for i, c in enumerate(items):
        e = _entry_name(c, i)
        cid = _str(c.get("id"), f, e, "id")
        if cid in cards:
            raise DataError(f, cid, "id", "is used twice")
        deck = c.get("deck")
        if deck not in ("fortune", "strategy"):
            raise DataError(f, cid, "deck", "must be 'fortune' or 'strategy'")
        cls = c.get("class")
        if cls not in ("beneficial", "harmful"):
            raise DataError(f, cid, "class", "must be 'beneficial' or 'harmful'")
        kept = _bool(c.get("kept"), f, cid, "kept")
        if deck == "fortune" and kept:
            raise DataError(f, cid, "kept", "fortune cards act at once and cannot be kept")
        limit = c.get("per_game_limit")
        if limit is not None:
            limit = _int(limit, f, cid, "per_game_limit", minimum=1)
        effect = c.get("effect")
        if not isinstance(effect, dict) or effect.get("kind") not in CARD_KINDS:
            raise DataError(f, cid, "effect.kind", f"must be one of {CARD_KINDS}")
        params = effect.get("params", {})
        if not isinstance(params, dict):
            raise DataError(f, cid, "effect.params", "must be an object")
        _check_params(f, cid, effect["kind"], params, kept)
        cards[cid] = Card(
            id=cid,
            deck=deck,
            name_en=_str(c.get("name_en"), f, cid, "name_en"),
            name_zh=_str(c.get("name_zh"), f, cid, "name_zh"),
            beneficial=cls == "beneficial",
            kept=kept,
            per_game_limit=limit,
            weight=_int(c.get("weight", 1), f, cid, "weight", minimum=1),
            copies=_int(c.get("copies", 1), f, cid, "copies", minimum=1),
            kind=effect["kind"],
            params=dict(params),
        )
    spy = cards.get("S01")
    if spy is None or spy.kind != "spy" or spy.per_game_limit != 4 or not spy.kept:
        raise DataError(f, "S01", "per_game_limit", "the Spy must exist, be kept, limit 4")
    for deck in ("fortune", "strategy"):
        for ben in (True, False):
            if not any(c.deck == deck and c.beneficial == ben for c in cards.values()):
                cls_name = "beneficial" if ben else "harmful"
                raise DataError(f, deck, "class", f"the {deck} deck needs a {cls_name} card")
    return cards


_KEPT_KINDS = {
    "spy",
    "destroy_garrison_type",
    "skip_collection",
    "free_secret_base",
    "defection",
    "isolationism",
}


def _check_params(f: str, cid: str, kind: str, params: dict[str, Any], kept: bool) -> None:
    """Each kind's parameters, so a bad house-rules card fails on load, not mid-game."""
    if kept != (kind in _KEPT_KINDS):
        want = "true" if kind in _KEPT_KINDS else "false"
        raise DataError(f, cid, "kept", f"an effect of kind '{kind}' needs kept = {want}")

    def num(key: str, minimum: int | None = None) -> int:
        v = params.get(key)
        if not isinstance(v, int) or isinstance(v, bool):
            raise DataError(f, cid, f"effect.params.{key}", "must be a whole number")
        if minimum is not None and v < minimum:
            raise DataError(f, cid, f"effect.params.{key}", f"must be at least {minimum}")
        return v

    if kind == "money_delta":
        num("amount")
    elif kind == "money_pct_loss":
        if not 0 <= num("pct") <= 100:
            raise DataError(f, cid, "effect.params.pct", "must be 0..100")
    elif kind == "units_delta":
        for key in (*UNIT_TYPES, "money"):
            if key in params:
                num(key)
    elif kind in ("units_half_loss", "partisans", "destroy_garrison_type"):
        if params.get("unit") not in UNIT_TYPES:
            raise DataError(f, cid, "effect.params.unit", "must be one of I, T, P, B")
        if kind == "destroy_garrison_type" and not isinstance(
            params.get("seaport_required", False), bool
        ):
            raise DataError(f, cid, "effect.params.seaport_required", "must be true or false")
    elif kind == "defection":
        num("cost", 0)
    elif kind == "discard_kept_or_money":
        num("amount", 0)


PROFILE_NUMBERS = {
    "tank_ai": (
        "invade_power_ratio_pct",
        "treaty_money_multiple",
        "neutral_invade_infantry_multiple",
        "recruit_budget_pct",
    ),
    "plane_ai": ("invade_cost_vs_penalty_pct", "escape_max_money_pct", "recruit_budget_pct"),
    "battleship_ai": ("recruit_reserve_base", "recruit_reserve_per_jail"),
}


def _load_profiles(folder: Path) -> dict[str, dict[str, Any]]:
    f = "ai_profiles.json"
    doc = _read(folder, f)
    profiles = doc.get("profiles") if isinstance(doc, dict) else None
    if not isinstance(profiles, dict):
        raise DataError(f, "(top level)", "profiles", "must be an object")
    for name in ("tank_ai", "plane_ai", "battleship_ai"):
        p = profiles.get(name)
        if not isinstance(p, dict):
            raise DataError(f, name, "(entry)", "is missing")
        for key in ("defense_share_pct", "capital_defense_share_pct"):
            v = _int(p.get(key), f, name, key)
            if v > 100:
                raise DataError(f, name, key, "must be 0..100")
        if p.get("strategic_moves") not in ("never", "escape_only", "score"):
            raise DataError(f, name, "strategic_moves", "must be never, escape_only or score")
        _int(p.get("recruit_budget_pct", 0), f, name, "recruit_budget_pct")
        for key in PROFILE_NUMBERS[name]:
            _int(p.get(key), f, name, key)
        order = p.get("recruit_order", [])
        if not isinstance(order, list) or any(u not in UNIT_TYPES for u in order):
            raise DataError(f, name, "recruit_order", "must be a list of unit ids")
    bundle = profiles["plane_ai"].get("recruit_bundle")
    if not isinstance(bundle, dict) or not any(bundle.values()):
        raise DataError(f, "plane_ai", "recruit_bundle", "must give a count per unit type")
    for u in UNIT_TYPES:
        _int(bundle.get(u, 0), f, "plane_ai", f"recruit_bundle.{u}")
    weights = profiles["battleship_ai"].get("score_weights")
    if not isinstance(weights, dict):
        raise DataError(f, "battleship_ai", "score_weights", "must be an object")
    for key in (
        "value_multiplier",
        "own",
        "fortune",
        "strategy",
        "jail",
        "win",
        "secret_cost",
        "special_cost",
    ):
        _int(weights.get(key), f, "battleship_ai", f"score_weights.{key}")
    adv = profiles["battleship_ai"].get("advantage")
    if not isinstance(adv, dict):
        raise DataError(f, "battleship_ai", "advantage", "must be an object")
    _int(adv.get("money"), f, "battleship_ai", "advantage.money")
    _int(adv.get("nukes"), f, "battleship_ai", "advantage.nukes")
    army = adv.get("army")
    if not isinstance(army, dict):
        raise DataError(f, "battleship_ai", "advantage.army", "must be an object")
    for u in UNIT_TYPES:
        _int(army.get(u, 0), f, "battleship_ai", f"advantage.army.{u}")
    return profiles


def _load_settings(folder: Path) -> dict[str, Any]:
    f = "settings_defaults.json"
    doc = _read(folder, f)
    settings = doc.get("settings") if isinstance(doc, dict) else None
    if not isinstance(settings, dict):
        raise DataError(f, "(top level)", "settings", "must be an object")
    return dict(settings)


def load_data(folder: str | Path | None = None) -> AvaData:
    """Load and validate a data folder (the shipped one by default)."""
    return _load_cached(str(Path(folder) if folder is not None else DEFAULT_DATA_DIR))


@lru_cache(maxsize=8)
def _load_cached(folder_text: str) -> AvaData:
    folder = Path(folder_text)
    if not folder.is_dir():
        raise DataError("(folder)", folder_text, "(folder)", "is not a folder")
    squares, by_ref = _load_places(folder)
    data = AvaData(
        squares=squares,
        by_ref=by_ref,
        units=_load_units(folder),
        modes=_load_modes(folder, by_ref),
        cards=_load_cards(folder),
        ai_profiles=_load_profiles(folder),
        settings_defaults=_load_settings(folder),
    )
    # settings defaults must be valid option values (checked against the option table).
    from companion.games.ava.options import check_defaults

    check_defaults(data.settings_defaults)
    return data
