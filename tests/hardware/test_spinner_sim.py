"""Simulated spinner (companion.hardware.sim.spinner): the model drives the real decoder."""

from __future__ import annotations

import math
import threading

import pytest
from gpiozero.pins.mock import MockFactory

import companion.hardware.sim.spinner as sim_module
from companion.config import SpinnerConfig
from companion.hardware.pins import load_pins
from companion.hardware.sim.spinner import (
    SimulatedSpinner,
    SpinnerModel,
    VirtualClock,
    simulate,
)
from companion.hardware.spinner import FORWARD_LEVELS, Reading, RealClock, Spinner

PINS = load_pins().pi


class Table:
    """The real Spinner and the simulated disc on one MockFactory and one virtual clock."""

    def __init__(self, config: SpinnerConfig | None = None, **model: object) -> None:
        self.config = config or SpinnerConfig(steps_per_rev=80, use_index=False)
        self.factory = MockFactory()
        self.clock = VirtualClock()
        self.readings: list[Reading] = []
        self.spinner = Spinner(self.config, PINS, self.factory, self.readings.append,
                               clock=self.clock)
        self.sim = SimulatedSpinner(SpinnerModel.for_config(self.config, **model), PINS,
                                    self.factory, self.clock, seed=7)

    def settle(self) -> None:
        self.sim.wait(self.config.settle_ms / 1000 + 0.05)

    def close(self) -> None:
        self.spinner.close()
        self.factory.close()


@pytest.fixture
def table() -> Table:
    made = Table()
    yield made
    made.close()


def test_spinner_sim_virtual_clock_runs_timers_in_time_order() -> None:
    clock = VirtualClock()
    seen: list[tuple[str, float]] = []
    clock.call_at(2.0, lambda: seen.append(("b", clock.now())))
    clock.call_at(1.0, lambda: clock.call_at(1.5, lambda: seen.append(("c", clock.now()))))
    clock.advance_to(3.0)
    assert seen == [("c", 1.5), ("b", 2.0)]
    assert clock.now() == 3.0


def test_spinner_sim_model_sector_geometry_is_consistent() -> None:
    model = SpinnerModel(steps_per_rev=80)
    for sector in range(1, 7):
        assert model.sector_at(model.centre_of(sector)) == sector
        assert model.sector_at(model.centre_of(sector) + 80 * 3) == sector


def test_spinner_sim_drives_the_real_mock_pins_to_the_rest_angle(table: Table) -> None:
    motion = table.sim.flick(6.0)
    table.settle()
    level = FORWARD_LEVELS[math.floor(motion.rest_angle) % 4]
    assert table.factory.pin(PINS.spinner_a).state == bool(level >> 1)
    assert table.factory.pin(PINS.spinner_b).state == bool(level & 1)
    # Bounce, wobble and the rock back at the stop leave the x4 count exact.
    assert table.spinner.count == math.floor(motion.rest_angle)


def test_spinner_sim_fast_spin_at_ten_turns_a_second_reads_right(table: Table) -> None:
    table.sim.point_at(1)
    table.settle()
    table.spinner.calibrate()
    table.readings.clear()
    motion = table.sim.flick(10.0)
    table.settle()
    assert motion.rest_angle - 0.5 > 80 * 10  # many turns
    reading = table.readings[-1]
    assert motion.sector in reading.candidates
    assert reading.ambiguous or reading.value == motion.sector
    assert reading.duration > 2.0


def test_spinner_sim_slow_spin_just_over_min_turn_is_read(table: Table) -> None:
    motion = table.sim.flick(1.6)  # about 0.6 of a turn with this friction
    table.settle()
    assert 0.5 * 80 < motion.rest_angle - 0.5 < 1.0 * 80
    assert len(table.readings) == 1


def test_spinner_sim_weak_flick_is_a_nudge(table: Table) -> None:
    table.sim.flick(0.8)
    table.settle()
    assert table.readings == []
    assert table.spinner.nudges == 1


def test_spinner_sim_backward_flick_reads_right(table: Table) -> None:
    table.sim.point_at(1)
    table.settle()
    table.spinner.calibrate()
    table.readings.clear()
    motion = table.sim.flick(5.0, direction=-1)
    table.settle()
    assert table.readings[-1].steps < 0
    assert table.spinner.count == math.floor(motion.rest_angle)


def test_spinner_sim_bounce_adds_edges_but_not_counts() -> None:
    table = Table(bounce_probability=1.0)
    try:
        motion = table.sim.flick(4.0)
        table.settle()
        clean = math.floor(motion.rest_angle)
        assert motion.edges > 2 * clean  # every edge chattered at least once
        assert table.spinner.count == clean
        assert table.spinner.missed_edges == 0
    finally:
        table.close()


