"""Tablets for the browser tests: each its own browser context, joined through the join page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.server import HOST_PIN, TABLE_PIN, Server


def tablet(browser: Any, server: Server, role: str, viewport: tuple[int, int] = (1280, 800),
           artifacts: Path | None = None, touch: bool = False) -> Any:
    """A new browser context (its own cookies) that joins the table through the join page;
    ``touch`` makes it a touch screen (``page.tap``, and touch events through CDP)."""
    page = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]},
                               has_touch=touch).new_page()
    page.goto(server.base + "/")
    if artifacts is not None:
        page.screenshot(path=str(artifacts / "join.png"), full_page=True)
    page.fill("input[name=pin]", HOST_PIN if role == "host" else TABLE_PIN)
    page.check(f"input[name=role][value={role}]")
    page.click("#join button[type=submit]")
    page.wait_for_selector("#role")
    assert page.get_attribute("#role", "data-role") == role
    return page
