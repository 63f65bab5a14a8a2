"""Calibration: folder checks name the file; the report grades each colour; bad setups warn."""

from __future__ import annotations

import importlib
import itertools
import math
import shutil
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.bench import rig_photos
from tests.bench.bench_vision import render_drop
from vision import (
    COLOURS,
    Counter,
    VisionError,
    calibrate,
    format_report,
    load_profile,
    pixels,
    scenes,
)
from vision import render as rd
from vision.calibrate import _robust_gaussian
from vision.cube_areas import cubes_per_blob, whole_cubes
from vision.grading import AREA_ERROR_LIMIT
from vision.photos import Sample
from vision.profile import Profile

from .conftest import SIZE, bench_drop, calibrated, rendered_profile, rig_counter, rig_shot
from .conftest import drop as rendered_drop


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def test_calibrates_a_folder_and_every_colour_is_reliable(calib_dir: Path) -> None:
    profile = calibrate(calib_dir)
    assert {c.name for c in profile.colours} == set(COLOURS)
    assert all(c.reliable for c in profile.colours), format_report(profile)
    report = format_report(profile)
    for colour in COLOURS:
        assert colour in report
    assert "WARNING" not in report


def test_missing_empty_tray_names_the_file(calib_dir: Path, tmp_path: Path) -> None:
    folder = _copy(calib_dir, tmp_path / "c")
    (folder / "empty.png").unlink()
    with pytest.raises(VisionError, match=r"empty\.jpg: missing"):
        calibrate(folder)


def test_missing_colour_names_the_expected_file(calib_dir: Path, tmp_path: Path) -> None:
    folder = _copy(calib_dir, tmp_path / "c")
    next(folder.glob("green-*.jpg")).unlink()
    with pytest.raises(VisionError, match=r"green-N\.jpg: missing"):
        calibrate(folder)


def test_unknown_colour_names_the_file(calib_dir: Path, tmp_path: Path) -> None:
    folder = _copy(calib_dir, tmp_path / "c")
    shutil.copy(next(folder.glob("red-*.jpg")), folder / "purple-6.jpg")
    with pytest.raises(VisionError, match=r"purple-6\.jpg: unknown colour 'purple'"):
        calibrate(folder)


def test_badly_named_and_unreadable_files_name_the_file(calib_dir: Path, tmp_path: Path) -> None:
    folder = _copy(calib_dir, tmp_path / "c")
    (folder / "holiday.jpg").write_bytes(b"\xff\xd8 not really")
    with pytest.raises(VisionError, match=r"holiday\.jpg: name must be"):
        calibrate(folder)
    (folder / "holiday.jpg").unlink()
    target = next(folder.glob("blue-*.jpg"))
    target.write_bytes(b"garbage")
    with pytest.raises(VisionError, match=rf"{target.name}: not a readable image"):
        calibrate(folder)


def test_a_photo_of_coloured_cubes_without_colour_is_an_error_naming_it(
    calib_dir: Path, tmp_path: Path
) -> None:
    """A camera left in a greyscale mode: its photos decode to equal channels. (A photo of black
    or white cubes on a neutral tray may show no colour, and is no error.)"""
    folder = _copy(calib_dir, tmp_path / "c")
    target = next(folder.glob("red-*.jpg"))
    grey = cv2.cvtColor(cv2.imread(str(target)), cv2.COLOR_BGR2GRAY)
    cv2.imwrite(str(target), grey)
    with pytest.raises(VisionError, match=rf"{target.name}: the photo has no colour"):
        calibrate(folder)


