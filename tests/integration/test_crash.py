"""Nothing acknowledged is lost: SIGKILL the real server mid-burst, restart it, check the log."""

from __future__ import annotations

import http.client
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from tests.support.server import Server, write_config

pytestmark = pytest.mark.slow


def test_sigkill_mid_burst_loses_no_acknowledged_command(tmp_path: Path) -> None:
    db = tmp_path / "companion.db"
    server = Server(write_config(tmp_path, db)).start()
    try:
        status, snap = server.post("/api/sessions", {
            "game": "tally", "seats": [{"name": "Ann"}, {"name": "Bob"}],
            "options": {"target": 10**9, "window_s": None}})
        assert status == 201
        sid = snap["session"]["id"]
        acknowledged: list[tuple[int, dict]] = []
        state = {"id": 0, "turn": 0, "step": 0}
        stop = threading.Event()

        def next_command() -> dict:
            step, turn = state["step"] % 3, state["turn"]
            if step == 0:
                return {"name": "spin", "args": {"value": 1 + state["step"] % 6}}
            if step == 1:
                return {"name": "add", "args": {"n": 1 + state["step"] % 3}, "seat": turn}
            return {"name": "decline", "args": {}, "seat": turn}

        def burst() -> None:
            while not stop.is_set():
                command = next_command()
                try:
                    code, body = server.post(f"/api/sessions/{sid}/commands",
                                             {**command, "state_id": state["id"]})
                except (OSError, http.client.HTTPException):
                    return  # the server died before its reply was whole: not acknowledged
                assert code == 200, body
                acknowledged.append((body["entries"][0]["seq"], command))
                state["id"] = body["state_id"]
                if command["name"] == "decline":
                    state["turn"] = 1 - state["turn"]
                state["step"] += 1

        sender = threading.Thread(target=burst)
        sender.start()
        deadline = time.monotonic() + 20
        while len(acknowledged) < 150 and time.monotonic() < deadline:
            time.sleep(0.01)
        server.kill()  # SIGKILL while the burst is still going
        stop.set()
        sender.join(10)
        assert len(acknowledged) >= 150

        raw = sqlite3.connect(db)
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        raw.close()

        server.start()
        log = {e["seq"]: e for e in server.get(f"/api/sessions/{sid}/entries")}
        for seq, command in acknowledged:
            logged = log[seq]["payload"]["command"]
            assert (logged["name"], logged["args"], logged.get("seat")) == (
                command["name"], command["args"], command.get("seat"))
        last_acked = acknowledged[-1][0]
        assert max(log) - last_acked <= 1  # at most the one in flight, committed but not acked
        resumed = server.get(f"/api/sessions/{sid}")
        assert resumed["state_id"] == max(log)
        if max(log) == last_acked:
            code, _ = server.post(f"/api/sessions/{sid}/commands",
                                  {**next_command(), "state_id": resumed["state_id"]})
            assert code == 200
    finally:
        server.stop()
