"""AI players: they choose only legal commands, and commander beats random (issue 4)."""

from __future__ import annotations

import random

from companion.games.cpx import GAME
from companion.games.cpx.ai import Commander, RandomPolicy


def _play(ais: list[str], seed: int, limit: int = 6000):
    rng = random.Random(seed)
    s = GAME.initial_state(GAME.selfplay_setup(ais, seed))
    policies = {name: cls() for name, cls in GAME.policies().items()}
    n = 0
    while GAME.outcome(s) is None and n < limit:
        cmd = GAME.simulate_chance(s, rng)
        if cmd is None:
            seat = GAME.to_act(s)[0]
            legal = [c for c in GAME.legal_commands(s) if c.seat == seat]
            cmd = policies[ais[seat]].choose(s, legal, rng)
            assert any(cmd.matches(c) for c in legal)
        s, _ = GAME.apply(s, cmd)
        n += 1
    return s


def test_policies_are_named_and_use_their_rng() -> None:
    assert set(GAME.policies()) == {"commander", "random"}
    s = GAME.initial_state(GAME.selfplay_setup(["random", "random"], 3))
    legal = GAME.legal_commands(s)
    a = RandomPolicy().choose(s, legal, random.Random(5))
    b = RandomPolicy().choose(s, legal, random.Random(5))
    assert a == b
    assert Commander().choose(s, legal, random.Random(1)) in legal


def test_commander_beats_random_two_player() -> None:
    for seed, ais in ((1, ["commander", "random"]), (2, ["random", "commander"])):
        s = _play(ais, seed)
        out = GAME.outcome(s)
        assert out is not None and ais[out.winners[0]] == "commander"


def test_generic_selfplay_runner_plays_cpx() -> None:
    """The owner's generic runner drives this engine through the contract alone."""
    from companion.selfplay import run_selfplay

    report = run_selfplay(GAME, ["random", "random", "random"], 1, 3)
    assert report["games"] == 1 and sum(report["endings"].values()) == 1


def test_commander_reads_its_games_data_not_the_shipped_map() -> None:
    """The policies of a game on other data carry that data, so the commander scores moves
    on the fixture map instead of falling back to random play (that fallback is only for a
    policy built by hand on the wrong data)."""
    from .helpers import GAME as FIXTURE

    commander = FIXTURE.policies()["commander"]()
    assert isinstance(commander, Commander) and commander._data is FIXTURE.data
    s = FIXTURE.initial_state(FIXTURE.selfplay_setup(["commander", "random"], 4))
    assert commander._data.card_by_id.keys() == s.cards.keys()
    assert Commander()._data.card_by_id.keys() != s.cards.keys()
