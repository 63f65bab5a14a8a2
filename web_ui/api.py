"""The JSON API: joining, sessions, state, legal commands, commands, undo and readings.

Every refusal is a 4xx with ``{"error": {"code", "message"}}`` and changes nothing. Bodies are
validated against the models in :mod:`web_ui.schemas` (also the source of ``/openapi.json``).
Writes must be ``application/json`` and carry the tablet's CSRF token (see :mod:`web_ui.auth`).
"""

from __future__ import annotations

import random
from typing import Any, TypeVar

from flask import Blueprint, Flask, Response, current_app, jsonify, request, send_file
from pydantic import ValidationError
from werkzeug.exceptions import HTTPException

from companion.errors import CompanionError
from companion.history import fold
from companion.session import NotFound, SessionError, setup_of
from companion.store import Entry
from web_ui import auth
from web_ui.context import service
from web_ui.errors import localise
from web_ui.schemas import (
    Body,
    CommandBody,
    CreateSessionBody,
    EmptyBody,
    JoinBody,
    ReadingActionBody,
    ReadingBody,
    UndoBody,
)

blueprint = Blueprint("api", __name__)
OPEN_ENDPOINTS = {"api.health", "api.join", "api.leave", "api.me"}
B = TypeVar("B", bound=Body)
MAX_NUMBER = 2**53 - 1  # what every JSON reader (and SQLite) holds exactly


class ApiError(SessionError):
    pass


def error_response(status: int, code: str, message: str, **details: Any) -> Response:
    message, original = localise(code, message)
    details.update(original)
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


@blueprint.before_request
def _readers_only() -> None:
    """Every API read needs a joined tablet; only health and joining do not."""
    if request.endpoint not in OPEN_ENDPOINTS:
        auth.require_reader()


def _body(model: type[B]) -> B:
    if request.mimetype != "application/json":
        raise ApiError("Send the request body as application/json.", "E_UNSUPPORTED_MEDIA")
    data = request.get_json(silent=True)
    if data is None:
        raise ApiError("The request body is not valid JSON.", "E_BAD_JSON")
    if not isinstance(data, dict):
        raise ApiError("The request body must be a JSON object.", "E_BAD_JSON")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = []
        for error in exc.errors()[:5]:
            where = ".".join(str(p) for p in error["loc"]) or "body"
            message = "unknown field" if error["type"] == "extra_forbidden" else error["msg"]
            problems.append(f"{where}: {message}")
        raise ApiError("; ".join(problems), "E_BAD_REQUEST") from None


def _query_int(name: str) -> int | None:
    raw = request.args.get(name)
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(f"'{name}' must be a whole number.", "E_BAD_REQUEST") from None
    if not 0 <= value <= MAX_NUMBER:
        raise ApiError(f"'{name}' must be a whole number from 0 to {MAX_NUMBER}.",
                       "E_BAD_REQUEST")
    return value


def _reply(session_id: str, entries: list[Entry]) -> Response:
    """A write's answer: its committed entries (the AIs' moves after it too), as this tablet
    may see them."""
    svc = service()
    live = svc.open(session_id)
    viewer = auth.viewer(session_id)
    return jsonify({"entries": [svc.entry_json(live, e, viewer) for e in entries],
                    "state_id": live.history.state_id, "last_seq": live.history.last_seq})


# --- joining ---------------------------------------------------------------------------------
@blueprint.get("/health")
def health() -> Response:
    return jsonify({"ok": True})


@blueprint.post("/join")
def join() -> Response:
    body = _body(JoinBody)
    return jsonify(auth.join(body.pin, body.role))


@blueprint.post("/leave")
def leave() -> Response:
    auth.leave()
    return jsonify({"role": None})


@blueprint.get("/me")
def me() -> Response:
    return jsonify(auth.whoami())


@blueprint.post("/sessions/<session_id>/seats/<int:seat>")
def take_seat(session_id: str, seat: int) -> Response:
    _body(EmptyBody)
    live = service().open(session_id)
    if not 0 <= seat < len(live.setup.seats):
        raise ApiError(f"There is no seat {seat} at this table.", "E_NO_SUCH_SEAT")
    return jsonify(auth.take_seat(session_id, seat))


