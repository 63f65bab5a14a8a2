"""The Command Post Exercise table for people: the 50-base world map, each player's panel
(base count, recruitment card, hand, discard pile), the phase and turn order, the battle, the
tower ledger and the drop, and each legal command's label, in the tablet's language."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from flask import g, has_app_context, has_request_context, request
from flask_babel import get_locale
from flask_babel import gettext as babel_gettext

from companion.engine import Command, CountForm, Game
from companion.games.cpx.data import COLOURS, Ability, GameData
from companion.games.cpx.state import (
    BATTLE,
    CHOOSE_START,
    COMMITTED,
    DISCARD,
    HAND,
    HAND_CHOICE,
    MOVE,
    OVER,
    PLAYED,
    PRIMING,
    RECRUIT,
    State,
)
from web_ui.boards import lists

ODDS_SAMPLES = 1000
"""Monte-Carlo samples per proposed attack: about 0.5 ms each here (see the unit test)."""
_ODDS_CACHE: OrderedDict[tuple[Any, ...], float] = OrderedDict()
_ODDS_CACHE_SIZE = 4096

# Map drawing: the data's coordinates, with a margin around them.
MARGIN = 24
SWATCH = {"red": "#d63b3b", "blue": "#2f6fd6", "yellow": "#e0b000", "green": "#2e9b4e",
          "black": "#222", "white": "#f4f4f4"}
ROUTE_STROKE = {"yellow": "#e3b400", "blue": "#3a7bd5", "pink": "#e46fb4"}


# --- words ---------------------------------------------------------------------------------------
def _words() -> dict[str, Any]:
    """This request's translations, looked up once each: a table draws hundreds of labels per
    refresh and Flask-Babel's own look-up costs a context search every call."""
    if not has_app_context():
        return {}
    cache = getattr(g, "_cpx_words", None)
    if cache is None:
        cache = g._cpx_words = {}
    return cache


def gettext(msgid: str, **variables: Any) -> str:
    """Flask-Babel's ``gettext`` (same catalogue, same ``%(name)s`` placeholders), cached."""
    cache = _words()
    text = cache.get(msgid)
    if text is None:
        text = babel_gettext(msgid)
        cache[msgid] = text
    return text % variables if variables else text


def chinese() -> bool:
    cache = _words()
    zh = cache.get(" zh")
    if zh is None:
        zh = cache[" zh"] = str(get_locale() or "en").startswith("zh")
    return bool(zh)


def named(thing: Any) -> str:
    return thing.name_zh if chinese() else thing.name_en


def colour_names() -> dict[str, str]:
    cache = _words()
    if " colours" in cache:
        return cache[" colours"]
    names = {"red": gettext("red"), "blue": gettext("blue"), "yellow": gettext("yellow"),
             "green": gettext("green"), "black": gettext("black"), "white": gettext("white")}
    cache[" colours"] = names
    return names


def route_names() -> dict[str, str]:
    return {"yellow": gettext("land route"), "blue": gettext("sea route"),
            "pink": gettext("air route")}


def card_type_names() -> dict[str, str]:
    return {"land": gettext("land"), "navy": gettext("navy"), "air": gettext("air"),
            "amphibious": gettext("amphibious")}


def camp_label(camp: str | None) -> str:
    return gettext("Camp %(camp)s", camp=camp) if camp else gettext("Neutral")


def phase_label(phase: str) -> str:
    return {
        CHOOSE_START: gettext("Choosing starting bases"),
        PRIMING: gettext("Priming the tower"),
        HAND_CHOICE: gettext("Choosing hands"),
        RECRUIT: gettext("Recruitment"),
        MOVE: gettext("Moves"),
        BATTLE: gettext("Battles"),
        OVER: gettext("Game over"),
    }.get(phase, phase)


def window_label(window: str | None) -> str | None:
    if window is None:
        return None
    return {
        "recruit": gettext("recruit window"),
        "move": gettext("move window"),
        "pre_drop": gettext("before the drop"),
        "after_drop": gettext("after the drop"),
        "response": gettext("responses"),
    }.get(window, window)


def cubes_text(counts: Mapping[str, int]) -> str:
    """'3 red, 2 black' in the tablet's language; 'none' when empty."""
    names = colour_names()
    parts = [gettext("%(n)s %(colour)s", n=n, colour=names.get(c, c))
             for c, n in sorted(counts.items(), key=lambda kv: _colour_rank(kv[0])) if n]
    return ", ".join(parts) if parts else gettext("none")


def _colour_rank(colour: str) -> int:
    return COLOURS.index(colour) if colour in COLOURS else len(COLOURS)


