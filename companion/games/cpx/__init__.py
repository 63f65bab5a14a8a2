"""Command Post Exercise (指挥部的演练): the rules engine, its data, tower model, odds and AI.

Requests (``Command.name`` and ``args``; ``seat`` is the acting seat, ``None`` for the table):

- ``choose_start {base}``; ``choose_hand {cards: [id, ...]}`` (or ``{cards: {id: 0 | 1}}``,
  the spelling of its count form); ``recruit {base}``;
- ``attack {from, to, units, card[, paired_card]}``; ``retreat {base, to}``; ``end_move {}``;
- ``activate {card, ability: "C12a" | "a", targets: {...}[, paired_card]}`` where targets are
  ``{}`` for bonuses and modifiers, ``{activation: id}`` / ``{activations: [id, ...]}`` for
  responses, ``{units: {colour: n}}`` for destroy / set aside / bind / sacrifice, ``{base}`` for
  Lurking Operation, ``{origin, units}`` for Paratroopers, ``{units: [{colour, to}]}`` for
  Shrink Ray (``to`` may be ``"pool"``), ``{from, to[, units]}`` for Combustion Boost,
  ``{from, moves: [{to, units}]}`` for Part-time Transport, ``{moves: [{from, to, units}]}`` or
  ``{"FROM>TO": units, ...}`` (its count form) for Rapid Deployment, ``{type}`` for Surface
  to the Skies under ``sea_wing_types = choose_one``,
  ``{battlefield}`` to name a later battle under ``designate_any_battlefield``, and for
  All-terrain Traverse ``{ability, targets}`` of the paired card (or, flat, the paired card's
  ability as ``paired_ability`` and its targets as ``targets``: the spelling of a paired Rapid
  Deployment's count form);
- ``pass {}``; ``smoke_discard {card | "none"}``; ``choose_units {mix: {colour: n}}``;
- ``report_drop {counts: {colour: n}[, source: "camera" | "manual" | "simulated"]}`` and
  ``confirm_drop {}`` (the table's: ``seat`` is ``None``).

An arg a request does not take (or a target an ability does not take) is refused with
``E_BAD_REQUEST`` / ``E_TARGET_INVALID``. ``legal_commands`` and ``count_forms`` together are
exactly what ``apply`` accepts; ``GAME.offers`` compares in one spelling (``shape.py``).

Setup: ``Seat.colour`` is a faction id (``soviet``...) or its colour (``red``...),
``Seat.camp`` is ``"A"`` or ``"B"``; ``Setup.options`` holds the rule options of §13 and
``first_chooser`` (the seat that chooses a starting base first, default 0).
"""

from __future__ import annotations

from .game import Cpx

GAME = Cpx()

__all__ = ["GAME", "Cpx"]
