"""The shape of a request: which args each request takes, and one canonical spelling of each.

``apply`` refuses a request with an arg it does not know (a typo must not pass silently), and
``offers`` compares requests in their canonical spelling, so that every spelling ``apply``
accepts (an ability named by its letter, ``paired_card: null``, a hand in any order, moves in
any order) is offered exactly when the canonical one is listed or admitted by a count form.

Two spellings exist because the contract's count forms hold flat counts only: a hand can be
named as 0/1 counts per card (``{"cards": {"C01": 1, ...}}``) and Rapid Deployment's moves as
counts per route (``{"targets": {"B01>B07": 2}}``). Both are accepted by ``apply`` too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.engine import Command

from .ctx import Ctx, fail
from .data import Ability

# Request -> (args it needs, args it may have). Missing needed args are left to the rule, so
# its own code and message stay the ones of the spec.
ARGS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "choose_start": (frozenset({"base"}), frozenset()),
    "report_drop": (frozenset({"counts"}), frozenset({"source"})),
    "confirm_drop": (frozenset(), frozenset()),
    "choose_hand": (frozenset({"cards"}), frozenset()),
    "recruit": (frozenset({"base"}), frozenset()),
    "attack": (frozenset({"from", "to", "units", "card"}), frozenset({"paired_card"})),
    "retreat": (frozenset({"base", "to"}), frozenset()),
    "end_move": (frozenset(), frozenset()),
    "activate": (
        frozenset({"card", "ability"}),
        frozenset({"targets", "paired_card", "paired_ability"}),
    ),
    "pass": (frozenset(), frozenset()),
    "smoke_discard": (frozenset(), frozenset({"card"})),
    "choose_units": (frozenset({"mix"}), frozenset()),
}
SOURCES = ("camera", "manual", "simulated")
"""Where a drop's counts come from; a simulated count is logged as manual (CPX-29)."""

# Ability kind -> the target keys it takes (CPX-112: a target of the wrong kind is invalid).
TARGET_KEYS: dict[str, frozenset[str]] = {
    "cancel_one": frozenset({"activation"}),
    "smoke": frozenset({"activation"}),
    "cancel_by_type": frozenset({"activations"}),
    "destroy_units": frozenset({"units"}),
    "sacrifice_destroy": frozenset({"units"}),
    "set_aside_half": frozenset({"units", "battlefield"}),
    "bind_half": frozenset({"units", "battlefield"}),
    "direct_resolution": frozenset({"battlefield"}),
    "block_recruit": frozenset({"base"}),
    "paradrop": frozenset({"origin", "units"}),
    "displace_units": frozenset({"units"}),
    "single_move": frozenset({"from", "to", "units"}),
    "transport_adjacent": frozenset({"from", "moves"}),
    "multi_move": frozenset({"moves"}),
    "pair_protect": frozenset({"ability", "targets"}),
}
ROUTE_SEP = ">"


def route_key(origin: str, dest: str) -> str:
    return f"{origin}{ROUTE_SEP}{dest}"


def _no_fractions(value: Any, where: str) -> None:
    """No request of this game takes a float or a bool; JSON's ``1.0`` must not pass for 1."""
    if isinstance(value, bool | float):
        fail("E_BAD_REQUEST", f"'{where}' must be whole numbers and names, not {value!r}.")
    if isinstance(value, Mapping):
        for k, v in value.items():
            _no_fractions(v, f"{where}.{k}")
    elif isinstance(value, list):
        for v in value:
            _no_fractions(v, where)


