"""The Command Post Exercise map on a 10" touch tablet (1280 × 800, landscape): zoom with the
buttons, a pinch and a drag (real touch input through Chromium's DevTools protocol), a region
preset, a tap on a base that filters the attacks and the odds, and a correction half-typed in
the readings panel, each kept across the redraws that every log entry brings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import tablet
from tests.support.server import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STARTS = {"moscow", "new_york"}


def to_the_moves(server: Server, sid: str) -> dict[str, Any]:
    """Through the API: Moscow and New York, the priming drop (nothing fell out), the listed
    hands and recruits, up to the Soviets' first move turn."""
    for _ in range(30):
        snap: dict[str, Any] = server.get(f"/api/sessions/{sid}")
        if snap["state"]["phase"] == "move":
            return snap
        legal = snap["legal"]
        pick = next((c for c in legal if c["name"] == "choose_start"
                     and c["args"]["base"] in STARTS), None)
        pick = pick or next((c for c in legal
                             if c["name"] in ("confirm_drop", "choose_hand", "recruit")), None)
        if pick is None and any(f["name"] == "report_drop" for f in snap["forms"]):
            pick = {"name": "report_drop", "args": {"counts": {}}}
        assert pick is not None, snap["state"]["phase"]
        status, reply = server.post(f"/api/sessions/{sid}/commands",
                                    {**pick, "state_id": snap["state_id"]})
        assert status == 200, reply
    pytest.fail("no move turn after 30 commands")


VIEWBOX = "document.querySelector('.cpx-map').getAttribute('viewBox').split(' ').map(Number)"


def viewbox(page: Any) -> list[float]:
    return [float(v) for v in page.get_attribute(".cpx-map", "viewBox").split()]


SETTLED = "!document.getElementById('table').hasAttribute('data-refreshing')"
"""No redraw under way (app.js marks the table while one is)."""


def settled(page: Any, entries: int) -> None:
    """Wait until the tablet has seen ``entries`` log entries and drawn the table after them."""
    page.wait_for_function(f"document.querySelectorAll('#feed li').length >= {entries}"
                           f" && {SETTLED}", timeout=30_000)


def redrawn(page: Any, server: Server, path: str, body: dict[str, Any], then: str) -> None:
    """Add a log entry through the API (POST ``body`` to ``path``), and wait until the table
    has drawn the board again (a new fragment), ``then`` holds and no redraw is under way."""
    page.evaluate("window.oldBoard = document.querySelector('#board .cpx')")
    entries = page.locator("#feed li").count()
    status, reply = server.post(path, body)
    assert status == 200, reply
    page.wait_for_function("document.querySelector('#board .cpx') !== window.oldBoard"
                           f" && ({then})", timeout=30_000)
    settled(page, entries + 1)


def reading(source: str, command: dict[str, Any]) -> dict[str, Any]:
    return {"source": source, "command": command, "confidence": 0.5, "needs_review": True}


