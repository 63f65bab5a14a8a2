"""The ``companion.engine.Game`` for Command Post Exercise: the contract around the rules."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from companion.engine import (
    JSON,
    Command,
    CountForm,
    Event,
    Game,
    IllegalMove,
    Outcome,
    RuleOption,
    Seat,
    Setup,
    Viewer,
)

from . import flow, secrecy
from .ctx import Ctx
from .data import COLOURS, GameData, default_data
from .legal import count_forms, legal_commands
from .odds import Odds, attack_odds
from .options import rule_options
from .rules import PLAYER_COMMANDS, TABLE_COMMANDS, apply
from .shape import normalise, offer_spelling
from .state import OVER, State
from .tower_model import TowerModel

FACTION_ORDER = ("soviet", "allies", "rising_sun", "orcs")


class Cpx(Game):
    """Command Post Exercise (指挥部的演练): 2 to 4 players in two camps and a cube tower."""

    id: ClassVar[str] = "cpx"
    title: ClassVar[str] = "Command Post Exercise"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 4

    def __init__(self, data: GameData | None = None, tower: TowerModel | None = None) -> None:
        self._data = data
        self.tower = tower or TowerModel()
        self._policies: dict[str, type] | None = None

    @property
    def data(self) -> GameData:
        if self._data is None:
            self._data = default_data()
        return self._data

    # --- the engine proper ---------------------------------------------------------------------
    def initial_state(self, setup: Setup) -> State:
        return flow.initial_state(self.data, setup)

    def legal_commands(self, state: State) -> list[Command]:
        """What may be done now, with :meth:`count_forms`: every legal request is listed here
        or admitted by a form, and nothing else is legal. Requests made of counts (a drop's
        counts, a prompt's mix, a hand as 0/1 counts per card, Rapid Deployment's moves) are
        forms, with a few quick choices listed here; all others are listed one by one."""
        return legal_commands(Ctx(self.data, state))

    def count_forms(self, state: State) -> list[CountForm]:
        return count_forms(Ctx(self.data, state))

    def offers(self, state: State, command: Command) -> bool:
        """The contract's test, after bringing the request to the one spelling that lists and
        forms use (:mod:`.shape`): ``apply`` accepts other spellings of the same request too
        (a hand in any order, an ability by its letter, moves in any order)."""
        if command.name not in PLAYER_COMMANDS | TABLE_COMMANDS:
            return False
        try:
            spelled = offer_spelling(normalise(Ctx(self.data, state), command))
        except IllegalMove:
            return False
        if any(f.admits(spelled) for f in self.count_forms(state)):
            return True
        return any(spelled.matches(c) for c in self.legal_commands(state))

    def apply(self, state: State, command: Command) -> tuple[State, list[Event]]:
        return apply(self.data, state, command)

    def dump_state(self, state: State) -> JSON:
        return state.to_json()

    def load_state(self, data: JSON) -> State:
        if not isinstance(data, dict):
            raise ValueError("a Command Post Exercise state is a JSON object")
        try:
            return State.from_json(data)
        except TypeError as exc:
            raise ValueError(f"not a Command Post Exercise state: {exc}") from None

    # --- what each reader may see (CPX-46, :mod:`.secrecy`) --------------------------------------
    def redact_state(self, state_json: JSON, viewer: Viewer) -> JSON:
        """Other seats' hands and discard pile become their sizes; ownership stays public."""
        return secrecy.redact_state(state_json, viewer)

    def redact_entry(self, entry_json: JSON, viewer: Viewer) -> JSON:
        """Other seats' ``choose_hand`` and ``smoke_discard`` cards become ``"?"``."""
        return secrecy.redact_entry(entry_json, viewer)

    # --- what the session asks -------------------------------------------------------------------
    def outcome(self, state: State) -> Outcome | None:
        if state.phase != OVER or state.result is None:
            return None
        return Outcome(
            winners=list(state.result["winners"]),
            reason=state.result["condition"],
            turns=state.round,
        )

    def attack_odds(
        self,
        state: State,
        seat: int,
        target: str,
        units: int,
        announced: Sequence[str] = (),
        samples: int = 10_000,
        seed: int = 0,
    ) -> Odds:
        """Monte-Carlo odds of a proposed attack before it is committed (tower model ``p, q``)."""
        return attack_odds(
            self.data,
            state,
            seat,
            target,
            units,
            announced=announced,
            model=self.tower,
            samples=samples,
            seed=seed,
        )

    def rule_options(self) -> Sequence[RuleOption]:
        return rule_options(self.data.settings_defaults)

    def seat_choices(self) -> Mapping[str, Sequence[str]]:
        """Two camps (CPX-32); a seat's faction by its colour, or left to the seating order."""
        return {"camp": ("A", "B"), "colour": tuple(f.colour for f in self.data.factions)}

    def policies(self) -> Mapping[str, type]:
        """``commander`` reads this game's data (its map and cards), not the shipped one."""
        if self._policies is None:
            from .ai import POLICIES, policies_for  # the AI loads only when a seat needs it

            self._policies = POLICIES if self._data is None else policies_for(self._data)
        return self._policies

    def simulate_chance(self, state: State, rng: random.Random) -> Command | None:
        """The table's next input: a drop's counts from the tower model, then its confirmation."""
        if state.drop is None or state.phase == OVER:
            return None
        if state.drop["report"] is not None:
            return Command("confirm_drop", {})
        counts = self.tower.sample_out(state.drop["input"], state.tower, rng)
        return Command("report_drop", {"counts": counts, "source": "simulated"})

    def instructions(self, state: State, command: Command) -> str:
        """What a person does on the board for an AI's move, with the map's and cards' names."""
        data = self.data
        args = command.args

        def base(key: str) -> str:
            found = data.base_by_id.get(str(args.get(key)))
            return found.name_en if found else str(args.get(key))

        def card(value: Any) -> str:
            found = data.card_by_id.get(str(value))
            return found.name_en if found else str(value)

        colour = state.players[command.seat]["colour"] if command.seat is not None else ""
        name = command.name
        if name == "attack":
            units = args.get("units")
            return (f"Move {units} {colour} cube{'s' if units != 1 else ''} from {base('from')} "
                    f"to {base('to')}, play {card(args.get('card'))}")
        if name == "retreat":
            return f"Move the {colour} units on {base('base')} back to {base('to')}"
        if name == "recruit":
            n = self.recruited(state, command)
            return f"Put {n} {colour} cube{'s' if n != 1 else ''} from the pool on {base('base')}"
        if name == "choose_start":
            return f"{base('base')} is a starting base for {colour}: give its card to the AI"
        if name == "choose_hand":
            names = ", ".join(card(c) for c in args.get("cards", ()))
            return f"The AI takes {names or 'no cards'} into its hand"
        if name == "activate":
            return f"The AI uses {card(args.get('card'))} ({args.get('ability')})"
        if name in ("end_move", "pass"):
            return "The AI ends its moves" if name == "end_move" else "The AI passes"
        return super().instructions(state, command)

    def recruited(self, state: State, command: Command) -> int:
        """How many cubes a recruit command puts on its base (the squad, within the cap and
        the pool), found by applying it."""
        base, colour = str(command.args.get("base")), state.colour_of(command.seat)
        new, _ = self.apply(state, command)
        return new.units_of(base, colour) - state.units_of(base, colour)

    def metrics(self, state: State) -> dict[str, float]:
        """Bases per player and the cubes held inside the tower, for the replay's plots."""
        out: dict[str, float] = {
            f"{player.get('faction', i)} bases": state.base_count(i)
            for i, player in enumerate(state.players)
        }
        out["cubes in the tower"] = sum(state.tower.values())
        return out

    def tower_drop(self, state: State) -> dict[str, int] | None:
        """The drop input (CPX-82) while the drop is awaited and not reported yet."""
        if state.drop is None or state.phase == OVER or state.drop["report"] is not None:
            return None
        return dict(state.drop["input"])

    def selfplay_setup(self, ais: Sequence[str], seed: int, mode: str | None = None) -> Setup:
        """Side ``i`` plays faction ``(i + seed) % n`` so seats rotate through the factions."""
        n = len(ais)
        if not 2 <= n <= 4:
            raise IllegalMove("E_SETUP_INVALID", "Command Post Exercise needs 2 to 4 players.")
        factions = [FACTION_ORDER[(i + seed) % 4] for i in range(n)]
        seats = [
            Seat(name=f"{ai}-{i + 1}", colour=factions[i], camp="AB"[i % 2], ai=ai)
            for i, ai in enumerate(ais)
        ]
        return Setup(seats=seats, mode=mode, options={"first_chooser": seed % n}, seed=seed)

    def summary(self, state: State) -> str:
        ctx = Ctx(self.data, state)
        lines = [f"round {state.round}, phase {state.phase}"]
        for i, p in enumerate(state.players):
            out = " (out)" if p["out"] else ""
            lines.append(
                f"  seat {i} {ctx.faction_name(i)} camp {p['camp']}: "
                f"{state.base_count(i)} bases, pool {state.pools[p['colour']]}{out}"
            )
        tower = ", ".join(f"{c} {state.tower.get(c, 0)}" for c in COLOURS if c in state.tower)
        lines.append(f"  tower: {tower}")
        if state.result:
            lines.append(f"  result: camp {state.result['camp']} by {state.result['condition']}")
        return "\n".join(lines)
