"""``companion spinner calibrate`` and ``companion spinner simulate``: a CLI plugin.

Added to ``companion.cli.PLUGINS``; :func:`register` adds the parsers, each with the common
``--config``/``--db`` options and a ``run(args, out) -> exit code``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from companion.cli import add_common_options, config_from_args
from companion.config import (
    Config,
    ConfigError,
    SpinnerConfig,
    config_path,
    update_config_file,
)
from companion.hardware.pins import PiPins, load_pins
from companion.hardware.spinner import (
    COUNTERS,
    Reading,
    Spinner,
    SpinnerError,
    hardware_pin_factory,
    mock_pin_factory,
)


def register(subparsers: Any) -> None:
    group = subparsers.add_parser("spinner", help="calibrate or simulate the spinner")
    actions = group.add_subparsers(dest="spinner_action", required=True, metavar="ACTION")

    p = actions.add_parser(
        "calibrate",
        help="point the spinner at sector 1 and confirm; stores offset_steps in the config",
    )
    add_common_options(p)
    p.add_argument("--sim", action="store_true", help="calibrate the simulated spinner")
    p.set_defaults(run=cmd_calibrate)

    p = actions.add_parser(
        "simulate",
        help="spin the simulated spinner through the real decoder and score the readings",
    )
    add_common_options(p)
    p.add_argument("--spins", type=_positive_int, default=1000, help="number of spins")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--max-rps", type=_speed, default=10.0,
                   help="fastest flick in turns per second (default 10)")
    p.add_argument("--min-rps", type=_speed, default=2.0,
                   help="slowest flick in turns per second (default 2)")
    p.add_argument("--steps-per-rev", type=_positive_int,
                   help="simulate another encoder than the configured one")
    p.add_argument("--index", action="store_true", help="simulate with the index sensor on")
    p.add_argument("--drop-rate", type=_rate, default=0.0,
                   help="fraction of encoder edges the Pi misses (an overloaded Pi), 0..0.1")
    p.add_argument("--counter", choices=COUNTERS, default="quadrature",
                   help="edge counter: quadrature (x4 on input devices, default) or "
                        "gpiozero's rotary_encoder")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_simulate)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= 100:
        raise argparse.ArgumentTypeError(f"must be in (0, 100] turns per second, not {value}")
    return value


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= 0.1:
        raise argparse.ArgumentTypeError(f"must be in 0..0.1, not {value}")
    return value


def _pins(config: Config) -> PiPins:
    return load_pins(config.hardware.pins.expanduser() if config.hardware.pins else None).pi


def _spinner_config(base: SpinnerConfig, **changes: Any) -> SpinnerConfig:
    try:
        return SpinnerConfig.model_validate({**base.model_dump(), **changes})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise SpinnerError(f"spinner settings: {problems}") from exc


# --- calibrate ---------------------------------------------------------------------------------
def cmd_calibrate(args: argparse.Namespace, out: TextIO) -> int:
    config = config_from_args(args)
    target = config_path(args.config)
    pins = _pins(config)
    spinner_config = config.hardware.spinner
    if args.sim or config.hardware.simulate:
        offset, check = _calibrate_simulated(spinner_config, pins)
        print(f"simulated spinner: pointed at sector 1, offset_steps = {offset}", file=out)
        right = sum(r.value == s and not r.ambiguous for r, s in check)
        asked = sum(r.ambiguous for r, _ in check)
        print(f"check: {len(check)} spins, {right} read right, {asked} asked, "
              f"{len(check) - right - asked} wrong", file=out)
    else:
        offset = _calibrate_hardware(spinner_config, pins, out)
    store_offset(target, args.config, offset)
    print(f"offset_steps = {offset} written to {target}", file=out)
    return 0


def _calibrate_simulated(
    config: SpinnerConfig, pins: PiPins
) -> tuple[int, list[tuple[Reading, int]]]:
    from companion.hardware.sim.spinner import (
        REFERENCE_FLICK_RPS,
        SimulatedSpinner,
        SpinnerModel,
        VirtualClock,
    )

    clock = VirtualClock()
    factory = mock_pin_factory()
    readings: list[Reading] = []
    spinner = Spinner(config, pins, factory, readings.append, clock=clock)
    try:
        sim = SimulatedSpinner(SpinnerModel.for_config(config), pins, factory, clock)
        settle = config.settle_ms / 1000 + 0.05
        if config.use_index:
            sim.flick(REFERENCE_FLICK_RPS)
            sim.wait(settle)
        sim.point_at(1)
        sim.wait(settle)
        offset = spinner.calibrate()
        check = []
        for i in range(12):
            readings.clear()
            motion = sim.flick(2.0 + i * 0.7)
            sim.wait(settle)
            if readings:
                check.append((readings[-1], motion.sector))
        return offset, check
    finally:
        spinner.close()
        factory.close()


def _calibrate_hardware(config: SpinnerConfig, pins: PiPins, out: TextIO) -> int:
    factory = hardware_pin_factory()
    try:
        with Spinner(config, pins, factory, lambda reading: None) as spinner:
            if config.use_index:
                print("Turn the spinner once all the way round (past the index sensor).",
                      file=out, flush=True)
            print("Point the spinner at the middle of sector 1, then press Enter "
                  "(Ctrl-C cancels).", file=out, flush=True)
            try:
                answered = sys.stdin.readline() != ""
            except OSError:
                answered = False
            if not answered:
                raise SpinnerError(
                    "no confirmation (standard input is closed): nothing was stored"
                )
            return spinner.calibrate()
    finally:
        factory.close()


def store_offset(target: Path, explicit: str | None, offset: int) -> None:
    """Write the file's own settings back with the new offset (not ``--db`` or other flags)."""
    try:
        update_config_file(target, ("hardware", "spinner"), {"offset_steps": offset})
    except ConfigError as exc:
        raise SpinnerError(f"cannot store the calibration: {exc}") from exc


