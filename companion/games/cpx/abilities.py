"""Card abilities (§7.2, §11): the checks of ``activate``, the stack and its response window,
passes, resolution last in first out, and the effect of each ability kind.
"""

from __future__ import annotations

from typing import Any

from . import card_moves
from .ctx import Ctx, fail
from .data import RESPONSE_KINDS, Ability, Card
from .flow import next_recruiter
from .state import COMMITTED, DISCARD, HAND, HAND_CHOICE, PLAYED, RECRUIT

# --- who may act, and in which window ----------------------------------------------------------


def current_window(ctx: Ctx) -> str | None:
    s = ctx.s
    if s.stack:
        return "response"
    return s.window


def responders(ctx: Ctx) -> list[int]:
    """CPX-73: every player who is not out (in a battle under ``participants``, those only)."""
    s = ctx.s
    if s.battle is not None and s.options["battle_cards_by"] == "participants":
        return [i for i in s.battle["eligible"] if not s.players[i]["out"]]
    return s.active_seats()


def window_players(ctx: Ctx) -> list[int]:
    """The players who may activate in the open (non-response) window."""
    s = ctx.s
    if s.window == "recruit":
        return s.active_seats()
    if s.window == "move":
        return [s.acting] if s.acting is not None else []
    if s.window in ("pre_drop", "after_drop") and s.battle is not None:
        return [i for i in s.battle["eligible"] if not s.players[i]["out"]]
    return []


def pass_eligible(ctx: Ctx) -> list[int]:
    s = ctx.s
    if s.stack and not s.resolving:
        return responders(ctx)
    if s.window in ("pre_drop", "after_drop"):
        return window_players(ctx)
    return []


# --- activate (CPX-71) ---------------------------------------------------------------------------


def _ability(ctx: Ctx, card: Card, ability: Any) -> Ability:
    for a in card.abilities:
        if ability in (a.id, a.id[-1]):
            return a
    fail("E_TARGET_INVALID", f"{ctx.card_name(card.id)} has no ability '{ability}'.")


def _side_of(ctx: Ctx, seat: int) -> str | None:
    b = ctx.s.battle
    if b is None:
        return None
    camp = ctx.s.players[seat]["camp"]
    return "attacker" if camp == b["attacker_camp"] else "defender"


def _usable_card(ctx: Ctx, seat: int, card_id: Any) -> Card:
    """Check 2: in his hand, or his committed route card for this battle (CPX-60)."""
    s = ctx.s
    c = s.cards.get(card_id) if isinstance(card_id, str) else None
    if c is None or c["holder"] != seat:
        fail("E_CARD_NOT_IN_HAND", f"{ctx.card_name(str(card_id))} is not in your hand.")
    if c["place"] == PLAYED:
        fail("E_CARD_SPENT", f"{ctx.card_name(card_id)} has already been used this round.")
    if c["place"] == COMMITTED:
        attack = next((a for a in s.attacks if a["seq"] == c["attack"]), None)
        if s.battle is None or attack is None or attack["to"] != s.battle["base"]:
            fail(
                "E_CARD_NOT_IN_HAND",
                f"{ctx.card_name(card_id)} is committed to an attack and is usable only in "
                "that attack's battle.",
            )
    elif c["place"] != HAND:
        fail("E_CARD_NOT_IN_HAND", f"{ctx.card_name(card_id)} is not in your hand.")
    return ctx.d.card_by_id[card_id]


def _fits_window(ability: Ability, window: str | None) -> bool:
    if ability.kind in RESPONSE_KINDS:
        return True
    if window == "response" or window is None:
        return False
    if ability.window == "move_or_pre_drop":
        return window in ("move", "pre_drop")
    return ability.window == window


def validate(ctx: Ctx, seat: int, args: dict[str, Any]) -> dict[str, Any]:
    """Checks 1-6 of CPX-71 without changing anything; returns what the activation needs."""
    v = check_card(ctx, seat, args)
    ability = v["ability"]
    v["checked"] = CHECKS[ability.kind](ctx, seat, ability, v.pop("targets"))
    return v


