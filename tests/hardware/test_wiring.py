"""Wiring diagram and pin table (companion.hardware.wiring) are generated from pins.toml."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET

import pytest

from companion.hardware.pins import load_pins
from companion.hardware.wiring import (
    PI_HEADER,
    PICO_HEADER,
    WIRING_MD,
    WIRING_SVG,
    connections,
    pi_physical,
    wiring_markdown,
    wiring_svg,
)

PINS = load_pins()


def test_wiring_checked_in_svg_is_current() -> None:
    assert WIRING_SVG.read_text(encoding="utf-8") == wiring_svg(PINS), (
        "hardware/wiring.svg is stale: run python -m companion.hardware.wiring"
    )


def test_wiring_checked_in_pin_table_is_current() -> None:
    text = WIRING_MD.read_text(encoding="utf-8")
    assert text == wiring_markdown(text, PINS), (
        "the pin table in hardware/wiring.md is stale: run python -m companion.hardware.wiring"
    )
    assert "wiring.svg" in text


def test_wiring_svg_is_well_formed_and_names_every_assigned_pin() -> None:
    root = ET.fromstring(wiring_svg(PINS))
    assert root.tag.endswith("svg")
    texts = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
    pi, pico = PINS.pi, PINS.pico
    for gpio in (pi.spinner_a, pi.spinner_b, pi.spinner_index):
        assert f"GPIO{gpio} ({pi_physical(gpio)})" in texts
    for gp in (pico.beam, pico.count_now, pico.light_ring):
        assert f"GP{gp} (" in texts
    assert f"{pico.light_ring_pixels} × WS2812" in texts


def test_wiring_follows_a_changed_pin_map() -> None:
    moved = dataclasses.replace(PINS, pi=dataclasses.replace(PINS.pi, spinner_a=5))
    svg = wiring_svg(moved)
    assert svg != wiring_svg(PINS)
    rows = {c.terminal: c for c in connections(moved)}
    assert rows["A (black)"].signal == "GPIO5" and rows["A (black)"].physical == 29


def test_wiring_without_index_pin_drops_the_z_wire() -> None:
    bare = dataclasses.replace(PINS, pi=dataclasses.replace(PINS.pi, spinner_index=None))
    assert all(not c.terminal.startswith("Z") for c in connections(bare))


def test_wiring_headers_have_forty_pins_and_every_pi_gpio_once() -> None:
    assert sorted(PI_HEADER) == list(range(1, 41)) == sorted(PICO_HEADER)
    gpios = [n for n in PI_HEADER.values() if n.startswith("GPIO")]
    assert sorted(int(n[4:]) for n in gpios) == list(range(28))


def test_wiring_markdown_without_markers_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="markers"):
        wiring_markdown("# Wiring\n", PINS)


def test_wiring_bill_of_materials_is_well_formed() -> None:
    import csv

    bom = WIRING_MD.parent / "bom.csv"
    with bom.open(newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        assert next(reader) == ["part", "quantity", "note"]
        rows = list(reader)
    assert len(rows) >= 15
    parts = [row[0] for row in rows]
    assert len(parts) == len(set(parts)), "a part is listed twice"
    for row in rows:
        assert len(row) == 3, row
        assert row[0].strip(), row
        assert float(row[1]) > 0, row
    text = " ".join(parts).lower()
    for needed in ("raspberry pi 4", "pico", "encoder", "break-beam", "ws2812", "camera"):
        assert needed in text, f"the bill of materials has no {needed}"
