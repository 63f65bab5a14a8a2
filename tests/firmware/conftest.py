"""Firmware logic on CPython: the modules loaded from firmware/, a fake clock, a tower harness.

Output lines are read back with the host's own parser (companion.hardware.tower_protocol), so
every firmware test also checks that the two implementations of the protocol agree.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.hardware import tower_protocol as host
from companion.hardware.sim.tower_device import FIRMWARE_DIR, FIRMWARE_MODULES, load_firmware

FAKES = Path(__file__).parent / "fakes"
TICKS_PERIOD = 1 << 30
# Start near the wrap of both tick counters, so every test crosses it.
START_NS = 1_000_000 * TICKS_PERIOD - 1_500_000_000  # ms and µs ticks both wrap 1.5 s in


@pytest.fixture(scope="session")
def fw() -> types.SimpleNamespace:
    return load_firmware()


@pytest.fixture
def main_module() -> Iterator[types.ModuleType]:
    """firmware/main.py imported against the fake machine, neopixel and micropython modules."""
    names = (*FIRMWARE_MODULES, "pins", "main", "machine", "neopixel", "micropython")
    saved = {name: sys.modules.pop(name) for name in names if name in sys.modules}
    sys.path[:0] = [str(FIRMWARE_DIR), str(FAKES)]
    try:
        yield importlib.import_module("main")
    finally:
        sys.path.remove(str(FIRMWARE_DIR))
        sys.path.remove(str(FAKES))
        for name in names:
            sys.modules.pop(name, None)
        sys.modules.update(saved)


class Clock:
    """Nanoseconds since an arbitrary start, turned into wrapping ms and µs ticks."""

    def __init__(self, start_ns: int = START_NS) -> None:
        self.ns = start_ns

    def advance_ms(self, ms: float) -> None:
        self.ns += int(ms * 1_000_000)

    def ms(self) -> int:
        return (self.ns // 1_000_000) % TICKS_PERIOD

    def us(self, offset_us: float = 0) -> int:
        return int(self.ns // 1000 + offset_us) % TICKS_PERIOD


class Pixels:
    def __init__(self, n: int) -> None:
        self.colours = [(0, 0, 0)] * n
        self.writes = 0

    def __setitem__(self, index: int, colour: tuple[int, int, int]) -> None:
        self.colours[index] = colour

    def write(self) -> None:
        self.writes += 1


class Harness:
    """A Tower on a fake clock; ``sent`` holds every line it wrote, parsed by the host codec."""

    def __init__(self, fw: types.SimpleNamespace, **tower_args: Any) -> None:
        self.fw = fw
        self.clock = Clock()
        self.raw: list[bytes] = []
        self.pixels = Pixels(16)
        self.led: list[int] = []
        self.button_level = 1
        self.beam = fw.beam.Beam(1000, 500, fw.beam.CLEAR)
        self.ring = fw.lights.LightRing(self.pixels, 16, 255)
        self.tower = fw.tower.Tower(self.raw.append, self.beam, self.ring,
                                    fw.lights.StatusLed(self.led.append), fw.button.Button(),
                                    "C0FFEE01", self.clock.ms(), **tower_args)
        self.host_seq = 0

    @property
    def sent(self) -> list[host.Line]:
        decoder = host.LineDecoder()
        lines = decoder.feed(b"".join(self.raw))
        assert decoder.rejected == dict.fromkeys(host.REASONS, 0), decoder.rejected
        return lines

    def kinds(self) -> list[str]:
        return [line.kind for line in self.sent]

    def take(self) -> list[host.Line]:
        lines = self.sent
        self.raw.clear()
        return lines

    def step(self, ms: float = 1.0) -> None:
        self.clock.advance_ms(ms)
        self.tower.step(self.clock.ms(), self.clock.us(), self.button_level)

    def run(self, ms: float, every: float = 1.0) -> None:
        for _ in range(int(ms / every)):
            self.step(every)

    def send(self, kind: str, *fields: tuple[str, int | str], seq: int | None = None) -> int:
        if seq is None:
            self.host_seq += 1
            seq = self.host_seq
        self.tower.feed(host.encode(seq, kind, fields))
        return seq

    def reply_to(self, seq: int) -> host.Line:
        replies = [line for line in self.sent if line.fields.get("re") == str(seq)]
        assert len(replies) == 1, replies
        return replies[0]

    def hello(self) -> None:
        self.send("HELLO", ("proto", 1))

    def cube(self, length_ms: float = 8.0, chatter: int = 0) -> None:
        """One cube through the beam now: break, ``length_ms`` later clear; optional chatter."""
        t = 0.0
        for _ in range(chatter):
            self.beam.irq(0, self.clock.us(t))
            self.beam.irq(1, self.clock.us(t + 50))
            t += 150
        self.beam.irq(0, self.clock.us(t))
        for _ in range(chatter):
            self.beam.irq(1, self.clock.us(length_ms * 1000 + t))
            self.beam.irq(0, self.clock.us(length_ms * 1000 + t + 60))
            t += 150
        self.beam.irq(1, self.clock.us(length_ms * 1000 + t))
        self.clock.advance_ms(length_ms + t / 1000 + 0.2)


@pytest.fixture
def harness(fw: types.SimpleNamespace) -> Harness:
    return Harness(fw)
