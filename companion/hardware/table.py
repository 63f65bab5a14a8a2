"""The table's devices wired to the session service: each finished reading becomes a reading of
the session that is waiting for it.

A reading stands for one of the waiting session's legal commands (a spin for the spinner), so
the hardware never needs to know the rules: it takes the seat and the name from what the engine
offers. In simulation the same decoder reads mock pins that a physical model drives.
"""

from __future__ import annotations

import logging
import random
import threading
from dataclasses import dataclass
from typing import Any

from companion.config import Config
from companion.engine import Command
from companion.errors import CompanionError
from companion.hardware.pins import PinMap, load_pins
from companion.hardware.spinner import (
    Reading,
    Spinner,
    SpinnerError,
    hardware_pin_factory,
    mock_pin_factory,
)
from companion.session import SessionError, SessionService

log = logging.getLogger(__name__)

SPIN = "spin"


class TableError(CompanionError):
    pass


@dataclass(frozen=True)
class DeviceState:
    name: str
    state: str  # "real", "simulated" or "absent"
    detail: str = ""

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "state": self.state, "detail": self.detail}


class TableHardware:
    """Owns the spinner (and, in simulation, the physical model that turns it)."""

    def __init__(self, service: SessionService, config: Config, simulate: bool,
                 pins: PinMap | None = None) -> None:
        self.service = service
        self.config = config
        self.simulate = simulate
        self.pins = pins or load_pins(config.hardware.pins)
        self.spinner: Spinner | None = None
        self.spinner_state = DeviceState("spinner", "absent", "not started")
        self.last_reading: Reading | None = None
        self._factory: Any = None
        self._sim: Any = None
        self._sim_lock = threading.Lock()

    # --- life ---------------------------------------------------------------------------
    def start(self) -> TableHardware:
        spinner_config = self.config.hardware.spinner
        try:
            self._factory = mock_pin_factory() if self.simulate else hardware_pin_factory()
            self.spinner = Spinner(spinner_config, self.pins.pi, self._factory, self._on_spin)
        except SpinnerError as exc:
            self.spinner_state = DeviceState("spinner", "absent", str(exc))
            log.warning("spinner: %s", exc)
            return self
        if self.simulate:
            from companion.hardware.sim.spinner import SimulatedSpinner, SpinnerModel

            model = SpinnerModel.for_config(spinner_config)
            self._sim = SimulatedSpinner(model, self.pins.pi, self._factory, self.spinner.clock,
                                         seed=random.randrange(2**32))
            self.spinner_state = DeviceState("spinner", "simulated", "mock pins, physical model")
        else:
            self.spinner_state = DeviceState("spinner", "real", "GPIO "
                                             f"{self.pins.pi.spinner_a}/{self.pins.pi.spinner_b}")
        return self

    def close(self) -> None:
        if self.spinner is not None:
            self.spinner.close()
            self.spinner = None
        if self._factory is not None:
            self._factory.close()
            self._factory = None

    def devices(self) -> list[DeviceState]:
        return [self.spinner_state]

    # --- simulation ---------------------------------------------------------------------------
    def flick(self, rps: float | None = None) -> None:
        """Simulation: a player flicks the spinner (in a worker thread; the reading follows)."""
        if self._sim is None:
            raise TableError("There is no simulated spinner to flick.")
        speed = rps if rps is not None else random.uniform(3.0, 8.0)

        def run() -> None:
            with self._sim_lock:
                self._sim.flick(speed, direction=1)

        threading.Thread(target=run, name="simulated-flick", daemon=True).start()

    def can_simulate(self, session_id: str) -> bool:
        """Whether a simulated device here can give what ``session_id`` waits for."""
        target = self.waiting_for(SPIN)
        return self._sim is not None and target is not None and target[0] == session_id

    def simulate_for(self, session_id: str) -> None:
        if not self.can_simulate(session_id):
            raise TableError("No simulated device here can give what this session waits for.")
        self.flick()

    # --- readings ---------------------------------------------------------------------------
    def waiting_for(self, name: str) -> tuple[str, Command] | None:
        """The newest active session whose engine offers a command ``name`` now, and that
        command (its seat tells whose spin it is)."""
        for record in reversed(self.service.sessions()):
            if record.status != "active":
                continue
            try:
                offered = self.service.legal(record.id)
            except SessionError:
                continue
            for command in offered:
                if command.name == name and "value" in command.args:
                    return record.id, command
        return None

    def _on_spin(self, reading: Reading) -> None:
        self.last_reading = reading
        target = self.waiting_for(SPIN)
        if target is None:
            log.info("spin read (%s) but no session is waiting for one", reading.value)
            return
        session_id, offered = target
        command = Command(SPIN, {"value": reading.value}, offered.seat)
        try:
            self.service.add_reading(
                session_id,
                source="spinner",
                command_json=command.to_json(),
                confidence=reading.confidence,
                needs_review=reading.ambiguous,
                candidates=[{"value": v} for v in reading.candidates],
                detail=reading.to_json(),
            )
        except SessionError as exc:
            log.warning("the session did not take the spin: %s", exc)
