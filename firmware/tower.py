"""The tower's behaviour, free of hardware: beam, button and lights behind the line protocol.

``main.py`` feeds it bytes from USB and calls ``step`` in a loop; the firmware simulator does the
same on CPython. Events (drop start/end, count-now) stay in an outbox and are sent again with
their original sequence number until the host acknowledges them, so nothing is lost to a dropped
line and the host can recognise a repeat.
"""

import protocol
from protocol import ProtocolError, encode, int_field, next_seq
from ticks import Uptime

FIRMWARE_VERSION = "1.0.0"
MAX_HOST_LINE = 96  # longest frame body a host may send
EVENT_KINDS = ("DROP_START", "DROP_END", "COUNT_NOW")
QUIET_MIN_MS, QUIET_MAX_MS = 100, 10000  # the host may set the drop's quiet time in this range
DEBOUNCE_MIN_US, DEBOUNCE_MAX_US = 100, 20000


class Tower:
    def __init__(self, write, beam, lights, led, button, boot_id, now_ms, heartbeat_ms=1000,
                 retry_ms=1000, host_timeout_ms=5000, outbox_size=32, reply_cache=8,
                 error_show_ms=3000):
        self._write = write
        self.beam = beam
        self.lights = lights
        self.led = led
        self.button = button
        self.boot_id = boot_id
        self.heartbeat_ms = heartbeat_ms
        self.retry_ms = retry_ms
        self.host_timeout_ms = host_timeout_ms
        self.outbox_size = outbox_size
        self.reply_cache = reply_cache
        self.error_show_ms = error_show_ms
        self.rejects = protocol.Rejects()
        self._decoder = protocol.Decoder(self.rejects, MAX_HOST_LINE)
        self.uptime = Uptime(now_ms)
        self._seq = 0
        self.outbox = []  # [seq, line, uptime ms last sent], oldest first
        self._replies = []  # [(host seq, reply line)], oldest first
        self.host_seen = None  # uptime ms of the last valid line from the host
        self.lost_events = 0
        self._next_heartbeat = 0
        self._error_until = -1
        self._rejects_seen = 0
        self._booted = False
        self._commands = {
            "PING": self._ping,
            "LIGHTS": self._lights,
            "RESET": self._reset,
            "STATUS": self._status,
            "BEAM": self._beam_settings,
        }

    # -- the loop -------------------------------------------------------------------------------

    def feed(self, data):
        """Bytes from the host; every complete frame is parsed and handled or rejected."""
        for frame in self._decoder.feed(data):
            self._handle(frame)
        self._note_rejects()

    def step(self, now_ms, now_us, button_level):
        """One pass of the main loop with the current ticks and the button's pin level."""
        up = self.uptime.update(now_ms)
        if not self._booted:
            self._booted = True
            self._send("HELLO", self._hello_fields())
        for event in self.beam.poll(now_us, up):
            if event[0] == "start":
                self._event("DROP_START", (("drop", event[1]), ("t", event[2])))
            else:
                fields = [("drop", event[1]), ("count", event[2]), ("t0", event[3]),
                          ("t1", event[4]), ("times", ",".join([str(t) for t in event[5]])),
                          ("total", self.beam.total)]
                if event[6]:
                    fields.append(("more", 1))
                self._event("DROP_END", fields)
        if self.button.poll(button_level, up):
            self._event("COUNT_NOW", (("t", up),))
        if up >= self._next_heartbeat:
            self._next_heartbeat = up + self.heartbeat_ms
            self._send("HB", (("up", up), ("total", self.beam.total), ("drops", self.beam.drops),
                              ("beam", 1 if self.beam.broken() else 0),
                              ("pending", len(self.outbox)), ("lights", self.lights.output())))
        if self.host_present():
            for entry in self.outbox:
                if up - entry[2] >= self.retry_ms:
                    entry[2] = up
                    self._write(entry[1])
        self.led.update(self._led_mode(up), up)

    def host_present(self):
        return (self.host_seen is not None
                and self.uptime.ms - self.host_seen < self.host_timeout_ms)

    # -- sending --------------------------------------------------------------------------------

    def _send(self, kind, fields):
        self._seq = next_seq(self._seq)
        line = encode(self._seq, kind, fields)
        self._write(line)
        return line

    def _event(self, kind, fields):
        line = self._send(kind, fields)
        if len(self.outbox) >= self.outbox_size:
            self.outbox.pop(0)
            self.lost_events += 1
        self.outbox.append([self._seq, line, self.uptime.ms])

    def _reply(self, host_seq, kind, fields):
        out = [("re", host_seq)]
        out.extend(fields)
        line = self._send(kind, out)
        self._replies.append((host_seq, line))
        if len(self._replies) > self.reply_cache:
            self._replies.pop(0)

    def _hello_fields(self):
        return (("proto", protocol.PROTOCOL_VERSION), ("fw", FIRMWARE_VERSION),
                ("boot", self.boot_id), ("up", self.uptime.ms), ("pending", len(self.outbox)))

    # -- receiving ------------------------------------------------------------------------------

    def _handle(self, frame):
        try:
            seq, kind, fields = protocol.parse(frame)
        except ProtocolError as exc:
            self.rejects.count(exc.reason)
            return
        self.host_seen = self.uptime.ms
        if kind == "HELLO":
            self._hello(seq, fields)
            return
        if kind == "ACK":
            self._ack(fields)
            return
        for cached_seq, line in self._replies:
            if cached_seq == seq:  # the host sent this command again: answer, do not redo it
                self._write(line)
                return
        handler = self._commands.get(kind)
        if handler is None:
            self.rejects.count("unknown")
            self._reply(seq, "ERR", (("code", "unknown"),))
            return
        try:
            reply_fields = handler(fields)
        except ProtocolError as exc:
            self.rejects.count(exc.reason)
            self._reply(seq, "ERR", (("code", exc.reason),))
            return
        self.rejects.accepted += 1
        self._reply(seq, "OK", reply_fields)

    def _hello(self, seq, fields):
        try:
            _only(fields, ("proto",))
            proto = int_field(fields, "proto", 1, 9999)
        except ProtocolError as exc:
            self.rejects.count(exc.reason)
            self._reply(seq, "ERR", (("code", exc.reason),))
            return
        if proto != protocol.PROTOCOL_VERSION:
            self.rejects.count("bad_args")
            self._reply(seq, "ERR", (("code", "proto"), ("proto", protocol.PROTOCOL_VERSION)))
            return
        self.rejects.accepted += 1
        self._replies = []
        self._reply(seq, "HELLO", self._hello_fields())
        for entry in self.outbox:  # a (re)connected host hears every unacknowledged event now
            entry[2] = self.uptime.ms
            self._write(entry[1])

    def _ack(self, fields):
        try:
            _only(fields, ("seq",))
            acked = int_field(fields, "seq", 1, protocol.SEQ_LIMIT - 1)
        except ProtocolError as exc:
            self.rejects.count(exc.reason)
            return
        self.rejects.accepted += 1
        for i in range(len(self.outbox)):
            if self.outbox[i][0] == acked:
                self.outbox.pop(i)
                return

    def _ping(self, fields):
        _only(fields, ())
        return (("up", self.uptime.ms),)

    def _lights(self, fields):
        _only(fields, ("state", "level"))
        state = fields.get("state")
        if state not in ("on", "off"):
            raise ProtocolError("bad_args", "state must be on or off")
        level = int_field(fields, "level", 1, 255, self.lights.level)
        if state == "on":
            self.lights.on(level)
        else:
            self.lights.level = level
            self.lights.off()
        return (("state", state), ("level", self.lights.level))

    def _reset(self, fields):
        _only(fields, ())
        self.beam.reset_counts()
        self.rejects.reset()
        self.lost_events = 0
        return ()

    def _beam_settings(self, fields):
        _only(fields, ("quiet", "debounce"))
        quiet = int_field(fields, "quiet", QUIET_MIN_MS, QUIET_MAX_MS, self.beam.quiet_ms)
        debounce = int_field(fields, "debounce", DEBOUNCE_MIN_US, DEBOUNCE_MAX_US,
                             self.beam.debounce_us)
        self.beam.quiet_ms = quiet
        self.beam.debounce_us = debounce
        return (("quiet", quiet), ("debounce", debounce))

    def _status(self, fields):
        _only(fields, ())
        counts = self.rejects.counts
        out = [("up", self.uptime.ms), ("total", self.beam.total), ("drops", self.beam.drops),
               ("beam", 1 if self.beam.broken() else 0), ("lights", self.lights.output()),
               ("pending", len(self.outbox)), ("lost", self.lost_events),
               ("edges_lost", self.beam.lost_edges), ("accepted", self.rejects.accepted)]
        for reason in protocol.REASONS:
            out.append(("rej_" + reason, counts[reason]))
        return out

    # -- status LED -----------------------------------------------------------------------------

    def _note_rejects(self):
        total = self.rejects.total()
        if total > self._rejects_seen:
            self._error_until = self.uptime.ms + self.error_show_ms
        self._rejects_seen = total

    def _led_mode(self, up):
        if self.beam.in_drop:
            return "drop"
        if up < self._error_until:
            return "error"
        return "host" if self.host_present() else "no_host"


def _only(fields, allowed):
    for key in fields:
        if key not in allowed:
            raise ProtocolError("bad_args", "unexpected " + key)
