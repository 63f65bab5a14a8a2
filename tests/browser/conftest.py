"""Real Chromium (Debian's) driven by Playwright, against the real server."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server import Server, write_config

ARTIFACTS = Path(os.environ.get("COMPANION_ARTIFACTS", Path(__file__).resolve().parents[2]
                                / "artifacts" / "screenshots"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail("Debian's chromium is not installed: run 'make test' (it installs it)")
    return path


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots in {ARTIFACTS}")
    return ARTIFACTS


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """The real server, in simulation, with its own database."""
    s = Server(write_config(tmp_path, tmp_path / "c.db")).start()
    yield s
    s.stop()
