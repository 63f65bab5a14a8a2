"""Fixtures of §14 (CPX-150): the 22-base fixture map, recruitment card RC-T, and a scenario
builder that lays out a position with cube conservation kept (pools are what is left)."""

from __future__ import annotations

from functools import cache
from typing import Any

from companion.engine import Command, IllegalMove, Seat, Setup
from companion.games.cpx.data import (
    Base,
    Card,
    GameData,
    RecruitmentCard,
    Route,
    build,
    default_data,
)
from companion.games.cpx.game import Cpx
from companion.games.cpx.ledger import colour_totals
from companion.games.cpx.state import COMMITTED, DISCARD, HAND, MOVE, RECRUIT, State

RC_T = ((20, 5), (12, 4), (6, 3), (3, 2), (1, 3))
FIXTURE_CARDS = {
    "B1": "C08",
    "B2": "C17",
    "B3": "C04",
    "B4": "C03",
    "B5": "C12",
    "B6": "C15",
    "B7": "C16",
    "B8": "C13",
}
for _i, _c in enumerate(
    [
        "C01",
        "C02",
        "C05",
        "C06",
        "C07",
        "C09",
        "C10",
        "C11",
        "C14",
        "C18",
        "C19",
        "C20",
        "C21",
        "C22",
    ]
):
    FIXTURE_CARDS[f"B{9 + _i}"] = _c
COLOURS_OF = {"B1": "red", "B2": "blue", "B7": "yellow", "B8": "green"}
ROUTES = [
    ("B1", "B3", "yellow"),
    ("B1", "B4", "blue"),
    ("B1", "B5", "pink"),
    ("B2", "B3", "yellow"),
    ("B2", "B4", "blue"),
    ("B2", "B6", "pink"),
    ("B3", "B4", "yellow"),
    ("B3", "B7", "yellow"),
    ("B4", "B8", "blue"),
    ("B5", "B6", "pink"),
    ("B6", "B8", "yellow"),
    ("B7", "B8", "blue"),
] + [(f"B{i}", f"B{i + 1}", "yellow") for i in range(8, 22)]


@cache
def fixture_data() -> GameData:
    d = default_data()
    bases = [
        Base(b, f"Base {b}", f"基地{b}", COLOURS_OF.get(b), c) for b, c in FIXTURE_CARDS.items()
    ]
    cards = []
    for b, cid in FIXTURE_CARDS.items():
        c = d.card_by_id[cid]
        cards.append(Card(c.id, b, c.name_zh, c.name_en, c.type, c.abilities))
    rcs = [RecruitmentCard(f.id, "RC-T", "RC-T", RC_T) for f in d.factions]
    return build(
        d.factions,
        bases,
        [Route(a, b, c) for a, b, c in ROUTES],
        cards,
        rcs,
        d.supply,
        d.settings_defaults,
        shipped=False,
    )


GAME = Cpx(fixture_data())
SHIPPED = Cpx()
RED, BLUE, YELLOW, GREEN = "red", "blue", "yellow", "green"
FACTION_OF = {RED: "soviet", BLUE: "allies", YELLOW: "rising_sun", GREEN: "orcs"}


def setup(n: int = 2, first: int = 0, **options: Any) -> Setup:
    colours = [RED, BLUE, YELLOW, GREEN][:n]
    camps = "AB" if n == 2 else "ABAB"[:n]
    seats = [Seat(f"P{i + 1}", colour=FACTION_OF[c], camp=camps[i]) for i, c in enumerate(colours)]
    return Setup(seats=seats, options={"first_chooser": first, **options})


