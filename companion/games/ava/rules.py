"""Applying commands: the turn (§5), collection (§6), movement (§7), strategic moves (§8),
landing (§9), recruitment and defence (§10), jail (§12), card use (§13) and the end (§14).

``apply`` works on a clone of the state, so a rejected request leaves the given state exactly as
it was (AVA-2). Checks run in the order AVA-2 prescribes: game over, turn, jail, step, then the
rule's own checks in the order the rule lists them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from companion.engine import Command, Event, IllegalMove
from companion.games.ava import cards as deck
from companion.games.ava import formulas as fm
from companion.games.ava.data import UNIT_TYPES, AvaData, Square
from companion.games.ava.setup import data_for
from companion.games.ava.state import (
    BUILD,
    JAIL,
    JAIL_OFFER,
    OFFER,
    OVER,
    RESOLVE,
    SIDE_NAMES,
    SPIN,
    AvaState,
)

Handler = Callable[[AvaData, AvaState, Command, list[Event]], None]
RESOLUTION_COMMANDS = ("invade", "treaty", "build_base", "ally", "penalty", "pass")
CARD_STEPS = (SPIN, RESOLVE, BUILD)
S6_CARD_KINDS = ("spy", "free_secret_base", "defection")
TARGET_CARD_KINDS = ("destroy_garrison_type", "isolationism")


def fail(code: str, message: str, **details: Any) -> IllegalMove:
    return IllegalMove(code, message, **details)


# --- small queries --------------------------------------------------------------------------


def side_name(side: int) -> str:
    return SIDE_NAMES[side]


def owned_squares(state: AvaState, side: int) -> list[int]:
    return [n for n in range(1, 37) if state.owner[n - 1] == side]


def territory_count(data: AvaData, state: AvaState, side: int, bases: bool = False) -> int:
    kinds = ("territory", "secret", "special") if bases else ("territory",)
    return sum(1 for n in owned_squares(state, side) if data.square(n).type in kinds)


def square_dp(data: AvaData, state: AvaState, number: int) -> int:
    """Defence power of a square as the lander sees it (AVA-96; neutral: its data value)."""
    sq = data.square(number)
    if sq.type != "territory":
        return 0
    if state.owner[number - 1] is None:
        return sq.neutral_garrison
    return fm.defence_power(
        state.garrison[number - 1], sq.seaport, state.options["support_model"], data.powers
    )


def treaty_price(data: AvaData, state: AvaState, number: int) -> int:
    """AVA-61/62/97, with ``treaty_count_scope``."""
    p = state.me
    count = p.treaties_signed
    if state.options["treaty_count_scope"] == "both_players":
        count += state.them.treaties_signed
    return fm.treaty_cost(data.square(number).neutral_garrison, count)


def window_s(state: AvaState) -> float | None:
    return state.options["strategic_move_window_s"]


def offer_deadline(state: AvaState) -> float | None:
    if state.step != OFFER or state.offer_at is None or window_s(state) is None:
        return None
    return state.offer_at + window_s(state)


def units_arg(args: Mapping[str, Any]) -> fm.Units:
    """(I, T, P, B) from a command's args; missing counts are 0, anything else is refused."""
    out = []
    for u in UNIT_TYPES:
        v = args.get(u, 0)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise fail("E_BAD_REQUEST", f"The number of {u} must be a whole number of 0 or more.")
        out.append(v)
    return out[0], out[1], out[2], out[3]


def square_arg(args: Mapping[str, Any], key: str = "square") -> int:
    v = args.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 36:
        raise fail("E_BAD_REQUEST", f"'{key}' must be a square number 1..36.")
    return v


def set_garrison(state: AvaState, number: int, units: fm.Units) -> None:
    g = list(state.garrison)
    g[number - 1] = units
    state.garrison = tuple(g)


def set_owner(state: AvaState, number: int, side: int | None) -> None:
    o = list(state.owner)
    o[number - 1] = side
    state.owner = tuple(o)


def mandatory_pending(data: AvaData, state: AvaState) -> bool:
    """AVA-36: enemy territory unresolved, a Double Agent discard owed, or ``neutral_must_act``."""
    if state.step != RESOLVE or state.landed_square is None:
        return False
    if state.discard_owed:
        return True
    n = state.landed_square
    sq = data.square(n)
    owner = state.owner[n - 1]
    if sq.type != "territory":
        return False
    if owner == 1 - state.current:
        return not state.auto_penalty
    if owner is None and state.options["neutral_must_act"]:
        p = state.me
        return p.money >= treaty_price(data, state, n) or p.available[0] >= sq.neutral_garrison
    return False


