"""The serial link to the tower's Pico: finds it, keeps it connected, turns its lines into events.

Threads: one reader per open port that only parses and enqueues, and one supervisor that owns the
connection (handshake, acknowledgements, heartbeat watch, reconnect with backoff). Callers talk
to the tower through blocking command methods with timeouts, and receive tower events from
:meth:`TowerLink.next_event`. Events carry the tower's sequence number; a retransmitted event is
acknowledged again but never delivered twice.
"""

from __future__ import annotations

import enum
import errno
import logging
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import serial
from serial.tools import list_ports

from companion.config import LinkConfig
from companion.errors import CompanionError
from companion.hardware.tower_protocol import (
    MAX_DEVICE_LINE,
    PROTOCOL_VERSION,
    REASONS,
    SEQ_LIMIT,
    Line,
    LineDecoder,
    LineError,
    encode,
)

log = logging.getLogger(__name__)

PICO_VID = 0x2E8A  # Raspberry Pi's USB vendor ID; MicroPython's CDC port uses it
EVENT_KINDS = frozenset({"DROP_START", "DROP_END", "COUNT_NOW"})
SEEN_MEMORY = 4096  # event sequence numbers remembered per tower boot, for de-duplication

PortFinder = Callable[[], "str | None"]


class LinkState(enum.StrEnum):
    CONNECTED = "connected"  # handshake done, lines flowing
    RECONNECTING = "reconnecting"  # a port is there but the tower is not (yet) talking
    ABSENT = "absent"  # no tower port found


class LinkError(CompanionError):
    pass


class LinkUnavailable(LinkError):
    """The tower is not connected now; the command was not sent."""


class LinkTimeout(LinkError):
    """The tower did not answer a command in time."""


class TowerRefused(LinkError):
    """The tower answered a command with ERR."""

    def __init__(self, command: str, code: str) -> None:
        super().__init__(f"the tower refused {command}: {code}")
        self.code = code


# -- what the link delivers --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DropStarted:
    boot: str  # the tower's boot tag: drop numbers are unique within one boot
    drop: int
    t_ms: int  # tower uptime at the first cube
    received_at: float  # time.monotonic() on the host


@dataclass(frozen=True, slots=True)
class DropFinished:
    boot: str
    drop: int
    count: int  # cubes the exit beam counted in this drop
    t0_ms: int  # first cube (tower uptime)
    t1_ms: int  # beam clear after the last cube
    times_ms: tuple[int, ...]  # each cube's offset from t0 (the first 48)
    times_truncated: bool
    total: int  # cubes counted since the last reset
    received_at: float


@dataclass(frozen=True, slots=True)
class CountNowPressed:
    boot: str
    t_ms: int
    received_at: float


@dataclass(frozen=True, slots=True)
class LinkStateChanged:
    state: LinkState
    reason: str
    received_at: float


TowerEvent = DropStarted | DropFinished | CountNowPressed | LinkStateChanged


@dataclass(frozen=True, slots=True)
class LightsState:
    on: bool
    level: int


@dataclass(frozen=True, slots=True)
class TowerStatus:
    """The tower's own counters (STATUS reply)."""

    uptime_ms: int
    total: int
    drops: int
    beam_broken: bool
    lights: int
    pending: int
    lost_events: int
    lost_edges: int
    accepted: int
    rejected: dict[str, int]


@dataclass(frozen=True, slots=True)
class LinkStatus:
    """What the dashboard shows about the link."""

    state: LinkState
    reason: str
    port: str | None
    firmware: str | None
    boot: str | None
    since: float  # time.monotonic() of the last state change
    reconnects: int  # times a connected link was lost and looked for again
    lines: int
    duplicates: int
    rejected: dict[str, int]
    last_heartbeat: dict[str, str] = field(default_factory=dict)


def find_tower_port(vid: int = PICO_VID) -> str | None:
    """The first serial port whose USB vendor ID is the Pico's, or None."""
    ports = sorted((p for p in list_ports.comports() if p.vid == vid), key=lambda p: p.device)
    if len(ports) > 1:
        log.warning("several Pico ports (%s); using %s", ", ".join(p.device for p in ports),
                    ports[0].device)
    return ports[0].device if ports else None


