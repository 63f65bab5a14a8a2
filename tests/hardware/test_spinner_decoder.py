"""Spinner decoder (companion.hardware.spinner) driven edge by edge on gpiozero mock pins."""

from __future__ import annotations

import threading

import pytest
from gpiozero.pins.mock import MockFactory

from companion.config import SpinnerConfig
from companion.hardware.pins import PiPins, load_pins
from companion.hardware.sim.spinner import VirtualClock
from companion.hardware.spinner import (
    FORWARD_LEVELS,
    Reading,
    RealClock,
    Spinner,
    SpinnerError,
    calibration_offset,
    read_sector,
)

PINS = load_pins().pi
N = 60  # 10 steps per sector: easy arithmetic


class Rig:
    """A spinner on mock pins, a virtual clock and a hand that turns the encoder step by step."""

    def __init__(self, counter: str = "quadrature", **settings: object) -> None:
        self.config = SpinnerConfig(
            **{"steps_per_rev": N, "settle_ms": 400, "use_index": False, **settings}
        )
        self.factory = MockFactory()
        self.clock = VirtualClock()
        self.readings: list[Reading] = []
        self.spins = 0
        self.spinner = Spinner(self.config, PINS, self.factory, self.readings.append,
                               clock=self.clock, counter=counter, on_spin=self._spun)
        self.a = self.factory.pin(PINS.spinner_a)
        self.b = self.factory.pin(PINS.spinner_b)
        self.index = self.factory.pin(PINS.spinner_index)
        self.phase = 0  # position in FORWARD_LEVELS; pins start high = FORWARD_LEVELS[0]

    def _spun(self) -> None:
        self.spins += 1

    def _set(self, pin: object, level: int) -> None:
        (pin.drive_high if level else pin.drive_low)()  # type: ignore[attr-defined]

    def step(self, n: int, dt: float = 0.001, chatter: int = 0) -> None:
        """Turn ``n`` steps (negative: backwards), one edge every ``dt`` seconds."""
        for _ in range(abs(n)):
            old = FORWARD_LEVELS[self.phase % 4]
            self.phase += 1 if n > 0 else -1
            new = FORWARD_LEVELS[self.phase % 4]
            pin, level = (self.a, new >> 1) if (old ^ new) == 2 else (self.b, new & 1)
            self.clock.advance_to(self.clock.now() + dt)
            self._set(pin, level)
            for _ in range(chatter):
                self._set(pin, 1 - level)
                self._set(pin, level)

    def wait(self, seconds: float) -> None:
        self.clock.advance_to(self.clock.now() + seconds)

    def close(self) -> None:
        self.spinner.close()
        self.factory.close()


@pytest.fixture
def rig() -> Rig:
    made = Rig()
    yield made
    made.close()


def test_spinner_counts_forward_and_back_one_step_per_edge(rig: Rig) -> None:
    rig.step(7)
    assert rig.spinner.count == 7
    rig.step(-3)
    assert rig.spinner.count == 4


def test_spinner_contact_bounce_does_not_change_the_count(rig: Rig) -> None:
    rig.step(25, chatter=3)
    assert rig.spinner.count == 25


def test_spinner_direction_agrees_with_gpiozero_rotary_encoder() -> None:
    rig = Rig(counter="rotary_encoder")
    try:
        rig.step(12)
        assert rig.spinner.count == 12  # three full cycles, reported in quadrature steps
        rig.step(-8)
        assert rig.spinner.count == 4
    finally:
        rig.close()


def test_spinner_reading_comes_only_after_the_settle_time(rig: Rig) -> None:
    rig.step(N + 25)  # one turn and 2.5 sectors
    rig.wait(0.399)
    assert rig.readings == []
    rig.wait(0.002)
    assert len(rig.readings) == 1
    reading = rig.readings[0]
    assert reading.steps == N + 25
    assert reading.value == 3  # position 25.5 of 60: sector 3 (steps 20..30)
    assert not reading.ambiguous and reading.confidence == 1.0
    assert reading.duration == pytest.approx((N + 24) * 0.001)
    assert rig.spins == 1


