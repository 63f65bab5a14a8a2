"""The named rule options of §13 (CPX-148): their choices, what they do, and validation at setup.

Defaults come from ``settings_defaults.json`` so a house-rule data folder can change them; the
choices and descriptions live here because each one selects code in the rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.engine import IllegalMove, RuleOption

# name -> (choices, description); choices None means "a whole number".
OPTION_SPECS: dict[str, tuple[tuple[Any, ...] | None, str]] = {
    "cubes_per_colour": (
        (60, 50),
        "Cubes per colour in the supply (G2: 60, or 50 for 300 in all).",
    ),
    "priming_neutral_per_player": (
        (False, True),
        "Tower priming puts 5 black and 5 white per player instead of per table (G12).",
    ),
    "first_round_first_player": (
        ("priority", "first_chooser"),
        "Who is first in round 1: faction priority, or the first chooser of a starting base (G13).",
    ),
    "turn_order": (
        ("seating", "ranking"),
        "After the first player: seating order, or everyone ranked by base count (G14).",
    ),
    "leave_one_own_colour": (
        (False, True),
        "The unit left behind by an attack must be of the attacker's own colour (G20).",
    ),
    "cap_applies_to_attacks": (
        (True, False),
        "An attack may not put more than 10 of the attacking camp's units on its target (G21).",
    ),
    "routing_card_usable": (
        (True, False),
        "A route card's ability may still be used once in that attack's battle (G23).",
    ),
    "battle_cards_by": (
        ("camp", "participants"),
        "Who may play cards in a battle: every player of both camps, or only those involved (G29).",
    ),
    "battle_kind_rule": (
        ("any_attack", "first_attack"),
        "A battle's kinds come from every attack into it, or from the first one only (G30).",
    ),
    "auto_pass": (
        (False, True),
        "Players with no card they could use in a window pass automatically (G31).",
    ),
    "victory_check": (
        ("immediate", "end_phase_only"),
        "Check victory at once after every battle and retreat, or only in the end phase (G43).",
    ),
    "eliminated_colour_counts": (
        (True, False),
        "Cubes of an eliminated player that fall out of the tower still count for his camp (G45).",
    ),
    "designate_any_battlefield": (
        (False, True),
        "Blackout Missile, Raging Bull Charge and Binding Restraint may name a later battlefield.",
    ),
    "card_moves_leave_one": (
        (False, True),
        "Card moves must leave a friendly unit on their origin (G47).",
    ),
    "blackout_return": (
        ("same_base", "pool"),
        "Where set-aside units go at the start of the next round (G50).",
    ),
    "shrink_ray_units": (("enemy", "any"), "Shrink Ray may move units of either camp (G53)."),
    "combustion_boost_units": (
        ("one", "any_number"),
        "Combustion Boost moves one unit, or any number from one base (G55).",
    ),
    "transport_reading": (
        ("two_adjacent", "two_steps"),
        "Part-time Transport: up to two adjacent bases, or one base up to two steps away (G57).",
    ),
    "captain_fury_refund": (
        (False, True),
        "A cancelled Captain's Fury puts its 2 sacrificed units back (G59).",
    ),
    "sea_wing_types": (
        ("both", "choose_one"),
        "Surface to the Skies cancels navy and land bonuses, or one type the player names (G60).",
    ),
    "all_terrain_reading": (
        ("protect", "route"),
        "All-terrain Traverse protects a paired land ability, or lets a land card route anywhere.",
    ),
}

SETUP_KEYS = frozenset({"first_chooser"})


def rule_options(defaults: Mapping[str, Any]) -> list[RuleOption]:
    """The options for the lobby, with the data set's defaults."""
    return [
        RuleOption(name, defaults[name], description, choices)
        for name, (choices, description) in OPTION_SPECS.items()
    ]


def resolve_options(given: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """Defaults overlaid with the setup's choices; unknown names or values: ``E_SETUP_INVALID``."""
    out = {name: defaults[name] for name in OPTION_SPECS}
    for name, value in given.items():
        if name in SETUP_KEYS:
            continue
        if name not in OPTION_SPECS:
            raise IllegalMove("E_SETUP_INVALID", f"Unknown rule option '{name}'.")
        choices = OPTION_SPECS[name][0]
        if choices is not None and (value not in choices or type(value) is not type(choices[0])):
            shown = ", ".join(repr(c) for c in choices)
            raise IllegalMove(
                "E_SETUP_INVALID", f"Rule option '{name}' must be one of {shown}, not {value!r}."
            )
        out[name] = value
    return out
