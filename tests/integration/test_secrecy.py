"""Hidden information through the dashboard (CPX-46): every way a state or the log leaves the
server shows a tablet only what its role may see — the host everything, a player the cards of
the seats it holds, a spectator no hand — whatever the request asks for (``?seat=``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.games import GameRegistry
from companion.session import SessionService
from companion.store import Store
from tests.integration.test_api import PINS, joined
from web_ui import create_app

HIDDEN = "?"
SEATS = [{"name": "Ann", "camp": "A"}, {"name": "Bob", "camp": "B"}]


@pytest.fixture
def app(service: SessionService) -> Flask:
    app = create_app(service, simulate=True, pins=PINS)
    app.config["STREAM_KEEPALIVE_S"] = 0.05
    return app


def seated(app: Flask, *seats: int) -> FlaskClient:
    client = joined(app.test_client(), "player")
    for seat in seats:
        assert client.post(f"/api/sessions/{SID[app]}/seats/{seat}", json={}).status_code == 200
    return client


SID: dict[Flask, str] = {}


def snapshot(client: FlaskClient, sid: str, query: str = "") -> dict[str, Any]:
    reply = client.get(f"/api/sessions/{sid}{query}")
    assert reply.status_code == 200, reply.json
    data: dict[str, Any] = reply.json
    return data


def to_hand_choice(client: FlaskClient, sid: str) -> dict[str, Any]:
    """Starting bases, then the tower's priming drop (simulated), as the host or a player."""
    for _ in range(20):
        snap = snapshot(client, sid)
        if snap["state"]["phase"] == "hand_choice":
            return snap
        step(client, sid, snap)
    raise AssertionError("the hand choice never began")


def step(client: FlaskClient, sid: str, snap: dict[str, Any]) -> None:
    """One move on: the first listed command of a seat, else a simulated tower drop."""
    seated_moves = [c for c in snap["legal"] if c.get("seat") is not None]
    if seated_moves:
        reply = client.post(f"/api/sessions/{sid}/commands",
                            json={**seated_moves[0], "state_id": snap["state_id"]})
    else:
        reply = client.post(f"/api/sessions/{sid}/simulate", json={})
    assert reply.status_code == 200, reply.json


def card_of(snap: dict[str, Any], seat: int) -> str:
    return next(c for c, v in snap["state"]["cards"].items() if v["holder"] == seat)


@pytest.fixture
def table(app: Flask) -> dict[str, Any]:
    """A CPX table at the hand choice: Ann (seat 0) has chosen her hand, Bob (seat 1) not yet."""
    host = joined(app.test_client())
    reply = host.post("/api/sessions", json={"game": "cpx", "seats": SEATS, "seed": 3})
    assert reply.status_code == 201, reply.json
    sid = SID[app] = reply.json["session"]["id"]
    snap = to_hand_choice(host, sid)
    ann, bob = seated(app, 0), seated(app, 1)
    card = card_of(snap, 0)
    reply = ann.post(f"/api/sessions/{sid}/commands", json={
        "name": "choose_hand", "args": {"cards": [card]}, "seat": 0,
        "state_id": snap["state_id"]})
    assert reply.status_code == 200, reply.json
    assert reply.json["entries"][0]["payload"]["command"]["args"] == {"cards": [card]}
    return {"sid": sid, "card": card, "host": host, "ann": ann, "bob": bob,
            "watcher": joined(app.test_client(), "spectator")}


def choice_entry(entries: list[dict[str, Any]], seat: int = 0) -> dict[str, Any]:
    return next(e for e in entries if e["kind"] == "command"
                and e["payload"]["command"]["name"] == "choose_hand"
                and e["payload"]["command"]["seat"] == seat)


def test_snapshot_hides_another_seats_hand_and_its_commands_cpx_46(
        table: dict[str, Any]) -> None:
    """CPX-46: Bob and a spectator see Ann's hand as its size; only the holder and the host
    see the card. Nobody gets the legal commands or forms of a seat it may not see."""
    sid, card = table["sid"], table["card"]
    for name in ("bob", "watcher"):
        snap = snapshot(table[name], sid)
        assert snap["state"]["cards"][card] == {"holder": 0, "place": "hidden", "attack": None}
        assert snap["state"]["players"][0]["hidden"] == {"hand": 1, "discard": 0}
        assert all(c["seat"] != 0 for c in snap["legal"] + snap["forms"])
    bob = snapshot(table["bob"], sid)
    assert {c["seat"] for c in bob["legal"] + bob["forms"]} == {1}
    assert all(c["seat"] is None for c in snapshot(table["watcher"], sid)["legal"])
    for name in ("ann", "host"):
        assert snapshot(table[name], sid)["state"]["cards"][card]["place"] == "hand"
    assert {c["seat"] for c in snapshot(table["host"], sid)["legal"]} == {1}  # Ann has chosen


