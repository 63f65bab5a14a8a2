"""Benchmarks for the Command Post Exercise engine: odds, self-play, AI latency and strength.

Run: ``.venv/bin/python -m tests.bench.bench_cpx [--games N]``. Prints figures; never asserts.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

from companion.games.cpx import GAME
from companion.games.cpx.odds import attack_odds
from companion.games.cpx.tower_model import DropRecord, TowerModel, fit


def play(
    ais: Sequence[str], seed: int, latencies: dict[str, list[float]] | None = None
) -> tuple[list[int], int, int]:
    """One self-play game; returns (winning seats, rounds, commands)."""
    rng = random.Random(seed)
    s = GAME.initial_state(GAME.selfplay_setup(ais, seed))
    policies = {name: cls() for name, cls in GAME.policies().items()}
    commands = 0
    while GAME.outcome(s) is None and commands < 20_000:
        cmd = GAME.simulate_chance(s, rng)
        if cmd is None:
            legal = GAME.legal_commands(s)
            seat = rng.choice(sorted({c.seat for c in legal if c.seat is not None}))
            mine = [c for c in legal if c.seat == seat]
            t0 = time.perf_counter()
            cmd = policies[ais[seat]].choose(s, mine, rng)
            if latencies is not None:
                latencies.setdefault(ais[seat], []).append(time.perf_counter() - t0)
        s, _ = GAME.apply(s, cmd)
        commands += 1
    out = GAME.outcome(s)
    return (list(out.winners) if out else []), s.round, commands


def bench_odds() -> None:
    s = GAME.initial_state(GAME.selfplay_setup(["random", "random"], 0))
    s.units = {"london": {"blue": 4}, "paris": {"red": 9}}
    s.tower = {"red": 3, "blue": 2, "black": 2, "white": 1}
    times = []
    for i in range(30):
        t0 = time.perf_counter()
        attack_odds(GAME.data, s, 0, "london", 6, black=2, samples=10_000, seed=i)
        times.append(time.perf_counter() - t0)
    print(
        f"odds, 10,000 samples: median {statistics.median(times) * 1000:.2f} ms, "
        f"max {max(times) * 1000:.2f} ms"
    )


def bench_fit() -> None:
    rng = random.Random(3)
    model = TowerModel(0.6, 0.3)
    inside = {"red": 0, "blue": 0}
    records = []
    for i in range(200):
        inp = {"red": rng.randint(1, 8), "blue": rng.randint(1, 8)}
        fell = model.sample_out(inp, inside, rng)
        for c in inp:
            records.append(DropRecord(inp[c], inside[c], fell.get(c, 0), i))
            inside[c] += inp[c] - fell.get(c, 0)
    t0 = time.perf_counter()
    r = fit(records)
    print(
        f"tower fit, 200 drops: {time.perf_counter() - t0:.2f} s -> p {r.p:.3f} "
        f"[{r.p_interval[0]:.3f}, {r.p_interval[1]:.3f}], q {r.q:.3f} "
        f"[{r.q_interval[0]:.3f}, {r.q_interval[1]:.3f}], chi2/dof {r.chi2_per_dof:.2f}"
    )


def bench_selfplay(games: int) -> None:
    t0 = time.perf_counter()
    total = 0
    for g in range(games):
        _w, _r, n = play(["random", "random"], g)
        total += n
    dt = time.perf_counter() - t0
    print(
        f"self-play random v random: {games / dt * 60:.1f} games/min, {total / dt:.0f} commands/s"
    )


def bench_strength(games: int, players: int) -> None:
    latencies: dict[str, list[float]] = {}
    wins = 0
    rounds = []
    t0 = time.perf_counter()
    for g in range(games):
        ais = ["commander", "random"] * (players // 2)
        if g % 2:
            ais = ais[::-1]
        winners, r, _n = play(ais, 1000 + g, latencies)
        rounds.append(r)
        if winners and ais[winners[0]] == "commander":
            wins += 1
    dt = time.perf_counter() - t0
    lat = sorted(latencies.get("commander", [0.0]))
    p50 = lat[len(lat) // 2] * 1000
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
    print(
        f"commander v random ({players} players, {games} games): commander camp wins "
        f"{wins}/{games} = {100 * wins / games:.0f} %, median {statistics.median(rounds)} "
        f"rounds, {games / dt * 60:.1f} games/min"
    )
    print(f"commander decision latency: p50 {p50:.2f} ms, p99 {p99:.2f} ms ({len(lat)} decisions)")


def bench_legal_sizes(games: int) -> None:
    """How long the full lists get: legal commands and count forms per state, and the time to
    build them, over self-play with default and non-default rule options."""
    sizes: list[int] = []
    forms: list[int] = []
    times: list[float] = []
    by_name: dict[str, int] = {}
    options = ({}, {"all_terrain_reading": "route"}, {"combustion_boost_units": "any_number"})
    for g in range(games):
        n = 2 + g % 3
        ais = (["commander", "random"] * 2)[:n] if g % 2 else ["random"] * n
        rng = random.Random(g)
        setup = GAME.selfplay_setup(ais, g)
        setup = type(setup)(
            seats=setup.seats, options={**setup.options, **options[g % 3]}, seed=g
        )
        s = GAME.initial_state(setup)
        policies = {name: cls() for name, cls in GAME.policies().items()}
        steps = 0
        while GAME.outcome(s) is None and steps < 8000:
            steps += 1
            cmd = GAME.simulate_chance(s, rng)
            if cmd is None:
                t0 = time.perf_counter()
                legal = GAME.legal_commands(s)
                forms.append(len(GAME.count_forms(s)))
                times.append(time.perf_counter() - t0)
                sizes.append(len(legal))
                counts: dict[str, int] = {}
                for c in legal:
                    counts[c.name] = counts.get(c.name, 0) + 1
                for name, k in counts.items():
                    by_name[name] = max(by_name.get(name, 0), k)
                seat = rng.choice(sorted({c.seat for c in legal if c.seat is not None}))
                mine = [c for c in legal if c.seat == seat]
                cmd = policies[ais[seat]].choose(s, mine, rng)
            s, _ = GAME.apply(s, cmd)

    def q(v: list[Any], p: float) -> Any:
        v = sorted(v)
        return v[min(len(v) - 1, int(len(v) * p))]

    print(
        f"legal commands per state ({len(sizes)} states, {games} games): p50 {q(sizes, 0.5)}, "
        f"p99 {q(sizes, 0.99)}, max {max(sizes)}; count forms max {max(forms)}; "
        f"legal_commands + count_forms p50 {q(times, 0.5) * 1000:.2f} ms, "
        f"p99 {q(times, 0.99) * 1000:.2f} ms, max {max(times) * 1000:.2f} ms"
    )
    print("  largest list by request: " + ", ".join(f"{k} {v}" for k, v in sorted(by_name.items())))


def bench_two_v_one(games: int) -> None:
    """2 v 1: seat 1 is camp B alone. The pair has twice the squads and cards (CPX-32)."""
    for ais in (["random", "commander", "random"], ["commander", "random", "commander"]):
        lone = 0
        for g in range(games):
            winners, _r, _n = play(ais, 500 + g)
            lone += bool(winners) and winners[0] == 1
        print(f"2 v 1 {ais}: the lone seat ({ais[1]}) wins {lone}/{games}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args(argv)
    bench_odds()
    bench_fit()
    bench_selfplay(max(2, args.games // 4))
    bench_strength(args.games, 2)
    bench_strength(max(2, args.games // 2), 4)
    bench_two_v_one(max(2, args.games // 4))
    bench_legal_sizes(max(3, args.games // 2))


if __name__ == "__main__":
    main()
