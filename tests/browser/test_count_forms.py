"""What a person is entering on a tablet survives the redraw that every log entry brings (another
tablet's move, a reading): a half-filled count form keeps its node, values, totals, submit state
and focus while it is the same form (even in other words), gets what still fits when it changed,
gets it back when the server refused it, and starts afresh once sent; a reading's correction
form counts its total as it is typed."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.browser import tablet
from tests.support.server import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SETTLED = "!document.getElementById('table').hasAttribute('data-refreshing')"
"""No redraw under way (app.js marks the table while one is)."""


def settled(page: Any, entries: int) -> None:
    """Wait until the tablet has seen ``entries`` log entries and drawn the table after them
    (the entry's redraw is asked for in the same task that lists it in the feed)."""
    page.wait_for_function(f"document.querySelectorAll('#feed li').length >= {entries}"
                           f" && {SETTLED}", timeout=30_000)


def entry(page: Any, server: Server, path: str, body: dict[str, Any]) -> None:
    """Another client (the server's own, as the host) adds a log entry; wait until this tablet
    has drawn the table after it."""
    entries = page.locator("#feed li").count()
    status, reply = server.post(path, body)
    assert status == 200, reply
    settled(page, entries + 1)


def reading(command: dict[str, Any]) -> dict[str, Any]:
    """A typed reading that waits for a person: a log entry that changes nothing else."""
    return {"source": "typed", "command": command, "confidence": 0.5, "needs_review": True}


def shown(form: Any) -> dict[str, Any]:
    """What a count form shows: its values, running totals, unmet limits and submit state."""
    return form.evaluate("""form => ({
        values: Object.fromEntries([...form.querySelectorAll('input[type=number]')]
            .map(i => [i.name, i.value])),
        totals: [...form.querySelectorAll('[data-limit] output')].map(o => o.textContent),
        unmet: [...form.querySelectorAll('[data-limit].unmet')].map(l => l.dataset.limit),
        disabled: form.querySelector('button[type=submit]').disabled,
        kept: form.dataset.kept || null,
    })""")


def focused(form: Any) -> str | None:
    """The name of the focused input if it is in ``form``."""
    return form.evaluate("f => f.contains(document.activeElement) ? document.activeElement.name"
                         " : null")


def test_a_half_entered_recruit_survives_other_clients_entries(server: Server,
                                                              browser: Any) -> None:
    _, snap = server.post("/api/sessions", {"game": "ava", "seats": [
        {"name": "Ann", "camp": "allies"}, {"name": "Bob", "camp": "axis"}],
        "options": {"recruit_before_resolution": True}})
    sid = snap["session"]["id"]
    commands, readings = f"/api/sessions/{sid}/commands", f"/api/sessions/{sid}/readings"
    status, reply = server.post(commands, {"name": "spin", "args": {"value": 3}, "seat": 0,
                                           "state_id": snap["state_id"]})
    assert status == 200, reply  # the UK (1) + 3 = Belgium: recruit before resolving it
    page = tablet(browser, server, "host")
    page.goto(f"{server.base}/sessions/{sid}")
    settled(page, reply["last_seq"])
    recruit = page.locator("#actions form[data-count-form]:has(h2:has-text('Recruit'))")
    assert recruit.count() == 1
    recruit.evaluate("form => { form.dataset.kept = 'yes'; }")  # a new node would not have it
    before = shown(recruit)
    assert before["disabled"] and before["unmet"] == ["1"]  # no unit yet

    # a tank by the stepper, two infantry typed: the table is still drawn after others' entries
    recruit.locator("input[name=T] + [data-step='1']").click()
    recruit.locator("input[name=I]").fill("2")
    typed = {"values": {"I": "2", "T": "1", "P": "0", "B": "0"}, "totals": ["240", "3"],
             "unmet": [], "disabled": False, "kept": "yes"}
    assert shown(recruit) == typed
    entry(page, server, readings, reading({"name": "end_turn", "args": {}, "seat": 0}))
    page.wait_for_selector("#readings .reading[data-source=typed]")
    assert shown(recruit) == typed
    assert focused(recruit) == "I"  # the keyboard stays up

    # the same form in other words (its title, rewritten on the way here): the node, what is
    # typed and the focus stay, the words are the new ones
    def retitled(route: Any) -> None:
        view = route.fetch().json()
        view["actions"] = re.sub(r"<h2>([^<]*)</h2>", r"<h2>\1 (again)</h2>", view["actions"])
        route.fulfill(json=view)

    page.route(f"**/sessions/{sid}/view", retitled)
    entry(page, server, readings, reading({"name": "pass", "args": {}, "seat": 0}))
    page.unroute(f"**/sessions/{sid}/view")
    assert recruit.locator("h2").inner_text().endswith("(again)")
    assert shown(recruit) == typed
    assert focused(recruit) == "I"

    # too many planes to pay for: the unmet limit and the disabled submit survive too
    recruit.locator("input[name=P]").fill("3")
    over = {**typed, "values": {**typed["values"], "P": "3"}, "totals": ["900", "6"],
            "unmet": ["0"], "disabled": True}
    assert shown(recruit) == over
    waiting = page.get_attribute("#readings .reading[data-source=typed]", "data-reading")
    entry(page, server, f"{readings}/{waiting}/dismiss", {})  # (the later reading replaced
    assert page.locator("#readings .reading").count() == 0  # the first: one source, one reading)
    assert shown(recruit) == over
    assert focused(recruit) == "P"

    # the host recruits an infantry from elsewhere: less money, a changed form; what still fits
    # its ranges stays (3 planes no longer do), and typing goes on in the same input
    fresh = server.get(f"/api/sessions/{sid}")
    entry(page, server, commands, {"name": "recruit", "args": {"I": 1}, "seat": 0,
                                   "state_id": fresh["state_id"]})
    page.wait_for_selector("#actions form[data-count-form]:has(h2:has-text('Invade'))")
    assert shown(recruit) == {"values": {"I": "2", "T": "1", "P": "0", "B": "0"},
                              "totals": ["240", "3"], "unmet": [], "disabled": False,
                              "kept": None}
    assert "650" in recruit.locator("[data-limit='0']").inner_text()  # the money left
    assert recruit.locator("input[name=P]").get_attribute("max") == "2"
    assert focused(recruit) == "P"

    # the invasion calculator, too weak as typed: it stays so across another entry
    invade = page.locator("#actions form[data-count-form]:has(h2:has-text('Invade'))")
    invade.evaluate("form => { form.dataset.kept = 'yes'; }")
    invade.locator("input[name=I]").fill("9")
    weak = shown(invade)
    assert weak["values"]["I"] == "9" and weak["disabled"] and weak["unmet"] == ["0"]
    entry(page, server, readings, reading({"name": "pass", "args": {}, "seat": 0}))
    assert shown(invade) == weak
    assert shown(recruit)["values"] == {"I": "2", "T": "1", "P": "0", "B": "0"}

    # refused (as when another tablet was quicker): what was entered comes back into the form
    def refused(route: Any) -> None:
        route.fulfill(status=409, json={"error": {"code": "stale", "message": "Too late"}})

    page.route(f"**/api/sessions/{sid}/commands", refused)
    recruit.evaluate("form => { form.dataset.kept = 'sent'; }")
    recruit.locator("button[type=submit]").click()
    page.wait_for_function("document.getElementById('action-error').textContent === 'Too late'"
                           f" && {SETTLED} && !document.querySelector('form[data-kept=sent]')")
    page.unroute(f"**/api/sessions/{sid}/commands")  # (the sent form was drawn afresh)
    assert shown(recruit) == {"values": {"I": "2", "T": "1", "P": "0", "B": "0"},
                              "totals": ["240", "3"], "unmet": [], "disabled": False,
                              "kept": None}

    # sent: the recruit is made, and the form that comes back starts afresh
    money = int(page.locator(".player.allies .money strong").inner_text())
    recruit.locator("button[type=submit]").click()
    page.wait_for_function(
        f"document.querySelector('.player.allies .money strong').textContent == '{money - 240}'")
    page.wait_for_function(SETTLED)
    assert shown(recruit)["values"] == {"I": "0", "T": "0", "P": "0", "B": "0"}


def test_a_correction_counts_its_total_as_it_is_typed(server: Server, browser: Any) -> None:
    _, snap = server.post("/api/sessions", {"game": "cpx", "seats": [
        {"name": "Ann", "colour": "soviet", "camp": "A"},
        {"name": "Bob", "colour": "allies", "camp": "B"}]})
    sid = snap["session"]["id"]
    page = tablet(browser, server, "host")
    page.goto(f"{server.base}/sessions/{sid}")
    settled(page, snap["last_seq"])
    drop = {"name": "report_drop", "args": {"counts": {"red": 1, "black": 2}}}
    entry(page, server, f"/api/sessions/{sid}/readings", reading(drop))
    form = page.locator("#readings .reading[data-source=typed] .reading-form")
    total = form.locator(".reading-total")
    assert total.inner_text() == "Counted: 3"
    form.locator("input[name=red]").fill("4")
    assert total.inner_text() == "Counted: 6"
    form.locator("input[name=black]").select_text()
    page.keyboard.press("Backspace")  # emptied while typing: counts as none
    assert total.inner_text() == "Counted: 4"
    page.keyboard.type("5")
    assert total.inner_text() == "Counted: 9"
