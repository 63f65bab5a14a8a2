"""The JSON API: each bad request gets a 4xx with a JSON error and leaves the log unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.session import SessionService
from web_ui import create_app
from web_ui.auth import TablePins

PINS = TablePins("2468", "1357")


def joined(app_client: FlaskClient, role: str = "host") -> FlaskClient:
    pin = PINS.host if role == "host" else PINS.table
    reply = app_client.post("/api/join", json={"pin": pin, "role": role})
    assert reply.status_code == 200, reply.json
    app_client.environ_base["HTTP_X_CSRF_TOKEN"] = reply.json["csrf"]
    return app_client


@pytest.fixture
def app(service: SessionService) -> Flask:
    return create_app(service, simulate=True, pins=PINS)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return joined(app.test_client())


def new_session(client: FlaskClient, **extra: Any) -> dict[str, Any]:
    response = client.post("/api/sessions", json={"game": "tally", "seats": [
        {"name": "Ann"}, {"name": "Bob"}], **extra})
    assert response.status_code == 201, response.json
    return response.json


def log_of(client: FlaskClient, sid: str) -> list[dict[str, Any]]:
    return client.get(f"/api/sessions/{sid}/entries").json


def test_games_lists_options_and_ais(client: FlaskClient) -> None:
    games = {g["id"]: g for g in client.get("/api/games").json}
    assert {o["name"] for o in games["tally"]["options"]} == {"target", "window_s"}
    assert games["tally"]["ais"] == ["greedy", "random"]
    assert "cpx" in games and games["cpx"]["max_seats"] == 4


def test_play_through_the_api(client: FlaskClient) -> None:
    snap = new_session(client)
    sid = snap["session"]["id"]
    r = client.post(f"/api/sessions/{sid}/commands",
                    json={"name": "spin", "args": {"value": 2}, "state_id": snap["state_id"]})
    assert r.status_code == 200 and r.json["state_id"] == 1
    legal = client.get(f"/api/sessions/{sid}/legal?seat=0").json
    assert [c["args"]["n"] for c in legal] == [1, 2, 3]
    r = client.post(f"/api/sessions/{sid}/commands",
                    json={"name": "add", "args": {"n": 3}, "seat": 0, "state_id": 1})
    assert r.json["entries"][0]["actor"] == "seat:0"
    assert client.get(f"/api/sessions/{sid}").json["state"]["total"] == 3
    assert client.get(f"/api/sessions/{sid}/replay?to=1").json["state"]["total"] == 0
    r = client.post(f"/api/sessions/{sid}/undo", json={"state_id": 2})
    assert r.status_code == 200
    assert client.get(f"/api/sessions/{sid}").json["state"]["total"] == 0


@pytest.mark.parametrize(
    ("path", "kwargs", "status", "code"),
    [
        ("/commands", {"data": "{not json", "content_type": "application/json"}, 400,
         "E_BAD_JSON"),
        ("/commands", {"data": "name=spin", "content_type": "application/x-www-form-urlencoded"},
         400, "E_UNSUPPORTED_MEDIA"),
        ("/commands", {"json": [1, 2]}, 400, "E_BAD_JSON"),
        ("/commands", {"json": {"name": "spin", "args": {"value": 2}}}, 400, "E_BAD_REQUEST"),
        ("/commands", {"json": {"name": "fly", "args": {}, "state_id": 1}}, 422,
         "E_UNKNOWN_COMMAND"),
        ("/commands", {"json": {"name": "add", "args": {"n": 1}, "seat": 1, "state_id": 1}}, 422,
         "E_NOT_YOUR_TURN"),
        ("/commands", {"json": {"name": "add", "args": {"n": 1}, "seat": 5, "state_id": 1}}, 400,
         "E_NO_SUCH_SEAT"),
        ("/commands", {"json": {"name": "add", "args": {"n": 1}, "seat": 0, "state_id": 0}}, 409,
         "E_STALE_STATE"),
        ("/commands", {"json": {"name": "add", "args": {"n": 1}, "seat": 0, "state_id": "x"}},
         400, "E_BAD_REQUEST"),
        ("/undo", {"json": {"state_id": 0}}, 409, "E_STALE_STATE"),
        ("/readings", {"json": {"command": {"name": "spin"}}}, 400, "E_BAD_REQUEST"),
        ("/readings/99/confirm", {"json": {}}, 404, "E_NO_SUCH_READING"),
        ("/readings/1/explode", {"json": {}}, 404, "E_NOT_FOUND"),
        ("/commands", {"json": {"name": "add", "args": {}, "state_id": 1, "extra": 1}}, 400,
         "E_BAD_REQUEST"),
        ("/commands", {"json": {"name": "add", "args": {}, "state_id": True}}, 400,
         "E_BAD_REQUEST"),
    ],
)
def test_bad_requests_get_a_json_4xx_and_change_nothing(
    client: FlaskClient, path: str, kwargs: dict[str, Any], status: int, code: str
) -> None:
    sid = new_session(client)["session"]["id"]
    client.post(f"/api/sessions/{sid}/commands",
                json={"name": "spin", "args": {"value": 2}, "state_id": 0})
    before = (log_of(client, sid), client.get(f"/api/sessions/{sid}").json)
    response = client.post(f"/api/sessions/{sid}{path}", **kwargs)
    assert response.status_code == status
    assert response.json["error"]["code"] == code
    assert response.json["error"]["message"]
    assert (log_of(client, sid), client.get(f"/api/sessions/{sid}").json) == before


def test_unknown_session_is_a_json_404(client: FlaskClient) -> None:
    for response in (
        client.get("/api/sessions/nope"),
        client.post("/api/sessions/nope/commands", json={"name": "spin", "state_id": 0}),
        client.get("/api/sessions/nope/stream"),
    ):
        assert response.status_code == 404
        assert response.json["error"]["code"] == "E_NOT_FOUND"


def test_bad_session_creation(client: FlaskClient) -> None:
    r = client.post("/api/sessions", json={"seats": []})
    assert r.status_code == 400
    r = client.post("/api/sessions", json={"game": "chess", "seats": [{"name": "A"}]})
    assert r.status_code == 404 and r.json["error"]["code"] == "E_UNKNOWN_GAME"
    r = client.post("/api/sessions", json={"game": "tally", "seats": [{"name": "A"}]})
    assert r.status_code == 422 and r.json["error"]["code"] == "E_BAD_SETUP"
    assert client.get("/api/sessions").json == []


def test_readings_round_trip(client: FlaskClient) -> None:
    sid = new_session(client)["session"]["id"]
    r = client.post(f"/api/sessions/{sid}/readings", json={
        "source": "spinner", "command": {"name": "spin", "args": {"value": 3}},
        "confidence": 0.55, "needs_review": True, "candidates": [{"value": 3}, {"value": 4}]})
    seq = r.json["entries"][0]["seq"]
    assert str(seq) in client.get(f"/api/sessions/{sid}").json["readings"]
    r = client.post(f"/api/sessions/{sid}/readings/{seq}/correct", json={"args": {"value": 4}})
    assert r.status_code == 200 and r.json["entries"][0]["kind"] == "correction"
    assert client.get(f"/api/sessions/{sid}").json["state"]["spin"] == 4


def test_unknown_api_route_and_method_are_json(client: FlaskClient) -> None:
    assert client.get("/api/nothing").status_code == 404
    r = client.delete("/api/sessions")
    assert r.status_code == 405 and r.json["error"]["code"] == "E_HTTP_405"


def test_pages_render(client: FlaskClient) -> None:
    sid = new_session(client)["session"]["id"]
    lobby = client.get("/")
    assert lobby.status_code == 200 and sid.encode() in lobby.data
    table = client.get(f"/sessions/{sid}")
    assert table.status_code == 200 and b"Typed reading" in table.data
    assert client.get("/sessions/nope").status_code == 404
    assert client.get("/static/app.js").status_code == 200


def test_simulated_chance_goes_through_the_reading_path(client: FlaskClient) -> None:
    sid = new_session(client)["session"]["id"]
    r = client.post(f"/api/sessions/{sid}/simulate", json={})
    assert r.status_code == 200
    kinds = [(e["kind"], e["actor"]) for e in r.json["entries"]]
    assert kinds == [("reading", "simulator"), ("command", "simulator")]
    assert 1 <= client.get(f"/api/sessions/{sid}").json["state"]["spin"] <= 6
    r = client.post(f"/api/sessions/{sid}/simulate", json={})  # now a seat must add
    assert r.status_code == 422 and r.json["error"]["code"] == "E_NO_CHANCE_NEEDED"


def test_simulation_endpoint_is_off_with_real_hardware(service: SessionService) -> None:
    client = joined(create_app(service, simulate=False, pins=PINS).test_client())
    sid = new_session(client)["session"]["id"]
    assert client.post(f"/api/sessions/{sid}/simulate", json={}).status_code == 404


def test_openapi_document_describes_every_api_route(app: Flask) -> None:
    doc = app.test_client().get("/openapi.json").json
    assert doc["openapi"].startswith("3.1")
    described = {path.replace("{", "<").replace("}", ">") for path in doc["paths"]}
    routes = {str(rule) for rule in app.url_map.iter_rules() if str(rule).startswith("/api/")}
    normalised = {r.replace("<int:", "<") for r in routes}
    assert normalised == described
    body = doc["paths"]["/api/sessions/{session_id}/commands"]["post"]["requestBody"]
    ref = body["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert "state_id" in doc["components"]["schemas"][ref]["required"]


def test_timeline_has_a_point_per_entry_with_metrics(client: FlaskClient) -> None:
    sid = new_session(client)["session"]["id"]
    client.post(f"/api/sessions/{sid}/commands",
                json={"name": "spin", "args": {"value": 2}, "state_id": 0})
    client.post(f"/api/sessions/{sid}/commands",
                json={"name": "add", "args": {"n": 3}, "seat": 0, "state_id": 1})
    points = client.get(f"/api/sessions/{sid}/timeline").json
    assert [p["seq"] for p in points] == [0, 1, 2]
    assert [p["metrics"]["total"] for p in points] == [0, 0, 3]
    assert points[2]["name"] == "add" and points[2]["actor"] == "seat:0"
    assert client.get(f"/sessions/{sid}/replay").status_code == 200


def test_export_and_import_through_the_dashboard(app: Flask, tmp_path: Any) -> None:
    import io

    from companion.games import GameRegistry
    from companion.session import SessionService
    from companion.store import Store

    host = joined(app.test_client())
    sid = new_session(host)["session"]["id"]
    host.post(f"/api/sessions/{sid}/commands",
              json={"name": "spin", "args": {"value": 4}, "state_id": 0})
    archive = host.get(f"/api/sessions/{sid}/export")
    assert archive.status_code == 200 and archive.mimetype == "application/zip"
    other_service = SessionService(Store(tmp_path / "other.db"), GameRegistry([
        "tests.support.tally:GAME"]))
    other = joined(create_app(other_service, pins=PINS).test_client())
    reply = other.post("/api/sessions/import", data={"archive": (io.BytesIO(archive.data),
                                                                 "s.zip")},
                       content_type="multipart/form-data")
    assert reply.status_code == 201 and reply.json["session"]["id"] == sid
    assert reply.json["state"] == host.get(f"/api/sessions/{sid}").json["state"]
    again = other.post("/api/sessions/import", data={"archive": (io.BytesIO(archive.data),
                                                                 "s.zip")},
                       content_type="multipart/form-data")
    assert again.status_code == 400 and "already" in again.json["error"]["message"]
    junk = other.post("/api/sessions/import", data={"archive": (io.BytesIO(b"nope"), "x.zip")},
                      content_type="multipart/form-data")
    assert junk.status_code == 400 and junk.json["error"]["code"] == "E_BAD_ARCHIVE"
    assert "/tmp" not in junk.json["error"]["message"]
    player = joined(create_app(other_service, pins=PINS).test_client(), "player")
    assert player.post("/api/sessions/import", data={}).status_code == 403
    other_service.close()
