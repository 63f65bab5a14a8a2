"""The tray's "count now" button: polled, debounced, one press reported once."""


class Button:
    def __init__(self, debounce_ms=30, pressed_level=0):
        self.debounce_ms = debounce_ms
        self.pressed_level = pressed_level
        self._stable = 1 - pressed_level
        self._raw = self._stable
        self._since = 0
        self.presses = 0

    def poll(self, level, now_ms):
        """True exactly once per press, when the pressed level has held for ``debounce_ms``."""
        if level != self._raw:
            self._raw = level
            self._since = now_ms
            return False
        if self._raw != self._stable and now_ms - self._since >= self.debounce_ms:
            self._stable = self._raw
            if self._stable == self.pressed_level:
                self.presses += 1
                return True
        return False