def test_a_photo_of_another_size_is_an_error_naming_it(calib_dir: Path, tmp_path: Path) -> None:
    """Large photos are first looked at decoded smaller (halved here); a photo of another size
    than the empty tray's is still told apart, from a folder and from memory."""
    folder = tmp_path / "c"
    folder.mkdir()
    for path in calib_dir.iterdir():
        img = cv2.resize(cv2.imread(str(path)), (1280, 960), interpolation=cv2.INTER_CUBIC)
        cv2.imwrite(str(folder / path.name), img)
    target = next(folder.glob("blue-*.jpg"))
    blue = cv2.imread(str(target))
    cv2.imwrite(str(target), cv2.resize(blue, (1270, 960)))
    with pytest.raises(VisionError, match=rf"{target.name}: size about 1270x960 differs from "
                                          r"the empty tray's 1280x960"):
        calibrate(folder)
    samples = [Sample(p.stem.split("-")[0], int(p.stem.split("-")[1]), cv2.imread(str(p)), p.name)
               for p in folder.glob("*-*.jpg")]
    with pytest.raises(VisionError, match=rf"{target.name}: size about 1270x960 differs"):
        calibrate(empty=cv2.imread(str(folder / "empty.png")), samples=samples)
    cv2.imwrite(str(target), blue)
    assert calibrate(folder).scale == pytest.approx(calibrate(calib_dir).scale / 2)


def test_a_photo_without_the_cubes_is_an_error_naming_it(calib_dir: Path, tmp_path: Path) -> None:
    folder = _copy(calib_dir, tmp_path / "c")
    shutil.copy(folder / "empty.png", folder / "yellow-6.png")
    next(folder.glob("yellow-*.jpg")).unlink()
    with pytest.raises(VisionError, match=r"yellow-6\.png: no yellow cubes found"):
        calibrate(folder)


def test_a_worn_white_cube_among_the_calibration_cubes_leaves_white_reliable() -> None:
    """Paint varies from cube to cube (worn cubes drawn the second way, by 25%). One white cube
    a quarter darker than the rest, on a mid-grey tray, is no sign that white blends into it:
    calibration tries each cube at the paint's spread from the typical one, not beyond."""
    setup = scenes.condition("ring", SIZE)
    empty, shots = scenes.calibration_set(setup, seed=5)
    samples = []
    for colour, n, img in shots:
        if colour == "white":
            near = cv2.dilate((cv2.absdiff(img, empty).max(axis=2) > 40).astype(np.uint8),
                              np.ones((5, 5), np.uint8))
            _, cubes, stats, _ = cv2.connectedComponentsWithStats(near)
            worn = cubes == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
            img = img.copy()
            img[worn] = (img[worn] * 0.75).astype(np.uint8)
        samples.append(Sample(colour, n, img, f"{colour}-{n}.png"))
    white = calibrate(empty=empty, samples=samples).colour("white")
    assert white.reliable and not white.lift, white.note


def test_white_on_a_light_tray_warns_with_the_fix() -> None:
    _, profile = rendered_profile("light-tray")
    white = profile.colour("white")
    assert not white.reliable
    assert "tray" in white.note
    assert "WARNING" in format_report(profile) and "mid-grey" in format_report(profile)


def test_black_under_one_hard_light_warns_even_when_its_photo_counts_right() -> None:
    """Its tops glint as light as the tray at the lamp's mirror angle; the calibration cubes
    may all lie elsewhere (here they count 6 of 6), a drop's need not."""
    _, profile = rendered_profile("harsh-light")
    black = profile.colour("black")
    assert not black.reliable and "hard light" in black.note
    assert all(m.reliable for m in profile.colours if m.name != "black")


def test_a_photo_whose_blobs_do_not_add_up_is_named_with_the_fix() -> None:
    """Under one hard lamp a blue calibration cube lit and painted lighter than the rest (L* 107
    against 68-84) shows only its side faces as blue: the photo's blobs do not add up to its six
    cubes, so blue's area is not measured and it warns, naming the photo and what to do."""
    setup = replace(scenes.condition("harsh-light"), paint_variation=0.15)
    blue = calibrated(setup, 802).colour("blue")
    assert not blue.reliable
    assert "blue-6.png do not add up to its cubes" in blue.note and "even light" in blue.note


def test_black_under_one_hard_light_is_matched_with_the_lamp_it_mirrors(tmp_path: Path) -> None:
    """Even matte black tops shine dark grey where they mirror a single hard lamp, so black is
    also matched with neutral light added (its glint); under diffuse light no colour is."""
    _, lamp = rendered_profile("desk-lamp")
    _, ring = rendered_profile("ring")
    assert lamp.colour("black").glint > 0
    assert all(m.glint == 0 for m in lamp.colours if m.name != "black")
    assert all(m.glint == 0 for m in ring.colours)
    lamp.save(tmp_path / "lamp.json")
    assert load_profile(tmp_path / "lamp.json").colours == lamp.colours