def scenario(
    n: int = 2,
    owners: dict[str, int] | None = None,
    units: dict[str, dict[str, int]] | None = None,
    tower: dict[str, int] | None = None,
    hands: dict[int, list[str]] | None = None,
    phase: str = MOVE,
    acting: int | None = 0,
    order: list[int] | None = None,
    attacks: list[tuple[int, str, str, int, str]] | None = None,
    pools: dict[str, int] | None = None,
    options: dict[str, Any] | None = None,
    round_no: int = 1,
    game: Cpx | None = None,
) -> State:
    """A position: base owners (cards in the discard pile unless in ``hands``), units, tower.

    ``attacks`` lists ``(seat, from, to, units, card)`` already made: the units are counted on
    ``to`` by ``units`` and the card is committed. Pools hold the rest of each colour's supply;
    ``pools`` may fix some of them, the difference going into the tower so that conservation
    holds.
    """
    game = game or GAME
    s = game.initial_state(setup(n, **(options or {})))
    d = game.data
    s.choosers_left = []
    s.phase = phase
    s.round = round_no
    s.order = order if order is not None else list(range(n))
    s.acting = acting
    s.window = {MOVE: "move", RECRUIT: "recruit"}.get(phase)
    for p in s.players:
        p["hand_chosen"] = True
        s.markers[p["colour"]] = 1
    for base, seat in (owners or {}).items():
        s.cards[d.card_of_base[base]] = {"holder": seat, "place": DISCARD, "attack": None}
    for seat, cards in (hands or {}).items():
        for c in cards:
            s.cards[c] = {"holder": seat, "place": HAND, "attack": None}
    for base, here in (units or {}).items():
        for colour, k in here.items():
            s.add_units(base, colour, k)
    for i, (seat, origin, target, k, card) in enumerate(attacks or []):
        s.attacks.append(
            {
                "seq": i + 1,
                "player": seat,
                "from": origin,
                "to": target,
                "units": k,
                "route": d.route(origin, target),
                "card": card,
                "paired_card": None,
            }
        )
        s.cards[card] = {"holder": seat, "place": COMMITTED, "attack": i + 1}
    for colour, k in (tower or {}).items():
        s.tower[colour] = k
    totals = colour_totals(s)
    for colour in s.supply:
        s.pools[colour] = s.supply[colour] - (totals[colour] - s.pools[colour])
    for colour, want in (pools or {}).items():
        extra = s.pools[colour] - want
        s.pools[colour] = want
        s.tower[colour] = s.tower.get(colour, 0) + extra
    return s


def do(state: State, name: str, seat: int | None = None, **args: Any) -> State:
    """Apply a command that must be accepted."""
    new, _events = GAME.apply(state, Command(name, args, seat=seat))
    return new


def refused(state: State, name: str, seat: int | None = None, **args: Any) -> str:
    """Apply a command that must be refused; the state must be unchanged. Returns the code."""
    before = GAME.dump_state(state)
    try:
        GAME.apply(state, Command(name, args, seat=seat))
    except IllegalMove as exc:
        assert GAME.dump_state(state) == before
        return exc.code
    raise AssertionError(f"{name} {args} from seat {seat} was accepted")


def pass_all(state: State) -> State:
    """Every eligible player passes once (closes the open window or resolves the stack)."""
    from companion.games.cpx import abilities
    from companion.games.cpx.ctx import Ctx

    ctx = Ctx(GAME.data, state)
    for seat in abilities.pass_eligible(ctx):
        if seat not in state.passes:
            state = do(state, "pass", seat)
            ctx = Ctx(GAME.data, state)
            if not abilities.pass_eligible(ctx):
                break
    return state


def drop(state: State, **counts: int) -> State:
    state = do(state, "report_drop", counts=counts)
    return do(state, "confirm_drop")


def battle_baseline(
    red: int = 5, blue: int = 3, tower: dict[str, int] | None = None, **kw: Any
) -> State:
    """BB (§14): P2 owns B4 (3 blue), P1 attacked it from B1 along the blue route with C07.

    The position is at P2's move turn; ``end_move`` by P2 opens the battle at B4.
    """
    hands = kw.pop("hands", None)
    owners = {"B1": 0, "B4": 1, "B2": 1, **kw.pop("owners", {})}
    units = {"B1": {RED: 1}, "B4": {BLUE: blue, RED: red}, **kw.pop("units", {})}
    return scenario(
        owners=owners,
        units=units,
        tower=tower,
        hands=hands,
        acting=1,
        attacks=[(0, "B1", "B4", red, "C07")],
        **kw,
    )


def open_bb(**kw: Any) -> State:
    s = battle_baseline(**kw)
    s.recruited = [0]
    return do(s, "end_move", 1)
