"""``apply``: the general checks of CPX-9 in their order, then the request's own rule.

The state given is cloned first and only the clone changes, so a refused request leaves the
caller's state exactly as it was; conservation (CPX-110) is checked after every accepted one.
"""

from __future__ import annotations

from typing import Any

from companion.engine import Command, Event

from . import abilities, battle, flow, moves
from .ctx import Ctx, fail
from .data import GameData
from .ledger import check_conservation
from .legal import has_activation
from .shape import normalise
from .state import OVER, State

PLAYER_COMMANDS = frozenset(
    {
        "choose_start",
        "choose_hand",
        "recruit",
        "attack",
        "retreat",
        "end_move",
        "activate",
        "pass",
        "smoke_discard",
        "choose_units",
    }
)
TABLE_COMMANDS = frozenset({"report_drop", "confirm_drop"})
PROMPT_ANSWERS = frozenset({"choose_units", "smoke_discard"})


def apply(
    data: GameData, state: State, command: Command, auto: bool = True
) -> tuple[State, list[Event]]:
    """One request; ``auto=False`` skips automatic passes (used when testing activations)."""
    s0 = state
    name = command.name
    if name == "setup":
        fail("E_WRONG_PHASE", "Settings are chosen at setup and cannot change during a game.")
    if name not in PLAYER_COMMANDS | TABLE_COMMANDS:
        fail("E_BAD_REQUEST", f"Command Post Exercise has no request '{name}'.")
    if s0.phase == OVER:
        fail("E_GAME_OVER", "The game is over.")
    seat = command.seat
    if seat is not None and not 0 <= seat < len(s0.players):
        fail("E_BAD_REQUEST", f"There is no seat {seat}.")
    if name in PLAYER_COMMANDS and seat is None:
        fail("E_BAD_REQUEST", f"'{name}' must come from a player's seat.")
    if name in TABLE_COMMANDS and seat is not None:
        fail("E_BAD_REQUEST", f"'{name}' comes from the table (the tower or a person), not a seat.")
    if seat is not None and s0.players[seat]["out"]:
        fail("E_PLAYER_OUT", "You are out of the game.")
    if s0.prompt is not None and name != s0.prompt["kind"]:
        fail("E_RESOLUTION_PENDING", "A question must be answered first.")
    if s0.prompt is None and name in PROMPT_ANSWERS:
        fail("E_WRONG_PHASE", "Nothing is being asked now.")
    if s0.stack and name not in ("activate", "pass") and s0.prompt is None:
        fail("E_RESOLUTION_PENDING", "Pending card abilities must be resolved first.")
    ctx = Ctx(data, state.clone())
    args: dict[str, Any] = dict(normalise(ctx, command).args)
    _dispatch(ctx, name, seat, args)
    ctx.s.commands += 1
    if auto:
        auto_pass(ctx)
    check_conservation(ctx)
    return ctx.s, ctx.events


def _dispatch(ctx: Ctx, name: str, seat: int | None, args: dict[str, Any]) -> None:
    if name == "report_drop":
        battle.report_drop(ctx, args.get("counts", {}), args.get("source"))
        return
    if name == "confirm_drop":
        battle.confirm_drop(ctx)
        return
    assert seat is not None
    if name == "choose_start":
        flow.choose_start(ctx, seat, args.get("base"))
    elif name == "choose_hand":
        flow.choose_hand(ctx, seat, args.get("cards"))
    elif name == "recruit":
        if ctx.s.phase == flow.HAND_CHOICE:
            fail("E_WRONG_PHASE", "Recruitment starts once every hand has been chosen.")
        flow.recruit(ctx, seat, args.get("base"))
    elif name == "attack":
        moves.attack(ctx, seat, args)
    elif name == "retreat":
        moves.retreat(ctx, seat, args)
    elif name == "end_move":
        moves.end_move(ctx, seat)
    elif name == "activate":
        abilities.activate(ctx, seat, args)
    elif name == "pass":
        abilities.pass_(ctx, seat)
    elif name == "smoke_discard":
        abilities.smoke_discard(ctx, seat, args.get("card"))
    elif name == "choose_units":
        battle.choose_units(ctx, seat, args.get("mix"))


def auto_pass(ctx: Ctx) -> None:
    """CPX-74 option ``auto_pass``: pass for players with no card they could activate now."""
    s = ctx.s
    if not s.options["auto_pass"]:
        return
    for _ in range(64):
        if s.prompt is not None or s.phase == OVER:
            return
        eligible = abilities.pass_eligible(ctx)
        waiting = [i for i in eligible if i not in s.passes]
        idle = [i for i in waiting if not has_activation(ctx, i)]
        if not idle:
            return
        for seat in idle:
            if seat in abilities.pass_eligible(ctx) and seat not in s.passes:
                s.passes.append(seat)
                ctx.emit("passed", seat=seat, automatic=True)
        if set(abilities.pass_eligible(ctx)) <= set(s.passes):
            abilities.after_all_passed(ctx)
