"""The real link over a pty against the firmware simulator: handshake, commands, drop events,
faults (garbage, lost lines, silence, unplug, replug, reboot) and no double counting."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.hardware.link import (
    CountNowPressed,
    DropFinished,
    DropStarted,
    LinkState,
    LinkStateChanged,
    LinkTimeout,
    LinkUnavailable,
    TowerLink,
    TowerRefused,
)
from companion.hardware.sim.tower_device import SimulatedTower
from tests.hardware.link_support import WAIT, drain, make_link, make_sim, next_of, wait_for


@pytest.fixture
def sim() -> Iterator[SimulatedTower]:
    tower = make_sim().start()
    yield tower
    tower.close()


@pytest.fixture
def link(sim: SimulatedTower) -> Iterator[TowerLink]:
    with make_link(sim) as tower_link:
        assert tower_link.wait_for_state(LinkState.CONNECTED, WAIT), tower_link.status()
        yield tower_link


def test_the_simulator_runs_the_firmware_s_own_modules(sim: SimulatedTower) -> None:
    from companion.hardware.sim.tower_device import FIRMWARE_DIR

    for part in (sim.tower, sim.beam, sim.ring, sim.tower.button, sim.tower.led):
        source = type(part).__init__.__globals__["__file__"]
        assert Path(source).parent == FIRMWARE_DIR, source
    assert "tower" not in sys.modules  # the firmware's short module names do not leak


def test_handshake_reports_firmware_and_boot(sim: SimulatedTower, link: TowerLink) -> None:
    status = link.status()
    assert status.state is LinkState.CONNECTED
    assert status.firmware == "1.0.0" and status.boot == sim.boot_id
    assert status.port == sim.port


def test_commands_get_their_replies(sim: SimulatedTower, link: TowerLink) -> None:
    assert 0 < link.ping() < WAIT
    assert link.lights(True, 120).level == 120 and sim.lights == 120
    off = link.lights(False)
    assert (off.on, off.level) == (False, 120) and sim.lights == 0
    assert link.lights(True).level == 120
    with pytest.raises(ValueError, match=r"1\.\.255"):
        link.lights(True, 0)
    status = link.tower_status()
    assert status.lights == 120 and status.total == 0 and not status.beam_broken
    assert sum(status.rejected.values()) == 0


def test_a_drop_arrives_with_the_beam_count_and_times(sim: SimulatedTower,
                                                      link: TowerLink) -> None:
    sim.drop(9)
    started = next_of(link, DropStarted)
    finished = next_of(link, DropFinished)
    assert started.drop == finished.drop == 1 and started.boot == finished.boot == sim.boot_id
    assert finished.count == 9 and finished.total == 9
    assert len(finished.times_ms) == 9 and finished.times_ms[0] == 0
    assert list(finished.times_ms) == sorted(finished.times_ms)
    assert finished.t0_ms == started.t_ms and finished.t1_ms > finished.t0_ms
    link.reset_counters()
    assert link.tower_status().total == 0


def test_count_now_button(sim: SimulatedTower, link: TowerLink) -> None:
    sim.press_count_now()
    assert next_of(link, CountNowPressed).boot == sim.boot_id
    assert drain(link, 0.5) == []  # one press, one event


def test_garbage_from_the_tower_is_rejected_and_counted(sim: SimulatedTower,
                                                       link: TowerLink) -> None:
    sim.send_garbage(b"\x00\xff\x03boot noise\r\n")  # noise
    sim.send_garbage(b"$12 HB up=1*0000\n")  # bad checksum
    sim.send_garbage(b"$13 HB up=")  # cut short by the next line
    assert wait_for(lambda: link.status().rejected["noise"] >= 1
                    and link.status().rejected["crc"] >= 1
                    and link.status().rejected["truncated"] >= 1)
    sim.drop(3)
    assert next_of(link, DropFinished).count == 3
    assert link.state is LinkState.CONNECTED


def test_garbage_to_the_tower_is_rejected_counted_and_not_acted_on(sim: SimulatedTower,
                                                                  link: TowerLink) -> None:
    sim.feed_garbage(b"$5 LIGHTS state=on level=99*0000\n")  # bad checksum
    sim.feed_garbage(b"$6 LIGHTS state=on\n")  # no checksum
    sim.feed_garbage(b"\x13\x37 ATZ\n")  # noise
    status = link.tower_status()
    assert status.rejected["crc"] == 1 and status.rejected["truncated"] == 1
    assert status.rejected["noise"] == 1
    assert status.lights == 0 and sim.lights == 0


def test_a_lost_event_line_is_sent_again_and_delivered_once(sim: SimulatedTower,
                                                            link: TowerLink) -> None:
    sim.drop_outgoing(1, kind="DROP_START")
    sim.drop_outgoing(1, kind="DROP_END")
    sim.drop(4)
    events = [next_of(link, DropStarted), next_of(link, DropFinished)]
    assert events[1].count == 4
    assert sim.stats.dropped_out >= 2
    assert drain(link) == []


def test_a_lost_ack_brings_a_resend_that_is_not_counted_twice(sim: SimulatedTower,
                                                              link: TowerLink) -> None:
    sim.drop_incoming(3, kind="ACK")
    sim.drop(2)
    assert next_of(link, DropFinished).count == 2
    assert wait_for(lambda: link.status().duplicates >= 1)
    assert wait_for(lambda: sim.tower.outbox == [])  # the repeat was acknowledged
    assert drain(link) == []


def test_a_lost_reply_is_asked_again_and_the_command_runs_once(sim: SimulatedTower,
                                                               link: TowerLink) -> None:
    link.ping_interval_s = 600.0  # no PING of the link's own, whose OK the fault could take
    before = sim.pixels.writes
    sim.drop_outgoing(1, kind="OK")
    link.reply_timeout_s = 0.3
    assert link.lights(True, 50).level == 50
    assert sim.stats.dropped_out == 1 and not sim.faults_pending()
    assert sim.pixels.writes == before + 1  # the resent command was answered from the cache


def test_a_boot_hello_crossing_the_handshake_is_not_taken_for_a_restart() -> None:
    """A tower slow to boot answers the link's HELLO first, then announces its boot: the same
    boot tag, so the link stays connected rather than shaking hands again (a second handshake
    that a hung tower then failed was reported as an unanswered HELLO, not as silence)."""
    sim = make_sim()
    heard: list[bytes] = []
    feed = sim.tower.feed
    sim.tower.feed = lambda data: (heard.append(data), feed(data))[1]
    sim.set_silent(True)  # not booted yet: the link's HELLO waits in the line
    with sim, make_link(sim) as link:
        time.sleep(0.3)
        sim.set_silent(False)
        assert link.wait_for_state(LinkState.CONNECTED, WAIT)
        assert drain(link) == []
        assert b"".join(heard).count(b" HELLO") == 1
        assert link.status().boot == sim.boot_id


def test_a_silent_tower_is_noticed_and_found_again(sim: SimulatedTower) -> None:
    with make_link(sim, heartbeat_timeout_s=2.0) as link:
        assert link.wait_for_state(LinkState.CONNECTED, WAIT)
        while next_of(link, LinkStateChanged).state is not LinkState.CONNECTED:
            pass
        sim.set_silent(True)
        lost = next_of(link, LinkStateChanged)
        assert lost.state is LinkState.RECONNECTING and "silent for" in lost.reason
        with pytest.raises(LinkUnavailable, match="not connected"):
            link.ping()
        sim.set_silent(False)
        assert link.wait_for_state(LinkState.CONNECTED, WAIT)
        sim.drop(2)
        assert next_of(link, DropFinished).count == 2


def test_a_command_to_a_hung_tower_times_out(sim: SimulatedTower) -> None:
    with make_link(sim, heartbeat_timeout_s=30.0, reply_timeout_s=0.2) as link:
        assert link.wait_for_state(LinkState.CONNECTED, WAIT)
        sim.set_silent(True)
        with pytest.raises(LinkTimeout, match="did not answer PING"):
            link.ping()
        sim.set_silent(False)


def test_unplug_and_replug_delivers_what_happened_meanwhile_once(sim: SimulatedTower,
                                                                 link: TowerLink) -> None:
    sim.unplug()
    assert link.wait_for_state(LinkState.ABSENT, WAIT)
    sim.drop(5)  # the firmware keeps counting while the cable is out
    assert sim.wait_until(lambda: not sim.beam.in_drop and sim.beam.total == 5)
    time.sleep(0.05)
    sim.replug()
    assert link.wait_for_state(LinkState.CONNECTED, WAIT)
    assert next_of(link, DropStarted).drop == 1
    assert next_of(link, DropFinished).count == 5
    assert drain(link) == []
    assert link.status().reconnects == 1


def test_an_event_in_flight_at_the_unplug_is_not_counted_twice(sim: SimulatedTower,
                                                               link: TowerLink) -> None:
    sim.drop_incoming(100, kind="ACK")  # the tower never hears the acknowledgements
    sim.drop(3)
    assert next_of(link, DropFinished).count == 3
    sim.unplug()
    assert link.wait_for_state(LinkState.ABSENT, WAIT)
    sim.clear_faults()
    sim.replug()
    assert link.wait_for_state(LinkState.CONNECTED, WAIT)
    assert wait_for(lambda: sim.tower.outbox == [])  # resent on the new port, acknowledged
    assert drain(link) == []
    assert link.status().duplicates >= 2


def test_a_rebooted_tower_starts_a_new_count(sim: SimulatedTower, link: TowerLink) -> None:
    sim.drop(2)
    first = next_of(link, DropFinished)
    old_boot = sim.boot_id
    sim.reboot()
    assert sim.boot_id != old_boot
    assert wait_for(lambda: link.status().boot == sim.boot_id)
    assert link.state is LinkState.CONNECTED or link.wait_for_state(LinkState.CONNECTED, WAIT)
    notices = []
    while (event := link.next_event(0.3)) is not None:
        assert isinstance(event, LinkStateChanged)
        notices.append(event.reason)
    assert any(f"restarted (boot {sim.boot_id})" in reason for reason in notices), notices
    sim.drop(3)
    started = next_of(link, DropStarted)
    second = next_of(link, DropFinished)
    assert (first.drop, started.drop, second.drop) == (1, 1, 1)
    assert second.boot == sim.boot_id and second.count == 3 and second.total == 3


def test_a_tower_with_another_protocol_is_refused(sim: SimulatedTower,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sim.fw.protocol, "PROTOCOL_VERSION", 2)
    with make_link(sim, backoff_max_s=0.2) as link:
        assert wait_for(lambda: "flash matching firmware" in link.status().reason)
        assert link.state is not LinkState.CONNECTED


def test_no_port_means_absent_and_commands_say_so() -> None:
    with TowerLink(port_finder=lambda: None) as link:
        assert link.wait_for_state(LinkState.ABSENT, WAIT)
        assert "2E8A" in link.status().reason
        with pytest.raises(LinkUnavailable, match="not connected"):
            link.lights(True)


def test_a_start_repeated_after_its_drop_finished_is_not_delivered() -> None:
    with SimulatedTower(seed=5, quiet_ms=200, retry_ms=2500) as sim, make_link(sim) as link:
        assert link.wait_for_state(LinkState.CONNECTED, WAIT)
        sim.drop_outgoing(1, kind="DROP_START")  # its resend comes long after the finish
        sim.drop(1)
        assert next_of(link, DropFinished).count == 1
        assert wait_for(lambda: sim.tower.outbox == [])  # the late start came and was acked
        assert drain(link) == []


def test_a_command_the_tower_refuses_raises_with_its_reason(link: TowerLink) -> None:
    with pytest.raises(TowerRefused, match="refused SELF_DESTRUCT: unknown"):
        link._command("SELF_DESTRUCT", ())
    assert link.tower_status().rejected["unknown"] == 1


def test_every_drop_arrives_once_through_a_mix_of_faults() -> None:
    """Ten drops, each with a different fault on the way (noise, a lost event, a lost ACK, a
    lost heartbeat): each drop is delivered exactly once, with the beam's count."""
    import random

    rng = random.Random(2024)
    faults = ["garbage", "lose_start", "lose_end", "lose_ack", "lose_any", "none"]
    with SimulatedTower(seed=9, quiet_ms=200, retry_ms=300) as sim, make_link(sim) as link:
        assert link.wait_for_state(LinkState.CONNECTED, WAIT)
        expected = {}
        for drop in range(1, 11):
            fault = faults[drop % len(faults)]
            if fault == "garbage":
                sim.send_garbage(bytes(rng.getrandbits(8) for _ in range(40)) + b"\n$9 DR")
            elif fault == "lose_start":
                sim.drop_outgoing(1, kind="DROP_START")
            elif fault == "lose_end":
                sim.drop_outgoing(1, kind="DROP_END")
            elif fault == "lose_ack":
                sim.drop_incoming(2, kind="ACK")
            elif fault == "lose_any":
                sim.drop_outgoing(1)
            cubes = rng.randint(1, 4)
            expected[drop] = cubes
            sim.drop(cubes)
            assert sim.wait_until(lambda n=drop: not sim.beam.in_drop and sim.beam.drops >= n)
        assert wait_for(lambda: sim.tower.outbox == [] and not sim.faults_pending())
        finished = [e for e in drain(link) if isinstance(e, DropFinished)]
        assert {e.drop: e.count for e in finished} == expected
        assert len(finished) == len(expected)


def test_the_host_sets_the_beam_timing(sim: SimulatedTower, link: TowerLink) -> None:
    assert link.beam_settings(quiet_ms=200, debounce_us=1500) == (200, 1500)
    assert sim.tower.beam.quiet_ms == 200  # the firmware's own beam logic obeys
    assert link.beam_settings() == (200, 1500)
    with pytest.raises(ValueError, match=r"100\.\.10000"):
        link.beam_settings(quiet_ms=50)
    sim.drop(3)
    assert next_of(link, DropFinished).count == 3
