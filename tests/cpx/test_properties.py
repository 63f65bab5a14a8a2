"""Properties over random legal play (hypothesis drives the seeds of whole games).

Cube conservation at every step (CPX-110, CPX-13), at most 10 friendly units per base after
recruitment (CPX-50), base ownership = card ownership (CPX-22), ``legal_commands`` and ``apply``
agree, refused requests change nothing (CPX-2), the tower changes only when a drop is confirmed
(CPX-14, CPX-15), states round-trip through JSON (CPX-27, CPX-29), and replay is deterministic
(CPX-4).
"""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import Command, IllegalMove
from companion.games.cpx import GAME as SHIPPED
from companion.games.cpx.ledger import colour_totals
from companion.games.cpx.state import MOVE, State

from .helpers import GAME

PROFILE = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _check_invariants(game, s: State) -> None:
    totals = colour_totals(s)
    assert totals == s.supply, "conservation (CPX-110)"
    d = game.data
    for base, card in d.card_of_base.items():
        holder = s.cards[card]["holder"]
        assert d.card_by_id[card].base == base
        if holder is not None:
            assert not s.players[holder]["out"]
    if s.phase == MOVE:
        for base, here in s.units.items():
            owner_camp = None
            holder = s.cards[d.card_of_base[base]]["holder"]
            if holder is not None:
                owner_camp = s.players[holder]["camp"]
            friendly = sum(
                n for c, n in here.items() if s.players[s.seat_of_colour(c)]["camp"] == owner_camp
            )
            assert friendly <= 10, "cap of 10 friendly units (CPX-50)"


def _play(game, ais_seed: int, steps: int, n: int, check: bool = True) -> list[Command]:
    rng = random.Random(ais_seed)
    s = game.initial_state(_setup(game, n, ais_seed))
    log: list[Command] = []
    for _ in range(steps):
        if game.outcome(s) is not None:
            break
        cmd = game.simulate_chance(s, rng)
        if cmd is None:
            legal = game.legal_commands(s)
            assert legal, "a live game always offers a command"
            cmd = legal[rng.randrange(len(legal))]
        before = json.dumps(game.dump_state(s), sort_keys=True)
        tower = dict(s.tower)
        new, _ = game.apply(s, cmd)
        assert json.dumps(game.dump_state(s), sort_keys=True) == before, "apply mutated its input"
        if cmd.name != "confirm_drop":
            assert new.tower == tower, "the tower changes only on a confirmed drop (CPX-15)"
        if check:
            _check_invariants(game, new)
            _probe_illegal(game, new, rng)
        s = new
        log.append(cmd)
    return log


def _probe_illegal(game, s: State, rng: random.Random) -> None:
    """A request from the wrong seat or with nonsense arguments is refused, state unchanged."""
    legal = game.legal_commands(s)
    seats = {c.seat for c in legal if c.seat is not None}
    idle = [i for i in range(len(s.players)) if i not in seats and not s.players[i]["out"]]
    before = json.dumps(game.dump_state(s), sort_keys=True)
    probes = [Command("recruit", {"base": "nowhere"}, seat=rng.randrange(len(s.players)))]
    if idle:
        probes.append(Command("end_move", {}, seat=idle[0]))
    for cmd in probes:
        if any(cmd.matches(c) for c in legal):
            continue
        try:
            game.apply(s, cmd)
        except IllegalMove:
            pass
        else:
            raise AssertionError(f"{cmd} was accepted")
        assert json.dumps(game.dump_state(s), sort_keys=True) == before


def _setup(game, n: int, seed: int):
    return game.selfplay_setup(["random"] * n, seed)


@PROFILE
@given(seed=st.integers(0, 10_000), n=st.sampled_from([2, 3, 4]))
def test_random_legal_play_keeps_invariants_cpx_110_cpx_2_cpx_13_cpx_50(seed: int, n: int) -> None:
    """CPX-110, CPX-2, CPX-13, CPX-50, CPX-22, CPX-95 on the fixture map."""
    _play(GAME, seed, 220, n)


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_shipped_map_random_play_cpx_14_cpx_15_cpx_27(seed: int) -> None:
    """CPX-14, CPX-15, CPX-27 on the shipped data: the same invariants."""
    _play(SHIPPED, seed, 150, 4)


def test_replay_is_deterministic_and_states_round_trip_cpx_4_cpx_29() -> None:
    """CPX-4, CPX-29: the log of commands reproduces every state; dump/load is exact."""
    log = _play(GAME, 7, 400, 4, check=False)
    s1 = GAME.initial_state(_setup(GAME, 4, 7))
    s2 = GAME.initial_state(_setup(GAME, 4, 7))
    for cmd in log:
        s1, e1 = GAME.apply(s1, cmd)
        s2, e2 = GAME.apply(GAME.load_state(json.loads(json.dumps(GAME.dump_state(s2)))), cmd)
        assert [e.to_json() for e in e1] == [e.to_json() for e in e2]
    assert GAME.dump_state(s1) == GAME.dump_state(s2)


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_every_listed_command_is_accepted(seed: int) -> None:
    """legal_commands and apply agree: every listed command (a sample at each step) is
    accepted, and to_act names exactly the seats that have a listed command."""
    rng = random.Random(seed)
    s = GAME.initial_state(_setup(GAME, 4, seed))
    for _ in range(160):
        if GAME.outcome(s) is not None:
            break
        legal = GAME.legal_commands(s)
        assert GAME.to_act(s) == sorted({c.seat for c in legal if c.seat is not None})
        for cmd in rng.sample(legal, min(25, len(legal))):
            GAME.apply(s, cmd)
        cmd = GAME.simulate_chance(s, rng) or legal[rng.randrange(len(legal))]
        s, _ = GAME.apply(s, cmd)
