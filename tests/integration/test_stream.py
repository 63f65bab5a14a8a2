"""Live updates over SSE through the real server: resume from Last-Event-ID, no gap, no dup."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server import Server, write_config

pytestmark = pytest.mark.slow


def read_events(conn: http.client.HTTPConnection, count: int) -> Iterator[dict]:
    response = conn.getresponse()
    assert response.status == 200
    assert response.getheader("Content-Type", "").startswith("text/event-stream")
    got, event = 0, {}
    while got < count:
        line = response.fp.readline().decode().rstrip("\n")
        if line.startswith("id: "):
            event["id"] = int(line[4:])
        elif line.startswith("data: "):
            event["data"] = json.loads(line[6:])
        elif line == "" and "data" in event:
            yield event
            got += 1
            event = {}


def open_stream(server: Server, sid: str, last_id: int | None) -> http.client.HTTPConnection:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    headers = {"Accept": "text/event-stream", "Cookie": server.cookie_header()}
    if last_id is not None:
        headers["Last-Event-ID"] = str(last_id)
    conn.request("GET", f"/api/sessions/{sid}/stream", headers=headers)
    return conn


def test_stream_resumes_from_last_event_id_without_gap_or_duplicate(tmp_path: Path) -> None:
    server = Server(write_config(tmp_path, tmp_path / "c.db")).start()
    try:
        _, snap = server.post("/api/sessions", {"game": "tally", "seats": [
            {"name": "Ann"}, {"name": "Bob"}], "options": {"window_s": None}})
        sid = snap["session"]["id"]

        def send(name: str, args: dict, seat: int | None, state_id: int) -> int:
            body = {"name": name, "args": args, "state_id": state_id}
            if seat is not None:
                body["seat"] = seat
            code, reply = server.post(f"/api/sessions/{sid}/commands", body)
            assert code == 200, reply
            return int(reply["state_id"])

        conn = open_stream(server, sid, None)
        state_id = send("spin", {"value": 3}, None, 0)
        state_id = send("add", {"n": 2}, 0, state_id)
        first = list(read_events(conn, 2))
        assert [e["id"] for e in first] == [1, 2]
        assert first[1]["data"]["payload"]["command"]["name"] == "add"
        conn.close()  # the tablet sleeps; the table goes on

        state_id = send("decline", {}, 0, state_id)
        state_id = send("spin", {"value": 5}, None, state_id)
        conn = open_stream(server, sid, first[-1]["id"])
        send("add", {"n": 1}, 1, state_id)
        resumed = list(read_events(conn, 3))
        assert [e["id"] for e in resumed] == [3, 4, 5]
        assert [e["data"]["payload"]["command"]["name"] for e in resumed] == [
            "decline", "spin", "add"]
        conn.close()
    finally:
        server.stop()


def test_stream_of_unknown_session_is_404(tmp_path: Path) -> None:
    server = Server(write_config(tmp_path, tmp_path / "c.db")).start()
    try:
        conn = open_stream(server, "nope", None)
        assert conn.getresponse().status == 404
    finally:
        server.stop()