def port_finder_for(config: LinkConfig) -> PortFinder:
    """The configured port when set (``hardware.link.port``), else the Pico by USB ID."""
    if config.port:
        override = config.port
        return lambda: override if os.path.exists(override) else None
    return find_tower_port


# -- one open port -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _PortLost:
    reason: str


class _Connection:
    """An open serial port, its reader thread and its inbox."""

    def __init__(self, port: str, ser: serial.Serial) -> None:
        self.port = port
        self.ser = ser
        self.inbox: queue.Queue[Line | _PortLost] = queue.Queue()
        self.decoder = LineDecoder(MAX_DEVICE_LINE)
        self.last_write = 0.0
        self._write_lock = threading.Lock()
        self._closing = threading.Event()
        self._reader = threading.Thread(target=self._read_loop, name=f"tower-reader {port}",
                                        daemon=True)

    def start(self) -> None:
        self._reader.start()

    def _read_loop(self) -> None:
        """Only parse and enqueue: everything else happens on the supervisor thread."""
        while not self._closing.is_set():
            try:
                data = self.ser.read(max(1, self.ser.in_waiting))
            except (serial.SerialException, OSError, TypeError) as exc:
                if not self._closing.is_set():
                    self.inbox.put(_PortLost(f"{self.port}: {exc}"))
                return
            if data:
                for line in self.decoder.feed(data):
                    self.inbox.put(line)

    def write(self, data: bytes) -> None:
        with self._write_lock:
            try:
                self.ser.write(data)
            except (serial.SerialException, OSError) as exc:
                self.inbox.put(_PortLost(f"{self.port}: write failed ({exc})"))
                raise LinkUnavailable(f"the tower link is down ({exc})") from exc
            self.last_write = time.monotonic()

    def close(self) -> None:
        self._closing.set()
        if self._reader.is_alive() and self._reader is not threading.current_thread():
            self._reader.join(timeout=2.0)
        try:
            self.ser.close()
        except (serial.SerialException, OSError) as exc:
            log.debug("closing %s: %s", self.port, exc)


