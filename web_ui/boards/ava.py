"""The Allies vs Axis table for people: the 36-square ring, both players' panels, the recruit
poster, and each legal command's label, in the tablet's language."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flask_babel import get_locale, gettext

from companion.engine import Command, CountForm, Game
from companion.games.ava import formulas as fm
from companion.games.ava import rules
from companion.games.ava.data import UNIT_TYPES, AvaData
from companion.games.ava.setup import data_for
from companion.games.ava.state import BUILD, JAIL, JAIL_OFFER, OFFER, RESOLVE, SPIN, AvaState


def chinese() -> bool:
    return str(get_locale() or "en").startswith("zh")


def named(thing: Any) -> str:
    return thing.name_zh if chinese() else thing.name_en


def ring_cell(n: int) -> tuple[int, int]:
    """(row, column) on a 10×10 grid: square 1 bottom-left, clockwise (AVA-6)."""
    if n <= 10:
        return 11 - n, 1
    if n <= 19:
        return 1, n - 9
    if n <= 28:
        return n - 18, 10
    return 10, 38 - n


def side_label(side: int) -> str:
    return (gettext("Allies"), gettext("Axis"))[side]


def unit_names() -> dict[str, str]:
    return {"I": gettext("Infantry"), "T": gettext("Tanks"), "P": gettext("Planes"),
            "B": gettext("Battleships")}


def step_label(state: AvaState) -> str:
    if state.result is not None:
        return gettext("Game over")
    return {
        JAIL: gettext("In jail"),
        JAIL_OFFER: gettext("In jail"),
        SPIN: gettext("Spin"),
        OFFER: gettext("Strategic move offer"),
        RESOLVE: gettext("Resolve the square"),
        BUILD: gettext("Recruit and build defences"),
    }.get(state.step, state.step)


def square_view(data: AvaData, state: AvaState, n: int) -> dict[str, Any]:
    sq = data.square(n)
    owner = state.owner[n - 1]
    row, col = ring_cell(n)
    garrison = state.garrison[n - 1]
    return {
        "n": n,
        "row": row,
        "col": col,
        "type": sq.type,
        "name": named(sq),
        "owner": None if owner is None else ("allies", "axis")[owner],
        "owner_label": side_label(owner) if owner is not None else gettext("Neutral"),
        "dp": rules.square_dp(data, state, n) if sq.type == "territory" else None,
        "garrison": dict(zip(UNIT_TYPES, garrison, strict=True)) if sum(garrison) else None,
        "seaport": sq.seaport,
        "pieces": [("allies", "axis")[i] for i, p in enumerate(state.players) if p.position == n],
        "landed": n == state.landed_square,
    }


def view(game: Game, state: AvaState, *, legal: Sequence[Command] | None = None,
         forms: Sequence[CountForm] | None = None) -> dict[str, Any]:
    """The ring, the players and the poster; it draws nothing from the legal commands or the
    count forms (``boards.Viewer`` hands them to every game's view)."""
    data = data_for(state.data_dir)
    players = []
    for side, p in enumerate(state.players):
        players.append({
            "side": ("allies", "axis")[side],
            "label": side_label(side),
            "current": side == state.current and state.result is None,
            "money": p.money,
            "available": dict(zip(UNIT_TYPES, p.available, strict=True)),
            "territories": rules.territory_count(data, state, side),
            "treaties": p.treaties_signed,
            "strategic": p.strategic_moves_used,
            "jail_count": p.jail_count,
            "jail_limit": state.options["jail_limit"],
            "jailed": p.jailed,
            "cards": [named(data.cards[c]) for c in p.kept_cards],
            "nukes": p.nukes,
            "position": named(data.square(p.position)),
        })
    room = fm.sub(data.limits, state.me.recruited_this_turn)
    poster = [
        {"id": u.id, "name": named(u), "cost": u.cost, "power": u.power,
         "limit": u.recruit_limit, "left": room[k]}
        for k, u in enumerate(data.units)
    ]
    landed = state.landed_square
    return {
        "squares": [square_view(data, state, n) for n in range(1, 37)],
        "players": players,
        "poster": poster,
        "count_names": unit_names(),
        "round": state.round,
        "step": step_label(state),
        "current": side_label(state.current),
        "spin": state.spin_value,
        "landed": named(data.square(landed)) if landed else None,
        "last_card": named(data.cards[state.last_card]) if state.last_card else None,
    }


def label(game: Game, state: AvaState, command: Command) -> str:
    """A button's words: what the command does, with its price where it has one."""
    data = data_for(state.data_dir)
    args = command.args
    p = state.me
    here = state.landed_square

    def square_name(key: str = "square") -> str:
        n = args.get(key, here)
        return named(data.square(n)) if isinstance(n, int) and 1 <= n <= 36 else "?"

    name = command.name
    if name == "spin":
        if "value" in args:
            return gettext("Spin: %(value)s", value=args["value"])
        return gettext("Spin for me")
    if name == "strategic_move":
        steps = args.get("steps", 1)
        cost = fm.strategic_cost(p.strategic_moves_used, steps)
        if args.get("direction") == "back":
            return gettext("Move %(steps)s back ($M %(cost)s)", steps=steps, cost=cost)
        return gettext("Move %(steps)s forward ($M %(cost)s)", steps=steps, cost=cost)
    if name == "use_card":
        card = named(data.cards[args["card"]]) if args.get("card") in data.cards else "?"
        if "target" in args:
            return gettext("Play %(card)s on %(square)s", card=card, square=square_name("target"))
        return gettext("Play %(card)s", card=card)
    if name == "discard":
        card = named(data.cards[args["card"]]) if args.get("card") in data.cards else "?"
        return gettext("Discard %(card)s", card=card)
    if name == "nuke":
        return gettext("Nuke %(square)s", square=square_name("target"))
    if name == "treaty" and here:
        return gettext("Sign a treaty ($M %(cost)s)", cost=rules.treaty_price(data, state, here))
    if name == "pay_ransom":
        return gettext("Pay the ransom ($M %(cost)s)", cost=fm.ransom(p.jail_count))
    fixed = {
        "decline_move": gettext("No strategic move"),
        "build_base": gettext("Build a secret base ($M 500)"),
        "ally": gettext("Ally with %(square)s ($M 2000)", square=square_name()),
        "penalty": gettext("Take the penalty"),
        "pass": gettext("Pass"),
        "end_turn": gettext("End turn"),
        "recruit": gettext("Recruit"),
        "invade": gettext("Invade %(square)s", square=square_name()),
        "garrison": gettext("Build defences on %(square)s", square=square_name()),
        "withdraw": gettext("Withdraw from %(square)s", square=square_name()),
    }
    return fixed.get(name, name)


def units_words(args: Any) -> str:
    names = unit_names()
    parts = [f"{args[k]} {names[k]}" for k in UNIT_TYPES if args.get(k)]
    return ", ".join(parts) if parts else gettext("no units")


def instruction(game: Game, state: AvaState, command: Command) -> str:
    """What a person does on the board to carry out an AI's move (``Game.instructions``), in
    the tablet's language."""
    data = data_for(state.data_dir)
    args = command.args
    square = args.get("square", state.landed_square)
    where = named(data.square(square)) if isinstance(square, int) and 1 <= square <= 36 else ""
    units = units_words(args)
    name = command.name
    if name == "spin":
        if "value" in args:
            return gettext("The AI's spin is %(value)s: move its piece", value=args["value"])
        return gettext("Spin the spinner for the AI")
    if name == "strategic_move":
        steps = args.get("steps", 1)
        if args.get("direction") == "back":
            return gettext("Move the AI's piece %(steps)s back", steps=steps)
        return gettext("Move the AI's piece %(steps)s forward", steps=steps)
    texts = {
        "garrison": gettext("Put %(units)s on %(square)s", units=units, square=where),
        "withdraw": gettext("Take %(units)s off %(square)s", units=units, square=where),
        "recruit": gettext("Give the AI %(units)s from the bank", units=units),
        "invade": gettext("The AI invades %(square)s with %(units)s", square=where, units=units),
        "treaty": gettext("The AI signs a treaty with %(square)s", square=where),
        "build_base": gettext("The AI builds a base on %(square)s", square=where),
        "ally": gettext("The AI allies with %(square)s", square=where),
        "penalty": gettext("The AI pays the penalty on %(square)s", square=where),
        "pay_ransom": gettext("The AI pays the ransom to leave jail"),
    }
    if name in texts:
        return texts[name]
    return gettext("AI: %(move)s", move=label(game, state, command))
