"""Allies vs Axis benchmark: AI strength, side balance, game length, throughput and latency.

Prints figures only (never asserts on them). ``python -m tests.bench.bench_ava [games]`` plays
``games`` seeded games per pairing (default 500) through the shared self-play runner.
"""

from __future__ import annotations

import sys
import time

from companion.games.ava import GAME
from companion.selfplay import format_report, run_selfplay

PAIRINGS = (
    ("battleship", "tank", "Battleship beats Tank in >= 65%"),
    ("plane", "tank", "Plane beats Tank in >= 55%"),
    ("tank", "tank", "no side above 60% between equal AIs"),
    ("plane", "plane", "no side above 60% between equal AIs"),
    ("battleship", "battleship", "no side above 60% between equal AIs"),
    ("random", "random", "random playout throughput"),
)


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    games = int(args[0]) if args else 500
    seed = int(args[1]) if len(args) > 1 else 20261201
    started = time.perf_counter()
    for first, second, target in PAIRINGS:
        report = run_selfplay(GAME, [first, second], games, seed)
        allies, axis = report["side_wins"]
        print(f"== {first} vs {second} ({target})")
        print(format_report(report))
        print(
            f"  by side: Allies {allies / games:.1%}, Axis {axis / games:.1%}; "
            f"decision max {report['decision_ms']['max']:.1f} ms"
        )
        print(flush=True)
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
