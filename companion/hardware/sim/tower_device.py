"""Firmware simulator: the tower firmware's own logic modules, on CPython, behind a pseudo-terminal.

The modules in ``firmware/`` (tower, beam, button, lights, protocol, ticks) are loaded as they
are; only what ``main.py`` does with ``machine`` and USB is replaced: beam edges come from a cube
model with bounce, the button from a press schedule, bytes go through a pty that the real link
opens with pyserial. Faults: garbage bytes, dropped lines either way, a silent (hung) device, an
unplug (the pty closes), a replug (a new pty, found through :meth:`SimulatedTower.find_port`) and
a reboot (fresh firmware state, new boot tag).
"""

from __future__ import annotations

import functools
import importlib
import os
import random
import select
import sys
import threading
import time
import tty
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from companion.hardware.pins import FIRMWARE_PINS, load_pins

FIRMWARE_DIR = FIRMWARE_PINS.parent
FIRMWARE_MODULES = ("ticks", "protocol", "beam", "button", "lights", "tower")
TICKS_MASK = (1 << 30) - 1


@functools.cache
def load_firmware(directory: Path = FIRMWARE_DIR) -> types.SimpleNamespace:
    """The firmware's logic modules, imported from ``directory`` under their own names but
    without leaving those short names (``protocol``, ``beam``...) in ``sys.modules``."""
    saved = {name: sys.modules.pop(name) for name in FIRMWARE_MODULES if name in sys.modules}
    sys.path.insert(0, str(directory))
    try:
        modules = {name: importlib.import_module(name) for name in FIRMWARE_MODULES}
    finally:
        sys.path.remove(str(directory))
        for name in FIRMWARE_MODULES:
            sys.modules.pop(name, None)
        sys.modules.update(saved)
    return types.SimpleNamespace(**modules)


class _Pixels:
    """Stands in for ``neopixel.NeoPixel``: keeps the colours and counts writes."""

    def __init__(self, count: int) -> None:
        self.colours = [(0, 0, 0)] * count
        self.writes = 0

    def __setitem__(self, index: int, colour: tuple[int, int, int]) -> None:
        self.colours[index] = colour

    def write(self) -> None:
        self.writes += 1


@dataclass
class SimStats:
    lines_out: int = 0  # lines the firmware wrote
    dropped_out: int = 0  # of those, thrown away by a fault or a full pty
    dropped_in: int = 0  # host lines thrown away by a fault
    garbage_out: int = 0  # garbage bytes sent to the host
    cubes: int = 0  # cubes sent through the beam
    presses: int = 0
    ports: int = 0  # ptys opened


@dataclass
class _LineFault:
    left: int  # lines still to lose
    kind: str | None  # only lines of this type, or any