def test_a_colour_whose_cubes_vanish_when_painted_a_little_darker_warns() -> None:
    """Green cubes on green felt stand out in the calibration photo, but one whose paint is a
    fifth darker is read as felt and vanishes whole; paint varies that much from cube to cube
    (the shared sample's lone tops: 0.76-1.17 of the calibrated lightness). Such a green cube
    went uncounted in a rendered drop, and the drop did not ask."""
    setup, profile = rendered_profile("felt-tray")
    green = profile.colour("green")
    assert not green.reliable and "darker or lighter" in green.note and "tray" in green.note
    assert all(m.reliable for m in profile.colours if m.name != "green"), format_report(profile)
    rng = np.random.default_rng(5)
    cubes = [scenes.make_cube(setup, rng, "green", x, 0.0) for x in (-40.0, 0.0, 40.0)]
    darker = replace(setup, paints={**setup.paints, "green": tuple(
        0.8 * v for v in setup.paints["green"])})
    img, truth = rd.render(darker, cubes, seed=5)
    res = Counter(profile).count(img)
    assert res.counts["green"] < truth.counts["green"] == 3  # lost in the felt...
    assert res.needs_review  # ...and the count asks
    # Where every colour stands out, each survives a fifth darker or lighter paint.
    assert all(m.reliable for m in rendered_profile("wood-tray")[1].colours)


def test_white_lost_in_a_pale_tray_when_painted_a_little_darker_asks() -> None:
    """On a tray of 0.7 grey white tops stand only a little lighter than the tray, and a white
    cube painted 15% darker (the shared sample's white tops range over 0.86-1.10) is read as tray
    whole. White was graded reliable there, and 3 of 30 drops (seed 2) read white short without
    asking; now its photo is also counted with its paint 15% darker, and white asks."""
    setup = replace(scenes.condition("ring"), floor_rgb=(0.7, 0.7, 0.679), paint_variation=0.15)
    profile = calibrated(setup, 2)
    assert not profile.colour("white").reliable, format_report(profile)
    assert all(m.reliable for m in profile.colours if m.name != "white"), format_report(profile)
    counter = Counter(profile)
    for drop in itertools.islice(scenes.bench_drops("ring", 2, (0.03, 0.01), None), 30):
        if drop.index in (15, 20, 29):
            on_pale = replace(drop, setup=replace(drop.setup, floor_rgb=setup.floor_rgb))
            img, truth = render_drop(on_pale, 0.15)
            res = counter.count(img)
            assert res.counts == truth.counts or res.needs_review, (drop.index, res.counts)


def test_cubes_that_lighter_paint_turns_into_unknown_objects_are_not_lost() -> None:
    """Under a cool cast (seed 521), yellow tops lie near where the camera clips: painted a fifth
    lighter, two of the six in yellow's photo clip to a pale patch no colour explains. The count
    asks for each such patch, so nothing is lost: yellow stays reliable. (It was graded lost in
    the tray, and every count asked: 40 of 40 rendered drops.)"""
    setup = replace(scenes.condition("cool-cast", None), paint_variation=0.15)
    profile = calibrated(setup, 521)
    assert all(m.reliable for m in profile.colours), format_report(profile)
    rng = np.random.default_rng(5)
    cubes = [scenes.make_cube(setup, rng, "yellow", x, 0.0) for x in (-40.0, 0.0, 40.0)]
    lighter = replace(setup, paints={**setup.paints, "yellow": tuple(
        min(1.0, 1.2 * v) for v in setup.paints["yellow"])})
    img, truth = rd.render(lighter, cubes, seed=5)
    res = Counter(profile).count(img)
    assert res.counts == truth.counts or res.needs_review, (res.counts, res.reasons)


