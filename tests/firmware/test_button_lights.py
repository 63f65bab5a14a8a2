"""firmware/button.py and firmware/lights.py: one report per press, ring levels, LED patterns."""

from __future__ import annotations

import types


def test_a_bouncy_press_is_reported_once(fw: types.SimpleNamespace) -> None:
    button = fw.button.Button(debounce_ms=30)
    levels = [0, 1, 0, 1, 0] + [0] * 40 + [1, 0, 1] + [1] * 40
    reports = [t for t, level in enumerate(levels) if button.poll(level, t)]
    assert len(reports) == 1 and reports[0] >= 4 + 30


def test_a_tap_shorter_than_the_debounce_is_ignored(fw: types.SimpleNamespace) -> None:
    button = fw.button.Button(debounce_ms=30)
    levels = [0] * 20 + [1] * 50
    assert not any(button.poll(level, t) for t, level in enumerate(levels))


class Ring:
    def __init__(self) -> None:
        self.colours = [(9, 9, 9)] * 4
        self.writes = 0

    def __setitem__(self, i: int, c: tuple[int, int, int]) -> None:
        self.colours[i] = c

    def write(self) -> None:
        self.writes += 1


def test_ring_starts_dark_and_follows_on_off_level(fw: types.SimpleNamespace) -> None:
    pixels = Ring()
    ring = fw.lights.LightRing(pixels, 4, 200)
    assert pixels.colours == [(0, 0, 0)] * 4 and pixels.writes == 1
    ring.on()
    assert pixels.colours == [(200, 200, 200)] * 4
    ring.on(17)
    assert pixels.colours == [(17, 17, 17)] * 4 and ring.output() == 17
    ring.off()
    assert pixels.colours == [(0, 0, 0)] * 4 and ring.level == 17


def test_status_led_blinks_to_the_pattern_and_writes_only_changes(
        fw: types.SimpleNamespace) -> None:
    writes: list[int] = []
    led = fw.lights.StatusLed(writes.append)
    for t in range(0, 4000, 10):
        led.update("no_host", t)
    assert writes[:4] == [1, 0, 1, 0] and len(writes) == 4  # two short blips in 4 s
    writes.clear()
    for t in range(0, 200, 5):
        led.update("drop", t)
    assert len(writes) == 4  # 100 ms period: on and off twice
