"""The JSON API: sessions, state, legal commands, commands, undo and readings.

Every refusal is a 4xx with ``{"error": {"code", "message"}}`` and changes nothing. Writes must be
sent as ``application/json``, which a cross-site form cannot do without the browser asking first.
"""

from __future__ import annotations

import random
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, jsonify, request, send_file
from werkzeug.exceptions import HTTPException

from companion.engine import IllegalMove
from companion.errors import CompanionError
from companion.history import fold
from companion.session import NotFound, SessionError, setup_of
from web_ui import auth
from web_ui.context import service

blueprint = Blueprint("api", __name__)


class ApiError(SessionError):
    pass


def error_response(status: int, code: str, message: str, **details: Any) -> Response:
    body: dict[str, Any] = {"code": code, "message": message}
    if details:
        body["details"] = details
    response = jsonify({"error": body})
    response.status_code = status
    return response


def register_error_handlers(app: Flask) -> None:
    """JSON errors for every /api path (routing errors included); pages keep HTML errors."""

    @app.errorhandler(SessionError)
    def _session_error(exc: SessionError) -> Response:
        return error_response(exc.status, exc.code, exc.message, **exc.details)

    @app.errorhandler(CompanionError)
    def _companion_error(exc: CompanionError) -> Response:
        return error_response(409, "E_CONFLICT", str(exc))

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Response | HTTPException:
        if not request.path.startswith("/api/"):
            return exc
        return error_response(exc.code or 500, f"E_HTTP_{exc.code}", exc.description or exc.name)


def _body() -> dict[str, Any]:
    if request.mimetype != "application/json":
        raise ApiError("Send the request body as application/json.", "E_UNSUPPORTED_MEDIA")
    data = request.get_json(silent=True)
    if data is None:
        raise ApiError("The request body is not valid JSON.", "E_BAD_JSON")
    if not isinstance(data, dict):
        raise ApiError("The request body must be a JSON object.", "E_BAD_JSON")
    return data


def _int(value: Any, name: str, *, optional: bool = False) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            return int(str(value))
        except ValueError:
            raise ApiError(f"'{name}' must be a whole number.", "E_BAD_REQUEST") from None
    return value


@blueprint.before_request
def _readers_only() -> None:
    """Every API read needs a joined tablet; only health, joining and leaving do not."""
    if request.endpoint not in OPEN_ENDPOINTS:
        auth.require_reader()


OPEN_ENDPOINTS = {"api.health", "api.join", "api.leave", "api.me"}


def _entries(entries: list[Any]) -> list[dict[str, Any]]:
    return [e.to_json() for e in entries]


@blueprint.get("/health")
def health() -> Response:
    return jsonify({"ok": True})


@blueprint.post("/join")
def join() -> Response:
    body = _body()
    return jsonify(auth.join(body.get("pin", ""), body.get("role", "")))


@blueprint.post("/leave")
def leave() -> Response:
    auth.leave()
    return jsonify({"role": None})


@blueprint.get("/me")
def me() -> Response:
    return jsonify(auth.whoami())


@blueprint.post("/sessions/<session_id>/seats/<int:seat>")
def take_seat(session_id: str, seat: int) -> Response:
    live = service().open(session_id)
    if not 0 <= seat < len(live.setup.seats):
        raise ApiError(f"There is no seat {seat} at this table.", "E_NO_SUCH_SEAT")
    return jsonify(auth.take_seat(session_id, seat))


@blueprint.get("/games")
def games() -> Response:
    registry = service().games
    out = []
    for game_id in registry.ids():
        game = registry.get(game_id)
        out.append(
            {
                "id": game.id,
                "title": game.title,
                "min_seats": game.min_seats,
                "max_seats": game.max_seats,
                "modes": list(game.modes),
                "options": [o.to_json() for o in game.rule_options()],
                "ais": sorted(game.policies()),
            }
        )
    return jsonify(out)


@blueprint.get("/sessions")
def sessions() -> Response:
    return jsonify([r.to_json() for r in service().sessions()])


@blueprint.post("/sessions")
def create_session() -> tuple[Response, int]:
    body = _body()
    auth.require_writer()
    game_id = body.pop("game", None)
    if not isinstance(game_id, str):
        raise ApiError("Say which game: 'game' is missing.", "E_BAD_REQUEST")
    record = service().create(game_id, body)
    snapshot = service().snapshot(record.id)
    return jsonify(snapshot), 201


@blueprint.get("/sessions/<session_id>")
def session(session_id: str) -> Response:
    seat = _int(request.args.get("seat"), "seat", optional=True)
    return jsonify(service().snapshot(session_id, seat))


@blueprint.get("/sessions/<session_id>/legal")
def legal(session_id: str) -> Response:
    seat = _int(request.args.get("seat"), "seat", optional=True)
    return jsonify([c.to_json() for c in service().legal(session_id, seat)])


