"""A fake ``micropython`` module with the few functions the firmware calls."""

from __future__ import annotations

kbd_intr_char: int | None = None


def const(value: int) -> int:
    return value


def kbd_intr(char: int) -> None:
    global kbd_intr_char
    kbd_intr_char = char


def alloc_emergency_exception_buf(size: int) -> None:
    del size
