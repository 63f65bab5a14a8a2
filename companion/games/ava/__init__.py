"""Allies vs Axis (盟軍 vs. 軸心國): the rules engine of ``rules/allies-vs-axis.md``."""

from companion.games.ava.game import AvaGame

GAME = AvaGame()

__all__ = ["GAME", "AvaGame"]