def test_the_seat_query_grants_nothing_cpx_46(table: dict[str, Any]) -> None:
    """CPX-46: ``?seat=`` only narrows what a tablet may see; it never shows another seat's."""
    sid, card = table["sid"], table["card"]
    for name in ("bob", "watcher"):
        snap = snapshot(table[name], sid, "?seat=0")
        assert snap["state"]["cards"][card]["place"] == "hidden"
        assert all(c["seat"] is None for c in snap["legal"] + snap["forms"])
        assert table[name].get(f"/api/sessions/{sid}/legal?seat=0").json == []
    assert [c["seat"] for c in table["bob"].get(f"/api/sessions/{sid}/legal").json] == [1]
    assert table["watcher"].get(f"/api/sessions/{sid}/legal").json == []


def test_the_log_and_the_replay_hide_another_seats_hand_cpx_46(table: dict[str, Any]) -> None:
    """CPX-46: the logged ``choose_hand`` names no card to others; the replayed state hides
    the hand like the live one; the timeline carries no args at all."""
    sid, card = table["sid"], table["card"]
    for name in ("bob", "watcher"):
        client = table[name]
        entry = choice_entry(client.get(f"/api/sessions/{sid}/entries").json)
        assert entry["payload"]["command"]["args"] == {"cards": [HIDDEN]}
        assert card not in json.dumps(entry)
        replay = client.get(f"/api/sessions/{sid}/replay").json
        assert replay["state"]["cards"][card]["place"] == "hidden"
        timeline = client.get(f"/api/sessions/{sid}/timeline").json
        assert card not in json.dumps(timeline)
    for name in ("ann", "host"):
        entry = choice_entry(table[name].get(f"/api/sessions/{sid}/entries").json)
        assert entry["payload"]["command"]["args"] == {"cards": [card]}
        replay = table[name].get(f"/api/sessions/{sid}/replay").json
        assert replay["state"]["cards"][card]["place"] == "hand"


def stream_entries(client: FlaskClient, sid: str, upto: int) -> list[dict[str, Any]]:
    """The stream's entries from the start of the log up to entry ``upto``."""
    response = client.get(f"/api/sessions/{sid}/stream", buffered=False)
    assert response.status_code == 200
    got: list[dict[str, Any]] = []
    buffer = ""
    chunks: Iterator[Any] = iter(response.response)
    try:
        while not got or got[-1]["seq"] < upto:
            chunk = next(chunks)
            buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
            while "\n\n" in buffer:
                block, buffer = buffer.split("\n\n", 1)
                data = [line[6:] for line in block.split("\n") if line.startswith("data: ")]
                got += [json.loads(d) for d in data]
    finally:
        response.close()
    return got


def test_a_spectators_stream_names_no_card_of_a_hand_cpx_46(table: dict[str, Any]) -> None:
    """CPX-46: the live stream sends another seat's ``choose_hand`` blanked, the holder's whole."""
    sid, card = table["sid"], table["card"]
    last = snapshot(table["host"], sid)["last_seq"]
    entry = choice_entry(stream_entries(table["watcher"], sid, last))
    assert entry["payload"]["command"]["args"] == {"cards": [HIDDEN]}
    assert card not in json.dumps(entry)
    entry = choice_entry(stream_entries(table["ann"], sid, last))
    assert entry["payload"]["command"]["args"] == {"cards": [card]}


def test_pages_show_a_tablet_only_what_it_may_see_cpx_46(table: dict[str, Any]) -> None:
    """CPX-46: the table page and its live parts are drawn for the tablet's role."""
    sid = table["sid"]
    for name in ("bob", "watcher", "ann"):
        assert table[name].get(f"/sessions/{sid}").status_code == 200
        view = table[name].get(f"/sessions/{sid}/view").json
        assert view["instructions"] == {}
    assert "data-count-form" not in table["watcher"].get(f"/sessions/{sid}/view").json["actions"]
    assert "data-count-form" in table["bob"].get(f"/sessions/{sid}/view").json["actions"]


