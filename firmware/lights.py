"""The WS2812 light ring the host switches on for a photo, and the status LED's blink patterns.

Both take their output as an object or a function, so the same code drives ``neopixel`` and a
``machine.Pin`` on the Pico and fakes on CPython.
"""

# Status LED patterns: (period ms, lit ms at the start of each period).
PATTERNS = {
    "no_host": (2000, 100),  # a short blip every 2 s: powered, waiting for the companion
    "host": (2000, 1900),  # lit, with a short gap: the companion is talking to us
    "drop": (100, 50),  # fast flicker while cubes are coming out
    "error": (400, 100),  # a few seconds after a rejected line
}


class LightRing:
    def __init__(self, pixels, count, level=255):
        self._pixels = pixels
        self.count = count
        self.level = level
        self.is_on = False
        self._show()

    def on(self, level=None):
        if level is not None:
            self.level = level
        self.is_on = True
        self._show()

    def off(self):
        self.is_on = False
        self._show()

    def output(self):
        """The level every pixel shows now (0 when off)."""
        return self.level if self.is_on else 0

    def _show(self):
        value = self.output()
        colour = (value, value, value)
        for i in range(self.count):
            self._pixels[i] = colour
        self._pixels.write()


class StatusLed:
    def __init__(self, write):
        self._write = write
        self.mode = None
        self.lit = None

    def update(self, mode, now_ms):
        self.mode = mode
        period, lit_ms = PATTERNS[mode]
        lit = 1 if now_ms % period < lit_ms else 0
        if lit != self.lit:
            self.lit = lit
            self._write(lit)
