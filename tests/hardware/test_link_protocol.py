"""companion/hardware/tower_protocol.py: the host's line codec and its stream decoder."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.hardware.tower_protocol import Line, LineDecoder, LineError, encode, parse


def test_encode_then_parse_round_trips() -> None:
    line = encode(7, "DROP_END", [("drop", 3), ("count", 12), ("times", "0,5,9"), ("more", True)])
    assert line.startswith(b"$7 DROP_END drop=3 count=12 times=0,5,9 more=1*")
    assert line.endswith(b"\n")
    parsed = parse(line[1:-1])
    assert parsed == Line(7, "DROP_END", {"drop": "3", "count": "12", "times": "0,5,9",
                                          "more": "1"})
    assert parsed.int("count", 1, 100) == 12


def test_int_fields_are_checked() -> None:
    line = parse(encode(1, "HB", [("up", "12x"), ("n", 5)])[1:-1])
    with pytest.raises(LineError, match="not a number") as caught:
        line.int("up")
    assert caught.value.reason == "bad_args"
    with pytest.raises(LineError, match="out of range"):
        line.int("n", 6, 9)
    with pytest.raises(LineError, match="missing"):
        line.int("absent")


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"$1 HB*FFFF\n", "crc"),
        (b"$1 HB\n", "truncated"),
        (b"$1 HB up=1$2 HB*0000\n", "truncated"),
        (b"noise only\n", "noise"),
        (b"$1 hb*" + b"%04X" % 0 + b"\n", "crc"),
        (b"$" + b"9" * 600 + b"\n", "too_long"),
    ],
)
def test_the_decoder_counts_each_rejected_line_once(data: bytes, reason: str) -> None:
    decoder = LineDecoder(512)
    assert decoder.feed(data) == [] or reason == "truncated"
    assert decoder.rejected[reason] == 1


def test_an_endless_frame_is_dropped_and_the_next_line_still_read() -> None:
    decoder = LineDecoder(64)
    good = encode(5, "PING")
    assert decoder.feed(b"$" + b"x" * 200) == []
    assert decoder.feed(b"y" * 200) == []
    assert decoder.feed(b"z" * 10 + good) == [parse(good[1:-1])]
    assert decoder.rejected["too_long"] == 1
    assert decoder.accepted == 1


def test_a_line_split_across_reads_is_put_back_together() -> None:
    decoder = LineDecoder()
    line = encode(9, "HB", [("up", 1234)])
    got = [got for i in range(len(line)) for got in decoder.feed(line[i:i + 1])]
    assert got == [parse(line[1:-1])]


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=400), cut=st.integers(min_value=0, max_value=400))
def test_random_bytes_never_make_a_line_and_never_crash(data: bytes, cut: int) -> None:
    decoder = LineDecoder(128)
    lines = decoder.feed(data[:cut]) + decoder.feed(data[cut:] + b"\n")
    for line in lines:  # only possible if the bytes spelled out a whole valid line
        assert encode(line.seq, line.kind, line.fields.items())[1:-1] in data


@pytest.mark.timeout(60)
@settings(max_examples=200, deadline=None)
@given(garbage=st.lists(st.binary(max_size=120), max_size=5),
       cuts=st.lists(st.integers(min_value=1, max_value=50), max_size=30))
def test_overlong_garbage_never_hides_the_next_line(garbage: list[bytes], cuts: list[int]) -> None:
    decoder = LineDecoder(32)
    good = encode(5, "PING", [("n", 1)])
    stream = b"".join(garbage) + good
    chunks, at = [], 0
    for cut in cuts:
        chunks.append(stream[at:at + cut])
        at += cut
    chunks.append(stream[at:])
    lines = [line for chunk in chunks for line in decoder.feed(chunk)]
    assert lines[-1:] == [parse(good[1:-1])]