def test_spinner_sim_rebound_moves_back_before_rest() -> None:
    table = Table(rebound=3.0, bounce_probability=0.0)
    try:
        motion = table.sim.flick(3.0)
        table.settle()
        assert table.spinner.count == math.floor(motion.rest_angle)
    finally:
        table.close()


def test_spinner_sim_index_pin_follows_the_magnet() -> None:
    config = SpinnerConfig(steps_per_rev=80, use_index=True)
    table = Table(config)
    try:
        assert not table.spinner.referenced
        table.sim.flick(3.0)
        table.settle()
        assert table.spinner.referenced
        assert table.spinner.index_corrections == []  # nothing was lost, nothing to correct
    finally:
        table.close()


def test_spinner_sim_many_spins_are_never_wrong_and_settle_costs_no_wall_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_sleep(seconds: float) -> None:
        raise AssertionError("the virtual-clock simulation slept")

    monkeypatch.setattr(sim_module.time, "sleep", no_sleep)
    result = simulate(SpinnerConfig(steps_per_rev=80, use_index=False), PINS, spins=40, seed=5)
    assert result.wrong == 0 and result.missing == 0
    assert result.correct + result.ambiguous == 40
    assert result.ambiguous_resolvable == result.ambiguous
    assert result.simulated_s > 40 * 0.4  # every spin waited its settle time, virtually
    assert result.edges > 0 and result.drive_cpu_s > 0


def test_spinner_sim_same_seed_same_outcome() -> None:
    config = SpinnerConfig(steps_per_rev=80, use_index=True)
    one = simulate(config, PINS, spins=8, seed=11).to_json()
    two = simulate(config, PINS, spins=8, seed=11).to_json()
    for key in ("correct", "ambiguous", "wrong", "edges", "offset_steps", "simulated_s"):
        assert one[key] == two[key]


def test_spinner_sim_rotary_encoder_counter_is_coarser_but_not_wrong() -> None:
    config = SpinnerConfig(steps_per_rev=80, use_index=False)
    result = simulate(config, PINS, spins=20, seed=2, counter="rotary_encoder")
    assert result.wrong == 0
    assert result.counter == "rotary_encoder"


def test_spinner_sim_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="spins"):
        simulate(SpinnerConfig(), PINS, spins=0, seed=1)
    with pytest.raises(ValueError, match="min-rps"):
        simulate(SpinnerConfig(), PINS, spins=1, seed=1, min_rps=5, max_rps=2)
    table = Table()
    try:
        with pytest.raises(ValueError, match="flick speed"):
            table.sim.flick(0)
    finally:
        table.close()


def test_spinner_sim_real_clock_plays_edges_in_real_time() -> None:
    config = SpinnerConfig(steps_per_rev=24, settle_ms=50, min_turn=0.25, use_index=False)
    factory = MockFactory()
    clock = RealClock()
    got: list[Reading] = []
    done = threading.Event()

    def deliver(reading: Reading) -> None:
        got.append(reading)
        done.set()

    spinner = Spinner(config, PINS, factory, deliver, clock=clock)
    try:
        sim = SimulatedSpinner(SpinnerModel.for_config(config), PINS, factory, clock)
        motion = sim.turn_to(0.5 + 10, rps=4.0)  # 10 steps, about a tenth of a second
        assert done.wait(10), "no reading arrived"
        assert got[0].steps == 10
        assert spinner.count == math.floor(motion.rest_angle)
    finally:
        spinner.close()
        clock.close()
        factory.close()


def test_spinner_sim_lost_edges_with_index_are_corrected_and_never_wrong() -> None:
    config = SpinnerConfig(steps_per_rev=80, use_index=True)
    model = SpinnerModel.for_config(config, drop_rate=0.002)
    result = simulate(config, PINS, spins=40, seed=3, model=model)
    assert result.missed_edges > 0
    assert result.index_corrections > 0
    assert result.wrong == 0
    assert result.ambiguous_resolvable <= result.ambiguous


def test_spinner_sim_lost_edges_without_index_ask_instead_of_guessing() -> None:
    config = SpinnerConfig(steps_per_rev=80, use_index=False)
    model = SpinnerModel.for_config(config, drop_rate=0.002)
    result = simulate(config, PINS, spins=20, seed=3, model=model)
    assert result.missed_edges > 0
    assert result.wrong == 0
    assert result.ambiguous > result.spins // 2  # the count is no longer to be trusted
