"""Settings (AVA-24) and the named rule options of §18 (AVA-174): their values and checks.

Defaults come from ``settings_defaults.json``; a setup may override any of them. Every value is
checked here, so the rules can trust the resolved options without further tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.engine import IllegalMove, RuleOption

DATA_DIR_OPTION = "data_dir"
"""Not a rule of the spec: the folder of a house-rules copy of the data (None: shipped data)."""


@dataclass(frozen=True)
class OptionSpec:
    name: str
    description: str
    choices: tuple[Any, ...] | None = None
    kind: str = "choice"  # choice | pct_or_null | window | count


SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "main_end_condition",
        "Conquest (all territories) or sudden death (capital) (AVA-128, AVA-129).",
        ("conquest", "sudden_death"),
    ),
    OptionSpec("jail_limit", "Jailings that lose the game (AVA-130).", (3, 5)),
    OptionSpec("turn_limit", "End after this many rounds, or never (AVA-131).", (None, 100, 300)),
    OptionSpec(
        "first_side", "Which side takes the first turn (AVA-31, G8).", ("allies", "axis", "random")
    ),
    OptionSpec(
        "battleship_ai_advantage",
        "The Battleship AI's starting advantage (AVA-157, G45).",
        ("money", "army", "nuke", "random"),
    ),
    OptionSpec(
        "resource_pct",
        "Override of the mode's resource percentage (AVA-21, G4).",
        kind="pct_or_null",
    ),
    OptionSpec(
        "penalty_pct", "Override of the mode's penalty percentage (AVA-21, G4).", kind="pct_or_null"
    ),
    OptionSpec(
        "luck_pct",
        "Override of the mode's luck percentage, 0..100 (AVA-23, G4).",
        kind="pct_or_null",
    ),
    OptionSpec(
        "strategic_move_window_s",
        "Seconds to decide on a strategic move; null = no limit (AVA-50, G12).",
        kind="window",
    ),
    OptionSpec("starting_money", "Money each side starts with (AVA-28, G9).", kind="count"),
    OptionSpec(
        "starting_garrison",
        "Starting territories' garrison: none, or infantry equal to their neutral garrison "
        "(AVA-28).",
        ("none", "neutral_value"),
    ),
    OptionSpec(
        "neutral_must_act",
        "Forbid passing on a neutral territory when a treaty or invasion is possible "
        "(AVA-57, G17).",
        (False, True),
    ),
    OptionSpec(
        "treaty_count_scope",
        "Count own or both players' earlier treaties in the treaty cost (AVA-62, G18).",
        ("own", "both_players"),
    ),
    OptionSpec(
        "penalty_before_invasion",
        "Apply the penalty automatically on landing, then allow an invasion (AVA-74, G20).",
        (False, True),
    ),
    OptionSpec(
        "penalty_from_garrisons",
        "Let the penalty continue into garrisons (AVA-72, G23).",
        (False, True),
    ),
    OptionSpec(
        "penalty_rounding",
        "Rounding of the penalty power (AVA-99, G24).",
        ("half_up", "ceil", "floor"),
    ),
    OptionSpec(
        "penalty_removal",
        "Which units a penalty removes (AVA-100, G25).",
        ("weakest_first", "min_overshoot"),
    ),
    OptionSpec(
        "penalty_battleships_anywhere",
        "Battleships can be lost to a penalty at any territory (AVA-100, G26).",
        (False, True),
    ),
    OptionSpec(
        "jail_on_unpaid_penalty",
        "Jail when the penalty could not be paid in full (AVA-73, G27).",
        (False, True),
    ),
    OptionSpec(
        "ransom_payable_immediately",
        "Offer the ransom right at the jailing (AVA-107, G28).",
        (False, True),
    ),
    OptionSpec(
        "support_model", "How defence support pairs units (AVA-96, G15).", ("pairing", "full_cross")
    ),
    OptionSpec(
        "recruit_before_resolution",
        "Allow recruiting while the landing is still being resolved (AVA-88, G7).",
        (False, True),
    ),
    OptionSpec(
        "no_rebuild_same_square",
        "Forbid building on the territory built on last turn (AVA-94, G35).",
        (False, True),
    ),
    OptionSpec(
        "allow_garrison_withdrawal",
        "Allow taking garrison units back (AVA-93, G36).",
        (False, True),
    ),
    OptionSpec(
        "resource_rounding", "Rounding of collected resources (AVA-39, G37).", ("floor", "half_up")
    ),
    OptionSpec(
        "conquest_counts_bases",
        "Secret and special squares keep a player alive (AVA-128, G38).",
        (False, True),
    ),
    OptionSpec(
        "turn_limit_unit",
        "Whether the turn limit counts rounds or single turns (AVA-131, G39).",
        ("round", "player_turn"),
    ),
    OptionSpec(
        "deck_model",
        "Cards drawn with replacement or from finite shuffled decks (AVA-112, G42).",
        ("weighted_replacement", "shuffled_finite"),
    ),
    OptionSpec(
        "luck_model",
        "Luck picks the card class, or cards are drawn by weight alone (AVA-23, G5).",
        ("class_weighting", "none"),
    ),
    OptionSpec(
        "ai_virtual_spin", "The engine spins for AI seats (AVA-15, AVA-138, G46).", (False, True)
    ),
    OptionSpec("unlock_all_modes", "Every mode is selectable (AVA-136).", (False, True)),
)
BY_NAME = {s.name: s for s in SPECS}


def _check(spec: OptionSpec, value: Any) -> str | None:
    """None if ``value`` is valid for ``spec``, else the reason."""
    if spec.kind == "choice":
        assert spec.choices is not None
        for choice in spec.choices:
            if value == choice and type(value) is type(choice):
                return None
        return f"must be one of {', '.join(map(_show, spec.choices))}"
    if value is None and spec.kind in ("pct_or_null", "window"):
        return None
    is_int = isinstance(value, int) and not isinstance(value, bool)
    if spec.kind == "window":
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return None
        return "must be a number of seconds above 0, or null"
    if not is_int or value < 0:
        return "must be a whole number of at least 0" + (
            ", or null" if spec.kind != "count" else ""
        )
    if spec.name == "luck_pct" and value > 100:
        return "must be 0..100"
    return None


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def check_defaults(defaults: Mapping[str, Any]) -> None:
    """settings_defaults.json must name every option with a valid value."""
    from companion.games.ava.data import DataError

    for spec in SPECS:
        if spec.name not in defaults:
            raise DataError("settings_defaults.json", "settings", spec.name, "is missing")
        problem = _check(spec, defaults[spec.name])
        if problem:
            raise DataError("settings_defaults.json", "settings", spec.name, problem)
    unknown = set(defaults) - set(BY_NAME)
    if unknown:
        raise DataError("settings_defaults.json", "settings", sorted(unknown)[0], "unknown option")


def resolve(defaults: Mapping[str, Any], chosen: Mapping[str, Any]) -> dict[str, Any]:
    """The defaults overridden by a setup's choices; a bad choice is ``E_BAD_SETUP``."""
    out = dict(defaults)
    for name, value in chosen.items():
        if name == DATA_DIR_OPTION:
            continue
        spec = BY_NAME.get(name)
        if spec is None:
            raise IllegalMove("E_BAD_SETUP", f"Unknown rule option '{name}'.")
        problem = _check(spec, value)
        if problem:
            raise IllegalMove("E_BAD_SETUP", f"Rule option '{name}' {problem}.")
        out[name] = value
    return out


def rule_options(defaults: Mapping[str, Any]) -> list[RuleOption]:
    """The lobby's list: every setting and option with its default (AVA-24, AVA-174)."""
    out = []
    for spec in SPECS:
        out.append(
            RuleOption(
                name=spec.name,
                default=defaults.get(spec.name),
                description=spec.description,
                choices=list(spec.choices) if spec.choices is not None else None,
            )
        )
    out.append(
        RuleOption(
            name=DATA_DIR_OPTION,
            default=None,
            description="Folder of a house-rules copy of the data files (null: the shipped data).",
        )
    )
    return out
