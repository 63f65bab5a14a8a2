"""A simulated spinner: a physical model that toggles gpiozero mock pins edge by edge.

The model flicks a disc (up to ~10 rev/s), slows it with bearing friction and air drag, adds a
once-per-turn wobble, lets it rock back a little as it stops, and makes the contacts chatter
while a channel's edge is within a narrow band of the sensor's threshold. Every edge is a
``drive_low()``/``drive_high()`` on the ``MockFactory`` pins that the real
:class:`~companion.hardware.spinner.Spinner` listens to; only time is virtual
(:class:`VirtualClock`), so a thousand 400 ms settle waits cost no wall time.
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from companion.config import SpinnerConfig
from companion.hardware.pins import PiPins
from companion.hardware.spinner import (
    FORWARD_LEVELS,
    Clock,
    Reading,
    Spinner,
    mock_pin_factory,
)


class VirtualClock:
    """Simulated time: ``now`` moves only when the simulation says so, timers run in order."""

    def __init__(self, start: float = 0.0) -> None:
        self.t = start
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self.due = math.inf

    def now(self) -> float:
        return self.t

    def call_at(self, when: float, callback: Callable[[], None]) -> None:
        heapq.heappush(self._heap, (when, next(self._order), callback))
        self.due = self._heap[0][0]

    def advance_to(self, when: float) -> None:
        """Run every timer due up to ``when`` (at its own time), then stand at ``when``."""
        while self._heap and self._heap[0][0] <= when:
            at, _, callback = heapq.heappop(self._heap)
            self.t = max(self.t, at)
            callback()
        self.due = self._heap[0][0] if self._heap else math.inf
        self.t = max(self.t, when)


@dataclass(frozen=True)
class SpinnerModel:
    """Physical constants of the simulated spinner (angles in encoder steps, times in s)."""

    steps_per_rev: int
    sectors: int = 6
    friction: float = 2.0  # rev/s², bearing (Coulomb) friction
    drag: float = 0.3  # 1/s, air drag proportional to speed
    wobble: float = 0.03  # ± fraction of speed, once per turn (an off-centre disc)
    rebound: float = 1.5  # most steps the disc rocks back as it stops
    bounce_band: float = 0.1  # steps either side of a channel's edge where contacts chatter
    bounce_probability: float = 0.25  # chance that an edge chatters
    bounce_max_s: float = 0.002  # longest chatter at crawling speed
    face_origin: float = 0.37  # start of sector 1, as a fraction of a turn from power-up zero
    index_at: float = 0.61  # index magnet's leading edge, fraction of a turn
    index_width: float = 0.03  # fraction of a turn the hall sensor stays low
    sample_s: float = 0.001  # trajectory sampling; edge times are interpolated between samples
    drop_rate: float = 0.0  # chance that the Pi never sees an encoder edge (an overrun)

    @classmethod
    def for_config(cls, config: SpinnerConfig, **changes: Any) -> SpinnerModel:
        return cls(steps_per_rev=config.steps_per_rev, sectors=config.sectors, **changes)

    def sector_at(self, angle: float) -> int:
        """The sector under the pointer when the disc rests at ``angle`` steps."""
        n = self.steps_per_rev
        rel = (angle - self.face_origin * n) % n
        return min(int(rel // (n / self.sectors)), self.sectors - 1) + 1

    def centre_of(self, sector: int) -> float:
        n = self.steps_per_rev
        return (self.face_origin + (sector - 0.5) / self.sectors) * n % n


@dataclass(frozen=True)
class Motion:
    """One simulated movement: the pin events it made and where the disc came to rest."""

    rest_angle: float
    sector: int
    edges: int
    duration: float
    peak_edge_rate: float


@dataclass
class _Events:
    times: list[np.ndarray] = field(default_factory=list)
    pins: list[np.ndarray] = field(default_factory=list)
    levels: list[np.ndarray] = field(default_factory=list)

    def add(self, times: np.ndarray, pins: np.ndarray, levels: np.ndarray) -> None:
        self.times.append(times)
        self.pins.append(pins)
        self.levels.append(levels)

    def sorted(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not self.times:
            empty = np.zeros(0)
            return empty, empty.astype(np.int8), empty.astype(np.int8)
        t = np.concatenate(self.times)
        p = np.concatenate(self.pins)
        v = np.concatenate(self.levels)
        order = np.argsort(t, kind="stable")
        return t[order], p[order], v[order]


_LEVEL_OF_PHASE = np.array(FORWARD_LEVELS, dtype=np.int8)
REFERENCE_FLICK_RPS = 3.0  # coasts well over a turn, so it always passes the index
PIN_A, PIN_B, PIN_INDEX = 0, 1, 2


class SimulatedSpinner:
    """The physical spinner on mock pins. Build it after the :class:`Spinner` that reads it.

    With a :class:`VirtualClock` a movement runs as fast as the machine can drive the pins;
    with a real clock (the dashboard's "spin" button) it sleeps so edges come at their times,
    which blocks the caller for the whole spin: call it from a worker thread.
    """

    def __init__(
        self,
        model: SpinnerModel,
        pins: PiPins,
        factory: Any,
        clock: Clock,
        *,
        seed: int = 0,
        start_angle: float = 0.5,
    ) -> None:
        self.model = model
        self.clock = clock
        self.angle = start_angle
        self._rng = np.random.default_rng(seed)
        self._pins = [factory.pin(pins.spinner_a), factory.pin(pins.spinner_b)]
        self._pins.append(factory.pin(pins.spinner_index) if pins.spinner_index is not None
                          else None)
        self._drive = [
            (p.drive_low, p.drive_high) if p is not None else (_nothing, _nothing)
            for p in self._pins
        ]
        self.edges_driven = 0
        self.drive_cpu_s = 0.0
        self._sync_levels()

    # -- what the pins should show for an angle
    def _levels(self, angle: float) -> tuple[int, int, int]:
        level = FORWARD_LEVELS[math.floor(angle) % 4]
        n = self.model.steps_per_rev
        inside = (angle - self.model.index_at * n) % n < self.model.index_width * n
        return level >> 1, level & 1, 0 if inside else 1

    def _sync_levels(self) -> None:
        for pin, (low, high), level in zip(self._pins, self._drive, self._levels(self.angle),
                                           strict=True):
            if pin is not None:
                (high if level else low)()

    # -- movements
    def flick(self, rps: float, direction: int = 1) -> Motion:
        """Flick the disc at ``rps`` turns per second and let it coast to rest."""
        if not 0 < rps <= 100:
            raise ValueError(f"flick speed must be in (0, 100] rev/s, not {rps}")
        if direction not in (1, -1):
            raise ValueError(f"direction must be 1 or -1, not {direction}")
        m = self.model
        n = m.steps_per_rev
        mu, k = m.friction, m.drag
        t_stop = math.log1p(k * rps / mu) / k
        ts = np.arange(0.0, t_stop + m.sample_s, m.sample_s)
        ts[-1] = t_stop
        revs = ((rps + mu / k) * -np.expm1(-k * ts) - mu * ts) / k
        phase = self._rng.uniform(0, 2 * math.pi)
        revs = revs + m.wobble / (2 * math.pi) * (np.sin(2 * math.pi * revs + phase)
                                                   - math.sin(phase))
        path = self.angle + direction * n * revs
        back = direction * -self._rng.uniform(0, m.rebound)
        rebound_t, rebound_path = self._rebound(path[-1], back)
        times = np.concatenate([ts, t_stop + rebound_t[1:]])
        path = np.concatenate([path, rebound_path[1:]])
        return self._play(times, path)

    def turn_to(self, angle: float, rps: float = 0.4) -> Motion:
        """Turn the disc by hand, steadily, to rest at ``angle`` steps (the shorter way)."""
        n = self.model.steps_per_rev
        delta = (angle - self.angle + n / 2) % n - n / 2
        duration = max(abs(delta) / (rps * n), self.model.sample_s)
        times = np.linspace(0.0, duration, max(2, int(duration / self.model.sample_s) + 1))
        path = self.angle + delta * times / duration
        return self._play(times, path)

    def point_at(self, sector: int) -> Motion:
        """What a player does to calibrate: turn the pointer onto the middle of ``sector``."""
        return self.turn_to(self.model.centre_of(sector))

    def _rebound(self, at: float, back: float) -> tuple[np.ndarray, np.ndarray]:
        # A damped swing that starts at rest and settles ``back`` steps behind where it stopped.
        omega, tau = 2 * math.pi * 3.0, 0.12
        t = np.arange(0.0, 5 * tau, self.model.sample_s / 4)
        envelope = np.exp(-t / tau) * (np.cos(omega * t) + np.sin(omega * t) / (omega * tau))
        return t, at + back * (1 - envelope)

    # -- from a path to pin events
    def _events(self, times: np.ndarray, path: np.ndarray, start: float) -> _Events:
        m = self.model
        n = m.steps_per_rev
        ev = _Events()
        t = start + times
        # Encoder: every integer angle crossed is one edge on A or B.
        lo, hi = path[:-1], path[1:]
        cells_lo, cells_hi = np.floor(lo), np.floor(hi)
        moved = np.nonzero(cells_lo != cells_hi)[0]
        if moved.size:
            counts = np.abs(cells_hi[moved] - cells_lo[moved]).astype(np.int64)
            seg = np.repeat(moved, counts)
            offset = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
            forward = hi[seg] > lo[seg]
            boundary = np.where(forward, cells_lo[seg] + 1 + offset, cells_lo[seg] - offset)
            frac = (boundary - lo[seg]) / (hi[seg] - lo[seg])
            edge_t = t[seg] + frac * (t[seg + 1] - t[seg])
            new_cell = np.where(forward, boundary, boundary - 1).astype(np.int64)
            new_level = _LEVEL_OF_PHASE[new_cell % 4]
            old_level = _LEVEL_OF_PHASE[(new_cell + np.where(forward, -1, 1)) % 4]
            is_a = (new_level ^ old_level) == 2
            pin = np.where(is_a, PIN_A, PIN_B).astype(np.int8)
            level = np.where(is_a, new_level >> 1, new_level & 1).astype(np.int8)
            ev.add(edge_t, pin, level)
            speed = np.abs(hi[seg] - lo[seg]) / np.maximum(t[seg + 1] - t[seg], 1e-12)
            self._chatter(ev, edge_t, pin, level, speed)
        # Index: low while the magnet's window is over the hall sensor.
        if self._pins[PIN_INDEX] is not None:
            for edge, level in ((m.index_at * n, 0), ((m.index_at + m.index_width) * n, 1)):
                rel_lo, rel_hi = (lo - edge) / n, (hi - edge) / n
                k_lo, k_hi = np.floor(rel_lo), np.floor(rel_hi)
                cross = np.nonzero(k_lo != k_hi)[0]
                if not cross.size:
                    continue
                fwd = hi[cross] > lo[cross]
                wrap = np.where(fwd, k_hi[cross], k_lo[cross]) * n + edge
                frac = (wrap - lo[cross]) / (hi[cross] - lo[cross])
                when = t[cross] + frac * (t[cross + 1] - t[cross])
                lev = np.where(fwd, level, 1 - level).astype(np.int8)
                ev.add(when, np.full(cross.size, PIN_INDEX, np.int8), lev)
        return ev

    def _chatter(self, ev: _Events, edge_t: np.ndarray, pin: np.ndarray, level: np.ndarray,
                 speed: np.ndarray) -> None:
        # While the edge is within ±band of the threshold the contact makes and breaks: the
        # chatter lasts as long as the disc takes to cross the band, at most bounce_max_s.
        m = self.model
        rng = self._rng
        bouncing = np.nonzero(rng.random(edge_t.size) < m.bounce_probability)[0]
        if not bouncing.size:
            return
        pairs = rng.integers(1, 3, bouncing.size)
        window = np.minimum(2 * m.bounce_band / np.maximum(speed[bouncing], 1e-9), m.bounce_max_s)
        which = np.repeat(bouncing, 2 * pairs)
        owner = np.repeat(np.arange(bouncing.size), 2 * pairs)
        u = rng.random(which.size)
        # Sort the toggles of each edge in time, then alternate: back to the old level, forward.
        order = np.lexsort((u, owner))
        u, which, owner = u[order], which[order], owner[order]
        rank = np.arange(which.size) - np.repeat(np.cumsum(2 * pairs) - 2 * pairs, 2 * pairs)
        when = edge_t[which] + u * window[owner]
        lev = np.where(rank % 2 == 0, 1 - level[which], level[which]).astype(np.int8)
        ev.add(when, pin[which], lev)

    def _play(self, times: np.ndarray, path: np.ndarray) -> Motion:
        start = self.clock.now()
        ev_t, ev_pin, ev_level = self._events(times, path, start).sorted()
        drives = self._drive
        clock = self.clock if isinstance(self.clock, VirtualClock) else None
        dropped = self._dropped(ev_pin)
        cpu = time.process_time()
        if clock is not None and dropped is None:  # the fast path: nothing lost, virtual time
            for when, p, v in zip(ev_t.tolist(), ev_pin.tolist(), ev_level.tolist(),
                                  strict=True):
                if when >= clock.due:
                    clock.advance_to(when)
                else:
                    clock.t = when
                drives[p][v]()
        else:
            lost = dropped.tolist() if dropped is not None else [False] * ev_t.size
            for when, p, v, drop in zip(ev_t.tolist(), ev_pin.tolist(), ev_level.tolist(), lost,
                                        strict=True):
                self._advance(when)
                if drop:  # the level changes but no callback comes, as when the Pi overruns
                    pin = self._pins[p]
                    pin.edges = "none"
                    drives[p][v]()
                    pin.edges = "both"
                else:
                    drives[p][v]()
        self.drive_cpu_s += time.process_time() - cpu
        self.edges_driven += int(ev_t.size)
        for pin in self._pins:
            if pin is not None:
                pin.clear_states()  # MockPin keeps a history of every change; keep memory flat
        self.angle = float(path[-1])
        duration = float(times[-1])
        peak = 0.0
        if ev_t.size > 1:
            window = 0.05
            counts = np.searchsorted(ev_t, ev_t + window) - np.arange(ev_t.size)
            peak = float(counts.max() / window)
        return Motion(
            rest_angle=self.angle,
            sector=self.model.sector_at(self.angle),
            edges=int(ev_t.size),
            duration=duration,
            peak_edge_rate=peak,
        )

    def _dropped(self, ev_pin: np.ndarray) -> np.ndarray | None:
        rate = self.model.drop_rate
        if rate <= 0 or not ev_pin.size:
            return None
        return (self._rng.random(ev_pin.size) < rate) & (ev_pin != PIN_INDEX)

    def _advance(self, when: float) -> None:
        if isinstance(self.clock, VirtualClock):
            self.clock.advance_to(when)
            return
        ahead = when - self.clock.now()
        if ahead > 0.001:
            time.sleep(ahead)

    def wait(self, seconds: float) -> None:
        """Let time pass with the disc at rest (the settle wait ends here)."""
        if isinstance(self.clock, VirtualClock):
            self.clock.advance_to(self.clock.now() + seconds)
        else:
            time.sleep(seconds)


def _nothing() -> None:
    return None


# --- a simulated session of many spins --------------------------------------------------------
@dataclass(frozen=True)
class SimulationResult:
    spins: int
    correct: int
    ambiguous: int
    wrong: int
    missing: int
    ambiguous_resolvable: int
    edges: int
    simulated_s: float
    wall_s: float
    drive_cpu_s: float
    peak_edge_rate: float
    offset_steps: int
    index_corrections: int
    missed_edges: int
    steps_per_rev: int
    counter: str

    def to_json(self) -> dict[str, Any]:
        edges = max(self.edges, 1)
        return {
            "spins": self.spins,
            "correct": self.correct,
            "ambiguous": self.ambiguous,
            "wrong": self.wrong,
            "missing": self.missing,
            "ambiguous_rate": round(self.ambiguous / max(self.spins, 1), 4),
            "ambiguous_with_truth_in_candidates": self.ambiguous_resolvable,
            "edges": self.edges,
            "peak_edge_rate_per_s": round(self.peak_edge_rate),
            "sustained_edge_rate_per_s": round(self.edges / self.drive_cpu_s)
            if self.drive_cpu_s > 0 else None,
            "cpu_us_per_edge": round(self.drive_cpu_s / edges * 1e6, 3),
            "simulated_s": round(self.simulated_s, 1),
            "wall_s": round(self.wall_s, 2),
            "speedup": round(self.simulated_s / self.wall_s, 1) if self.wall_s > 0 else None,
            "offset_steps": self.offset_steps,
            "index_corrections": self.index_corrections,
            "missed_edges": self.missed_edges,
            "steps_per_rev": self.steps_per_rev,
            "counter": self.counter,
        }


def simulate(
    config: SpinnerConfig,
    pins: PiPins,
    *,
    spins: int,
    seed: int,
    max_rps: float = 10.0,
    min_rps: float = 2.0,
    counter: str = "quadrature",
    model: SpinnerModel | None = None,
) -> SimulationResult:
    """Calibrate the simulated spinner the way a player would, then spin it ``spins`` times
    from ``min_rps`` up to ``max_rps`` and score every reading against where the model stopped.
    """
    if spins < 1:
        raise ValueError("spins must be at least 1")
    if not 0 < min_rps <= max_rps:
        raise ValueError(f"need 0 < min-rps <= max-rps, not {min_rps} and {max_rps}")
    started = time.perf_counter()
    model = model or SpinnerModel.for_config(config)
    clock = VirtualClock()
    factory = mock_pin_factory()
    readings: list[Reading] = []
    spinner = Spinner(config, pins, factory, readings.append, clock=clock, counter=counter)
    try:
        sim = SimulatedSpinner(model, pins, factory, clock, seed=seed)
        settle = config.settle_ms / 1000 + 0.05
        if config.use_index:
            sim.flick(REFERENCE_FLICK_RPS)  # pass the index once so the count has a reference
            sim.wait(settle)
        sim.point_at(1)
        sim.wait(settle)
        spinner.calibrate()
        readings.clear()
        rng = random.Random(seed)
        correct = ambiguous = wrong = missing = resolvable = 0
        peak = 0.0
        for _ in range(spins):
            rps = rng.uniform(min_rps, max_rps)
            motion = sim.flick(rps, direction=1 if rng.random() < 0.85 else -1)
            sim.wait(settle)
            peak = max(peak, motion.peak_edge_rate)
            if not readings:
                missing += 1
                continue
            reading = readings.pop()
            readings.clear()
            if reading.ambiguous:
                ambiguous += 1
                resolvable += motion.sector in reading.candidates
            elif reading.value == motion.sector:
                correct += 1
            else:
                wrong += 1
        return SimulationResult(
            spins=spins,
            correct=correct,
            ambiguous=ambiguous,
            wrong=wrong,
            missing=missing,
            ambiguous_resolvable=resolvable,
            edges=sim.edges_driven,
            simulated_s=clock.now(),
            wall_s=time.perf_counter() - started,
            drive_cpu_s=sim.drive_cpu_s,
            peak_edge_rate=peak,
            offset_steps=spinner.offset_steps,
            index_corrections=len(spinner.index_corrections),
            missed_edges=spinner.missed_edges,
            steps_per_rev=config.steps_per_rev,
            counter=counter,
        )
    finally:
        spinner.close()
        factory.close()