def check_card(ctx: Ctx, seat: int, args: dict[str, Any]) -> dict[str, Any]:
    """Checks 1-4 of CPX-71 (who, which card, window, side): everything but the targets, so
    ``legal_commands`` runs them once per ability and only the target checks per target."""
    s = ctx.s
    if s.phase == HAND_CHOICE:
        fail("E_WRONG_PHASE", "Cards are played after every hand has been chosen.")
    window = current_window(ctx)
    # check 1: the player may act now
    if window == "response":
        if seat not in responders(ctx):
            fail("E_ABILITY_WINDOW", "You may not respond in this window.")
    elif window == "move" and s.acting != seat:
        fail("E_NOT_YOUR_TURN", "Only the acting player uses abilities in his move turn.")
    elif seat not in window_players(ctx):
        fail("E_ABILITY_WINDOW", "No ability can be used by you now.")
    # check 2: the card
    card = _usable_card(ctx, seat, args.get("card"))
    ability = _ability(ctx, card, args.get("ability"))
    targets = args.get("targets") or {}
    if not isinstance(targets, dict):
        fail("E_TARGET_INVALID", "An activation's targets are a JSON object.")
    paired_card = args.get("paired_card")
    spent = [card.id]
    protected = False
    if ability.kind == "pair_protect":
        if s.options["all_terrain_reading"] == "route":
            fail("E_ABILITY_WINDOW", f"{ability.name_en} is played with an attack (route reading).")
        card, ability, targets = _pair(ctx, seat, card, ability, paired_card, targets)
        spent.append(card.id)
        protected = True
    elif paired_card is not None:
        fail("E_TARGET_INVALID", "Only All-terrain Traverse is played with a paired card.")
    # check 3: the window
    if not _fits_window(ability, window):
        fail("E_ABILITY_WINDOW", f"{ability.name_en} cannot be used in this window.")
    # check 4: the side
    side = _side_of(ctx, seat)
    if ability.side in ("attacker", "defender") and side != ability.side:
        fail("E_ABILITY_SIDE", f"{ability.name_en} is for the {ability.side} side of a battle.")
    return {
        "card": card,
        "ability": ability,
        "targets": targets,
        "spent": spent,
        "protected": protected,
        "side": side,
        "window": window,
    }


def activate(ctx: Ctx, seat: int, args: dict[str, Any]) -> None:
    s = ctx.s
    v = validate(ctx, seat, args)
    card, ability, checked = v["card"], v["ability"], v["checked"]
    spent, protected, side, window = v["spent"], v["protected"], v["side"], v["window"]
    # effect: card(s) spent, cost paid, activation on the stack
    for cid in spent:
        s.cards[cid] = {"holder": seat, "place": PLAYED, "attack": None}
    act = {
        "id": s.next_activation,
        "seat": seat,
        "camp": s.players[seat]["camp"],
        "card": card.id,
        "card_type": card.type,
        "ability": ability.id,
        "kind": ability.kind,
        "params": dict(ability.params),
        "targets": checked,
        "side": side,
        "protected": protected,
        "cancelled": False,
        "window": window,
        "cost": None,
    }
    s.next_activation += 1
    COSTS.get(ability.kind, _no_cost)(ctx, act)
    s.stack.append(act)
    s.passes = []
    ctx.emit(
        "activated",
        activation=act["id"],
        seat=seat,
        card=card.id,
        ability=ability.id,
        name=ability.name_en,
        targets=checked,
        protected=protected,
    )


def _pair(
    ctx: Ctx, seat: int, card: Card, ability: Ability, paired_card: Any, targets: dict[str, Any]
) -> tuple[Card, Ability, dict[str, Any]]:
    """CPX-134: the paired land card and ability, checked like a card of its own."""
    if paired_card is None or paired_card == card.id:
        fail("E_TARGET_INVALID", f"{ability.name_en} is played together with one of your cards.")
    paired = _usable_card(ctx, seat, paired_card)
    if not any(paired.counts_as(t) for t in ability.params["types"]):
        fail("E_TARGET_INVALID", f"{ctx.card_name(paired.id)} is not a land card.")
    inner = _ability(ctx, paired, targets.get("ability"))
    if inner.kind in RESPONSE_KINDS or inner.kind == "pair_protect":
        fail("E_TARGET_INVALID", f"{inner.name_en} cannot be paired with {ability.name_en}.")
    inner_targets = targets.get("targets") or {}
    if not isinstance(inner_targets, dict):
        fail("E_TARGET_INVALID", "The paired ability's targets are a JSON object.")
    return paired, inner, inner_targets


# --- passes and resolution (CPX-73, CPX-74) -------------------------------------------------------


