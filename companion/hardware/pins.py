"""The pin map: ``hardware/pins.toml`` read and checked, and the firmware's pin module made from it.

One source of truth: the companion reads the ``[pi]`` pins from here, and ``firmware/pins.py``
is generated from ``[pico]`` by :func:`firmware_module` (a test checks the file is current).
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from companion.errors import CompanionError

REPO = Path(__file__).resolve().parents[2]
DEFAULT_PINS = REPO / "hardware" / "pins.toml"
FIRMWARE_PINS = REPO / "firmware" / "pins.py"

PI_GPIO = list(range(2, 28))  # BCM GPIO 2..27 on the 40-pin header
PICO_GPIO = list(range(0, 29))  # GP0..GP28; 25 is the on-board LED


class PinError(CompanionError):
    pass


@dataclass(frozen=True)
class PiPins:
    spinner_a: int
    spinner_b: int
    spinner_index: int | None


@dataclass(frozen=True)
class PicoPins:
    beam: int
    count_now: int
    light_ring: int
    light_ring_pixels: int
    status_led: int


@dataclass(frozen=True)
class PinMap:
    pi: PiPins
    pico: PicoPins


def load_pins(path: Path | None = None) -> PinMap:
    path = path or DEFAULT_PINS
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PinError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise PinError(f"{path}: not valid TOML ({exc})") from exc

    def table(section: str) -> dict[str, object]:
        node: object = data
        for part in section.split("."):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        return node if isinstance(node, dict) else {}

    def pin(section: str, key: str, allowed: Sequence[int]) -> int:
        value = table(section).get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value not in allowed:
            raise PinError(f"{path}: [{section}] {key} must be a valid pin number, not {value!r}")
        return value

    index = table("pi.spinner").get("index")
    pi = PiPins(
        spinner_a=pin("pi.spinner", "a", PI_GPIO),
        spinner_b=pin("pi.spinner", "b", PI_GPIO),
        spinner_index=None if index is None else pin("pi.spinner", "index", PI_GPIO),
    )
    pixels = table("pico.light_ring").get("pixels")
    if isinstance(pixels, bool) or not isinstance(pixels, int) or not 1 <= pixels <= 256:
        raise PinError(f"{path}: [pico.light_ring] pixels must be 1..256, not {pixels!r}")
    pico = PicoPins(
        beam=pin("pico.beam", "receiver", PICO_GPIO),
        count_now=pin("pico.button", "count_now", PICO_GPIO),
        light_ring=pin("pico.light_ring", "data", PICO_GPIO),
        light_ring_pixels=pixels,
        status_led=pin("pico.status_led", "led", PICO_GPIO),
    )
    for name, pins in (("pi", [pi.spinner_a, pi.spinner_b, pi.spinner_index]),
                       ("pico", [pico.beam, pico.count_now, pico.light_ring, pico.status_led])):
        used = [p for p in pins if p is not None]
        if len(used) != len(set(used)):
            raise PinError(f"{path}: two [{name}] functions share a pin")
    return PinMap(pi, pico)


def firmware_module(pins: PicoPins) -> str:
    """The text of ``firmware/pins.py`` for these Pico pins."""
    return (
        '"""Pico pin numbers. Generated from hardware/pins.toml by companion.hardware.pins:\n'
        'edit that file and regenerate (python -m companion.hardware.pins), never this one."""\n'
        "\n"
        f"BEAM = {pins.beam}\n"
        f"COUNT_NOW = {pins.count_now}\n"
        f"LIGHT_RING = {pins.light_ring}\n"
        f"LIGHT_RING_PIXELS = {pins.light_ring_pixels}\n"
        f"STATUS_LED = {pins.status_led}\n"
    )


if __name__ == "__main__":
    FIRMWARE_PINS.write_text(firmware_module(load_pins().pico), encoding="utf-8")
    print(f"wrote {FIRMWARE_PINS}")
