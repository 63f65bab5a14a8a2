"""The spinner: a quadrature encoder read through gpiozero, turned into sector readings.

Edges arrive as gpiozero pin callbacks (lgpio on a Pi, ``MockFactory`` pins in simulation), so
the simulated spinner exercises exactly this code. Time comes from an injectable :class:`Clock`:
on hardware a real monotonic clock with a timer thread, in simulation a virtual one, so a
thousand settle waits cost no wall time while the pins and the decoder stay the real ones.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from companion.config import SpinnerConfig
from companion.errors import CompanionError
from companion.hardware.pins import PiPins

# Pin levels (A << 1 | B, 1 = high) in the order the encoder passes them turning forward
# (clockwise). The same order gpiozero's RotaryEncoder counts as +1, so both counters agree.
FORWARD_LEVELS: tuple[int, int, int, int] = (3, 1, 0, 2)
_PHASE = {level: i for i, level in enumerate(FORWARD_LEVELS)}
# Phase difference from level ``old`` to ``new``: 1 is a step forward, 3 a step back (one channel
# changes per edge, so 2 cannot occur).
_DELTA = [[(_PHASE[new] - _PHASE[old]) % 4 for new in range(4)] for old in range(4)]

COUNTERS = ("quadrature", "rotary_encoder")

log = logging.getLogger(__name__)


class SpinnerError(CompanionError):
    pass


# --- time --------------------------------------------------------------------------------------
class Clock(Protocol):
    """Seconds that only go forward, and one-shot timers on the same time line."""

    def now(self) -> float: ...

    def call_at(self, when: float, callback: Callable[[], None]) -> None: ...


class RealClock:
    """``time.monotonic`` and a single daemon thread that runs timers when they fall due."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="spinner-clock", daemon=True)
        self._thread.start()

    def now(self) -> float:
        return time.monotonic()

    def call_at(self, when: float, callback: Callable[[], None]) -> None:
        with self._cond:
            heapq.heappush(self._heap, (when, next(self._order), callback))
            self._cond.notify()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._thread.join(timeout=2)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed and (
                    not self._heap or self._heap[0][0] > time.monotonic()
                ):
                    timeout = self._heap[0][0] - time.monotonic() if self._heap else None
                    self._cond.wait(timeout)
                if self._closed:
                    return
                _, _, callback = heapq.heappop(self._heap)
            try:
                callback()
            except Exception:  # a failing reader must not stop the clock for the others
                log.exception("spinner timer failed")


# --- readings ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Reading:
    """One finished spin: the sector under the pointer and how sure the decoder is.

    ``candidates`` lists the possible sectors, most likely first; it has two entries when the
    stop was within the guard band of an edge (then ``ambiguous`` is true and the players are
    asked). ``confidence`` is the chance the first candidate is right under the guard band's
    error model. ``steps`` is the signed net movement of the spin, ``position`` the resting
    place in steps from the start of sector 1, ``reason`` says why a reading is doubtful.
    """

    value: int
    candidates: tuple[int, ...]
    ambiguous: bool
    confidence: float
    steps: int
    duration: float
    position: float
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "candidates": list(self.candidates),
            "ambiguous": self.ambiguous,
            "confidence": round(self.confidence, 4),
            "steps": self.steps,
            "duration": round(self.duration, 4),
            "position": round(self.position, 3),
            "reason": self.reason,
        }


