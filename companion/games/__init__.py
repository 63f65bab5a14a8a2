"""The registry of games the companion can run: the built-in ones plus any named in config."""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from companion.engine import Game

BUILT_IN: dict[str, str] = {
    # game id -> "module:attribute" of its Game instance
    "ava": "companion.games.ava:GAME",
    "cpx": "companion.games.cpx:GAME",
}


class UnknownGame(LookupError):
    pass


def load_game(spec: str) -> Game:
    """Load a Game instance from ``"package.module:attribute"``."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise UnknownGame(f"'{spec}' is not of the form 'package.module:attribute'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UnknownGame(f"cannot import game module '{module_name}': {exc}") from exc
    game = getattr(module, attribute, None)
    if not isinstance(game, Game):
        raise UnknownGame(f"'{spec}' is not a Game")
    return game


class GameRegistry:
    """Games by id. Built-in games load lazily, so an unused engine costs nothing at start."""

    def __init__(self, extra: Iterable[str] = ()) -> None:
        self._specs = dict(BUILT_IN)
        self._loaded: dict[str, Game] = {}
        for spec in extra:
            game = load_game(spec)
            self._specs[game.id] = spec
            self._loaded[game.id] = game

    def ids(self) -> list[str]:
        return sorted(self._specs)

    def get(self, game_id: str) -> Game:
        if game_id not in self._loaded:
            spec = self._specs.get(game_id)
            if spec is None:
                known = ", ".join(self.ids()) or "none"
                raise UnknownGame(f"unknown game '{game_id}' (known: {known})")
            self._loaded[game_id] = load_game(spec)
        return self._loaded[game_id]