def ability_text(ab: Ability) -> str:
    """What an ability does: the card's own Chinese text, or a short English one by its kind."""
    if chinese():
        return ab.text_zh
    p = ab.params
    types = ", ".join(card_type_names().get(t, t) for t in p.get("types", ()))
    kind = p.get("battle_kind", "")
    texts = {
        "attack_bonus": gettext("Attack +%(n)s", n=p.get("n")),
        "defence_bonus": gettext("Defence +%(n)s", n=p.get("n")),
        "side_bonus": gettext("Attack or defence +%(n)s", n=p.get("n")),
        "attack_bonus_in_kind": gettext("Attack +%(n)s in a %(kind)s battle", n=p.get("n"),
                                        kind=kind),
        "defence_bonus_if_units": gettext("Defence +%(n)s with at least %(min)s units",
                                          n=p.get("n"), min=p.get("min")),
        "set_aside_half": gettext("Half the enemy units of a battlefield sit out until next "
                                  "round"),
        "paradrop": gettext("Move up to %(max)s units from an adjacent own base into the "
                            "battlefield", max=p.get("max")),
        "displace_units": gettext("Move up to %(max)s units off the battlefield",
                                  max=p.get("max")),
        "chrono_redrop": gettext("Drop the fallen cubes again"),
        "single_move": gettext("Move units from an own base to a friendly base"),
        "cancel_one": gettext("Cancel one enemy ability"),
        "transport_adjacent": gettext("Move units to up to %(n)s adjacent friendly bases",
                                      n=p.get("destinations")),
        "deny_white": gettext("The defender gets no white cubes"),
        "sacrifice_destroy": gettext("Sacrifice %(s)s own units to destroy %(d)s enemy units",
                                     s=p.get("sacrifice"), d=p.get("destroy")),
        "cancel_attack_by_type": gettext("Cancel %(types)s attacks in a %(kind)s battle",
                                         types=types, kind=kind),
        "block_recruit": gettext("Block recruitment on one base"),
        "smoke": gettext("Cancel an ability unless its player discards a card"),
        "destroy_units": gettext("Destroy %(n)s enemy units", n=p.get("n")),
        "pair_protect": gettext("Play with a %(types)s card: its ability cannot be cancelled",
                                types=types),
        "cancel_by_type": gettext("Cancel up to %(n)s abilities of %(types)s cards",
                                  n=p.get("max"), types=types),
        "void_defence": gettext("The defenders' cubes do not count"),
        "direct_resolution": gettext("Resolve the battle without a drop"),
        "multi_move": gettext("Move up to %(n)s units up to %(steps)s steps",
                              n=p.get("count"), steps=p.get("steps")),
        "bind_half": gettext("Bind half the enemy units of a battlefield"),
    }
    return texts.get(ab.kind, ab.kind)


# --- the viewer -----------------------------------------------------------------------------------
def _viewer_seats() -> set[int] | None:
    """Seats whose hidden cards this tablet may see; ``None`` for all (the host, or no
    request, as in tests and replays)."""
    if not has_request_context():
        return None
    session_id = (request.view_args or {}).get("session_id")
    if session_id is None:
        return None
    from web_ui import auth

    seats = auth.viewer(session_id)  # the one rule for the board, the API and the stream
    return None if seats is None else set(seats)


# --- the board ------------------------------------------------------------------------------------
def _owners(data: GameData, state: State) -> dict[str, int | None]:
    return {b.id: state.cards[b.card]["holder"] for b in data.bases}


def _battlefields(data: GameData, state: State, owners: Mapping[str, int | None]) -> set[str]:
    """Bases where units of both camps stand, or units stand on an unowned base."""
    out = set()
    for base, here in state.units.items():
        camps = {state.players[state.seat_of_colour(c)]["camp"] for c in here
                 if state.seat_of_colour(c) is not None}
        if len(camps) > 1 or (owners.get(base) is None and here):
            out.add(base)
    return out


def card_view(data: GameData, state: State, cid: str) -> dict[str, Any]:
    card = data.card_by_id[cid]
    return {
        "id": cid,
        "name": named(card),
        "type": card.type,
        "type_label": card_type_names().get(card.type, card.type),
        "base": named(data.base_by_id[card.base]),
        "place": state.cards[cid]["place"],
        "abilities": [{"id": ab.id, "name": named(ab), "text": ability_text(ab)}
                      for ab in card.abilities],
    }


