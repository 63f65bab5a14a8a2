"""Tower firmware entry point on the Pico: wires the logic modules to pins, the ring and USB.

Everything that decides anything lives in the logic modules (tower, beam, button, lights,
protocol); this file only connects them to ``machine``, ``neopixel`` and the USB serial port.
Hold the count-now button while plugging in to stay at the REPL (for mpremote).
"""

import os
import select
import sys

import machine
import micropython
import neopixel
import pins
from beam import Beam
from button import Button
from lights import LightRing, StatusLed
from ticks import ticks_ms, ticks_us
from tower import Tower

DEBOUNCE_US = 1000  # a beam level must hold this long to count
QUIET_MS = 1500  # a drop is over after this long without a cube
RING_LEVEL = 255  # light ring brightness until the host sets one
READ_CHUNK = 64  # most bytes read from USB per loop pass, so the beam is never starved
WATCHDOG_MS = 8000


def boot_id():
    """A random tag for this boot, so the host never mistakes new events for old repeats."""
    return "".join([f"{b:02X}" for b in os.urandom(4)])


class Firmware:
    def __init__(self, stdin=None, stdout=None, poller=None):
        pin = machine.Pin
        self.beam_pin = pin(pins.BEAM, pin.IN, pin.PULL_UP)
        self.button_pin = pin(pins.COUNT_NOW, pin.IN, pin.PULL_UP)
        led_pin = pin(pins.STATUS_LED, pin.OUT)
        ring = neopixel.NeoPixel(pin(pins.LIGHT_RING, pin.OUT), pins.LIGHT_RING_PIXELS)
        self.stdin = stdin if stdin is not None else sys.stdin.buffer
        self.stdout = stdout if stdout is not None else sys.stdout.buffer
        if poller is None:
            poller = select.poll()
            poller.register(sys.stdin, select.POLLIN)
        self.poller = poller
        self.beam = Beam(DEBOUNCE_US, QUIET_MS, self.beam_pin.value())
        self.tower = Tower(self.stdout.write, self.beam,
                           LightRing(ring, pins.LIGHT_RING_PIXELS, RING_LEVEL),
                           StatusLed(led_pin.value), Button(), boot_id(), ticks_ms())
        self.beam_pin.irq(handler=self._on_beam, trigger=pin.IRQ_FALLING | pin.IRQ_RISING,
                          hard=True)

    def _on_beam(self, p):
        self.beam.irq(p.value(), ticks_us())

    def step(self):
        data = bytearray()
        while len(data) < READ_CHUNK and self.poller.poll(0):
            chunk = self.stdin.read(1)
            if not chunk:
                break
            data.extend(chunk)
        if data:
            self.tower.feed(data)
        self.tower.step(ticks_ms(), ticks_us(), self.button_pin.value())


def run():
    import time

    micropython.alloc_emergency_exception_buf(100)
    button = machine.Pin(pins.COUNT_NOW, machine.Pin.IN, machine.Pin.PULL_UP)
    if button.value() == 0:
        print("count-now held at boot: staying at the REPL")
        return
    micropython.kbd_intr(-1)  # a stray 0x03 from the host must not stop the firmware
    firmware = Firmware()
    watchdog = machine.WDT(timeout=WATCHDOG_MS)
    while True:
        firmware.step()
        watchdog.feed()
        time.sleep_ms(1)


if __name__ == "__main__":
    run()
