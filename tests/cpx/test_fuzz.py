"""Bad input at the boundary gives a clear IllegalMove, never a crash (CPX-2, §12)."""

from __future__ import annotations

import contextlib
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import Command, IllegalMove
from companion.games.cpx.rules import PLAYER_COMMANDS, TABLE_COMMANDS

from .helpers import GAME, open_bb, scenario

NAMES = [*sorted(PLAYER_COMMANDS | TABLE_COMMANDS), "setup", "fly"]
ATOMS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 12),
    st.sampled_from(["B1", "B3", "B4", "C12", "C12a", "a", "none", "red", "pool", ""]),
)
KEYS = st.sampled_from(
    [
        "from",
        "to",
        "units",
        "card",
        "base",
        "counts",
        "cards",
        "mix",
        "targets",
        "ability",
        "activation",
        "activations",
        "moves",
        "origin",
        "colour",
        "red",
        "blue",
        "black",
        "battlefield",
        "paired_card",
    ]
)
JSONISH = st.recursive(
    ATOMS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=8,
)


def _states():
    move = scenario(
        owners={"B1": 0, "B2": 1}, units={"B1": {"red": 6}}, hands={0: ["C14", "C11", "C22", "C08"]}
    )
    return [move, open_bb(hands={0: ["C12", "C13", "C22"], 1: ["C09", "C16", "C05"]})]


STATES = _states()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(NAMES),
    args=st.dictionaries(
        st.sampled_from(
            [
                "from",
                "to",
                "units",
                "card",
                "base",
                "counts",
                "cards",
                "mix",
                "targets",
                "ability",
                "paired_card",
                "source",
            ]
        ),
        JSONISH,
        max_size=5,
    ),
    seat=st.sampled_from([None, 0, 1, 5]),
    which=st.integers(0, 1),
)
def test_garbage_requests_are_refused_cleanly(name, args, seat, which) -> None:
    state = STATES[which]
    before = GAME.dump_state(state)
    cmd = Command(name, args, seat=seat)
    accepted = True
    try:
        GAME.apply(state, cmd)
    except IllegalMove as exc:
        assert exc.code.startswith("E_") and exc.message
        accepted = False
    assert GAME.dump_state(state) == before
    assert accepted == GAME.offers(state, cmd), "legal lists, forms and apply agree (CPX-9)"


def test_random_legal_prefix_then_garbage() -> None:
    rng = random.Random(4)
    s = GAME.initial_state(GAME.selfplay_setup(["random"] * 3, 4))
    for _ in range(120):
        legal = GAME.legal_commands(s)
        if not legal:
            break
        for bad in (
            Command("attack", {"from": "B1", "to": "B3", "units": "x", "card": 3}, seat=0),
            Command("activate", {"card": "C12", "ability": "z", "targets": []}, seat=1),
            Command("report_drop", {"counts": ["red"]}),
        ):
            with contextlib.suppress(IllegalMove):
                GAME.apply(s, bad)
        cmd = GAME.simulate_chance(s, rng) or legal[rng.randrange(len(legal))]
        s, _ = GAME.apply(s, cmd)


def _ability_states():
    hands0 = ["C01", "C02", "C05", "C08", "C11"]
    hands1 = ["C13", "C16", "C19", "C22", "C06"]
    battle = open_bb(hands={0: hands0, 1: hands1}, owners={"B3": 0}, units={"B3": {"red": 3}})
    move = scenario(
        owners={"B1": 0, "B3": 0, "B2": 1}, units={"B1": {"red": 6}}, hands={0: [*hands0, "C22"]}
    )
    return [battle, move]


ABILITY_STATES = _ability_states()
ABILITIES = [f"C{n:02d}{x}" for n in (1, 2, 5, 8, 11, 13, 16, 19, 22, 6) for x in "ab"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ability=st.sampled_from(ABILITIES),
    targets=st.dictionaries(KEYS, JSONISH, max_size=4),
    seat=st.sampled_from([0, 1]),
    which=st.integers(0, 1),
)
def test_garbage_targets_are_refused_cleanly(ability, targets, seat, which) -> None:
    state = ABILITY_STATES[which]
    before = GAME.dump_state(state)
    cmd = Command(
        "activate", {"card": ability[:3], "ability": ability, "targets": targets}, seat=seat
    )
    accepted = True
    try:
        _new, _ = GAME.apply(state, cmd)
    except IllegalMove as exc:
        assert exc.code.startswith("E_") and exc.message
        accepted = False
    assert GAME.dump_state(state) == before
    assert accepted == GAME.offers(state, cmd), "every accepted target is listed (CPX-71)"
