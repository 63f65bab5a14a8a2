"""The tower model and its maximum-likelihood fit; Monte-Carlo attack odds (issue 4)."""

from __future__ import annotations

import json
import random

import pytest

from companion.engine import Command, Setup
from companion.games.cpx import GAME as SHIPPED
from companion.games.cpx.odds import attack_odds
from companion.games.cpx.tower_model import (
    DropRecord,
    TowerModel,
    fit,
    records_from_commands,
    records_from_log,
)

from .helpers import GAME, do, scenario


def simulate(p: float, q: float, drops: int, seed: int) -> list[DropRecord]:
    """Drops through a simulated tower, with the ledger carried from one drop to the next."""
    rng = random.Random(seed)
    model = TowerModel(p, q)
    inside = {"red": 0, "blue": 0}
    out: list[DropRecord] = []
    for _ in range(drops):
        inp = {"red": rng.randint(1, 8), "blue": rng.randint(1, 8)}
        fell = model.sample_out(inp, inside, rng)
        for c in inp:
            out.append(DropRecord(inp[c], inside[c], fell.get(c, 0)))
            inside[c] += inp[c] - fell.get(c, 0)
    return out


@pytest.mark.parametrize(("p", "q"), [(0.6, 0.3), (0.8, 0.15)])
def test_fit_recovers_known_p_and_q_within_intervals(p: float, q: float) -> None:
    """The fit of simulated drops covers the true p and q (CPX-105 ledger as the inside count)."""
    result = fit(simulate(p, q, 150, seed=11))
    assert result.p_interval[0] <= p <= result.p_interval[1]
    assert result.q_interval[0] <= q <= result.q_interval[1]
    assert result.p_interval[1] - result.p_interval[0] < 0.15
    assert 0.5 < result.chi2_per_dof < 1.6
    assert f"{result.p:.3f}" in result.summary() and result.to_json()["records"] == 300


def test_fit_refuses_no_data() -> None:
    with pytest.raises(ValueError):
        fit([])


def test_records_from_a_session_log_cpx_106_cpx_107() -> None:
    """CPX-106, CPX-107: records come from confirmed drops: input, ledger before, report."""
    s = GAME.initial_state(GAME.selfplay_setup(["random", "random"], 0))
    s = do(s, "choose_start", 0, base="B1")
    s = do(s, "choose_start", 1, base="B2")
    s = do(s, "report_drop", counts={"red": 4, "blue": 2, "black": 3, "white": 1})
    entries = [(GAME.dump_state(s), Command("confirm_drop", {}).to_json())]
    records = records_from_log(entries)
    assert DropRecord(7, 0, 4, 0) in records and len(records) == 4
    assert fit(records).drops == 1


def test_attack_odds_rise_with_units_and_bonus() -> None:
    """Odds of a proposed attack: more attackers or black cubes, better odds; ties lose."""
    s = scenario(owners={"B1": 0, "B4": 1, "B2": 1}, units={"B1": {"red": 9}, "B4": {"blue": 3}})
    low = attack_odds(GAME.data, s, 0, "B4", 2, samples=4000)
    high = attack_odds(GAME.data, s, 0, "B4", 8, samples=4000)
    bonus = attack_odds(GAME.data, s, 0, "B4", 2, black=3, samples=4000)
    assert low.win < bonus.win < 1.0 and low.win < high.win
    assert 0.0 <= low.tie <= 1 - low.win
    again = attack_odds(GAME.data, s, 0, "B4", 2, samples=4000)
    assert again == low


def test_records_from_a_replayed_session_cpx_105() -> None:
    """CPX-105: replaying a session's commands yields one record per colour and drop."""
    from .playthrough import FILE

    pinned = json.loads(FILE.read_text())
    commands = [Command.from_json(step["command"]) for step in pinned["steps"]]
    records = records_from_commands(SHIPPED, Setup.from_json(pinned["setup"]), commands)
    drops = sum(1 for c in commands if c.name == "confirm_drop")
    assert len({r.drop for r in records}) == drops
    result = fit(records)
    assert result.p_interval[0] <= 0.6 <= result.p_interval[1]
    assert result.q_interval[0] <= 0.3 <= result.q_interval[1]


def test_announced_cards_count_as_bonus_cubes_cpx_79() -> None:
    """CPX-79: announced attack bonuses are black cubes in the odds, defence bonuses white."""
    s = scenario(owners={"B1": 0, "B4": 1, "B2": 1}, units={"B1": {"red": 9}, "B4": {"blue": 3}})
    with_cards = GAME.attack_odds(s, 0, "B4", 2, announced=["C12a"], samples=4000)
    assert with_cards == attack_odds(GAME.data, s, 0, "B4", 2, black=3, samples=4000)
    against = GAME.attack_odds(s, 0, "B4", 2, announced=["C17a"], samples=4000)
    assert against.win < with_cards.win
