"""Setup (§4, AVA-24..AVA-31) and mode availability (§15, AVA-134..AVA-136)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from companion.engine import IllegalMove, Setup
from companion.games.ava import options as opts
from companion.games.ava.cards import build_deck
from companion.games.ava.data import AvaData, DataError, load_data
from companion.games.ava.formulas import NO_UNITS, Units
from companion.games.ava.state import SIDE_NAMES, AvaState, Player

AI_NAMES = {
    "tank": "tank_ai",
    "tank_ai": "tank_ai",
    "plane": "plane_ai",
    "plane_ai": "plane_ai",
    "battleship": "battleship_ai",
    "battleship_ai": "battleship_ai",
    "random": "random_ai",
    "random_ai": "random_ai",
}


def data_for(folder: str | None) -> AvaData:
    """The data a game uses; a broken house-rules folder is a setup error, not a traceback."""
    try:
        return load_data(folder)
    except DataError as exc:
        raise IllegalMove("E_BAD_SETUP", f"The game data is invalid: {exc}") from None


def unlocked_modes(data: AvaData, profile: Any) -> list[str]:
    """Modes a stored profile may choose: Regular always (AVA-134), plus what it unlocked."""
    order = data.mode_order()
    have = {order[0]}
    if isinstance(profile, Mapping):
        stored = profile.get("unlocked_modes", [])
        if isinstance(stored, list):
            have |= {m for m in stored if m in data.modes}
    return [m for m in order if m in have]


def mode_available(data: AvaData, setup: Setup, mode: str, unlock_all: bool) -> bool:
    """AVA-135/136: a mode is selectable if unlocked for a seated human's profile (a game with
    no human seat, such as self-play, unlocks nothing and locks nothing)."""
    if unlock_all:
        return True
    humans = [s for s in setup.seats if s.ai is None]
    if not humans:
        return True
    for seat in humans:
        profile = setup.profiles.get(seat.profile) if seat.profile else None
        if mode in unlocked_modes(data, profile):
            return True
    return False


def initial_state(setup: Setup) -> AvaState:
    chosen = dict(setup.options)
    data_dir = chosen.get(opts.DATA_DIR_OPTION)
    if data_dir is not None and not isinstance(data_dir, str):
        raise IllegalMove("E_BAD_SETUP", "The data folder must be text.")
    data = data_for(data_dir)
    options = opts.resolve(data.settings_defaults, chosen)

    if len(setup.seats) != 2:
        raise IllegalMove("E_BAD_SETUP", "Allies vs Axis is played by exactly two seats.")
    sides: list[int] = []
    for i, seat in enumerate(setup.seats):
        if seat.camp is None:
            sides.append(i)
        elif seat.camp in SIDE_NAMES:
            sides.append(SIDE_NAMES.index(seat.camp))
        else:
            raise IllegalMove(
                "E_BAD_SETUP", f"A seat's side must be allies or axis, not '{seat.camp}'."
            )
    if sorted(sides) != [0, 1]:
        raise IllegalMove("E_BAD_SETUP", "One seat must play the Allies and the other the Axis.")
    controllers: list[str] = []
    for seat in setup.seats:
        if seat.ai is None:
            controllers.append("human")
        elif seat.ai in AI_NAMES:
            controllers.append(AI_NAMES[seat.ai])
        else:
            raise IllegalMove("E_BAD_SETUP", f"Unknown AI level '{seat.ai}'.")

    mode_id = setup.mode or "regular"
    mode = data.modes.get(mode_id)
    if mode is None:
        raise IllegalMove("E_BAD_SETUP", f"Unknown mode '{mode_id}'.")
    if not mode_available(data, setup, mode_id, options["unlock_all_modes"]):
        raise IllegalMove(
            "E_MODE_LOCKED",
            f"The mode {mode.name_en} is locked: beat the Battleship AI in the mode before it.",
        )

    rng = random.Random(setup.seed)
    first = options["first_side"]
    first_side = rng.randrange(2) if first == "random" else SIDE_NAMES.index(first)

    owner: list[int | None] = [None] * 36
    garrison: list[Units] = [NO_UNITS] * 36
    for side, refs in ((0, mode.allies_start), (1, mode.axis_start)):
        for ref in refs:
            sq = data.by_ref[ref]
            owner[sq - 1] = side
            square = data.square(sq)
            if options["starting_garrison"] == "neutral_value" and square.type == "territory":
                garrison[sq - 1] = (square.neutral_garrison, 0, 0, 0)

    players: list[Player] = []
    for side in (0, 1):
        seat = sides.index(side)
        players.append(
            Player(
                side=SIDE_NAMES[side],
                seat=seat,
                controller=controllers[seat],
                token=seat,
                money=options["starting_money"],
                position=data.by_ref["uk" if side == 0 else "germany"],
            )
        )
    advantage = data.ai_profiles["battleship_ai"]["advantage"]
    for p in players:
        if p.controller != "battleship_ai":
            continue
        kind = options["battleship_ai_advantage"]
        if kind == "random":
            kind = rng.choice(("money", "army", "nuke"))
        p.advantage = kind
        if kind == "money":
            p.money += advantage["money"]
        elif kind == "army":
            army = advantage["army"]
            p.available = (army.get("I", 0), army.get("T", 0), army.get("P", 0), army.get("B", 0))
        else:
            p.nukes = advantage["nukes"]

    decks: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    if options["deck_model"] == "shuffled_finite":
        decks = (build_deck(data, "fortune", rng), build_deck(data, "strategy", rng))

    state = AvaState(
        mode=mode_id,
        options=options,
        resource_pct=_pct(options["resource_pct"], mode.resource_pct),
        penalty_pct=_pct(options["penalty_pct"], mode.penalty_pct),
        luck_pct=_pct(options["luck_pct"], mode.luck_pct),
        data_dir=data_dir,
        seed=setup.seed,
        first_side=first_side,
        players=(players[0], players[1]),
        owner=tuple(owner),
        garrison=tuple(garrison),
        current=first_side,
        decks=decks,
    )
    return state


def _pct(override: int | None, mode_value: int) -> int:
    return mode_value if override is None else override
