"""Card draws (AVA-110..AVA-113) and the effects of immediate cards (AVA-114..AVA-118, AVA-126).

Chance comes only from the ``random.Random`` handed in, which the rules derive from the command's
logged seed, so a replayed draw gives the same card.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from companion.engine import Event
from companion.games.ava.data import UNIT_TYPES, AvaData, Card
from companion.games.ava.state import AvaState


def _limit_left(state: AvaState, card: Card) -> bool:
    if card.per_game_limit is None:
        return True
    return drawn_count(state, card) < card.per_game_limit


def drawn_count(state: AvaState, card: Card) -> int:
    """Copies drawn so far of a limited card (the Spy's count is ``spies_drawn``, AVA-113)."""
    return state.spies_drawn if card.kind == "spy" else state.limited_drawn.get(card.id, 0)


def weighted_pick(cards: Sequence[Card], rng: random.Random) -> Card:
    """AVA-112 step 3: probability proportional to weight (integer draw, platform-stable)."""
    total = sum(c.weight for c in cards)
    x = rng.randrange(total)
    for c in cards:
        x -= c.weight
        if x < 0:
            return c
    raise AssertionError("unreachable")


def pick_replacement(
    data: AvaData, state: AvaState, deck: str, rng: random.Random, luck_pct: int, luck_model: str
) -> Card | None:
    """AVA-112 under ``weighted_replacement``: class by luck, then weight; limits respected."""
    cards = [c for c in data.cards.values() if c.deck == deck and _limit_left(state, c)]
    if not cards:
        return None
    if luck_model == "none":
        return weighted_pick(cards, rng)
    beneficial = rng.randrange(100) < luck_pct
    chosen = [c for c in cards if c.beneficial == beneficial]
    if not chosen:
        chosen = [c for c in cards if c.beneficial != beneficial]
    return weighted_pick(chosen, rng)


def build_deck(data: AvaData, deck: str, rng: random.Random) -> tuple[str, ...]:
    """AVA-112 ``shuffled_finite``: every copy of every card of the deck, shuffled."""
    copies = [c.id for c in data.cards.values() if c.deck == deck for _ in range(c.copies)]
    rng.shuffle(copies)
    return tuple(copies)


def draw(data: AvaData, state: AvaState, deck: str, rng: random.Random) -> Card | None:
    """Draw one card from ``deck`` into nowhere yet; the caller decides where it goes."""
    index = 0 if deck == "fortune" else 1
    if state.options["deck_model"] == "shuffled_finite":
        while True:
            pile = state.decks[index]
            if not pile:
                fresh = list(state.discards[index])
                rng.shuffle(fresh)
                pile = tuple(fresh)
                state.discards = _set(state.discards, index, ())
            if not pile:
                return None
            card = data.cards[pile[0]]
            state.decks = _set(state.decks, index, pile[1:])
            if _limit_left(state, card):  # copies past a per-game limit are dropped
                break
    else:
        found = pick_replacement(
            data, state, deck, rng, state.luck_pct, state.options["luck_model"]
        )
        if found is None:
            return None
        card = found
    state.draws += 1
    if card.kind == "spy":
        state.spies_drawn += 1
    elif card.per_game_limit is not None:
        state.limited_drawn[card.id] = state.limited_drawn.get(card.id, 0) + 1
    return card


def _set(pair: tuple[tuple[str, ...], tuple[str, ...]], index: int, value: tuple[str, ...]):
    return (value, pair[1]) if index == 0 else (pair[0], value)


def retire(data: AvaData, state: AvaState, card_id: str) -> None:
    """A card that acted, was used or discarded goes to the discard pile (finite decks only);
    a card with a per-game limit never returns (AVA-112, AVA-113)."""
    if state.options["deck_model"] != "shuffled_finite":
        return
    card = data.cards[card_id]
    if card.per_game_limit is not None:
        return
    index = 0 if card.deck == "fortune" else 1
    state.discards = _set(state.discards, index, (*state.discards[index], card_id))


def apply_immediate(data: AvaData, state: AvaState, card: Card, events: list[Event]) -> None:
    """Fortune cards and non-kept strategy cards act at once (AVA-114, AVA-126); never below 0
    (AVA-117) and never a jailing (AVA-118)."""
    p = state.me
    params = card.params
    before = (p.money, p.available)
    if card.kind == "money_delta":
        p.money = max(0, p.money + params["amount"])
    elif card.kind == "money_pct_loss":
        p.money -= p.money * params["pct"] // 100
    elif card.kind == "units_delta":
        p.money = max(0, p.money + params.get("money", 0))
        a = p.available
        d = [params.get(u, 0) for u in UNIT_TYPES]
        p.available = (
            max(0, a[0] + d[0]),
            max(0, a[1] + d[1]),
            max(0, a[2] + d[2]),
            max(0, a[3] + d[3]),
        )
    elif card.kind == "units_half_loss":
        k = UNIT_TYPES.index(params["unit"])
        a = list(p.available)
        a[k] -= a[k] // 2
        p.available = (a[0], a[1], a[2], a[3])
    elif card.kind == "discard_kept_or_money":
        if p.kept_cards:
            if p.controller == "human":
                state.discard_owed = True
                events.append(Event("discard_owed", {"side": p.side, "cards": list(p.kept_cards)}))
            else:
                lost = p.kept_cards[-1]  # an AI discards its most recently drawn card
                p.kept_cards = p.kept_cards[:-1]
                retire(data, state, lost)
                events.append(Event("card_discarded", {"side": p.side, "card": lost}))
        else:
            p.money -= min(params["amount"], p.money)
    elif card.kind == "partisans":
        k = UNIT_TYPES.index(params["unit"])
        best_sq, best_n = None, 0
        for sq in range(1, 37):
            if state.owner[sq - 1] == state.current and state.garrison[sq - 1][k] > best_n:
                best_sq, best_n = sq, state.garrison[sq - 1][k]
        if best_sq is not None:
            g = list(state.garrison[best_sq - 1])
            g[k] -= best_n // 2
            garrisons = list(state.garrison)
            garrisons[best_sq - 1] = (g[0], g[1], g[2], g[3])
            state.garrison = tuple(garrisons)
            events.append(Event("partisans", {"square": best_sq, "lost": best_n // 2}))
    else:  # pragma: no cover - data validation only lets immediate kinds reach here
        raise AssertionError(f"card kind {card.kind} is not immediate")
    if (p.money, p.available) != before:
        events.append(
            Event(
                "resources_changed",
                {"side": p.side, "money": p.money, "available": list(p.available)},
            )
        )
