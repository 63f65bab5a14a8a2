"""The session service: validate → engine → commit → publish, undo, readings, deadlines, AIs."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from companion.games import GameRegistry
from companion.history import fold
from companion.session import NotFound, Refused, SessionError, SessionService, StaleState, setup_of
from companion.store import NewEntry, Store
from tests.conftest import FakeClock, two_humans


def play(service: SessionService, sid: str, name: str, args: dict | None = None,
         seat: int | None = None) -> None:
    state_id = service.open(sid).history.state_id
    command = {"name": name, "args": args or {}}
    if seat is not None:
        command["seat"] = seat
    service.submit(sid, command, actor=f"seat:{seat}" if seat is not None else "host",
                   state_id=state_id)


def log_size(service: SessionService, sid: str) -> int:
    return len(service.store.entries(sid))


def test_create_session_and_snapshot(service: SessionService) -> None:
    record = service.create("tally", two_humans())
    snap = service.snapshot(record.id)
    assert snap["state"]["total"] == 0 and snap["state_id"] == 0
    assert [c["name"] for c in snap["legal"]] == ["spin"] * 6
    assert service.sessions()[0].id == record.id


@pytest.mark.parametrize(
    ("setup", "code"),
    [
        ({"seats": [{"name": "Solo"}]}, "E_BAD_SETUP"),
        ({"seats": [{"name": "A"}, {"name": "B", "ai": "genius"}]}, "E_BAD_SETUP"),
        ({"seats": [{"name": "A"}, {"name": ""}]}, "E_BAD_SETUP"),
        ({"seats": [{"name": "A"}, {"name": "B"}], "options": {"target": 0}}, "E_BAD_SETUP"),
        ({"seats": [{"name": "A"}, {"name": "B"}], "mode": "locked"}, "E_MODE_LOCKED"),
    ],
)
def test_bad_setups_are_refused_and_create_nothing(service: SessionService, setup: dict,
                                                   code: str) -> None:
    with pytest.raises(Refused) as err:
        service.create("tally", setup)
    assert err.value.code == code
    assert service.sessions() == []


def test_unknown_game_and_session(service: SessionService) -> None:
    with pytest.raises(NotFound):
        service.create("chess", two_humans())
    with pytest.raises(NotFound):
        service.snapshot("nope")


def test_commands_apply_in_order_and_log_events(service: SessionService) -> None:
    sid = service.create("tally", two_humans()).id
    play(service, sid, "spin", {"value": 4})
    play(service, sid, "add", {"n": 3}, seat=0)
    entries = service.store.entries(sid)
    assert [e.payload["command"]["name"] for e in entries] == ["spin", "add"]
    assert entries[1].payload["events"] == [{"kind": "added", "data": {"seat": 0, "n": 3}}]
    assert entries[1].actor == "seat:0"
    assert service.snapshot(sid)["state"]["total"] == 3


@pytest.mark.parametrize(
    ("command", "error", "code"),
    [
        ({"name": "add", "args": {"n": 2}, "seat": 1}, Refused, "E_NOT_YOUR_TURN"),
        ({"name": "add", "args": {"n": 2}, "seat": 9}, SessionError, "E_NO_SUCH_SEAT"),
        ({"name": "fly", "args": {}, "seat": 0}, Refused, "E_UNKNOWN_COMMAND"),
        ({"name": "add", "args": {"n": 7}, "seat": 0}, Refused, "E_BAD_VALUE"),
        ({"args": {}}, SessionError, "E_BAD_REQUEST"),
        ({"name": "add", "args": [1]}, SessionError, "E_BAD_REQUEST"),
    ],
)
def test_refused_commands_leave_state_and_log_unchanged(
    service: SessionService, command: dict, error: type, code: str
) -> None:
    sid = service.create("tally", two_humans()).id
    play(service, sid, "spin", {"value": 4})
    before = (service.snapshot(sid), log_size(service, sid))
    with pytest.raises(error) as err:
        service.submit(sid, command, actor="seat:0", state_id=1)
    assert err.value.code == code
    assert (service.snapshot(sid), log_size(service, sid)) == before


def test_stale_state_id_is_refused(service: SessionService) -> None:
    """Two tablets make a move against the same state: only the first one lands."""
    sid = service.create("tally", two_humans()).id
    service.submit(sid, {"name": "spin", "args": {"value": 2}}, actor="host", state_id=0)
    with pytest.raises(StaleState):
        service.submit(sid, {"name": "spin", "args": {"value": 5}}, actor="host", state_id=0)
    assert log_size(service, sid) == 1


def test_ai_seats_move_by_themselves(service: SessionService) -> None:
    sid = service.create("tally", {"seats": [{"name": "Ann"}, {"name": "Bot", "ai": "greedy"}],
                                   "seed": 3}).id
    play(service, sid, "spin", {"value": 1})
    play(service, sid, "add", {"n": 1}, seat=0)
    play(service, sid, "decline", seat=0)
    play(service, sid, "spin", {"value": 6})  # now the AI adds 3 and doubles at once
    actors = [e.actor for e in service.store.entries(sid)]
    assert actors[-2:] == ["ai:greedy", "ai:greedy"]
    assert service.snapshot(sid)["state"]["total"] == 1 + 3 + 6


def test_undo_takes_back_the_last_human_command_and_what_ais_did_after(
    service: SessionService,
) -> None:
    sid = service.create("tally", {"seats": [{"name": "Ann"}, {"name": "Bot", "ai": "greedy"}],
                                   "seed": 3}).id
    play(service, sid, "spin", {"value": 1})
    play(service, sid, "add", {"n": 2}, seat=0)
    play(service, sid, "decline", seat=0)
    state_before_spin = service.snapshot(sid)["state"]
    play(service, sid, "spin", {"value": 5})
    assert service.snapshot(sid)["state"]["total"] == 2 + 3 + 5
    live = service.open(sid)
    entries = service.undo(sid, actor="seat:0", state_id=live.history.state_id)
    assert entries[0].kind == "undo"
    assert len(entries[0].payload["reverted"]) == 3  # the spin and both AI moves
    assert service.snapshot(sid)["state"] == state_before_spin
    # the log still holds everything, and a replay honours the undo
    record = service.store.session(sid)
    assert record is not None
    replayed = fold(live.game, setup_of(record), service.store.entries(sid))
    assert replayed.state == live.history.state
    assert replayed.state_id == live.history.state_id


def test_undo_with_nothing_to_undo(service: SessionService) -> None:
    sid = service.create("tally", two_humans()).id
    with pytest.raises(Refused, match="nothing to undo"):
        service.undo(sid, actor="host", state_id=0)


def test_repeated_undo_walks_back_across_checkpoints(make_service: Any, store: Store,
                                                     clock: FakeClock) -> None:
    service = make_service(clock)
    sid = service.create("tally", two_humans(options={"target": 10_000})).id
    for _ in range(100):
        play(service, sid, "spin", {"value": 1})
        play(service, sid, "add", {"n": 1}, seat=service.open(sid).history.state["turn"])
        play(service, sid, "decline", seat=service.open(sid).history.state["turn"])
    for _ in range(150):
        service.undo(sid, actor="host", state_id=service.open(sid).history.state_id)
    assert service.snapshot(sid)["state"]["total"] == 50
    fresh = make_service(clock)
    assert fresh.snapshot(sid)["state"] == service.snapshot(sid)["state"]


def test_sure_reading_is_applied_at_once(service: SessionService) -> None:
    sid = service.create("tally", two_humans()).id
    entries = service.add_reading(sid, source="spinner", command_json={"name": "spin",
                                  "args": {"value": 5}}, confidence=0.99, needs_review=False)
    assert [e.kind for e in entries] == ["reading", "command"]
    assert entries[1].payload["reading"] == entries[0].seq and entries[1].actor == "spinner"
    assert service.snapshot(sid)["state"]["spin"] == 5
    assert service.snapshot(sid)["readings"] == {}


def test_doubtful_reading_waits_and_can_be_corrected(service: SessionService) -> None:
    sid = service.create("tally", two_humans()).id
    entries = service.add_reading(sid, source="spinner", command_json={"name": "spin",
                                  "args": {"value": 3}}, confidence=0.5, needs_review=True,
                                  candidates=[{"value": 3}, {"value": 4}])
    assert [e.kind for e in entries] == ["reading"]
    snap = service.snapshot(sid)
    assert snap["state"]["spin"] is None and str(entries[0].seq) in snap["readings"]
    fixed = service.correct_reading(sid, entries[0].seq, {"value": 4}, actor="seat:0")
    assert fixed[0].kind == "correction"
    assert fixed[0].payload["original_args"] == {"value": 3}
    assert service.snapshot(sid)["state"]["spin"] == 4
    with pytest.raises(NotFound):
        service.confirm_reading(sid, entries[0].seq, actor="seat:0")


def test_a_correction_the_rules_refuse_changes_nothing(service: SessionService) -> None:
    sid = service.create("tally", two_humans()).id
    seq = service.add_reading(sid, source="spinner", command_json={"name": "spin",
                              "args": {"value": 3}}, confidence=0.4, needs_review=True)[0].seq
    before = log_size(service, sid)
    with pytest.raises(Refused):
        service.correct_reading(sid, seq, {"value": 9}, actor="host")
    assert log_size(service, sid) == before and str(seq) in service.snapshot(sid)["readings"]


def test_reading_the_rules_refuse_is_kept_for_review_with_the_reason(
    service: SessionService,
) -> None:
    sid = service.create("tally", two_humans()).id
    entries = service.add_reading(sid, source="tower", command_json={"name": "spin",
                                  "args": {"value": 8}}, confidence=0.9, needs_review=False)
    assert [e.kind for e in entries] == ["reading"]
    reading = entries[0].payload
    assert reading["needs_review"] is True and reading["problem"]["code"] == "E_BAD_VALUE"


def test_new_reading_supersedes_a_pending_one_and_dismiss(service: SessionService) -> None:
    sid = service.create("tally", two_humans()).id
    first = service.add_reading(sid, source="spinner", command_json={"name": "spin",
                                "args": {"value": 3}}, confidence=0.5, needs_review=True)[0]
    second = service.add_reading(sid, source="spinner", command_json={"name": "spin",
                                 "args": {"value": 2}}, confidence=0.5, needs_review=True)[0]
    assert second.payload["supersedes"] == [first.seq]
    assert list(service.snapshot(sid)["readings"]) == [str(second.seq)]
    service.dismiss_reading(sid, second.seq, actor="host")
    assert service.snapshot(sid)["readings"] == {}
    live = service.open(sid)
    record = service.store.session(sid)
    assert record is not None
    assert fold(live.game, setup_of(record), service.store.entries(sid)).readings == {}


def test_confirmed_reading_is_applied(service: SessionService) -> None:
    sid = service.create("tally", two_humans()).id
    seq = service.add_reading(sid, source="spinner", command_json={"name": "spin",
                              "args": {"value": 6}}, confidence=0.7, needs_review=True)[0].seq
    entries = service.confirm_reading(sid, seq, actor="seat:0")
    assert entries[0].payload["reading"] == seq and entries[0].actor == "seat:0"
    assert service.snapshot(sid)["state"]["spin"] == 6


def test_offer_lapses_into_decline_when_the_window_closes(make_service: Any) -> None:
    """The session enforces a time window: no answer by the deadline means declined."""
    service = make_service()
    sid = service.create("tally", two_humans(options={"window_s": 0.2})).id
    play(service, sid, "spin", {"value": 2})
    play(service, sid, "add", {"n": 1}, seat=0)
    assert service.snapshot(sid)["deadline"]["command"]["name"] == "decline"
    deadline = time.time() + 5
    while service.snapshot(sid)["state"]["phase"] != "spin" and time.time() < deadline:
        time.sleep(0.02)
    last = service.store.entries(sid)[-1]
    assert last.actor == "timer" and last.payload["command"]["name"] == "decline"
    assert service.snapshot(sid)["state"]["turn"] == 1
    service.close()


def test_late_answer_to_an_offer_is_refused(service: SessionService, clock: FakeClock) -> None:
    sid = service.create("tally", two_humans(options={"window_s": 1000})).id
    play(service, sid, "spin", {"value": 2})
    play(service, sid, "add", {"n": 1}, seat=0)
    clock.now += 1001
    with pytest.raises(Refused) as err:
        play(service, sid, "double", seat=0)
    assert err.value.code == "E_WINDOW_CLOSED"


def test_deadline_that_passed_while_the_server_was_down_fires_on_resume(
    make_service: Any, store: Store
) -> None:
    first = make_service()
    sid = first.create("tally", two_humans(options={"window_s": 0.1})).id
    play(first, sid, "spin", {"value": 2})
    play(first, sid, "add", {"n": 1}, seat=0)
    first.close()
    time.sleep(0.2)
    second = make_service()
    second.open(sid)
    deadline = time.time() + 5
    while second.snapshot(sid)["state"]["phase"] != "spin" and time.time() < deadline:
        time.sleep(0.02)
    assert store.entries(sid)[-1].actor == "timer"
    second.close()


def test_old_schema_entries_are_upcast_on_read(make_service: Any, store: Store,
                                               clock: FakeClock) -> None:
    service = make_service(clock)
    sid = service.create("tally", two_humans()).id
    store.append(sid, [
        NewEntry("host", "command", {"command": {"name": "spin", "args": {"value": 3}},
                                     "events": []}, 1),
        NewEntry("seat:0", "command", {"command": {"name": "add", "args": {"amount": 2},
                                                   "seat": 0}, "events": []}, 1),
    ])
    fresh = make_service(clock)
    assert fresh.snapshot(sid)["state"]["total"] == 2
    assert fresh.open(sid).history.upcast(store.entries(sid)[1]).payload["command"]["args"] == {
        "n": 2}


def test_profiles_unlock_a_mode_after_a_win(service: SessionService) -> None:
    seats = [{"name": "Ann", "profile": "ann"}, {"name": "Bob", "profile": "bob"}]
    sid = service.create("tally", {"seats": seats, "options": {"target": 2}}).id
    play(service, sid, "spin", {"value": 1})
    play(service, sid, "add", {"n": 2}, seat=0)
    assert service.snapshot(sid)["session"]["status"] == "finished"
    assert service.store.profiles(["ann", "bob"]) == {"ann": {"wins": 1}, "bob": {"wins": 0}}
    locked = service.create("tally", {"seats": seats, "mode": "locked"})
    assert locked.profiles == {"ann": {"wins": 1}, "bob": {"wins": 0}}


def test_session_resumes_from_the_log_after_a_restart(make_service: Any, store: Store,
                                                      clock: FakeClock) -> None:
    first = make_service(clock)
    sid = first.create("tally", two_humans()).id
    play(first, sid, "spin", {"value": 4})
    play(first, sid, "add", {"n": 3}, seat=0)
    snapshot = first.snapshot(sid)
    first.close()
    second = make_service(clock)
    assert second.snapshot(sid) == snapshot


def test_wait_wakes_on_a_new_entry(service: SessionService) -> None:
    sid = service.create("tally", two_humans()).id
    got: list[int] = []

    def follower() -> None:
        got.extend(e.seq for e in service.wait(sid, 0, timeout=5))

    thread = threading.Thread(target=follower)
    thread.start()
    time.sleep(0.05)
    play(service, sid, "spin", {"value": 1})
    thread.join(5)
    assert got == [1]
    assert service.wait(sid, 1, timeout=0.01) == []


def test_at_a_physical_table_ai_moves_wait_for_a_person(store: Store, registry: GameRegistry,
                                                        clock: FakeClock) -> None:
    service = SessionService(store, registry, clock=clock, confirm_ai_moves=True)
    sid = service.create("tally", {"seats": [{"name": "Ann"}, {"name": "Bot", "ai": "greedy"}],
                                   "seed": 3, "options": {"window_s": None}}).id
    play(service, sid, "spin", {"value": 1})
    play(service, sid, "add", {"n": 1}, seat=0)
    play(service, sid, "decline", seat=0)
    play(service, sid, "spin", {"value": 4})
    snap = service.snapshot(sid)
    (seq, reading), = snap["readings"].items()
    assert reading["source"] == "ai:greedy" and reading["detail"]["instructions"] == "add n 3"
    assert snap["state"]["total"] == 1  # nothing happens until a person confirms
    entries = service.confirm_reading(sid, int(seq), actor="seat:0")
    assert entries[0].actor == "ai:greedy" and entries[0].payload["confirmed_by"] == "seat:0"
    (seq2, reading2), = service.snapshot(sid)["readings"].items()  # the AI's next decision
    assert reading2["command"]["name"] == "double"
    # an undo withdraws the AI's pending decision and takes back the human spin before it
    service.undo(sid, actor="seat:0", state_id=service.open(sid).history.state_id)
    snap = service.snapshot(sid)
    assert snap["readings"] == {} and snap["state"]["phase"] == "spin"
    with pytest.raises(NotFound):
        service.confirm_reading(sid, int(seq2), actor="seat:0")
    service.close()


def test_an_engine_failure_is_refused_with_nothing_changed(
    service: SessionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.session import EngineFailure

    sid = service.create("tally", two_humans()).id
    game = service.open(sid).game

    def broken(state: Any, command: Any) -> Any:
        raise AssertionError("conservation broken")

    monkeypatch.setattr(game, "apply", broken)
    with pytest.raises(EngineFailure) as err:
        service.submit(sid, {"name": "spin", "args": {"value": 1}}, actor="host", state_id=0)
    assert err.value.status == 500 and "nothing changed" in err.value.message
    assert service.store.entries(sid) == [] and service.snapshot(sid)["state_id"] == 0
