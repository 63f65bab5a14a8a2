"""``legal_commands`` + ``count_forms`` and ``apply`` agree in both directions (CPX-9, CPX-2).

Over random legal play (2 to 4 seats, several rule options, the shipped and the fixture map),
after every step: every listed command and random instances of every count form are accepted
and offered; random perturbations of them (a count +-1, another base, card, ability or route, a
list item dropped or doubled, the wrong seat, an unknown arg) are accepted exactly when
``offers`` says so, and otherwise refused with an ``E_`` code and a message.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import Command, CountForm, IllegalMove
from companion.games.cpx.data import GameData
from companion.games.cpx.game import Cpx
from companion.games.cpx.shape import offer_spelling

from .helpers import fixture_data

OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"all_terrain_reading": "route", "routing_card_usable": False},
    {"designate_any_battlefield": True, "combustion_boost_units": "any_number"},
    {"transport_reading": "two_steps", "card_moves_leave_one": True, "auto_pass": True},
    {"sea_wing_types": "choose_one", "shrink_ray_units": "any", "leave_one_own_colour": True},
    {"cap_applies_to_attacks": False, "battle_cards_by": "participants"},
]
SAMPLE = 30
"""Listed commands tried per step (all of them when fewer)."""


class _Cached(Cpx):
    """The shipped game, with the lists of one state kept while it is probed (speed only:
    ``offers`` itself is the shipped method)."""

    def __init__(self, data: GameData | None = None) -> None:
        super().__init__(data)
        self._state: Any = None
        self._legal: list[Command] = []
        self._forms: list[CountForm] = []

    def _fill(self, state: Any) -> None:
        if self._state is not state:
            self._state = state  # held, so its id cannot be reused by a newer state
            self._legal = Cpx.legal_commands(self, state)
            self._forms = Cpx.count_forms(self, state)

    def legal_commands(self, state: Any) -> list[Command]:
        self._fill(state)
        return self._legal

    def count_forms(self, state: Any) -> list[CountForm]:
        self._fill(state)
        return self._forms


def instance(form: CountForm, rng: random.Random) -> Command | None:
    """A random command admitted by ``form``: counts raised one at a time while the limits'
    maxima hold, stopping at a random admitted point."""
    for _ in range(20):
        counts = {k: lo for k, (lo, _hi) in form.counts.items()}
        keys = list(counts)
        for _step in range(4 * len(keys) + 40):
            if _admits(form, counts) and rng.random() < 0.25:
                break
            if not keys:
                break
            k = rng.choice(keys)
            if counts[k] >= form.counts[k][1]:
                continue
            counts[k] += 1
            if any(lim.max is not None and lim.total(counts) > lim.max for lim in form.limits):
                counts[k] -= 1
        if _admits(form, counts):
            shown = {k: n for k, n in counts.items() if n or rng.random() < 0.3}
            return _build(form, shown)
    return None


def _admits(form: CountForm, counts: dict[str, int]) -> bool:
    return all(lim.holds(counts) for lim in form.limits)


def _build(form: CountForm, counts: dict[str, int]) -> Command:
    args: dict[str, Any] = dict(form.fixed)
    if form.within is None:
        args.update(counts)
    else:
        args[form.within] = counts
    return Command(form.name, args, seat=form.seat)


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    out: list[tuple[tuple[Any, ...], Any]] = [(path, value)] if path else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _leaves(v, (*path, i))
    return out


def _set(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        out = dict(value)
        out[head] = _set(value[head], rest, new)
        return out
    out_list = list(value)
    out_list[head] = _set(value[head], rest, new)
    return out_list


def _mutate_leaf(game: Cpx, leaf: Any, rng: random.Random) -> Any:
    d = game.data
    if isinstance(leaf, int) and not isinstance(leaf, bool):
        return leaf + rng.choice((-1, 1))
    if isinstance(leaf, str):
        if leaf in d.base_by_id or leaf == "pool":
            return rng.choice([*d.base_by_id, "pool"])
        if leaf in d.card_by_id:
            return rng.choice(list(d.card_by_id))
        if leaf in d.ability_by_id:
            return rng.choice(list(d.ability_by_id))
        return rng.choice(["red", "blue", "black", "none", "land", "air", leaf + "x"])
    if isinstance(leaf, list):
        if leaf and rng.random() < 0.5:
            return leaf[:-1]
        return leaf + leaf[:1]
    if isinstance(leaf, dict) and leaf:
        k = rng.choice(list(leaf))
        out = dict(leaf)
        v = out.pop(k)
        if ">" in str(k):
            bases = list(d.base_by_id)
            out[f"{rng.choice(bases)}>{rng.choice(bases)}"] = v
        elif rng.random() < 0.5:
            out[rng.choice(["red", "blue", "green", "white", *list(d.card_by_id)[:3]])] = v
        return out
    return leaf


def perturb(game: Cpx, s: Any, cmd: Command, rng: random.Random) -> Command:
    args = json.loads(json.dumps(dict(cmd.args)))
    roll = rng.random()
    n = len(s.players)
    if roll < 0.15:
        seats = [None, *range(n)]
        seats.remove(cmd.seat)
        return Command(cmd.name, args, seat=rng.choice(seats))
    if roll < 0.25:
        if isinstance(args.get("targets"), dict) and rng.random() < 0.5:
            args["targets"] = {**args["targets"], "extra": 1}
        else:
            args["extra"] = rng.choice([0, 1, "B1"])
        return Command(cmd.name, args, seat=cmd.seat)
    leaves = _leaves(args)
    if not leaves:
        return Command(cmd.name, {"extra": 1}, seat=cmd.seat)
    path, leaf = rng.choice(leaves)
    return Command(cmd.name, _set(args, path, _mutate_leaf(game, leaf, rng)), seat=cmd.seat)


def _accepted(game: Cpx, s: Any, cmd: Command) -> tuple[bool, IllegalMove | None]:
    try:
        game.apply(s, cmd)
    except IllegalMove as exc:
        return False, exc
    return True, None


def check_state(game: _Cached, s: Any, rng: random.Random) -> list[Command]:
    """Every check of the module's docstring on one state; returns the form instances made."""
    legal = game.legal_commands(s)
    forms = game.count_forms(s)
    tried = legal if len(legal) <= SAMPLE else rng.sample(legal, SAMPLE)
    made = [c for f in forms for c in (instance(f, rng) for _ in range(3)) if c is not None]
    for cmd in tried:
        if cmd.name != "choose_hand":  # hands are listed as lists, offered as 0/1 counts
            assert offer_spelling(cmd) == cmd, f"listed in another spelling: {cmd}"
    for cmd in tried + made:
        ok, exc = _accepted(game, s, cmd)
        assert ok, f"offered but refused: {cmd} -> {exc and exc.to_json()}"
        assert game.offers(s, cmd), f"accepted but not offered: {cmd}"
    for cmd in tried + made:
        for _ in range(2):
            bad = perturb(game, s, cmd, rng)
            ok, exc = _accepted(game, s, bad)
            assert ok == game.offers(s, bad), f"offers() says {not ok} for {bad} ({exc})"
            if exc is not None:
                assert exc.code.startswith("E_") and exc.message, exc.to_json()
    return made


