"""firmware/tower.py: hello, heartbeats, commands and replies, event retransmission, rejects."""

from __future__ import annotations

import types

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from companion.hardware import tower_protocol as host
from tests.firmware.conftest import Harness


def test_boot_sends_hello_then_heartbeats(harness: Harness) -> None:
    harness.run(2500, every=10)
    lines = harness.sent
    assert lines[0].kind == "HELLO"
    assert lines[0].fields == {"proto": "1", "fw": "1.0.0", "boot": "C0FFEE01", "up": "10",
                               "pending": "0"}
    assert [line.kind for line in lines[1:]] == ["HB", "HB", "HB"]
    assert [line.seq for line in lines] == [1, 2, 3, 4]  # one sequence for every line
    assert lines[-1].fields["up"] == "2010" and lines[-1].fields["beam"] == "0"


def test_hello_reply_carries_versions_and_the_boot_tag(harness: Harness) -> None:
    harness.step()
    harness.take()
    seq = harness.send("HELLO", ("proto", 1))
    reply = harness.reply_to(seq)
    assert reply.kind == "HELLO"
    assert reply.fields["proto"] == "1" and reply.fields["boot"] == "C0FFEE01"
    assert harness.tower.host_present()


def test_a_hello_for_another_protocol_is_refused(harness: Harness) -> None:
    seq = harness.send("HELLO", ("proto", 2))
    reply = harness.reply_to(seq)
    assert (reply.kind, reply.fields["code"]) == ("ERR", "proto")
    assert harness.tower.rejects.counts["bad_args"] == 1


def test_lights_on_off_and_level(harness: Harness) -> None:
    reply = harness.reply_to(harness.send("LIGHTS", ("state", "on"), ("level", 80)))
    assert (reply.kind, reply.fields["state"], reply.fields["level"]) == ("OK", "on", "80")
    assert harness.pixels.colours == [(80, 80, 80)] * 16
    harness.reply_to(harness.send("LIGHTS", ("state", "off")))
    assert harness.pixels.colours == [(0, 0, 0)] * 16
    reply = harness.reply_to(harness.send("LIGHTS", ("state", "on")))
    assert reply.fields["level"] == "80"  # the level is remembered while off
    assert harness.ring.output() == 80


def test_bad_arguments_are_refused_and_not_acted_on(harness: Harness) -> None:
    for fields in ((("state", "dim"),), (("state", "on"), ("level", 0)),
                   (("state", "on"), ("level", 256)), (("state", "on"), ("colour", "red")), ()):
        reply = harness.reply_to(harness.send("LIGHTS", *fields))
        assert (reply.kind, reply.fields["code"]) == ("ERR", "bad_args")
    assert harness.ring.output() == 0
    assert harness.tower.rejects.counts["bad_args"] == 5
    assert harness.tower.rejects.accepted == 0


def test_an_unknown_command_is_counted_and_answered_err(harness: Harness) -> None:
    reply = harness.reply_to(harness.send("SELF_DESTRUCT"))
    assert (reply.kind, reply.fields["code"]) == ("ERR", "unknown")
    assert harness.tower.rejects.counts["unknown"] == 1


def test_a_repeated_command_is_answered_from_the_cache_not_redone(harness: Harness) -> None:
    seq = harness.send("LIGHTS", ("state", "on"), ("level", 10))
    first = harness.reply_to(seq)
    harness.ring.off()  # if the repeat acted, the ring would come back on
    harness.send("LIGHTS", ("state", "on"), ("level", 10), seq=seq)
    repeats = [line for line in harness.sent if line.fields.get("re") == str(seq)]
    assert repeats == [first, first]
    assert harness.ring.output() == 0


def test_status_reports_counters_and_reset_zeroes_them(harness: Harness) -> None:
    harness.tower.feed(b"garbage\n$1 PING*0000\n")
    harness.cube()
    harness.run(20)
    status = harness.reply_to(harness.send("STATUS", seq=5)).fields
    assert status["total"] == "1" and status["drops"] == "1"
    assert status["rej_noise"] == "1" and status["rej_crc"] == "1"
    harness.reply_to(harness.send("RESET", seq=6))
    status = harness.reply_to(harness.send("STATUS", seq=7)).fields
    assert status["total"] == "0" and status["rej_noise"] == "0" and status["drops"] == "1"


def test_ping_answers_with_the_uptime(harness: Harness) -> None:
    harness.run(30)
    reply = harness.reply_to(harness.send("PING"))
    assert reply.kind == "OK" and reply.fields["up"] == "30"


def test_events_are_resent_with_their_sequence_until_acked(harness: Harness) -> None:
    harness.hello()
    harness.step()
    harness.take()
    harness.cube()
    harness.run(20)
    start = [line for line in harness.take() if line.kind == "DROP_START"]
    assert len(start) == 1 and start[0].fields["drop"] == "1"
    harness.run(1000, every=5)
    harness.send("PING")  # keep the host present
    resent = [line for line in harness.take() if line.kind == "DROP_START"]
    assert resent and all(line == start[0] for line in resent)
    harness.send("ACK", ("seq", start[0].seq))
    assert [entry[0] for entry in harness.tower.outbox if entry[0] == start[0].seq] == []
    harness.run(1200, every=5)
    assert "DROP_START" not in harness.kinds()
    ends = [line for line in harness.sent if line.kind == "DROP_END"]
    assert ends[0].fields["count"] == "1" and ends[0].fields["times"] == "0"