@pytest.mark.parametrize(("name", "colour"), [("light-tray", "white"), ("dark-tray", "black")])
def test_a_colour_lost_in_the_tray_is_found_by_its_lighter_tops(name: str, colour: str) -> None:
    """Its tops, a few percent lighter than the tray, set a level between the bare tray's
    lightest and theirs; it still warns. A setup where every colour stands out needs none."""
    _, profile = rendered_profile(name)
    model = profile.colour(colour)
    assert 1.01 < model.lift < 1.15 and not model.reliable and "lighter top" in model.note
    assert [m.name for m in profile.colours if m.lift] == [colour]
    assert not any(m.lift for m in rendered_profile("ring")[1].colours)


def test_matte_black_lost_in_a_dark_tray_s_shade_is_found_by_its_darker_tops() -> None:
    """Matte black paint (0.11) on a dark tray (0.13), no sheen: its tops are darker than the
    tray by less than the tray's shade, so the tray test takes them for it, no lighter top sets
    a level and their outlines are lost in the noise. Black's area was measured on the few
    pixels that stood out, and drops of 5-7 black cubes counted 11-17. Its tops are darker than
    any bare tray its calibration photos show: that sets a level, every photo counts right, and
    so do those drops; they still ask, as black still blends in."""
    matte = tuple(replace(light, spec=0.0) for light in rd.Setup().lights)
    setup = replace(scenes.condition("dark-tray", SIZE), lights=matte,
                    paints={**rd.PAINTS, "black": (0.11, 0.11, 0.1067)})
    empty, shots = scenes.calibration_set(setup, seed=1)
    profile = calibrate(empty=empty, samples=[Sample(c, n, img, f"{c}-{n}.png")
                                              for c, n, img in shots])
    black = profile.colour("black")
    assert 0.8 < black.shade < 0.95 and not black.lift and not black.outlined
    assert not black.reliable and "darker top" in black.note
    counter = Counter(profile)
    for seed in (2, 4, 8):  # read as 12 for 5, 11 for 7 and 17 for 6
        counts = {"black": 3 + seed % 5, "red": 3, "white": 2, "blue": 2}
        img, truth = scenes.render_drop(counts, setup, seed=seed, style="cluster")
        res = counter.count(img)
        assert res.counts == truth.counts, (seed, res.counts, truth.counts)
        assert res.needs_review
    assert not any(m.shade for m in rendered_profile("ring")[1].colours)


def test_black_on_a_dark_tray_in_noisy_photos_is_found_by_its_darker_tops_and_rims() -> None:
    """The second renderer's dark floor (seed 53): in its dim, noisy photos single pixels of bare
    tray get darker than any black top, some tops are lit as the tray is inside a darker rim,
    and a tray a pixel or two out of place darkens a strip at the walls' foot. Black was left
    measured on the few pixels that stood out (drops 10 and 14 read 2 for 5 and 1 for 4). Its
    level is now set from bare 3 x 3 patches, its rings are filled and the walls' steep foot is
    left out: those drops count right, and still ask."""
    profile = _rig_counts("dark-floor", 53, (10, 14))
    assert 0 < profile.colour("black").shade < 1


@pytest.mark.parametrize(("seed", "drops"), [(56, (5, 22)), (58, (19, 27))])
def test_white_on_a_white_floor_in_noisy_photos_is_found_by_its_outlines(
    seed: int, drops: tuple[int, ...]
) -> None:
    """The second renderer's white floor (seed 56): noise ringed by the faintest edges passed for
    a white top in a blue cube's calibration photo, so outlines were not kept and white was lost
    (drop 5 read 1 for 5, drop 22 none for its lone cube). A ring must now change the light more
    sharply than its inside, all round (seed 58, drop 19: a patch of floor in a corner of the
    walls read as a white cube); the clear outlines are drawn over a wider blur (wood grain
    closed a lone cube's outline into its top), and the shade between cubes is no longer read as
    white (each cube of drop 5 beside others read as two). A light colour's faintest outlines
    are drawn over a wider blur (seed 58, drop 27: the floor's noise ringed a false white top)."""
    white = _rig_counts("white-floor", seed, drops).colour("white")
    assert white.outlined or white.lift  # seed 58: its tops are lighter than the floor too