def _play(game: _Cached, seed: int, n: int, options: dict[str, Any], steps: int) -> None:
    rng = random.Random(seed)
    setup = game.selfplay_setup(["random"] * n, seed)
    setup = type(setup)(
        seats=setup.seats, options={**setup.options, **options}, seed=setup.seed
    )
    s = game.initial_state(setup)
    for _ in range(steps):
        if game.outcome(s) is not None:
            break
        made = check_state(game, s, rng)
        cmd = game.simulate_chance(s, rng) if rng.random() < 0.8 else None
        if cmd is None:
            legal = game.legal_commands(s)
            pool = legal + made if made and rng.random() < 0.3 else legal
            cmd = rng.choice(pool or made)
        s, _ = game.apply(s, cmd)


SHIPPED = _Cached()
FIXTURE = _Cached(fixture_data())


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n=st.sampled_from([2, 3, 4]),
    options=st.sampled_from(OPTION_SETS),
)
def test_legal_lists_and_forms_agree_with_apply_cpx_9_cpx_2(
    seed: int, n: int, options: dict[str, Any]
) -> None:
    """CPX-9, CPX-2, CPX-106: the listed commands and count forms are exactly what apply
    accepts, on the shipped map."""
    _play(SHIPPED, seed, n, options, 120)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n=st.sampled_from([2, 3, 4]),
    options=st.sampled_from(OPTION_SETS),
)
def test_agreement_on_the_fixture_map_cpx_150(seed: int, n: int, options: dict[str, Any]) -> None:
    """CPX-150: the same agreement on the small fixture map, where battles come sooner."""
    _play(FIXTURE, seed, n, options, 160)


