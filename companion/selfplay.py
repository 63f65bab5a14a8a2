"""Seeded self-play between AI levels, for measuring AIs and the balance of the default data.

Runs the real engine through the contract only: policies pick seat commands, the game's
``simulate_chance`` stands in for the spinner and the tower, and a virtual clock advances one
second per command so time windows behave as at a table where an AI decides at once.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from companion.engine import Command, Game, Setup
from companion.errors import CompanionError


class SelfplayError(CompanionError):
    pass


@dataclass(frozen=True)
class GameResult:
    winners: list[int]  # indices into the ``ais`` list (slots), not seats
    reason: str
    turns: int
    commands: int


def sides_of(setup: Setup) -> list[int]:
    """Side of each seat: the order of first appearance of its camp, or the seat index."""
    if all(seat.camp for seat in setup.seats):
        camps: list[str] = []
        for seat in setup.seats:
            if seat.camp not in camps:
                camps.append(seat.camp or "")
        return [camps.index(seat.camp or "") for seat in setup.seats]
    return list(range(len(setup.seats)))


def play_one(
    game: Game,
    setup: Setup,
    rng: random.Random,
    max_commands: int = 200_000,
    decision_times: list[float] | None = None,
) -> tuple[Any, list[Command]]:
    """Play one game to its end; returns the final state and every command applied."""
    levels = game.policies()
    policies = {i: levels[seat.ai]() for i, seat in enumerate(setup.seats) if seat.ai}
    state = game.initial_state(setup)
    clock = 0.0
    log: list[Command] = []
    while game.outcome(state) is None:
        if len(log) >= max_commands:
            raise SelfplayError(f"{game.id}: no end after {max_commands} commands")
        clock += 1.0
        command = game.simulate_chance(state, rng)
        if command is None:
            seats = game.to_act(state)
            if not seats:
                raise SelfplayError(f"{game.id}: nobody can act and the game is not over")
            seat = seats[0]
            if seat not in policies:
                raise SelfplayError(f"{game.id}: seat {seat} has no AI in self-play")
            legal = [c for c in game.legal_commands(state) if c.seat == seat]
            started = time.perf_counter()
            command = policies[seat].choose(state, legal, rng)
            if decision_times is not None:
                decision_times.append(time.perf_counter() - started)
        command = Command(command.name, command.args, command.seat, clock, rng.getrandbits(63))
        state, _ = game.apply(state, command)
        log.append(command)
    return state, log


def run_selfplay(
    game: Game,
    ais: Sequence[str],
    games: int,
    seed: int,
    mode: str | None = None,
) -> dict[str, Any]:
    """Play ``games`` seeded games; the slots swap sides every other game."""
    known = game.policies()
    for ai in ais:
        if ai not in known:
            raise SelfplayError(f"unknown AI '{ai}' for {game.id} (known: {', '.join(known)})")
    if games < 1:
        raise SelfplayError("--games must be at least 1")
    results: list[GameResult] = []
    side_wins: Counter[int] = Counter()
    decision_times: list[float] = []
    started = time.perf_counter()
    for number in range(games):
        order = list(range(len(ais)))
        if number % 2 == 1:
            order.reverse()
        game_seed = random.Random(f"{seed}:{number}").getrandbits(63)
        setup = game.selfplay_setup([ais[slot] for slot in order], game_seed, mode)
        state, log = play_one(game, setup, random.Random(game_seed), decision_times=decision_times)
        outcome = game.outcome(state)
        assert outcome is not None
        sides = sides_of(setup)
        winning_sides = sorted({sides[s] for s in outcome.winners})
        side_wins.update(winning_sides)
        results.append(
            GameResult([order[side] for side in winning_sides], outcome.reason, outcome.turns,
                       len(log))
        )
    elapsed = time.perf_counter() - started
    turns = [r.turns for r in results]
    wins = Counter(slot for r in results if len(r.winners) == 1 for slot in r.winners)
    decision_ms = sorted(t * 1000 for t in decision_times)
    return {
        "game": game.id,
        "games": games,
        "seed": seed,
        "mode": mode,
        "seats": [
            {"ai": ai, "wins": wins[slot], "win_rate": wins[slot] / games,
             "ci95": wilson(wins[slot], games)}
            for slot, ai in enumerate(ais)
        ],
        "draws": sum(1 for r in results if len(r.winners) != 1),
        "side_wins": [side_wins[side] for side in range(len(ais))],
        "mean_turns": statistics.fmean(turns),
        "median_turns": statistics.median(turns),
        "max_turns": max(turns),
        "endings": dict(Counter(r.reason for r in results).most_common()),
        "games_per_s": games / elapsed if elapsed else math.inf,
        "decision_ms": {
            "p50": _quantile(decision_ms, 0.50),
            "p99": _quantile(decision_ms, 0.99),
            "max": decision_ms[-1] if decision_ms else 0.0,
        },
    }


def wilson(successes: int, n: int, z: float = 1.96) -> list[float]:
    """95% Wilson score interval of a proportion."""
    if n == 0:
        return [0.0, 1.0]
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    index = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return round(sorted_values[index], 3)


def format_report(report: dict[str, Any]) -> str:
    lines = [f"{report['games']} games of {report['game']} (seed {report['seed']})"]
    for seat in report["seats"]:
        lo, hi = seat["ci95"]
        lines.append(
            f"  {seat['ai']:<12} wins {seat['wins']:>5}  {seat['win_rate']:6.1%}  "
            f"(95% CI {lo:.1%}–{hi:.1%})"
        )
    lines.append(f"  draws {report['draws']}; wins by side {report['side_wins']}")
    lines.append(
        f"  turns: mean {report['mean_turns']:.1f}, median {report['median_turns']}, "
        f"max {report['max_turns']}"
    )
    lines.append("  endings: " + ", ".join(f"{k} {v}" for k, v in report["endings"].items()))
    d = report["decision_ms"]
    lines.append(
        f"  {report['games_per_s']:.1f} games/s; AI decision p50 {d['p50']} ms, "
        f"p99 {d['p99']} ms"
    )
    return "\n".join(lines)
