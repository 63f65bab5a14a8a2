"""The second bench renderer (pybullet's tiny renderer after a rig description): its cubes are
closed bevelled solids posed as physics left them, each shows in its paint where its truth says,
a lamp's shadow falls away from it, and a cube on another is marked off the floor with the one
below it mostly hidden."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pybullet as pb
import pytest

from tests.bench import rig_photos as rp
from vision.render import Cube

FLAT = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


def _small(**changes: object) -> rp.Rig:
    rig = copy.deepcopy(rp.RING) | {"res": [320, 240], "jitter_cm": 0.0, "jitter_roll_deg": 0.0}
    rig["post"] = rig["post"] | {"read_noise": 0.0, "shot_noise": 0.0}
    return rig | changes


def test_a_bevelled_cube_is_closed_with_every_face_outward() -> None:
    verts, idx, normals = rp._bevelled_cube(0.5, 0.06)
    v = np.array(verts)
    tris = v[np.array(idx).reshape(-1, 3)]
    cross = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    assert (np.einsum("ij,ij->i", cross, tris.mean(1)) > 0).all(), "a face winds inward"
    volume = np.einsum("ij,ij->i", tris[:, 0], np.cross(tris[:, 1], tris[:, 2])).sum() / 6
    # A unit cube less its 12 chamfered edges (b^2/2 each per unit length) and 8 corners.
    assert volume == pytest.approx(1 - 12 * 0.06**2 / 2 * (1 - 2 * 0.06) - 8 * 0.06**3 * 2 / 3,
                                   rel=1e-3)
    faces = v[np.array(idx).reshape(-1, 3)[:, 0]]
    assert (np.einsum("ij,ij->i", np.array(normals)[np.array(idx)[::3]], faces) > 0).all()


@pytest.mark.parametrize("euler", [(0, 0, 0), (3.0, 0.2, -2.9), (0.1, 3.1, 1.5), (2.2, -1.0, 3.0)])
def test_a_rotation_turns_into_the_same_quaternion(euler: tuple[float, float, float]) -> None:
    rot = np.array(pb.getMatrixFromQuaternion(pb.getQuaternionFromEuler(euler))).reshape(3, 3)
    back = np.array(pb.getMatrixFromQuaternion(rp._quaternion(rot))).reshape(3, 3)
    assert np.allclose(back, rot, atol=1e-9)


def test_each_cube_shows_in_its_paint_where_its_truth_says() -> None:
    cubes = [Cube(colour, (x, y, 5.0), FLAT, 10.0)
             for colour, x, y in (("red", -40.0, 20.0), ("blue", 50.0, -30.0), ("white", 0, 0))]
    img, truth = rp.photo(_small(), cubes, np.random.default_rng(1))
    assert img.shape == (240, 320, 3)
    for cube in truth:
        x, y = (round(v) for v in cube["center_px"])
        b, g, r = img[y, x].astype(int)
        shade = {"red": r > g + 60 and r > b + 60, "blue": b > r + 50,
                 "white": min(b, g, r) > 180}[cube["color"]]
        assert shade, (cube, (b, g, r))
        assert cube["visible_fraction"] > 0.85 and cube["on_floor"]
    floor = img[200, 160].astype(int)
    assert 100 < floor.mean() < 160, floor


def test_a_barrel_lens_moves_each_cube_outward_and_its_truth_with_it() -> None:
    cubes = [Cube(colour, (x, y, 5.0), FLAT, 10.0)
             for colour, x, y in (("red", -80.0, 50.0), ("blue", 70.0, -45.0), ("yellow", 0, 0))]
    plain, flat_truth = rp.photo(_small(), cubes, np.random.default_rng(1))
    rig = _small()
    rig["post"] = rig["post"] | {"barrel": 0.15}
    img, truth = rp.photo(rig, cubes, np.random.default_rng(1))
    centre = np.array([160.0, 120.0])
    for was, cube in zip(flat_truth, truth, strict=True):
        x, y = (round(v) for v in cube["center_px"])
        b, g, r = img[y, x].astype(int)
        assert {"red": r > g + 60, "blue": b > r + 50, "yellow": r > b + 60 and g > b + 60}[
            cube["color"]], (cube, (b, g, r))
        # The middle is magnified and the corners stay: every cube off the middle moves out.
        out = np.hypot(*(np.array(cube["center_px"]) - centre))
        before = np.hypot(*(np.array(was["center_px"]) - centre))
        assert out >= before * 1.05 if before > 30 else abs(out - before) < 1.0
        assert cube["visible_fraction"] == pytest.approx(was["visible_fraction"], abs=0.02)
    assert not np.array_equal(img, plain)


def test_a_lamp_casts_each_cube_s_shadow_away_from_it() -> None:
    rig = _small(lights=[rp._lamp(40.0, 0.0, 0.6, 0.9)], ambient=0.25, ao=0.0)
    cube = Cube("yellow", (0.0, 0.0, 5.0), FLAT, 10.0)
    img, truth = rp.photo(rig, [cube], np.random.default_rng(2))
    x, y = (round(v) for v in truth[0]["center_px"])
    px_per_mm = 240 / (2 * 400 * math.tan(math.radians(rig["fov_deg"] / 2)))
    step = round(9 * px_per_mm)  # 9 mm off the centre: on the floor beside the cube
    grey = img.astype(float).mean(2)
    # The lamp stands toward +x (image right, as the camera looks down): the shadow lies toward -x.
    assert grey[y, x - step] < 0.75 * grey[y, x + step], (grey[y, x - step], grey[y, x + step])
    assert abs(grey[y - step, x] - grey[y + step, x]) < 0.1 * grey[y + step, x]


def test_a_cube_on_another_is_off_the_floor_and_hides_most_of_it() -> None:
    cubes = [Cube("black", (0.0, 0.0, 5.0), FLAT, 10.0),
             Cube("black", (2.0, 1.0, 15.0), FLAT, 10.0)]
    _, truth = rp.photo(_small(), cubes, np.random.default_rng(3))
    below, above = truth
    assert below["on_floor"] and not above["on_floor"]
    assert below["visible_fraction"] < 0.6 < above["visible_fraction"]


def test_a_samples_rig_json_gives_its_camera_lamps_and_colours(tmp_path: Path) -> None:
    params = {k: rp.RING[k] for k in ("res", "cam_dist", "tilt_deg", "tilt_azim", "roll_deg",
                                       "jitter_cm", "jitter_roll_deg", "ambient", "ambient_color",
                                       "ao", "post")}
    params |= {"tilt_deg": 8.0, "lights": [{"elev": 45.0, "azim": 90.0, "color": [1, 0.9, 0.8],
                                            "intensity": 0.6, "shadow": 0.8, "shininess": 12.0}],
               "floor": {"kind": "wood", "color": [0.6, 0.45, 0.3]},
               "wall": {"color": [0.5, 0.4, 0.3]}, "table": {"color": [0.1, 0.1, 0.1]}}
    path = tmp_path / "rig.json"
    path.write_text(json.dumps({"rig": "lamp", "params": params,
                                "cube": {"paint_srgb": {"red": [0.8, 0.1, 0.1]}}}))
    rig = rp.from_rig_json(path)
    assert rig["tilt_deg"] == 8.0 and rig["floor"] == [0.6, 0.45, 0.3]
    assert rig["lights"] == [rp._lamp(45.0, 90.0, 0.6, 0.8, (1, 0.9, 0.8))]
    assert rig["cube"]["paint_srgb"]["red"] == [0.8, 0.1, 0.1]
    assert rig["cube"]["paint_srgb"]["blue"] == rp.RING["cube"]["paint_srgb"]["blue"]


def test_a_folder_s_own_rig_json_gives_its_rig_back(tmp_path: Path) -> None:
    rig = rp.RIGS["warm-dim"]()
    (tmp_path / "rig.json").write_text(json.dumps(rig))
    assert rp.from_rig_json(tmp_path / "rig.json") == json.loads(json.dumps(rig))
