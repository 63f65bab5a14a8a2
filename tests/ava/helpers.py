"""Building AVA states for tests: the §19 fixture data, seats, and getting to a given step.

Tests set counters straight on a cloned state (money, units, owners) and then drive the rules
through real commands, so each test reads like the test vector it checks.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from companion.engine import Command, IllegalMove, Seat, Setup
from companion.games.ava import GAME
from companion.games.ava.data import DEFAULT_DATA_DIR, load_data
from companion.games.ava.state import AvaState

UK, FRANCE, NORWAY, GERMANY, ITALY, ALBANIA, T24 = 1, 2, 16, 19, 20, 22, 24
BANK, LEGION, AIRBASE, FACTORY = 5, 14, 23, 32
JAPAN, USA = 10, 28
ALLIES, AXIS = 0, 1

# §19 fixture territories: square -> (money, I, T, P, B, seaport, garrison, id, en, zh)
FIXTURE = {
    1: (400, 5, 2, 1, 1, True, 40),
    2: (300, 4, 1, 1, 0, True, 25),
    16: (150, 2, 0, 0, 0, True, 12),
    19: (400, 5, 3, 1, 0, True, 40),
    20: (300, 4, 1, 0, 1, True, 25),
    22: (100, 2, 0, 0, 0, True, 10),
    24: (200, 3, 0, 0, 0, False, 20),
}
FIXTURE_SECRETS = {5: {"money": 500}, 14: {"I": 6}, 23: {"P": 2}, 32: {"T": 3}}
FIXTURE_SPECIALS = {
    10: {"money": 300, "I": 4, "T": 1, "P": 1, "B": 1},
    28: {"money": 500, "I": 5, "T": 2, "P": 2, "B": 1},
}


def _prod(values: dict[str, int]) -> dict[str, int]:
    return {k: values.get(k, 0) for k in ("money", "I", "T", "P", "B")}


def copy_default_data(target: Path) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    for f in DEFAULT_DATA_DIR.glob("*.json"):
        shutil.copy(f, target / f.name)
    return target


def edit_json(folder: Path, name: str, change: Any) -> None:
    path = folder / name
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")


@lru_cache(maxsize=1)
def fixture_dir() -> str:
    """The §19 fixture data, built once per test run from the shipped files."""
    folder = Path(tempfile.mkdtemp(prefix="ava-fixture-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    copy_default_data(folder)

    def territories(doc: dict[str, Any]) -> None:
        for t in doc["territories"]:
            if t["square"] in FIXTURE:
                m, i, tk, p, b, sea, g = FIXTURE[t["square"]]
                t["production"] = {"money": m, "I": i, "T": tk, "P": p, "B": b}
                t["seaport"], t["neutral_garrison"] = sea, g

    def secrets(doc: dict[str, Any]) -> None:
        for s in doc["secret_bases"]:
            s["production"] = _prod(FIXTURE_SECRETS[s["square"]])

    def specials(doc: dict[str, Any]) -> None:
        for s in doc["specials"]:
            s["production"] = _prod(FIXTURE_SPECIALS[s["square"]])

    edit_json(folder, "territories.json", territories)
    edit_json(folder, "secret_bases.json", secrets)
    edit_json(folder, "specials.json", specials)
    load_data(folder)  # fail early if the fixture itself is invalid
    return str(folder)


def new_game(
    mode: str | None = None,
    ais: tuple[str | None, str | None] = (None, None),
    seed: int = 1,
    profiles: dict[str, Any] | None = None,
    fixture: bool = True,
    **options: Any,
) -> AvaState:
    """A fresh game (Allies = seat 0) on the fixture data, options as given."""
    if fixture:
        options.setdefault("data_dir", fixture_dir())
    options.setdefault("unlock_all_modes", True)
    seats = [
        Seat(name="Alice", camp="allies", ai=ais[0], profile="alice"),
        Seat(name="Bob", camp="axis", ai=ais[1], profile="bob"),
    ]
    setup = Setup(seats=seats, mode=mode, options=options, seed=seed, profiles=profiles or {})
    return GAME.initial_state(setup)


def cmd(state: AvaState, name: str, seat: int | None = None, **args: Any) -> Command:
    return Command(name, args, seat=state.me.seat if seat is None else seat)


def do(state: AvaState, name: str, seat: int | None = None, **args: Any) -> AvaState:
    new, _ = GAME.apply(state, cmd(state, name, seat, **args))
    return new


def do_ev(state: AvaState, name: str, **args: Any):
    return GAME.apply(state, cmd(state, name, **args))


def code_of(state: AvaState, name: str, seat: int | None = None, **args: Any) -> str:
    """The error code of a request that must be rejected; checks the state is untouched."""
    before = GAME.dump_state(state)
    try:
        GAME.apply(state, cmd(state, name, seat, **args))
    except IllegalMove as exc:
        assert GAME.dump_state(state) == before
        assert exc.message
        return exc.code
    raise AssertionError(f"{name}({args}) was accepted")


def edit(state: AvaState, **fields: Any) -> AvaState:
    """A clone with top-level fields changed."""
    new = state.clone()
    for k, v in fields.items():
        setattr(new, k, v)
    return new


def set_player(state: AvaState, side: int, **fields: Any) -> AvaState:
    new = state.clone()
    for k, v in fields.items():
        setattr(new.players[side], k, v)
    return new


def set_square(
    state: AvaState,
    square: int,
    owner: int | None,
    garrison: tuple[int, int, int, int] = (0, 0, 0, 0),
) -> AvaState:
    new = state.clone()
    o = list(new.owner)
    g = list(new.garrison)
    o[square - 1] = owner
    g[square - 1] = garrison
    new.owner = tuple(o)
    new.garrison = tuple(g)
    return new


def arrive(state: AvaState, square: int, value: int = 1, decline: bool = True) -> AvaState:
    """From S3, spin ``value`` onto ``square`` (the token is put value squares before it)."""
    assert state.step == "S3", state.step
    side = state.current
    state = set_player(state, side, position=(square - 1 - value) % 36 + 1)
    state = do(state, "spin", value=value)
    if state.step == "S5" and decline:
        state = do(state, "decline_move")
    return state


def turn_of(state: AvaState, side: int) -> AvaState:
    """The same state but with ``side`` to act at S3 (tests that need a given side's turn)."""
    return edit(state, current=side, step="S3")