def test_equivalent_spellings_are_offered_cpx_46() -> None:
    """CPX-46: a hand named as a list in any order and as 0/1 counts is the same request."""
    s = SHIPPED.initial_state(SHIPPED.selfplay_setup(["random", "random"], 3))
    rng = random.Random(0)
    while s.phase != "hand_choice":
        s, _ = SHIPPED.apply(s, SHIPPED.simulate_chance(s, rng) or SHIPPED.legal_commands(s)[0])
    cards = s.cards_of(0)
    for spelled in (
        {"cards": cards[::-1]},
        {"cards": {c: 1 for c in cards}},
        {"cards": {cards[0]: 0}},
    ):
        cmd = Command("choose_hand", spelled, seat=0)
        assert SHIPPED.offers(s, cmd)
        SHIPPED.apply(s, cmd)
    assert offer_spelling(Command("choose_hand", {"cards": cards}, seat=0)).args["cards"] == {
        c: 1 for c in cards
    }


def _card_states(options: dict[str, Any]) -> list[Any]:
    """Positions full of card abilities: a move turn with every moving card and All-terrain
    Traverse with a land card, a battle with bonuses, moves and pairs, and a recruit phase."""
    from .helpers import open_bb, scenario

    move = scenario(
        owners={"B1": 0, "B3": 0, "B9": 0, "B10": 0, "B2": 1, "B4": 1},
        units={
            "B1": {"red": 6},
            "B3": {"red": 4},
            "B9": {"red": 9},
            "B10": {"red": 2},
            "B4": {"blue": 3},
        },
        hands={0: ["C22", "C11", "C08", "C18", "C12", "C05"], 1: ["C13", "C16"]},
        options=options,
    )
    battle = open_bb(
        hands={
            0: ["C01", "C02", "C05", "C08", "C18", "C12"],
            1: ["C13", "C16", "C19", "C22", "C06", "C09"],
        },
        owners={"B3": 0},
        units={"B3": {"red": 3}},
        options=options,
    )
    recruit = scenario(
        owners={"B1": 0, "B3": 0, "B2": 1, "B4": 1},
        units={"B1": {"red": 3}, "B2": {"blue": 2}},
        hands={0: ["C16", "C14"], 1: ["C09", "C13"]},
        phase="recruit",
        acting=None,
        options=options,
    )
    from companion.games.cpx.ctx import Ctx
    from companion.games.cpx.flow import next_recruiter

    ctx = Ctx(FIXTURE.data, recruit)
    next_recruiter(ctx)
    return [move, battle, ctx.s]


def test_paired_rapid_deployment_is_a_count_form_cpx_134_cpx_139() -> None:
    """CPX-134, CPX-139: All-terrain Traverse paired with Rapid Deployment (a land card) is a
    count form in the flat spelling; its instances and the nested spelling are accepted, and
    the full list it stands for would have thousands of entries."""
    from .helpers import scenario

    units = {"sapporo": {"red": 5}, "tokyo": {"red": 9}, "kinshasa": {"red": 4}, "lagos": {}}
    s = scenario(
        owners={"sapporo": 0, "tokyo": 0, "kinshasa": 0, "lagos": 0, "nairobi": 0, "london": 1},
        units={b: u for b, u in units.items() if u},
        hands={0: ["C18", "C23", "C22"]},
        game=SHIPPED,
    )
    forms = [f for f in SHIPPED.count_forms(s) if f.fixed.get("paired_card") == "C23"]
    assert len(forms) == 1 and forms[0].fixed["paired_ability"] == "C23b"
    rng = random.Random(1)
    for _ in range(30):
        cmd = instance(forms[0], rng)
        assert cmd is not None and SHIPPED.offers(s, cmd)
        SHIPPED.apply(s, cmd)
    nested = Command(
        "activate",
        {
            "card": "C18",
            "ability": "C18a",
            "paired_card": "C23",
            "targets": {"ability": "b", "targets": {"moves": [{"from": "tokyo", "to": "sapporo"}]}},
        },
        seat=0,
    )
    assert SHIPPED.offers(s, nested)
    SHIPPED.apply(s, nested)
    for _ in range(3):
        check_state(SHIPPED, s, rng)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), options=st.sampled_from(OPTION_SETS))
def test_agreement_in_card_heavy_positions_cpx_71_cpx_116(
    seed: int, options: dict[str, Any]
) -> None:
    """CPX-71, CPX-116, CPX-134, CPX-139: every target of every ability in these positions
    is listed (or admitted by Rapid Deployment's form), and nothing else is accepted."""
    rng = random.Random(seed)
    for s in _card_states(options):
        for _ in range(20):
            if FIXTURE.outcome(s) is not None:
                break
            made = check_state(FIXTURE, s, rng)
            legal = FIXTURE.legal_commands(s)
            cmd = FIXTURE.simulate_chance(s, rng) or rng.choice(legal + made)
            s, _ = FIXTURE.apply(s, cmd)