# --- reading ---------------------------------------------------------------------------------
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


# Every read below shows what this tablet's role may see (``auth.viewer``): another seat's
# hidden cards are redacted by the game. ``?seat=`` only narrows the list; it grants nothing.
@blueprint.get("/sessions/<session_id>")
def session(session_id: str) -> Response:
    return jsonify(service().snapshot(session_id, _query_int("seat"), auth.viewer(session_id)))


@blueprint.get("/sessions/<session_id>/legal")
def legal(session_id: str) -> Response:
    found = service().legal(session_id, _query_int("seat"), auth.viewer(session_id))
    return jsonify([c.to_json() for c in found])


@blueprint.get("/sessions/<session_id>/entries")
def entries(session_id: str) -> Response:
    after = _query_int("after") or 0
    return jsonify(service().entries_json(session_id, after, auth.viewer(session_id)))


@blueprint.get("/sessions/<session_id>/replay")
def replay(session_id: str) -> Response:
    """The table as it was after entry ``to`` (default: now), rebuilt from the log."""
    svc = service()
    live = svc.open(session_id)
    history = fold(live.game, setup_of(live.record), svc.store.iter_entries(session_id),
                   _query_int("to"))
    state = live.game.visible_state(history.state, auth.viewer(session_id))
    return jsonify({"seq": history.last_seq, "state_id": history.state_id, "state": state})


@blueprint.get("/sessions/<session_id>/timeline")
def timeline(session_id: str) -> Response:
    """Every log entry with the game's metrics after it: the replay's scrub bar and plots.
    It names each entry's command but never its args, and the metrics are public counts, so
    there is nothing to redact."""
    from companion.history import timeline as build

    svc = service()
    live = svc.open(session_id)
    return jsonify(build(live.game, setup_of(live.record), svc.store.iter_entries(session_id)))


@blueprint.get("/media/<sha>")
def media(sha: str) -> Response:
    found = service().store.media(sha) if len(sha) == 64 else None
    if found is None:
        raise NotFound(f"No photo {sha}.")
    path, content_type = found
    return send_file(path, mimetype=content_type, max_age=86400)


# --- writing ---------------------------------------------------------------------------------
@blueprint.post("/sessions")
def create_session() -> tuple[Response, int]:
    body = _body(CreateSessionBody)
    auth.require_writer()
    setup = body.model_dump(exclude={"game"}, exclude_none=True)
    setup["seats"] = [s.model_dump(exclude_none=True) for s in body.seats]
    record = service().create(body.game, setup)
    return jsonify(service().snapshot(record.id, viewer=auth.viewer(record.id))), 201


@blueprint.post("/sessions/<session_id>/commands")
def command(session_id: str) -> Response:
    body = _body(CommandBody)
    actor = auth.act_as(session_id, body.seat)
    command_json = body.model_dump(exclude={"state_id"}, exclude_none=True)
    entries = service().submit(session_id, command_json, actor=actor, state_id=body.state_id)
    return _reply(session_id, entries)


@blueprint.post("/sessions/<session_id>/undo")
def undo(session_id: str) -> Response:
    body = _body(UndoBody)
    actor = auth.act_as(session_id, body.seat)
    if auth.role() == "player":
        target = service().open(session_id).history.undo_target()
        mine = {f"seat:{s}" for s in auth.seats_held(session_id)}
        if target is not None and target.actor not in mine:
            raise auth.Forbidden("You can only undo your own last move.", "E_NOT_YOUR_MOVE")
    return _reply(session_id, service().undo(session_id, actor=actor, state_id=body.state_id))


@blueprint.post("/sessions/<session_id>/readings")
def add_reading(session_id: str) -> Response:
    """A reading typed at a tablet (or sent by a tool): it goes through the same checks as the
    hardware's."""
    body = _body(ReadingBody)
    auth.require_writer()
    entries = service().add_reading(
        session_id,
        source=body.source,
        command_json=body.command.model_dump(exclude_none=True),
        confidence=body.confidence,
        needs_review=body.needs_review,
        candidates=body.candidates,
    )
    return _reply(session_id, entries)


