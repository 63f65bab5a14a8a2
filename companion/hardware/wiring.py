"""The wiring diagram (``hardware/wiring.svg``) and the pin table in ``hardware/wiring.md``,
both generated from ``hardware/pins.toml`` so they cannot drift from the code.

Regenerate after changing a pin: ``python -m companion.hardware.wiring``; a test fails while the
checked-in files are stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from companion.hardware.pins import REPO, PinMap, load_pins

WIRING_SVG = REPO / "hardware" / "wiring.svg"
WIRING_MD = REPO / "hardware" / "wiring.md"
TABLE_BEGIN = "<!-- pin table: generated from pins.toml by companion.hardware.wiring -->"
TABLE_END = "<!-- end of pin table -->"

# Raspberry Pi 40-pin header: physical pin -> what it carries (BCM numbers for GPIO).
PI_HEADER: dict[int, str] = {
    1: "3V3", 2: "5V", 3: "GPIO2", 4: "5V", 5: "GPIO3", 6: "GND", 7: "GPIO4", 8: "GPIO14",
    9: "GND", 10: "GPIO15", 11: "GPIO17", 12: "GPIO18", 13: "GPIO27", 14: "GND",
    15: "GPIO22", 16: "GPIO23", 17: "3V3", 18: "GPIO24", 19: "GPIO10", 20: "GND",
    21: "GPIO9", 22: "GPIO25", 23: "GPIO11", 24: "GPIO8", 25: "GND", 26: "GPIO7",
    27: "GPIO0", 28: "GPIO1", 29: "GPIO5", 30: "GND", 31: "GPIO6", 32: "GPIO12",
    33: "GPIO13", 34: "GND", 35: "GPIO19", 36: "GPIO16", 37: "GPIO26", 38: "GPIO20",
    39: "GND", 40: "GPIO21",
}
# Raspberry Pi Pico: physical pin -> signal (GP25 is the on-board LED, on no pin).
PICO_HEADER: dict[int, str] = {
    1: "GP0", 2: "GP1", 3: "GND", 4: "GP2", 5: "GP3", 6: "GP4", 7: "GP5", 8: "GND",
    9: "GP6", 10: "GP7", 11: "GP8", 12: "GP9", 13: "GND", 14: "GP10", 15: "GP11",
    16: "GP12", 17: "GP13", 18: "GND", 19: "GP14", 20: "GP15", 21: "GP16", 22: "GP17",
    23: "GND", 24: "GP18", 25: "GP19", 26: "GP20", 27: "GP21", 28: "GND", 29: "GP22",
    30: "RUN", 31: "GP26", 32: "GP27", 33: "GND", 34: "GP28", 35: "ADC_VREF",
    36: "3V3(OUT)", 37: "3V3_EN", 38: "GND", 39: "VSYS", 40: "VBUS",
}


def pi_physical(gpio: int) -> int:
    return next(p for p, name in PI_HEADER.items() if name == f"GPIO{gpio}")


def pico_physical(gp: int) -> int | None:
    return next((p for p, name in PICO_HEADER.items() if name == f"GP{gp}"), None)


@dataclass(frozen=True)
class Connection:
    board: str  # "Pi" or "Pico"
    signal: str  # GPIO17, GP15, 5V ...
    physical: int | None  # header pin, None for the Pico's on-board LED
    part: str
    terminal: str
    note: str


def connections(pins: PinMap) -> list[Connection]:
    """Every wire of the build, in the order the diagram and the table list them."""
    pi, pico = pins.pi, pins.pico
    rows = [
        Connection("Pi", "5V", 2, "spinner encoder", "+V (brown)", "encoder supply, 5-24 V"),
        Connection("Pi", "GND", 6, "spinner encoder", "0V (blue)", "and the cable shield"),
        Connection("Pi", f"GPIO{pi.spinner_a}", pi_physical(pi.spinner_a), "spinner encoder",
                   "A (black)", "open collector: 2.2 kΩ pull-up to 3V3"),
        Connection("Pi", f"GPIO{pi.spinner_b}", pi_physical(pi.spinner_b), "spinner encoder",
                   "B (white)", "open collector: 2.2 kΩ pull-up to 3V3"),
        Connection("Pi", "3V3", 1, "pull-up resistors", "common end", "never pull up to 5 V"),
    ]
    if pi.spinner_index is not None:
        rows.insert(4, Connection(
            "Pi", f"GPIO{pi.spinner_index}", pi_physical(pi.spinner_index), "spinner encoder",
            "Z (orange)", "index, once a turn; 2.2 kΩ pull-up to 3V3"))
    rows += [
        Connection("Pico", "USB", None, "Raspberry Pi", "USB-A port",
                   "power and the serial link (USB CDC)"),
        Connection("Pico", f"GP{pico.beam}", pico_physical(pico.beam), "exit break-beam",
                   "receiver OUT (white)", "open collector, pulled up in firmware"),
        Connection("Pico", "VBUS", 40, "exit break-beam", "emitter and receiver +",
                   "5 V from USB"),
        Connection("Pico", f"GP{pico.count_now}", pico_physical(pico.count_now),
                   "count-now button", "one leg", "other leg to GND; pulled up in firmware"),
        Connection("Pico", f"GP{pico.light_ring}", pico_physical(pico.light_ring),
                   f"light ring ({pico.light_ring_pixels} × WS2812)", "DIN",
                   "through a 330 Ω resistor"),
        Connection("Pico", "VBUS", 40, "light ring", "5V", "1000 µF across 5V/GND at the ring"),
        Connection("Pico", "GND", 38, "beam, button, light ring", "GND", "common ground"),
        Connection("Pico", f"GP{pico.status_led}", pico_physical(pico.status_led),
                   "status LED", "on-board", "no wire"),
    ]
    return rows


def pin_table(pins: PinMap) -> str:
    """The Markdown pin table that sits between the markers in ``wiring.md``."""
    lines = [
        "| board | signal | header pin | goes to | terminal | note |",
        "|---|---|---|---|---|---|",
    ]
    for c in connections(pins):
        physical = "—" if c.physical is None else str(c.physical)
        lines.append(f"| {c.board} | {c.signal} | {physical} | {c.part} | {c.terminal} | "
                     f"{c.note} |")
    return "\n".join(lines)


def wiring_markdown(current: str, pins: PinMap) -> str:
    """``current`` (the text of wiring.md) with its pin table replaced by a fresh one."""
    start, end = current.find(TABLE_BEGIN), current.find(TABLE_END)
    if start < 0 or end < start:
        raise ValueError(f"{WIRING_MD.name}: the pin table markers are missing")
    return (current[:start] + TABLE_BEGIN + "\n" + pin_table(pins) + "\n" + current[end:])


# --- the SVG -----------------------------------------------------------------------------------
_W, _H = 1010, 720
_PITCH = 22
_COLOURS = {"5 V": "#c0392b", "3.3 V": "#e67e22", "ground": "#222222", "signal": "#1f6fb2",
            "USB": "#7d3c98"}


def _kind(signal: str) -> str:
    if signal in ("5V", "VBUS"):
        return "5 V"
    if signal.startswith("3V3"):
        return "3.3 V"
    if signal == "GND":
        return "ground"
    if signal == "USB":
        return "USB"
    return "signal"


class _Svg:
    """Three layers so wires run under the pins and their labels, never over them."""

    def __init__(self) -> None:
        self.back: list[str] = []
        self.wires: list[str] = []
        self.front: list[str] = []

    def rect(self, x: float, y: float, w: float, h: float, fill: str, stroke: str = "#333",
             rx: float = 6) -> None:
        self.back.append(f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" '
                         f'rx="{rx:g}" fill="{fill}" stroke="{stroke}"/>')

    def text(self, x: float, y: float, text: str, size: int = 12, anchor: str = "start",
             weight: str = "normal") -> None:
        self.front.append(
            f'<text x="{x:g}" y="{y:g}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" paint-order="stroke" stroke="#ffffff" stroke-width="3" '
            f'stroke-linejoin="round">{escape(text)}</text>')

    def line(self, points: list[tuple[float, float]], colour: str) -> None:
        path = " ".join(f"{x:g},{y:g}" for x, y in points)
        self.wires.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                          f'stroke-width="2"/>')

    def dot(self, x: float, y: float, fill: str) -> None:
        self.front.append(f'<circle cx="{x:g}" cy="{y:g}" r="5" fill="{fill}" '
                          f'stroke="#333"/>')

    def document(self, width: int, height: int, comment: str) -> str:
        head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                f'viewBox="0 0 {width} {height}" '
                f'font-family="DejaVu Sans, Arial, sans-serif">', f"<!-- {comment} -->"]
        return "\n".join([*head, *self.back, *self.wires, *self.front, "</svg>"]) + "\n"


def _header(svg: _Svg, x: float, y: float, names: dict[int, str], used: set[int],
            title: str, *, pico: bool) -> dict[int, tuple[float, float, bool]]:
    """Draw a 2 × 20 header as it sits on the board; return where each pin's dot is.

    The Pi's header counts across (1 2 / 3 4 ...); the Pico counts down its left edge (1..20)
    and back up its right edge (21..40).
    """
    svg.rect(x - 110, y - 40, 340, 20 * _PITCH + 60, "#e8f5e9")
    svg.text(x + 60, y - 18, title, 14, "middle", "bold")
    where: dict[int, tuple[float, float, bool]] = {}
    for physical, name in names.items():
        if pico:
            left = physical <= 20
            row = physical - 1 if left else 40 - physical
        else:
            left = physical % 2 == 1
            row = (physical - 1) // 2
        px, py = (x + 40 if left else x + 80), y + row * _PITCH
        where[physical] = (px, py, left)
        fill = _COLOURS[_kind(name)] if physical in used else "#ffffff"
        svg.dot(px, py, fill)
        label = f"{name} ({physical})"
        if left:
            svg.text(px - 10, py + 4, label, 10, "end")
        else:
            svg.text(px + 10, py + 4, label, 10)
    return where


def _leave(pin: tuple[float, float, bool], lane: float) -> list[tuple[float, float]]:
    """From a pin out to its lane. A left-column pin slips between the rows first, so its wire
    never runs over the right-column pin beside it."""
    px, py, left = pin
    if not left:
        return [(px, py), (lane, py)]
    return [(px, py), (px + 20, py + _PITCH / 2), (lane, py + _PITCH / 2)]


def wiring_svg(pins: PinMap) -> str:
    """The diagram: the Pi's header and the spinner encoder, the Pico and the tower parts."""
    rows = connections(pins)
    svg = _Svg()
    svg.rect(0, 0, _W, _H, "#ffffff", "#ffffff", 0)
    svg.text(_W / 2, 26, "Tabletop Companion wiring", 18, "middle", "bold")

    pi_rows = [r for r in rows if r.board == "Pi"]
    pico_rows = [r for r in rows if r.board == "Pico"]
    pi_used = {r.physical for r in pi_rows if r.physical is not None}
    pico_used = {r.physical for r in pico_rows if r.physical is not None}
    top = 90
    pi_at = _header(svg, 120, top, PI_HEADER, pi_used, "Raspberry Pi 40-pin header",
                    pico=False)
    pico_at = _header(svg, 580, top, PICO_HEADER, pico_used, "Raspberry Pi Pico (tower)",
                      pico=True)

    # Spinner encoder between the two boards, one terminal per Pi wire.
    box_x, box_y = 370, top + 20 * _PITCH - 20 - _PITCH * len(pi_rows)
    svg.rect(box_x, box_y - 30, 180, 30 + _PITCH * len(pi_rows) + 10, "#fdf2e9")
    svg.text(box_x + 90, box_y - 12, "spinner encoder, pull-ups", 11, "middle", "bold")
    for i, r in enumerate(pi_rows):
        if r.physical is None:
            continue
        ty = box_y + 8 + i * _PITCH
        colour = _COLOURS[_kind(r.signal)]
        svg.dot(box_x, ty, colour)
        terminal = r.terminal if r.part == "spinner encoder" else "3V3 to 2.2 kΩ pull-ups"
        svg.text(box_x + 10, ty + 4, terminal, 10)
        lane = 300 + i * 10
        svg.line([*_leave(pi_at[r.physical], lane), (lane, ty), (box_x, ty)], colour)

    # Tower parts to the right of the Pico, one box per wire.
    part_x, part_w = 845, 150
    for i, r in enumerate(pico_rows):
        ty = top - 10 + i * 50
        colour = _COLOURS[_kind(r.signal)]
        svg.rect(part_x, ty - 17, part_w, 36, "#eaf2f8")
        svg.text(part_x + part_w / 2, ty - 3, r.part, 9, "middle", "bold")
        svg.text(part_x + part_w / 2, ty + 11, r.terminal, 9, "middle")
        if r.physical is None:
            continue
        lane = 760 + i * 9
        svg.line([*_leave(pico_at[r.physical], lane), (lane, ty), (part_x, ty)], colour)

    # The USB cable between the boards, and a legend.
    usb_y = top + 20 * _PITCH + 40
    svg.line([(120 + 60, usb_y - 20), (120 + 60, usb_y), (580 + 60, usb_y),
              (580 + 60, usb_y - 20)], _COLOURS["USB"])
    svg.text(410, usb_y + 16, "USB cable: Pi USB-A to Pico micro-USB (power and serial)", 11,
             "middle")
    legend_y = _H - 40
    for i, (kind, colour) in enumerate(_COLOURS.items()):
        svg.line([(60 + i * 130, legend_y), (90 + i * 130, legend_y)], colour)
        svg.text(96 + i * 130, legend_y + 4, kind, 11)
    svg.text(_W - 20, _H - 14, "pins from hardware/pins.toml (BCM numbers on the Pi, "
             "GP numbers on the Pico)", 10, "end")
    return svg.document(_W, _H, "Generated from hardware/pins.toml by "
                        "companion.hardware.wiring: regenerate it "
                        "(python -m companion.hardware.wiring), never edit it.")


def main() -> None:
    pins = load_pins()
    WIRING_SVG.write_text(wiring_svg(pins), encoding="utf-8")
    WIRING_MD.write_text(wiring_markdown(WIRING_MD.read_text(encoding="utf-8"), pins),
                         encoding="utf-8")
    print(f"wrote {WIRING_SVG} and the pin table in {WIRING_MD}")


if __name__ == "__main__":
    main()

