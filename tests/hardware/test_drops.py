"""The drop pipeline: photo → real counter → tower reading, with every doubt kept (issue 6)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import vision
from companion.games import GameRegistry
from companion.games.cpx import GAME
from companion.hardware.camera import CameraError, CameraOwner, Frame, SyntheticCamera
from companion.hardware.drops import DropPipeline
from companion.hardware.sim.tower import CubeTower
from companion.session import SessionService
from companion.store import Store
from vision.annotate import annotate
from vision.render import Setup
from vision.scenes import calibration_set, render_drop


@pytest.fixture(scope="module")
def profile() -> vision.Profile:
    empty, shots = calibration_set(Setup(), seed=2)
    samples = [vision.Sample(c, n, img, f"{c}-{n}") for c, n, img in shots]
    return vision.calibrate(empty=empty, samples=samples)


@pytest.fixture
def cpx(store: Store) -> Iterator[tuple[SessionService, str]]:
    """A two-AI Command Post Exercise session, stopped where the tower's priming drop is due."""
    service = SessionService(store, GameRegistry())
    setup = GAME.selfplay_setup(["random", "random"], seed=4).to_json()
    sid = service.create("cpx", {k: v for k, v in setup.items() if k != "profiles"}).id
    assert service.open(sid).history.state.drop is not None
    yield service, sid
    service.close()


def drop_out(service: SessionService, sid: str) -> dict[str, int]:
    """What a real tower might let out of the priming drop."""
    cubes_in = dict(service.open(sid).history.state.drop["input"])
    return CubeTower(p=0.6, q=0.3, rng=random.Random(1)).drop(cubes_in)


def nonzero(counts: dict[str, int]) -> dict[str, int]:
    return {colour: n for colour, n in counts.items() if n}


def pipeline_for(service: SessionService, image: np.ndarray, profile: vision.Profile,
                 lights: list[bool] | None = None) -> DropPipeline:
    camera = CameraOwner(SyntheticCamera(lambda: (image, {})))
    return DropPipeline(service, camera, vision.Counter(profile),
                        lights=None if lights is None else lights.append, annotate=annotate)


def test_a_drop_is_photographed_counted_and_reported(cpx: tuple[SessionService, str],
                                                     profile: vision.Profile) -> None:
    service, sid = cpx
    out = drop_out(service, sid)
    image, _ = render_drop(out, seed=3)
    lights: list[bool] = []
    pipeline = pipeline_for(service, image, profile, lights)
    result = pipeline.process(sid, beam_count=sum(out.values()))
    assert lights == [True, False]  # the ring lit only for the photo
    reading = result.entries[0]
    assert reading.kind == "reading" and reading.actor == "tower"
    assert reading.payload["command"]["name"] == "report_drop"
    assert service.store.media(reading.payload["media"]) is not None
    assert service.store.media(reading.payload["detail"]["annotated"]) is not None
    # never a confident wrong count: either it is exactly right, or it asks
    if result.counts != out:
        assert result.needs_review and reading.payload["needs_review"]
    if not result.needs_review:
        report = service.open(sid).history.state.drop["report"]  # applied, provisional
        assert nonzero(report) == nonzero(out)
        assert [e.kind for e in result.entries] == ["reading", "command"]


def test_the_beam_disagreeing_with_the_photo_asks(cpx: tuple[SessionService, str],
                                                  profile: vision.Profile) -> None:
    service, sid = cpx
    out = drop_out(service, sid)
    image, _ = render_drop(out, seed=3)
    result = pipeline_for(service, image, profile).process(sid, beam_count=sum(out.values()) + 2)
    assert result.needs_review and any("beam" in r for r in result.reasons)
    assert service.open(sid).history.state.drop["report"] is None  # nothing applied
    assert str(result.entries[0].seq) in service.snapshot(sid)["readings"]


class BrokenCamera:
    name = "broken"

    def open(self) -> None:
        pass

    def grab(self) -> Frame:
        raise CameraError("the ribbon cable is loose")

    def close(self) -> None:
        pass


def test_a_failed_photo_becomes_counting_by_hand(cpx: tuple[SessionService, str],
                                                 profile: vision.Profile) -> None:
    service, sid = cpx
    lights: list[bool] = []
    pipeline = DropPipeline(service, CameraOwner(BrokenCamera()), vision.Counter(profile),
                            lights=lights.append)
    result = pipeline.process(sid, beam_count=7)
    assert result.by_hand and result.needs_review and lights == [True, False]
    assert any("ribbon cable" in r and "by hand" in r for r in result.reasons)
    reading = result.entries[0].payload
    assert reading["needs_review"] and reading["command"]["args"]["source"] == "manual"
    assert reading["detail"]["beam_count"] == 7
    # the person then types the counts: a correction of the reading, applied by the rules
    out = drop_out(service, sid)
    service.correct_reading(sid, result.entries[0].seq, {"counts": out, "source": "manual"},
                            actor="host")
    assert nonzero(service.open(sid).history.state.drop["report"]) == nonzero(out)


def test_an_uncalibrated_tray_keeps_the_photo_and_asks(cpx: tuple[SessionService, str]) -> None:
    service, sid = cpx
    image, _ = render_drop({"red": 2}, seed=1)
    camera = CameraOwner(SyntheticCamera(lambda: (image, {})))
    result = DropPipeline(service, camera, None).process(sid, beam_count=2)
    assert result.needs_review and result.photo is not None
    assert any("not calibrated" in r for r in result.reasons)


def test_lights_that_fail_do_not_lose_the_drop(cpx: tuple[SessionService, str],
                                               profile: vision.Profile) -> None:
    service, sid = cpx
    out = drop_out(service, sid)
    image, _ = render_drop(out, seed=3)

    def lights(on: bool) -> Any:
        raise OSError("the ring is unplugged")

    camera = CameraOwner(SyntheticCamera(lambda: (image, {})))
    result = DropPipeline(service, camera, vision.Counter(profile), lights=lights).process(
        sid, beam_count=sum(out.values()))
    assert result.needs_review and any("light ring" in r for r in result.reasons)
    assert result.photo is not None