def touches(cdp: Any, kind: str, points: list[tuple[float, float]]) -> None:
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [
        {"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})


def attack_buttons(page: Any, hidden: bool) -> list[str]:
    """The ``data-bases`` of the attack buttons that are shown (or hidden)."""
    return page.evaluate(
        "(hidden) => [...document.querySelectorAll('#actions button[data-command]')]"
        ".filter(b => JSON.parse(b.dataset.command).name === 'attack' && b.hidden === hidden)"
        ".map(b => b.dataset.bases)", hidden)


def test_cpx_map_zoom_tap_filter_and_readings_on_a_tablet(server: Server, browser: Any,
                                                          artifacts: Path) -> None:
    _, snap = server.post("/api/sessions", {"game": "cpx", "seats": [
        {"name": "Ann", "colour": "soviet", "camp": "A"},
        {"name": "Bob", "colour": "allies", "camp": "B"}]})
    sid = snap["session"]["id"]
    snap = to_the_moves(server, sid)
    page = tablet(browser, server, "host", (1280, 800), touch=True)
    page.goto(f"{server.base}/sessions/{sid}")
    settled(page, snap["last_seq"])  # the page load replays the log: redrawn once or twice
    readings = f"/api/sessions/{sid}/readings"
    full = viewbox(page)
    for selector in ("[data-zoom=in]", "[data-zoom=out]", "[data-zoom=reset]"):
        box = page.locator(selector).bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, selector  # finger-sized
    assert page.locator("[data-zoom=out]").is_disabled()  # nothing to zoom out of yet

    # + zooms in about the centre; the view survives the redraw after a log entry. (Buttons
    # are clicked: under load a tap's touchstart and touchend can arrive a long press apart,
    # and a long press makes no click. The map itself gets real touches below.)
    page.click("[data-zoom=in]")
    page.wait_for_function(f"{VIEWBOX}[2] < {full[2] - 1}")
    zoomed = viewbox(page)
    assert zoomed[2] == pytest.approx(full[2] / 1.5, abs=0.2)
    assert zoomed[2] / zoomed[3] == pytest.approx(full[2] / full[3], rel=0.01)  # same shape
    assert page.locator("[data-zoom=out]").is_enabled()
    drop = {"name": "report_drop", "args": {"counts": {"red": 1, "black": 2}}}
    redrawn(page, server, readings, reading("typed", drop),
            "document.querySelector('#readings .reading[data-source=typed]')")
    assert viewbox(page) == zoomed

    # a pinch zooms in further, a drag pans: real touches through the browser's input
    cdp = page.context.new_cdp_session(page)
    box = page.locator(".cpx-map").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    touches(cdp, "touchStart", [(cx - 60, cy), (cx + 60, cy)])
    for step in range(1, 6):
        touches(cdp, "touchMove", [(cx - 60 - 16 * step, cy), (cx + 60 + 16 * step, cy)])
    touches(cdp, "touchEnd", [])
    expected = zoomed[2] * 120 / 280  # the fingers went from 120 to 280 px apart
    page.wait_for_function(f"Math.abs({VIEWBOX}[2] - {expected}) < 1")
    pinched = viewbox(page)
    assert pinched[2] / pinched[3] == pytest.approx(full[2] / full[3], rel=0.01)
    touches(cdp, "touchStart", [(cx, cy)])
    for step in range(1, 6):
        touches(cdp, "touchMove", [(cx - 20 * step, cy)])
    touches(cdp, "touchEnd", [])
    expected = pinched[0] + 100 * pinched[2] / box["width"]  # 100 px to the left, in map units
    page.wait_for_function(f"Math.abs({VIEWBOX}[0] - {expected}) < 1")
    dragged = viewbox(page)
    assert dragged[1:] == pinched[1:]  # the same size and height: a sideways drag pans only

    # a correction half-typed in the readings panel survives the redraws (here: another
    # source's reading arrives, and later one is dismissed)
    typed = page.locator("#readings .reading[data-source=typed]")
    typed.evaluate("node => { node.dataset.kept = 'yes'; }")  # a rebuilt node would not have it
    typed.locator("input[name=red]").fill("4")
    redrawn(page, server, readings, reading("scale", {"name": "end_move", "args": {}, "seat": 0}),
            "document.querySelector('#readings .reading[data-source=scale]')")
    assert typed.locator("input[name=red]").input_value() == "4"
    assert typed.get_attribute("data-kept") == "yes"
    assert page.evaluate("document.activeElement.name") == "red"  # the keyboard stays up
    assert viewbox(page) == dragged

    # Europe's preset, then a tap on Berlin: only the attacks on it, and its odds
    page.click("[data-region=europe]")
    page.wait_for_selector("[data-region=europe][aria-pressed=true]")
    europe = [float(v) for v in page.get_attribute("[data-region=europe]",
                                                   "data-zoom-to").split()]
    assert viewbox(page) == pytest.approx(europe, abs=0.1)
    everything = len(attack_buttons(page, hidden=False))
    assert everything == 20 and all("moscow" in b.split() for b in attack_buttons(page, False))
    page.tap("[data-base=berlin] .dot")
    page.wait_for_selector("[data-base=berlin].selected")
    shown, hidden = attack_buttons(page, hidden=False), attack_buttons(page, hidden=True)
    assert shown and hidden and len(shown) + len(hidden) == everything
    assert all(b.split() == ["moscow", "berlin"] for b in shown)
    assert page.locator("#actions details[data-group=attack]").get_attribute("open") is not None
    count = page.locator("#actions details[data-group=attack] .group-count").inner_text()
    assert count == f"{len(shown)}/{everything}"
    assert page.locator(".base-filter").inner_text().count("Berlin") == 1
    assert page.locator("#actions button:has-text('End my moves')").is_visible()  # names none
    assert "related" in page.get_attribute("[data-base=moscow]", "class")
    rows = page.locator(".odds tr[data-bases]")
    assert all(("berlin" in r.get_attribute("data-bases")) != r.is_hidden() for r in rows.all())
    page.screenshot(path=str(artifacts / "cpx-map-zoomed.png"), full_page=True)

    # the zoom, the base, the filter and the correction survive the next redraw too
    scale = page.get_attribute("#readings .reading[data-source=scale]", "data-reading")
    redrawn(page, server, f"{readings}/{scale}/dismiss", {},
            "!document.querySelector('#readings .reading[data-source=scale]')")
    assert viewbox(page) == pytest.approx(europe, abs=0.1)
    assert "selected" in page.get_attribute("[data-base=berlin]", "class")
    assert attack_buttons(page, hidden=False) == shown
    assert typed.locator("input[name=red]").input_value() == "4"

    # a second tap on Berlin shows everything again; so does "Show all"
    page.tap("[data-base=berlin] .dot")
    page.wait_for_function("!document.querySelector('.cpx-map .base.selected')")
    assert len(attack_buttons(page, hidden=False)) == everything
    assert page.locator(".base-filter").count() == 0
    assert page.locator("#actions details[data-group=attack]").get_attribute("open") is None
    page.tap("[data-base=berlin] .dot")
    page.wait_for_selector(".base-filter")
    page.click(".base-filter button")
    page.wait_for_function("!document.querySelector('.cpx-map .base.selected')")
    assert len(attack_buttons(page, hidden=False)) == everything

    # the whole map again
    page.click("[data-zoom=reset]")
    page.wait_for_selector("[data-zoom=reset]:disabled")
    assert viewbox(page) == full