def normalise(ctx: Ctx, command: Command) -> Command:
    """Refuse unknown args; return the request in the spelling the rules read.

    The rules then see one spelling: hands as lists, multi-moves as lists of legs, the ability
    by its full id, missing defaults filled in.
    """
    name = command.name
    needed, optional = ARGS[name]
    args = dict(command.args)
    unknown = set(args) - needed - optional
    if unknown:
        takes = ", ".join(sorted(needed | optional)) or "no arguments"
        fail(
            "E_BAD_REQUEST",
            f"'{name}' takes {takes}; {', '.join(sorted(map(str, unknown)))} is not one of them.",
        )
    if name == "report_drop":
        if "counts" not in args:
            fail("E_COUNT_INVALID", "A drop report must give a count for each colour.")
        if "source" in args and args["source"] not in SOURCES:
            fail("E_BAD_REQUEST", f"A drop's counts come from {', '.join(SOURCES)}.")
        return command
    if name == "choose_units":
        return command
    for key, value in args.items():
        _no_fractions(value, key)
    if args.get("paired_card", 0) is None:
        del args["paired_card"]
    if name == "smoke_discard" and args.get("card") is None:
        args["card"] = "none"
    if name == "choose_hand" and isinstance(args.get("cards"), Mapping):
        args["cards"] = _hand_from_counts(ctx, command.seat, args["cards"])
    if name == "activate":
        _normalise_activation(ctx, args)
    return Command(name, args, seat=command.seat, at=command.at, seed=command.seed)


def _hand_from_counts(ctx: Ctx, seat: int | None, counts: Mapping[Any, Any]) -> list[Any]:
    """A hand as 0/1 counts per card; a card counted 0 must still be one of the player's."""
    known = seat is not None and 0 <= seat < len(ctx.s.players)
    held = set(ctx.s.cards_of(seat)) if known and seat is not None else set()
    out = []
    for card, n in counts.items():
        if n not in (0, 1):
            fail("E_BAD_REQUEST", f"A hand names each card 0 or 1 times, not {n!r} ({card}).")
        if n:
            out.append(card)
        elif card not in held:
            fail("E_CARD_NOT_OWNED", f"You do not hold {ctx.card_name(str(card))}.", card=card)
    return sorted(out, key=str)


def _ability_of(ctx: Ctx, card: Any, ability: Any) -> Ability | None:
    c = ctx.d.card_by_id.get(card) if isinstance(card, str) else None
    if c is None:
        return None
    return next((a for a in c.abilities if ability in (a.id, a.id[-1])), None)


def _normalise_activation(ctx: Ctx, args: dict[str, Any]) -> None:
    ab = _ability_of(ctx, args.get("card"), args.get("ability"))
    if "paired_ability" in args:
        # The flat spelling of a pair: the paired card's ability at the top, its targets as
        # the targets (so a paired Rapid Deployment is a count form too).
        if ab is None or ab.kind != "pair_protect":
            fail("E_TARGET_INVALID", "Only All-terrain Traverse names a paired ability.")
        args["targets"] = {"ability": args.pop("paired_ability"), "targets": args.get("targets")}
    if ab is None:
        return  # the rule refuses it with its own message
    args["ability"] = ab.id
    args["targets"] = _targets(ctx, ab, args.get("targets"))
    if ab.kind == "pair_protect":
        inner_card = args.get("paired_card")
        t = args["targets"]
        inner = _ability_of(ctx, inner_card, t.get("ability"))
        if inner is not None:
            t["ability"] = inner.id
            t["targets"] = _targets(ctx, inner, t.get("targets"))


