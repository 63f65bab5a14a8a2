"""Tabletop Companion: the application around the two rules engines."""

__version__ = "0.1.0"