def pass_(ctx: Ctx, seat: int) -> None:
    s = ctx.s
    if s.phase == HAND_CHOICE:
        fail("E_WRONG_PHASE", "Nothing to pass during the hand choice.")
    eligible = pass_eligible(ctx)
    if not eligible:
        fail("E_WRONG_PHASE", "No window is open in which to pass.")
    if seat not in eligible:
        fail("E_ABILITY_WINDOW", "You are not one of the players of this window.")
    if seat in s.passes:
        fail("E_ABILITY_WINDOW", "You have already passed in this window.")
    s.passes.append(seat)
    ctx.emit("passed", seat=seat)
    if set(eligible) <= set(s.passes):
        after_all_passed(ctx)


def after_all_passed(ctx: Ctx) -> None:
    s = ctx.s
    s.passes = []
    if s.stack:
        s.resolving = True
        resolve_stack(ctx)
        return
    from .battle import close_window  # battle imports this module

    close_window(ctx)


def resolve_stack(ctx: Ctx) -> None:
    """Resolve last in first out; a smoke prompt pauses resolution until it is answered."""
    s = ctx.s
    while s.stack:
        act = s.stack[-1]
        s.stack.pop()
        if act["cancelled"]:
            _on_cancelled(ctx, act)
            ctx.emit("cancelled", activation=act["id"], ability=act["ability"])
            continue
        EFFECTS[act["kind"]](ctx, act)
        ctx.emit("resolved", activation=act["id"], ability=act["ability"])
        if s.prompt is not None:
            return
    s.resolving = False
    s.passes = []
    _after_stack(ctx)


def _after_stack(ctx: Ctx) -> None:
    s = ctx.s
    if s.phase == RECRUIT:
        next_recruiter(ctx)


def _on_cancelled(ctx: Ctx, act: dict[str, Any]) -> None:
    """CPX-75: no effect, cost stays paid, except under ``captain_fury_refund`` (CPX-129)."""
    s = ctx.s
    if act["kind"] == "sacrifice_destroy" and s.options["captain_fury_refund"] and act["cost"]:
        base, colour, n = act["cost"]
        s.pools[colour] -= n
        s.add_units(base, colour, n)


def smoke_discard(ctx: Ctx, seat: int, card: Any) -> None:
    """CPX-132: discard a card from the hand to keep the effect, or ``none`` to lose it."""
    s = ctx.s
    p = s.prompt
    assert p is not None and p["kind"] == "smoke_discard"
    if seat != p["seat"]:
        fail("E_NOT_YOUR_TURN", f"{ctx.faction_name(p['seat'])} answers the Smoke Bomb.")
    target = next(a for a in s.stack if a["id"] == p["activation"])
    if card is None or card == "none":
        target["cancelled"] = True
    else:
        c = s.cards.get(card) if isinstance(card, str) else None
        if c is None or c["holder"] != seat or c["place"] != HAND:
            fail("E_DISCARD_INVALID", f"{ctx.card_name(str(card))} is not in your hand.")
        c["place"] = DISCARD
        ctx.emit("smoke_discarded", seat=seat, card=card)
    s.prompt = None
    resolve_stack(ctx)


# --- helpers for targets ----------------------------------------------------------------------


def _battle_base(ctx: Ctx) -> str:
    b = ctx.s.battle
    if b is None:
        fail("E_ABILITY_WINDOW", "That ability is used in a battle.")
    return b["base"]


def _field(ctx: Ctx, t: Targets) -> str:
    """G46: the battlefield being resolved or, under ``designate_any_battlefield``, a later
    battlefield of this phase that will be fought (CPX-114)."""
    s = ctx.s
    current = _battle_base(ctx)
    named = t.get("battlefield", current)
    if named == current:
        return current
    if not s.options["designate_any_battlefield"]:
        fail("E_TARGET_INVALID", "Only the battlefield being resolved can be named.")
    if not isinstance(named, str) or named not in s.queue or not _will_be_fought(ctx, named):
        fail(
            "E_TARGET_INVALID", f"{ctx.base_name(str(named))} is not a later battle of this phase."
        )
    return named


def _will_be_fought(ctx: Ctx, base: str) -> bool:
    from .battle import is_battlefield  # battle imports this module

    s = ctx.s
    if not is_battlefield(ctx, base):
        return False
    if ctx.owner(base) is not None:
        return True
    camps = {s.players[s.seat_of_colour(c)]["camp"] for c in s.units.get(base, {})}
    return len(camps) == 2


