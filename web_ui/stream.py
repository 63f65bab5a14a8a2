"""Server-Sent Events: one stream per session, resumable from ``Last-Event-ID``.

Each log entry is one event whose id is its sequence number; a tablet that wakes from sleep sends
the last id it saw and gets exactly the entries after it, read from the log itself, so there is
no gap and no duplicate. Each entry is sent as this tablet may see it (``auth.viewer``, fixed
when the stream opens: taking a seat reloads the page).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from flask import Blueprint, Response, current_app, request

from web_ui import auth
from web_ui.api import MAX_NUMBER, ApiError
from web_ui.context import service

blueprint = Blueprint("stream", __name__)


def _resume_point() -> int:
    raw = request.headers.get("Last-Event-ID") or request.args.get("after") or "0"
    try:
        value = int(raw)
    except ValueError:
        raise ApiError("Last-Event-ID must be an entry number.", "E_BAD_REQUEST") from None
    if not 0 <= value <= MAX_NUMBER:
        raise ApiError("Last-Event-ID must be an entry number.", "E_BAD_REQUEST")
    return value


@blueprint.get("/sessions/<session_id>/stream")
def stream(session_id: str) -> Response:
    auth.require_reader()
    svc = service()
    live = svc.open(session_id)  # an unknown session is a 404 before the stream starts
    after = _resume_point()
    viewer = auth.viewer(session_id)  # read now: the generator runs outside the request
    keepalive = float(current_app.config["STREAM_KEEPALIVE_S"])

    def events() -> Iterator[str]:
        nonlocal after
        yield "retry: 2000\n\n"
        while True:
            entries = svc.wait(session_id, after, keepalive)
            if not entries:
                if svc.closed:
                    return
                yield ": keep-alive\n\n"
                continue
            for entry in entries:
                data = json.dumps(svc.entry_json(live, entry, viewer), separators=(",", ":"))
                yield f"id: {entry.seq}\nevent: entry\ndata: {data}\n\n"
                after = entry.seq

    return Response(
        events(),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