def _ticks(now_ns: int) -> tuple[int, int]:
    return (now_ns // 1_000_000) & TICKS_MASK, (now_ns // 1000) & TICKS_MASK


class SimulatedTower:
    """A tower on a pty. ``start()`` it, point a TowerLink's ``port_finder`` at ``find_port``."""

    def __init__(
        self,
        *,
        seed: int = 0,
        debounce_us: int = 1000,
        quiet_ms: int = 1500,
        heartbeat_ms: int = 1000,
        retry_ms: int = 1000,
        host_timeout_ms: int = 5000,
        pixels: int | None = None,
    ) -> None:
        self.fw = load_firmware()
        self.rng = random.Random(seed)
        self.debounce_us = debounce_us
        self.quiet_ms = quiet_ms
        self.heartbeat_ms = heartbeat_ms
        self.retry_ms = retry_ms
        self.host_timeout_ms = host_timeout_ms
        self.pixel_count = pixels or load_pins().pico.light_ring_pixels
        self.stats = SimStats()
        self._lock = threading.RLock()
        self._edges: list[tuple[int, int]] = []  # (monotonic ns, level), sorted
        self._presses: list[tuple[int, int]] = []  # (from ns, to ns) the button is held
        self._garbage: list[bytes] = []
        self._drop_out: list[_LineFault] = []
        self._drop_in: list[_LineFault] = []
        self._in_buf = b""
        self._silent = False
        self._master: int | None = None
        self._slave: int | None = None
        self._port: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._beam_free_at = 0  # ns after which a new drop may start
        self.led: int = 0
        self._boot_firmware()

    # -- life cycle ---------------------------------------------------------------------------

    def _boot_firmware(self) -> None:
        fw = self.fw
        now_ms, _ = _ticks(time.monotonic_ns())
        self.pixels = _Pixels(self.pixel_count)
        self.beam = fw.beam.Beam(self.debounce_us, self.quiet_ms, fw.beam.CLEAR)
        self.ring = fw.lights.LightRing(self.pixels, self.pixel_count, 255)
        self.boot_id = f"{self.rng.getrandbits(32):08X}"
        self.tower = fw.tower.Tower(
            self._write, self.beam, self.ring, fw.lights.StatusLed(self._set_led),
            fw.button.Button(), self.boot_id, now_ms, heartbeat_ms=self.heartbeat_ms,
            retry_ms=self.retry_ms, host_timeout_ms=self.host_timeout_ms)

    def start(self) -> SimulatedTower:
        self._open_pty()
        self._thread = threading.Thread(target=self._run, name="sim-tower", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        with self._lock:
            self._close_pty()

    def __enter__(self) -> SimulatedTower:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def port(self) -> str | None:
        return self._port

    def find_port(self) -> str | None:
        """The port-finder hook for the link: the current pty, or None while unplugged."""
        return self._port

    # -- the pty ------------------------------------------------------------------------------

    def _open_pty(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no newline translation, before anyone writes
        os.set_blocking(master, False)
        with self._lock:
            self._master, self._slave = master, slave
            self._port = os.ttyname(slave)
            self.stats.ports += 1

    def _close_pty(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        self._port = None
        self._in_buf = b""

    def unplug(self) -> None:
        """The cable is pulled: the pty closes, the firmware keeps running (and its outbox)."""
        with self._lock:
            self._close_pty()

    def replug(self) -> str:
        """A new pty, as a re-enumerated USB device gets a new port name."""
        with self._lock:
            if self._master is not None:
                raise RuntimeError("the simulated tower is already plugged in")
            self._open_pty()
            assert self._port is not None
            return self._port

    def reboot(self) -> None:
        """Power cycle: unplugged, fresh firmware (new boot tag, empty outbox), plugged back."""
        with self._lock:
            self._close_pty()
            self._edges.clear()
            self._presses.clear()
            self._boot_firmware()
            self._open_pty()

    # -- faults -------------------------------------------------------------------------------

    def send_garbage(self, data: bytes) -> None:
        """Raw bytes to the host, between two of the firmware's lines."""
        with self._lock:
            self._garbage.append(bytes(data))

    def feed_garbage(self, data: bytes) -> None:
        """Raw bytes into the firmware's input, as if the host had sent them."""
        with self._lock:
            self.tower.feed(bytes(data))

    def drop_outgoing(self, lines: int, kind: str | None = None) -> None:
        """Lose the firmware's next ``lines`` lines (of ``kind`` only, if given) to the host."""
        with self._lock:
            self._drop_out.append(_LineFault(lines, kind))

    def drop_incoming(self, lines: int, kind: str | None = None) -> None:
        """Lose the host's next ``lines`` lines (of ``kind`` only, if given) to the firmware."""
        with self._lock:
            self._drop_in.append(_LineFault(lines, kind))

    def clear_faults(self) -> None:
        """Forget every drop_outgoing/drop_incoming fault still pending."""
        with self._lock:
            self._drop_out.clear()
            self._drop_in.clear()

    def faults_pending(self) -> bool:
        """True while a drop_outgoing/drop_incoming fault has lines left to lose."""
        with self._lock:
            return bool(self._drop_out or self._drop_in)

    def set_silent(self, silent: bool) -> None:
        """A hung firmware: it neither reads, acts nor writes until un-silenced."""
        with self._lock:
            self._silent = silent

    # -- the physical world -------------------------------------------------------------------

    def drop(self, cubes: int, *, lead_s: float = 0.02, bounce: bool = True) -> float:
        """Send ``cubes`` cubes through the exit beam, starting ``lead_s`` from now (or after the
        previous drop has left the beam). Each cube blocks the beam 5-14 ms, gaps are 8-120 ms,
        and each edge may chatter a few times within 0.8 ms. Returns when (monotonic seconds)
        the last cube has cleared the beam."""
        if cubes < 1:
            raise ValueError(f"a drop needs at least one cube, not {cubes}")
        rng = self.rng
        with self._lock:
            t = max(time.monotonic_ns() + int(lead_s * 1e9), self._beam_free_at)
            edges: list[tuple[int, int]] = []
            for i in range(cubes):
                if i:
                    t += int(rng.uniform(8, 120) * 1e6)
                edges += self._edge(t, self.fw.beam.BROKEN, bounce)
                t += int(rng.uniform(5, 14) * 1e6)
                edges += self._edge(t, self.fw.beam.CLEAR, bounce)
            self._edges = sorted(self._edges + edges)
            self._beam_free_at = t + int(1e6)
            self.stats.cubes += cubes
            return t / 1e9

    def _edge(self, t: int, level: int, bounce: bool) -> list[tuple[int, int]]:
        """One clean transition at ``t``, preceded by chatter when ``bounce``."""
        edges = []
        if bounce:
            chatter = self.rng.randint(0, 3)
            at = t
            for _ in range(chatter):
                edges += [(at, level), (at + int(self.rng.uniform(20, 90) * 1e3), 1 - level)]
                at += int(self.rng.uniform(100, 200) * 1e3)
            t = at
        edges.append((t, level))
        return edges

    def press_count_now(self, hold_s: float = 0.12) -> None:
        """Press the tray button for ``hold_s`` (with a few ms of contact bounce)."""
        now = time.monotonic_ns()
        with self._lock:
            at = now
            for _ in range(self.rng.randint(0, 3)):  # bounce: short blips before the press
                self._presses.append((at, at + 400_000))
                at += 1_500_000
            self._presses.append((at, at + int(hold_s * 1e9)))
            self.stats.presses += 1

    def _button_level(self, now_ns: int) -> int:
        self._presses = [p for p in self._presses if p[1] > now_ns]
        return 0 if any(start <= now_ns for start, _ in self._presses) else 1

    @property
    def lights(self) -> int:
        """The level the ring shows now (0 when off)."""
        return self.ring.output()

    def wait_until(self, condition: Callable[[], bool], timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if condition():
                    return True
            time.sleep(0.005)
        with self._lock:
            return condition()

    # -- the firmware's loop ------------------------------------------------------------------

    def _set_led(self, level: int) -> None:
        self.led = level

    def _write(self, line: bytes) -> None:
        """The firmware's USB write: lost on a fault, an unplugged cable or a full pty."""
        self.stats.lines_out += 1
        if _lose(self._drop_out, line):
            self.stats.dropped_out += 1
            return
        self._raw_write(line)

    def _raw_write(self, data: bytes) -> None:
        if self._master is None:
            self.stats.dropped_out += 1
            return
        try:
            os.write(self._master, data)
        except (BlockingIOError, OSError):
            self.stats.dropped_out += 1  # nobody reads: a real CDC port drops it too

    def _read_host(self) -> bytes:
        if self._master is None:
            return b""
        try:
            data = self._in_buf + os.read(self._master, 4096)
        except (BlockingIOError, OSError):
            return b""
        *lines, self._in_buf = data.split(b"\n")  # whole lines go on; a partial one waits
        kept = []
        for line in lines:
            if _lose(self._drop_in, line):
                self.stats.dropped_in += 1
            else:
                kept.append(line + b"\n")
        return b"".join(kept)

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                wait = self._step()
                master = self._master
            if master is None:
                time.sleep(wait)
                continue
            try:
                select.select([master], [], [], wait)
            except (OSError, ValueError):
                time.sleep(wait)  # closed under us by unplug(); the next pass sees it

    def _step(self) -> float:
        """One pass of the firmware's main loop; returns how long to wait before the next."""
        if self._silent:
            return 0.005
        now = time.monotonic_ns()
        due = 0
        while due < len(self._edges) and self._edges[due][0] <= now:
            t, level = self._edges[due]
            self.beam.irq(level, (t // 1000) & TICKS_MASK)  # the pin interrupt
            due += 1
        del self._edges[:due]
        for chunk in self._garbage:
            self.stats.garbage_out += len(chunk)
            self._raw_write(chunk)
        self._garbage.clear()
        data = self._read_host()
        if data:
            self.tower.feed(data)
        now_ms, now_us = _ticks(now)
        self.tower.step(now_ms, now_us, self._button_level(now))
        if self._edges:
            return max(0.0, min(0.005, (self._edges[0][0] - time.monotonic_ns()) / 1e9))
        return 0.005


def _kind(line: bytes) -> str:
    parts = line.split(b" ", 2)
    return parts[1].split(b"*")[0].decode("ascii", "replace") if len(parts) > 1 else ""


def _lose(faults: list[_LineFault], line: bytes) -> bool:
    """Whether a pending drop fault takes this line (and count it against that fault)."""
    for fault in faults:
        if fault.kind is None or fault.kind == _kind(line):
            fault.left -= 1
            if fault.left <= 0:
                faults.remove(fault)
            return True
    return False
