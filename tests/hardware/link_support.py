"""Helpers for the link tests: a link pointed at a simulated tower, event and condition waits."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from companion.config import LinkConfig
from companion.hardware.link import DropStarted, LinkStateChanged, TowerEvent, TowerLink
from companion.hardware.sim.tower_device import SimulatedTower

T = TypeVar("T")
WAIT = 15.0  # generous: CI shares two cores between two test processes


def make_sim() -> SimulatedTower:
    return SimulatedTower(seed=11, quiet_ms=300, retry_ms=300)


def make_link(sim: SimulatedTower, heartbeat_timeout_s: float = 3.0, **kw: float) -> TowerLink:
    return TowerLink(LinkConfig(heartbeat_timeout_s=heartbeat_timeout_s),
                     port_finder=sim.find_port, **kw)


def next_of(link: TowerLink, kind: type[T], timeout: float = WAIT) -> T:
    """The next event of ``kind``, skipping link state changes (and drop starts when waiting
    for a finish); fails on any other event."""
    skip = (LinkStateChanged,) if kind is DropStarted else (LinkStateChanged, DropStarted)
    while True:
        event = link.next_event(timeout)
        assert event is not None, f"no {kind.__name__} within {timeout} s"
        if isinstance(event, kind):
            return event
        assert isinstance(event, skip), f"unexpected {event}"


def drain(link: TowerLink, quiet_s: float = 0.8) -> list[TowerEvent]:
    """Every event until none has come for ``quiet_s``, link state changes left out."""
    events = []
    while (event := link.next_event(quiet_s)) is not None:
        if not isinstance(event, LinkStateChanged):
            events.append(event)
    return events


def wait_for(condition: Callable[[], bool], timeout: float = WAIT) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()
