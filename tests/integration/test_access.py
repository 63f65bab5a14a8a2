"""Access: PIN to join; host, player seat and spectator roles; CSRF on every write."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.session import SessionService
from tests.integration.test_api import PINS, joined, log_of
from web_ui import create_app


@pytest.fixture
def app(service: SessionService) -> Flask:
    return create_app(service, simulate=True, pins=PINS)


@pytest.fixture
def session_id(app: Flask) -> str:
    host = joined(app.test_client())
    reply = host.post("/api/sessions", json={"game": "tally", "seats": [
        {"name": "Ann"}, {"name": "Bob"}], "options": {"window_s": None}})
    sid = reply.json["session"]["id"]
    host.post(f"/api/sessions/{sid}/commands", json={"name": "spin", "args": {"value": 2},
                                                       "state_id": 0})
    return str(sid)


def command(client: FlaskClient, sid: str, seat: int | None, name: str = "add",
            **args: Any) -> Any:
    body: dict[str, Any] = {"name": name, "args": args or {"n": 1},
                            "state_id": client.get(f"/api/sessions/{sid}").json["state_id"]}
    if seat is not None:
        body["seat"] = seat
    return client.post(f"/api/sessions/{sid}/commands", json=body)


def test_reads_need_a_joined_tablet(app: Flask, session_id: str) -> None:
    stranger = app.test_client()
    assert stranger.get("/api/health").status_code == 200
    for path in ("/api/sessions", f"/api/sessions/{session_id}", "/api/games",
                 f"/api/sessions/{session_id}/stream", f"/api/sessions/{session_id}/entries"):
        reply = stranger.get(path)
        assert reply.status_code == 401 and reply.json["error"]["code"] == "E_NOT_JOINED"
    assert b"Join the table" in stranger.get("/").data
    assert b"Join the table" in stranger.get(f"/sessions/{session_id}").data


def test_wrong_pin_and_guessing_is_slowed_down(app: Flask) -> None:
    client = app.test_client()
    reply = client.post("/api/join", json={"pin": "0000", "role": "player"})
    assert reply.status_code == 403 and reply.json["error"]["code"] == "E_WRONG_PIN"
    assert client.post("/api/join", json={"pin": PINS.table, "role": "host"}).status_code == 403
    for _ in range(8):
        client.post("/api/join", json={"pin": "0000", "role": "player"})
    reply = client.post("/api/join", json={"pin": PINS.table, "role": "player"})
    assert reply.status_code == 429
    reply = client.post("/api/join", json={"pin": PINS.host, "role": "host"})
    assert reply.status_code == 429  # still locked out, even with the right host PIN
    reply = client.post("/api/join", json={"pin": PINS.table, "role": "king"})
    assert reply.status_code == 400 and "role" in reply.json["error"]["message"]


def test_spectators_see_everything_and_can_act_on_nothing(app: Flask, session_id: str) -> None:
    watcher = joined(app.test_client(), "spectator")
    assert watcher.get(f"/api/sessions/{session_id}").status_code == 200
    before = log_of(watcher, session_id)
    for reply in (
        command(watcher, session_id, 0),
        watcher.post(f"/api/sessions/{session_id}/undo", json={"state_id": 1}),
        watcher.post("/api/sessions", json={"game": "tally", "seats": [{"name": "X"},
                                                                       {"name": "Y"}]}),
        watcher.post(f"/api/sessions/{session_id}/seats/0", json={}),
    ):
        assert reply.status_code == 403, reply.json
    assert log_of(watcher, session_id) == before


def test_writes_need_the_csrf_token(app: Flask, session_id: str) -> None:
    host = joined(app.test_client())
    host.environ_base.pop("HTTP_X_CSRF_TOKEN")
    reply = command(host, session_id, 0)
    assert reply.status_code == 403 and reply.json["error"]["code"] == "E_CSRF"
    host.environ_base["HTTP_X_CSRF_TOKEN"] = "forged"
    assert command(host, session_id, 0).json["error"]["code"] == "E_CSRF"


def test_a_player_acts_only_for_the_seats_it_holds(app: Flask, session_id: str) -> None:
    ann = joined(app.test_client(), "player")
    assert command(ann, session_id, 0).json["error"]["code"] == "E_NOT_SEATED"
    assert ann.post(f"/api/sessions/{session_id}/seats/0", json={}).status_code == 200
    assert ann.post(f"/api/sessions/{session_id}/seats/7", json={}).status_code == 400
    bob = joined(app.test_client(), "player")
    bob.post(f"/api/sessions/{session_id}/seats/1", json={})
    before = log_of(ann, session_id)
    reply = command(bob, session_id, 0)
    assert reply.status_code == 403 and reply.json["error"]["code"] == "E_NOT_YOUR_SEAT"
    assert log_of(ann, session_id) == before
    reply = command(ann, session_id, 0)
    assert reply.status_code == 200 and reply.json["entries"][0]["actor"] == "seat:0"
    # Bob may not undo Ann's move; Ann may
    state_id = reply.json["state_id"]
    reply = bob.post(f"/api/sessions/{session_id}/undo", json={"state_id": state_id})
    assert reply.json["error"]["code"] == "E_NOT_YOUR_MOVE"
    assert ann.post(f"/api/sessions/{session_id}/undo", json={"state_id": state_id}
                    ).status_code == 200


def test_host_acts_for_any_seat_and_for_the_table(app: Flask, session_id: str) -> None:
    host = joined(app.test_client())
    reply = command(host, session_id, 0)
    assert reply.status_code == 200 and reply.json["entries"][0]["actor"] == "seat:0"
    me = host.get("/api/me").json
    assert me["role"] == "host" and me["csrf"]
    assert host.post("/api/leave", json={}).status_code == 200
    assert host.get("/api/sessions").status_code == 401


def test_host_screen_shows_how_to_join_and_the_hardware(app: Flask) -> None:
    host = joined(app.test_client())
    page = host.get("/host").text
    assert "<svg" in page and PINS.table in page and f"#pin={PINS.table}" in page
    assert "spinner (GPIO)" in page and "camera" in page
    player = joined(app.test_client(), "player")
    assert player.get("/host").status_code == 403


def test_only_the_host_calibrates_and_only_with_hardware(app: Flask) -> None:
    player = joined(app.test_client(), "player")
    assert player.post("/api/hardware/spinner/calibrate", json={}).json["error"]["code"] == (
        "E_HOST_ONLY")
    host = joined(app.test_client())
    reply = host.post("/api/hardware/spinner/calibrate", json={})
    assert reply.status_code == 404 and reply.json["error"]["code"] == "E_NO_HARDWARE"
