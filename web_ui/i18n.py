"""Languages of the dashboard: English, Simplified and Traditional Chinese, chosen per tablet.

A tablet's choice is a cookie; without one, its browser's languages decide. The catalogues are
``translations/<lang>/LC_MESSAGES/messages.po`` with their compiled ``.mo`` beside them.
Maintenance: ``python -m web_ui.i18n check`` lists strings that lack a translation, and
``python -m web_ui.i18n compile`` rebuilds every ``.mo`` from its ``.po``.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from flask import Flask, request
from flask_babel import Babel, gettext

LANGUAGES = {"en": "English", "zh_Hans": "简体中文", "zh_Hant": "繁體中文"}
COOKIE = "tc_lang"
HERE = Path(__file__).parent
TRANSLATIONS = HERE / "translations"

# Browser language tags that mean one of ours.
_ALIASES = {
    "zh-hans": "zh_Hans", "zh-cn": "zh_Hans", "zh-sg": "zh_Hans", "zh": "zh_Hans",
    "zh-hant": "zh_Hant", "zh-tw": "zh_Hant", "zh-hk": "zh_Hant", "zh-mo": "zh_Hant",
    "en": "en",
}

# Strings the page scripts show, translated on the server and handed to the script as JSON.
SCRIPT_STRINGS = {
    "to_act": "To act: seat",
    "waiting": "Waiting for the table",
    "game_over": "Game over:",
    "no_reading": "No reading waiting.",
    "confirm": "Confirm",
    "correct": "Correct",
    "dismiss": "Dismiss",
    "confidence": "confidence",
    "corrected_args": "Corrected arguments (JSON)",
    "table": "table",
    "seat": "seat",
    "undo_of": "undo of",
    "reading_from": "reading from",
    "needs_review": "needs review",
    "dismissed": "dismissed",
    "bad_options": "Rule options are not valid JSON:",
    "in_seconds": "in",
    "calibrated": "Calibrated",
    "only_base": "Only the moves that name this base:",
    "show_all": "Show all",
}


def choose_language() -> str:
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    for tag, _quality in request.accept_languages:
        tag = tag.lower()
        match = _ALIASES.get(tag) or _ALIASES.get(tag.split("-")[0])
        if match:
            return match
    return "en"


def install(app: Flask) -> None:
    Babel(app, locale_selector=choose_language,
          default_translation_directories=str(TRANSLATIONS))

    @app.context_processor
    def _languages() -> dict[str, object]:
        return {
            "languages": LANGUAGES,
            "language": choose_language(),
            "script_strings": {key: gettext(text) for key, text in SCRIPT_STRINGS.items()},
        }


# --- maintenance -----------------------------------------------------------------------------
def extract() -> list[str]:
    """Every translatable string in the templates, the page code and the script strings."""
    from babel.messages.extract import extract_from_dir

    method_map = [("templates/**.html", "jinja2"), ("**.py", "python")]
    found = {message for _, _, message, *_ in extract_from_dir(str(HERE), method_map)}
    found.update(SCRIPT_STRINGS.values())
    found.update(game_strings())
    return sorted(m for m in found if isinstance(m, str))


def game_strings() -> set[str]:
    """What the lobby shows from the built-in games: rule option descriptions, mode names and
    AI levels."""
    from companion.games import BUILT_IN, load_game

    games = [load_game(ref) for ref in BUILT_IN.values()]
    return {o.description for g in games for o in g.rule_options()} | {
        m for g in games for m in (*g.modes, *g.policies())}


def catalogue(lang: str) -> object:
    from babel.messages.pofile import read_po

    with open(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po", "rb") as fh:
        return read_po(fh, locale=lang)


def compiled(lang: str) -> bytes:
    from babel.messages.mofile import write_mo

    out = io.BytesIO()
    write_mo(out, catalogue(lang))  # type: ignore[arg-type]
    return out.getvalue()


def missing(lang: str) -> list[str]:
    cat = catalogue(lang)
    return [m for m in extract() if not (cat.get(m) and cat.get(m).string)]  # type: ignore[attr-defined]


def main(argv: list[str]) -> int:
    if argv == ["check"]:
        gaps = {lang: missing(lang) for lang in LANGUAGES if lang != "en"}
        for lang, strings in gaps.items():
            for text in strings:
                print(f"{lang}: no translation for {text!r}")
        return 1 if any(gaps.values()) else 0
    if argv == ["compile"]:
        for lang in LANGUAGES:
            if lang == "en":
                continue
            target = TRANSLATIONS / lang / "LC_MESSAGES" / "messages.mo"
            target.write_bytes(compiled(lang))
            print(f"wrote {target}")
        return 0
    print("usage: python -m web_ui.i18n check|compile", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
