"""`companion tower fit` reads logged Command Post Exercise drops and fits the tower model."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

from companion.cli import main
from companion.games import GameRegistry
from companion.games.cpx import GAME
from companion.session import SessionService
from companion.store import Store


def logged_cpx_session(db: Path, drops: int = 12) -> str:
    """A real session through the service: AIs play, the simulated tower gives every drop."""
    store = Store(db)
    service = SessionService(store, GameRegistry())
    setup = GAME.selfplay_setup(["random", "random"], seed=11).to_json()
    sid = service.create("cpx", {k: v for k, v in setup.items() if k != "profiles"}).id
    rng = random.Random(5)
    confirmed = 0
    while confirmed < drops and GAME.outcome(service.open(sid).history.state) is None:
        command = GAME.simulate_chance(service.open(sid).history.state, rng)
        assert command is not None, "the AIs wait for a person"
        service.submit(sid, command.to_json(), actor="tower", state_id=None)
        confirmed += command.name == "confirm_drop"
    service.close()
    store.close()
    return sid


def test_tower_fit_from_the_log(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    sid = logged_cpx_session(db)
    out = io.StringIO()
    assert main(["tower", "fit", "--db", str(db), "--json"], out=out) == 0
    result = json.loads(out.getvalue())
    assert result["sessions"] == [sid]
    assert 0 < result["p"] < 1 and 0 <= result["q"] <= 1
    out = io.StringIO()
    assert main(["tower", "fit", sid, "--db", str(db)], out=out) == 0
    assert "colour-drops" in out.getvalue()


def test_tower_fit_errors_are_one_line(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    Store(db).close()
    assert main(["tower", "fit", "--db", str(db)], out=io.StringIO()) == 2
    assert main(["tower", "fit", "nope", "--db", str(db)], out=io.StringIO()) == 2