def test_nothing_is_resent_while_the_host_is_away(fw: types.SimpleNamespace) -> None:
    harness = Harness(fw, host_timeout_ms=1000)
    harness.hello()
    harness.cube()
    harness.run(3000, every=10)
    starts = [line for line in harness.take() if line.kind == "DROP_START"]
    assert 1 <= len(starts) <= 2  # sent, perhaps resent once before the host counted as gone
    harness.hello()  # the host is back: every pending event comes at once
    pending = [line for line in harness.take() if line.kind in ("DROP_START", "DROP_END")]
    assert [line.kind for line in pending] == ["DROP_START", "DROP_END"]
    assert pending[0] == starts[0]


def test_count_now_button_is_an_event(harness: Harness) -> None:
    harness.button_level = 0
    harness.run(60)
    harness.button_level = 1
    harness.run(60)
    presses = [line for line in harness.sent if line.kind == "COUNT_NOW"]
    assert len(presses) == 1 and harness.tower.outbox[0][0] == presses[0].seq


def test_a_full_outbox_drops_the_oldest_event_and_says_so(fw: types.SimpleNamespace) -> None:
    harness = Harness(fw, outbox_size=2)
    for _ in range(3):
        harness.button_level = 0
        harness.run(40)
        harness.button_level = 1
        harness.run(40)
    assert len(harness.tower.outbox) == 2 and harness.tower.lost_events == 1


def test_status_led_shows_host_drop_and_error(harness: Harness) -> None:
    harness.run(10)
    assert harness.tower.led.mode == "no_host"
    harness.hello()
    harness.run(10)
    assert harness.tower.led.mode == "host"
    harness.cube()
    harness.run(5)
    assert harness.tower.led.mode == "drop"
    harness.run(600)
    harness.tower.feed(b"$1 PING*0000\n")
    harness.run(5)
    assert harness.tower.led.mode == "error"
    harness.run(3100, every=10)
    assert harness.tower.led.mode == "host" or harness.tower.led.mode == "no_host"


MUTATIONS = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 10_000), st.integers(0, 7)),
    st.tuples(st.just("replace"), st.integers(0, 10_000), st.integers(0, 255)),
    st.tuples(st.just("delete"), st.integers(0, 10_000), st.just(0)),
    st.tuples(st.just("insert"), st.integers(0, 10_000), st.integers(0, 255)),
    st.tuples(st.just("truncate"), st.integers(0, 10_000), st.just(0)),
)


def mutate(line: bytes, mutation: tuple[str, int, int]) -> bytes:
    kind, where, value = mutation
    where %= len(line) - 1  # leave the newline: a cut line is tested by "truncate"
    if kind == "flip":
        return line[:where] + bytes([line[where] ^ (1 << value)]) + line[where + 1:]
    if kind == "replace":
        return line[:where] + bytes([value]) + line[where + 1:]
    if kind == "delete":
        return line[:where] + line[where + 1:]
    if kind == "insert":
        return line[:where] + bytes([value]) + line[where:]
    return line[:where] + b"\n"


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(level=st.integers(1, 255), mutation=MUTATIONS,
       kind=st.sampled_from(["LIGHTS", "RESET", "ACK"]))
def test_a_corrupted_line_is_rejected_counted_and_never_acted_on(
        fw: types.SimpleNamespace, level: int, mutation: tuple[str, int, int], kind: str) -> None:
    harness = Harness(fw)
    harness.cube()
    harness.run(5)
    fields = {"LIGHTS": [("state", "on"), ("level", level)], "RESET": [],
              "ACK": [("seq", harness.tower.outbox[0][0])]}[kind]
    good = host.encode(7, kind, fields)
    bad = mutate(good, mutation)
    assume(bad.strip() and bad != good and bad != good[:-1] + b"\r\n")
    assume(not host.LineDecoder(96).feed(bad))  # still a valid line by chance: not corrupted
    harness.take()
    harness.tower.feed(bad)
    assert harness.tower.rejects.total() >= 1
    assert harness.tower.rejects.accepted == 0
    assert harness.ring.output() == 0 and harness.beam.total == 1
    assert len(harness.tower.outbox) == 1
    assert not any(line.kind == "OK" for line in harness.sent)


def test_beam_timing_is_set_by_the_host_and_refused_out_of_range(harness: Harness) -> None:
    reply = harness.reply_to(harness.send("BEAM", ("quiet", 400), ("debounce", 2000)))
    assert (reply.kind, reply.fields["quiet"], reply.fields["debounce"]) == ("OK", "400", "2000")
    assert harness.tower.beam.quiet_ms == 400 and harness.tower.beam.debounce_us == 2000
    reply = harness.reply_to(harness.send("BEAM"))  # no fields: read back
    assert reply.fields["quiet"] == "400"
    for fields in ((("quiet", 50),), (("debounce", 30000),), (("quiet", "soon"),),
                   (("gap", 5),)):
        reply = harness.reply_to(harness.send("BEAM", *fields))
        assert reply.kind == "ERR"
    assert harness.tower.beam.quiet_ms == 400 and harness.tower.beam.debounce_us == 2000
