"""The tower's line protocol (see PROTOCOL.md): CRC, framing, encoding, parsing, reject counters.

Hardware-free and allocation-light so it runs unchanged on the Pico and on CPython. A frame is
``$`` + body + ``*`` + four hex digits of CRC-16/CCITT-FALSE over the body, ended by ``\\n``; a
``$`` always starts a new frame, so noise or a lost newline costs at most one line.
"""

try:
    from micropython import const
except ImportError:

    def const(value):
        return value


PROTOCOL_VERSION = const(1)
START = const(0x24)  # "$"
END = const(0x0A)  # "\n"
CR = const(0x0D)
STAR = const(0x2A)  # "*"
SEQ_LIMIT = const(1000000000)  # sequence numbers run 1 .. SEQ_LIMIT - 1, then wrap to 1

# Why a line was rejected. Every rejected line counts under exactly one of these.
REASONS = ("crc", "truncated", "too_long", "malformed", "unknown", "bad_args", "noise")


def _make_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_TABLE = _make_table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF): catches every 1- and 2-bit error in a line."""
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ byte) & 0xFF]
    return crc


class ProtocolError(Exception):
    """A frame that must be rejected; ``reason`` is one of REASONS."""

    def __init__(self, reason, detail=""):
        Exception.__init__(self, reason)
        self.reason = reason
        self.detail = detail


class Rejects:
    """Counts of rejected lines by reason, plus lines accepted, for STATUS replies."""

    def __init__(self):
        self.accepted = 0
        self.counts = {}
        self.reset()

    def reset(self):
        self.accepted = 0
        for reason in REASONS:
            self.counts[reason] = 0

    def count(self, reason):
        self.counts[reason] = self.counts.get(reason, 0) + 1

    def total(self):
        total = 0
        for reason in REASONS:
            total += self.counts[reason]
        return total


def next_seq(seq):
    seq += 1
    return 1 if seq >= SEQ_LIMIT else seq


def _text(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    return value


def encode(seq, kind, fields=()):
    """The bytes of one line: ``fields`` is a sequence of (key, value) pairs, values int or str."""
    parts = [str(seq), kind]
    for key, value in fields:
        parts.append(key + "=" + _text(value))
    body = " ".join(parts).encode()
    return b"$" + body + b"*" + f"{crc16(body):04X}".encode() + b"\n"


class Decoder:
    """Splits a byte stream into frame bodies; counts what cannot be a frame in ``rejects``.

    Bytes outside a frame are noise (counted once per line of noise); a frame cut short by a new
    ``$`` is truncated; a frame longer than ``max_len`` is dropped up to its newline.
    """

    def __init__(self, rejects, max_len=128):
        self.rejects = rejects
        self.max_len = max_len
        self._buf = bytearray()
        self._in_frame = False
        self._overflow = False
        self._noise = False

    def feed(self, data):
        frames = []
        for byte in data:
            if byte == START:
                if self._in_frame and (self._buf or self._overflow):
                    self.rejects.count("too_long" if self._overflow else "truncated")
                elif self._noise:
                    self.rejects.count("noise")
                self._noise = False
                self._in_frame = True
                self._overflow = False
                self._buf = bytearray()
            elif byte == END:
                if self._in_frame:
                    if self._overflow:
                        self.rejects.count("too_long")
                    else:
                        if self._buf and self._buf[-1] == CR:
                            self._buf = self._buf[:-1]
                        frames.append(bytes(self._buf))
                elif self._noise:
                    self.rejects.count("noise")
                self._in_frame = False
                self._overflow = False
                self._noise = False
                self._buf = bytearray()
            elif self._in_frame:
                if self._overflow:
                    continue
                if len(self._buf) >= self.max_len:
                    self._overflow = True
                    self._buf = bytearray()
                else:
                    self._buf.append(byte)
            else:
                self._noise = True
        return frames


def _is_name(text, upper):
    if not text:
        return False
    for ch in text:
        if ("A" <= ch <= "Z") if upper else ("a" <= ch <= "z" or "0" <= ch <= "9"):
            continue
        if ch != "_":
            return False
    return True


def _is_number(text):
    if not text or len(text) > 10:
        return False
    return all("0" <= ch <= "9" for ch in text)


def parse(frame):
    """(seq, kind, fields) of a frame body from Decoder; raises ProtocolError to reject it."""
    star = frame.rfind(b"*")
    if star < 0 or len(frame) - star - 1 < 4:
        raise ProtocolError("truncated", "no checksum")
    if len(frame) - star - 1 > 4:
        raise ProtocolError("malformed", "checksum is not four digits")
    body = frame[:star]
    expected = _crc_field(frame, star)
    if expected < 0:
        raise ProtocolError("malformed", "checksum is not hex")
    if expected != crc16(body):
        raise ProtocolError("crc", "checksum mismatch")
    for byte in body:
        if byte < 0x20 or byte > 0x7E:
            raise ProtocolError("malformed", "byte outside printable ASCII")
    tokens = body.decode().split(" ")
    if len(tokens) < 2 or not _is_number(tokens[0]) or not _is_name(tokens[1], True):
        raise ProtocolError("malformed", "no sequence number or type")
    seq = int(tokens[0])
    if tokens[0][0] == "0" or seq < 1 or seq >= SEQ_LIMIT:
        raise ProtocolError("malformed", "sequence number out of range")
    fields = {}
    for token in tokens[2:]:
        eq = token.find("=")
        key = token[:eq]
        value = token[eq + 1:]
        if eq <= 0 or not value or "=" in value or "*" in value or not _is_name(key, False):
            raise ProtocolError("malformed", "bad field")
        if key in fields:
            raise ProtocolError("malformed", "repeated field")
        fields[key] = value
    return seq, tokens[1], fields


def _crc_field(frame, star):
    value = 0
    for byte in frame[star + 1:star + 5]:
        if 0x30 <= byte <= 0x39:
            digit = byte - 0x30
        elif 0x41 <= byte <= 0x46:
            digit = byte - 0x37
        else:
            return -1
        value = (value << 4) | digit
    return value


def int_field(fields, key, low, high, default=None):
    """A decimal field within [low, high]; ProtocolError("bad_args") otherwise."""
    text = fields.get(key)
    if text is None:
        if default is None:
            raise ProtocolError("bad_args", "missing " + key)
        return default
    if not _is_number(text):
        raise ProtocolError("bad_args", key + " is not a number")
    value = int(text)
    if value < low or value > high:
        raise ProtocolError("bad_args", key + " out of range")
    return value