# --- simulate ----------------------------------------------------------------------------------
def cmd_simulate(args: argparse.Namespace, out: TextIO) -> int:
    from companion.hardware.sim.spinner import SpinnerModel, simulate

    config = config_from_args(args)
    changes: dict[str, Any] = {}
    if args.steps_per_rev:
        changes["steps_per_rev"] = args.steps_per_rev
    if args.index:
        changes["use_index"] = True
    spinner_config = _spinner_config(config.hardware.spinner, **changes)
    if args.min_rps > args.max_rps:
        raise SpinnerError(f"--min-rps {args.min_rps} is above --max-rps {args.max_rps}")
    model = SpinnerModel.for_config(spinner_config, drop_rate=args.drop_rate)
    result = simulate(spinner_config, _pins(config), spins=args.spins, seed=args.seed,
                      max_rps=args.max_rps, min_rps=args.min_rps, counter=args.counter,
                      model=model)
    figures = result.to_json()
    figures.update(seed=args.seed, max_rps=args.max_rps, min_rps=args.min_rps,
                   guard_steps=spinner_config.guard_steps, use_index=spinner_config.use_index,
                   drop_rate=args.drop_rate)
    if args.json:
        print(json.dumps(figures), file=out)
        return 0
    f = figures
    print(f"{f['spins']} spins at {args.min_rps:g}–{args.max_rps:g} rev/s (seed {args.seed}, "
          f"{f['steps_per_rev']} steps/rev, guard {f['guard_steps']}, "
          f"{'index on' if f['use_index'] else 'no index'}, {f['counter']} counter)", file=out)
    print(f"  correct {f['correct']}  ambiguous {f['ambiguous']} "
          f"({100 * f['ambiguous_rate']:.1f}%, truth among the candidates in "
          f"{f['ambiguous_with_truth_in_candidates']})  wrong {f['wrong']}  "
          f"no reading {f['missing']}", file=out)
    print(f"  {f['edges']:,} edges, peak {f['peak_edge_rate_per_s']:,}/s; the decoder on mock "
          f"pins sustains {f['sustained_edge_rate_per_s'] or 0:,} edges/s "
          f"({f['cpu_us_per_edge']} µs CPU per edge)", file=out)
    print(f"  {f['simulated_s']} s simulated in {f['wall_s']} s "
          f"({f['speedup']}× real time); index corrections {f['index_corrections']}, "
          f"missed edges {f['missed_edges']}", file=out)
    return 0
