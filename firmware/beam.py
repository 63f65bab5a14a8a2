"""Exit break-beam counter: interrupt edges in, debounced cube counts and drop start/finish out.

The interrupt handler only stores (level, microsecond tick) in a preallocated ring, so it never
allocates and is safe as a hard IRQ. ``poll`` then debounces those timestamped edges: a level
counts only once it has held for ``debounce_us``, judged from the edges' own timestamps, so a
late poll changes nothing. A drop starts at the first cube and finishes once the beam has been
clear and quiet for ``quiet_ms``.
"""

from array import array

from ticks import ticks_diff

try:
    from micropython import const
except ImportError:

    def const(value):
        return value


CLEAR = const(1)  # receiver output with nothing in the beam (open collector, pulled up)
BROKEN = const(0)


class Beam:
    def __init__(self, debounce_us=1000, quiet_ms=1500, initial_level=CLEAR, ring_size=128,
                 max_times=48):
        self.debounce_us = debounce_us
        self.quiet_ms = quiet_ms
        self.max_times = max_times
        self._size = ring_size
        self._levels = array("b", [0] * ring_size)
        self._stamps = array("i", [0] * ring_size)
        self._head = 0  # written only by irq()
        self._tail = 0  # written only by poll()
        self.lost_edges = 0
        self._raw = initial_level
        self._raw_since = 0
        self._stable = initial_level
        self.total = 0  # cubes counted since boot or the last reset
        self.drops = 0  # drops started since boot (the number of the latest drop)
        self.in_drop = False
        self._count = 0
        self._t0 = 0
        self._last_ms = 0
        self._last_clear_ms = 0
        self._times = []
        self._more = False

    def irq(self, level, t_us):
        """Record one edge; called from the pin interrupt with the pin level and ticks_us()."""
        head = self._head
        nxt = head + 1
        if nxt == self._size:
            nxt = 0
        if nxt == self._tail:
            self.lost_edges += 1
            return
        self._levels[head] = level
        self._stamps[head] = t_us
        self._head = nxt

    def reset_counts(self):
        """Zero the cube total (host RESET); drop numbers keep rising so they stay unique."""
        self.total = 0
        self.lost_edges = 0

    def broken(self):
        return self._stable == BROKEN

    def poll(self, now_us, now_ms):
        """Process stored edges; returns events ("start", drop, t_ms) and
        ("end", drop, count, t0_ms, t1_ms, times_ms, more) with times in uptime milliseconds."""
        events = []
        tail = self._tail
        while tail != self._head:
            level = self._levels[tail]
            t_us = self._stamps[tail]
            tail += 1
            if tail == self._size:
                tail = 0
            self._tail = tail
            if level == self._raw:
                continue
            if (self._raw != self._stable
                    and ticks_diff(t_us, self._raw_since) >= self.debounce_us):
                self._commit(self._raw, self._raw_since, now_us, now_ms, events)
            self._raw = level
            self._raw_since = t_us
        if (self._raw != self._stable
                and ticks_diff(now_us, self._raw_since) >= self.debounce_us):
            self._commit(self._raw, self._raw_since, now_us, now_ms, events)
        if (self.in_drop and self._stable == CLEAR and self._raw == CLEAR
                and now_ms - self._last_ms >= self.quiet_ms):
            self.in_drop = False
            events.append(("end", self.drops, self._count, self._t0, self._last_clear_ms,
                           self._times, self._more))
        return events

    def _commit(self, level, t_us, now_us, now_ms, events):
        self._stable = level
        t_ms = now_ms - ticks_diff(now_us, t_us) // 1000
        self._last_ms = t_ms
        if level != BROKEN:
            self._last_clear_ms = t_ms
            return
        if not self.in_drop:
            self.in_drop = True
            self.drops += 1
            self._count = 0
            self._t0 = t_ms
            self._times = []
            self._more = False
            events.append(("start", self.drops, t_ms))
        self._count += 1
        self.total += 1
        if len(self._times) < self.max_times:
            self._times.append(t_ms - self._t0)
        else:
            self._more = True
