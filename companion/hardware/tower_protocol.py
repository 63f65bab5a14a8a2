"""The host's side of the tower line protocol (``firmware/PROTOCOL.md``): encode and parse lines.

Written independently of ``firmware/protocol.py`` (same format, CPython idioms, C-speed CRC), so
the tests that run the firmware simulator against the link check two implementations against
each other rather than one against itself.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

PROTOCOL_VERSION = 1
SEQ_LIMIT = 1_000_000_000
MAX_DEVICE_LINE = 512  # longest frame body the tower sends (a DROP_END with 48 cube times fits)
MAX_HOST_LINE = 96  # longest frame body the tower accepts

REASONS = ("crc", "truncated", "too_long", "malformed", "unknown", "bad_args", "noise")

_BODY = re.compile(rb"(0|[1-9][0-9]{0,9}) ([A-Z_]+)((?: [a-z0-9_]+=[!-)+-<>-~]+)*)")
_FIELD = re.compile(r"([a-z0-9_]+)=(\S+)")
_HEX4 = re.compile(rb"[0-9A-F]{4}")


class LineError(ValueError):
    """A line that must be rejected; ``reason`` is one of REASONS."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Line:
    seq: int
    kind: str
    fields: Mapping[str, str]

    def int(self, key: str, low: int = 0, high: int = SEQ_LIMIT) -> int:
        """A decimal field in [low, high], or LineError("bad_args")."""
        text = self.fields.get(key)
        if text is None or not text.isdigit() or len(text) > 10:
            raise LineError("bad_args", f"{self.kind}: {key} is missing or not a number")
        value = int(text)
        if not low <= value <= high:
            raise LineError("bad_args", f"{self.kind}: {key}={value} is out of range")
        return value


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE, the checksum every line carries."""
    return binascii.crc_hqx(data, 0xFFFF)


def encode(seq: int, kind: str, fields: Iterable[tuple[str, int | str]] = ()) -> bytes:
    parts = [str(seq), kind]
    for key, value in fields:
        text = str(int(value)) if isinstance(value, bool | int) else value
        parts.append(f"{key}={text}")
    body = " ".join(parts).encode("ascii")
    return b"$%s*%04X\n" % (body, crc16(body))


def parse(frame: bytes) -> Line:
    """The line in a frame body (between ``$`` and the newline); LineError to reject it."""
    star = frame.rfind(b"*")
    if star < 0 or len(frame) - star - 1 < 4:
        raise LineError("truncated", "no checksum")
    digits = frame[star + 1:]
    if len(digits) > 4 or not _HEX4.fullmatch(digits):
        raise LineError("malformed", "the checksum is not four hex digits")
    body = frame[:star]
    if int(digits, 16) != crc16(body):
        raise LineError("crc", "checksum mismatch")
    match = _BODY.fullmatch(body)
    if match is None:
        raise LineError("malformed", "not 'seq TYPE key=value...'")
    seq = int(match.group(1))
    if not 1 <= seq < SEQ_LIMIT:
        raise LineError("malformed", "sequence number out of range")
    fields: dict[str, str] = {}
    for key, value in _FIELD.findall(match.group(3).decode("ascii")):
        if key in fields:
            raise LineError("malformed", f"field {key} twice")
        fields[key] = value
    return Line(seq, match.group(2).decode("ascii"), fields)


class LineDecoder:
    """Bytes in, parsed lines out; every rejected line is counted in ``rejected`` by reason.

    A ``$`` starts a frame and a newline ends it: bytes before the ``$`` are noise, a frame cut
    by another ``$`` is truncated, and an endless frame is dropped as too long.
    """

    def __init__(self, max_len: int = MAX_DEVICE_LINE) -> None:
        self.max_len = max_len
        self.rejected: dict[str, int] = dict.fromkeys(REASONS, 0)
        self.accepted = 0
        self._buf = bytearray()
        self._discarding = False

    def reject(self, reason: str) -> None:
        self.rejected[reason] += 1

    def feed(self, data: bytes) -> list[Line]:
        self._buf += data
        lines: list[Line] = []
        while True:
            if self._discarding and not self._resync():
                break
            newline = self._buf.find(b"\n")
            if newline < 0:
                if len(self._buf) > self.max_len + 8:
                    self._overflow()
                    continue
                break
            raw = bytes(self._buf[:newline])
            del self._buf[:newline + 1]
            self._line(raw, lines)
        return lines

    def _overflow(self) -> None:
        """A frame without end: drop it, keeping a later frame start if one is in the buffer."""
        self.reject("too_long")
        start = self._buf.rfind(b"$")
        if start > 0 and len(self._buf) - start <= self.max_len + 8:
            del self._buf[:start]
        else:
            self._buf.clear()
            self._discarding = True

    def _resync(self) -> bool:
        """Skip a too-long frame up to the next ``$`` or newline; False if more bytes are needed."""
        start, newline = self._buf.find(b"$"), self._buf.find(b"\n")
        if start < 0 and newline < 0:
            self._buf.clear()
            return False
        if start >= 0 and (newline < 0 or start < newline):
            del self._buf[:start]
        else:
            del self._buf[:newline + 1]
        self._discarding = False
        return True

    def _line(self, raw: bytes, lines: list[Line]) -> None:
        parts = raw.split(b"$")
        if parts[0]:
            self.reject("noise")
        if len(parts) == 1:
            return
        for cut in parts[1:-1]:
            if cut:
                self.reject("truncated")
        frame = parts[-1].rstrip(b"\r")
        if len(frame) > self.max_len:
            self.reject("too_long")
            return
        try:
            lines.append(parse(frame))
        except LineError as exc:
            self.reject(exc.reason)
            return
        self.accepted += 1