@blueprint.post("/sessions/<session_id>/commands")
def command(session_id: str) -> Response:
    body = _body()
    if "state_id" not in body:
        raise ApiError("Say which state the command was made against: 'state_id'.",
                       "E_BAD_REQUEST")
    state_id = _int(body.pop("state_id"), "state_id")
    seat = _int(body.get("seat"), "seat", optional=True)
    actor = auth.act_as(session_id, seat)
    entries = service().submit(session_id, body, actor=actor, state_id=state_id)
    return jsonify({"entries": _entries(entries), **_ids(session_id)})


@blueprint.post("/sessions/<session_id>/undo")
def undo(session_id: str) -> Response:
    body = _body()
    if "state_id" not in body:
        raise ApiError("Say which state the undo was asked against: 'state_id'.",
                       "E_BAD_REQUEST")
    state_id = _int(body["state_id"], "state_id")
    actor = auth.act_as(session_id, _int(body.get("seat"), "seat", optional=True))
    if auth.role() == "player":
        target = service().open(session_id).history.undo_target()
        mine = {f"seat:{s}" for s in auth.seats_held(session_id)}
        if target is not None and target.actor not in mine:
            raise auth.Forbidden("You can only undo your own last move.", "E_NOT_YOUR_MOVE")
    entries = service().undo(session_id, actor=actor, state_id=state_id)
    return jsonify({"entries": _entries(entries), **_ids(session_id)})


@blueprint.post("/sessions/<session_id>/readings")
def add_reading(session_id: str) -> Response:
    body = _body()
    auth.require_writer()
    source = body.get("source")
    if not isinstance(source, str) or not source:
        raise ApiError("A reading needs its 'source' (spinner, tower, typed…).", "E_BAD_REQUEST")
    confidence = body.get("confidence", 1.0)
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise ApiError("'confidence' must be a number from 0 to 1.", "E_BAD_REQUEST")
    command_json = body.get("command")
    if not isinstance(command_json, dict):
        raise ApiError("A reading needs the 'command' it stands for.", "E_BAD_REQUEST")
    candidates = body.get("candidates")
    if candidates is not None and not isinstance(candidates, list):
        raise ApiError("'candidates' must be a list.", "E_BAD_REQUEST")
    entries = service().add_reading(
        session_id,
        source=source,
        command_json=command_json,
        confidence=float(confidence),
        needs_review=bool(body.get("needs_review", False)),
        candidates=candidates,
    )
    return jsonify({"entries": _entries(entries), **_ids(session_id)})


@blueprint.post("/sessions/<session_id>/simulate")
def simulate(session_id: str) -> Response:
    """Simulation mode only: let the simulated spinner or tower produce the next reading."""
    if not current_app.config["SIMULATE"]:
        raise NotFound("The table is not in simulation mode.", "E_NOT_SIMULATED")
    _body()
    auth.require_writer()
    entries = service().simulate_reading(session_id, random.Random())
    return jsonify({"entries": _entries(entries), **_ids(session_id)})


@blueprint.post("/sessions/<session_id>/readings/<int:seq>/<action>")
def reading_action(session_id: str, seq: int, action: str) -> Response:
    body = _body()
    if action not in ("confirm", "correct", "dismiss"):
        abort(404)
    actor = auth.act_as(session_id, _int(body.get("seat"), "seat", optional=True))
    svc = service()
    if action == "confirm":
        entries = svc.confirm_reading(session_id, seq, actor=actor)
    elif action == "correct":
        entries = svc.correct_reading(session_id, seq, body.get("args"), actor=actor)
    else:
        entries = svc.dismiss_reading(session_id, seq, actor=actor)
    return jsonify({"entries": _entries(entries), **_ids(session_id)})


@blueprint.get("/sessions/<session_id>/entries")
def entries(session_id: str) -> Response:
    after = _int(request.args.get("after", 0), "after") or 0
    svc = service()
    live = svc.open(session_id)
    return jsonify(_entries([live.history.upcast(e) for e in svc.store.entries(session_id, after)]))


@blueprint.get("/sessions/<session_id>/replay")
def replay(session_id: str) -> Response:
    """The table as it was after entry ``to`` (default: now), rebuilt from the log."""
    svc = service()
    live = svc.open(session_id)
    to = _int(request.args.get("to"), "to", optional=True)
    try:
        history = fold(live.game, setup_of(live.record), svc.store.iter_entries(session_id), to)
    except IllegalMove as exc:  # pragma: no cover - a log that no longer replays
        raise ApiError(exc.message, exc.code) from exc
    return jsonify(
        {
            "seq": history.last_seq,
            "state_id": history.state_id,
            "state": live.game.dump_state(history.state),
        }
    )


@blueprint.get("/media/<sha>")
def media(sha: str) -> Response:
    found = service().store.media(sha) if len(sha) == 64 else None
    if found is None:
        raise NotFound(f"No photo {sha}.")
    path, content_type = found
    return send_file(path, mimetype=content_type, max_age=86400)


def _ids(session_id: str) -> dict[str, int]:
    live = service().open(session_id)
    return {"state_id": live.history.state_id, "last_seq": live.history.last_seq}
