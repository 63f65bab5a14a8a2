"""Access to the session service from inside a request."""

from __future__ import annotations

from flask import current_app

from companion.session import SessionService


def service() -> SessionService:
    svc: SessionService = current_app.extensions["companion"]
    return svc
