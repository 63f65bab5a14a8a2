"""Hidden information (CPX-46): what a tablet that may not see a seat's cards gets of the state
and of the log (``Cpx.redact_state``, ``Cpx.redact_entry``, :mod:`companion.games.cpx.secrecy`).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from companion.engine import Command, Viewer, sees
from companion.games.ava import GAME as AVA
from companion.games.cpx.secrecy import HIDDEN, HIDDEN_PLACE
from companion.games.cpx.state import COLLECTION, HAND_CHOICE, State
from tests.support.selfplay import transitions

from .helpers import GAME, SHIPPED, open_bb, pass_all, scenario

SPECTATOR: Viewer = frozenset()
SEAT_0: Viewer = frozenset({0})
SEAT_1: Viewer = frozenset({1})
BOTH: Viewer = frozenset({0, 1})
HAND_0 = ["C04", "C12"]  # B3, B5
DISCARD_0 = ["C01", "C08"]  # B9, B1
HAND_1 = ["C03"]  # B4
DISCARD_1 = ["C15", "C17"]  # B6, B2


def dealt() -> State:
    """Seat 0 holds C04 and C12 in hand and C01 and C08 in its discard pile; seat 1 holds C03
    in hand and C15 and C17 in its discard pile."""
    return scenario(owners={"B1": 0, "B3": 0, "B5": 0, "B9": 0, "B2": 1, "B4": 1, "B6": 1},
                    hands={0: HAND_0, 1: HAND_1})


def choosing() -> State:
    """The hand choice, nobody has chosen: every card lies in its holder's collection."""
    s = dealt()
    s.phase, s.acting, s.window = HAND_CHOICE, None, None
    for p in s.players:
        p["hand_chosen"] = False
    for c in s.cards.values():
        if c["holder"] is not None:
            c["place"] = COLLECTION
    return s


def entry(command: Command, events: list[Any], kind: str = "command",
          **payload: Any) -> dict[str, Any]:
    return {"session": "s", "seq": 7, "time": 1.0, "actor": f"seat:{command.seat}", "kind": kind,
            "schema_version": 1, "payload": {"command": command.to_json(),
                                             "events": [e.to_json() for e in events], **payload}}


def applied(state: State, name: str, seat: int | None, **args: Any) -> dict[str, Any]:
    command = Command(name, args, seat=seat)
    _, events = GAME.apply(state, command)
    return entry(command, events)