# --- turn flow ------------------------------------------------------------------------------


def begin_turn(data: AvaData, state: AvaState, events: list[Event]) -> None:
    """Start the current player's turn: reset per-turn values, S1 collection, then S2 or S3."""
    state.landed_square = None
    state.spin_value = None
    state.spin_square = None
    state.offer = "none"
    state.offer_at = None
    state.auto_penalty = False
    state.spy_used = False
    state.discard_owed = False
    p = state.me
    p.recruited_this_turn = fm.NO_UNITS
    p.last_garrison_square = p.garrisoned_this_turn
    p.garrisoned_this_turn = None
    events.append(Event("turn_started", {"side": p.side, "round": state.round}))
    collect(data, state, events)
    state.step = JAIL if p.jailed else SPIN


def collect(data: AvaData, state: AvaState, events: list[Event]) -> None:
    """S1 (AVA-38..AVA-43): sum the production of every owned square, then scale and round."""
    p = state.me
    if p.skip_next_collection:
        p.skip_next_collection = False
        events.append(Event("collection_skipped", {"side": p.side}))
        return
    prods = [data.square(n).production for n in owned_squares(state, state.current)]
    gain = fm.collection(prods, state.resource_pct, state.options["resource_rounding"])
    p.money += gain[0]
    p.available = fm.add(p.available, (gain[1], gain[2], gain[3], gain[4]))
    events.append(Event("collected", {"side": p.side, "gain": list(gain)}))


def finish_turn(data: AvaData, state: AvaState, events: list[Event]) -> None:
    """End the current turn, check the turn limit (AVA-131), and start the next turn."""
    events.append(Event("turn_ended", {"side": state.me.side}))
    state.turns_played += 1
    limit = state.options["turn_limit"]
    if limit is not None:
        if state.options["turn_limit_unit"] == "player_turn":
            reached = state.turns_played >= limit
        else:
            reached = state.current != state.first_side and state.round >= limit
        if reached:
            end_by_turn_limit(data, state, events)
            return
    state.current = 1 - state.current
    if state.current == state.first_side:
        state.round += 1
    begin_turn(data, state, events)


def declare(state: AvaState, winner: int | None, reason: str, events: list[Event]) -> None:
    state.result = {
        "winner": None if winner is None else side_name(winner),
        "reason": reason,
        "round": state.round,
    }
    state.step = OVER
    events.append(Event("game_over", dict(state.result)))


def end_by_turn_limit(data: AvaData, state: AvaState, events: list[Event]) -> None:
    """AVA-132: territories, then army power (AVA-102), then money, else a draw."""

    def key(side: int) -> tuple[int, int, int]:
        p = state.players[side]
        units = [p.available, *(state.garrison[n - 1] for n in owned_squares(state, side))]
        return (
            territory_count(data, state, side),
            fm.army_power(units, data.powers),
            p.money,
        )

    a, b = key(0), key(1)
    winner = None if a == b else (0 if a > b else 1)
    declare(state, winner, "turn_limit", events)


def check_end(data: AvaData, state: AvaState, events: list[Event]) -> None:
    """AVA-127..AVA-129 after every change (the jail condition is checked at the jailing)."""
    if state.result is not None:
        return
    if state.options["main_end_condition"] == "sudden_death":
        if state.owner[data.by_ref["uk"] - 1] == 1:
            declare(state, 1, "sudden_death", events)
        elif state.owner[data.by_ref["germany"] - 1] == 0:
            declare(state, 0, "sudden_death", events)
        return
    bases = state.options["conquest_counts_bases"]
    for side in (0, 1):
        if territory_count(data, state, side, bases) == 0:
            declare(state, 1 - side, "conquest", events)
            return


# --- the commands ---------------------------------------------------------------------------