def test_spinner_slow_coast_keeps_the_spin_open_until_steps_stop(rig: Rig) -> None:
    rig.step(40)
    rig.step(5, dt=0.3)  # crawling: each gap is still shorter than settle_ms
    rig.wait(0.5)
    assert len(rig.readings) == 1 and rig.readings[0].steps == 45


def test_spinner_nudge_below_min_turn_is_ignored(rig: Rig) -> None:
    rig.step(20)  # a third of a turn: less than min_turn 0.5
    rig.step(-5)
    rig.wait(1.0)
    assert rig.readings == []
    assert rig.spinner.nudges == 1
    assert rig.spins == 0
    rig.step(35)  # the next real spin counts from where the nudge left the pointer
    rig.wait(1.0)
    assert [r.value for r in rig.readings] == [6]  # position 50.5: sector 6 (50..60)


def test_spinner_nudge_measures_reach_not_net_movement(rig: Rig) -> None:
    rig.step(35)
    rig.step(-35)  # there and back: net zero, but more than half a turn moved
    rig.wait(1.0)
    assert len(rig.readings) == 1 and rig.readings[0].steps == 0


def test_spinner_stop_on_a_sector_edge_is_ambiguous_with_both_candidates() -> None:
    rig = Rig(guard_steps=1)
    try:
        rig.step(N + 9)  # rests in step 9..10: the middle is 9.5, half a step from the edge
        rig.wait(0.5)
        reading = rig.readings[-1]
        assert reading.ambiguous
        assert reading.candidates == (1, 2)
        assert reading.value == 1
        assert 0.5 < reading.confidence < 1
        assert reading.reason == "stopped on a sector edge"
    finally:
        rig.close()


def test_spinner_guard_zero_never_asks() -> None:
    rig = Rig(guard_steps=0)
    try:
        rig.step(N + 9)
        rig.wait(0.5)
        assert not rig.readings[-1].ambiguous
    finally:
        rig.close()


def test_spinner_read_sector_wraps_from_sector_six_to_one() -> None:
    config = SpinnerConfig(steps_per_rev=N, guard_steps=2, use_index=False)
    assert read_sector(59.5, config) == (6, (6, 1), pytest.approx(0.625))
    assert read_sector(0.5, config) == (1, (1, 6), pytest.approx(0.625))
    assert read_sector(5.0, config) == (1, (1,), 1.0)
    assert read_sector(61.0, config)[0] == 1  # positions are taken modulo a turn


def test_spinner_read_sector_counter_doubt_widens_the_band() -> None:
    config = SpinnerConfig(steps_per_rev=N, guard_steps=1, use_index=False)
    assert read_sector(12.5, config)[1] == (2,)
    assert read_sector(12.5, config, extra_margin=3)[1] == (2, 1)


def test_spinner_calibration_puts_the_pointer_in_the_middle_of_sector_one(rig: Rig) -> None:
    rig.step(17)
    rig.wait(1.0)
    offset = rig.spinner.calibrate()
    assert offset == calibration_offset(17.5, rig.config) == 12  # 17.5 - 5 rounded
    assert rig.spinner.current().value == 1
    rig.step(N + 20)  # one turn and two sectors on
    rig.wait(1.0)
    assert rig.readings[-1].value == 3


def test_spinner_calibration_is_refused_while_the_spinner_moves(rig: Rig) -> None:
    rig.step(5)
    with pytest.raises(SpinnerError, match="still moving"):
        rig.spinner.calibrate()


def test_spinner_offset_from_config_is_applied() -> None:
    rig = Rig(offset_steps=50)
    try:
        rig.step(N + 5)  # position 5.5 - 50 = 15.5 mod 60: sector 2
        rig.wait(1.0)
        assert rig.readings[-1].value == 2
    finally:
        rig.close()


INDEX_AT = 10  # the index magnet sits at step 10 of the turn in these tests


