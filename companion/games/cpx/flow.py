"""Setup (§3), round structure and turn order (§4), the recruit phase (§5), the end phase (§8) and
victory and elimination (§9): everything that moves the game from one step to the next.
"""

from __future__ import annotations

from typing import Any

from companion.engine import Setup

from .ctx import Ctx, fail
from .data import NEUTRAL_COLOURS, PLAYER_COLOURS, GameData
from .options import resolve_options
from .state import (
    CHOOSE_START,
    COLLECTION,
    DISCARD,
    HAND,
    HAND_CHOICE,
    MOVE,
    OVER,
    PRIMING,
    RECRUIT,
    SUPPLY,
    State,
)

CAP = 10


# --- setup (CPX-31..CPX-39) ----------------------------------------------------------------------


def initial_state(d: GameData, setup: Setup) -> State:
    """Validate players, factions and camps, and lay out the pools before the base choice."""
    seats = list(setup.seats)
    if not 2 <= len(seats) <= 4:
        fail("E_SETUP_INVALID", f"Command Post Exercise needs 2 to 4 players, not {len(seats)}.")
    colour_of = {f.id: f.colour for f in d.factions}
    colour_of.update({f.colour: f.colour for f in d.factions})
    players: list[dict[str, Any]] = []
    used: set[str] = set()
    for i, seat in enumerate(seats):
        if seat.colour is None:
            colour = next(c for c in PLAYER_COLOURS if c not in used and c not in _given(seats))
        elif seat.colour in colour_of:
            colour = colour_of[seat.colour]
        else:
            fail("E_SETUP_INVALID", f"'{seat.colour}' is not a faction or a faction colour.")
        if colour in used:
            name = d.faction_by_colour[colour].name_en
            fail(
                "E_SETUP_INVALID", f"{name} is named twice: each player takes a different faction."
            )
        used.add(colour)
        camp = seat.camp if seat.camp is not None else "AB"[i % 2]
        if camp not in ("A", "B"):
            fail("E_SETUP_INVALID", f"A camp is 'A' or 'B', not '{camp}'.")
        faction = d.faction_by_colour[colour]
        players.append(
            {
                "faction": faction.id,
                "colour": colour,
                "camp": camp,
                "out": False,
                "out_round": None,
                "hand_chosen": False,
            }
        )
    for camp in ("A", "B"):
        n = sum(1 for p in players if p["camp"] == camp)
        if not 1 <= n <= 2:
            fail(
                "E_SETUP_INVALID",
                f"Camp {camp} has {n} players: each camp has 1 or 2 (1 v 1, 2 v 1 or 2 v 2).",
            )
    options = resolve_options(setup.options, d.settings_defaults)
    first = setup.options.get("first_chooser", 0)
    if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < len(players):
        fail("E_SETUP_INVALID", "first_chooser must be the seat number of one of the players.")
    per = options["cubes_per_colour"]
    in_play = [p["colour"] for p in players] + list(NEUTRAL_COLOURS)
    supply = {c: per for c in in_play}
    s = State(
        players=players,
        options=options,
        supply=supply,
        pools=dict(supply),
        markers={p["colour"]: 0 for p in players},
        units={},
        cards={c.id: {"holder": None, "place": SUPPLY, "attack": None} for c in d.cards},
        tower={c: 0 for c in supply},
        phase=CHOOSE_START,
        first_chooser=first,
        choosers_left=[(first + k) % len(players) for k in range(len(players))],
    )
    return s


def _given(seats: list[Any]) -> set[str]:
    out = set()
    for seat in seats:
        if seat.colour in PLAYER_COLOURS:
            out.add(seat.colour)
    return out


