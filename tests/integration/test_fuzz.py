"""API fuzzing from the OpenAPI document: no 5xx, and a refused request changes nothing."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, settings

from companion.games import GameRegistry
from companion.session import SessionService
from companion.store import Store
from tests.conftest import TALLY
from tests.integration.test_api import PINS
from web_ui import create_app

ROLES = ("host", "spectator")


def make_app() -> tuple[Flask, dict[str, dict[str, Any]]]:
    """A server over a scratch database with one session in it, and each role's access (a
    spectator's writes are all refused: they must change nothing)."""
    store = Store(Path(tempfile.mkdtemp(prefix="companion-fuzz-")) / "c.db")
    service = SessionService(store, GameRegistry([TALLY]))
    sid = service.create("tally", {"seats": [{"name": "Ann"}, {"name": "Bob"}],
                                   "options": {"window_s": None}}).id
    app = create_app(service, simulate=True, pins=PINS)
    access = {}
    for role in ROLES:
        client = app.test_client()
        pin = PINS.host if role == "host" else PINS.table
        reply = client.post("/api/join", json={"pin": pin, "role": role})
        cookie = client.get_cookie("tc_access")
        assert cookie is not None
        access[role] = {"csrf": reply.json["csrf"], "cookie": cookie.value, "session": sid}
    return app, access


APP, ACCESS = make_app()
schema = schemathesis.openapi.from_wsgi("/openapi.json", APP)


def log_state(app: Flask) -> tuple[Any, ...]:
    service: SessionService = app.extensions["companion"]
    sessions = service.sessions()
    return tuple((s.id, s.status, service.store.last_seq(s.id)) for s in sessions)


# The role parametrization also gives each operation's test its own pytest id: without a
# parametrize, pytest 9.2 ids every operation's test alike, and pytest-xdist then runs only one.
@schema.parametrize()
@pytest.mark.parametrize("role", ROLES)
@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much])
def test_no_5xx_and_refusals_change_nothing(case: Any, role: str) -> None:
    if case.path.endswith("/stream"):
        return  # an endless event stream; its refusals are tested in test_stream
    if "session_id" in (case.path_parameters or {}):
        case.path_parameters["session_id"] = ACCESS[role]["session"]  # fuzz a real table
    before = log_state(APP)
    response = case.call(headers={"X-CSRF-Token": ACCESS[role]["csrf"]},
                         cookies={"tc_access": ACCESS[role]["cookie"]})
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        assert "error" in response.json() and response.json()["error"]["message"]
        assert log_state(APP) == before
