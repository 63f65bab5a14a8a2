"""companion/hardware/link.py: finding the Pico's port by USB vendor ID, or the configured one."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from companion.config import LinkConfig
from companion.hardware import link as link_module
from companion.hardware.link import PICO_VID, find_tower_port, port_finder_for


def fake_ports(*ports: tuple[str, int | None]) -> list[SimpleNamespace]:
    return [SimpleNamespace(device=device, vid=vid) for device, vid in ports]


def test_the_pico_is_found_by_its_vendor_id(monkeypatch: pytest.MonkeyPatch) -> None:
    ports = fake_ports(("/dev/ttyUSB0", 0x0403), ("/dev/ttyACM1", PICO_VID),
                       ("/dev/ttyACM0", PICO_VID), ("/dev/ttyS0", None))
    monkeypatch.setattr(link_module.list_ports, "comports", lambda: ports)
    assert find_tower_port() == "/dev/ttyACM0"


def test_no_pico_means_no_port(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(link_module.list_ports, "comports",
                        lambda: fake_ports(("/dev/ttyUSB0", 0x0403)))
    assert find_tower_port() is None
    assert port_finder_for(LinkConfig())() is None


def test_the_configured_port_overrides_the_search(tmp_path: Path) -> None:
    port = tmp_path / "ttyTOWER"
    finder = port_finder_for(LinkConfig(port=str(port)))
    assert finder() is None  # not there yet
    port.touch()
    assert finder() == str(port)


def test_a_port_that_cannot_be_opened_is_retried_with_the_reason(tmp_path: Path) -> None:
    from companion.hardware.link import LinkState, TowerLink

    not_a_tty = tmp_path / "ttyACM0"
    not_a_tty.write_text("")
    with TowerLink(port_finder=lambda: str(not_a_tty), backoff_max_s=0.2) as link:
        deadline = time.monotonic() + 15
        status = link.status()
        while "cannot open" not in status.reason and time.monotonic() < deadline:
            time.sleep(0.005)
            status = link.status()
        assert status.state is LinkState.RECONNECTING
        assert status.reason.startswith(f"cannot open {not_a_tty}")


def test_a_failing_port_finder_leaves_the_link_absent_not_dead() -> None:
    from companion.hardware.link import LinkState, TowerLink

    calls = []

    def broken() -> str | None:
        calls.append(1)
        raise RuntimeError("udev is confused")

    with TowerLink(port_finder=broken, absent_poll_s=0.02) as link:
        deadline = time.monotonic() + 15
        while len(calls) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(calls) >= 3  # still looking
        status = link.status()
        assert status.state is LinkState.ABSENT
        assert status.reason == "cannot look for the tower: udev is confused"