def _other_camp_units(ctx: Ctx, seat: int, base: str | None = None) -> dict[str, int]:
    s = ctx.s
    base = base or _battle_base(ctx)
    camp = s.players[seat]["camp"]
    return {
        c: n
        for c, n in s.units.get(base, {}).items()
        if s.players[s.seat_of_colour(c)]["camp"] != camp
    }


def _named_units(ctx: Ctx, raw: Any, pool: dict[str, int], want: int, what: str) -> dict[str, int]:
    """Units named by colour: exactly ``want`` in all, each colour within what stands there."""
    if not isinstance(raw, dict) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in raw.values()
    ):
        fail("E_TARGET_INVALID", f'Name the {what} by colour, e.g. {{"red": 1}}.')
    named = {c: n for c, n in raw.items() if n}
    if sum(named.values()) != want or any(n > pool.get(c, 0) for c, n in named.items()):
        fail("E_TARGET_INVALID", f"Name exactly {want} {what} from {pool}.")
    return named


def _stack_target(ctx: Ctx, seat: int, act_id: Any) -> dict[str, Any]:
    s = ctx.s
    camp = s.players[seat]["camp"]
    act = next((a for a in s.stack if a["id"] == act_id), None)
    if act is None or act["camp"] == camp:
        fail("E_TARGET_INVALID", "Target a pending activation of the other camp.")
    if act["protected"]:
        fail("E_TARGET_PROTECTED", "That activation is protected by All-terrain Traverse.")
    return act


# --- checks by kind (check 5: condition, check 6: targets) --------------------------------------

Targets = dict[str, Any]