@pytest.mark.parametrize(("rig_name", "seed"), [("window", 66), ("warm-dim", 72)])
def test_the_floor_is_found_under_soft_or_dim_light(rig_name: str, seed: int) -> None:
    """Soft window light and dim warm light leave the walls' edges faint in places: the floor's
    fill leaked through a gap onto the table (0.81 and 0.97 of the frame) and the whole frame was
    read, so the rim and chute were not watched for cubes out of reach (:mod:`vision.outside`)
    and anything lying on the table could be counted. The sample's read floor is 0.64 of its
    frame."""
    _, counter = rig_counter(rig_name, seed)
    profile = counter.profile
    floor = np.count_nonzero(pixels.roi_mask(profile.roi, profile.work_size))
    assert floor < 0.85 * profile.frame_size[0] * profile.frame_size[1]  # was 1.0 and 0.96


def test_a_low_lamp_s_cube_shadows_are_not_learned_as_the_cubes_colour() -> None:
    """Under a low lamp a cube's shadow is darker than the first look's cut (half the tray's
    lightness): red's calibration photo took its cubes' shadows in, a third of its pixels,
    neutral, and red came out so wide (its a and b spreads 28 and 20) that black cubes' lit
    sides read red (fresh low-lamp rig, seed 85: drop 1 read red 4 for 2, drop 9 9 for 2; red
    on average 2.1 off, every count asking as black blends into the tray's shade there). A
    coloured photo's cubes are learned from what the learned tray range leaves unexplained."""
    red = _rig_counts("low-lamp", 85, (1, 9)).colour("red")
    assert np.sqrt(np.diag(red.cov))[1:].max() < 10 and red.colour_separation > 8  # 27.6, 4.4


def _rig_counts(rig_name: str, seed: int, drops: tuple[int, ...]) -> Profile:
    """Calibrate on a rig of the second renderer, and check that some of its drops count right
    (and ask, as the colour blending in always does)."""
    rig, counter = rig_counter(rig_name, seed)
    for k in drops:
        img, truth = rig_photos._drop((rig, seed, k))
        res = counter.count(rig_shot(rig, img))
        assert res.counts == truth["counts"], (k, res.counts, truth["counts"])
        assert res.needs_review
    return counter.profile


@pytest.mark.parametrize(("seed", "k", "piles"), [
    (208, 2, (0.03, 0.01)), (209, 9, (0.03, 0.01)), (213, 2, (0.15, 0.04)),
])
def test_a_colour_lost_in_the_tray_that_no_lift_finds_is_found_by_its_outlines(
    seed: int, k: int, piles: tuple[float, float]
) -> None:
    """White cubes on a light tray, painted up to 15% lighter or darker (as the shared sample's
    cubes are): some are darker than the tray, so no lighter top sets a level. White's area was
    measured on the few pixels that stood out (seed 208: 0.01 of a cube's), and a drop counted
    the tray's glints as 160 white cubes for 19; or its photos did not add up (seed 209), and a
    drop of 24 white cubes counted none. Found by their outlined tops instead, every calibration
    photo counts right (seed 213: but for one cube whose outline does not close), and so do
    those drops; they still ask, as white still blends in."""
    counter, img, truth = bench_drop("light-tray", seed, k, piles=piles, paint=0.15)
    white = counter.profile.colour("white")
    assert white.outlined and not white.lift and not white.reliable
    assert "outlines" in white.note
    res = counter.count(img)
    assert res.counts == truth.counts, (res.counts, truth.counts)
    assert res.needs_review
    assert not any(m.outlined for m in rendered_profile("ring")[1].colours)


def test_a_colour_model_is_not_widened_by_the_shadowed_tray_among_its_pixels() -> None:
    """A sixth of a black sample's pixels may be the shadowed tray beside its cubes, of any
    lightness up to the tray's (the sample's photos at 640 x 480): enough to widen a window set
    by the mean and covariance until it keeps them."""
    rng = np.random.default_rng(0)
    cube = rng.normal([25.0, 128.0, 129.0], [8.0, 2.0, 2.0], (830, 3))
    light = np.r_[rng.uniform(40.0, 100.0, 80), rng.normal(90.0, 5.0, 90)]
    shade = np.c_[light, rng.normal([127.0, 130.0], 2.0, (170, 2))]
    mean, cov = _robust_gaussian(np.vstack([cube, shade]))
    assert abs(mean[0] - 25.0) < 1.5 and math.sqrt(cov[0, 0]) < 10.0  # was 32.7 and 22


