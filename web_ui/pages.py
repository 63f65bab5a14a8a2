"""Server-rendered pages: the lobby (sessions, new session, live feed) and a session's table."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, redirect, render_template, request
from markupsafe import Markup

from companion.engine import Game
from companion.history import fold
from companion.session import NotFound, setup_of
from web_ui import auth, boards
from web_ui.context import service
from web_ui.i18n import COOKIE, LANGUAGES

blueprint = Blueprint("pages", __name__, template_folder="templates", static_folder="static",
                      static_url_path="/static")


@blueprint.app_context_processor
def _access() -> dict[str, object]:
    """What every page knows about this tablet: its role, seats and CSRF token."""
    me = auth.whoami()
    if me["role"] == "host":
        me["pins"] = {"table": auth.pins().table, "host": auth.pins().host}
    return {"access": me}


@blueprint.get("/language/<code>")
def language(code: str) -> Response:
    """Switch this tablet's language (a cookie), then go back to the page it came from."""
    back = request.args.get("next", "/")
    if not back.startswith("/") or back.startswith("//"):
        back = "/"
    response = redirect(back)
    if code in LANGUAGES:
        response.set_cookie(COOKIE, code, max_age=365 * 24 * 3600, samesite="Lax")
    return response


@blueprint.get("/openapi.json")
def openapi() -> Response:
    """The JSON API's description (OpenAPI 3.1), built from the models that validate it."""
    from web_ui.openapi import document

    return jsonify(document())


@blueprint.get("/")
def lobby() -> str:
    svc = service()
    if auth.role() is None:
        return render_template("join.html", simulate=current_app.config["SIMULATE"])
    games = [svc.games.get(game_id) for game_id in svc.games.ids()]
    return render_template(
        "lobby.html",
        sessions=list(reversed(svc.sessions())),
        games=games,
        simulate=current_app.config["SIMULATE"],
    )


@blueprint.get("/sessions/<session_id>")
def table(session_id: str) -> tuple[str, int] | str:
    svc = service()
    if auth.role() is None:
        return render_template("join.html", simulate=current_app.config["SIMULATE"])
    try:
        snapshot = svc.snapshot(session_id, viewer=auth.viewer(session_id))
    except NotFound as exc:
        return render_template("missing.html", message=exc.message), 404
    return render_template(
        "table.html",
        snapshot=snapshot,
        held=sorted(auth.seats_held(session_id)),
        simulate=current_app.config["SIMULATE"],
        **table_view(session_id),
    )


def table_view(session_id: str) -> dict[str, Any]:
    """The board and this tablet's actions, for the table page and its live refresh. The board
    hides other seats' cards itself; pending AI moves are read as this tablet may see them."""
    svc = service()
    live = svc.open(session_id)
    role, held, viewer = auth.role(), auth.seats_held(session_id), auth.viewer(session_id)

    def allowed(seat: int | None) -> bool:
        return role == "host" or (role == "player" and (seat is None or seat in held))

    with live.lock:
        game, state, state_id = live.game, live.history.state, live.history.state_id
        deadline = game.deadline(state)
        readings = svc.readings(session_id, viewer)  # the lock is re-entrant
        return {
            "game": game,
            "state_id": state_id,
            "deadline_label": boards.label(game, state, deadline.command) if deadline else None,
            **board_context(game, state),
            "actions": boards.actions(game, state, allowed),
            "limit_label": boards.limit_label,
            "instructions": boards.instructions(game, state, readings),
        }


def board_context(game: Game, state: Any) -> dict[str, Any]:
    """What ``boards/board.html`` draws a state with: the game's view, or its summary."""
    return {
        "board": boards.board(game, state),
        "board_template": [f"boards/{game.id}.html", "boards/generic.html"],
        "summary": game.summary(state),
    }


@blueprint.get("/sessions/<session_id>/view")
def table_fragments(session_id: str) -> Response:
    """The table page's live parts, drawn again after every change."""
    auth.require_reader()
    context = table_view(session_id)
    return jsonify(
        state_id=context["state_id"],
        instructions=context["instructions"],
        board=render_template("boards/board.html", **context),
        actions=render_template("boards/actions.html", **context),
    )


@blueprint.get("/sessions/<session_id>/replay")
def replay(session_id: str) -> tuple[str, int] | str:
    svc = service()
    if auth.role() is None:
        return render_template("join.html", simulate=current_app.config["SIMULATE"])
    try:
        live = svc.open(session_id)
    except NotFound as exc:
        return render_template("missing.html", message=exc.message), 404
    return render_template("replay.html", record=live.record, game=live.game,
                           simulate=current_app.config["SIMULATE"])


@blueprint.get("/sessions/<session_id>/replay/board")
def replay_board(session_id: str) -> Response:
    """The board as it was after log entry ``to``, drawn like the live table."""
    auth.require_reader()
    svc = service()
    live = svc.open(session_id)
    to = request.args.get("to", type=int)
    history = fold(live.game, setup_of(live.record), svc.store.iter_entries(session_id), to)
    html = render_template("boards/board.html", game=live.game,
                           **board_context(live.game, history.state))
    return jsonify(seq=history.last_seq, board=html)


@blueprint.get("/host")
def host() -> tuple[str, int] | str:
    """The screen at the table: how to join (QR code and PIN), and what hardware is live."""
    if auth.role() != "host":
        return render_template("join.html", simulate=current_app.config["SIMULATE"]), 403
    import segno

    from companion.doctor import run_checks

    links = [f"{request.scheme}://{address}:{request.host.rpartition(':')[2] or '80'}/"
             for address in lan_addresses()] or [request.host_url]
    join_url = f"{links[0]}#pin={auth.pins().table}"
    qr = segno.make(join_url, error="m").svg_inline(scale=6, dark="#1f2328", light="#ffffff")
    checks = run_checks(current_app.config["COMPANION_CONFIG"],
                        current_app.config["SIMULATE"])
    table = current_app.extensions.get("companion_table")
    devices = table.devices() if table is not None else []
    return render_template("host.html", qr=Markup(qr), join_url=join_url, links=links,
                           checks=checks, devices=devices,
                           simulate=current_app.config["SIMULATE"])


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses that tablets on the LAN can reach (no loopback)."""
    import subprocess

    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=2,
                             check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [a for a in out.split() if "." in a and not a.startswith("127.")]
