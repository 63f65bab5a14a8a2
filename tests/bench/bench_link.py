"""Tower link figures: parsing speed on both sides, latency over the pty, fault recovery times.

Runs the real link against the firmware simulator; prints figures and never judges them.
"""

from __future__ import annotations

import statistics
import time

from companion.config import LinkConfig
from companion.hardware.link import CountNowPressed, DropFinished, LinkState, TowerLink
from companion.hardware.sim.tower_device import SimulatedTower, load_firmware
from companion.hardware.tower_protocol import LineDecoder, encode

WAIT = 20.0


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def parse_rates() -> None:
    lines = [encode(i + 1, "HB", [("up", 1000 * i), ("total", i % 40), ("drops", i // 40),
                                  ("beam", 0), ("pending", 0), ("lights", 0)])
             for i in range(50_000)]
    stream = b"".join(lines)
    decoder = LineDecoder()
    started = time.perf_counter()
    for at in range(0, len(stream), 4096):
        decoder.feed(stream[at:at + 4096])
    elapsed = time.perf_counter() - started
    print(f"host decoder: {len(lines) / elapsed:,.0f} lines/s "
          f"({len(stream) / elapsed / 1e6:.1f} MB/s), {decoder.accepted} accepted")

    fw = load_firmware()
    rejects = fw.protocol.Rejects()
    fw_decoder = fw.protocol.Decoder(rejects, 96)
    sample = stream[: len(stream) // 10]
    started = time.perf_counter()
    count = 0
    for frame in fw_decoder.feed(sample):
        fw.protocol.parse(frame)
        count += 1
    elapsed = time.perf_counter() - started
    print(f"firmware decoder on CPython: {count / elapsed:,.0f} lines/s "
          "(CPython on this machine; the Pico is far slower, and the host sends it only a few "
          "lines a second)")


def latencies(sim: SimulatedTower, link: TowerLink) -> None:
    rtts = [link.ping() * 1000 for _ in range(200)]
    print(f"PING round trip over the pty: p50 {statistics.median(rtts):.2f} ms, "
          f"p95 {_pct(rtts, 0.95):.2f} ms, max {max(rtts):.2f} ms")

    written: dict[int, float] = {}
    original = sim.tower._write

    def stamped(line: bytes) -> None:
        if b" COUNT_NOW " in line or b" DROP_END " in line:
            written.setdefault(int(line[1:line.index(b" ")]), time.monotonic())
        original(line)

    sim.tower._write = stamped
    event_ms = []
    for _ in range(20):
        sim.press_count_now(hold_s=0.05)
        event = link.next_event(WAIT)
        while event is not None and not isinstance(event, CountNowPressed):
            event = link.next_event(WAIT)
        assert event is not None, "no count-now event"
        event_ms.append(event.received_at)
        time.sleep(0.06)
    sends = sorted(written.values())[-len(event_ms):]
    lat = [(got - sent) * 1000 for got, sent in zip(event_ms, sends, strict=True)]
    print(f"event latency (firmware write -> link delivery): p50 {statistics.median(lat):.2f} ms,"
          f" p95 {_pct(lat, 0.95):.2f} ms")

    finish_ms = []
    counts_ok = 0
    for cubes in (1, 5, 12, 25, 40):
        cleared_at = sim.drop(cubes)
        event = link.next_event(WAIT)
        while event is not None and not isinstance(event, DropFinished):
            event = link.next_event(WAIT)
        assert event is not None, "no drop finished"
        counts_ok += event.count == cubes
        finish_ms.append((event.received_at - cleared_at) * 1000 - sim.quiet_ms)
    sim.tower._write = original
    print(f"drop finished: beam counts right in {counts_ok}/5 drops (1-40 cubes, with bounce); "
          f"delivered {statistics.median(finish_ms):.1f} ms (median) after the quiet time")


def recovery(sim: SimulatedTower, link: TowerLink) -> None:
    times = []
    for _ in range(10):
        sim.unplug()
        assert link.wait_for_state(LinkState.ABSENT, WAIT)
        started = time.monotonic()
        sim.replug()
        assert link.wait_for_state(LinkState.CONNECTED, WAIT)
        times.append((time.monotonic() - started) * 1000)
    print(f"replug -> connected: median {statistics.median(times):.0f} ms, "
          f"max {max(times):.0f} ms (10 replugs)")

    sim.set_silent(True)
    started = time.monotonic()
    assert link.wait_for_state(LinkState.RECONNECTING, WAIT)
    noticed = time.monotonic() - started
    sim.set_silent(False)
    started = time.monotonic()
    assert link.wait_for_state(LinkState.CONNECTED, WAIT)
    print(f"silent tower noticed after {noticed:.2f} s (heartbeat timeout "
          f"{link.config.heartbeat_timeout_s} s); back {time.monotonic() - started:.2f} s "
          "after it speaks again")


def idle_cpu(sim: SimulatedTower, link: TowerLink) -> None:
    started_cpu, started = time.process_time(), time.monotonic()
    time.sleep(3.0)
    share = (time.process_time() - started_cpu) / (time.monotonic() - started)
    print(f"idle CPU of link + simulator together: {share * 100:.1f}% of one core "
          f"(link state {link.state}, {link.status().lines} lines so far)")


def main() -> None:
    parse_rates()
    with SimulatedTower(seed=3, quiet_ms=400) as sim, TowerLink(
            LinkConfig(heartbeat_timeout_s=2.0), port_finder=sim.find_port) as link:
        if not link.wait_for_state(LinkState.CONNECTED, WAIT):
            print(f"the link did not connect: {link.status().reason}")
            return
        latencies(sim, link)
        recovery(sim, link)
        idle_cpu(sim, link)


if __name__ == "__main__":
    main()
