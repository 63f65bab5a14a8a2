"""Three languages, switchable per tablet, and no hard-coded strings in the templates."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.session import SessionService
from tests.integration.test_api import PINS, joined
from web_ui import create_app, i18n

TEMPLATES = Path(i18n.__file__).parent / "templates"
CODE_TOKENS = {"spin", "{}"}  # command-name examples in inputs, not prose


@pytest.fixture
def app(service: SessionService) -> Flask:
    return create_app(service, simulate=True, pins=PINS)


@pytest.mark.parametrize("lang", ["zh_Hans", "zh_Hant"])
def test_every_string_is_translated_and_compiled(lang: str) -> None:
    assert i18n.missing(lang) == []
    mo = i18n.TRANSLATIONS / lang / "LC_MESSAGES" / "messages.mo"
    assert mo.read_bytes() == i18n.compiled(lang), "run: python -m web_ui.i18n compile"


def test_templates_have_no_hard_coded_text() -> None:
    problems = []
    for template in TEMPLATES.glob("*.html"):
        text = template.read_text(encoding="utf-8")
        text = re.sub(r"{#.*?#}|{%.*?%}|{{.*?}}", " ", text, flags=re.S)
        text = re.sub(r"<script.*?</script>", " ", text, flags=re.S)
        for attribute in re.findall(r'(?:title|placeholder|aria-label|alt)="([^"]*)"', text):
            if re.search(r"[A-Za-z]", attribute) and attribute not in CODE_TOKENS:
                problems.append(f"{template.name}: attribute text {attribute!r}")
        visible = re.sub(r"<[^>]*>", " ", text)
        for word in visible.split():
            if re.search(r"[A-Za-z]", word) and word not in CODE_TOKENS:
                problems.append(f"{template.name}: text {word!r}")
    assert problems == []


def test_language_follows_the_browser_then_the_tablets_choice(app: Flask) -> None:
    client = app.test_client()
    assert "Join the table" in client.get("/").text
    assert "加入牌桌" in client.get("/", headers={"Accept-Language": "zh-CN,zh;q=0.9"}).text
    page = client.get("/", headers={"Accept-Language": "zh-TW"}).text
    assert "密碼" in page and 'lang="zh-Hant"' in page
    reply = client.get("/language/zh_Hans?next=/sessions/x")
    assert reply.status_code == 302 and reply.headers["Location"].endswith("/sessions/x")
    page = client.get("/", headers={"Accept-Language": "en"}).text
    assert "密码" in page  # the tablet's choice wins over its browser
    assert client.get("/language/en?next=https://evil.example/").headers["Location"] == "/"


def test_page_scripts_get_their_strings_translated(app: Flask) -> None:
    client: FlaskClient = joined(app.test_client())
    client.get("/language/zh_Hant")
    page = client.get("/").text
    found = re.search(r'<script type="application/json" id="strings">(.*?)</script>', page, re.S)
    assert found is not None
    strings = json.loads(found.group(1))
    assert strings["confirm"] == "確認" and strings["undo_of"] == "撤銷"


def test_rule_errors_in_the_tablets_language(app: Flask) -> None:
    """A refusal reads in the tablet's language; the English particulars stay in the details."""
    client: FlaskClient = joined(app.test_client())
    created = client.post("/api/sessions", json={"game": "ava", "seats": [
        {"name": "Ann", "camp": "allies"}, {"name": "Bob", "camp": "axis"}]}).json
    sid, state_id = created["session"]["id"], created["state_id"]
    bad = {"name": "end_turn", "args": {}, "seat": 0, "state_id": state_id}
    english = client.post(f"/api/sessions/{sid}/commands", json=bad).json["error"]
    client.get("/language/zh_Hant")
    chinese = client.post(f"/api/sessions/{sid}/commands", json=bad).json["error"]
    assert chinese["code"] == english["code"]
    assert chinese["message"] != english["message"]
    assert re.search(r"[\u4e00-\u9fff]", chinese["message"])
    assert chinese["details"]["message_en"] == english["message"]
    client.get("/language/zh_Hans")
    join = client.post("/api/join", json={"pin": "0000", "role": "player"}).json["error"]
    assert join["message"] == "PIN 码不正确。"
