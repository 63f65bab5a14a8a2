"""The dashboard shell in a real browser: join, start a session, act, two tablets update."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import tablet
from tests.support.server import TABLE_PIN, Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_lobby_new_session_and_live_update_on_two_tablets(
    server: Server, browser: Any, artifacts: Path
) -> None:
    host = tablet(browser, server, "host", artifacts=artifacts)
    assert host.inner_text("#table-pin") == TABLE_PIN  # the host screen shows the table PIN
    host.select_option("select[name=game]", "tally")
    setup = "fieldset[data-game=tally]"
    host.click(f"{setup} details.rule-options summary")
    assert host.input_value(f"{setup} [data-option=target]") == "21"  # defaults shown
    host.screenshot(path=str(artifacts / "lobby.png"), full_page=True)
    host.fill(f"{setup} [data-seat-row] >> nth=0 >> input[name=seat-name]", "Ann")
    host.fill(f"{setup} [data-seat-row] >> nth=1 >> input[name=seat-name]", "Bob")
    host.click("#new-session button[type=submit]")
    host.wait_for_url("**/sessions/*")
    session_url = host.url

    bob = tablet(browser, server, "player", (800, 1280))
    bob.goto(session_url)
    bob.click("[data-take-seat='1']")
    bob.wait_for_selector(".badge.mine")
    bob.wait_for_selector("#actions button:has-text('spin')")  # the table's spin: anyone may

    host.click("#actions button:has-text('spin {\"value\":3}')")
    # Bob's tablet sees the new entry live; Ann's moves are not offered to him
    bob.wait_for_selector("#feed li[data-seq='1']")
    assert "spin" in bob.inner_text("#feed li[data-seq='1']")
    bob.wait_for_function("document.querySelectorAll('#actions button').length === 0")
    host.wait_for_selector("#actions button:has-text('add')")
    host.screenshot(path=str(artifacts / "table.png"), full_page=True)

    watcher = tablet(browser, server, "spectator")
    watcher.goto(session_url)
    watcher.wait_for_selector("#feed li[data-seq='1']")
    assert watcher.locator("#actions button").count() == 0
    assert watcher.is_disabled("#undo")

    host.click("#undo")
    bob.wait_for_selector("#feed li[data-seq='2']")
    assert "undo" in bob.inner_text("#feed li[data-seq='2']")
    bob.wait_for_selector("#actions button:has-text('spin')")


def test_wrong_pin_and_bad_new_session_show_the_reason(server: Server, browser: Any) -> None:
    page = browser.new_context().new_page()
    page.goto(server.base + "/")
    page.fill("input[name=pin]", "0000")
    page.click("#join button[type=submit]")
    page.wait_for_selector("#join-error:not(:empty)")
    assert "PIN is not right" in page.inner_text("#join-error")
    page = tablet(browser, server, "host")
    page.select_option("select[name=game]", "tally")
    page.fill("fieldset[data-game=tally] [data-seat-row] >> nth=1 >> input[name=seat-name]", "")
    page.click("#new-session button[type=submit]")
    page.wait_for_selector("#new-session-error:not(:empty)")
    assert "played by 2" in page.inner_text("#new-session-error")


def test_seats_with_an_ai_and_edited_options(server: Server, browser: Any) -> None:
    page = tablet(browser, server, "host")
    page.select_option("select[name=game]", "tally")
    setup = "fieldset[data-game=tally]"
    page.fill(f"{setup} [data-seat-row] >> nth=0 >> input[name=seat-name]", "Ann")
    page.fill(f"{setup} [data-seat-row] >> nth=1 >> input[name=seat-name]", "Bot")
    page.select_option(f"{setup} [data-seat-row] >> nth=1 >> select[name=seat-ai]", "greedy")
    page.click(f"{setup} details.rule-options summary")
    page.fill(f"{setup} [data-option=target]", "40")
    page.fill(f"{setup} [data-option=window_s]", "null")
    page.click("#new-session button[type=submit]")
    page.wait_for_url("**/sessions/*")
    snapshot = server.get("/api/sessions/" + page.url.rsplit("/", 1)[1])
    assert snapshot["session"]["players"][1] == {"name": "Bot", "ai": "greedy"}
    assert snapshot["session"]["options"] == {"target": 40, "window_s": None}


def test_language_switch_per_tablet(server: Server, browser: Any, artifacts: Path) -> None:
    page = tablet(browser, server, "host")
    page.click("nav.languages a[lang='zh-Hans']")
    page.wait_for_selector("h1:has-text('新对局')")
    page.screenshot(path=str(artifacts / "lobby-zh-Hans.png"), full_page=True)
    other = tablet(browser, server, "spectator")  # another tablet keeps its own language
    assert other.inner_text("h1 >> nth=0") == "Sessions"
    page.click("nav.languages a[lang='zh-Hant']")
    page.wait_for_selector("h1:has-text('對局')")


def test_replay_scrub(server: Server, browser: Any, artifacts: Path) -> None:
    _, snap = server.post("/api/sessions", {"game": "tally", "seats": [
        {"name": "Ann"}, {"name": "Bob"}], "options": {"window_s": None}})
    sid, state_id = snap["session"]["id"], 0
    for body in ({"name": "spin", "args": {"value": 2}}, {"name": "add", "args": {"n": 3},
                 "seat": 0}, {"name": "decline", "args": {}, "seat": 0}):
        _, reply = server.post(f"/api/sessions/{sid}/commands", {**body, "state_id": state_id})
        state_id = reply["state_id"]
    page = tablet(browser, server, "spectator")
    page.goto(f"{server.base}/sessions/{sid}/replay")
    page.wait_for_function("document.getElementById('replay').dataset.shownSeq === '3'")
    assert '"turn": 1' in page.inner_text("#replay-board")
    page.click("#step-back")
    page.click("#step-back")
    page.wait_for_function("document.getElementById('replay').dataset.shownSeq === '1'")
    assert '"total": 0' in page.inner_text("#replay-board")
    page.click("#timeline li[data-index='2']")
    page.wait_for_function("document.getElementById('replay').dataset.shownSeq === '2'")
    assert '"total": 3' in page.inner_text("#replay-board")
    assert page.locator(".plot-box[data-metric='total']").count() == 1
    page.screenshot(path=str(artifacts / "replay.png"), full_page=True)


def test_host_screen_qr_code_joins_a_tablet(server: Server, browser: Any,
                                           artifacts: Path) -> None:
    host = tablet(browser, server, "host")
    host.click("a.pin")
    host.wait_for_selector("#join-qr svg")
    host.screenshot(path=str(artifacts / "host.png"), full_page=True)
    page = browser.new_context().new_page()
    page.goto(f"{server.base}/#pin={TABLE_PIN}")  # what the QR code opens
    assert page.input_value("input[name=pin]") == TABLE_PIN
    page.click("#join button[type=submit]")
    page.wait_for_selector("#role[data-role=player]")


def test_simulated_spinner_and_confirming_a_doubtful_reading(server: Server, browser: Any,
                                                              artifacts: Path) -> None:
    _, snap = server.post("/api/sessions", {"game": "tally", "seats": [
        {"name": "Ann"}, {"name": "Bob"}], "options": {"window_s": None}})
    sid = snap["session"]["id"]
    page = tablet(browser, server, "host")
    page.goto(f"{server.base}/sessions/{sid}")
    page.click("#simulate")  # the physical model flicks the spinner on mock pins
    page.wait_for_selector("#feed li:has-text('spinner')", timeout=30_000)
    entries = server.get(f"/api/sessions/{sid}/entries")
    reading = entries[0]["payload"]
    assert entries[0]["actor"] == "spinner" and 1 <= reading["command"]["args"]["value"] <= 6
    if reading["needs_review"]:  # stopped on an edge: a person says which
        page.click("#readings button:has-text('Confirm')")
    page.wait_for_function(
        "document.querySelectorAll('#actions button').length === 3")  # now seat 0 adds
    # a doubtful typed reading waits for confirmation
    page.click("#actions button:has-text('add {\"n\":2}')")
    page.click("#actions button:has-text('decline')")
    page.fill("#typed-reading input[name=name]", "spin")
    page.fill("#typed-reading input[name=args]", '{"value": 5}')
    page.check("#typed-reading input[name=needs_review]")
    page.click("#typed-reading button[type=submit]")
    page.wait_for_selector("#readings .reading")
    page.screenshot(path=str(artifacts / "reading.png"), full_page=True)
    page.click("#readings button:has-text('Confirm')")
    page.wait_for_selector("#actions button:has-text('add')")
    assert server.get(f"/api/sessions/{sid}")["state"]["spin"] == 5


def test_host_calibrates_the_spinner_from_the_dashboard(server: Server, browser: Any) -> None:
    host = tablet(browser, server, "host")
    host.goto(server.base + "/host")
    host.click("#calibrate-spinner")
    host.wait_for_selector("#calibrate-result:has-text('offset_steps')", timeout=30_000)
    assert "offset_steps = " in server.config.read_text()  # stored in the config file


def test_export_then_import_from_the_lobby(server: Server, browser: Any, tmp_path: Path) -> None:
    _, snap = server.post("/api/sessions", {"game": "tally", "seats": [
        {"name": "Ann"}, {"name": "Bob"}]})
    sid = snap["session"]["id"]
    page = tablet(browser, server, "host")
    page.goto(f"{server.base}/sessions/{sid}")
    with page.expect_download() as download:
        page.click("#export")
    archive = tmp_path / "session.zip"
    download.value.save_as(archive)
    page.goto(server.base + "/")
    page.set_input_files("#import-session input[name=archive]", str(archive))
    page.click("#import-session button[type=submit]")  # the same table: it is already here
    page.wait_for_selector("#import-error:not(:empty)")
    assert "already" in page.inner_text("#import-error")


def test_a_change_between_the_two_answers_of_a_redraw_is_not_drawn_half(
    server: Server, browser: Any
) -> None:
    """A redraw asks for the session and for its drawn parts at once; when a change lands between
    the two answers, the tablet asks again rather than draw the newer board and buttons under
    the older state id (a tap on them would be sent as made on the older state)."""
    _, snap = server.post("/api/sessions", {"game": "cpx", "seed": 3, "seats": [
        {"name": "Ann", "colour": "soviet", "camp": "A"},
        {"name": "Bob", "colour": "allies", "camp": "B"}]})
    sid = snap["session"]["id"]
    page = tablet(browser, server, "host")
    page.goto(f"{server.base}/sessions/{sid}")
    page.wait_for_selector("#actions button:has-text('Start at Moscow')")
    page.evaluate("""() => {
        const table = document.getElementById('table');
        window.drawn = [];
        new MutationObserver(() => window.drawn.push([table.dataset.stateId,
            !!document.querySelector('[data-base=moscow].owned')]))
          .observe(document.getElementById('board'), { childList: true });
    }""")
    older = page.evaluate(f"fetch('/api/sessions/{sid}').then(r => r.json())")
    answered: list[int] = []

    def older_once(route: Any) -> None:  # the session's answer from before the change, once
        if answered:
            route.continue_()
        else:
            answered.append(1)
            route.fulfill(json=older)

    page.route(f"**/api/sessions/{sid}", older_once)
    status, reply = server.post(f"/api/sessions/{sid}/commands", {
        "name": "choose_start", "args": {"base": "moscow"}, "seat": 0,
        "state_id": older["state_id"]})
    assert status == 200, reply
    page.wait_for_function("window.drawn.some(([_, owned]) => owned)"
                           " && !document.getElementById('table').hasAttribute('data-refreshing')")
    page.unroute(f"**/api/sessions/{sid}")
    drawn = page.evaluate("window.drawn")
    assert answered
    assert all(owned == (state_id == str(reply["state_id"])) for state_id, owned in drawn), drawn
    assert page.get_attribute("#table", "data-state-id") == str(reply["state_id"])
