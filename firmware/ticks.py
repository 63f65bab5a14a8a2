"""Wrapping millisecond and microsecond tick counters: MicroPython's own, or the same on CPython.

MicroPython's ``time.ticks_*`` wrap at 2**30; the CPython fallback wraps the same way, so the
logic modules meet the same arithmetic in tests and in the firmware simulator as on the Pico.
"""

try:
    from time import ticks_add, ticks_diff, ticks_ms, ticks_us
except ImportError:
    import time as _time

    TICKS_PERIOD = 1 << 30
    _MASK = TICKS_PERIOD - 1
    _HALF = TICKS_PERIOD // 2

    def ticks_ms():
        return (_time.monotonic_ns() // 1000000) & _MASK

    def ticks_us():
        return (_time.monotonic_ns() // 1000) & _MASK

    def ticks_add(ticks, delta):
        return (ticks + delta) & _MASK

    def ticks_diff(ticks1, ticks2):
        return ((ticks1 - ticks2 + _HALF) & _MASK) - _HALF
else:
    TICKS_PERIOD = 1 << 30


TICKS_MASK = TICKS_PERIOD - 1


class Uptime:
    """Milliseconds since boot that never wrap, built from successive ``ticks_ms`` readings."""

    def __init__(self, start_ticks):
        self._last = start_ticks
        self.ms = 0

    def update(self, now_ticks):
        delta = ticks_diff(now_ticks, self._last)
        if delta > 0:
            self.ms += delta
            self._last = now_ticks
        return self.ms
