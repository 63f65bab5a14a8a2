"""The dashboard shell in a real browser: start a session, act, and see two tablets update."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import Server, write_config

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(write_config(tmp_path, tmp_path / "c.db")).start()
    yield s
    s.stop()


def test_lobby_new_session_and_live_update_on_two_tablets(
    server: Server, browser: Any, artifacts: Path
) -> None:
    tablet = browser.new_page(viewport={"width": 1280, "height": 800})
    tablet.goto(server.base + "/")
    tablet.screenshot(path=str(artifacts / "lobby.png"), full_page=True)
    assert '"target": 21' in tablet.input_value("textarea[name=options]")  # defaults shown
    tablet.fill("textarea[name=seats]", "Ann\nBob")
    tablet.click("#new-session button[type=submit]")
    tablet.wait_for_url("**/sessions/*")
    session_url = tablet.url

    other = browser.new_page(viewport={"width": 800, "height": 1280})
    other.goto(session_url)
    other.wait_for_selector("#actions button")

    tablet.click("#actions button:has-text('spin {\"value\":3}')")
    # the other tablet sees the new entry in its live log and its actions follow the state
    other.wait_for_selector("#feed li[data-seq='1']")
    other.wait_for_selector("#actions button:has-text('add')")
    assert "spin" in other.inner_text("#feed li[data-seq='1']")
    tablet.screenshot(path=str(artifacts / "table.png"), full_page=True)

    tablet.click("#undo")
    other.wait_for_selector("#feed li[data-seq='2']")
    assert "undo" in other.inner_text("#feed li[data-seq='2']")
    other.wait_for_selector("#actions button:has-text('spin')")


def test_bad_new_session_shows_the_reason(server: Server, browser: Any) -> None:
    page = browser.new_page()
    page.goto(server.base + "/")
    page.fill("textarea[name=seats]", "Only me")
    page.click("#new-session button[type=submit]")
    page.wait_for_selector("#new-session-error:not(:empty)")
    assert "played by 2" in page.inner_text("#new-session-error")


def test_seats_with_an_ai_and_edited_options(server: Server, browser: Any) -> None:
    page = browser.new_page()
    page.goto(server.base + "/")
    page.fill("textarea[name=seats]", "Ann\nBot, ai=greedy")
    page.fill("textarea[name=options]", '{"target": 40, "window_s": null}')
    page.click("#new-session button[type=submit]")
    page.wait_for_url("**/sessions/*")
    snapshot = server.get("/api/sessions/" + page.url.rsplit("/", 1)[1])
    assert snapshot["session"]["players"][1] == {"name": "Bot", "ai": "greedy"}
    assert snapshot["session"]["options"] == {"target": 40, "window_s": None}
