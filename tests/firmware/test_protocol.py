"""firmware/protocol.py: CRC, framing and parsing, against the host codec and under fuzzing."""

from __future__ import annotations

import types

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.hardware import tower_protocol as host

KINDS = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ_", min_size=1, max_size=10)
KEYS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=8)
VALUES = st.one_of(
    st.integers(min_value=0, max_value=10**9),
    st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E,
                                   exclude_characters="$*="), min_size=1, max_size=12),
)
FIELDS = st.lists(st.tuples(KEYS, VALUES), max_size=6, unique_by=lambda kv: kv[0])
SEQS = st.integers(min_value=1, max_value=999_999_999)


def test_crc_is_ccitt_false(fw: types.SimpleNamespace) -> None:
    assert fw.protocol.crc16(b"123456789") == 0x29B1
    assert host.crc16(b"123456789") == 0x29B1


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seq=SEQS, kind=KINDS, fields=FIELDS)
def test_firmware_and_host_encode_and_parse_alike(fw: types.SimpleNamespace, seq: int, kind: str,
                                                  fields: list[tuple[str, int | str]]) -> None:
    line = fw.protocol.encode(seq, kind, fields)
    assert line == host.encode(seq, kind, fields)
    frame = line[1:-1]
    parsed = fw.protocol.parse(frame)
    assert parsed == (seq, kind, {k: str(v) for k, v in fields})
    assert host.parse(frame) == host.Line(seq, kind, parsed[2])


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"$12 PING*0000\n", "crc"),
        (b"$12 PING\n", "truncated"),
        (b"$12 PING*12\n", "truncated"),
        (b"$12 PING*12345\n", "malformed"),
        (b"$12 PING*zzzz\n", "malformed"),
        (b"hello\n", "noise"),
        (b"$12 PI$", "truncated"),
        (b"$" + b"1" * 200 + b"\n", "too_long"),
    ],
)
def test_bad_frames_are_rejected_by_reason(fw: types.SimpleNamespace, data: bytes,
                                           reason: str) -> None:
    rejects = fw.protocol.Rejects()
    decoder = fw.protocol.Decoder(rejects, 96)
    for frame in decoder.feed(data):
        try:
            fw.protocol.parse(frame)
        except fw.protocol.ProtocolError as exc:
            rejects.count(exc.reason)
        else:
            pytest.fail(f"{frame!r} was accepted")
    assert rejects.counts[reason] == 1
    assert rejects.total() == 1


@pytest.mark.parametrize(
    "body",
    [b"012 PING", b"0 PING", b"12 ping", b"12", b"12 PING x", b"12 PING a=1 a=2", b"12 PING =1",
     b"12 PING a=", b"12 PING  a=1", b"12 PING A=1", b"12 PING a=\x01"],
)
def test_malformed_bodies_with_a_good_checksum_are_rejected(fw: types.SimpleNamespace,
                                                            body: bytes) -> None:
    frame = body + b"*" + f"{fw.protocol.crc16(body):04X}".encode()
    with pytest.raises(fw.protocol.ProtocolError) as caught:
        fw.protocol.parse(frame)
    assert caught.value.reason == "malformed"
    with pytest.raises(host.LineError) as host_caught:
        host.parse(frame)
    assert host_caught.value.reason == "malformed"


def test_a_carriage_return_before_the_newline_is_ignored(fw: types.SimpleNamespace) -> None:
    rejects = fw.protocol.Rejects()
    line = fw.protocol.encode(3, "PING")
    frames = fw.protocol.Decoder(rejects).feed(line[:-1] + b"\r\n")
    assert [fw.protocol.parse(f) for f in frames] == [(3, "PING", {})]


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(st.tuples(SEQS, KINDS, FIELDS), min_size=1, max_size=6),
    garbage=st.lists(st.binary(max_size=300), min_size=6, max_size=6),
    cuts=st.lists(st.integers(min_value=1, max_value=64), max_size=20),
)
def test_garbage_between_lines_never_costs_or_invents_a_line(
        fw: types.SimpleNamespace, lines: list, garbage: list[bytes], cuts: list[int]) -> None:
    """Whatever noise comes between lines, each whole line comes through exactly once, on both
    sides' decoders, however the bytes are chunked; nothing else is accepted."""
    encoded = [fw.protocol.encode(seq, kind, fields) for seq, kind, fields in lines]
    encoded = [e for e in encoded if len(e) - 2 <= 512]
    stream = b"".join(g + e for g, e in zip(garbage, encoded, strict=False))
    chunks, at = [], 0
    for cut in cuts:
        chunks.append(stream[at:at + cut])
        at += cut
    chunks.append(stream[at:])

    rejects = fw.protocol.Rejects()
    decoder = fw.protocol.Decoder(rejects, 512)
    got = []
    for chunk in chunks:
        for frame in decoder.feed(chunk):
            try:
                got.append(fw.protocol.parse(frame))
            except fw.protocol.ProtocolError as exc:
                rejects.count(exc.reason)
    expected = [fw.protocol.parse(e[1:-1]) for e in encoded]
    assert got == expected

    host_decoder = host.LineDecoder(512)
    host_got = [line for chunk in chunks for line in host_decoder.feed(chunk)]
    assert host_got == [host.Line(s, k, f) for s, k, f in expected]


def test_the_examples_in_protocol_md_are_valid_lines(fw: types.SimpleNamespace) -> None:
    import re

    from companion.hardware.sim.tower_device import FIRMWARE_DIR

    text = (FIRMWARE_DIR / "PROTOCOL.md").read_text(encoding="utf-8")
    examples = re.findall(r"`(\$[^`]*\*[0-9A-F]{4})`", text)
    assert len(examples) >= 2
    for example in examples:
        frame = example[1:].encode()
        assert fw.protocol.parse(frame)[1] in ("LIGHTS", "OK")
        assert host.parse(frame).kind in ("LIGHTS", "OK")
