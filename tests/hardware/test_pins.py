"""hardware/pins.toml is the one source of truth; firmware/pins.py is generated from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.hardware.pins import FIRMWARE_PINS, PinError, firmware_module, load_pins


def test_shipped_pin_map_loads() -> None:
    pins = load_pins()
    assert pins.pi.spinner_a != pins.pi.spinner_b
    assert pins.pico.light_ring_pixels >= 1


def test_firmware_pin_module_agrees_with_pins_toml() -> None:
    """Regenerate with `python -m companion.hardware.pins` after editing hardware/pins.toml."""
    assert FIRMWARE_PINS.read_text(encoding="utf-8") == firmware_module(load_pins().pico)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[pi.spinner]\na = 17\n", r"\[pi.spinner\] b must be a valid pin"),
        ("[pi.spinner]\na = 17\nb = 99\n", "b must be a valid pin number, not 99"),
        ("[pi.spinner]\na = 17\nb = 17\n[pico.beam]\nreceiver = 1\n[pico.button]\ncount_now = 2\n"
         "[pico.light_ring]\ndata = 3\npixels = 8\n[pico.status_led]\nled = 25\n",
         "share a pin"),
        ("[pi.spinner\n", "not valid TOML"),
    ],
)
def test_broken_pin_maps_name_the_problem(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "pins.toml"
    path.write_text(text)
    with pytest.raises(PinError, match=message):
        load_pins(path)
