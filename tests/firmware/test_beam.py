"""firmware/beam.py: debounced cube counting and drop start/finish from timestamped edges."""

from __future__ import annotations

import types
from typing import Any

from tests.firmware.conftest import Clock

TICKS = 1 << 30


def make(fw: types.SimpleNamespace, **kw: int) -> Any:
    return fw.beam.Beam(kw.pop("debounce_us", 1000), kw.pop("quiet_ms", 500), fw.beam.CLEAR, **kw)


def cube(beam: Any, clock: Clock, length_ms: float = 8, chatter: int = 0,
         gap_ms: float = 30) -> None:
    """Edges for one cube starting now (bounce: ``chatter`` 50 µs blips at each edge)."""
    t = 0.0
    for level in (0, 1):
        for _ in range(chatter):
            beam.irq(level, clock.us(t))
            beam.irq(1 - level, clock.us(t + 50))
            t += 150
        beam.irq(level, clock.us(t))
        t += length_ms * 1000
    clock.advance_ms(t / 1000 - length_ms + gap_ms)


def poll_for(beam: Any, clock: Clock, ms: int, uptime: list[int]) -> list[tuple]:
    events = []
    for _ in range(ms):
        clock.advance_ms(1)
        uptime[0] += 1
        events += beam.poll(clock.us(), uptime[0])
    return events


def test_each_cube_counts_once_through_contact_bounce(fw: types.SimpleNamespace) -> None:
    beam, clock, up = make(fw), Clock(), [0]
    for chatter in (0, 1, 3, 2, 0):
        cube(beam, clock, chatter=chatter)
        up[0] += 40
        beam.poll(clock.us(), up[0])
    assert beam.total == 5
    assert beam.drops == 1 and beam.in_drop


def test_a_blip_shorter_than_the_debounce_is_not_a_cube(fw: types.SimpleNamespace) -> None:
    beam, clock, up = make(fw, debounce_us=1000), Clock(), [0]
    beam.irq(0, clock.us())
    beam.irq(1, clock.us(900))
    assert poll_for(beam, clock, 50, up) == []
    assert beam.total == 0 and not beam.in_drop


def test_a_late_poll_sees_the_same_cubes_as_a_prompt_one(fw: types.SimpleNamespace) -> None:
    """Debouncing judges the edges' own timestamps, so a busy main loop changes nothing."""
    prompt, late, clock = make(fw), make(fw), Clock()
    for _ in range(4):
        start = clock.ns
        cube(prompt, clock, chatter=2, gap_ms=12)
        prompt.poll(clock.us(), 0)
        clock.ns = start
        cube(late, clock, chatter=2, gap_ms=12)
    late.poll(clock.us(), 0)
    assert prompt.total == late.total == 4


def test_drop_starts_at_the_first_cube_and_finishes_after_the_quiet_time(
        fw: types.SimpleNamespace) -> None:
    beam, clock, up = make(fw, quiet_ms=500), Clock(), [1000]
    events = []
    for _ in range(3):
        cube(beam, clock, length_ms=10, gap_ms=100)
        up[0] += 110
        events += beam.poll(clock.us(), up[0])
    assert events[0][0] == "start" and events[0][1] == 1
    assert [e[0] for e in events] == ["start"]
    events = poll_for(beam, clock, 300, up)
    assert events == []  # 100 ms + 300 ms since the last cube: not quiet long enough yet
    events = poll_for(beam, clock, 200, up)
    assert len(events) == 1
    kind, drop, count, t0, t1, times, more = events[0]
    assert (kind, drop, count, more) == ("end", 1, 3, False)
    assert times[0] == 0 and 105 <= times[1] <= 115 and 215 <= times[2] <= 225
    assert 225 <= t1 - t0 <= 235
    assert not beam.in_drop
    cube(beam, clock)
    assert beam.poll(clock.us(), up[0] + 40)[0][:2] == ("start", 2)


def test_a_blocked_beam_holds_the_drop_open(fw: types.SimpleNamespace) -> None:
    beam, clock, up = make(fw, quiet_ms=200), Clock(), [0]
    beam.irq(0, clock.us())
    events = poll_for(beam, clock, 1000, up)
    assert [e[0] for e in events] == ["start"]
    assert beam.broken() and beam.in_drop
    beam.irq(1, clock.us())
    events = poll_for(beam, clock, 250, up)
    assert [e[0] for e in events] == ["end"] and events[0][2] == 1


def test_counting_works_across_the_tick_wrap(fw: types.SimpleNamespace) -> None:
    clock = Clock(start_ns=(TICKS - 20_000) * 1000)  # µs ticks wrap 20 ms in
    beam, up = make(fw), [0]
    for _ in range(6):
        cube(beam, clock, length_ms=6, gap_ms=10, chatter=1)
    poll_for(beam, clock, 600, up)
    assert clock.us() < 1_000_000  # wrapped
    assert beam.total == 6 and beam.drops == 1 and not beam.in_drop


def test_a_full_edge_ring_counts_the_lost_edges(fw: types.SimpleNamespace) -> None:
    beam, clock = make(fw, ring_size=8), Clock()
    for i in range(20):
        beam.irq(i % 2, clock.us(i * 10))
    assert beam.lost_edges == 20 - 7
    beam.reset_counts()
    assert beam.lost_edges == 0


def test_cube_times_are_capped_and_flagged(fw: types.SimpleNamespace) -> None:
    beam, clock, up = make(fw, max_times=4), Clock(), [0]
    for _ in range(6):
        cube(beam, clock, gap_ms=20)
    events = poll_for(beam, clock, 800, up)
    end = next(e for e in events if e[0] == "end")
    assert end[2] == 6 and len(end[5]) == 4 and end[6] is True


def test_reset_zeroes_the_total_but_not_the_drop_number(fw: types.SimpleNamespace) -> None:
    beam, clock, up = make(fw), Clock(), [0]
    cube(beam, clock)
    poll_for(beam, clock, 600, up)
    beam.reset_counts()
    assert beam.total == 0 and beam.drops == 1