class _Waiter:
    """A caller waiting for the reply to one command."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.reply: Line | None = None
        self.error: LinkError | None = None


# -- the link ----------------------------------------------------------------------------------


class TowerLink:
    """Keeps the tower connected and turns its lines into :data:`TowerEvent` objects."""

    def __init__(
        self,
        config: LinkConfig | None = None,
        *,
        port_finder: PortFinder | None = None,
        reply_timeout_s: float = 1.0,
        retries: int = 2,
        hello_timeout_s: float = 1.0,
        hello_attempts: int = 3,
        ping_interval_s: float = 1.0,
        backoff_initial_s: float = 0.1,
        backoff_max_s: float = 5.0,
        absent_poll_s: float = 0.5,
    ) -> None:
        self.config = config or LinkConfig()
        self._find_port = port_finder or port_finder_for(self.config)
        self.reply_timeout_s = reply_timeout_s
        self.retries = retries
        self.hello_timeout_s = hello_timeout_s
        self.hello_attempts = hello_attempts
        self.ping_interval_s = ping_interval_s
        self.backoff_initial_s = backoff_initial_s
        self.backoff_max_s = backoff_max_s
        self.absent_poll_s = absent_poll_s
        self._events: queue.Queue[TowerEvent] = queue.Queue()
        self._lock = threading.Lock()
        self._state_changed = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._conn: _Connection | None = None
        self._seq = 0
        self._waiters: dict[int, _Waiter] = {}
        self._own: set[int] = set()  # seqs of the link's own HELLO/PING, answered on the thread
        self._state = LinkState.ABSENT
        self._reason = "not started"
        self._since = time.monotonic()
        self._port: str | None = None
        self._firmware: str | None = None
        self._boot: str | None = None
        self._seen: set[int] = set()
        self._seen_order: deque[int] = deque()
        self._last_finished = 0
        self._reconnects = 0
        self._lines = 0
        self._duplicates = 0
        self._rejected = dict.fromkeys(REASONS, 0)
        self._last_heartbeat: dict[str, str] = {}

    # -- life cycle ---------------------------------------------------------------------------

    def start(self) -> TowerLink:
        if self._thread is not None:
            raise LinkError("the tower link is already started")
        self._thread = threading.Thread(target=self._supervise, name="tower-link", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop the supervisor and close the port; pending commands fail with LinkUnavailable."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        self._set_state(LinkState.ABSENT, "closed")

    def __enter__(self) -> TowerLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what callers see ---------------------------------------------------------------------

    @property
    def state(self) -> LinkState:
        return self._state

    def status(self) -> LinkStatus:
        with self._lock:
            rejected = dict(self._rejected)
            conn = self._conn
            if conn is not None:
                for reason, n in conn.decoder.rejected.items():
                    rejected[reason] += n
            return LinkStatus(self._state, self._reason, self._port, self._firmware, self._boot,
                              self._since, self._reconnects, self._lines, self._duplicates,
                              rejected, dict(self._last_heartbeat))

    def wait_for_state(self, state: LinkState, timeout: float) -> bool:
        with self._state_changed:
            return self._state_changed.wait_for(lambda: self._state is state, timeout)

    def next_event(self, timeout: float | None = None) -> TowerEvent | None:
        """The next tower event, or None after ``timeout`` seconds without one."""
        try:
            return self._events.get(timeout=timeout)
        except queue.Empty:
            return None

    def ping(self) -> float:
        """Round trip to the tower in seconds."""
        started = time.monotonic()
        self._command("PING", ())
        return time.monotonic() - started

    def lights(self, on: bool, level: int | None = None) -> LightsState:
        """Switch the light ring; ``level`` 1..255, or None to keep the tower's current level."""
        fields: list[tuple[str, int | str]] = [("state", "on" if on else "off")]
        if level is not None:
            if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 255:
                raise ValueError(f"light level must be 1..255, not {level!r}")
            fields.append(("level", level))
        reply = self._command("LIGHTS", fields)
        try:
            return LightsState(reply.fields.get("state") == "on", reply.int("level", 1, 255))
        except LineError as exc:
            raise LinkError(f"the tower's LIGHTS reply makes no sense ({exc})") from exc

    def beam_settings(self, quiet_ms: int | None = None,
                      debounce_us: int | None = None) -> tuple[int, int]:
        """Set (or with no arguments read) the drop's quiet time and the beam's debounce;
        returns the values the tower now uses."""
        fields: list[tuple[str, int | str]] = []
        for key, value, low, high in (("quiet", quiet_ms, 100, 10_000),
                                      ("debounce", debounce_us, 100, 20_000)):
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"beam {key} must be {low}..{high}, not {value!r}")
            fields.append((key, value))
        reply = self._command("BEAM", tuple(fields))
        try:
            return reply.int("quiet", 100, 10_000), reply.int("debounce", 100, 20_000)
        except LineError as exc:
            raise LinkError(f"the tower's BEAM reply makes no sense ({exc})") from exc

    def reset_counters(self) -> None:
        """Zero the tower's cube total and its rejected-line counters."""
        self._command("RESET", ())

    def tower_status(self) -> TowerStatus:
        reply = self._command("STATUS", ())
        try:
            return TowerStatus(
                uptime_ms=reply.int("up"), total=reply.int("total"), drops=reply.int("drops"),
                beam_broken=reply.int("beam", 0, 1) == 1, lights=reply.int("lights", 0, 255),
                pending=reply.int("pending"), lost_events=reply.int("lost"),
                lost_edges=reply.int("edges_lost"), accepted=reply.int("accepted"),
                rejected={r: reply.int("rej_" + r) for r in REASONS},
            )
        except LineError as exc:
            raise LinkError(f"the tower's STATUS reply makes no sense ({exc})") from exc

    # -- commands -----------------------------------------------------------------------------

    def _next_seq(self) -> int:
        with self._lock:
            self._seq = self._seq + 1 if self._seq + 1 < SEQ_LIMIT else 1
            return self._seq

    def _command(self, kind: str, fields: list[tuple[str, int | str]] | tuple[()]) -> Line:
        """Send a command and wait for its reply; resent with the same sequence number (the
        tower answers a repeat from its reply cache without acting twice)."""
        seq = self._next_seq()
        waiter = _Waiter()
        with self._lock:
            conn = self._conn if self._state is LinkState.CONNECTED else None
            if conn is None:
                raise LinkUnavailable(
                    f"the tower is not connected ({self._state}: {self._reason})")
            self._waiters[seq] = waiter  # registered with the connection it will be sent on
        line = encode(seq, kind, fields)
        try:
            for _ in range(1 + self.retries):
                conn.write(line)
                if waiter.done.wait(self.reply_timeout_s):
                    break
            else:
                raise LinkTimeout(f"the tower did not answer {kind} within "
                                  f"{(1 + self.retries) * self.reply_timeout_s:.1f} s")
        finally:
            with self._lock:
                self._waiters.pop(seq, None)
        if waiter.error is not None:
            raise waiter.error
        assert waiter.reply is not None
        if waiter.reply.kind == "ERR":
            raise TowerRefused(kind, waiter.reply.fields.get("code", "?"))
        return waiter.reply

    # -- the supervisor thread ----------------------------------------------------------------

    def _set_state(self, state: LinkState, reason: str) -> None:
        with self._state_changed:
            changed = state is not self._state
            self._state = state
            self._reason = reason
            if changed:
                self._since = time.monotonic()
                self._state_changed.notify_all()
        if changed:
            log.info("tower link %s: %s", state, reason)
            self._events.put(LinkStateChanged(state, reason, time.monotonic()))

    def _sleep(self, seconds: float) -> None:
        self._stop.wait(seconds)

    def _supervise(self) -> None:
        backoff = self.backoff_initial_s
        while not self._stop.is_set():
            try:
                connected = self._attempt()
            except Exception as exc:  # a bug must not leave the link dead while it looks alive
                log.exception("tower link supervisor")
                self._drop_connection(None)
                self._set_state(LinkState.RECONNECTING, f"internal error: {exc!r}")
                connected = None
            if self._stop.is_set():
                break
            if connected:
                backoff = self.backoff_initial_s
            wait = min(backoff, self.absent_poll_s) if self._state is LinkState.ABSENT else backoff
            self._sleep(wait)  # looking for a port costs little: look often when it is absent
            backoff = min(backoff * 2, self.backoff_max_s)
        self._drop_connection(None)

    def _attempt(self) -> bool:
        """Find, open and serve the port once; True if the link got connected."""
        try:
            port = self._find_port()
        except Exception as exc:  # the port finder is pluggable: a broken one is not fatal
            log.exception("tower port finder")
            self._set_state(LinkState.ABSENT, f"cannot look for the tower: {exc}")
            return False
        if port is None:
            self._set_state(LinkState.ABSENT, self._absent_reason())
            return False
        self._set_state(LinkState.RECONNECTING, f"opening {port}")
        try:
            ser = serial.Serial(port, self.config.baudrate, timeout=0.05, write_timeout=1.0,
                                exclusive=True)
            ser.reset_input_buffer()
        except (serial.SerialException, OSError, ValueError) as exc:
            hint = ""
            if getattr(exc, "errno", None) == errno.EACCES or "ermission" in str(exc):
                hint = " (is this user in the 'dialout' group?)"
            self._set_state(LinkState.RECONNECTING, f"cannot open {port}: {exc}{hint}")
            return False
        conn = _Connection(port, ser)
        with self._lock:
            self._conn = conn
            self._port = port
        conn.start()
        try:
            reason, was_connected = self._serve(conn)
        finally:
            self._drop_connection(conn)
        if was_connected:
            self._reconnects += 1
        if not self._stop.is_set():
            self._set_state(LinkState.RECONNECTING, reason)
        return was_connected

    def _absent_reason(self) -> str:
        if self.config.port:
            return f"{self.config.port} does not exist (hardware.link.port)"
        return f"no serial port with USB vendor ID {PICO_VID:04X} (is the tower plugged in?)"

    def _drop_connection(self, conn: _Connection | None) -> None:
        with self._lock:
            conn = conn or self._conn
            self._conn = None
            waiters = list(self._waiters.values())
            self._waiters.clear()
            self._own.clear()
        for waiter in waiters:
            waiter.error = LinkUnavailable("the tower link went down before it answered")
            waiter.done.set()
        if conn is None:
            return
        conn.close()
        with self._lock:
            for reason, n in conn.decoder.rejected.items():
                self._rejected[reason] += n
            conn.decoder.rejected = dict.fromkeys(REASONS, 0)

    def _send_own(self, conn: _Connection, kind: str, fields: list[tuple[str, int | str]]) -> int:
        seq = self._next_seq()
        with self._lock:
            if len(self._own) > 256:  # replies lost on a bad line: do not hoard their numbers
                self._own.clear()
            self._own.add(seq)
        conn.write(encode(seq, kind, fields))
        return seq

    def _serve(self, conn: _Connection) -> tuple[str, bool]:
        """Handshake, then dispatch lines until the port is lost or the tower goes silent.
        Returns why it stopped and whether the link had been connected."""
        connected = was_connected = False
        hello_seq = 0
        hello_sent = 0.0
        attempts = 0
        last_rx = time.monotonic()
        while not self._stop.is_set():
            now = time.monotonic()
            try:
                if not connected and now - hello_sent >= self.hello_timeout_s:
                    if attempts >= self.hello_attempts:
                        return (f"{conn.port}: no answer to HELLO after {attempts} tries",
                                was_connected)
                    attempts += 1
                    hello_seq = self._send_own(conn, "HELLO", [("proto", PROTOCOL_VERSION)])
                    hello_sent = now
                if connected and now - conn.last_write >= self.ping_interval_s:
                    self._send_own(conn, "PING", [])
            except LinkUnavailable:
                pass  # the reader or write put a _PortLost in the inbox; handled below
            try:
                item = conn.inbox.get(timeout=0.05)
            except queue.Empty:
                item = None
            now = time.monotonic()
            if isinstance(item, _PortLost):
                return item.reason, was_connected
            if item is not None:
                last_rx = now
                with self._lock:
                    self._lines += 1
                outcome = self._dispatch(conn, item, hello_seq, connected)
                if outcome == "connected":
                    connected = was_connected = True
                    self._set_state(LinkState.CONNECTED,
                                    f"{conn.port}: firmware {self._firmware}, boot {self._boot}")
                elif outcome == "rehello":
                    connected = False
                    hello_sent = 0.0
                    attempts = 0
                elif outcome is not None:
                    return outcome, was_connected
            if connected and now - last_rx > self.config.heartbeat_timeout_s:
                return (f"{conn.port}: tower silent for {now - last_rx:.1f} s", True)
        return "closed", was_connected

    def _dispatch(self, conn: _Connection, line: Line, hello_seq: int,
                  connected: bool) -> str | None:
        """Act on one parsed line. Returns "connected" when the handshake completes, "rehello"
        when the tower rebooted, a reason string to drop the connection, else None."""
        kind = line.kind
        try:
            if kind == "HELLO":
                return self._on_hello(conn, line, hello_seq)
            if kind in ("OK", "ERR"):
                if line.fields.get("re") == str(hello_seq) and kind == "ERR" and not connected:
                    code = line.fields.get("code", "?")
                    proto = line.fields.get("proto", "?")
                    return (f"{conn.port}: the tower refused HELLO ({code}; it speaks protocol "
                            f"{proto}, this companion {PROTOCOL_VERSION}): flash matching "
                            "firmware")
                self._on_reply(line)
                return None
            if kind == "HB":
                with self._lock:
                    self._last_heartbeat = dict(line.fields)
                return None
            if kind in EVENT_KINDS:
                if connected:
                    self._on_event(conn, line)
                return None
            conn.decoder.reject("unknown")
        except LineError as exc:
            log.warning("tower line rejected: %s", exc)
            conn.decoder.reject(exc.reason)
        return None

    def _on_hello(self, conn: _Connection, line: Line, hello_seq: int) -> str | None:
        boot = line.fields.get("boot", "")
        proto = line.int("proto", 1, 9999)
        if not boot.isalnum():
            raise LineError("bad_args", "HELLO without a boot tag")
        if "re" not in line.fields:  # unsolicited: the tower has just booted
            if boot == self._boot:
                # Its boot announcement, come after its answer to this link's HELLO (it was
                # slow to boot): this boot has already shaken hands.
                return None
            self._new_boot(boot)
            return "rehello"
        if line.int("re", 1) != hello_seq:
            return None  # the answer to an earlier HELLO attempt
        if proto != PROTOCOL_VERSION:
            return (f"{conn.port}: the tower speaks protocol {proto}, this companion "
                    f"{PROTOCOL_VERSION}: flash matching firmware")
        self._new_boot(boot)
        with self._lock:
            self._firmware = line.fields.get("fw", "?")
            self._own.discard(hello_seq)
        return "connected"

    def _new_boot(self, boot: str) -> None:
        """A new boot tag starts a new count: forget the event numbers of the old one."""
        with self._lock:
            if boot == self._boot:
                return
            restarted = self._boot is not None
            self._boot = boot
            self._seen.clear()
            self._seen_order.clear()
            self._last_finished = 0
        if restarted:
            self._events.put(LinkStateChanged(
                self._state, f"the tower restarted (boot {boot}); a drop in progress is lost",
                time.monotonic()))

    def _on_reply(self, line: Line) -> None:
        re_seq = line.int("re", 1)
        with self._lock:
            waiter = self._waiters.pop(re_seq, None)
            own = re_seq in self._own
            self._own.discard(re_seq)
        if waiter is not None:
            waiter.reply = line
            waiter.done.set()
        elif not own:
            log.debug("late or unexpected reply to %d", re_seq)

    def _on_event(self, conn: _Connection, line: Line) -> None:
        now = time.monotonic()
        boot = self._boot or "?"
        event: TowerEvent
        if line.kind == "DROP_START":
            event = DropStarted(boot, line.int("drop", 1), line.int("t"), now)
        elif line.kind == "DROP_END":
            times_text = line.fields.get("times", "")
            times = tuple(int(t) for t in times_text.split(",") if t.isdigit())
            if times_text and len(times) != times_text.count(",") + 1:
                raise LineError("bad_args", "DROP_END times are not numbers")
            event = DropFinished(boot, line.int("drop", 1), line.int("count", 1),
                                 line.int("t0"), line.int("t1"), times,
                                 line.fields.get("more") == "1", line.int("total"), now)
        else:
            event = CountNowPressed(boot, line.int("t"), now)
        try:
            conn.write(encode(self._next_seq(), "ACK", [("seq", line.seq)]))
        except LinkUnavailable:
            pass  # the tower sends it again after the reconnect; it is delivered then
        else:
            self._deliver(line.seq, event)

    def _deliver(self, seq: int, event: TowerEvent) -> None:
        with self._lock:
            if seq in self._seen:
                self._duplicates += 1
                return
            self._seen.add(seq)
            self._seen_order.append(seq)
            if len(self._seen_order) > SEEN_MEMORY:
                self._seen.discard(self._seen_order.popleft())
            if isinstance(event, DropStarted) and event.drop <= self._last_finished:
                return  # a late repeat of a start whose drop has already finished
            if isinstance(event, DropFinished):
                self._last_finished = max(self._last_finished, event.drop)
        self._events.put(event)
