"""Shared fixtures: a temporary database, a registry with the test game, a session service."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.games import GameRegistry
from companion.session import SessionService
from companion.store import Store

TALLY = "tests.support.tally:GAME"


class FakeClock:
    """A clock the test moves by hand, so time windows are exact."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "companion.db"


@pytest.fixture
def store(db_path: Path) -> Iterator[Store]:
    s = Store(db_path)
    yield s
    s.close()


@pytest.fixture
def registry() -> GameRegistry:
    return GameRegistry([TALLY])


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def service(store: Store, registry: GameRegistry, clock: FakeClock) -> Iterator[SessionService]:
    svc = SessionService(store, registry, clock=clock)
    yield svc
    svc.close()


def two_humans(**extra: object) -> dict[str, object]:
    return {"seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": 7, **extra}


@pytest.fixture
def make_service(store: Store, registry: GameRegistry) -> Iterator[Any]:
    """More services over the same store (a restart), all closed at the end of the test."""
    made: list[SessionService] = []

    def make(clock: Any = None) -> SessionService:
        svc = SessionService(store, registry, **({"clock": clock} if clock else {}))
        made.append(svc)
        return svc

    yield make
    for svc in made:
        svc.close()