def choose_start(ctx: Ctx, seat: int, base: Any) -> None:
    """CPX-36 and CPX-37: 3 units and the base's card, and the marker on 1."""
    s = ctx.s
    if s.phase != CHOOSE_START:
        fail("E_WRONG_PHASE", "Starting bases have all been chosen.")
    if s.choosers_left[0] != seat:
        who = ctx.faction_name(s.choosers_left[0])
        fail("E_NOT_YOUR_TURN", f"It is {who}'s turn to choose a starting base.")
    colour = s.colour_of(seat)
    b = ctx.d.base_by_id.get(base) if isinstance(base, str) else None
    if b is None:
        fail("E_TARGET_INVALID", f"There is no base '{base}'.")
    if b.faction_colour != colour:
        fail(
            "E_START_BASE_COLOUR",
            f"{ctx.base_name(base)} is not a {colour} base: choose one of your own colour.",
        )
    s.pools[colour] -= 4
    s.add_units(base, colour, 3)
    s.markers[colour] = 1
    card = ctx.d.card_of_base[base]
    s.cards[card] = {"holder": seat, "place": COLLECTION, "attack": None}
    s.choosers_left.pop(0)
    ctx.emit(
        "start_chosen",
        seat=seat,
        base=base,
        card=card,
        table=f"Put 3 {colour} on {ctx.base_name(base)}, give {ctx.card_name(card)} to "
        f"{ctx.faction_name(seat)}, and put a {colour} marker on 1.",
    )
    if not s.choosers_left:
        _start_priming(ctx)


def _start_priming(ctx: Ctx) -> None:
    """CPX-38: 7 per player and 5 black and 5 white (per table, or per player by option)."""
    s = ctx.s
    inp: dict[str, int] = {}
    for p in s.players:
        inp[p["colour"]] = min(7, s.pools[p["colour"]])
    k = len(s.players) if s.options["priming_neutral_per_player"] else 1
    for colour in NEUTRAL_COLOURS:
        inp[colour] = min(5 * k, s.pools[colour])
    s.phase = PRIMING
    s.drop = {"kind": "priming", "input": inp, "report": None, "source": None}
    shown = ", ".join(f"{n} {c}" for c, n in inp.items())
    ctx.emit("drop_awaited", kind="priming", input=inp, table=f"Drop into the tower: {shown}.")


# --- turn order (CPX-41..CPX-43, CPX-98) -----------------------------------------------------


def priority(ctx: Ctx, seat: int) -> int:
    return ctx.d.faction_by_id[ctx.s.players[seat]["faction"]].priority


def compute_order(ctx: Ctx, first_round: bool = False) -> list[int]:
    """The first player by base count with the priority tie-break, then seating or ranking."""
    s = ctx.s
    alive = s.active_seats()
    if not alive:
        return []
    ranked = sorted(alive, key=lambda i: (-s.base_count(i), priority(ctx, i)))
    if s.options["turn_order"] == "ranking":
        return ranked
    first = ranked[0]
    if first_round and s.options["first_round_first_player"] == "first_chooser":
        first = s.first_chooser
    n = len(s.players)
    return [(first + k) % n for k in range(n) if not s.players[(first + k) % n]["out"]]


# --- rounds -------------------------------------------------------------------------------------


def start_round(ctx: Ctx) -> None:
    """CPX-45: the round number, set-aside units back, then the hand choice."""
    s = ctx.s
    s.round += 1
    return_set_aside(ctx)
    s.phase = HAND_CHOICE
    s.window = None
    for p in s.players:
        p["hand_chosen"] = p["out"]
    ctx.emit("round_started", round=s.round, order=list(s.order))


def return_set_aside(ctx: Ctx) -> None:
    """CPX-119: set-aside units go back to their base if it is friendly and has room."""
    s = ctx.s
    entries, s.set_aside = s.set_aside, []
    by_base: dict[str, list[dict[str, Any]]] = {}
    for e in entries:
        by_base.setdefault(e["base"], []).append(e)
    for base, group in by_base.items():
        owner = ctx.owner(base)

        def rank(e: dict[str, Any], owner: int | None = owner) -> int:
            seat = s.seat_of_colour(e["colour"])
            return 0 if seat == owner else 1

        for e in sorted(group, key=rank):
            colour, n = e["colour"], e["count"]
            seat = s.seat_of_colour(colour)
            back = 0
            if (
                s.options["blackout_return"] == "same_base"
                and seat is not None
                and not s.players[seat]["out"]
                and ctx.is_friendly(base, seat)
            ):
                back = min(n, CAP - ctx.friendly_units(base, seat))
            if back:
                s.add_units(base, colour, back)
            s.pools[colour] += n - back
            ctx.emit("set_aside_returned", base=base, colour=colour, to_base=back, to_pool=n - back)


