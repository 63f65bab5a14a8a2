"""A fake ``neopixel`` module: keeps the colours and every frame written."""

from __future__ import annotations

from typing import Any, ClassVar


class NeoPixel:
    made: ClassVar[list[NeoPixel]] = []

    def __init__(self, pin: Any, n: int) -> None:
        self.pin = pin
        self.n = n
        self.colours = [(0, 0, 0)] * n
        self.frames: list[list[tuple[int, int, int]]] = []
        NeoPixel.made.append(self)

    def __setitem__(self, index: int, colour: tuple[int, int, int]) -> None:
        if not 0 <= index < self.n:
            raise IndexError(index)
        self.colours[index] = colour

    def write(self) -> None:
        self.frames.append(list(self.colours))