def text(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def outside_cards(state_json: dict[str, Any]) -> str:
    """Everything but the card table, whose keys (every card, and its holder) are public."""
    return text({k: v for k, v in state_json.items() if k != "cards"})


def test_another_seats_hand_and_discard_become_their_sizes_cpx_46() -> None:
    """CPX-46, CPX-24: each player sees only his own hand; the size of each hand is public.
    Who holds a card is public (it is who owns the base, CPX-22), so the discard pile, which
    would give the hand away, is hidden too."""
    full = GAME.dump_state(dealt())
    for viewer in (SPECTATOR, SEAT_1):
        seen = GAME.redact_state(full, viewer)
        for card in HAND_0 + DISCARD_0:
            assert seen["cards"][card] == {"holder": 0, "place": HIDDEN_PLACE, "attack": None}
            assert f'"{card}"' not in outside_cards(seen)
        assert seen["players"][0]["hidden"] == {"hand": 2, "discard": 2}
        assert {k: v["holder"] for k, v in seen["cards"].items()} == {
            k: v["holder"] for k, v in full["cards"].items()}
    mine = GAME.redact_state(full, SEAT_1)
    for card in HAND_1 + DISCARD_1:
        assert mine["cards"][card] == full["cards"][card]
    assert "hidden" not in mine["players"][1]
    spectator = GAME.redact_state(full, SPECTATOR)
    assert spectator["players"][1]["hidden"] == {"hand": 1, "discard": 2}


def test_the_host_and_a_tablet_holding_every_seat_see_everything_cpx_46() -> None:
    """CPX-46: nothing is hidden from the host (``None``) or from the holder of every seat."""
    full = GAME.dump_state(dealt())
    assert GAME.redact_state(full, None) is full
    assert GAME.redact_state(full, BOTH) is full


def test_played_and_committed_cards_stay_public_cpx_46_cpx_24() -> None:
    """CPX-24, CPX-46: a card on the table (played, committed to an attack) is seen by all."""
    s = open_bb(hands={0: ["C08", "C02"], 1: ["C16"]})
    s, _ = GAME.apply(s, Command("activate", {"card": "C08", "ability": "C08a"}, seat=0))
    full = GAME.dump_state(s)
    seen = GAME.redact_state(full, SPECTATOR)
    assert full["cards"]["C08"]["place"] == "played"
    assert full["cards"]["C07"]["place"] == "committed"
    for card in ("C08", "C07"):
        assert seen["cards"][card] == full["cards"][card]
    assert seen["cards"]["C02"]["place"] == HIDDEN_PLACE
    assert seen["stack"] == full["stack"] and seen["attacks"] == full["attacks"]


def test_redaction_never_changes_what_it_is_given_cpx_46() -> None:
    """CPX-2, CPX-46: the live state and the logged entry stay whole."""
    state = dealt()
    full = GAME.dump_state(state)
    before = copy.deepcopy(full)
    GAME.redact_state(full, SPECTATOR)
    assert full == before and GAME.dump_state(state) == before
    logged = applied(choosing(), "choose_hand", 0, cards=HAND_0)
    kept = copy.deepcopy(logged)
    GAME.redact_entry(logged, SPECTATOR)
    assert logged == kept


def test_a_hand_choice_in_the_log_names_no_card_cpx_46() -> None:
    """CPX-46: another seat's ``choose_hand`` shows how many cards, not which."""
    logged = applied(choosing(), "choose_hand", 0, cards=HAND_0)
    for viewer in (SPECTATOR, SEAT_1):
        seen = GAME.redact_entry(logged, viewer)
        assert seen["payload"]["command"]["args"] == {"cards": [HIDDEN, HIDDEN]}
        assert seen["payload"]["command"]["seat"] == 0
        assert not any(card in text(seen) for card in HAND_0)
        assert seen["payload"]["events"] == logged["payload"]["events"]  # hand_chosen: size
    assert GAME.redact_entry(logged, SEAT_0) is logged
    assert GAME.redact_entry(logged, None) is logged


def test_a_hand_choice_spelled_as_counts_names_no_card_cpx_46() -> None:
    """CPX-46: the count form's spelling ``{card: 0 | 1}`` is blanked to the chosen count."""
    counts = {"C01": 0, "C04": 1, "C08": 0, "C12": 1}
    logged = applied(choosing(), "choose_hand", 0, cards=counts)
    seen = GAME.redact_entry(logged, SPECTATOR)
    assert seen["payload"]["command"]["args"] == {"cards": [HIDDEN, HIDDEN]}


def test_a_smoke_bomb_discard_names_no_card_cpx_132_cpx_46() -> None:
    """CPX-132, CPX-46: the card discarded from the hand is not named to others (the discard
    pile is hidden); discarding nothing is public, as the ability lapses."""
    s = open_bb(hands={0: ["C08", "C02"], 1: ["C16"]})
    for name, seat, args in (("activate", 0, {"card": "C08", "ability": "C08a"}),
                             ("activate", 1, {"card": "C16", "ability": "C16b",
                                              "targets": {"activation": 1}})):
        s, _ = GAME.apply(s, Command(name, args, seat=seat))
    s = pass_all(s)
    kept = applied(s, "smoke_discard", 0, card="C02")
    assert any(e["kind"] == "smoke_discarded" for e in kept["payload"]["events"])
    seen = GAME.redact_entry(kept, SEAT_1)
    assert seen["payload"]["command"]["args"] == {"card": HIDDEN}
    assert "C02" not in text(seen)
    assert GAME.redact_entry(kept, SEAT_0) is kept
    lost = applied(s, "smoke_discard", 0, card="none")
    assert GAME.redact_entry(lost, SEAT_1) == lost


def test_an_ai_hand_waiting_for_a_person_names_no_card_cpx_46() -> None:
    """CPX-46: an AI's pending hand choice (a reading with instructions for a person) and a
    correction of it name no card to other seats."""
    state = choosing()
    command = Command("choose_hand", {"cards": HAND_0}, seat=0)
    instructions = GAME.instructions(state, command)
    assert "C04" not in instructions  # it names the cards by their English names
    reading = {"kind": "reading", "payload": {
        "source": "ai:commander", "command": command.to_json(), "confidence": 1.0,
        "needs_review": True, "candidates": [{"cards": HAND_0}],
        "detail": {"instructions": instructions}}}
    seen = GAME.redact_entry(reading, SPECTATOR)["payload"]
    names = [SHIPPED.data.card_by_id[c].name_en for c in HAND_0]
    assert seen["command"]["args"] == {"cards": [HIDDEN, HIDDEN]} and seen["candidates"] == []
    assert seen["detail"]["instructions"] == "The AI takes 2 cards into its hand"
    assert not any(n in text(seen) for n in [*HAND_0, *names])
    fixed = entry(Command("choose_hand", {"cards": ["C04"]}, seat=0), [], "correction",
                  reading=3, original_args={"cards": HAND_0})
    seen = GAME.redact_entry(fixed, SEAT_1)["payload"]
    assert seen["original_args"] == {"cards": [HIDDEN, HIDDEN]}
    assert seen["command"]["args"] == {"cards": [HIDDEN]}


def test_moves_that_play_cards_are_public_cpx_46() -> None:
    """CPX-46, CPX-71: a played card is on the table: attacks and activations stay whole."""
    s = open_bb(hands={0: ["C08", "C02"], 1: ["C16"]})
    logged = applied(s, "activate", 0, card="C08", ability="C08a")
    assert GAME.redact_entry(logged, SPECTATOR) is logged


def selfplay(seed: int, limit: int = 400) -> list[tuple[State, Command, State, list[Any]]]:
    setup = SHIPPED.selfplay_setup(["commander", "random", "commander"], seed=seed)
    return list(transitions(SHIPPED, setup, seed, limit))


@pytest.mark.parametrize("seed", [1, 2])
def test_no_state_or_hand_choice_of_a_selfplayed_game_leaks_a_hand_cpx_46(seed: int) -> None:
    """CPX-46, over every state of self-played games: no field but the (public) card table
    names another seat's hidden card, each of them is blanked, and no hand choice in the log
    names a card to another seat."""
    chosen = 0
    for state, command, new, events in selfplay(seed):
        full = SHIPPED.dump_state(state)
        for viewer in (SPECTATOR, SEAT_0):
            seen = SHIPPED.redact_state(full, viewer)
            rest = outside_cards(seen)
            for seat in range(len(state.players)):
                if sees(viewer, seat):
                    continue
                for card in state.cards_of(seat, "hand") + state.cards_of(seat, "discard"):
                    assert seen["cards"][card]["place"] == HIDDEN_PLACE
                    assert f'"{card}"' not in rest, (card, seat, state.phase)
            by = command.seat
            if command.name == "choose_hand" and by is not None and not sees(viewer, by):
                chosen += 1
                logged = SHIPPED.redact_entry(entry(command, events), viewer)
                assert not any(f'"{c}"' in text(logged) for c in new.cards_of(by, "hand"))
    assert chosen


def test_allies_vs_axis_has_nothing_secret() -> None:
    """AVA-110: a drawn card is shown on the dashboard, and no rule hides a kept card, so Allies
    vs Axis keeps the default: everything is public."""
    state = AVA.dump_state(AVA.initial_state(AVA.selfplay_setup(["random", "random"], seed=1)))
    assert AVA.redact_state(state, SPECTATOR) is state
    logged = {"kind": "command", "payload": {"command": {"name": "pass", "args": {}, "seat": 0},
                                             "events": []}}
    assert AVA.redact_entry(logged, SPECTATOR) is logged