def choose_hand(ctx: Ctx, seat: int, cards: Any) -> None:
    """CPX-46: 0 to 5 of his cards in hand, all the others in the discard pile."""
    s = ctx.s
    if s.phase != HAND_CHOICE or s.players[seat]["hand_chosen"]:
        fail("E_WRONG_PHASE", "Hands are chosen once, at the start of the recruit phase.")
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        fail("E_BAD_REQUEST", "choose_hand needs a list of card ids.")
    if len(cards) > 5:
        fail("E_HAND_TOO_LARGE", f"A hand holds at most 5 cards, not {len(cards)}.")
    held = set(s.cards_of(seat))
    if len(set(cards)) != len(cards):
        fail("E_CARD_NOT_OWNED", "A card is named twice.")
    for c in cards:
        if c not in held:
            fail("E_CARD_NOT_OWNED", f"You do not hold {ctx.card_name(c)}.", card=c)
    for c in held:
        s.cards[c]["place"] = HAND if c in cards else DISCARD
        s.cards[c]["attack"] = None
    s.players[seat]["hand_chosen"] = True
    ctx.emit("hand_chosen", seat=seat, size=len(cards))
    if all(p["hand_chosen"] for p in s.players):
        s.phase = RECRUIT
        s.window = "recruit"
        s.recruited = []
        s.acting = None
        ctx.emit("phase", phase=RECRUIT)
        next_recruiter(ctx)


def own_bases(ctx: Ctx, seat: int) -> list[str]:
    return sorted(ctx.d.card_by_id[c].base for c in ctx.s.cards_of(seat))


def next_recruiter(ctx: Ctx) -> None:
    """CPX-48, CPX-51, CPX-53: start the next player's recruitment, forfeiting what cannot go."""
    s = ctx.s
    while True:
        if s.acting is None:
            pending = [i for i in s.order if i not in s.recruited and not s.players[i]["out"]]
            if not pending:
                s.window = None
                start_move_phase(ctx)
                return
            s.acting = pending[0]
            b = s.base_count(s.acting)
            rc = ctx.d.recruitment_by_faction[s.players[s.acting]["faction"]]
            s.squads_left = rc.squads(b)
            ctx.emit("recruitment_started", seat=s.acting, squads=list(s.squads_left))
        if s.squads_left and not any(b not in s.blocked for b in own_bases(ctx, s.acting)):
            ctx.emit("squads_forfeited", seat=s.acting, squads=list(s.squads_left))
            s.squads_left = []
        if s.squads_left:
            return
        s.recruited.append(s.acting)
        s.acting = None


def recruit(ctx: Ctx, seat: int, base: Any) -> None:
    """CPX-49..CPX-52: the first squad, all at once, on one own unblocked base, within the cap."""
    s = ctx.s
    if s.phase != RECRUIT:
        fail("E_WRONG_PHASE", "Squads are recruited in the recruit phase.")
    if s.acting != seat:
        fail("E_NOT_YOUR_TURN", "It is not your recruitment.")
    if not isinstance(base, str) or base not in ctx.d.base_by_id or ctx.owner(base) != seat:
        fail("E_NOT_OWN_BASE", f"{ctx.base_name(str(base))} is not one of your bases.")
    if base in s.blocked:
        fail("E_BASE_BLOCKED", f"{ctx.base_name(base)} is blocked by Lurking Operation this phase.")
    colour = s.colour_of(seat)
    cubes = s.squads_left.pop(0)
    placed = max(0, min(cubes, CAP - ctx.friendly_units(base, seat), s.pools[colour]))
    s.pools[colour] -= placed
    if placed:
        s.add_units(base, colour, placed)
    ctx.emit(
        "recruited",
        seat=seat,
        base=base,
        squad=cubes,
        placed=placed,
        table=f"Put {placed} {colour} on {ctx.base_name(base)}.",
    )
    next_recruiter(ctx)


def start_move_phase(ctx: Ctx) -> None:
    s = ctx.s
    s.phase = MOVE
    s.window = "move"
    s.recruited = []
    s.acting = next((i for i in s.order if not s.players[i]["out"]), None)
    ctx.emit("phase", phase=MOVE, acting=s.acting)