@blueprint.post("/sessions/<session_id>/readings/<int:seq>/<action>")
def reading_action(session_id: str, seq: int, action: str) -> Response:
    body = _body(ReadingActionBody)
    if action not in ("confirm", "correct", "dismiss"):
        raise NotFound(f"No reading action '{action}' (confirm, correct or dismiss).")
    actor = auth.act_as(session_id, body.seat)
    svc = service()
    if action == "confirm":
        entries = svc.confirm_reading(session_id, seq, actor=actor)
    elif action == "correct":
        if body.args is None:
            raise ApiError("Give the corrected 'args'.", "E_BAD_REQUEST")
        entries = svc.correct_reading(session_id, seq, body.args, actor=actor)
    else:
        entries = svc.dismiss_reading(session_id, seq, actor=actor)
    return _reply(session_id, entries)


@blueprint.post("/sessions/<session_id>/simulate")
def simulate(session_id: str) -> Response:
    """Simulation mode only: let the simulated spinner or tower produce the next reading."""
    _body(EmptyBody)
    if not current_app.config["SIMULATE"]:
        raise NotFound("The table is not in simulation mode.", "E_NOT_SIMULATED")
    auth.require_writer()
    table = current_app.extensions.get("companion_table")
    if table is not None and table.simulate_for(session_id):
        return _reply(session_id, [])  # the simulated device acts; its reading follows
    return _reply(session_id, service().simulate_reading(session_id, random.Random()))


@blueprint.post("/hardware/spinner/calibrate")
def calibrate_spinner() -> Response:
    """The host confirms the spinner points at sector 1; the offset is stored in the config."""
    from companion.hardware.table import TableError

    _body(EmptyBody)
    auth.require_writer()
    if auth.role() != "host":
        raise auth.Forbidden("Only the host can calibrate the spinner.", "E_HOST_ONLY")
    table = current_app.extensions.get("companion_table")
    if table is None:
        raise NotFound("This server runs without table hardware.", "E_NO_HARDWARE")
    try:
        offset = table.calibrate_spinner()
    except TableError as exc:
        raise ApiError(str(exc), "E_SPINNER") from exc
    return jsonify({"offset_steps": offset})


@blueprint.get("/sessions/<session_id>/export")
def export(session_id: str) -> Response:
    """The session's log and photos as a zip, the same archive `companion export` writes.
    The host's only: the log holds every hand, which the other tablets may not see."""
    import tempfile
    from pathlib import Path

    from companion.archive import export_session

    svc = service()
    svc.open(session_id)  # unknown session: 404
    if auth.role() != "host":
        raise auth.Forbidden("Only the host can export a session.", "E_HOST_ONLY")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"session-{session_id}.zip"
        export_session(svc.store, session_id, path)
        data = path.read_bytes()
    response = Response(data, mimetype="application/zip")
    response.headers["Content-Disposition"] = f'attachment; filename="session-{session_id}.zip"'
    return response


@blueprint.post("/sessions/import")
def import_archive() -> tuple[Response, int]:
    """The host brings in a session exported elsewhere (a zip from `export`)."""
    import tempfile
    from pathlib import Path

    from companion.archive import ArchiveError, import_session

    auth.require_writer()
    if auth.role() != "host":
        raise auth.Forbidden("Only the host can import a session.", "E_HOST_ONLY")
    upload = request.files.get("archive")
    if upload is None:
        raise ApiError("Send the archive as the form field 'archive'.", "E_BAD_REQUEST")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "upload.zip"
        upload.save(path)
        try:
            record = import_session(service().store, path)
        except ArchiveError as exc:
            raise ApiError(str(exc).replace(str(path), "the archive"), "E_BAD_ARCHIVE") from exc
    return jsonify(service().snapshot(record.id, viewer=auth.viewer(record.id))), 201
