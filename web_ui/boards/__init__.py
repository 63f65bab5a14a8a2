"""Each game's table drawn on the server: a view of the state for people, and what this tablet
may do now (the engine's legal commands and count forms, labelled in the tablet's language)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from flask_babel import gettext

from companion.engine import Command, CountForm, Game
from web_ui.boards import ava, cpx, lists

Labeller = Callable[[Game, Any, Command], str]
Places = Callable[[Game, Any], list[str]]


class Viewer(Protocol):
    """A game's board for people; the legal commands and count forms are handed over when the
    caller has them already (the offers and the count names are drawn from them)."""

    def __call__(self, game: Game, state: Any, *, legal: Sequence[Command] | None = None,
                 forms: Sequence[CountForm] | None = None) -> Mapping[str, Any]: ...


VIEWS: dict[str, tuple[Viewer, Labeller]] = {
    "ava": (ava.view, ava.label),
    "cpx": (cpx.view, cpx.label),
}
INSTRUCTIONS: dict[str, Labeller] = {"ava": ava.instruction, "cpx": cpx.instruction}
PLACES: dict[str, Places] = {"cpx": cpx.places}
"""The places on the board a command names, so that a tap on one filters the buttons."""


@dataclass
class FormView:
    """A count form as the tablet shows it: inputs, running totals and quick picks."""

    form: CountForm
    title: str
    presets: list[dict[str, int]] = field(default_factory=list)
    places: str = ""
    """The places it names, space-separated (a tap on the map shows only what names a place)."""

    def as_json(self) -> str:
        return json.dumps({**self.form.to_json(), "presets": self.presets})

    @property
    def key(self) -> str:
        """The form's :func:`form_key` (``data-form-key``)."""
        return form_key(self.form)


def form_key(form: CountForm) -> str:
    """What a count form is, as a short stable string: its command's name, seat, fixed args,
    count keys with their ranges, and limits. The tablet keeps a half-entered form across a
    redraw when the redrawn one has the same key (app.js): its inputs then mean the same and
    take the same values. Titles, quick picks and places are not part of it."""
    text = json.dumps(form.to_json(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def generic_label(command: Command) -> str:
    args = json.dumps(dict(command.args), separators=(",", ":")) if command.args else ""
    return f"{command.name} {args}".strip()


def label(game: Game, state: Any, command: Command) -> str:
    """A command in words for people, in the tablet's language."""
    _, labeller = VIEWS.get(game.id, (None, None))
    return labeller(game, state, command) if labeller else generic_label(command)


def places(game: Game, value: Any) -> str:
    """The places a command's args (or a form's fixed args and count keys) name, space-separated
    for a ``data-bases`` attribute: empty for a game without places and for what names none
    (those stay shown while the tablet filters by a place)."""
    finder = PLACES.get(game.id)
    return " ".join(finder(game, value)) if finder else ""


def actions(game: Game, state: Any, allowed: Callable[[int | None], bool], *,
            legal: Sequence[Command] | None = None,
            forms: Sequence[CountForm] | None = None) -> dict[str, Any]:
    """Buttons for listed commands and forms for count-shaped ones; listed instances of a form
    become its quick picks. ``legal`` and ``forms`` are the engine's lists when the caller has
    them (computed here otherwise)."""
    legal = lists.legal_commands(game, state, legal)
    all_forms = lists.count_forms(game, state, forms)

    def named(command: Command) -> str:
        return label(game, state, command)

    shown = [f for f in all_forms if allowed(f.seat)]
    variants: dict[str, CountForm] = {}  # one form per shape: variants differ in fixed args only
    for f in sorted(shown, key=lambda f: len(f.fixed)):
        variants.setdefault(json.dumps({**f.to_json(), "fixed": None}, sort_keys=True), f)
    views = []
    for f in variants.values():
        title = named(Command(f.name, dict(f.fixed), seat=f.seat))
        views.append(FormView(f, title, places=places(game, [dict(f.fixed), list(f.counts)])))
    buttons = []
    for command in legal:
        if not allowed(command.seat):
            continue
        home = next((v for v in views if v.form.admits(command)), None)
        if home is None and any(f.admits(command) for f in shown):
            continue  # an instance of a variant that is not shown
        if home is None:
            buttons.append({"name": command.name, "label": named(command),
                            "command": json.dumps(command.to_json()),
                            "bases": places(game, dict(command.args))})
        else:
            args = dict(command.args)
            counts = args.get(home.form.within, {}) if home.form.within else args
            home.presets.append({k: v for k, v in counts.items() if k in home.form.counts})
    return {"buttons": buttons, "groups": grouped(buttons), "forms": views}


FOLD_AT = 8
"""More buttons than this for one command fold behind a tap (a busy turn offers hundreds)."""


def grouped(buttons: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Buttons by command name, in the order offered; long groups fold."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for button in buttons:
        groups.setdefault(button["name"], []).append(button)
    titles = {"attack": gettext("Attacks"), "activate": gettext("Abilities"),
              "use_card": gettext("Cards"), "retreat": gettext("Retreats"),
              "choose_start": gettext("Starting bases"), "recruit": gettext("Recruit")}
    return [{"name": name, "title": titles.get(name, items[0]["label"]), "buttons": items,
             "folded": len(items) > FOLD_AT} for name, items in groups.items()]


def instructions(game: Game, state: Any, readings: Mapping[int, Any]) -> dict[str, str]:
    """Pending AI moves at a physical table, as instructions in the tablet's language."""
    out = {}
    for seq, reading in readings.items():
        english = (reading.get("detail") or {}).get("instructions")
        if english is None:
            continue
        command = Command.from_json(reading["command"])
        instruct = INSTRUCTIONS.get(game.id)
        out[str(seq)] = instruct(game, state, command) if instruct else english
    return out


def board(game: Game, state: Any, *, legal: Sequence[Command] | None = None,
          forms: Sequence[CountForm] | None = None) -> dict[str, Any]:
    """The game's view of a state; ``legal`` and ``forms`` as for :func:`actions`."""
    viewer, _ = VIEWS.get(game.id, (None, None))
    return dict(viewer(game, state, legal=legal, forms=forms)) if viewer else {}


def limit_label(label: str) -> str:
    return {"cost": gettext("Cost"), "power": gettext("Power"), "units": gettext("Units")}.get(
        label, label
    )