def read_sector(
    position: float, config: SpinnerConfig, extra_margin: float = 0.0
) -> tuple[int, tuple[int, ...], float]:
    """Sector, candidates and confidence for a pointer ``position`` (steps from sector 1).

    The error model: the true pointer lies anywhere within ``margin`` steps of the estimate,
    where margin is the guard band plus what the counter adds. A stop closer than that to an
    edge has two candidates, weighted by how much of the window falls on each side.
    """
    n, sectors = config.steps_per_rev, config.sectors
    width = n / sectors
    pos = position % n
    index = min(int(pos // width), sectors - 1)
    value = index + 1
    margin = config.guard_steps + extra_margin
    into = pos - index * width
    to_start, to_end = into, width - into
    near = min(to_start, to_end)
    if margin <= 0 or near >= margin:
        return value, (value,), 1.0
    other = (index - 1) % sectors + 1 if to_start < to_end else (index + 1) % sectors + 1
    confidence = (margin + near) / (2 * margin)
    return value, (value, other), confidence


def calibration_offset(rest_position: float, config: SpinnerConfig) -> int:
    """``offset_steps`` that puts the pointer's present ``rest_position`` (steps from the
    encoder's zero) in the middle of sector 1: the player points at sector 1 and confirms."""
    n = config.steps_per_rev
    return round(rest_position - n / config.sectors / 2) % n


# --- counters ----------------------------------------------------------------------------------
class _Counter(Protocol):
    extra_margin: float
    missed: int

    @property
    def count(self) -> int: ...

    @property
    def direction(self) -> int: ...

    def close(self) -> None: ...


class QuadratureCounter:
    """Full-resolution (x4) decoding of two gpiozero input devices, one count per edge.

    Contact bounce is harmless: a chattering channel counts +1 -1 +1. Each channel's level is
    remembered, so a report that repeats a channel's level means the opposite edge in between
    was lost (an overrun on a busy Pi); it is counted in ``missed`` so the reading widens its
    doubt until the next index pass.
    """

    extra_margin = 0.0

    def __init__(self, a: int, b: int, factory: Any, on_step: Callable[[int], None]) -> None:
        from gpiozero import InputDevice

        self._a = InputDevice(a, pull_up=True, pin_factory=factory)
        try:
            self._b = InputDevice(b, pull_up=True, pin_factory=factory)
        except Exception:
            self._a.close()
            raise
        self._on_step = on_step
        self._level = (int(self._a.pin.state) << 1) | int(self._b.pin.state)
        self._count = 0
        self._direction = 1
        self.missed = 0
        for device in (self._a, self._b):
            device.pin.edges = "both"
        self._a.pin.when_changed = self._a_changed
        self._b.pin.when_changed = self._b_changed

    @property
    def count(self) -> int:
        return self._count

    @property
    def direction(self) -> int:
        """+1 or -1: the way the last step went."""
        return self._direction

    # lgpio also reports level 2 (a watchdog tick, no change): only 0 and 1 are edges.
    def _a_changed(self, ticks: object, state: object) -> None:
        if state in (0, 1):
            self._changed((int(bool(state)) << 1) | (self._level & 1))

    def _b_changed(self, ticks: object, state: object) -> None:
        if state in (0, 1):
            self._changed((self._level & 2) | int(bool(state)))

    def _changed(self, level: int) -> None:
        if level == self._level:
            self.missed += 1
            return
        step = 1 if _DELTA[self._level][level] == 1 else -1
        self._level = level
        self._direction = step
        self._count += step
        self._on_step(step)

    def close(self) -> None:
        for device in (self._a, self._b):
            device.pin.when_changed = None
            device.close()


class RotaryEncoderCounter:
    """gpiozero's own ``RotaryEncoder(max_steps=0)``: one count per full quadrature cycle.

    Kept to measure against :class:`QuadratureCounter`: it only counts a cycle once the levels
    return to rest, so a stop between detents is known to within about three quadrature steps
    either side, which the reading adds to its doubt.
    """

    extra_margin = 3.0

    def __init__(self, a: int, b: int, factory: Any, on_step: Callable[[int], None]) -> None:
        from gpiozero import RotaryEncoder

        self._encoder = RotaryEncoder(a, b, max_steps=0, pin_factory=factory)
        self._on_step = on_step
        self._encoder.when_rotated_clockwise = self._cw
        self._encoder.when_rotated_counter_clockwise = self._ccw
        self.missed = 0
        self._direction = 1

    @property
    def count(self) -> int:
        return 4 * int(self._encoder.steps)

    @property
    def direction(self) -> int:
        return self._direction

    def _cw(self) -> None:
        self._direction = 1
        self._on_step(4)

    def _ccw(self) -> None:
        self._direction = -1
        self._on_step(-4)

    def close(self) -> None:
        self._encoder.close()


# --- the spinner -------------------------------------------------------------------------------
class Spinner:
    """Watches the encoder, detects spins and delivers one :class:`Reading` per spin.

    A spin starts with the first step after rest and counts once it has moved at least
    ``min_turn`` of a turn from where it started (a nudge is ignored); it ends when no step came
    for ``settle_ms``. With ``use_index`` the index sensor re-zeroes the count on every pass.
    """

    def __init__(
        self,
        config: SpinnerConfig,
        pins: PiPins,
        factory: Any,
        on_reading: Callable[[Reading], None],
        *,
        clock: Clock | None = None,
        on_spin: Callable[[], None] | None = None,
        counter: str = "quadrature",
    ) -> None:
        if counter not in COUNTERS:
            raise SpinnerError(f"unknown spinner counter {counter!r} (one of {COUNTERS})")
        if config.use_index and pins.spinner_index is None:
            raise SpinnerError("spinner.use_index is on but pins.toml has no [pi.spinner] index")
        self.config = config
        self._owns_clock = clock is None
        self._clock: Clock = clock if clock is not None else RealClock()
        self._on_reading = on_reading
        self._on_spin = on_spin
        self._lock = threading.RLock()
        self._n = config.steps_per_rev
        self._offset = config.offset_steps
        self._settle = config.settle_ms / 1000
        self._min_steps = config.min_turn * self._n
        self._zero = 0
        self._referenced = not config.use_index
        self._missed_at_reference = 0
        self._spinning = False
        self._start_count = 0
        self._start_time = 0.0
        self._last_step = 0.0
        self._reach = 0
        self._announced = False
        self._index_armed = True
        self._index_at = 0
        self.index_corrections: list[int] = []
        self.nudges = 0
        kind = QuadratureCounter if counter == "quadrature" else RotaryEncoderCounter
        self._counter: QuadratureCounter | RotaryEncoderCounter = kind(
            pins.spinner_a, pins.spinner_b, factory, self._stepped
        )
        self._index: Any = None
        if config.use_index and pins.spinner_index is not None:
            from gpiozero import InputDevice

            try:
                self._index = InputDevice(pins.spinner_index, pull_up=True, pin_factory=factory)
            except Exception:
                self._counter.close()
                raise
            self._index.pin.edges = "both"
            self._index.pin.when_changed = self._index_changed

    # -- state seen from outside
    @property
    def clock(self) -> Clock:
        """The time line this spinner settles on (a simulated spinner must play on it too)."""
        return self._clock

    @property
    def count(self) -> int:
        return self._counter.count

    @property
    def missed_edges(self) -> int:
        """Edge reports that showed a lost edge (each can put the count two steps out)."""
        return self._counter.missed

    @property
    def referenced(self) -> bool:
        """False while ``use_index`` is on and the index has not been passed yet."""
        return self._referenced

    @property
    def offset_steps(self) -> int:
        return self._offset

    def rest_position(self) -> float:
        """Where the pointer rests, in steps from the encoder's zero (middle of the step)."""
        with self._lock:
            return (self._counter.count - self._zero) % self._n + 0.5

    def calibrate(self) -> int:
        """The pointer is on sector 1: compute, adopt and return ``offset_steps``."""
        with self._lock:
            if self._spinning:
                raise SpinnerError("the spinner is still moving: let it stop, then confirm")
            if not self._referenced:
                raise SpinnerError(
                    "the index sensor has not been passed yet: turn the spinner once, "
                    "point it at sector 1 again and confirm"
                )
            self._offset = calibration_offset(self.rest_position(), self.config)
            self._missed_at_reference = self._counter.missed
            return self._offset

    def current(self) -> Reading:
        """The reading for where the spinner rests now (for the dashboard and calibration)."""
        with self._lock:
            return self._reading(0, 0.0)

    # -- edges and timers
    def _stepped(self, step: int) -> None:
        with self._lock:
            now = self._clock.now()
            self._last_step = now
            if not self._spinning:
                self._spinning = True
                self._start_count = self._counter.count - step
                self._start_time = now
                self._reach = 0
                self._announced = False
                self._clock.call_at(now + self._settle, self._check_settled)
            if not self._announced:  # once it is a spin, how far it reached no longer matters
                reach = abs(self._counter.count - self._start_count)
                if reach > self._reach:
                    self._reach = reach
                    if reach >= self._min_steps:
                        self._announced = True
                        if self._on_spin is not None:
                            self._on_spin()
            if not self._index_armed and abs(self._counter.count - self._index_at) >= self._n / 4:
                self._index_armed = True

    def _index_changed(self, ticks: object, state: object) -> None:
        # The sensor pulls low over the magnet. Its leading edge going forward and its trailing
        # edge going backward are the same place on the disc: that place is the zero.
        # A drift of one step is the sensor's own jitter against the encoder's edges and is
        # left alone; a missed edge makes at least two.
        if state not in (0, 1):
            return
        with self._lock:
            entering = not bool(state)
            if entering != (self._counter.direction > 0) or not self._index_armed:
                return
            count = self._counter.count
            drift = (count - self._zero + self._n // 2) % self._n - self._n // 2
            if not self._referenced or abs(drift) > 1:
                if self._referenced:
                    self.index_corrections.append(drift)
                self._zero = count % self._n
            self._referenced = True
            self._missed_at_reference = self._counter.missed
            self._index_armed = False
            self._index_at = count

    def _check_settled(self) -> None:
        reading: Reading | None = None
        with self._lock:
            if not self._spinning:
                return
            due = self._last_step + self._settle
            if self._clock.now() < due:
                self._clock.call_at(due, self._check_settled)
                return
            self._spinning = False
            if self._reach < self._min_steps:
                self.nudges += 1
                return
            steps = self._counter.count - self._start_count
            reading = self._reading(steps, self._last_step - self._start_time)
        self._on_reading(reading)

    def _reading(self, steps: int, duration: float) -> Reading:
        position = (self.rest_position() - self._offset) % self._n
        missed = self._counter.missed - self._missed_at_reference
        extra = self._counter.extra_margin + 4 * missed
        value, candidates, confidence = read_sector(position, self.config, extra)
        reason = ""
        if not self._referenced:
            reason = "the index sensor has not been passed yet"
            confidence = 0.0
        elif missed:
            reason = f"{missed} missed encoder edge(s) since the last reference"
        elif len(candidates) > 1:
            reason = "stopped on a sector edge"
        return Reading(
            value=value,
            candidates=candidates,
            ambiguous=len(candidates) > 1 or not self._referenced,
            confidence=confidence,
            steps=steps,
            duration=duration,
            position=position,
            reason=reason,
        )

    def close(self) -> None:
        with self._lock:
            self._counter.close()
            if self._index is not None:
                self._index.pin.when_changed = None
                self._index.close()
        if self._owns_clock and isinstance(self._clock, RealClock):
            self._clock.close()

    def __enter__(self) -> Spinner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- pin factories -----------------------------------------------------------------------------
def is_raspberry_pi(model_file: Path = Path("/proc/device-tree/model")) -> bool:
    try:
        return "raspberry pi" in model_file.read_text(errors="replace").lower()
    except OSError:
        return False


def hardware_pin_factory() -> Any:
    """gpiozero's lgpio factory on a Raspberry Pi; a clear error anywhere else."""
    if not is_raspberry_pi():
        raise SpinnerError(
            "no Raspberry Pi GPIO on this machine: use --sim for the simulated spinner"
        )
    try:
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory()
    except ImportError as exc:
        raise SpinnerError(
            f"lgpio is missing ({exc}): install it with pip install '.[pi]'"
        ) from exc
    except Exception as exc:
        raise SpinnerError(f"cannot open the GPIO chip ({exc}); is the user in 'gpio'?") from exc


def mock_pin_factory() -> Any:
    """A fresh gpiozero ``MockFactory`` (tests and simulation)."""
    from gpiozero.pins.mock import MockFactory

    return MockFactory()