def next_mover(ctx: Ctx) -> None:
    """CPX-55: the next player in turn order who is still in; then the battle phase."""
    s = ctx.s
    assert s.acting is not None
    s.recruited.append(s.acting)
    rest = [i for i in s.order if i not in s.recruited and not s.players[i]["out"]]
    if rest:
        s.acting = rest[0]
        ctx.emit("move_turn", seat=s.acting)
        return
    s.acting = None
    s.recruited = []
    from .battle import start_battle_phase  # battle imports this module

    start_battle_phase(ctx)


# --- end phase (CPX-96..CPX-99) ----------------------------------------------------------------


def end_phase(ctx: Ctx) -> None:
    s = ctx.s
    ctx.emit("phase", phase="end")
    check_victory(ctx, end_phase=True)
    if s.phase == OVER:
        return
    for c in s.cards.values():
        if c["holder"] is not None:
            c["place"] = COLLECTION
            c["attack"] = None
    s.order = compute_order(ctx)
    s.attacks = []
    s.blocked = []
    s.queue = []
    s.battle = None
    s.window = None
    s.acting = None
    start_round(ctx)


# --- victory and elimination (CPX-94, CPX-100..CPX-104) ------------------------------------------


def markers_and_checks(ctx: Ctx, before: list[int]) -> None:
    """CPX-94: move the markers of every player whose count changed, then run §9."""
    s = ctx.s
    for seat, was in enumerate(before):
        now = s.base_count(seat)
        if now != was and not s.players[seat]["out"]:
            colour = s.colour_of(seat)
            ctx.emit(
                "marker",
                seat=seat,
                base_count=now,
                table=f"Move the {colour} marker to {min(now, 30)}.",
            )
    for seat, p in enumerate(s.players):
        if not p["out"] and s.base_count(seat) == 0:
            eliminate(ctx, seat)
    check_victory(ctx, end_phase=False)


def counts(ctx: Ctx) -> list[int]:
    """Base counts by seat (a list, so the state stays JSON with the same shape)."""
    return [ctx.s.base_count(i) for i in range(len(ctx.s.players))]


def eliminate(ctx: Ctx, seat: int) -> None:
    """CPX-101: his units, set-aside and bound units and his marker go to his pool."""
    s = ctx.s
    colour = s.colour_of(seat)
    back = 0
    for base in list(s.units):
        n = s.units_of(base, colour)
        if n:
            s.add_units(base, colour, -n)
            back += n
    for e in [e for e in s.set_aside if e["colour"] == colour]:
        back += e["count"]
        s.set_aside.remove(e)
    back += s.bound.pop(colour, 0)
    back += s.markers[colour]
    s.markers[colour] = 0
    s.pools[colour] += back
    s.players[seat]["out"] = True
    s.players[seat]["out_round"] = s.round
    ctx.emit(
        "player_out",
        seat=seat,
        table=f"{ctx.faction_name(seat)} is out: all {colour} cubes on the map go to the pool.",
    )
    if s.phase == MOVE and s.acting == seat:
        next_mover(ctx)


def check_victory(ctx: Ctx, end_phase: bool) -> None:
    """CPX-100, CPX-102, CPX-104: 30 bases for a camp, or a camp with every player out."""
    s = ctx.s
    if s.phase == OVER:
        return
    if s.options["victory_check"] == "end_phase_only" and not end_phase:
        return
    winner = None
    condition = None
    for camp in ("A", "B"):
        if s.camp_bases(camp) >= 30:
            winner, condition = camp, "thirty_bases"
            break
    if winner is None:
        for camp in ("A", "B"):
            if all(p["out"] for p in s.players if p["camp"] == camp):
                winner, condition = ctx.other_camp(camp), "camp_defeat"
                break
    if winner is None:
        return
    seats = [i for i, p in enumerate(s.players) if p["camp"] == winner]
    s.result = {
        "camp": winner,
        "winners": seats,
        "condition": condition,
        "round": s.round,
        "phase": "end" if end_phase else s.phase,
    }
    s.phase = OVER
    s.window = None
    s.acting = None
    names = " and ".join(ctx.faction_name(i) for i in seats)
    ctx.emit("game_over", **s.result, table=f"Camp {winner} ({names}) wins: {condition}.")
