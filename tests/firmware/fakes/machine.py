"""A fake ``machine`` module for running firmware/main.py on CPython: pins a test can drive."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    IRQ_FALLING = 4
    IRQ_RISING = 8
    made: ClassVar[dict[int, Pin]] = {}  # the latest Pin object made for each pin number

    def __init__(self, number: int, mode: int = IN, pull: int | None = None) -> None:
        self.number = number
        self.mode = mode
        self.pull = pull
        self.level = 1 if pull == Pin.PULL_UP else 0
        self.handler: Callable[[Pin], Any] | None = None
        self.trigger = 0
        self.hard = False
        self.history: list[int] = []
        Pin.made[number] = self

    def value(self, level: int | None = None) -> int | None:
        if level is None:
            return self.level
        self.level = 1 if level else 0
        self.history.append(self.level)
        return None

    def irq(self, handler: Callable[[Pin], Any] | None = None, trigger: int = 0,
            hard: bool = False) -> None:
        self.handler, self.trigger, self.hard = handler, trigger, hard

    def drive(self, level: int) -> None:
        """The outside world sets an input pin; fires the interrupt on a matching edge."""
        old, self.level = self.level, level
        edge = 0
        if old != level:
            edge = self.IRQ_RISING if level else self.IRQ_FALLING
        if self.handler is not None and edge & self.trigger:
            self.handler(self)


class WDT:
    def __init__(self, timeout: int = 5000) -> None:
        self.timeout = timeout
        self.fed = 0

    def feed(self) -> None:
        self.fed += 1
