"""The table's devices wired to the session service: each finished reading becomes a reading of
the session that is waiting for it.

A reading stands for one of the waiting session's legal commands (a spin for the spinner, a
drop's counts for the tower), so the hardware never needs to know the rules: it takes the seat
and the name from what the engine offers. In simulation the same code runs against simulated
ends: the spinner decoder reads mock pins that a physical model drives; the serial link talks to
the firmware's own logic behind a pseudo-terminal; the real counter reads rendered trays.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable
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
REPORT_DROP = "report_drop"


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
                 pins: PinMap | None = None,
                 save_offset: Callable[[int], None] | None = None) -> None:
        self.service = service
        self.save_offset = save_offset
        self.config = config
        self.simulate = simulate
        self.pins = pins or load_pins(config.hardware.pins)
        self.spinner: Spinner | None = None
        self.spinner_state = DeviceState("spinner", "absent", "not started")
        self.last_reading: Reading | None = None
        self._factory: Any = None
        self._sim: Any = None
        self._sim_lock = threading.Lock()
        self.link: Any = None
        self.pipeline: Any = None
        self.tower_state = DeviceState("tower", "absent", "not started")
        self.camera_state = DeviceState("camera", "absent", "not started")
        self._device: Any = None  # the simulated tower's firmware behind a pty
        self._cubes: Any = None  # the simulated tower's hidden inventory
        self._scene: tuple[Any, dict[str, Any]] | None = None
        self._stop = threading.Event()
        self._events: threading.Thread | None = None
        self._calibration: tuple[Any, list[Any]] | None = None
        self.calibrated = threading.Event()  # the counter is ready (at once on real hardware)
        self.tower_settings: tuple[int, int] | None = None  # (quiet ms, debounce µs) in force

    # --- life ---------------------------------------------------------------------------
    def start(self) -> TableHardware:
        self._start_spinner()
        self._start_tower()
        return self

    def _start_spinner(self) -> None:
        spinner_config = self.config.hardware.spinner
        try:
            self._factory = mock_pin_factory() if self.simulate else hardware_pin_factory()
            self.spinner = Spinner(spinner_config, self.pins.pi, self._factory, self._on_spin)
        except SpinnerError as exc:
            self.spinner_state = DeviceState("spinner", "absent", str(exc))
            log.warning("spinner: %s", exc)
            return
        if self.simulate:
            from companion.hardware.sim.spinner import SimulatedSpinner, SpinnerModel

            model = SpinnerModel.for_config(spinner_config)
            self._sim = SimulatedSpinner(model, self.pins.pi, self._factory, self.spinner.clock,
                                         seed=random.randrange(2**32))
            self.spinner_state = DeviceState("spinner", "simulated", "mock pins, physical model")
        else:
            self.spinner_state = DeviceState("spinner", "real", "GPIO "
                                             f"{self.pins.pi.spinner_a}/{self.pins.pi.spinner_b}")

    def _start_tower(self) -> None:
        import vision
        from companion.hardware.camera import CameraError, CameraOwner, make_camera
        from companion.hardware.drops import DropPipeline
        from companion.hardware.link import TowerLink
        from vision.annotate import annotate

        hardware = self.config.hardware
        counter = None
        scene = None
        if self.simulate:
            from companion.hardware.sim.tower import CubeTower
            from companion.hardware.sim.tower_device import SimulatedTower
            from vision.render import Setup
            from vision.scenes import calibration_set

            self._device = SimulatedTower(seed=random.randrange(2**32)).start()
            self._cubes = CubeTower()
            empty, shots = calibration_set(Setup(), seed=1)
            self._calibration = (empty, [vision.Sample(c, n, img, f"{c}-{n}")
                                         for c, n, img in shots])
            self._scene = (empty, {})
            scene = self._current_scene
            self.link = TowerLink(hardware.link, port_finder=self._device.find_port).start()
            self.tower_state = DeviceState("tower", "simulated", "firmware on a pseudo-terminal")
        else:
            self.link = TowerLink(hardware.link).start()
            self.tower_state = DeviceState("tower", "real", "USB serial")
            if hardware.camera.profile is not None:
                try:
                    counter = vision.Counter(vision.load_profile(hardware.camera.profile))
                except vision.VisionError as exc:
                    log.warning("tray profile: %s", exc)
            self.calibrated.set()
        try:
            from companion.hardware.camera_cli import locked_exposure

            camera = make_camera("synthetic" if self.simulate else hardware.camera.kind,
                                 hardware.camera.device, scene=scene,
                                 lock=locked_exposure(hardware.camera))
            owner = CameraOwner(camera)
            calibrated = self.simulate or counter is not None
            self.camera_state = DeviceState("camera", "simulated" if self.simulate else "real",
                                            camera.name + ("" if calibrated else ", tray not "
                                                           "calibrated: counts by hand"))
        except CameraError as exc:
            owner = None
            self.camera_state = DeviceState("camera", "absent", str(exc))
        self.pipeline = DropPipeline(self.service, owner, counter, lights=self._lights,
                                     annotate=annotate)
        self._events = threading.Thread(target=self._follow_tower, name="tower-events",
                                         daemon=True)
        self._events.start()

    def close(self) -> None:
        self._stop.set()
        if self._events is not None:
            self._events.join(timeout=3)
        if self.pipeline is not None and self.pipeline.camera is not None:
            self.pipeline.camera.close()
        if self.link is not None:
            self.link.close()
            self.link = None
        if self._device is not None:
            self._device.close()
            self._device = None
        if self.spinner is not None:
            self.spinner.close()
            self.spinner = None
        if self._factory is not None:
            self._factory.close()
            self._factory = None

    def devices(self) -> list[DeviceState]:
        out = [self.spinner_state, self.tower_state, self.camera_state]
        owner = self.pipeline.camera if self.pipeline is not None else None
        if owner is not None:
            out[2] = DeviceState("camera", self.camera_state.state,
                                 f"{self.camera_state.detail} ({owner.state})")
        if self.link is not None:
            state = self.link.status()
            out[1] = DeviceState("tower", self.tower_state.state,
                                 f"{self.tower_state.detail}: link {state.state.value}"
                                 + (f" ({state.reason})" if state.reason else ""))
        return out

    def calibrate_spinner(self) -> int:
        """The pointer rests on sector 1 (in simulation, the simulated player turns it there):
        adopt and store the calibration offset."""
        if self.spinner is None:
            raise TableError(f"There is no spinner to calibrate ({self.spinner_state.detail}).")
        if self._sim is not None:
            from companion.hardware.sim.spinner import REFERENCE_FLICK_RPS

            settle = self.config.hardware.spinner.settle_ms / 1000 + 0.05
            with self._sim_lock:
                if not self.spinner.referenced:
                    self._sim.flick(REFERENCE_FLICK_RPS)
                    self._sim.wait(settle)
                self._sim.point_at(1)
                self._sim.wait(settle)
        try:
            offset = self.spinner.calibrate()
        except SpinnerError as exc:
            raise TableError(str(exc).capitalize() + ".") from exc
        if self.save_offset is not None:
            self.save_offset(offset)
        return offset

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
        return self._spin_due(session_id) or (
            self._device is not None and self._drop_due(session_id) is not None)

    def simulate_for(self, session_id: str) -> bool:
        """The simulated player flicks the spinner, or drops the cubes into the tower, for
        ``session_id``; False when no simulated device here can give what it waits for."""
        if self._spin_due(session_id):
            self.flick()
            return True
        cubes_in = self._drop_due(session_id) if self._device is not None else None
        if cubes_in is None:
            return False
        self.drop_cubes(cubes_in)
        return True

    def _spin_due(self, session_id: str) -> bool:
        if self._sim is None:
            return False
        target = self.waiting_for(SPIN)
        return target is not None and target[0] == session_id

    def drop_cubes(self, cubes_in: dict[str, int]) -> dict[str, int]:
        """Simulation: cubes go into the tower; what falls out lands in the (rendered) tray and
        passes the exit beam, and the real pipeline takes it from there."""
        from vision.scenes import render_drop

        assert self._cubes is not None and self._device is not None
        out = self._cubes.drop(cubes_in)
        image, _ = render_drop(out, seed=random.randrange(2**32))
        self._scene = (image, {"truth": {c: n for c, n in out.items() if n}})
        total = sum(out.values())
        if total:
            self._device.drop(total)
        else:  # nothing for the beam to see: a player presses "count now"
            self._device.press_count_now()
        return out

    def _current_scene(self) -> tuple[Any, dict[str, Any]]:
        assert self._scene is not None
        return self._scene

    def _drop_due(self, session_id: str) -> dict[str, int] | None:
        try:
            live = self.service.open(session_id)
        except SessionError:
            return None
        with live.lock:
            due = live.game.tower_drop(live.history.state)
        return dict(due) if due else None

    # --- the tower ------------------------------------------------------------------------
    def _lights(self, on: bool) -> None:
        self.link.lights(on)

    def _follow_tower(self) -> None:
        from companion.hardware.link import CountNowPressed, DropFinished, LinkStateChanged

        if self._calibration is not None:  # simulation: calibrate the rendered tray, once
            import vision

            empty, samples = self._calibration
            self.pipeline.counter = vision.Counter(vision.calibrate(empty=empty, samples=samples))
            self._calibration = None  # the photos are not needed once the profile exists
            self.calibrated.set()
        while not self._stop.is_set():
            event = self.link.next_event(timeout=0.3) if self.link is not None else None
            if isinstance(event, DropFinished):
                self._drop_finished(event.count)
            elif isinstance(event, CountNowPressed):
                self._drop_finished(None)
            elif isinstance(event, LinkStateChanged) and event.state.value == "connected":
                self._configure_tower()

    def _configure_tower(self) -> None:
        """Every (re)connected tower gets the configured quiet time and debounce."""
        from companion.hardware.link import LinkError

        link_config = self.config.hardware.link
        try:
            self.tower_settings = self.link.beam_settings(link_config.drop_quiet_ms,
                                                          link_config.debounce_us)
        except LinkError as exc:
            log.warning("could not set the tower's beam timing: %s", exc)

    def _drop_finished(self, beam_count: int | None) -> None:
        target = self.waiting_for(REPORT_DROP)
        if target is None:
            log.info("a drop finished (%s cubes) but no session is waiting for one", beam_count)
            return
        try:
            self.pipeline.process(target[0], beam_count)
        except Exception:  # the tower must keep being followed whatever one drop did
            log.exception("processing a drop failed")

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
                if command.name == name:
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