def recruitment_view(data: GameData, state: State, seat: int) -> dict[str, Any]:
    """The recruitment card's cells, those usable this round marked (CPX-26), and during the
    player's recruitment those already placed."""
    p = state.players[seat]
    rc = data.recruitment_by_faction[p["faction"]]
    b = state.base_count(seat)
    usable = len(rc.squads(b))
    first = len(rc.cells) - usable
    recruiting = state.phase == RECRUIT and state.acting == seat
    done_upto = first + (usable - len(state.squads_left)) if recruiting else None
    cells = []
    for i, (min_bases, cubes) in enumerate(rc.cells):
        cells.append({
            "min_bases": min_bases,
            "cubes": cubes,
            "usable": i >= first,
            "placed": done_upto is not None and first <= i < done_upto,
            "next": done_upto is not None and i == done_upto and bool(state.squads_left),
        })
    return {"name": named(rc), "cells": cells, "squads": rc.squads(b)}


def player_view(data: GameData, state: State, seat: int, visible: set[int] | None,
                owners: Mapping[str, int | None]) -> dict[str, Any]:
    p = state.players[seat]
    colour = p["colour"]
    shown = visible is None or seat in visible
    held = state.cards_of(seat)
    by_place: dict[str, list[str]] = {}
    for cid in held:
        by_place.setdefault(state.cards[cid]["place"], []).append(cid)
    bases = sorted((b for b, o in owners.items() if o == seat),
                   key=lambda b: named(data.base_by_id[b]))
    return {
        "seat": seat,
        "colour": colour,
        "colour_label": colour_names()[colour],
        "faction": named(data.faction_by_id[p["faction"]]),
        "camp": p["camp"],
        "camp_label": camp_label(p["camp"]),
        "out": p["out"],
        "acting": state.acting == seat and state.phase != OVER,
        "base_count": state.base_count(seat),
        "bases": [named(data.base_by_id[b]) for b in bases],
        "units": sum(here.get(colour, 0) for here in state.units.values()),
        "pool": state.pools.get(colour, 0),
        "marker": state.markers.get(colour, 0),
        "hand_chosen": p["hand_chosen"],
        "recruitment": recruitment_view(data, state, seat),
        "shown": shown,
        "hand_size": len(by_place.get(HAND, [])),
        "discard_size": len(by_place.get(DISCARD, [])),
        "hand": [card_view(data, state, c) for c in by_place.get(HAND, [])] if shown else [],
        "collection": [card_view(data, state, c) for c in by_place.get("collection", [])]
        if shown else [],
        "discard": [card_view(data, state, c) for c in by_place.get(DISCARD, [])] if shown else [],
        "played": [card_view(data, state, c) for c in by_place.get(PLAYED, [])],
        "committed": [card_view(data, state, c) for c in by_place.get(COMMITTED, [])],
    }


Y_SCALE = 1.7
"""The data's map is flat (about 1000 × 300); drawn taller so that crowded places can be read."""
WORLD_WIDTH = 1000.0
"""The map's x coordinates go once round the world: a route longer than half of it crosses the
map's edge (the Pacific) and is drawn as two halves leaving and entering at the edges."""
NAME_SIZE = 10.5
_LAYOUTS: dict[tuple[int, bool], dict[str, tuple[float, float, str]]] = {}


def _text_width(text: str) -> float:
    return sum(NAME_SIZE * (1.0 if ord(ch) > 0x2E80 else 0.56) for ch in text)


def label_layout(data: GameData) -> dict[str, tuple[float, float, str]]:
    """Where each base's name goes (dx, dy, anchor), greedily keeping names off each other and
    off the dots, crowded bases first; the unit badges sit to the right of each dot."""
    key = (id(data), chinese())
    found = _LAYOUTS.get(key)
    if found is not None:
        return found
    pts = {b.id: (b.x, b.y * Y_SCALE) for b in data.bases}
    boxes: list[tuple[float, float, float, float]] = [
        (x - 7, y - 7, x + 7 + 24, y + 7) for x, y in pts.values()]  # dots and their badges

    def crowd(bid: str) -> int:
        x, y = pts[bid]
        return sum(1 for ox, oy in pts.values() if abs(ox - x) < 60 and abs(oy - y) < 30)

    out: dict[str, tuple[float, float, str]] = {}
    for b in sorted(data.bases, key=lambda b: -crowd(b.id)):
        x, y = pts[b.id]
        w, h = _text_width(named(b)), NAME_SIZE
        choices = [(0, -9, "middle"), (0, 7 + h, "middle"), (-9, 3.5, "end"),
                   (-6, -9, "end"), (6, -9, "start"), (-6, 7 + h, "end"), (6, 7 + h, "start"),
                   (0, -9 - h, "middle"), (0, 7 + 2 * h, "middle")]
        best = None
        for dx, dy, anchor in choices:
            left = x + dx - (w / 2 if anchor == "middle" else w if anchor == "end" else 0)
            box = (left, y + dy - h * 0.8, left + w, y + dy + h * 0.2)
            hits = sum(1 for o in boxes if box[0] < o[2] and o[0] < box[2]
                       and box[1] < o[3] and o[1] < box[3])
            if best is None or hits < best[0]:
                best = (hits, (dx, dy, anchor), box)
            if hits == 0:
                break
        assert best is not None
        out[b.id] = best[1]
        boxes.append(best[2])
    _LAYOUTS[key] = out
    return out


