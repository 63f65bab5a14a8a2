"""Error messages a player reads, by error code, in the tablet's language.

Engines and the session explain a refusal in English with the particulars ("These units cost
$M 330; you have $M 200"). On a tablet set to another language the code's sentence is shown in
that language, and the English particulars stay in the error's details.
"""

from __future__ import annotations

from flask_babel import get_locale, gettext


def N_(text: str) -> str:
    """Marks a string for extraction; it is translated when shown."""
    return text


SENTENCES: dict[str, str] = {
    "E_ABILITY_CONDITION": N_("That ability's condition is not met."),
    "E_ABILITY_SIDE": N_("That ability is for the other side of the battle."),
    "E_ABILITY_WINDOW": N_("That ability cannot be used now."),
    "E_ALREADY_OWNED": N_("That square is already owned."),
    "E_BAD_ARCHIVE": N_("That file is not a session export."),
    "E_BAD_JSON": N_("The request is not valid JSON."),
    "E_BAD_REQUEST": N_("The request is malformed."),
    "E_BAD_SETUP": N_("The game setup is not valid."),
    "E_BAD_STATE": N_("The saved game state is damaged."),
    "E_BASE_BLOCKED": N_("That base is blocked this phase."),
    "E_BATTLESHIP_NO_SEAPORT": N_("Battleships can only be used at a territory with a seaport."),
    "E_CAP_EXCEEDED": N_("A base holds at most 10 of your units."),
    "E_CARD_NOT_HELD": N_("You do not hold that card."),
    "E_CARD_NOT_IN_HAND": N_("That card is not in your hand."),
    "E_CARD_NOT_OWNED": N_("You do not own that card."),
    "E_CARD_PRECONDITION": N_("That card cannot be used here."),
    "E_CARD_SPENT": N_("That card has already been used this round."),
    "E_CONFLICT": N_("Someone else changed the game first: look again and retry."),
    "E_COUNT_INVALID": N_("A drop report needs a whole number for each colour."),
    "E_CSRF": N_("This tablet's session expired: reload the page."),
    "E_DATA_INVALID": N_("The game data files are broken."),
    "E_DISCARD_INVALID": N_("That card cannot be discarded."),
    "E_ENGINE": N_("The rules engine failed; nothing was changed."),
    "E_FORBIDDEN": N_("This tablet may not do that."),
    "E_GAME_OVER": N_("The game is over."),
    "E_GARRISON_PERMANENT": N_("Garrisoned units stay on their territory."),
    "E_HAND_TOO_LARGE": N_("A hand holds at most 5 cards."),
    "E_HOST_ONLY": N_("Only the host may do that."),
    "E_INVASION_TOO_WEAK": N_("The invasion power is below the defence power."),
    "E_JAILED": N_("You are in jail: pay the ransom or end your turn."),
    "E_LEDGER_IMPOSSIBLE": N_(
        "More cubes of a colour came out than the tower held: count the tray again."
    ),
    "E_MODE_LOCKED": N_("That mode is not unlocked yet."),
    "E_MUST_LEAVE_ONE": N_("At least one unit must stay behind."),
    "E_NEUTRAL_INFANTRY_ONLY": N_("Only infantry may invade a neutral territory."),
    "E_NOTHING_TO_UNDO": N_("There is nothing to undo."),
    "E_NOT_ADJACENT": N_("No route joins those two bases."),
    "E_NOT_A_PLAYER": N_("Only a player or the host may do that."),
    "E_NOT_ENOUGH_MONEY": N_("You do not have enough money."),
    "E_NOT_FOUND": N_("Not found."),
    "E_NOT_JAILED": N_("You are not in jail."),
    "E_NOT_JOINED": N_("Join the table first (the PIN is on the host screen)."),
    "E_NOT_LANDED_TERRITORY": N_(
        "You can only build defences on the territory you landed on this turn."
    ),
    "E_NOT_NATURAL_ALLY": N_("That special territory is the other side's natural ally."),
    "E_NOT_OWN_BASE": N_("That is not one of your bases."),
    "E_NOT_OWN_TERRITORY": N_("That is not your territory."),
    "E_NOT_SEATED": N_("Take a seat first."),
    "E_NOT_SIMULATED": N_("Simulated readings are only available in simulation mode."),
    "E_NOT_YOUR_MOVE": N_("It is not your move."),
    "E_NOT_YOUR_SEAT": N_("You cannot act for another seat."),
    "E_NOT_YOUR_TURN": N_("It is not your turn."),
    "E_NO_CHANCE_NEEDED": N_("The game is not waiting for a spin or a drop."),
    "E_NO_GARRISON_HERE": N_("Units can only be placed on territories."),
    "E_NO_HARDWARE": N_("That hardware is not connected."),
    "E_NO_NUKE": N_("You have no nuke."),
    "E_NO_SUCH_READING": N_("That reading is no longer waiting."),
    "E_NO_SUCH_SEAT": N_("There is no such seat."),
    "E_NO_UNITS": N_("Choose at least one unit."),
    "E_NO_UNITS_SELECTED": N_("Choose at least one unit."),
    "E_ONCE_PER_BATTLE": N_("That can only be done once per battle."),
    "E_OPTION_NOT_AVAILABLE": N_("That choice is not available on this square."),
    "E_PLAYER_OUT": N_("You are out of the game."),
    "E_RECRUIT_LIMIT": N_("That is more than the per-turn recruitment limit."),
    "E_RESOLUTION_PENDING": N_("Resolve the square you landed on first."),
    "E_RETREAT_NOT_ALLOWED": N_("A retreat is not allowed now."),
    "E_ROUTE_TYPE": N_("That card cannot travel this kind of route."),
    "E_SECRET_NOT_INVADABLE": N_("Secret territories cannot be invaded by armies."),
    "E_SETUP_INVALID": N_("The game setup is not valid."),
    "E_SPECIAL_NOT_INVADABLE": N_("Special territories cannot be invaded."),
    "E_SPECTATOR": N_("Spectators can watch but not act."),
    "E_SPINNER": N_("The spinner could not be read."),
    "E_SPIN_INVALID": N_("A spin must be 1 to 6."),
    "E_STALE_STATE": N_("The table changed meanwhile: look again and retry."),
    "E_START_BASE_COLOUR": N_("Choose a starting base of your own colour."),
    "E_STRATEGIC_MOVE_USED": N_("You have already used your strategic move this turn."),
    "E_TARGET_FRIENDLY": N_("That base is friendly."),
    "E_TARGET_INVALID": N_("That target is not valid."),
    "E_TARGET_PROTECTED": N_("That target is protected."),
    "E_TOO_MANY_ATTEMPTS": N_("Too many wrong PINs: wait a minute."),
    "E_UNITS_NOT_AVAILABLE": N_("You do not have that many units available."),
    "E_UNITS_NOT_THERE": N_("You do not have that many units there."),
    "E_UNKNOWN_GAME": N_("No such game is installed."),
    "E_UNSUPPORTED_MEDIA": N_("Send the request body as JSON."),
    "E_WINDOW_CLOSED": N_("The offer is closed."),
    "E_WRONG_PHASE": N_("That cannot be done in this phase."),
    "E_WRONG_PIN": N_("That PIN is not right."),
    "E_WRONG_STEP": N_("That cannot be done at this step of the turn."),
}


def localise(code: str, message: str) -> tuple[str, dict[str, str]]:
    """The message for this tablet, and the details to add (the English original)."""
    sentence = SENTENCES.get(code)
    if sentence is None or str(get_locale() or "en") == "en":
        return message, {}
    return gettext(sentence), {"message_en": message}
