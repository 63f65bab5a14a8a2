"""The engine's legal commands and count forms for one view of a state, computed once.

A refresh of a table draws its board (the offers with their odds, the count names) and its
buttons from the same lists, and a busy Command Post Exercise turn lists ~1,500 commands, which
a Raspberry Pi feels. The callers that have the lists pass them down; the others get them here,
remembered for the request's latest state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from flask import g, has_app_context

from companion.engine import Command, CountForm, Game


def _known(game: Game, state: Any) -> dict[str, Any]:
    """This request's lists for ``state`` (empty when it moved on to another state, or outside
    a request). The entry holds the state itself, so a recycled ``id`` is never mistaken for it,
    and only the latest, so a test that draws hundreds of states in one context keeps none."""
    if not has_app_context():
        return {}
    entry = getattr(g, "_board_lists", None)
    if entry is None or entry[0] is not state or entry[1] is not game:
        entry = g._board_lists = (state, game, {})
    known: dict[str, Any] = entry[2]
    return known


def _once(game: Game, state: Any, key: str, given: Sequence[Any] | None,
          compute: Callable[[Any], Sequence[Any]]) -> list[Any]:
    """``given`` when the caller has it, else ``compute(state)`` at most once per request and
    state; remembered under ``key`` either way."""
    known = _known(game, state)
    if given is not None:
        known[key] = list(given)
    elif key not in known:
        known[key] = list(compute(state))
    result: list[Any] = known[key]
    return result


def legal_commands(game: Game, state: Any,
                   given: Sequence[Command] | None = None) -> list[Command]:
    """``game.legal_commands(state)``, computed once per request and state."""
    return _once(game, state, "legal", given, game.legal_commands)


def count_forms(game: Game, state: Any,
                given: Sequence[CountForm] | None = None) -> list[CountForm]:
    """``game.count_forms(state)``, computed once per request and state."""
    return _once(game, state, "forms", given, game.count_forms)


def both(game: Game, state: Any) -> tuple[list[Command], list[CountForm]]:
    """Both lists, for a caller that passes them on (``pages.table_view``)."""
    return legal_commands(game, state), count_forms(game, state)
