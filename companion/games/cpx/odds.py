"""Monte-Carlo odds that a proposed attack wins its battle, shown before it is committed.

Pure: a function of the state, the proposal and the tower model. It draws the tower with the
ledger's contents (cubes inside count for their camps, CPX-85) and the cards announced as bonus
cubes, and counts as the rules do (ties go to the defender, CPX-87).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .ctx import Ctx
from .data import GameData
from .state import State
from .tower_model import TowerModel


@dataclass(frozen=True)
class Odds:
    win: float
    tie: float
    samples: int
    expected_survivors: float

    def to_json(self) -> dict[str, float]:
        return {
            "win": self.win,
            "tie": self.tie,
            "samples": self.samples,
            "expected_survivors": self.expected_survivors,
        }


def attack_odds(
    data: GameData,
    state: State,
    seat: int,
    target: str,
    units: int,
    *,
    black: int = 0,
    white: int = 0,
    announced: Sequence[str] = (),
    model: TowerModel | None = None,
    samples: int = 10_000,
    seed: int = 0,
) -> Odds:
    """Chance that ``units`` more of ``seat``'s units, with the cubes already on ``target``, the
    ``black``/``white`` bonus cubes and the ``announced`` bonus abilities (ids such as
    ``"C12a"``), beat the defenders of ``target``. The cubes inside the tower (the ledger) can
    fall out for their camps; black inside helps the attacker, white the defender."""
    model = model or TowerModel()
    ctx = Ctx(data, state)
    extra_black, extra_white = announced_bonus(data, announced)
    black += extra_black
    white += extra_white
    camp = state.players[seat]["camp"]
    here: Mapping[str, int] = state.units.get(target, {})
    att_in = units + sum(n for c, n in here.items() if _camp(state, c) == camp) + black
    def_in = sum(n for c, n in here.items() if _camp(state, c) not in (camp, None)) + white
    att_t = state.tower.get("black", 0)
    def_t = state.tower.get("white", 0)
    for colour, n in state.tower.items():
        c = _camp(state, colour)
        if c == camp:
            att_t += n
        elif c is not None:
            def_t += n
    rng = np.random.default_rng(seed)
    a = rng.binomial(att_in, model.p, samples) + rng.binomial(att_t, model.q, samples)
    d = rng.binomial(def_in, model.p, samples) + rng.binomial(def_t, model.q, samples)
    if ctx.owner(target) is None and not def_in:
        return Odds(win=1.0, tie=0.0, samples=samples, expected_survivors=float(att_in - 1))
    wins = a > d
    survivors = np.where(wins, np.minimum(a - d, 10), 0)
    return Odds(
        win=float(wins.mean()),
        tie=float((a == d).mean()),
        samples=samples,
        expected_survivors=float(survivors.mean()),
    )


def announced_bonus(data: GameData, abilities: Sequence[str]) -> tuple[int, int]:
    """Black and white cubes the announced bonus abilities would add (CPX-79, CPX-118):
    attack bonuses and side bonuses of the attacker give black, defence bonuses white."""
    black = white = 0
    for ability_id in abilities:
        ab = data.ability_by_id.get(ability_id)
        if ab is None:
            raise ValueError(f"unknown ability {ability_id!r}")
        if ab.kind in ("attack_bonus", "attack_bonus_in_kind", "side_bonus"):
            black += int(ab.params["n"])
        elif ab.kind in ("defence_bonus", "defence_bonus_if_units"):
            white += int(ab.params["n"])
    return black, white


def _camp(state: State, colour: str) -> str | None:
    seat = state.seat_of_colour(colour)
    return None if seat is None else state.players[seat]["camp"]
