"""firmware/main.py wired to fake machine/neopixel pins: interrupts, USB bytes, ring, LED."""

from __future__ import annotations

import types

from companion.hardware import tower_protocol as host
from companion.hardware.pins import load_pins


class FakeUSB:
    """sys.stdin.buffer, sys.stdout.buffer and select.poll for the CDC port, in memory."""

    def __init__(self) -> None:
        self.incoming = bytearray()
        self.written = bytearray()

    def read(self, n: int) -> bytes:
        data = bytes(self.incoming[:n])
        del self.incoming[:n]
        return data

    def write(self, data: bytes) -> int:
        self.written += data
        return len(data)

    def poll(self, timeout: int) -> list[tuple[object, int]]:
        del timeout
        return [(self, 1)] if self.incoming else []

    def lines(self) -> list[host.Line]:
        return host.LineDecoder().feed(bytes(self.written))


def test_main_wires_pins_from_the_pin_map(main_module: types.ModuleType) -> None:
    import machine
    import neopixel

    usb = FakeUSB()
    main_module.Firmware(stdin=usb, stdout=usb, poller=usb)
    pico = load_pins().pico
    beam_pin = machine.Pin.made[pico.beam]
    assert beam_pin.pull == machine.Pin.PULL_UP and beam_pin.hard
    assert beam_pin.trigger == machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING
    assert machine.Pin.made[pico.count_now].pull == machine.Pin.PULL_UP
    assert neopixel.NeoPixel.made[-1].n == pico.light_ring_pixels
    assert machine.Pin.made[pico.status_led].mode == machine.Pin.OUT


def test_main_counts_interrupts_and_answers_usb_commands(main_module: types.ModuleType) -> None:
    import machine
    import neopixel

    usb = FakeUSB()
    firmware = main_module.Firmware(stdin=usb, stdout=usb, poller=usb)
    pico = load_pins().pico
    firmware.step()
    usb.incoming += host.encode(1, "HELLO", [("proto", 1)])
    usb.incoming += host.encode(2, "LIGHTS", [("state", "on"), ("level", 42)])
    firmware.step()
    firmware.step()
    beam = machine.Pin.made[pico.beam]
    beam.drive(0)  # the interrupt stamps the edge; debounce needs real time to pass
    stamp = firmware.beam._stamps[0]
    assert firmware.beam._levels[0] == 0 and stamp >= 0
    beam.drive(1)
    lines = usb.lines()
    kinds = [line.kind for line in lines]
    assert kinds[:3] == ["HELLO", "HB", "HELLO"]
    lights = [line for line in lines if line.fields.get("re") == "2"]
    assert lights and lights[0].kind == "OK" and lights[0].fields["level"] == "42"
    assert neopixel.NeoPixel.made[-1].colours == [(42, 42, 42)] * pico.light_ring_pixels
    assert machine.Pin.made[pico.status_led].history  # the status LED was driven


def test_boot_id_is_eight_hex_digits_and_random(main_module: types.ModuleType) -> None:
    tags = {main_module.boot_id() for _ in range(20)}
    assert len(tags) > 1
    assert all(len(t) == 8 and int(t, 16) >= 0 for t in tags)