def _segments(a: tuple[float, float], b: tuple[float, float]) -> list[tuple[float, ...]]:
    """A line from a to b, or two halves over the map's edge when that way is shorter."""
    (x1, y1), (x2, y2) = a, b
    if abs(x2 - x1) <= WORLD_WIDTH / 2:
        return [(x1, y1, x2, y2)]
    shift = WORLD_WIDTH if x2 < x1 else -WORLD_WIDTH
    return [(x1, y1, x2 + shift, y2), (x1 - shift, y1, x2, y2)]


REGIONS: dict[str, tuple[float, float, float, float]] = {
    "europe": (430, 60, 660, 175),
    "east_asia": (800, 120, 900, 215),
}
"""Zoom presets for the crowded places: the bases whose data coordinates fall in each box
(x0, y0, x1, y1). Tall regions (the Americas, Africa) would barely zoom on a wide map."""
REGION_MIN_ZOOM = 1.5
"""A preset that would zoom less than this is left out."""
REGION_PAD = (56.0, 30.0)
"""Room around a region's bases for their names (map units, sideways and up/down)."""


def region_names() -> dict[str, str]:
    return {"europe": gettext("Europe"), "east_asia": gettext("East Asia")}


def regions_view(data: GameData, pos: Mapping[str, tuple[float, float]],
                 full: tuple[float, float, float, float]) -> list[dict[str, str]]:
    """Each zoom preset as a viewBox: its bases' box with room for their names, widened to the
    whole map's shape (so a preset fills the map's frame) and kept inside the whole map."""
    fx, fy, fw, fh = full
    names = region_names()
    out = []
    for rid, (ax, ay, bx, by) in REGIONS.items():
        inside = [pos[b.id] for b in data.bases if ax <= b.x <= bx and ay <= b.y <= by]
        if not inside:
            continue
        x0 = min(x for x, _ in inside) - REGION_PAD[0]
        x1 = max(x for x, _ in inside) + REGION_PAD[0]
        y0 = min(y for _, y in inside) - REGION_PAD[1]
        y1 = max(y for _, y in inside) + REGION_PAD[1]
        w, h = x1 - x0, y1 - y0
        if w / h < fw / fh:
            w = h * fw / fh
        else:
            h = w * fh / fw
        if w > fw / REGION_MIN_ZOOM:
            continue
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        x = min(max(cx - w / 2, fx), fx + fw - w)
        y = min(max(cy - h / 2, fy), fy + fh - h)
        out.append({"id": rid, "label": names[rid],
                    "viewbox": f"{x:.1f} {y:.1f} {w:.1f} {h:.1f}"})
    return out


