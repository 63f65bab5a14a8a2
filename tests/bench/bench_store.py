"""Session log figures: durable append throughput and latency, load + replay of a long session."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from companion.games import GameRegistry
from companion.session import SessionService
from companion.store import Store

TALLY = "tests.support.tally:GAME"


def _cycle(i: int, turn: int) -> dict:
    step = i % 3
    if step == 0:
        return {"name": "spin", "args": {"value": 1 + i % 6}}
    if step == 1:
        return {"name": "add", "args": {"n": 1 + i % 3}, "seat": turn}
    return {"name": "decline", "args": {}, "seat": turn}


def fill(service: SessionService, count: int) -> tuple[str, list[float]]:
    sid = service.create("tally", {"seats": [{"name": "A"}, {"name": "B"}],
                                   "options": {"target": 10**9, "window_s": None}}).id
    latencies, turn, state_id = [], 0, 0
    for i in range(count):
        command = _cycle(i, turn)
        started = time.perf_counter()
        entries = service.submit(sid, command, actor="host", state_id=state_id)
        latencies.append(time.perf_counter() - started)
        state_id = entries[-1].seq
        if command["name"] == "decline":
            turn = 1 - turn
    return sid, latencies


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        registry = GameRegistry([TALLY])
        store = Store(db)
        service = SessionService(store, registry)
        n = 2000
        started = time.perf_counter()
        _, latencies = fill(service, n)
        elapsed = time.perf_counter() - started
        ms = sorted(x * 1000 for x in latencies)
        print(f"append with fsync (synchronous=FULL, WAL): {n / elapsed:.0f} commands/s, "
              f"p50 {statistics.median(ms):.2f} ms, p99 {ms[int(0.99 * n) - 1]:.2f} ms, "
              f"max {ms[-1]:.2f} ms")
        service.close()

        long_store = Store(Path(tmp) / "long.db")
        long_service = SessionService(long_store, registry)
        sid, _ = fill(long_service, 10_000)
        long_service.close()
        long_store.close()

        started = time.perf_counter()
        fresh_store = Store(Path(tmp) / "long.db")
        fresh = SessionService(fresh_store, registry)
        snapshot = fresh.snapshot(sid)
        load = time.perf_counter() - started
        print(f"load + replay of a 10,000-entry session: {load * 1000:.0f} ms "
              f"(state id {snapshot['state_id']})")
        started = time.perf_counter()
        entries = fresh_store.entries(sid)
        read = time.perf_counter() - started
        print(f"  of which reading 10,000 entries: {read * 1000:.0f} ms "
              f"({len(entries)} entries, {(Path(tmp) / 'long.db').stat().st_size / 1e6:.1f} MB)")
        fresh.close()
        fresh_store.close()


if __name__ == "__main__":
    main()
