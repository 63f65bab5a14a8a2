"""The tablet dashboard: a Flask app over the session service's public API."""

from __future__ import annotations

import secrets
from typing import Any

from flask import Flask

from companion.config import Config
from companion.session import SessionService
from web_ui.auth import TablePins


def create_app(
    service: SessionService,
    *,
    simulate: bool = False,
    config: Config | None = None,
    pins: TablePins | None = None,
    secret: bytes | None = None,
    table: Any = None,
    **settings: Any,
) -> Flask:
    """Build the dashboard app around one session service (the only writer).

    ``pins`` are the table and host PINs (new random ones if not given); ``secret`` signs the
    tablets' access cookies (keep it across restarts so tablets stay joined).
    """
    from web_ui import api, auth, i18n, pages, stream

    app = Flask(__name__)
    auth.install(app, pins or TablePins.make(), secret or secrets.token_bytes(32))
    app.config.update(
        JSON_SORT_KEYS=False,
        MAX_CONTENT_LENGTH=16 * 1024 * 1024,
        SIMULATE=simulate,
        COMPANION_CONFIG=config or Config(),
        STREAM_KEEPALIVE_S=15.0,
        **settings,
    )
    app.extensions["companion"] = service
    app.extensions["companion_table"] = table  # the devices (companion.hardware.table), if any
    app.register_blueprint(api.blueprint, url_prefix="/api")
    app.register_blueprint(stream.blueprint, url_prefix="/api")
    app.register_blueprint(pages.blueprint)
    api.register_error_handlers(app)
    i18n.install(app)
    return app
