"""The OpenAPI 3.1 description of the JSON API, built from the same models that validate it."""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic.json_schema import models_json_schema

from companion import __version__
from web_ui.api import MAX_NUMBER
from web_ui.schemas import (
    MODELS,
    Body,
    CommandBody,
    CreateSessionBody,
    EmptyBody,
    JoinBody,
    ReadingActionBody,
    ReadingBody,
    UndoBody,
)

ERROR = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {"code": {"type": "string"}, "message": {"type": "string"},
                           "details": {"type": "object"}},
        }
    },
}
OBJECT = {"type": "object"}
ARRAY = {"type": "array", "items": {"type": "object"}}


def _ref(model: type[Body]) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{model.__name__}"}


def _path_param(name: str, kind: str = "string") -> dict[str, Any]:
    schema: dict[str, Any] = {"type": kind}
    if kind == "integer":
        schema.update(minimum=0, maximum=MAX_NUMBER)
    return {"name": name, "in": "path", "required": True, "schema": schema}


def _query_param(name: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False,
            "schema": {"type": "integer", "minimum": 0, "maximum": MAX_NUMBER}}


def _operation(summary: str, ok: dict[str, Any], body: type[Body] | None = None,
               params: list[dict[str, Any]] | None = None, status: str = "200",
               open_: bool = False) -> dict[str, Any]:
    op: dict[str, Any] = {
        "summary": summary,
        "responses": {
            status: {"description": "OK", "content": {"application/json": {"schema": ok}}},
            "4XX": {"description": "Refused; nothing changed",
                    "content": {"application/json": {"schema": ERROR}}},
        },
    }
    if params:
        op["parameters"] = params
    if body is not None:
        op["requestBody"] = {"required": True,
                             "content": {"application/json": {"schema": _ref(body)}}}
    if open_:
        op["security"] = []
    return op


@cache
def document() -> dict[str, Any]:
    _, defs = models_json_schema([(m, "validation") for m in MODELS],
                                 ref_template="#/components/schemas/{model}")
    sid = _path_param("session_id")
    seq = _path_param("seq", "integer")
    paths: dict[str, Any] = {
        "/api/health": {"get": _operation("Is the server up", OBJECT, open_=True)},
        "/api/join": {"post": _operation("Join the table with a PIN", OBJECT, JoinBody,
                                         open_=True)},
        "/api/leave": {"post": _operation("Leave the table", OBJECT, open_=True)},
        "/api/me": {"get": _operation("This tablet's role and seats", OBJECT, open_=True)},
        "/api/games": {"get": _operation("Games, their rule options and AI levels", ARRAY)},
        "/api/sessions": {
            "get": _operation("All sessions", ARRAY),
            "post": _operation("Start a session", OBJECT, CreateSessionBody, status="201"),
        },
        "/api/sessions/{session_id}": {"get": _operation(
            "State, state id, legal commands, pending readings, open deadline (as this "
            "tablet may see them: other seats' hidden cards are redacted)", OBJECT,
            params=[sid, _query_param("seat")])},
        "/api/sessions/{session_id}/legal": {"get": _operation(
            "Legal commands now", ARRAY, params=[sid, _query_param("seat")])},
        "/api/sessions/{session_id}/entries": {"get": _operation(
            "Log entries after a sequence number", ARRAY, params=[sid, _query_param("after")])},
        "/api/sessions/{session_id}/replay": {"get": _operation(
            "The state after any log entry", OBJECT, params=[sid, _query_param("to")])},
        "/api/sessions/{session_id}/timeline": {"get": _operation(
            "Every log entry with the game's metrics after it", ARRAY, params=[sid])},
        "/api/sessions/{session_id}/stream": {"get": {
            "summary": "Live log entries (Server-Sent Events; resumes from Last-Event-ID)",
            "parameters": [sid, _query_param("after")],
            "responses": {"200": {"description": "An event stream",
                                  "content": {"text/event-stream": {"schema": {
                                      "type": "string"}}}},
                          "4XX": {"description": "Refused",
                                  "content": {"application/json": {"schema": ERROR}}}},
        }},
        "/api/sessions/{session_id}/seats/{seat}": {"post": _operation(
            "Take a seat (players)", OBJECT, EmptyBody, [sid, _path_param("seat", "integer")])},
        "/api/sessions/{session_id}/commands": {"post": _operation(
            "Apply a command made against a state id", OBJECT, CommandBody, [sid])},
        "/api/sessions/{session_id}/undo": {"post": _operation(
            "Take back the last move a person made", OBJECT, UndoBody, [sid])},
        "/api/sessions/{session_id}/readings": {"post": _operation(
            "Report a reading (a spin, a drop's counts)", OBJECT, ReadingBody, [sid])},
        "/api/sessions/{session_id}/readings/{seq}/{action}": {"post": _operation(
            "Confirm, correct or dismiss a pending reading", OBJECT, ReadingActionBody,
            [sid, seq, {"name": "action", "in": "path", "required": True,
                        "schema": {"enum": ["confirm", "correct", "dismiss"]}}])},
        "/api/sessions/{session_id}/simulate": {"post": _operation(
            "Simulation mode: the next simulated spin or drop", OBJECT, EmptyBody, [sid])},
        "/api/sessions/{session_id}/export": {"get": {
            "summary": "The session's log and photos as a zip (host)",
            "parameters": [sid],
            "responses": {"200": {"description": "The archive",
                                  "content": {"application/zip": {}}},
                          "4XX": {"description": "Refused",
                                  "content": {"application/json": {"schema": ERROR}}}},
        }},
        "/api/sessions/import": {"post": {
            "summary": "Import an exported session (host)",
            "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
                "type": "object", "required": ["archive"],
                "properties": {"archive": {"type": "string", "format": "binary"}}}}}},
            "responses": {"201": {"description": "Imported",
                                  "content": {"application/json": {"schema": OBJECT}}},
                          "4XX": {"description": "Refused; nothing changed",
                                  "content": {"application/json": {"schema": ERROR}}}},
        }},
        "/api/hardware/spinner/calibrate": {"post": _operation(
            "The spinner points at sector 1: store the calibration (host)", OBJECT,
            EmptyBody)},
        "/api/media/{sha}": {"get": {
            "summary": "A drop photo by its SHA-256",
            "parameters": [{"name": "sha", "in": "path", "required": True,
                            "schema": {"type": "string", "pattern": "^[0-9a-f]{64}$"}}],
            "responses": {"200": {"description": "The photo",
                                  "content": {"image/jpeg": {}, "image/png": {}}},
                          "4XX": {"description": "No such photo",
                                  "content": {"application/json": {"schema": ERROR}}}},
        }},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Tabletop Companion", "version": __version__,
                 "description": "The table's JSON API. Join with a PIN first; every write "
                                "carries the CSRF token of the join as X-CSRF-Token."},
        "paths": paths,
        "components": {
            "schemas": defs["$defs"],
            "securitySchemes": {
                "tablet": {"type": "apiKey", "in": "cookie", "name": "tc_access"},
                "csrf": {"type": "apiKey", "in": "header", "name": "X-CSRF-Token"},
            },
        },
        "security": [{"tablet": [], "csrf": []}],
    }