def test_only_the_host_exports_the_log(table: dict[str, Any]) -> None:
    """The export is the whole log, every hand included: the host's only."""
    sid = table["sid"]
    for name in ("ann", "bob", "watcher"):
        reply = table[name].get(f"/api/sessions/{sid}/export")
        assert reply.status_code == 403 and reply.json["error"]["code"] == "E_HOST_ONLY"
    reply = table["host"].get(f"/api/sessions/{sid}/export")
    assert reply.status_code == 200 and reply.mimetype == "application/zip"


def ai_table(app: Flask) -> tuple[str, FlaskClient, FlaskClient, FlaskClient]:
    """Ann (seat 0) against an AI (seat 1); Ann brings the table to the hand choice."""
    host = joined(app.test_client())
    reply = host.post("/api/sessions", json={"game": "cpx", "seed": 5, "seats": [
        SEATS[0], {**SEATS[1], "ai": "random"}]})
    assert reply.status_code == 201, reply.json
    sid = SID[app] = reply.json["session"]["id"]
    return sid, host, seated(app, 0), joined(app.test_client(), "spectator")


def test_an_ais_hand_is_hidden_in_the_replies_to_a_player_cpx_46(app: Flask) -> None:
    """CPX-46: the AI chooses its hand as soon as the round begins; the reply to the player
    whose request began it, and the log, show that hand blanked."""
    sid, host, ann, watcher = ai_table(app)
    replies = []
    for _ in range(20):
        snap = snapshot(ann, sid)
        if snap["state"]["phase"] == "hand_choice":
            break
        mine = [c for c in snap["legal"] if c.get("seat") == 0]
        reply = (ann.post(f"/api/sessions/{sid}/commands",
                          json={**mine[0], "state_id": snap["state_id"]}) if mine
                 else ann.post(f"/api/sessions/{sid}/simulate", json={}))
        assert reply.status_code == 200, reply.json
        replies += reply.json["entries"]
    ai_card = card_of(snapshot(host, sid), 1)
    assert choice_entry(replies, 1)["payload"]["command"]["args"]["cards"] == [HIDDEN]
    assert choice_entry(host.get(f"/api/sessions/{sid}/entries").json, 1)["payload"][
        "command"]["args"]["cards"] == [ai_card]  # this AI keeps its one card (seed 5)
    for client in (ann, watcher):
        entry = choice_entry(client.get(f"/api/sessions/{sid}/entries").json, 1)
        assert ai_card not in json.dumps(entry)


@pytest.fixture
def physical_app(tmp_path: Path) -> Iterator[Flask]:
    """A physical table: an AI's move waits, as a reading, for a person to carry it out."""
    service = SessionService(Store(tmp_path / "physical.db"), GameRegistry([]),
                             confirm_ai_moves=True)
    yield create_app(service, simulate=True, pins=PINS)
    service.close()


def test_an_ais_pending_hand_names_no_card_to_other_tablets_cpx_46(physical_app: Flask) -> None:
    """CPX-46: the AI's hand choice waiting to be carried out (snapshot readings, the table's
    instructions) names its cards to the host only."""
    sid, host, ann, watcher = ai_table(physical_app)
    for _ in range(20):
        snap = snapshot(host, sid)
        pending = [r for r in snap["readings"].values()
                   if r["command"]["name"] == "choose_hand"]
        if pending:
            break
        reading = next(iter(snap["readings"]), None)
        if reading is not None:  # the AI's starting base: a person puts it on the board
            reply = host.post(f"/api/sessions/{sid}/readings/{reading}/confirm", json={})
            assert reply.status_code == 200, reply.json
        else:
            step(host, sid, snap)
    assert pending and pending[0]["command"]["seat"] == 1
    ai_card = card_of(snap, 1)
    assert pending[0]["command"]["args"]["cards"] == [ai_card]  # (seed 5)
    host_view = host.get(f"/sessions/{sid}/view").json
    for client in (ann, watcher):
        readings = snapshot(client, sid)["readings"]
        (seen,) = [r for r in readings.values() if r["command"]["name"] == "choose_hand"]
        assert seen["command"]["args"]["cards"] == [HIDDEN]
        assert ai_card not in json.dumps(readings)
        view = client.get(f"/sessions/{sid}/view").json
        assert view["instructions"].keys() == host_view["instructions"].keys()
        assert view["instructions"] != host_view["instructions"]  # the host's name the card
