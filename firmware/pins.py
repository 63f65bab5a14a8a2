"""Pico pin numbers. Generated from hardware/pins.toml by companion.hardware.pins:
edit that file and regenerate (python -m companion.hardware.pins), never this one."""

BEAM = 15
COUNT_NOW = 14
LIGHT_RING = 2
LIGHT_RING_PIXELS = 16
STATUS_LED = 25