def map_view(game: Game, data: GameData, state: State, owners: Mapping[str, int | None],
             fields: set[str], targets: Collection[str] = ()) -> dict[str, Any]:
    pos = {b.id: (b.x, round(b.y * Y_SCALE, 1)) for b in data.bases}
    xs = [x for x, _ in pos.values()]
    ys = [y for _, y in pos.values()]
    x0, y0 = min(xs) - MARGIN, min(ys) - MARGIN
    width, height = max(xs) - x0 + MARGIN + 16, max(ys) - y0 + MARGIN + 6
    layout = label_layout(data)
    attacked = {a["to"] for a in state.attacks}
    battle_base = state.battle["base"] if state.battle else None
    names = colour_names()
    unowned = gettext("unowned")
    bases = []
    for b in data.bases:
        owner = owners[b.id]
        here = state.units.get(b.id, {})
        units = [{"colour": c, "n": n, "fill": SWATCH.get(c, "#888"),
                  "label": names.get(c, c)}
                 for c, n in sorted(here.items(), key=lambda kv: _colour_rank(kv[0])) if n]
        owner_colour = state.players[owner]["colour"] if owner is not None else None
        dx, dy, anchor = layout[b.id]
        bases.append({
            "id": b.id,
            "name": named(b),
            "x": pos[b.id][0],
            "y": pos[b.id][1],
            "lx": dx,
            "ly": dy,
            "anchor": anchor,
            "owner": owner,
            "owner_colour": owner_colour,
            "fill": SWATCH[owner_colour] if owner_colour else "#fff",
            "home": b.faction_colour,
            "units": units,
            "total": sum(here.values()),
            "battlefield": b.id in fields,
            "current": b.id == battle_base,
            "queued": b.id in state.queue,
            "attacked": b.id in attacked,
            "target": b.id in targets,
            "title": " · ".join([
                named(b),
                named(data.faction_by_id[state.players[owner]["faction"]])
                if owner is not None else unowned,
                *([cubes_text(here)] if here else [])]),
        })
    routes = [{"x1": x1, "y1": y1, "x2": x2, "y2": y2, "colour": r.colour,
               "stroke": ROUTE_STROKE.get(r.colour, "#999")}
              for r in data.routes for x1, y1, x2, y2 in _segments(pos[r.a], pos[r.b])]
    arrows = []
    for a in state.attacks:
        if a.get("from") not in pos or a.get("to") not in pos:
            continue
        x1, y1, x2, y2 = _segments(pos[a["from"]], pos[a["to"]])[0]
        length = max(((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5, 1.0)
        stop = min(9.0, length / 2) / length  # end at the target's ring, not its centre
        arrows.append({"x1": x1, "y1": y1, "x2": round(x2 - (x2 - x1) * stop, 1),
                       "y2": round(y2 - (y2 - y1) * stop, 1),
                       "fill": SWATCH.get(state.colour_of(a["player"]), "#888")})
    return {"viewbox": f"{x0:g} {y0:g} {width:g} {height:g}", "bases": bases, "routes": routes,
            "arrows": arrows, "regions": regions_view(data, pos, (x0, y0, width, height))}


def battle_view(data: GameData, state: State) -> dict[str, Any] | None:
    b = state.battle
    if b is None:
        return None
    here = state.units.get(b["base"], {})
    att = {c: n for c, n in here.items() if _camp_of(state, c) == b["attacker_camp"]}
    dfn = {c: n for c, n in here.items() if _camp_of(state, c) == b["defender_camp"]}
    bonus = {}
    for e in b["bonus"]:
        if e["active"]:
            bonus[e["colour"]] = bonus.get(e["colour"], 0) + e["count"]
    outcome = b.get("outcome")
    kinds = route_kinds()
    return {
        "base": named(data.base_by_id[b["base"]]),
        "attacker": camp_label(b["attacker_camp"]),
        "defender": camp_label(b["defender_camp"]),
        "lead_attacker": _faction(data, state, b["lead_attacker"]),
        "lead_defender": _faction(data, state, b["lead_defender"]),
        "kinds": ", ".join(kinds.get(k, k) for k in b["kinds"]),
        "attacking": cubes_text(att),
        "defending": cubes_text(dfn),
        "bonus": cubes_text(bonus) if bonus else None,
        "step": b["step"],
        "outcome": None if outcome is None else {
            "A": outcome["A"], "D": outcome["D"],
            "winner": {"attacker": gettext("the attackers win"),
                       "defender": gettext("the defenders win"),
                       "tie": gettext("a tie: the defenders hold")}.get(
                outcome["winner"], str(outcome["winner"])),
        },
    }


def route_kinds() -> dict[str, str]:
    return {"land": gettext("land battle"), "sea": gettext("sea battle"),
            "air": gettext("air battle")}


def _camp_of(state: State, colour: str) -> str | None:
    seat = state.seat_of_colour(colour)
    return None if seat is None else state.players[seat]["camp"]


def _faction(data: GameData, state: State, seat: int | None) -> str:
    if seat is None or not 0 <= seat < len(state.players):
        return "?"
    return named(data.faction_by_id[state.players[seat]["faction"]])


def drop_view(state: State) -> dict[str, Any] | None:
    d = state.drop
    if d is None:
        return None
    return {
        "kind": {"priming": gettext("Priming drop"), "battle": gettext("Battle drop"),
                 "redrop": gettext("Re-drop")}.get(d["kind"], d["kind"]),
        "input": cubes_text(d["input"]),
        "input_total": sum(d["input"].values()),
        "report": None if d["report"] is None else cubes_text(d["report"]),
        "report_counts": [{"colour": c, "label": colour_names().get(c, c), "n": n,
                           "fill": SWATCH.get(c, "#888")}
                          for c, n in sorted(d["report"].items(),
                                             key=lambda kv: _colour_rank(kv[0]))]
        if d["report"] is not None else [],
        "report_total": sum(d["report"].values()) if d["report"] else 0,
        "source": d.get("source"),
    }


def offers_view(game: Game, data: GameData, state: State,
                legal: Sequence[Command] | None = None) -> list[dict[str, Any]]:
    """The attacks on offer grouped by target, with the odds for each number of units;
    ``legal`` is the engine's list when the caller has it (only computed in a move turn)."""
    if state.phase != MOVE or state.acting is None or state.prompt or state.stack:
        return []
    seat = state.acting
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for c in lists.legal_commands(game, state, legal):
        if c.name != "attack":
            continue
        key = (c.args["from"], c.args["to"])
        g = groups.setdefault(key, {"units": set(), "cards": set()})
        g["units"].add(c.args["units"])
        g["cards"].add(c.args["card"])
    out = []
    names = route_names()
    for (origin, target), g in sorted(groups.items()):
        route = data.route(origin, target) or ""
        out.append({
            "from_id": origin,
            "to_id": target,
            "from": named(data.base_by_id[origin]),
            "to": named(data.base_by_id[target]),
            "route": route,
            "route_label": names.get(route, route),
            "cards": ", ".join(named(data.card_by_id[c]) for c in sorted(g["cards"])),
            "odds": [{"units": u, "win": round(100 * win_chance(game, state, seat, target, u))}
                     for u in sorted(g["units"])],
        })
    return out


def win_chance(game: Any, state: State, seat: int, target: str, units: int) -> float:
    """The chance the proposed attack wins (the engine's Monte-Carlo odds), remembered by what
    it depends on, so every tablet's refresh of the same table costs it once."""
    here = tuple(sorted(state.units.get(target, {}).items()))
    tower = tuple(sorted(state.tower.items()))
    owner = state.cards[game.data.card_of_base[target]]["holder"]
    key = (id(game), seat, target, units, here, tower, owner)
    found = _ODDS_CACHE.get(key)
    if found is None:
        found = game.attack_odds(state, seat, target, units, samples=ODDS_SAMPLES).win
        _ODDS_CACHE[key] = found
        if len(_ODDS_CACHE) > _ODDS_CACHE_SIZE:
            _ODDS_CACHE.popitem(last=False)
    else:
        _ODDS_CACHE.move_to_end(key)
    return found


def count_names(game: Game, data: GameData, state: State,
                forms: Sequence[CountForm] | None = None) -> dict[str, str]:
    """What each count form key means: colours (drops, mixes), cards (hands), routes (moves)."""
    names = dict(colour_names())
    for c in data.cards:
        names[c.id] = named(c)
    for form in lists.count_forms(game, state, forms):
        for key in form.counts:
            if ">" in key:
                a, _, b = key.partition(">")
                if a in data.base_by_id and b in data.base_by_id:
                    names[key] = f"{named(data.base_by_id[a])} → {named(data.base_by_id[b])}"
    return names


def view(game: Game, state: State, *, legal: Sequence[Command] | None = None,
         forms: Sequence[CountForm] | None = None) -> dict[str, Any]:
    """The whole table; ``legal`` and ``forms`` are the engine's lists when the caller has them
    (the offers and the count names are drawn from them; computed once otherwise)."""
    data: GameData = game.data  # type: ignore[attr-defined]
    owners = _owners(data, state)
    fields = _battlefields(data, state, owners)
    visible = _viewer_seats()
    players = [player_view(data, state, i, visible, owners) for i in range(len(state.players))]
    order = state.order or list(range(len(state.players)))
    stack = [{"id": a["id"], "who": _faction(data, state, a["seat"]),
              "card": named(data.card_by_id[a["card"]]) if a["card"] in data.card_by_id else "?",
              "ability": _ability_name(data, a["ability"]), "cancelled": a["cancelled"]}
             for a in state.stack]
    result = state.result
    offers = offers_view(game, data, state, legal)
    return {
        "map": map_view(game, data, state, owners, fields, {o["to_id"] for o in offers}),
        "players": players,
        "round": state.round,
        "phase": phase_label(state.phase),
        "phase_id": state.phase,
        "window": window_label(state.window),
        "acting": _faction(data, state, state.acting) if state.acting is not None else None,
        "order": [{"seat": i, "name": _faction(data, state, i),
                   "colour": state.players[i]["colour"],
                   "acting": i == state.acting, "out": state.players[i]["out"]}
                  for i in order],
        "choosers": [_faction(data, state, i) for i in state.choosers_left],
        "queue": [named(data.base_by_id[b]) for b in state.queue if b in data.base_by_id],
        "battle": battle_view(data, state),
        "stack": stack,
        "drop": drop_view(state),
        "tower": [{"colour": c, "label": colour_names().get(c, c), "n": state.tower.get(c, 0),
                   "fill": SWATCH.get(c, "#888")}
                  for c in COLOURS if c in state.tower],
        "tower_total": sum(state.tower.values()),
        "out_tray": cubes_text(state.out_tray) if any(state.out_tray.values()) else None,
        "offers": offers,
        "result": None if result is None else gettext(
            "%(camp)s wins (%(how)s)", camp=camp_label(result["camp"]),
            how={"thirty_bases": gettext("30 bases"),
                 "camp_defeat": gettext("every enemy is out")}.get(result["condition"],
                                                                   result["condition"])),
        "count_names": count_names(game, data, state, forms),
        "count_order": list(COLOURS),
        "swatch": SWATCH,
        "strings": reading_strings(),
    }


def reading_strings() -> dict[str, str]:
    """Words for the readings panel's photo and correction form (app.js renderReadings)."""
    return {
        "photo": gettext("Photo of the drop, each counted cube marked"),
        "beam": gettext("Exit beam count"),
        "counted": gettext("Counted"),
        "apply_correction": gettext("Apply the corrected counts"),
        "reasons": gettext("Why it asks"),
    }


def _ability_name(data: GameData, ability_id: str) -> str:
    ab = data.ability_by_id.get(ability_id)
    return named(ab) if ab else ability_id


# --- places --------------------------------------------------------------------------------------
def places(game: Game, value: Any) -> list[str]:
    """The bases a command's args name (attacks: from and to; recruits, retreats, abilities'
    targets, Rapid Deployment's ``FROM>TO`` keys), in order, each once: any string, key or
    route key in them that is a base's id (base ids are not card, ability or colour ids)."""
    bases = game.data.base_by_id  # type: ignore[attr-defined]
    found: dict[str, None] = {}

    def walk(v: Any) -> None:
        if isinstance(v, str):
            ends = v.split(">") if ">" in v else [v]
            if all(e in bases for e in ends):
                found.update(dict.fromkeys(ends))
        elif isinstance(v, Mapping):
            for k, item in v.items():
                walk(k)
                walk(item)
        elif isinstance(v, list | tuple):
            for item in v:
                walk(item)

    walk(value)
    return list(found)


# --- labels --------------------------------------------------------------------------------------
def label(game: Game, state: State, command: Command) -> str:
    """A button's words: what the command does, with base and card names and an attack's
    chance of winning."""
    data: GameData = game.data  # type: ignore[attr-defined]
    args = command.args

    def base(value: Any) -> str:
        b = data.base_by_id.get(str(value))
        return named(b) if b else str(value)

    def card(value: Any) -> str:
        c = data.card_by_id.get(str(value))
        return named(c) if c else str(value)

    name = command.name
    if name == "choose_start":
        return gettext("Start at %(base)s", base=base(args.get("base")))
    if name == "choose_hand":
        if "cards" not in args:
            return gettext("Choose my hand")
        cards = args.get("cards") or []
        if not cards:
            return gettext("Keep no cards in hand")
        return gettext("Hand: %(cards)s", cards=", ".join(card(c) for c in cards))
    if name == "recruit":
        if state.squads_left and command.seat == state.acting:
            return gettext("Recruit %(n)s on %(base)s", n=state.squads_left[0],
                           base=base(args.get("base")))
        return gettext("Recruit on %(base)s", base=base(args.get("base")))
    if name == "attack":
        words = gettext("Attack %(to)s from %(from)s with %(units)s, play %(card)s",
                        to=base(args.get("to")), **{"from": base(args.get("from"))},
                        units=args.get("units"), card=card(args.get("card")))
        if args.get("paired_card"):
            words += " + " + card(args["paired_card"])
        try:
            seat = command.seat if command.seat is not None else state.acting
            win = win_chance(game, state, int(seat), str(args["to"]), int(args["units"]))
            words += " · " + gettext("win %(p)s%%", p=round(100 * win))
        except (KeyError, TypeError, ValueError):
            pass
        return words
    if name == "retreat":
        return gettext("Retreat from %(base)s to %(to)s", base=base(args.get("base")),
                       to=base(args.get("to")))
    if name == "end_move":
        return gettext("End my moves")
    if name == "pass":
        return gettext("Pass")
    if name == "smoke_discard":
        if args.get("card") in (None, "none"):
            return gettext("Discard nothing (the ability is cancelled)")
        return gettext("Discard %(card)s", card=card(args.get("card")))
    if name == "choose_units":
        if "mix" not in args:
            return gettext("Choose the units that stay")
        return gettext("Keep %(mix)s on the base", mix=cubes_text(args.get("mix") or {}))
    if name == "report_drop":
        source = {"camera": gettext("camera"), "manual": gettext("counted by hand"),
                  "simulated": gettext("simulated")}.get(str(args.get("source")))
        if "counts" not in args:
            title = gettext("Counts of the drop")
            return f"{title} ({source})" if source else title
        counts = args.get("counts") or {}
        if not any(counts.values()):
            return gettext("Nothing fell out")
        return gettext("Fell out: %(cubes)s", cubes=cubes_text(counts))
    if name == "confirm_drop":
        return gettext("Confirm the drop")
    if name == "activate":
        ability = _ability_name(data, str(args.get("ability")))
        words = gettext("Use %(ability)s (%(card)s)", ability=ability, card=card(args.get("card")))
        if args.get("paired_card"):
            words += " + " + card(args["paired_card"])
        target = describe_targets(data, state, args.get("targets") or {})
        return f"{words}: {target}" if target else words
    return name.replace("_", " ")


def describe_targets(data: GameData, state: State, targets: Any) -> str:
    """An ability's targets in words (every shape of CPX's ``activate``, see its module)."""
    if not isinstance(targets, Mapping) or not targets:
        return ""

    def base(value: Any) -> str:
        if value == "pool":
            return gettext("the pool")
        b = data.base_by_id.get(str(value))
        return named(b) if b else str(value)

    def activation(aid: Any) -> str:
        for a in state.stack:
            if a["id"] == aid:
                return gettext("%(who)s's %(ability)s", who=_faction(data, state, a["seat"]),
                               ability=_ability_name(data, a["ability"]))
        return f"#{aid}"

    names = colour_names()
    parts: list[str] = []
    t = dict(targets)
    routes = {k: v for k, v in t.items() if isinstance(k, str) and ">" in k}
    if routes:  # Rapid Deployment in the forms' spelling: units per route "FROM>TO"
        parts.append(", ".join(
            gettext("%(n)s from %(a)s to %(b)s", n=n, a=base(k.partition(">")[0]),
                    b=base(k.partition(">")[2])) for k, n in sorted(routes.items()) if n))
    if "ability" in t:  # All-terrain Traverse: the paired card's ability and its targets
        inner = describe_targets(data, state, t.get("targets") or {})
        words = _ability_name(data, str(t["ability"]))
        parts.append(f"{words} ({inner})" if inner else words)
    if "activation" in t:
        parts.append(gettext("against %(what)s", what=activation(t["activation"])))
    if "activations" in t:
        parts.append(gettext("against %(what)s",
                             what=", ".join(activation(a) for a in t["activations"])))
    if "battlefield" in t:
        parts.append(gettext("at %(base)s", base=base(t["battlefield"])))
    if "type" in t:
        parts.append(card_type_names().get(str(t["type"]), str(t["type"])))
    if "base" in t:
        parts.append(base(t["base"]))
    if "origin" in t:
        parts.append(gettext("%(n)s from %(base)s", n=t.get("units"), base=base(t["origin"])))
    elif "from" in t and "moves" in t:
        legs = ", ".join(gettext("%(n)s to %(base)s", n=m.get("units"), base=base(m.get("to")))
                         for m in t["moves"])
        parts.append(gettext("from %(base)s: %(legs)s", base=base(t["from"]), legs=legs))
    elif "from" in t:
        parts.append(gettext("%(n)s from %(a)s to %(b)s", n=t.get("units", 1), a=base(t["from"]),
                             b=base(t.get("to"))))
    elif "moves" in t:
        parts.append(", ".join(
            gettext("%(n)s from %(a)s to %(b)s", n=m.get("units"), a=base(m.get("from")),
                    b=base(m.get("to"))) for m in t["moves"]))
    elif "units" in t:
        units = t["units"]
        if isinstance(units, Mapping):
            parts.append(cubes_text(units))
        elif isinstance(units, list):
            parts.append(", ".join(
                gettext("%(colour)s to %(base)s", colour=names.get(u.get("colour"),
                                                                   u.get("colour")),
                        base=base(u.get("to"))) for u in units if isinstance(u, Mapping)))
    return "; ".join(p for p in parts if p)


def instruction(game: Game, state: State, command: Command) -> str:
    """What a person does on the board for an AI's move (``Game.instructions``), in the
    tablet's language."""
    data: GameData = game.data  # type: ignore[attr-defined]
    args = command.args
    base = data.base_by_id.get(str(args.get("base", args.get("from"))))
    target = data.base_by_id.get(str(args.get("to")))
    card = data.card_by_id.get(str(args.get("card")))
    seat = command.seat
    colour = colour_names().get(state.colour_of(seat), "") if seat is not None else ""
    where = named(base) if base else ""
    name = command.name
    if name == "attack" and target and card:
        return gettext("Move %(n)s %(colour)s cubes from %(a)s to %(b)s, play %(card)s",
                       n=args.get("units"), colour=colour, a=where, b=named(target),
                       card=named(card))
    if name == "retreat" and target:
        return gettext("Move the %(colour)s units on %(a)s back to %(b)s", colour=colour,
                       a=where, b=named(target))
    if name == "recruit":
        return gettext("Put %(n)s %(colour)s cubes from the pool on %(base)s",
                       n=game.recruited(state, command), colour=colour, base=where)  # type: ignore[attr-defined]
    if name == "end_move":
        return gettext("The AI ends its moves")
    if name == "pass":
        return gettext("The AI passes")
    return gettext("AI: %(move)s", move=label(game, state, command))