def _pass_index(rig: Rig, early: int = 0) -> None:
    """Turn forward until the index (``early`` steps early), over it, and three steps on."""
    rig.step((INDEX_AT - early - rig.phase) % N or N)
    rig.index.drive_low()
    rig.step(3)
    rig.index.drive_high()


def _lose_a_cycle(rig: Rig) -> None:
    """An overrun: both edges of channel A in one quadrature cycle go unseen."""
    rig.step(-rig.phase % 4)
    rig.a.edges = "rising"  # the falling edge is lost ...
    rig.step(4)  # ... so the rising one repeats A's level
    rig.a.edges = "both"


def test_spinner_index_unreferenced_reading_asks() -> None:
    rig = Rig(use_index=True)
    try:
        rig.step(N)
        rig.wait(1.0)
        assert rig.readings[-1].ambiguous
        assert rig.readings[-1].reason == "the index sensor has not been passed yet"
        with pytest.raises(SpinnerError, match="index"):
            rig.spinner.calibrate()
    finally:
        rig.close()


def test_spinner_index_rezeroes_after_missed_edges() -> None:
    rig = Rig(use_index=True)
    try:
        _pass_index(rig)  # the index becomes the zero
        rig.step(40)
        rig.wait(1.0)
        assert rig.spinner.referenced
        assert rig.readings[-1].position == pytest.approx(43.5)
        _lose_a_cycle(rig)
        _lose_a_cycle(rig)
        rig.wait(1.0)
        assert rig.spinner.missed_edges == 2
        doubtful = rig.spinner.current()
        assert doubtful.ambiguous and "missed" in doubtful.reason
        assert doubtful.position != pytest.approx((rig.phase - INDEX_AT) % N + 0.5)
        _pass_index(rig)  # the next pass finds the count 8 steps behind and corrects it
        rig.wait(1.0)
        assert rig.spinner.index_corrections == [-8]
        now = rig.spinner.current()
        assert not now.ambiguous
        assert now.position == pytest.approx(3.5)  # three steps past the index, as it is
    finally:
        rig.close()


def test_spinner_index_ignores_one_step_sensor_jitter() -> None:
    rig = Rig(use_index=True)
    try:
        _pass_index(rig)
        _pass_index(rig, early=1)  # this pass the sensor triggers a step early
        assert rig.spinner.index_corrections == []
        assert rig.spinner.current().position == pytest.approx(3.5 - 1)
    finally:
        rig.close()


def test_spinner_use_index_without_an_index_pin_is_a_clear_error() -> None:
    factory = MockFactory()
    pins = PiPins(spinner_a=PINS.spinner_a, spinner_b=PINS.spinner_b, spinner_index=None)
    with pytest.raises(SpinnerError, match=r"no \[pi.spinner\] index"):
        Spinner(SpinnerConfig(use_index=True), pins, factory, print, clock=VirtualClock())
    factory.close()


def test_spinner_unknown_counter_is_a_clear_error() -> None:
    factory = MockFactory()
    with pytest.raises(SpinnerError, match="unknown spinner counter"):
        Spinner(SpinnerConfig(use_index=False), PINS, factory, print, clock=VirtualClock(),
                counter="abacus")
    factory.close()


def test_spinner_reading_is_immutable_and_serialisable(rig: Rig) -> None:
    rig.step(N)
    rig.wait(1.0)
    reading = rig.readings[0]
    with pytest.raises(AttributeError):
        reading.value = 4  # type: ignore[misc]
    assert set(reading.to_json()) >= {"value", "candidates", "ambiguous", "confidence",
                                      "steps", "duration"}


def test_spinner_real_clock_runs_timers_in_order() -> None:
    clock = RealClock()
    try:
        fired: list[int] = []
        done = threading.Event()
        now = clock.now()
        clock.call_at(now + 0.02, lambda: fired.append(2) or done.set())
        clock.call_at(now + 0.01, lambda: fired.append(1))
        assert done.wait(5)
        assert fired == [1, 2]
    finally:
        clock.close()