def _check_none(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    _battle_base(ctx)
    return {}


def _check_in_kind(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    b = ctx.s.battle
    assert b is not None
    if ab.params["battle_kind"] not in b["kinds"]:
        fail(
            "E_ABILITY_CONDITION",
            f"{ab.name_en} is used only in a {ab.params['battle_kind']} battle.",
        )
    return {}


def _check_if_units(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    s = ctx.s
    base = _battle_base(ctx)
    have = s.camp_units(base, s.players[seat]["camp"])
    if have < ab.params["min"]:
        fail("E_ABILITY_CONDITION", f"Your camp needs at least {ab.params['min']} units here.")
    return {}


def _check_cancel_types(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    s = ctx.s
    b = s.battle
    assert b is not None
    if ab.params["battle_kind"] not in b["kinds"]:
        fail(
            "E_ABILITY_CONDITION",
            f"{ab.name_en} is used only in a {ab.params['battle_kind']} battle.",
        )
    types = list(ab.params["types"])
    if s.options["sea_wing_types"] == "choose_one" and len(types) > 1:
        chosen = t.get("type")
        if chosen not in types:
            fail("E_TARGET_INVALID", f"Name one card type: {', '.join(types)}.")
        types = [chosen]
    return {"types": types}


def _check_cancel_one(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    act = _stack_target(ctx, seat, t.get("activation"))
    return {"activation": act["id"]}


def _check_cancel_by_type(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    ids = t.get("activations")
    if (
        not isinstance(ids, list)
        or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids)
        or not 1 <= len(ids) <= ab.params["max"]
        or len(set(ids)) != len(ids)
    ):
        fail("E_TARGET_INVALID", f"Target 1 to {ab.params['max']} pending activations.")
    types = ab.params["types"]
    out = []
    for i in ids:
        act = _stack_target(ctx, seat, i)
        card = ctx.d.card_by_id[act["card"]]
        if not any(card.counts_as(ty) for ty in types):
            fail("E_TARGET_INVALID", f"{ctx.card_name(card.id)} is not a {'/'.join(types)} card.")
        out.append(act["id"])
    return {"activations": out}


def _check_destroy(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    enemy = _other_camp_units(ctx, seat)
    e = sum(enemy.values())
    if e < 1:
        fail("E_ABILITY_CONDITION", "No enemy unit is on the battlefield.")
    return {
        "units": _named_units(ctx, t.get("units"), enemy, min(ab.params["n"], e), "enemy units")
    }


def _check_sacrifice(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    s = ctx.s
    base = _battle_base(ctx)
    enemy = _other_camp_units(ctx, seat)
    e = sum(enemy.values())
    if s.units_of(base, s.colour_of(seat)) < ab.params["sacrifice"] or e < 1:
        fail(
            "E_ABILITY_CONDITION",
            f"You need {ab.params['sacrifice']} of your own units and an enemy unit here.",
        )
    want = min(ab.params["destroy"], e)
    return {"units": _named_units(ctx, t.get("units"), enemy, want, "enemy units")}


def _check_direct(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    s = ctx.s
    b = s.battle
    assert b is not None
    field = _field(ctx, t)
    if field == b["base"]:
        if b["direct"]:
            fail("E_ABILITY_CONDITION", "This battle is already resolved directly.")
        return {}
    if any(e["kind"] == "direct_resolution" and e["base"] == field for e in s.designated):
        fail("E_ABILITY_CONDITION", "That battle is already to be resolved directly.")
    return {"battlefield": field}


def _check_chrono(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    b = ctx.s.battle
    assert b is not None
    if b["chrono_used"] or any(
        a["kind"] == "chrono_redrop" and not a["cancelled"] for a in ctx.s.stack
    ):
        fail("E_ONCE_PER_BATTLE", "The drop of this battle has already been voided once.")
    return {}


def _check_block(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    s = ctx.s
    base = t.get("base")
    if not isinstance(base, str) or base not in ctx.d.base_by_id:
        fail("E_TARGET_INVALID", "Name the enemy base to block.")
    camp = s.players[seat]["camp"]
    owner_camp = ctx.owner_camp(base)
    if owner_camp is None or owner_camp == camp:
        fail("E_TARGET_INVALID", f"{ctx.base_name(base)} is not an enemy base.")
    if not any(ctx.owner(n) == seat for n in ctx.d.adjacency[base]):
        fail("E_TARGET_INVALID", f"{ctx.base_name(base)} is not next to one of your bases.")
    return {"base": base}


def _designation(ctx: Ctx, field: str) -> dict[str, str]:
    b = ctx.s.battle
    assert b is not None
    return {} if field == b["base"] else {"battlefield": field}


def _check_set_aside(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    field = _field(ctx, t)
    enemy = _other_camp_units(ctx, seat, field)
    e = sum(enemy.values())
    if e < 2:
        fail("E_ABILITY_CONDITION", "The other camp needs at least 2 units on the battlefield.")
    units = _named_units(ctx, t.get("units"), enemy, e // 2, "enemy units")
    return {"units": units, **_designation(ctx, field)}


def _check_bind(ctx: Ctx, seat: int, ab: Ability, t: Targets) -> Targets:
    s = ctx.s
    field = _field(ctx, t)
    own = s.units_of(field, s.colour_of(seat))
    enemy = _other_camp_units(ctx, seat, field)
    k = min(own // 2, sum(enemy.values()))
    if k < 1:
        fail("E_ABILITY_CONDITION", "Binding needs 2 of your units and an enemy unit here.")
    units = _named_units(ctx, t.get("units"), enemy, k, "enemy units")
    return {"k": k, "units": units, **_designation(ctx, field)}


CHECKS: dict[str, Any] = {
    "attack_bonus": _check_none,
    "defence_bonus": _check_none,
    "side_bonus": _check_none,
    "attack_bonus_in_kind": _check_in_kind,
    "defence_bonus_if_units": _check_if_units,
    "deny_white": _check_none,
    "void_defence": _check_none,
    "cancel_attack_by_type": _check_cancel_types,
    "cancel_one": _check_cancel_one,
    "smoke": _check_cancel_one,
    "cancel_by_type": _check_cancel_by_type,
    "destroy_units": _check_destroy,
    "sacrifice_destroy": _check_sacrifice,
    "direct_resolution": _check_direct,
    "chrono_redrop": _check_chrono,
    "block_recruit": _check_block,
    "set_aside_half": _check_set_aside,
    "bind_half": _check_bind,
    "paradrop": card_moves.check_paradrop,
    "displace_units": card_moves.check_displace,
    "single_move": card_moves.check_single_move,
    "transport_adjacent": card_moves.check_transport,
    "multi_move": card_moves.check_multi_move,
}


# --- costs (paid at activation) -----------------------------------------------------------------


def _no_cost(ctx: Ctx, act: dict[str, Any]) -> None:
    return None


def _cost_sacrifice(ctx: Ctx, act: dict[str, Any]) -> None:
    """CPX-129: 「己方牺牲2个部队」 is paid at once."""
    s = ctx.s
    base = _battle_base(ctx)
    colour = s.colour_of(act["seat"])
    n = act["params"]["sacrifice"]
    s.add_units(base, colour, -n)
    s.pools[colour] += n
    act["cost"] = [base, colour, n]


COSTS: dict[str, Any] = {"sacrifice_destroy": _cost_sacrifice}


# --- effects ----------------------------------------------------------------------------------


def _bonus_kind(act: dict[str, Any]) -> str:
    if act["kind"] in ("attack_bonus", "attack_bonus_in_kind"):
        return "attack"
    if act["kind"] in ("defence_bonus", "defence_bonus_if_units"):
        return "defence"
    return "attack" if act["side"] == "attacker" else "defence"


def _suppressed(ctx: Ctx, act: dict[str, Any], kind: str) -> bool:
    """CPX-76: a modifier in force makes a later bonus of its kind add nothing."""
    if act["protected"]:
        return False
    b = ctx.s.battle
    assert b is not None
    card = ctx.d.card_by_id[act["card"]]
    for m in b["modifiers"]:
        if m["camp"] == act["camp"]:
            continue
        if kind == "defence" and m["kind"] in ("deny_white", "void_defence"):
            return True
        if (
            kind == "attack"
            and m["kind"] == "cancel_attack_by_type"
            and any(card.counts_as(t) for t in m["types"])
        ):
            return True
    return False


def _eff_bonus(ctx: Ctx, act: dict[str, Any]) -> None:
    """CPX-79: n black for an attack bonus, n white for a defence bonus, as far as the pool has."""
    s = ctx.s
    b = s.battle
    assert b is not None
    kind = _bonus_kind(act)
    colour = "black" if kind == "attack" else "white"
    n = 0 if _suppressed(ctx, act, kind) else min(act["params"]["n"], s.pools[colour])
    s.pools[colour] -= n
    b["bonus"].append(
        {
            "activation": act["id"],
            "camp": act["camp"],
            "kind": kind,
            "colour": colour,
            "count": n,
            "card": act["card"],
            "protected": act["protected"],
            "active": True,
        }
    )
    ctx.emit(
        "bonus",
        activation=act["id"],
        colour=colour,
        count=n,
        table=f"Put {n} {colour} in the bonus area of {ctx.base_name(b['base'])}.",
    )


def _take_back(ctx: Ctx, pred: Any) -> None:
    s = ctx.s
    b = s.battle
    assert b is not None
    for e in b["bonus"]:
        if e["active"] and not e["protected"] and pred(e):
            s.pools[e["colour"]] += e["count"]
            e["active"] = False
            ctx.emit(
                "bonus_returned", activation=e["activation"], colour=e["colour"], count=e["count"]
            )


def _eff_modifier(ctx: Ctx, act: dict[str, Any]) -> None:
    s = ctx.s
    b = s.battle
    assert b is not None
    camp = act["camp"]
    types = act["targets"].get("types", [])
    b["modifiers"].append({"kind": act["kind"], "camp": camp, "types": types})
    if act["kind"] in ("deny_white", "void_defence"):
        _take_back(ctx, lambda e: e["camp"] != camp and e["colour"] == "white")
    else:
        cards = ctx.d.card_by_id

        def hit(e: dict[str, Any]) -> bool:
            return (
                e["camp"] != camp
                and e["kind"] == "attack"
                and any(cards[e["card"]].counts_as(t) for t in types)
            )

        _take_back(ctx, hit)


def _eff_cancel(ctx: Ctx, act: dict[str, Any]) -> None:
    s = ctx.s
    ids = act["targets"].get("activations") or [act["targets"]["activation"]]
    for a in s.stack:
        if a["id"] in ids:
            a["cancelled"] = True


def _eff_smoke(ctx: Ctx, act: dict[str, Any]) -> None:
    s = ctx.s
    target = next((a for a in s.stack if a["id"] == act["targets"]["activation"]), None)
    if target is None or target["cancelled"]:
        return
    if not s.cards_of(target["seat"], HAND):
        target["cancelled"] = True
        return
    s.prompt = {"kind": "smoke_discard", "seat": target["seat"], "activation": target["id"]}
    ctx.emit("prompt", **s.prompt)


def _remove_units(ctx: Ctx, units: dict[str, int]) -> None:
    s = ctx.s
    base = _battle_base(ctx)
    for colour, n in units.items():
        n = min(n, s.units_of(base, colour))
        if n:
            s.add_units(base, colour, -n)
            s.pools[colour] += n


def _eff_destroy(ctx: Ctx, act: dict[str, Any]) -> None:
    _remove_units(ctx, act["targets"]["units"])


def _designate(ctx: Ctx, act: dict[str, Any]) -> bool:
    """CPX-114 option: an effect named for a later battlefield waits for that battle."""
    field = act["targets"].get("battlefield")
    if field is None:
        return False
    ctx.s.designated.append(
        {"kind": act["kind"], "seat": act["seat"], "base": field, "targets": act["targets"]}
    )
    ctx.emit("designated", base=field, ability=act["ability"])
    return True


def apply_designations(ctx: Ctx, base: str) -> None:
    """Step 1 of CPX-66: effects waiting for this battle apply to the named units still there."""
    s = ctx.s
    waiting = [e for e in s.designated if e["base"] == base]
    s.designated = [e for e in s.designated if e["base"] != base]
    for e in waiting:
        if e["kind"] == "direct_resolution":
            assert s.battle is not None
            s.battle["direct"] = True
        elif e["kind"] == "set_aside_half":
            _set_aside(ctx, base, e["targets"])
        else:
            _bind(ctx, base, e["seat"], e["targets"])
        ctx.emit("designation_applied", base=base, kind=e["kind"])


def lapse_designations(ctx: Ctx, base: str | None = None) -> None:
    """A designated battlefield that is skipped lets its effect lapse (the card stays spent)."""
    s = ctx.s
    keep = [e for e in s.designated if base is not None and e["base"] != base]
    for e in s.designated:
        if e not in keep:
            ctx.emit("designation_lapsed", base=e["base"], kind=e["kind"])
    s.designated = keep


def _eff_direct(ctx: Ctx, act: dict[str, Any]) -> None:
    if _designate(ctx, act):
        return
    b = ctx.s.battle
    assert b is not None
    b["direct"] = True


def _eff_chrono(ctx: Ctx, act: dict[str, Any]) -> None:
    from .battle import start_redrop  # battle imports this module

    start_redrop(ctx)


def _eff_block(ctx: Ctx, act: dict[str, Any]) -> None:
    base = act["targets"]["base"]
    if base not in ctx.s.blocked:
        ctx.s.blocked.append(base)
    ctx.emit("blocked", base=base)


def _eff_set_aside(ctx: Ctx, act: dict[str, Any]) -> None:
    if not _designate(ctx, act):
        _set_aside(ctx, _battle_base(ctx), act["targets"])


def _set_aside(ctx: Ctx, base: str, targets: Targets) -> None:
    s = ctx.s
    for colour, n in targets["units"].items():
        n = min(n, s.units_of(base, colour))
        if n:
            s.add_units(base, colour, -n)
            s.set_aside.append({"colour": colour, "count": n, "base": base})


def _eff_bind(ctx: Ctx, act: dict[str, Any]) -> None:
    if not _designate(ctx, act):
        _bind(ctx, _battle_base(ctx), act["seat"], act["targets"])


def _bind(ctx: Ctx, base: str, seat: int, targets: Targets) -> None:
    s = ctx.s
    own = s.colour_of(seat)
    groups = dict(targets["units"])
    groups[own] = groups.get(own, 0) + targets["k"]
    for colour, n in groups.items():
        n = min(n, s.units_of(base, colour))
        if n:
            s.add_units(base, colour, -n)
            s.bound[colour] = s.bound.get(colour, 0) + n


EFFECTS: dict[str, Any] = {
    "attack_bonus": _eff_bonus,
    "defence_bonus": _eff_bonus,
    "side_bonus": _eff_bonus,
    "attack_bonus_in_kind": _eff_bonus,
    "defence_bonus_if_units": _eff_bonus,
    "deny_white": _eff_modifier,
    "void_defence": _eff_modifier,
    "cancel_attack_by_type": _eff_modifier,
    "cancel_one": _eff_cancel,
    "cancel_by_type": _eff_cancel,
    "smoke": _eff_smoke,
    "destroy_units": _eff_destroy,
    "sacrifice_destroy": _eff_destroy,
    "direct_resolution": _eff_direct,
    "chrono_redrop": _eff_chrono,
    "block_recruit": _eff_block,
    "set_aside_half": _eff_set_aside,
    "bind_half": _eff_bind,
    "paradrop": card_moves.effect_moves,
    "displace_units": card_moves.effect_moves,
    "single_move": card_moves.effect_moves,
    "transport_adjacent": card_moves.effect_moves,
    "multi_move": card_moves.effect_moves,
}