def test_a_calibration_photo_showing_as_many_blobs_as_cubes_has_one_in_each() -> None:
    """Six black tops found by their lift on a dark tray, one tilted toward the camera at 1.5
    mean cubes (OpenCV 4.14 labels them so): no longer left out of the area fit as two."""
    assert cubes_per_blob([442, 452, 532, 558, 589, 866], 6) == [1, 1, 1, 1, 1, 1]
    assert cubes_per_blob([500, 510, 1010], 4) == [1, 1, 2]  # a touching pair
    assert cubes_per_blob([500, 1000, 1000], 4) is None  # cannot add up to four
    assert cubes_per_blob([300, 320, 340, 360, 380, 1100], 6) is None  # 2.4 cubes: not one


@pytest.mark.parametrize("off", [2, -2])
def test_a_photo_named_with_another_number_of_cubes_is_named_with_the_fix(
    calib_dir: Path, tmp_path: Path, off: int
) -> None:
    """A red photo named for two cubes more (or fewer) than it holds: its blobs, read by the
    other colours' one-cube area, show how many it holds, and the warning says so, with the fix
    (it said only that they did not add up). Red's area is not learned from it; counts of red
    ask."""
    right = calibrate(calib_dir)
    folder = _copy(calib_dir, tmp_path / "c")
    photo = next(folder.glob("red-*.jpg"))
    n = int(photo.stem.split("-")[1])
    photo.rename(folder / f"red-{n + off}.jpg")
    profile = calibrate(folder)
    red = profile.colour("red")
    assert not red.reliable
    assert f"red-{n + off}.jpg shows {n} red cubes, not {n + off} as its name says" in red.note
    assert f"rename it red-{n}.jpg" in red.note
    assert abs(red.area / right.colour("red").area - 1) < 0.1
    assert all(m.reliable for m in profile.colours if m.name != "red")


def test_a_photo_tells_its_number_of_cubes_only_when_each_blob_holds_a_whole_number() -> None:
    assert whole_cubes([1.1, 0.9, 2.2, 0.8]) == 5
    assert whole_cubes([1.0, 1.4]) is None  # a cube on its edge tells nothing
    assert whole_cubes([1.0, 0.3]) is None  # nor a sliver
    assert whole_cubes([]) is None


def test_the_report_asks_for_more_cubes_where_a_colour_area_is_known_loosely() -> None:
    """Six cubes of a colour painted unevenly (15%) give its one-cube area to 1-5%; four times as
    many, to about half that, and the report then has no advice to give."""
    setup = replace(scenes.condition("ring", (640, 480)), paint_variation=0.15)
    errors, reports = [], []
    for per in (6, 24):
        empty, shots = scenes.calibration_set(setup, seed=1, per_colour=per)
        profile = calibrate(empty=empty, samples=[Sample(c, n, img, f"{c}-{n}.png")
                                                  for c, n, img in shots])
        errors.append([m.area_error for m in profile.colours])
        reports.append(format_report(profile))
    few, many = errors
    assert min(many) > 0 and max(many) <= AREA_ERROR_LIMIT < max(few)
    assert np.mean(many) < 0.7 * np.mean(few)
    assert "lay more cubes" in reports[0] and "lay more cubes" not in reports[1]


def test_a_calibration_cube_half_lost_in_the_tray_does_not_bend_the_area_map() -> None:
    """Green felt (seed 358, paint varying by 15%): a green calibration cube in a corner, half
    lost in the felt, covered 0.68 of what the other lone cubes gave it. Fitted with the seam-cut
    tops, the map bent to take it in: the point under the lens moved near that corner, flat cubes
    there covered up to a third more than the map gave them, and a physics-settled drop read two
    red cubes as three. Leaving that one cube out moves the point back, so it is left out."""
    counter, img, truth = bench_drop("felt-tray", 358, 17, physics=True, paint=0.15)
    w, h = counter.profile.work_size
    assert math.dist(counter.profile.area_map.nadir, (w / 2, h / 2)) < 80
    assert counter.count(img).counts["red"] == truth.counts["red"] == 11