def _targets(ctx: Ctx, ab: Ability, raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        fail("E_TARGET_INVALID", "An activation's targets are a JSON object.")
    t = dict(raw)
    keys = TARGET_KEYS.get(ab.kind, frozenset())
    if ab.kind == "cancel_attack_by_type" and (
        ctx.s.options["sea_wing_types"] == "choose_one" and len(ab.params["types"]) > 1
    ):
        keys = frozenset({"type"})
    if ab.kind == "multi_move" and "moves" not in t:
        return {"moves": _legs_from_counts(t)}
    unknown = set(t) - keys
    if unknown:
        fail(
            "E_TARGET_INVALID",
            f"{ab.name_en} takes no target {', '.join(sorted(map(str, unknown)))}.",
        )
    b = ctx.s.battle
    if b is not None and t.get("battlefield") == b["base"]:
        del t["battlefield"]
    if ab.kind == "single_move" and "units" not in t:
        t["units"] = 1
    if ab.kind == "multi_move" and isinstance(t.get("moves"), list):
        t["moves"] = [
            {**leg, "units": leg.get("units", 1)} if isinstance(leg, Mapping) else leg
            for leg in t["moves"]
        ]
    for leg in t.get("moves", []) if isinstance(t.get("moves"), list) else []:
        if isinstance(leg, Mapping):
            allowed = {"from", "to", "units"} if ab.kind == "multi_move" else {"to", "units"}
            if set(leg) - allowed:
                fail("E_TARGET_INVALID", f"A move names {', '.join(sorted(allowed))} only.")
    if ab.kind == "displace_units" and isinstance(t.get("units"), list):
        for pick in t["units"]:
            if isinstance(pick, Mapping) and set(pick) - {"colour", "to"}:
                fail("E_TARGET_INVALID", "Each unit to move names its colour and 'to' only.")
    return t


def _legs_from_counts(t: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Rapid Deployment's moves as counts per route ``FROM>TO``, in the order of their keys."""
    legs = []
    for key in sorted(t, key=str):
        n = t[key]
        parts = key.split(ROUTE_SEP) if isinstance(key, str) else []
        if len(parts) != 2 or not isinstance(n, int) or n < 0:
            fail("E_TARGET_INVALID", "Name each move as 'FROM>TO': a number of units.")
        if n:
            legs.append({"from": parts[0], "to": parts[1], "units": n})
    return legs


def offer_spelling(command: Command) -> Command:
    """The spelling in which legal commands and count forms name a request (after
    ``normalise``): hands and Rapid Deployment's moves as counts, sets in sorted order."""
    name, args = command.name, dict(command.args)
    cards = args.get("cards")
    if name == "choose_hand" and isinstance(cards, list) and all(isinstance(c, str) for c in cards):
        counts: dict[Any, int] = {}
        for c in args["cards"]:
            counts[c] = counts.get(c, 0) + 1
        args["cards"] = counts
    elif name == "activate" and isinstance(args.get("targets"), Mapping):
        outer = args["targets"]
        inner = outer.get("targets")
        if "ability" in outer and isinstance(inner, Mapping):
            spelled = _offer_targets(inner)
            if _is_multi_move(inner) and "moves" not in spelled:
                args["paired_ability"] = outer["ability"]
                args["targets"] = spelled
            else:
                args["targets"] = {**outer, "targets": spelled}
        else:
            args["targets"] = _offer_targets(outer)
    elif name == "choose_units" and isinstance(args.get("mix"), Mapping):
        args["mix"] = {c: n for c, n in args["mix"].items() if not (type(n) is int and n == 0)}
    return Command(name, args, seat=command.seat)


def _is_multi_move(t: Mapping[str, Any]) -> bool:
    legs = t.get("moves")
    return (
        "from" not in t
        and isinstance(legs, list)
        and bool(legs)
        and all(isinstance(x, Mapping) and "from" in x for x in legs)
    )


def _offer_targets(t: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(t)
    legs = out.get("moves")
    if isinstance(legs, list) and legs and all(isinstance(x, Mapping) for x in legs):
        if all("from" in x for x in legs) and "from" not in out:
            counts: dict[str, int] = {}
            for x in legs:
                if not isinstance(x.get("units"), int) or x["units"] < 1:
                    return out
                k = route_key(str(x.get("from")), str(x.get("to")))
                counts[k] = counts.get(k, 0) + x["units"]
            return counts
        out["moves"] = sorted(legs, key=lambda x: str(x.get("to")))
    ids = out.get("activations")
    if isinstance(ids, list) and all(isinstance(i, int) for i in ids):
        out["activations"] = sorted(ids)
    units = out.get("units")
    if isinstance(units, Mapping) and all(isinstance(n, int) for n in units.values()):
        out["units"] = {c: n for c, n in units.items() if n}
    return out
