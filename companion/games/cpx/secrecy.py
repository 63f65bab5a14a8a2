"""What each reader may see (CPX-46): every player sees only his own hand; its size is public.

Base ownership is public (the map shows it, CPX-22), so every card's holder stays visible. What
a hand hides is which of the holder's cards lie in it. Because the held cards are known, the
discard pile would give the hand away (hand = held − discard − played − committed), so for
another seat the place of each card in its hand or discard pile is blanked to ``hidden`` and only
the two counts are kept (``players[i]["hidden"] = {"hand": n, "discard": m}``). A collection
holds all of a player's cards (everyone knows them), and played and committed cards lie on the
table for all to see, so those stay.

In the log, the requests that name cards going into a hand or onto a discard pile —
``choose_hand`` and ``smoke_discard`` (a card from the hand to the discard pile) — and their
events lose those names for other seats: each card becomes :data:`HIDDEN`, so a hand still shows
as "2 cards". Cards that are played (``attack``, ``activate``) become public when played and are
kept.

These are pure functions of JSON: the argument is never changed, what changes is copied.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.engine import JSON, Viewer, sees

from .state import DISCARD, HAND

HIDDEN = "?"
"""A card id another seat may not see (one per card, so counts stay right)."""
HIDDEN_PLACE = "hidden"
"""The place of a card in another seat's hand or discard pile."""
SECRET_PLACES = frozenset({HAND, DISCARD})
SECRET_ARGS: Mapping[str, tuple[str, ...]] = {"choose_hand": ("cards",), "smoke_discard": ("card",)}
"""Requests by name, and their args that name cards going into a hand or a discard pile."""
SECRET_EVENT_DATA: Mapping[str, tuple[str, ...]] = {"smoke_discarded": ("card",)}
"""Events by kind, and their data that name such cards (the event's ``seat`` is the holder)."""
PUBLIC_CARD_VALUES = frozenset({"none"})
"""``smoke_discard {card: "none"}`` discards nothing: everyone sees the ability lapse."""


def redact_state(state: JSON, viewer: Viewer) -> JSON:
    """The dumped state with the hands and discard piles of the seats not in ``viewer``
    blanked, and their sizes given instead."""
    if viewer is None or not isinstance(state, Mapping):
        return state
    players = state.get("players")
    cards = state.get("cards")
    if not isinstance(players, list) or not isinstance(cards, Mapping):
        return state
    others = {i for i in range(len(players)) if not sees(viewer, i)}
    if not others:
        return state
    sizes: dict[int, dict[str, int]] = {i: {HAND: 0, DISCARD: 0} for i in others}
    blanked: dict[str, Any] = {}
    for card_id, card in cards.items():
        holder = card.get("holder") if isinstance(card, Mapping) else None
        if holder in others and card.get("place") in SECRET_PLACES:
            sizes[holder][card["place"]] += 1
            card = {**card, "place": HIDDEN_PLACE}
        blanked[card_id] = card
    return {
        **state,
        "cards": blanked,
        "players": [{**p, "hidden": sizes[i]} if i in others and isinstance(p, Mapping) else p
                    for i, p in enumerate(players)],
    }


def redact_entry(entry: JSON, viewer: Viewer) -> JSON:
    """A log entry as ``viewer`` may see it: the secret args of other seats' ``choose_hand`` and
    ``smoke_discard`` (in a command, a correction or a pending reading) and the secret data of
    their events are blanked."""
    if viewer is None or not isinstance(entry, Mapping):
        return entry
    payload = entry.get("payload")
    if not isinstance(payload, Mapping):
        return entry
    changed: dict[str, Any] = {}
    command = payload.get("command")
    if isinstance(command, Mapping) and _hidden_secret(command, viewer):
        name = str(command.get("name"))
        blanked = {**command, "args": _blank_args(name, command.get("args"))}
        if blanked != command:
            changed["command"] = blanked
        if "original_args" in payload:  # a correction: what the reading said first
            changed["original_args"] = _blank_args(name, payload["original_args"])
        if payload.get("candidates"):  # a reading's alternatives would name the cards too
            changed["candidates"] = []
        detail = payload.get("detail")
        if isinstance(detail, Mapping) and "instructions" in detail:  # an AI's move to carry out
            changed["detail"] = {**detail, "instructions": _instructions(name, blanked)}
    events = payload.get("events")
    if isinstance(events, list):
        shown = [_blank_event(e, viewer) for e in events]
        if any(b is not e for b, e in zip(shown, events, strict=True)):
            changed["events"] = shown
    if not changed:
        return entry
    return {**entry, "payload": {**payload, **changed}}


def _hidden_secret(command: Mapping[str, Any], viewer: Viewer) -> bool:
    seat = command.get("seat")
    return command.get("name") in SECRET_ARGS and isinstance(seat, int) and not sees(viewer, seat)


def _blank_args(name: str, args: Any) -> Any:
    if not isinstance(args, Mapping):
        return args
    out = dict(args)
    for key in SECRET_ARGS.get(name, ()):
        if key in out:
            out[key] = _blank(out[key])
    return out


def _blank(value: Any) -> Any:
    """Card ids become :data:`HIDDEN`, one for each card named; ``{id: 0 | 1}`` (a hand's count
    form spelling) becomes the list of its chosen cards, blanked."""
    if isinstance(value, list):
        return [HIDDEN] * len(value)
    if isinstance(value, Mapping):
        return [HIDDEN] * sum(1 for n in value.values() if n)
    if value is None or value in PUBLIC_CARD_VALUES:
        return value
    return HIDDEN


def _blank_event(event: Any, viewer: Viewer) -> Any:
    if not isinstance(event, Mapping) or event.get("kind") not in SECRET_EVENT_DATA:
        return event
    data = event.get("data")
    if not isinstance(data, Mapping):
        return event
    seat = data.get("seat")
    if not isinstance(seat, int) or sees(viewer, seat):
        return event
    keys = SECRET_EVENT_DATA[str(event["kind"])]
    return {**event, "data": {k: _blank(v) if k in keys else v for k, v in data.items()}}


def _instructions(name: str, command: Mapping[str, Any]) -> str:
    """An AI's secret move in words that do not name its cards (``Cpx.instructions``'s)."""
    args = command.get("args")
    args = args if isinstance(args, Mapping) else {}
    if name == "choose_hand":
        cards = args.get("cards")
        n = len(cards) if isinstance(cards, list) else 0
        return f"The AI takes {n} card{'s' if n != 1 else ''} into its hand"
    if args.get("card") in (None, *PUBLIC_CARD_VALUES):
        return "The AI discards nothing"
    return "The AI discards a card from its hand"