def cmd_spin(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """AVA-44/45, AVA-15: a clean 1..6 moves the token; then the S5 offer or S6."""
    if state.step != SPIN:
        raise fail("E_WRONG_STEP", "You can only spin at the start of your turn, once.")
    value = cmd.args.get("value")
    p = state.me
    if value is None:
        if not (state.options["ai_virtual_spin"] and p.controller != "human"):
            raise fail("E_SPIN_INVALID", "Spin the spinner: the reading must be 1 to 6.")
        value = chance_rng(state, cmd).randint(1, 6)
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6:
        raise fail("E_SPIN_INVALID", "The spinner reading was not a clean 1 to 6: spin again.")
    p.position = (p.position - 1 + value) % 36 + 1
    state.spin_value = value
    state.spin_square = p.position
    events.append(Event("spun", {"side": p.side, "value": value, "square": p.position}))
    if p.money >= fm.strategic_cost(p.strategic_moves_used, 1):
        state.step = OFFER
        state.offer = "open"
        state.offer_at = cmd.at
        events.append(
            Event(
                "strategic_move_offered",
                {
                    "side": p.side,
                    "cost_1": fm.strategic_cost(p.strategic_moves_used, 1),
                    "at": cmd.at,
                    "window_s": window_s(state),
                },
            )
        )
    else:
        enter_resolution(data, state, cmd, events)


def _not_in_offer(state: AvaState) -> IllegalMove:
    if state.offer == "taken":
        return fail("E_STRATEGIC_MOVE_USED", "You have already used your strategic move this turn.")
    if state.offer == "declined":
        return fail("E_WINDOW_CLOSED", "The strategic move offer is closed for this turn.")
    return fail("E_WRONG_STEP", "A strategic move can only be bought right after your move.")


def cmd_strategic_move(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """AVA-48..AVA-53: one move per turn, inside the window, paid to the bank."""
    if state.step != OFFER:
        raise _not_in_offer(state)
    deadline = offer_deadline(state)
    if deadline is not None and cmd.at is not None and cmd.at > deadline:
        raise fail("E_WINDOW_CLOSED", "Too late: the strategic move window has closed.")
    direction = cmd.args.get("direction")
    steps = cmd.args.get("steps")
    if direction not in ("forward", "back") or steps not in (1, 2) or isinstance(steps, bool):
        raise fail("E_BAD_REQUEST", "A strategic move is forward or back, by 1 or 2 squares.")
    p = state.me
    cost = fm.strategic_cost(p.strategic_moves_used, steps)
    if p.money < cost:
        raise fail(
            "E_NOT_ENOUGH_MONEY", f"This strategic move costs $M {cost}; you have $M {p.money}."
        )
    p.money -= cost
    p.strategic_moves_used += 1
    delta = steps if direction == "forward" else -steps
    p.position = (p.position - 1 + delta) % 36 + 1
    state.offer = "taken"
    events.append(
        Event(
            "strategic_move",
            {
                "side": p.side,
                "direction": direction,
                "steps": steps,
                "cost": cost,
                "square": p.position,
            },
        )
    )
    enter_resolution(data, state, cmd, events)


def cmd_decline_move(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """AVA-50: declining (or the session's timeout) closes the offer and goes on to S6."""
    if state.step != OFFER:
        raise fail("E_WRONG_STEP", "There is no strategic move offer to decline.")
    state.offer = "declined"
    events.append(Event("strategic_move_declined", {"side": state.me.side}))
    enter_resolution(data, state, cmd, events)


def chance_rng(state: AvaState, cmd: Command) -> random.Random:
    """The command's logged seed, or (simulation without a session) one derived from the game."""
    if cmd.seed is not None:
        return random.Random(cmd.seed)
    return random.Random(f"ava:{state.seed}:{state.draws}:{state.turns_played}")


def enter_resolution(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """S6 begins with what happens by itself (AVA-56): card draws and the automatic penalty."""
    p = state.me
    n = p.position
    state.landed_square = n
    state.step = RESOLVE
    sq = data.square(n)
    events.append(Event("landed", {"side": p.side, "square": n, "type": sq.type}))
    if sq.type in ("fortune", "strategy"):
        card = deck.draw(data, state, sq.type, chance_rng(state, cmd))
        if card is None:
            events.append(Event("deck_empty", {"deck": sq.type}))
            return
        state.last_card = card.id
        events.append(Event("card_drawn", {"side": p.side, "card": card.id, "kept": card.kept}))
        if card.kept:
            p.kept_cards = (*p.kept_cards, card.id)
        else:
            deck.apply_immediate(data, state, card, events)
            deck.retire(data, state, card.id)
    elif (
        sq.type == "territory"
        and state.owner[n - 1] == 1 - state.current
        and state.options["penalty_before_invasion"]
    ):
        state.auto_penalty = True
        take_penalty(data, state, events)


def take_penalty(data: AvaData, state: AvaState, events: list[Event]) -> None:
    """AVA-70..AVA-73, AVA-99, AVA-100: remove units worth the penalty power; maybe jail."""
    p = state.me
    n = state.landed_square
    assert n is not None
    sq = data.square(n)
    opt = state.options
    pp = fm.penalty_power(square_dp(data, state, n), state.penalty_pct, opt["penalty_rounding"])
    ships = sq.seaport or opt["penalty_battleships_anywhere"]
    if opt["penalty_removal"] == "min_overshoot":
        removed, power = fm.removal_min_overshoot(p.available, pp, ships, data.powers)
    else:
        removed, power = fm.removal_weakest_first(p.available, pp, ships, data.powers)
    p.available = fm.sub(p.available, removed)
    from_garrisons: list[dict[str, Any]] = []
    if opt["penalty_from_garrisons"] and power < pp:
        for m in owned_squares(state, state.current):
            if power >= pp:
                break
            if data.square(m).type != "territory":
                continue
            took, pw = fm.removal_weakest_first(
                state.garrison[m - 1], pp - power, ships, data.powers
            )
            if pw:
                set_garrison(state, m, fm.sub(state.garrison[m - 1], took))
                power += pw
                from_garrisons.append({"square": m, "units": list(took)})
    events.append(
        Event(
            "penalty",
            {
                "side": p.side,
                "square": n,
                "penalty_power": pp,
                "removed": list(removed),
                "removed_power": power,
                "from_garrisons": from_garrisons,
            },
        )
    )
    jailed = pp > 0 and sum(p.available) == 0
    if opt["jail_on_unpaid_penalty"] and power < pp:
        jailed = True
    if jailed:
        jail(data, state, events)
    elif state.step == RESOLVE and not state.auto_penalty:
        state.step = BUILD


def jail(data: AvaData, state: AvaState, events: list[Event]) -> None:
    """AVA-103, AVA-130: count the jailing; lose at the limit, else jailed and the turn ends."""
    p = state.me
    p.jail_count += 1
    events.append(
        Event(
            "jailed",
            {"side": p.side, "jail_count": p.jail_count, "ransom": fm.ransom(p.jail_count)},
        )
    )
    if p.jail_count >= state.options["jail_limit"]:
        declare(state, 1 - state.current, "jail", events)
        return
    p.jailed = True
    if state.options["ransom_payable_immediately"]:
        state.step = JAIL_OFFER
    else:
        finish_turn(data, state, events)


def cmd_pay_ransom(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """AVA-104, AVA-105, AVA-107: pay R to the opponent and go on (or end at once)."""
    p = state.me
    if not p.jailed:
        raise fail("E_NOT_JAILED", "You are not in jail, so there is no ransom to pay.")
    if state.step not in (JAIL, JAIL_OFFER):
        raise fail("E_WRONG_STEP", "The ransom is paid at the start of your turn.")
    r = fm.ransom(p.jail_count)
    if p.money < r:
        raise fail("E_NOT_ENOUGH_MONEY", f"The ransom is $M {r}; you have $M {p.money}.")
    p.money -= r
    state.them.money += r
    p.jailed = False
    events.append(Event("ransom_paid", {"side": p.side, "amount": r}))
    if state.step == JAIL:
        state.step = SPIN
    else:
        finish_turn(data, state, events)


def cmd_end_turn(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """AVA-36: in S7; in S6 as a pass when nothing mandatory is pending; in S2 when jailed."""
    if state.step in (SPIN, OFFER):
        raise fail("E_WRONG_STEP", "You must spin and move before ending your turn.")
    if state.step == RESOLVE:
        if mandatory_pending(data, state):
            raise fail("E_RESOLUTION_PENDING", "You must resolve the square you landed on first.")
        events.append(Event("passed", {"side": state.me.side, "square": state.landed_square}))
    finish_turn(data, state, events)


def _resolution_square(data: AvaData, state: AvaState) -> tuple[int, Square, int | None]:
    if state.step != RESOLVE:
        raise fail("E_WRONG_STEP", "The square you landed on has already been resolved this turn.")
    n = state.landed_square
    assert n is not None
    return n, data.square(n), state.owner[n - 1]


def _not_here(what: str) -> IllegalMove:
    return fail("E_OPTION_NOT_AVAILABLE", f"You cannot {what} on this square.")


def end_resolution(state: AvaState) -> None:
    if state.step == RESOLVE:
        state.step = BUILD


def cmd_invade(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """AVA-58..AVA-60 (neutral, infantry only) and AVA-67..AVA-69 (enemy)."""
    n, sq, owner = _resolution_square(data, state)
    if sq.type == "secret":
        raise fail("E_SECRET_NOT_INVADABLE", "Secret territories cannot be invaded by armies.")
    if sq.type == "special":
        raise fail("E_SPECIAL_NOT_INVADABLE", "Special territories cannot be invaded.")
    me = state.current
    if sq.type != "territory" or owner == me:
        raise _not_here("invade")
    units = units_arg(cmd.args)
    p = state.me
    if owner is None:
        if units[1] or units[2] or units[3]:
            raise fail("E_NEUTRAL_INFANTRY_ONLY", "Only infantry may invade a neutral territory.")
        if units[0] == 0:
            raise fail("E_NO_UNITS_SELECTED", "Choose at least one infantry to invade with.")
        if units[0] > p.available[0]:
            raise fail("E_UNITS_NOT_AVAILABLE", "You do not have that many infantry available.")
        if units[0] < sq.neutral_garrison:
            raise fail(
                "E_INVASION_TOO_WEAK",
                f"{sq.name_en} has a neutral garrison of {sq.neutral_garrison}: "
                "send at least that many infantry.",
            )
        ip = units[0]
    else:
        if units[3] and not sq.seaport:
            raise fail(
                "E_BATTLESHIP_NO_SEAPORT", "Battleships can only attack a territory with a seaport."
            )
        if sum(units) == 0:
            raise fail("E_NO_UNITS_SELECTED", "Choose at least one unit to invade with.")
        if any(u > a for u, a in zip(units, p.available, strict=True)):
            raise fail("E_UNITS_NOT_AVAILABLE", "You do not have that many units available.")
        ip = fm.invasion_power(units, sq.seaport, data.powers)
        dp = square_dp(data, state, n)
        if ip < dp:
            raise fail(
                "E_INVASION_TOO_WEAK",
                f"Invasion power {ip} is below the defence power {dp} of {sq.name_en}.",
            )
    p.available = fm.sub(p.available, units)
    set_garrison(state, n, fm.NO_UNITS)
    set_owner(state, n, me)
    events.append(
        Event(
            "invaded",
            {
                "side": p.side,
                "square": n,
                "units": list(units),
                "power": ip,
                "from": None if owner is None else side_name(owner),
            },
        )
    )
    end_resolution(state)
    check_end(data, state, events)


def cmd_treaty(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """AVA-61, AVA-62: pay the treaty cost and take the neutral territory."""
    n, sq, owner = _resolution_square(data, state)
    if sq.type == "territory" and owner is not None:
        raise fail("E_ALREADY_OWNED", "A treaty can only be signed with a neutral territory.")
    if sq.type != "territory":
        raise _not_here("sign a treaty")
    p = state.me
    cost = treaty_price(data, state, n)
    if p.money < cost:
        raise fail("E_NOT_ENOUGH_MONEY", f"The treaty costs $M {cost}; you have $M {p.money}.")
    p.money -= cost
    p.treaties_signed += 1
    set_owner(state, n, state.current)
    set_garrison(state, n, fm.NO_UNITS)
    events.append(Event("treaty", {"side": p.side, "square": n, "cost": cost}))
    end_resolution(state)


def cmd_build_base(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """AVA-76, AVA-80: a base on a neutral secret square for $M 500."""
    n, sq, owner = _resolution_square(data, state)
    if sq.type == "secret" and owner is not None:
        raise fail("E_ALREADY_OWNED", "This secret territory already has a base.")
    if sq.type != "secret":
        raise _not_here("build a secret base")
    p = state.me
    if p.money < 500:
        raise fail("E_NOT_ENOUGH_MONEY", f"A secret base costs $M 500; you have $M {p.money}.")
    p.money -= 500
    set_owner(state, n, state.current)
    events.append(Event("base_built", {"side": p.side, "square": n, "cost": 500}))
    end_resolution(state)


def cmd_ally(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """AVA-82..AVA-84: ally with one's own natural ally for $M 2000."""
    n, sq, owner = _resolution_square(data, state)
    if sq.type == "special" and owner is not None:
        raise fail("E_ALREADY_OWNED", f"{sq.name_en} is already allied with a side.")
    if sq.type != "special":
        raise _not_here("make an alliance")
    p = state.me
    if sq.natural_side != p.side:
        raise fail(
            "E_NOT_NATURAL_ALLY",
            f"{sq.name_en} is not your natural ally; only the Defection card wins it.",
        )
    if p.money < 2000:
        raise fail("E_NOT_ENOUGH_MONEY", f"An alliance costs $M 2000; you have $M {p.money}.")
    p.money -= 2000
    set_owner(state, n, state.current)
    events.append(Event("allied", {"side": p.side, "square": n, "cost": 2000}))
    end_resolution(state)


def cmd_penalty(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """AVA-70: take the penalty on an enemy territory instead of invading."""
    _, sq, owner = _resolution_square(data, state)
    if sq.type != "territory" or owner != 1 - state.current or state.auto_penalty:
        raise _not_here("take a penalty")
    take_penalty(data, state, events)


def cmd_pass(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """AVA-56, AVA-57, AVA-66: decline what the square offers and go on to S7."""
    n, sq, owner = _resolution_square(data, state)
    if sq.type == "territory" and owner == 1 - state.current and not state.auto_penalty:
        raise fail(
            "E_OPTION_NOT_AVAILABLE", "On an enemy territory you must invade or take the penalty."
        )
    if mandatory_pending(data, state):
        raise fail(
            "E_OPTION_NOT_AVAILABLE",
            "You must invade or sign a treaty here (neutral territories must be resolved).",
        )
    events.append(Event("passed", {"side": state.me.side, "square": n}))
    end_resolution(state)


def cmd_recruit(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """AVA-88, AVA-89: buy units within money and the per-turn limits."""
    allowed = state.step == BUILD or (
        state.step == RESOLVE and state.options["recruit_before_resolution"]
    )
    if not allowed:
        raise fail("E_WRONG_STEP", "You can only recruit after moving and resolving your square.")
    units = units_arg(cmd.args)
    if sum(units) == 0:
        raise fail("E_NO_UNITS_SELECTED", "Choose at least one unit to recruit.")
    p = state.me
    cost = fm.raw_power(units, data.costs)
    if p.money < cost:
        raise fail("E_NOT_ENOUGH_MONEY", f"These units cost $M {cost}; you have $M {p.money}.")
    total = fm.add(p.recruited_this_turn, units)
    for k, u in enumerate(data.units):
        if total[k] > u.recruit_limit:
            raise fail(
                "E_RECRUIT_LIMIT",
                f"At most {u.recruit_limit} {u.name_en.lower()} may be recruited per turn.",
            )
    p.money -= cost
    p.available = fm.add(p.available, units)
    p.recruited_this_turn = total
    events.append(Event("recruited", {"side": p.side, "units": list(units), "cost": cost}))


def _build_checks(data: AvaData, state: AvaState, n: int, units: fm.Units) -> Square:
    """AVA-91 in its order (plus AVA-94's option)."""
    sq = data.square(n)
    if sq.type != "territory":
        raise fail("E_NO_GARRISON_HERE", "Units can only be placed on territories.")
    if n != state.landed_square:
        raise fail(
            "E_NOT_LANDED_TERRITORY",
            "You can only build defences on the territory you landed on this turn.",
        )
    if state.owner[n - 1] != state.current:
        raise fail("E_NOT_OWN_TERRITORY", "You can only build defences on your own territory.")
    if units[3] and not sq.seaport:
        raise fail(
            "E_BATTLESHIP_NO_SEAPORT", "Battleships can only defend a territory with a seaport."
        )
    return sq


def cmd_garrison(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """AVA-90..AVA-94: move available units into the landed own territory's garrison."""
    if state.step != BUILD:
        raise fail("E_WRONG_STEP", "Defences are built after you have moved and resolved.")
    n = square_arg(cmd.args)
    units = units_arg(cmd.args)
    _build_checks(data, state, n, units)
    p = state.me
    if state.options["no_rebuild_same_square"] and n == p.last_garrison_square:
        raise fail("E_WRONG_STEP", "You built on this territory last turn (house rule).")
    if any(u > a for u, a in zip(units, p.available, strict=True)):
        raise fail("E_UNITS_NOT_AVAILABLE", "You do not have that many units available.")
    if sum(units) == 0:
        raise fail("E_NO_UNITS_SELECTED", "Choose at least one unit to place.")
    p.available = fm.sub(p.available, units)
    set_garrison(state, n, fm.add(state.garrison[n - 1], units))
    p.garrisoned_this_turn = n
    events.append(Event("garrisoned", {"side": p.side, "square": n, "units": list(units)}))


def cmd_withdraw(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """AVA-93: garrisons are permanent unless ``allow_garrison_withdrawal``."""
    if not state.options["allow_garrison_withdrawal"]:
        raise fail("E_GARRISON_PERMANENT", "Garrisoned units stay on their territory.")
    if state.step != BUILD:
        raise fail("E_WRONG_STEP", "Units can only be withdrawn while building, after resolving.")
    n = square_arg(cmd.args)
    units = units_arg(cmd.args)
    _build_checks(data, state, n, units)
    if any(u > g for u, g in zip(units, state.garrison[n - 1], strict=True)):
        raise fail("E_UNITS_NOT_AVAILABLE", "The garrison does not hold that many units.")
    if sum(units) == 0:
        raise fail("E_NO_UNITS_SELECTED", "Choose at least one unit to withdraw.")
    p = state.me
    set_garrison(state, n, fm.sub(state.garrison[n - 1], units))
    p.available = fm.add(p.available, units)
    events.append(Event("withdrawn", {"side": p.side, "square": n, "units": list(units)}))


def _card_step_check(state: AvaState, what: str) -> None:
    if state.step not in CARD_STEPS:
        raise fail(
            "E_WRONG_STEP",
            f"You cannot {what} now (only after your ransom step, "
            "not during the strategic move offer).",
        )


def card_target_ok(data: AvaData, state: AvaState, card_id: str, target: int | None) -> str | None:
    """Why a held card cannot be used now (None if it can) — AVA-119..AVA-125."""
    card = data.cards[card_id]
    opp = 1 - state.current
    n = state.landed_square
    if card.kind == "spy":
        if n is None or data.square(n).type != "secret" or state.owner[n - 1] != opp:
            return "The Spy works only on the opponent's secret base you landed on."
        return None
    if card.kind == "free_secret_base":
        if n is None or data.square(n).type != "secret" or state.owner[n - 1] is not None:
            return "Secret Blueprint works only on a neutral secret territory you landed on."
        return None
    if card.kind == "defection":
        if (
            n is None
            or data.square(n).type != "special"
            or data.square(n).natural_side == state.me.side
            or state.owner[n - 1] is not None
        ):
            return "Defection works only on the other side's unowned natural ally you landed on."
        return None
    if card.kind == "skip_collection":
        if state.them.skip_next_collection:
            return "The opponent already skips his next collection."
        return None
    if target is None:
        return "This card needs a target square."
    sq = data.square(target)
    if card.kind == "destroy_garrison_type":
        if sq.type != "territory" or state.owner[target - 1] != opp:
            return f"{card.name_en} must target a territory owned by the opponent."
        if card.params.get("seaport_required") and not sq.seaport:
            return f"{card.name_en} must target a territory with a seaport."
        return None
    if card.kind == "isolationism":
        if sq.type != "special" or state.owner[target - 1] != opp:
            return "Isolationism must target a special territory owned by the opponent."
        return None
    return "This card cannot be used."


def cmd_use_card(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """AVA-116, AVA-119..AVA-125: a kept card in its window, held, with its precondition."""
    _card_step_check(state, "use a card")
    card_id = cmd.args.get("card")
    card = data.cards.get(card_id) if isinstance(card_id, str) else None
    p = state.me
    if card is None or not card.kept:
        raise fail("E_CARD_NOT_HELD", f"You do not hold a card '{card_id}' that can be used.")
    if card.kind in S6_CARD_KINDS and state.step != RESOLVE:
        raise fail(
            "E_WRONG_STEP", f"{card.name_en} is used while resolving the square you landed on."
        )
    if card.id not in p.kept_cards:
        raise fail("E_CARD_NOT_HELD", f"You do not hold {card.name_en}.")
    target = cmd.args.get("target")
    if target is not None:
        target = square_arg(cmd.args, "target")
        if card.kind not in TARGET_CARD_KINDS:
            raise fail("E_CARD_PRECONDITION", f"{card.name_en} takes no target square.")
    why = card_target_ok(data, state, card.id, target)
    if why:
        raise fail("E_CARD_PRECONDITION", why)
    if card.kind == "defection" and p.money < card.params["cost"]:
        raise fail(
            "E_NOT_ENOUGH_MONEY",
            f"Defection costs $M {card.params['cost']}; you have $M {p.money}.",
        )
    kept = list(p.kept_cards)
    kept.remove(card.id)
    p.kept_cards = tuple(kept)
    deck.retire(data, state, card.id)
    info: dict[str, Any] = {"side": p.side, "card": card.id}
    n = state.landed_square
    if card.kind == "spy":
        assert n is not None
        set_owner(state, n, None)
        state.spy_used = True
        info["square"] = n
    elif card.kind == "free_secret_base":
        assert n is not None
        set_owner(state, n, state.current)
        info["square"] = n
        end_resolution(state)
    elif card.kind == "defection":
        assert n is not None
        p.money -= card.params["cost"]
        set_owner(state, n, state.current)
        info["square"] = n
        end_resolution(state)
    elif card.kind == "skip_collection":
        state.them.skip_next_collection = True
    elif card.kind == "destroy_garrison_type":
        assert target is not None
        k = UNIT_TYPES.index(card.params["unit"])
        g = list(state.garrison[target - 1])
        info["destroyed"] = g[k]
        g[k] = 0
        set_garrison(state, target, (g[0], g[1], g[2], g[3]))
        info["square"] = target
    elif card.kind == "isolationism":
        assert target is not None
        set_owner(state, target, None)
        info["square"] = target
    events.append(Event("card_used", info))
    check_end(data, state, events)


def cmd_discard(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """AVA-126: the Double Agent discard a human chooses."""
    if not state.discard_owed:
        raise fail("E_WRONG_STEP", "No card discard is owed now.")
    card_id = cmd.args.get("card")
    p = state.me
    if not isinstance(card_id, str) or card_id not in p.kept_cards:
        raise fail("E_CARD_NOT_HELD", f"You do not hold a card '{card_id}'.")
    kept = list(p.kept_cards)
    kept.remove(card_id)
    p.kept_cards = tuple(kept)
    state.discard_owed = False
    deck.retire(data, state, card_id)
    events.append(Event("card_discarded", {"side": p.side, "card": card_id}))


def cmd_nuke(data: AvaData, state: AvaState, cmd: Command, events: list[Event]) -> None:
    """AVA-158: the Battleship AI's one nuke wipes an enemy territory's garrison."""
    _card_step_check(state, "use the nuke")
    p = state.me
    if p.nukes <= 0:
        raise fail("E_NO_NUKE", "You have no nuke.")
    target = square_arg(cmd.args, "target")
    if data.square(target).type != "territory" or state.owner[target - 1] != 1 - state.current:
        raise fail("E_CARD_PRECONDITION", "The nuke must target a territory owned by the opponent.")
    set_garrison(state, target, fm.NO_UNITS)
    p.nukes -= 1
    events.append(Event("nuked", {"side": p.side, "square": target}))


HANDLERS: dict[str, Handler] = {
    "spin": cmd_spin,
    "strategic_move": cmd_strategic_move,
    "decline_move": cmd_decline_move,
    "invade": cmd_invade,
    "treaty": cmd_treaty,
    "build_base": cmd_build_base,
    "ally": cmd_ally,
    "penalty": cmd_penalty,
    "pass": cmd_pass,
    "recruit": cmd_recruit,
    "garrison": cmd_garrison,
    "withdraw": cmd_withdraw,
    "use_card": cmd_use_card,
    "discard": cmd_discard,
    "nuke": cmd_nuke,
    "pay_ransom": cmd_pay_ransom,
    "end_turn": cmd_end_turn,
}


UNIT_ARGS = frozenset(UNIT_TYPES)
ARGS: dict[str, frozenset[str]] = {
    "spin": frozenset({"value"}),
    "strategic_move": frozenset({"direction", "steps"}),
    "invade": UNIT_ARGS,
    "recruit": UNIT_ARGS,
    "garrison": UNIT_ARGS | {"square"},
    "withdraw": UNIT_ARGS | {"square"},
    "use_card": frozenset({"card", "target"}),
    "discard": frozenset({"card"}),
    "nuke": frozenset({"target"}),
}


def apply(state: AvaState, cmd: Command) -> tuple[AvaState, list[Event]]:
    """AVA-2: one code per rejected request, the state untouched; else a new state + events."""
    handler = HANDLERS.get(cmd.name)
    if handler is None:
        raise fail("E_BAD_REQUEST", f"Unknown command '{cmd.name}'.")
    unknown = set(cmd.args) - ARGS.get(cmd.name, frozenset())
    if unknown:
        names = ", ".join(sorted(map(str, unknown)))
        raise fail("E_BAD_REQUEST", f"'{cmd.name}' takes no argument named {names}.")
    if state.result is not None:
        raise fail("E_GAME_OVER", "The game is over.")
    p = state.me
    if cmd.seat != p.seat:
        raise fail("E_NOT_YOUR_TURN", f"It is the {p.side.capitalize()}' turn.")
    if p.jailed and state.step in (JAIL, JAIL_OFFER) and cmd.name not in ("pay_ransom", "end_turn"):
        raise fail("E_JAILED", "You are in jail: pay the ransom or end your turn.")
    if state.discard_owed and cmd.name != "discard":
        raise fail("E_RESOLUTION_PENDING", "Discard one of your kept cards first (Double Agent).")
    data = data_for(state.data_dir)
    new = state.clone()
    events: list[Event] = []
    handler(data, new, cmd, events)
    check_end(data, new, events)
    return new, events
