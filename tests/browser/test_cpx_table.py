"""Command Post Exercise on a tablet (issue 7): two rounds on the world map in a real browser:
base choice, the priming drop's photo and counts, hand choice, recruitment, attacks with their
odds, the battle's drop read by the (simulated) camera, a tower-count correction through the
readings form, the battle resolved, and a spectator's phone. Rules seen on the screen: CPX-26
(the recruitment cells usable this round), CPX-36, CPX-38 (priming), CPX-46 (hands), CPX-56
(attacks on offer), CPX-91 (unowned bases taken), CPX-106 (a drop's counts, corrected)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import tablet
from tests.support.server import Server, write_config

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def cpx_server(tmp_path: Path) -> Iterator[Server]:
    """The ``server`` fixture's real server in simulation, except that every reading waits for
    a person (the camera's sure readings would otherwise be applied at once)."""
    config = write_config(tmp_path, tmp_path / "c.db")
    config.write_text(config.read_text(encoding="utf-8") + "[readings]\nauto_accept = false\n",
                      encoding="utf-8")
    s = Server(config).start(timeout=60)
    yield s
    s.stop()


def state_id(page: Any) -> str:
    return page.get_attribute("#table", "data-state-id")


def click(page: Any, selector: str) -> None:
    """Press a button and wait until the table has moved on (a new state drawn)."""
    before = state_id(page)
    page.evaluate("document.querySelectorAll('#actions details').forEach(d => { d.open = true; })")
    page.locator(selector).first.click()
    page.wait_for_function(
        f"document.getElementById('table').dataset.stateId !== '{before}'", timeout=30_000)


def confirm_reading(page: Any) -> None:
    """Confirm the waiting reading. The readings panel is redrawn on every log entry, so under
    load a tap can land on a panel that is being replaced; confirming again is safe (a reading
    is applied once, a second confirm is refused), so tap while it still waits."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    before = state_id(page)
    moved = f"document.getElementById('table').dataset.stateId !== '{before}'"
    button = page.locator("#readings .reading button:has-text('Confirm')")
    for _ in range(3):
        if button.count():
            button.first.click()
        try:
            page.wait_for_function(moved, timeout=10_000)
            return
        except PlaywrightTimeout:
            continue
    page.wait_for_function(moved, timeout=10_000)


def action(text: str) -> str:
    return f"#actions button[data-command]:has-text('{text}')"


def phase(page: Any) -> str:
    return page.get_attribute("#board .cpx", "data-phase")


def choose_hands(page: Any, artifacts: Path | None = None) -> None:
    """Each seat takes the listed hand (all its cards, at most 5), one seat after the other."""
    if artifacts is not None:
        page.screenshot(path=str(artifacts / "cpx-hands.png"), full_page=True)
    while phase(page) == "hand_choice":
        click(page, action("Hand:"))


def drop_with_camera(page: Any) -> Any:
    """The simulated player drops the cubes; the camera's reading waits with its photo."""
    page.click("#simulate")
    reading = page.locator("#readings .reading[data-source=tower]")
    reading.wait_for(timeout=30_000)
    img = reading.locator(".reading-photo img")
    img.wait_for()
    page.wait_for_function(
        "document.querySelector('#readings .reading-photo img').naturalWidth > 0")
    return reading


def pass_window(page: Any) -> None:
    """Every seat passes the window (nobody plays a card now)."""
    while page.locator(action("Pass")).count() and phase(page) == "battle":
        click(page, action("Pass"))


def test_cpx_round_on_the_map(cpx_server: Server, browser: Any, artifacts: Path) -> None:
    server = cpx_server
    _, snap = server.post("/api/sessions", {"game": "cpx", "seats": [
        {"name": "Ann", "colour": "soviet", "camp": "A"},
        {"name": "Bob", "colour": "allies", "camp": "B"}]})
    sid = snap["session"]["id"]
    page = tablet(browser, server, "host", (1280, 800))
    page.goto(f"{server.base}/sessions/{sid}")

    # the world map: 50 bases at the data's places, routes in their colours
    assert page.locator(".cpx-map g.base").count() == 50
    for colour in ("yellow", "blue", "pink"):
        assert page.locator(f".cpx-map line.route.{colour}").count() > 5
    assert page.locator(".cpx-player").count() == 2

    # base choice: the Soviet Union first, then the Allies
    assert page.locator(action("Start at")).count() == 3  # Leningrad, Moscow, Stalingrad
    page.screenshot(path=str(artifacts / "cpx-start.png"), full_page=True)
    click(page, action("Start at Moscow"))
    click(page, action("Start at New York"))
    assert "owned red" in page.get_attribute("[data-base=moscow]", "class")
    assert page.locator("[data-base-units=moscow] .unit.red text").text_content() == "3"
    assert page.locator(".cpx-player[data-seat='0'] .base-count strong").inner_text() == "1"

    # the priming drop: the camera's photo and counts, confirmed as read
    assert phase(page) == "priming"
    assert page.locator(".drop-panel[data-drop=awaited]").count() == 1
    reading = drop_with_camera(page)
    inputs = reading.locator(".reading-form input[type=number]")
    assert inputs.count() >= 4  # a number per colour, not JSON
    assert "beam" in reading.locator("p").first.inner_text().lower()
    page.screenshot(path=str(artifacts / "cpx-priming-photo.png"), full_page=True)
    confirm_reading(page)
    page.wait_for_selector(".drop-panel[data-drop=reported]")
    tower_before = int(page.locator(".tower-panel h2 .muted").inner_text().strip("()"))
    click(page, action("Confirm the drop"))
    tower_after = int(page.locator(".tower-panel h2 .muted").inner_text().strip("()"))
    assert tower_before == 0 and tower_after > 0  # what stayed inside is in the ledger

    # hand choice and recruitment
    assert phase(page) == "hand_choice"
    assert page.locator("#actions form[data-count-form]").count() == 2  # any hand, per seat
    choose_hands(page, artifacts)
    assert phase(page) == "recruit"
    assert page.locator(".cpx-player[data-seat='0'] .cell.next").count() == 1
    assert page.locator(".cpx-player[data-seat='0'] .hand .base-card").count() == 1
    assert page.locator(".cpx-player[data-seat='0'] .hand .ability").count() == 2
    page.screenshot(path=str(artifacts / "cpx-recruit.png"), full_page=True)
    click(page, action("Recruit 3 on Moscow"))
    click(page, action("Recruit 3 on New York"))

    # moves: both attack unowned bases, with the odds on the buttons and in the board
    assert phase(page) == "move"
    assert page.locator(".odds-panel").count() == 1
    label = page.locator(action("Attack Berlin from Moscow with 5")).first.text_content()
    assert re.search(r"win \d+%", label), label
    page.screenshot(path=str(artifacts / "cpx-attack-offer.png"), full_page=True)
    click(page, action("Attack Berlin from Moscow with 5"))
    assert page.locator(".cpx-map .attack-arrow").count() == 1
    click(page, action("End my moves"))
    click(page, action("Attack London from New York with 5"))
    click(page, action("End my moves"))
    # the battle phase takes both unowned bases; the round ends and the next one starts
    page.wait_for_selector("[data-base=berlin].owned.red")
    page.wait_for_selector("[data-base=london].owned.blue")
    assert phase(page) == "hand_choice"
    assert "2" in page.locator(".cpx-status .cpx-phase").inner_text()

    # round 2: the Soviets attack London by air with the Kirov Airship
    choose_hands(page)
    click(page, action("Recruit 3 on Moscow"))
    click(page, action("Recruit 3 on London"))
    attack = action("Attack London from Moscow with 3")
    label = page.locator(attack).first.text_content()
    assert "Kirov Airship" in label and re.search(r"win \d+%", label), label
    click(page, attack)
    click(page, action("End my moves"))
    click(page, action("End my moves"))
    assert phase(page) == "battle"
    assert "battlefield" in page.get_attribute("[data-base=london]", "class")
    assert page.locator(".battle-panel").count() == 1
    pass_window(page)

    # the battle's drop: photo, counts by colour, beam count; one count corrected
    reading = drop_with_camera(page)
    page.screenshot(path=str(artifacts / "cpx-drop-reading.png"), full_page=True)
    form = reading.locator(".reading-form")
    values = {i.get_attribute("name"): int(i.input_value())
              for i in form.locator("input[type=number]").all()}
    colour = next(c for c, n in values.items() if n > 0)
    corrected = {**values, colour: values[colour] - 1}
    form.locator(f"input[name={colour}]").fill(str(corrected[colour]))
    before = state_id(page)
    form.locator("button[type=submit]").click()
    page.wait_for_function(f"document.getElementById('table').dataset.stateId !== '{before}'",
                           timeout=30_000)
    page.wait_for_selector(".drop-panel[data-drop=reported]")
    assert page.locator("#readings .reading").count() == 0
    shown = page.locator(f".drop-panel .cube-count[data-colour={colour}] strong").inner_text() \
        if corrected[colour] else "0"
    assert int(shown) == corrected[colour]
    state = server.get(f"/api/sessions/{sid}")["state"]
    assert state["drop"]["report"] == {c: n for c, n in corrected.items() if n}
    page.screenshot(path=str(artifacts / "cpx-drop-corrected.png"), full_page=True)
    click(page, action("Confirm the drop"))

    # after the drop: pass, answer the question of which cubes stay if asked, and done
    for _ in range(12):
        if phase(page) != "battle":
            break
        if page.locator(action("Pass")).count():
            click(page, action("Pass"))
        elif page.locator(action("Keep")).count():
            click(page, action("Keep"))
        else:
            pytest.fail("the battle waits for something the test does not know: "
                        + page.locator("#actions").inner_text())
    assert phase(page) == "hand_choice"
    assert "3" in page.locator(".cpx-status .cpx-phase").inner_text()
    owner = page.get_attribute("[data-base=london]", "class")
    assert "owned" in owner and "battlefield" not in owner
    page.screenshot(path=str(artifacts / "cpx-table.png"), full_page=True)

    # the same table in Simplified Chinese: the data's own names on the map
    page.goto(f"{server.base}/language/zh_Hans?next=/sessions/{sid}")
    page.wait_for_selector(".cpx-map")
    assert page.locator("[data-base=london] text.name").text_content() == "伦敦"
    page.screenshot(path=str(artifacts / "cpx-zh.png"), full_page=True)

    # a spectator's phone: the map and the panels, no buttons, no hidden hands
    phone = tablet(browser, server, "spectator", (390, 844))
    phone.goto(f"{server.base}/sessions/{sid}")
    phone.wait_for_selector(".cpx-map")
    assert phone.locator(".cpx-map g.base").count() == 50
    assert phone.locator("#actions button").count() == 0
    assert phone.locator(".cpx-player .hand .base-card").count() == 0
    # the board fits the phone's width: the map scrolls sideways inside it
    assert phone.evaluate("document.querySelector('#board').getBoundingClientRect().right") <= 390
    assert phone.evaluate("(() => { const w = document.querySelector('.cpx-map-wrap');"
                          " return w.scrollWidth > w.clientWidth; })()")
    phone.screenshot(path=str(artifacts / "cpx-phone.png"), full_page=True)
