"""Allies vs Axis on a tablet: the ring, the players' panels, the recruit poster, and the count
forms (the invasion power calculator, recruiting within money and limits) in a real browser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import tablet
from tests.support.server import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_ava_start_spin_recruit_and_invade(server: Server, browser: Any, artifacts: Path) -> None:
    _, snap = server.post("/api/sessions", {"game": "ava", "seats": [
        {"name": "Ann", "camp": "allies"}, {"name": "Bob", "camp": "axis"}],
        "options": {"recruit_before_resolution": True}})
    page = tablet(browser, server, "host", (1280, 800))
    page.goto(f"{server.base}/sessions/{snap['session']['id']}")
    assert page.locator(".ring .sq").count() == 36
    assert "owned allies" in page.get_attribute("[data-square='1']", "class")  # the UK
    assert "owned axis" in page.get_attribute("[data-square='19']", "class")  # Germany
    assert page.locator("[data-square='1'] .piece.allies").count() == 1
    assert page.locator(".poster tr").count() == 5  # heading and four units

    other = tablet(browser, server, "player", (800, 1280))  # a second tablet, portrait
    other.goto(f"{server.base}/sessions/{snap['session']['id']}")
    # the spinner reads 3, doubtfully: the table confirms it (UK (1) + 3 = Belgium, neutral)
    page.fill("#typed-reading input[name=name]", "spin")
    page.fill("#typed-reading input[name=args]", '{"value": 3}')
    page.fill("#typed-reading input[name=seat]", "0")
    page.check("#typed-reading input[name=needs_review]")
    page.click("#typed-reading button[type=submit]")
    page.wait_for_selector("#readings .reading")
    page.click("#readings button:has-text('Confirm')")
    page.wait_for_selector("[data-square='4'].landed")
    other.wait_for_selector("[data-square='4'].landed")  # the same update on the other tablet
    recruit = page.locator("form[data-count-form]:has(h2:has-text('Recruit'))")
    recruit.wait_for()
    assert page.locator("form h2:has-text('Invade')").count() == 0  # 9 infantry < garrison 10
    money = int(page.locator(".player.allies .money strong").inner_text())
    recruit.locator("[data-preset]:text-is('Tanks 1')").click()  # a quick pick fills the form
    recruit.locator("input[name=T] + [data-step='1']").click()
    assert recruit.locator("input[name=T]").input_value() == "2"
    recruit.locator("input[name=I] + [data-step='1']").click()
    assert recruit.locator("[data-limit='0'] output").inner_text() == "330"  # 50 + 2 × 140
    recruit.locator("button[type=submit]").click()
    page.wait_for_function(
        f"document.querySelector('.player.allies .money strong').textContent == '{money - 330}'")

    form = page.locator("form[data-count-form]:has(h2:has-text('Invade'))")
    form.wait_for()
    infantry = form.locator("input[name=I]")
    assert infantry.get_attribute("min") == "10"  # Belgium's neutral garrison
    infantry.fill("9")
    infantry.dispatch_event("input")
    assert form.locator("button[type=submit]").is_disabled()  # too weak: not even sent
    assert "unmet" in form.locator(".limit").get_attribute("class")
    form.locator("[data-step='1']").click()
    assert form.locator(".limit output").inner_text() == "10"  # invasion power vs the garrison
    assert not form.locator("button[type=submit]").is_disabled()
    page.screenshot(path=str(artifacts / "ava-invade.png"), full_page=True)
    form.locator("button[type=submit]").click()
    page.wait_for_selector("[data-square='4'].owned.allies")
    page.screenshot(path=str(artifacts / "ava-table.png"), full_page=True)
    page.click("#actions button:has-text('End turn')")
    page.wait_for_selector(".player.axis.current")
    phone = tablet(browser, server, "spectator", (390, 844))
    phone.goto(f"{server.base}/sessions/{snap['session']['id']}")
    assert phone.locator(".ring .sq").count() == 36
    assert phone.locator("#actions button").count() == 0  # a spectator acts on nothing
    phone.screenshot(path=str(artifacts / "ava-phone.png"), full_page=True)
    page.goto(f"{server.base}/sessions/{snap['session']['id']}/replay")
    page.wait_for_selector("#replay-board [data-square='4'].owned.allies")  # as it is now
    for _ in range(2):  # back over the end of the turn and the invasion
        page.click("#step-back")
    page.wait_for_selector("#replay-board [data-square='4']:not(.owned)")
    assert page.locator("#replay-board .piece.allies").count() == 1
    page.screenshot(path=str(artifacts / "ava-replay.png"), full_page=True)


def test_strategic_move_offer_counts_down_and_lapses(server: Server, browser: Any) -> None:
    """AVA-43..AVA-46 on a tablet: the offer's buttons, its 3-second countdown, no answer =
    declined by the session."""
    _, snap = server.post("/api/sessions", {"game": "ava", "seats": [
        {"name": "Ann", "camp": "allies"}, {"name": "Bob", "camp": "axis"}],
        "options": {"starting_money": 3000}})
    page = tablet(browser, server, "host")
    page.goto(f"{server.base}/sessions/{snap['session']['id']}")
    page.click("#actions button:has-text('Spin: 1')")
    page.wait_for_selector("#actions button:has-text('Move 1 forward ($M 1000)')")
    page.wait_for_selector("#deadline:has-text('No strategic move in')")
    page.wait_for_selector("#actions button:has-text('Move 1 forward')", state="detached",
                           timeout=10_000)  # the window closed without an answer
    page.wait_for_selector(".centre:has-text('Resolve the square')")
    assert page.inner_text("#deadline") == ""


def test_lobby_starts_ava_against_an_ai_with_an_option(server: Server, browser: Any,
                                                        artifacts: Path) -> None:
    page = tablet(browser, server, "host")
    page.select_option("select[name=game]", "ava")
    setup = "fieldset[data-game=ava]"
    assert page.is_hidden("fieldset[data-game=tally]")
    page.select_option(f"{setup} select[name=mode]", "regular")
    page.fill(f"{setup} [data-seat-row] >> nth=0 >> input[name=seat-name]", "Ann")
    page.select_option(f"{setup} [data-seat-row] >> nth=1 >> select[name=seat-ai]", "battleship")
    page.click(f"{setup} details.rule-options summary")
    page.select_option(f"{setup} [data-option=jail_limit]", label="5")
    page.screenshot(path=str(artifacts / "lobby-ava.png"), full_page=True)
    page.click("#new-session button[type=submit]")
    page.wait_for_url("**/sessions/*")
    record = server.get("/api/sessions/" + page.url.rsplit("/", 1)[1])["session"]
    assert record["options"] == {"jail_limit": 5}  # only what differs from the defaults
    assert [p.get("camp") for p in record["players"]] == ["allies", "axis"]
    assert record["players"][1]["ai"] == "battleship" and "ai" not in record["players"][0]
