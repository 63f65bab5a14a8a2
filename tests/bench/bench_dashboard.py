"""Dashboard figures: with 8 tablets streaming, event-to-tablet latency and command latency;
page weight of each screen; server memory. Runs the real server on loopback."""

from __future__ import annotations

import http.client
import re
import statistics
import tempfile
import threading
import time
from pathlib import Path

from tests.support.server import Server, write_config

CLIENTS = 8
COMMANDS = 300


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _follow(server: Server, sid: str, seen: dict[int, float], stop: threading.Event) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.request("GET", f"/api/sessions/{sid}/stream",
                 headers={"Cookie": server.cookie_header()})
    response = conn.getresponse()
    while not stop.is_set():
        line = response.fp.readline()
        if not line:
            return
        if line.startswith(b"id: "):
            seen.setdefault(int(line[4:]), time.perf_counter())


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _page_weight(server: Server, path: str) -> int:
    """Bytes of a page plus the scripts and styles it loads."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("GET", path, headers={"Cookie": server.cookie_header()})
    html = conn.getresponse().read()
    total = len(html)
    for asset in re.findall(rb'(?:src|href)="(/static/[^"]+)"', html):
        conn.request("GET", asset.decode())
        total += len(conn.getresponse().read())
    return total


def _board_figures(server: Server, game: str) -> None:
    """A real game's table: page weight, and the time to draw the board and the actions that
    every tablet fetches after each change."""
    seats = ([{"name": "A", "camp": "allies"}, {"name": "B", "camp": "axis"}] if game == "ava"
             else [{"name": n} for n in "ABCD"])
    _, snap = server.post("/api/sessions", {"game": game, "seats": seats})
    sid = snap["session"]["id"]
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    times = []
    for _ in range(40):
        started = time.perf_counter()
        conn.request("GET", f"/sessions/{sid}/view", headers={"Cookie": server.cookie_header()})
        conn.getresponse().read()
        times.append((time.perf_counter() - started) * 1000)
    print(f"{game} table: page weight {_page_weight(server, f'/sessions/{sid}') / 1024:.1f} KB; "
          f"board and actions redrawn in p50 {statistics.median(times):.1f} ms, "
          f"p99 {_quantile(times, .99):.1f} ms")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(write_config(Path(tmp), Path(tmp) / "bench.db")).start()
        try:
            _, snap = server.post("/api/sessions", {
                "game": "tally", "seats": [{"name": "A"}, {"name": "B"}],
                "options": {"target": 10**9, "window_s": None}})
            sid = snap["session"]["id"]
            stop = threading.Event()
            seen: list[dict[int, float]] = [{} for _ in range(CLIENTS)]
            threads = [threading.Thread(target=_follow, args=(server, sid, seen[i], stop),
                                        daemon=True) for i in range(CLIENTS)]
            for t in threads:
                t.start()
            time.sleep(0.5)
            sent: dict[int, float] = {}
            command_ms = []
            state_id, turn = 0, 0
            for i in range(COMMANDS):
                step = i % 3
                body: dict = ({"name": "spin", "args": {"value": 1 + i % 6}} if step == 0 else
                              {"name": "add", "args": {"n": 1}, "seat": turn} if step == 1 else
                              {"name": "decline", "args": {}, "seat": turn})
                started = time.perf_counter()
                _, reply = server.post(f"/api/sessions/{sid}/commands",
                                       {**body, "state_id": state_id})
                command_ms.append((time.perf_counter() - started) * 1000)
                seq = reply["entries"][0]["seq"]
                sent[seq] = started
                state_id = reply["state_id"]
                if step == 2:
                    turn = 1 - turn
                time.sleep(0.005)
            deadline = time.time() + 10
            while time.time() < deadline and any(len(s) < COMMANDS for s in seen):
                time.sleep(0.05)
            stop.set()
            latencies = [(s[seq] - sent[seq]) * 1000 for s in seen for seq in sent if seq in s]
            missing = CLIENTS * COMMANDS - len(latencies)
            print(f"{CLIENTS} SSE tablets, {COMMANDS} commands: event-to-tablet latency "
                  f"p50 {statistics.median(latencies):.1f} ms, p99 {_quantile(latencies, .99):.1f}"
                  f" ms; {missing} events missing")
            print(f"command latency (HTTP, durable commit): p50 {statistics.median(command_ms):.1f}"
                  f" ms, p99 {_quantile(command_ms, .99):.1f} ms")
            for name, path in (("lobby", "/"), ("table", f"/sessions/{sid}")):
                print(f"page weight {name}: {_page_weight(server, path) / 1024:.1f} KB "
                      "(uncompressed, with scripts and styles)")
            for game in ("ava", "cpx"):
                _board_figures(server, game)
            assert server.proc is not None
            print(f"server memory (RSS): {_rss_mb(server.proc.pid):.1f} MB")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
