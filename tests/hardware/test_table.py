"""The table's devices feed the waiting session: a simulated flick is read by the real decoder
on mock pins and arrives as a spinner reading (issue 6: readings become commands)."""

from __future__ import annotations

import time

import pytest

from companion.config import Config, parse_config
from companion.hardware.table import TableError, TableHardware
from companion.session import SessionService

pytestmark = pytest.mark.slow


def wait_for(predicate, timeout: float = 20.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def sim_config() -> Config:
    return parse_config({"hardware": {"spinner": {"settle_ms": 300}}})


def test_a_simulated_flick_becomes_the_waiting_sessions_spin(service: SessionService) -> None:
    sid = service.create("tally", {"seats": [{"name": "Ann"}, {"name": "Bob"}]}).id
    table = TableHardware(service, sim_config(), simulate=True).start()
    try:
        assert table.spinner_state.state == "simulated"
        assert table.waiting_for("spin") is not None
        table.flick(rps=4.0)
        assert wait_for(lambda: len(service.store.entries(sid)) > 0)
        reading = service.store.entries(sid)[0]
        assert reading.kind == "reading" and reading.actor == "spinner"
        value = reading.payload["command"]["args"]["value"]
        assert 1 <= value <= 6 and reading.payload["candidates"][0] == {"value": value}
        assert reading.payload["detail"]["value"] == value  # the decoder's own reading
        if not reading.payload["needs_review"]:  # a sure reading is applied at once
            assert wait_for(lambda: service.snapshot(sid)["state"]["spin"] == value)
        else:  # a stop on an edge waits for a person
            assert str(reading.seq) in service.snapshot(sid)["readings"]
    finally:
        table.close()


def test_no_session_waiting_loses_nothing_and_real_gpio_absent_is_reported(
    service: SessionService,
) -> None:
    table = TableHardware(service, sim_config(), simulate=True).start()
    try:
        assert table.waiting_for("spin") is None
        table.flick(rps=4.0)
        assert wait_for(lambda: table.last_reading is not None)
        assert service.sessions() == []
    finally:
        table.close()
    real = TableHardware(service, Config(), simulate=False).start()
    assert real.spinner_state.state == "absent" and "Raspberry Pi" in real.spinner_state.detail
    with pytest.raises(TableError):
        real.flick()
    real.close()


def test_a_simulated_drop_goes_through_beam_link_camera_and_counter(
    service: SessionService,
) -> None:
    """Cubes into the simulated tower: the firmware's beam logic counts what falls out, the real
    link delivers the drop over a pty, the real counter reads the rendered tray."""
    from companion.games.cpx import GAME

    setup = GAME.selfplay_setup(["random", "random"], seed=4).to_json()
    sid = service.create("cpx", {k: v for k, v in setup.items() if k != "profiles"}).id
    table = TableHardware(service, sim_config(), simulate=True).start()
    try:
        assert table.calibrated.wait(60)
        assert wait_for(lambda: table.link.status().state.value == "connected")
        assert table.can_simulate(sid)
        due = service.open(sid).history.state.drop["input"]
        out = table.drop_cubes(dict(due))
        assert wait_for(lambda: any(e.kind == "reading" for e in service.store.entries(sid)),
                        timeout=30)
        reading = next(e for e in service.store.entries(sid) if e.kind == "reading")
        assert reading.actor == "tower" and reading.payload["command"]["name"] == "report_drop"
        total = sum(out.values())
        assert reading.payload["detail"]["beam_count"] == (total or None)
        assert service.store.media(reading.payload["media"]) is not None
        counted = reading.payload["command"]["args"]["counts"]
        if {c: n for c, n in counted.items() if n} != {c: n for c, n in out.items() if n}:
            assert reading.payload["needs_review"]  # never a confident wrong count
        assert table.tower_settings == (1500, 1000)  # the configured beam timing was sent
        states = {d.name: d.state for d in table.devices()}
        assert states == {"spinner": "simulated", "tower": "simulated", "camera": "simulated"}
    finally:
        table.close()
