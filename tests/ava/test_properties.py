"""Property tests over random legal play (AVA-2, AVA-4, AVA-19, AVA-117, G47, replay).

Hypothesis picks the seed and a handful of rule options; the random policy then plays. After
every command: no money or unit count below 0, each square owned by at most one side, every
offered command accepted (listed, or any instance of a count form), conserving commands
conserve, and requests not offered rejected with a reason: ``apply`` accepts exactly what
``offers`` says, also just inside and just outside every count form's bounds.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import Command, CountForm, IllegalMove, Seat, Setup
from companion.games.ava import GAME
from companion.games.ava.state import AvaState

OPTION_CHOICES: dict[str, list[Any]] = {
    "penalty_before_invasion": [False, True],
    "penalty_from_garrisons": [False, True],
    "penalty_removal": ["weakest_first", "min_overshoot"],
    "neutral_must_act": [False, True],
    "ransom_payable_immediately": [False, True],
    "allow_garrison_withdrawal": [False, True],
    "recruit_before_resolution": [False, True],
    "deck_model": ["weighted_replacement", "shuffled_finite"],
    "main_end_condition": ["conquest", "sudden_death"],
    "no_rebuild_same_square": [False, True],
}
options_strategy = st.fixed_dictionaries({k: st.sampled_from(v) for k, v in OPTION_CHOICES.items()})
VOCAB = [
    "spin",
    "strategic_move",
    "decline_move",
    "invade",
    "treaty",
    "build_base",
    "ally",
    "penalty",
    "pass",
    "recruit",
    "garrison",
    "withdraw",
    "use_card",
    "discard",
    "nuke",
    "pay_ransom",
    "end_turn",
]
COUNT_COMMANDS = {"invade", "recruit", "garrison", "withdraw"}


def start(seed: int, options: dict[str, Any], mode: str) -> AvaState:
    seats = [Seat("A", camp="allies", ai="random"), Seat("B", camp="axis", ai="battleship")]
    setup = Setup(
        seats=seats,
        mode=mode,
        seed=seed,
        options={**options, "turn_limit": 100, "starting_money": 3000},
    )
    return GAME.initial_state(setup)


def check_invariants(s: AvaState) -> None:
    for p in s.players:
        assert p.money >= 0 and all(n >= 0 for n in p.available)
        assert p.nukes >= 0 and all(n >= 0 for n in p.recruited_this_turn)
        assert 1 <= p.position <= 36
    assert all(o in (None, 0, 1) for o in s.owner)  # one owner at most per square
    for n, g in enumerate(s.garrison, start=1):
        assert all(k >= 0 for k in g)
        if sum(g):
            assert s.owner[n - 1] is not None  # units stand only on owned territories
    assert 0 <= s.spies_drawn <= 4


def total_units(s: AvaState, side: int) -> tuple[int, ...]:
    units = list(s.players[side].available)
    for n in range(36):
        if s.owner[n] == side:
            units = [a + b for a, b in zip(units, s.garrison[n], strict=True)]
    return tuple(units)


def check_conservation(before: AvaState, after: AvaState, c: Command) -> None:
    side = before.current
    if c.name in ("garrison", "withdraw"):
        assert total_units(before, side) == total_units(after, side)
        assert before.players[side].money == after.players[side].money
    if c.name == "pay_ransom" and after.result is None:
        paid = before.players[side].money - after.players[side].money
        gained = after.players[1 - side].money - before.players[1 - side].money
        assert paid > 0
        if after.current == side:
            assert gained == paid  # the ransom goes to the opponent, nothing else moves
        else:
            assert gained >= paid  # the turn ended at once (AVA-107): the opponent collected


def random_request(rng: random.Random, s: AvaState) -> Command:
    name = rng.choice(VOCAB)
    args: dict[str, Any] = {}
    if name == "spin":
        args["value"] = rng.randint(-1, 8)
    elif name == "strategic_move":
        args = {"direction": rng.choice(["forward", "back", "up"]), "steps": rng.randint(0, 3)}
    elif name in COUNT_COMMANDS:
        args = {u: rng.randint(0, 30) for u in "ITPB"}
        if name != "invade":
            args["square"] = rng.randint(1, 36)
    elif name in ("use_card", "discard"):
        args["card"] = rng.choice(["S01", "S02", "S04", "S05", "S06", "S07", "F01", "X"])
        if rng.random() < 0.5:
            args["target"] = rng.randint(1, 36)
    elif name == "nuke":
        args["target"] = rng.randint(1, 36)
    seat = s.me.seat if rng.random() < 0.9 else 1 - s.me.seat
    return Command(name, args, seat=seat)


def form_instance(rng: random.Random, form: CountForm) -> Command:
    """A random instance of ``form``: random counts, then the limits met by walking toward them."""
    counts = {k: rng.randint(lo, hi) for k, (lo, hi) in form.counts.items()}
    for limit in form.limits:
        if limit.max is not None:
            while limit.total(counts) > limit.max:
                k = rng.choice([k for k in counts if counts[k] > form.counts[k][0]])
                counts[k] -= 1
    for limit in form.limits:
        if limit.min is not None:
            while limit.total(counts) < limit.min:
                k = rng.choice([k for k in counts if counts[k] < form.counts[k][1]])
                counts[k] += 1
    command = Command(form.name, {**form.fixed, **counts}, seat=form.seat)
    if all(limit.holds(counts) for limit in form.limits):
        assert form.admits(command)
    return command


def near_bounds(rng: random.Random, form: CountForm) -> list[Command]:
    """Counts one step either side of a range end, and one unknown argument."""
    out = []
    for key, (low, high) in form.counts.items():
        base = form_instance(rng, form)
        for value in (low - 1, low, high, high + 1):
            out.append(Command(form.name, {**base.args, key: value}, seat=form.seat))
    base = form_instance(rng, form)
    out.append(Command(form.name, {**base.args, "X": 1}, seat=form.seat))
    return out


def check_agreement(s: AvaState, r: Command) -> None:
    """``apply`` accepts a request exactly when the game offers it, and says why when not."""
    offered = GAME.offers(s, r)
    try:
        GAME.apply(s, r)
    except IllegalMove as exc:
        assert exc.code.startswith("E_") and exc.message
        assert not offered, f"{r} offered but refused: {exc.code} {exc.message}"
    else:
        assert offered, f"{r} accepted but not offered"


def play(seed: int, options: dict[str, Any], mode: str, steps: int) -> tuple[AvaState, list]:
    rng = random.Random(seed)
    s = start(seed, options, mode)
    log: list[Command] = []
    for _ in range(steps):
        if GAME.is_over(s):
            break
        legal = GAME.legal_commands(s)
        assert legal, "a running game always offers something"
        forms = GAME.count_forms(s)
        for c in legal:
            if c.name in COUNT_COMMANDS:
                assert any(f.admits(c) for f in forms), f"{c} listed but outside every form"
        requests = [random_request(rng, s) for _ in range(3)]
        for form in forms:
            requests.append(form_instance(rng, form))
            requests += near_bounds(rng, form)
        for r in requests:
            check_agreement(s, r)
        c = legal[rng.randrange(len(legal))]
        c = Command(c.name, c.args, seat=c.seat, seed=rng.randrange(2**31))
        new, events = GAME.apply(s, c)  # never rejects what it offered
        assert events
        check_invariants(new)
        check_conservation(s, new, c)
        log.append(c)
        s = new
    return s, log


@settings(
    max_examples=20,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 2**31),
    options=options_strategy,
    mode=st.sampled_from(["regular", "les_miserables", "fierce_battle", "no_italy"]),
)
def test_random_legal_play_keeps_invariants(seed: int, options: dict[str, Any], mode: str) -> None:
    """AVA-2, AVA-19, AVA-117: invariants over random play; offered ⇒ accepted."""
    play(seed, options, mode, steps=300)


@settings(max_examples=5, deadline=None, database=None, derandomize=True)
@given(seed=st.integers(0, 2**31), options=options_strategy)
def test_replay_gives_identical_state(seed: int, options: dict[str, Any]) -> None:
    """AVA-20: replaying a game's command log reproduces the final state exactly."""
    final, log = play(seed, options, "regular", steps=120)
    s = start(seed, options, "regular")
    for c in log:
        s, _ = GAME.apply(s, c)
    assert json.dumps(GAME.dump_state(s), sort_keys=True) == json.dumps(
        GAME.dump_state(final), sort_keys=True
    )
    assert GAME.load_state(json.loads(json.dumps(GAME.dump_state(s)))) == final
