"""Spinner figures: 1000 simulated spins up to 10 rev/s through the real decoder on mock pins.

Targets (issue 6): wrong = 0, ambiguous <= 3%. Prints the edge rate the decoder sustains and its
CPU per edge, for the encoder in the bill of materials (200 P/R optical with index: 800
quadrature steps a turn), for the default config (80 steps), with lost edges (what the index
re-zero is for), and for gpiozero's own ``RotaryEncoder`` counter against the x4 decoder.
Never asserts on timing.
"""

from __future__ import annotations

import time

from gpiozero.pins.mock import MockFactory

from companion.config import SpinnerConfig
from companion.hardware.pins import load_pins
from companion.hardware.sim.spinner import SpinnerModel, simulate

SEED = 1
BOM_ENCODER = SpinnerConfig(steps_per_rev=800, guard_steps=1, use_index=True)


def _line(name: str, figures: dict[str, object]) -> None:
    spins = int(figures["spins"])  # type: ignore[arg-type]
    ambiguous = int(figures["ambiguous"])  # type: ignore[arg-type]
    print(f"{name}: {spins} spins, correct {figures['correct']}, ambiguous {ambiguous} "
          f"({100 * ambiguous / spins:.1f}%), wrong {figures['wrong']}, "
          f"no reading {figures['missing']}")
    print(f"  {figures['edges']:,} edges, peak {figures['peak_edge_rate_per_s']:,} edges/s; "
          f"decoder sustains {figures['sustained_edge_rate_per_s']:,} edges/s = "
          f"{figures['cpu_us_per_edge']} µs CPU per edge (mock pin + gpiozero + decoder); "
          f"{figures['simulated_s']} s simulated in {figures['wall_s']} s wall "
          f"({figures['speedup']}×); missed edges {figures['missed_edges']}, "
          f"index corrections {figures['index_corrections']}",
          flush=True)


def _mock_pin_cost(edges: int = 200_000) -> float:
    """µs of CPU for one bare MockPin edge with a no-op callback: the floor under the decoder."""
    factory = MockFactory()
    pin = factory.pin(5)
    pin.when_changed = lambda ticks, state: None
    started = time.process_time()
    for _ in range(edges // 2):
        pin.drive_low()
        pin.drive_high()
    cost = (time.process_time() - started) / edges * 1e6
    factory.close()
    return cost


def main() -> None:
    pins = load_pins().pi
    bom = simulate(BOM_ENCODER, pins, spins=1000, seed=SEED, max_rps=10.0).to_json()
    _line("800 steps/rev, index, x4 decoder (target wrong 0, ambiguous <= 3%)", bom)
    default = simulate(SpinnerConfig(), pins, spins=1000, seed=SEED, max_rps=10.0).to_json()
    _line("default config: 80 steps/rev, no index", default)
    lossy = SpinnerModel.for_config(BOM_ENCODER, drop_rate=1e-4)
    dropped = simulate(BOM_ENCODER, pins, spins=200, seed=SEED, max_rps=10.0,
                       model=lossy).to_json()
    _line("800 steps/rev, index, 1 edge in 10,000 lost (an overloaded Pi)", dropped)
    rotary = simulate(BOM_ENCODER, pins, spins=200, seed=SEED, max_rps=10.0,
                      counter="rotary_encoder").to_json()
    _line("800 steps/rev, gpiozero RotaryEncoder(max_steps=0) counter", rotary)
    floor = _mock_pin_cost()
    decoder = float(bom["cpu_us_per_edge"]) - floor  # type: ignore[arg-type]
    print(f"bare MockPin edge: {floor:.2f} µs; so the x4 decoder itself costs about "
          f"{decoder:.2f} µs per edge here (a Pi 4 is some 4-6x slower per core)")


if __name__ == "__main__":
    main()