def test_white_whose_tops_barely_stand_out_from_a_pale_tray_needs_a_coloured_cubes_share() -> None:
    """On a pale tray (seed 556) white's tops are lit 1.27 times the tray and its cubes showed
    0.66 of a coloured cube's area: enough at the 0.6 black and white needed for a while, and 15
    of 40 rendered drops then read white short without asking. Tops that do not stand clear of
    the tray need the colours' 0.7, so white is graded unreliable and every count asks."""
    profile = calibrated(replace(scenes.condition("pale-tray", None), paint_variation=0.15), 556)
    white = profile.colour("white")
    assert not white.reliable, format_report(profile)
    assert all(m.reliable for m in profile.colours if m.name != "white"), format_report(profile)


@pytest.mark.parametrize(("seed", "paint", "size"), [(3, 0.0, SIZE), (208, 0.15, None)])
def test_labels_remembered_between_a_calibrations_counters_change_nothing(
    seed: int, paint: float, size: tuple[int, int] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Calibration labels its photos once per labelling, not once per counter: the profile is the
    one labelling every time makes (white found by its lighter tops at seed 3, by its outlines at
    seed 208, where labels follow the fitted areas)."""
    setup = replace(scenes.condition("light-tray", size), paint_variation=paint)
    remembered = calibrated(setup, seed)
    assert remembered.colour("white").lift if seed == 3 else remembered.colour("white").outlined
    module = importlib.import_module("vision.calibrate")
    monkeypatch.setattr(module, "Counter", lambda profile, memo=None: Counter(profile))
    assert calibrated(setup, seed) == remembered


@pytest.mark.parametrize(("size", "scale"), [((960, 720), 1.0), ((1360, 1020), 0.75)])
def test_a_far_camera_is_read_only_where_the_tray_and_its_rim_are(
    tmp_path: Path, size: tuple[int, int], scale: float
) -> None:
    """A camera seeing the tray in half its frame: calibration keeps the part with the floor
    and the rim watched around it (saved with the profile), the counter reads that part alone,
    and what it finds is told in the photo's pixels. A photo at another resolution of the same
    camera is read in the same part. Cubes 19 pixels wide are read as taken, 28 at 3/4 scale
    (:data:`~vision.calibrate.LARGEST_SIDE`)."""
    setup = scenes.condition("far-camera", size)
    width, height = size
    profile = calibrated(setup, 3)
    assert profile.scale == scale
    assert profile.crop is not None
    profile.save(tmp_path / "far.json")
    assert load_profile(tmp_path / "far.json") == profile
    x0, y0, x1, y1 = profile.crop
    assert (x1 - x0) * (y1 - y0) <= 0.75 * width * height
    assert profile.work_size == (round((x1 - x0) * profile.scale), round((y1 - y0) * profile.scale))
    counter = Counter(profile)
    side = math.sqrt(profile.colour("red").area) / profile.scale
    for seed in range(3):
        img, truth = rendered_drop(setup, seed, {c: 2 for c in COLOURS}, shift_mm=3.0)
        res = counter.count(img)
        assert res.counts == truth.counts, seed
        for det in res.detections:
            same = [c["center_px"] for c in truth.cubes if c["color"] == det.colour]
            assert min(math.dist(det.centre, c) for c in same) < side / 2
        for blob in res.blobs:
            x, y, w, h = blob.box
            assert any(x <= c["center_px"][0] <= x + w and y <= c["center_px"][1] <= y + h
                       for c in truth.cubes if c["color"] == blob.colour)
    halved = counter.count(cv2.resize(img, (width // 2, height // 2), interpolation=cv2.INTER_AREA))
    assert halved.counts == truth.counts
    if scale == 0.75:  # the part is cut on whole groups of 4 photo pixels, 3 working ones, so
        # it is, pixel for pixel, that part of the whole photo at 3/4 (as the empty tray is cut)
        assert all(v % 4 == 0 for v in profile.crop)
        whole = pixels.to_working(img, profile.frame_size)
        ox, oy = x0 * 3 // 4, y0 * 3 // 4
        w, h = profile.work_size
        assert np.array_equal(counter.working(img), whole[oy : oy + h, ox : ox + w])
