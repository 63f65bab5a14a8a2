"""Regression set of hard cases: each must be counted exactly or ask for review (never a
confident wrong count). Covers touching clusters, flush rows and 2x2 blocks, tilted cubes (edge,
corner, leaning), stacked cubes, a tilted camera, dark and light trays, colour casts, dim noisy
light, blur and JPEG, a tray shifted since calibration, the tray's mouth with cubes on the chute,
a 640x480 camera, harsh single light, a wide lens, white on a light tray and felt."""

from __future__ import annotations

import numpy as np
import pytest

from vision.crosscheck import EDGE_IN_ROW

from .conftest import bench_drop, drop, rendered_counter

CASES = [
    # (setup, seed, style, total, tilted, stacked)
    ("ring", 1, "cluster", 18, 0.3, 0.1),
    ("ring", 2, "rows", 16, 0.0, 0.0),
    ("ring", 3, "cluster", 30, 0.2, 0.05),
    ("tilt12", 4, "scatter", 20, 0.2, 0.0),
    ("tilt12", 5, "cluster", 24, 0.2, 0.1),
    ("dark-tray", 6, "scatter", 16, 0.1, 0.1),
    ("dark-tray", 7, "cluster", 20, 0.2, 0.0),
    ("warm-cast", 8, "rows", 20, 0.1, 0.0),
    ("dim-noisy", 9, "scatter", 20, 0.1, 0.0),
    ("tilt12", 10, "rows", 14, 0.2, 0.0),
    ("blur-jpeg", 11, "cluster", 20, 0.1, 0.05),
    ("ring", 12, "scatter", 25, 0.3, 0.1),
    ("mouth", 13, "cluster", 24, 0.2, 0.05),
    ("tall-640", 14, "rows", 18, 0.1, 0.0),
    ("harsh-light", 15, "cluster", 20, 0.2, 0.0),
    ("wide-lens", 16, "cluster", 30, 0.2, 0.05),
    ("light-tray", 17, "scatter", 16, 0.1, 0.0),
    ("felt-tray", 18, "rows", 22, 0.15, 0.0),
    ("small-camera", 19, "cluster", 26, 0.2, 0.05),
    ("cool-cast", 20, "rows", 20, 0.15, 0.0),
]


@pytest.mark.parametrize(("name", "seed", "style", "total", "tilted", "stacked"), CASES)
def test_hard_case_is_exact_or_flagged(
    name: str, seed: int, style: str, total: int, tilted: float, stacked: float
) -> None:
    setup, counter = rendered_counter(name)
    rng = np.random.default_rng(seed)
    counts = {
        c: int(v)
        for c, v in zip(
            ("red", "yellow", "blue", "green", "black", "white"),
            rng.multinomial(total, [1 / 6] * 6),
            strict=True,
        )
    }
    img, truth = drop(setup, seed, counts, style, tilted, stacked, shift_mm=3.0)
    # A cube mostly under another cannot be seen from above: there the tower's exit beam total
    # is what makes the count ask (as in the product); everywhere else the counter stands alone.
    res = counter.count(img, expected_total=sum(truth.counts.values()) if truth.hard else None)
    assert res.counts == truth.counts or res.needs_review, (res.counts, truth.counts, res.reasons)


def test_a_cube_on_its_corner_in_a_pile_is_one_when_its_faces_show_it() -> None:
    """A green cube on its corner beside others shows an outline too long for one flat cube
    (1.76 cube areas), read as two overlapping; its largest face, turned well away from the
    light, says one. Read as two, it hid the error of a blue cube lying under a green one,
    only 14% of it in sight, and the beam's total agreed: a wrong count that did not ask. The
    green cubes are now counted right and the blue cube's faint specks ask. (Where the beam's
    total, one short, adds the cube is a near tie with a red pile whose cores disagree with its
    area: the count asks either way.)"""
    counter, img, truth = bench_drop("wood-tray", 41, 28)
    for beam in (None, sum(truth.counts.values())):
        res = counter.count(img, expected_total=beam)
        assert res.counts["green"] == truth.counts["green"], res.reasons
        assert res.needs_review
        assert any("faint specks" in r and r.startswith("blue") for r in res.reasons), res.reasons


def test_a_cube_on_its_corner_lit_alike_on_every_face_is_not_read_surely_as_two() -> None:
    """A green cube alone on its corner near the tray's mouth, its three faces lit alike, covers
    1.92 cube areas in an outline as wide as it is long: read as a pair at 0.93, the drop did not
    ask (harder piles seed 273, paint varying). It is one cube, and asks: it could be two
    stacked."""
    counter, img, truth = bench_drop("mouth", 273, 29, paint=0.15)
    res = counter.count(img)
    assert res.counts == truth.counts, res.reasons
    assert res.needs_review
    assert any(r.startswith("green") and "tilted" in r for r in res.reasons), res.reasons


def test_a_block_of_four_longer_one_way_is_counted_by_its_shape() -> None:
    """Four yellow cubes in a 2 x 2 block, two of them a quarter covered by their neighbours,
    cover 3.46 cube areas in an outline 1.98 by 1.80 cube sides; their seams are lost in dim,
    noisy light (sample-like piles seed 287, dim-noisy #8, paint varying). Read from the area
    as three, the drop was wrong; the block's shape says four."""
    counter, img, truth = bench_drop("dim-noisy", 287, 8, piles=(0.03, 0.01), paint=0.15)
    res = counter.count(img)
    assert res.counts == truth.counts, (res.counts, truth.counts)


def test_a_flush_row_of_three_off_axis_is_not_read_surely_as_two() -> None:
    """Three black cubes in a flush row under a camera tilted 12 degrees (harder piles, paint
    varying): each hides its neighbour's side face, so the row covers 2.18 cube areas, and its
    seams cut nothing. Its length says three; read surely as two, the drop did not ask. It is
    counted by its length, and asks."""
    counter, img, truth = bench_drop("tilt12", 227, 26, paint=0.15)
    res = counter.count(img)
    assert res.counts == truth.counts and res.needs_review, (res.counts, truth.counts)
    assert any(r.startswith("black") and "with the area of 2" in r for r in res.reasons)


def test_two_tops_in_a_row_off_axis_are_not_read_surely_as_one_cube() -> None:
    """A red pair in a row with a blue cube under a camera tilted 12 degrees (sample-like piles,
    paint varying): each hides the other's side face, so the two cover 1.17 cube areas, and
    read by area as one cube, the drop did not ask. Their outline is too long for one cube."""
    counter, img, truth = bench_drop("tilt12", 352, 38, piles=(0.03, 0.01), paint=0.15)
    res = counter.count(img)
    assert truth.counts["red"] == 10 and not truth.hard
    assert res.counts == truth.counts or res.needs_review, (res.counts, res.reasons)


def test_five_cubes_packed_tight_are_read_as_five_or_ask() -> None:
    """Five white cubes lying flat, packed tight under a camera tilted 12 degrees: each hides
    the others' sides, so they cover 4.08 cube areas, and four cores stand apart. Read surely as
    four, the drop did not ask. Their seams cut five pieces of 0.56-0.87 of a top."""
    counter, img, truth = bench_drop("tilt12", 57, 10, physics=True)
    res = counter.count(img)
    assert truth.counts["white"] == 9
    assert res.counts == truth.counts or res.needs_review, (res.counts, res.reasons)


def test_a_pile_showing_more_tops_than_it_is_read_as_takes_their_count() -> None:
    """Four black cubes, read from their area (3.45 cube areas) as a cluster of three.
    Their seams cut them too unevenly to count by, but into four pieces lit as flat tops: the
    pile asks, and is read as four. (Its outline, a 2 x 2 block seen off the camera's axis, now
    reads four first: see test_a_block_of_four_longer_one_way_is_counted_by_its_shape.)"""
    counter, img, truth = bench_drop("wide-lens", 59, 26)
    res = counter.count(img)
    assert res.counts == truth.counts, res.reasons
    pile = [b for b in res.blobs if b.colour == "black" and 3.4 < b.area_ratio < 3.5]
    assert [b.n for b in pile] == [4], res.blobs


def test_a_tilted_cube_whose_side_face_the_seams_cut_as_a_top_is_one() -> None:
    """A white cube tilted on a neighbour under a camera tilted 12 degrees (seed 70, #2): its
    outline (1.50 cube areas, square) reads one tilted cube or two stacked, and its side face,
    cut off by the seams, passed for a second top: read as two, one too many. Under a cluster's
    area such tops do not change the count; it still asks."""
    counter, img, truth = bench_drop("tilt12", 70, 2, paint=0.15)
    res = counter.count(img)
    assert res.counts == truth.counts and res.needs_review, (res.counts, truth.counts)
    assert any(r.startswith("white") and "seams show 2 tops" in r for r in res.reasons)


def test_a_pile_of_three_with_room_for_a_fourth_under_it_asks() -> None:
    """Three yellow cubes read surely from their top (3.51 cube areas; seams cut a top and a pair
    of 2.28 tops) with a fourth almost wholly under them: the drop, sure at 0.92, did not ask."""
    counter, img, truth = bench_drop("wood-tray", 57, 18, physics=True)
    res = counter.count(img)
    assert res.counts == truth.counts or res.needs_review, (res.counts, truth.counts)


def test_a_cube_lying_flat_on_another_is_not_taken_surely_for_one_tilted_cube() -> None:
    """Drops settled by physics (seed 101): a red cube lying flat across another red one, half
    of which shows. The blob (1.42 cube areas) has a largest face at 0.87 of a flat top, darker
    than a top but lighter than a tilted cube's face mostly is, and was read as one tilted cube,
    sure at 0.97. Now it is one cube that may lie on another, and asks."""
    counter, img, _ = bench_drop("ring", 101, 19, physics=True)
    res = counter.count(img)
    red = [b for b in res.blobs if b.colour == "red" and b.reason.startswith("one tilted cube")]
    assert red and all(b.confidence < 0.9 for b in red), [(b.reason, b.confidence) for b in red]
    assert res.needs_review


def test_flat_cubes_painted_darker_are_not_taken_surely_for_one_tilted_cube() -> None:
    """Rendered drops whose cubes' paint varies by 15%, as the shared sample's do (seed 118):
    two red cubes lying flush, partly under yellow ones, whose tops the seams left in one piece
    lit 0.79 of a flat top. Faces that dark were read as one tilted cube, sure at 0.97, and the
    drop did not ask; paint alone darkens a flat top that far."""
    counter, img, truth = bench_drop("wide-lens", 118, 14, paint=0.15)
    res = counter.count(img)
    assert res.counts == truth.counts or res.needs_review, (res.counts, truth.counts)


@pytest.mark.parametrize(
    ("name", "k", "colour"), [("tilt12", 26, "blue"), ("cool-cast", 2, "yellow")]
)
def test_flat_cubes_painted_darker_whose_seams_cut_two_tops_count_two(
    name: str, k: int, colour: str
) -> None:
    """Rendered drops (harder piles, seed 236, paint varying by 15%): two flat cubes whose faces,
    lit alike a little darker than a flat top, may be one tilted cube (1.83 and 1.82 cube areas),
    and whose seams cut two whole tops. The tilted cube's reading was kept (a clearly tilted
    cube's own edges cut it into pieces like tops): one too few. Such readings' seams were right
    4 times of 4 (seeds 236, 238). It still asks."""
    counter, img, truth = bench_drop(name, 236, k, paint=0.15)
    res = counter.count(img)
    assert res.counts == truth.counts and res.needs_review, (res.counts, truth.counts)
    assert any(r.startswith(colour) and "painted darker" in r and "seams suggest 2" in r
               for r in res.reasons), res.reasons


@pytest.mark.parametrize(("name", "seed", "k", "piles", "colour"), [
    ("wide-frame", 236, 25, (0.15, 0.04), "red"),
    ("dim-noisy", 238, 37, (0.15, 0.04), "green"),
    ("small-camera", 237, 7, (0.03, 0.01), "red"),
])
def test_two_cores_over_three_cube_areas_are_two_tilted_cubes(
    name: str, seed: int, k: int, piles: tuple[float, float], colour: str
) -> None:
    """Rendered drops (paint varying by 15%): two cubes, tilted, over 2.94, 3.03 and 2.97 cube
    areas, whose cores stand apart. The area's three was kept, the cores' two being unlikely by
    area alone: one too many. The cores count each tilted cube once. It still asks."""
    counter, img, truth = bench_drop(name, seed, k, piles=piles, paint=0.15)
    res = counter.count(img)
    assert res.counts == truth.counts and res.needs_review, (res.counts, truth.counts)
    assert any(r.startswith(colour) and "2 cores stand apart" in r for r in res.reasons)


def test_a_loose_pile_of_three_asks() -> None:
    """Drops settled by physics (seed 104): three red cubes read surely from their top, their
    seams agreeing, over 3.41 cube areas, with a fourth under them. A pile that spreads over more
    than 1.1 cube areas a cube hid one more 14 times in 65 such piles, not 7%: the drop, sure at
    0.93, did not ask."""
    counter, img, truth = bench_drop("wide-frame", 104, 16, physics=True)
    res = counter.count(img)
    assert res.counts == truth.counts or res.needs_review, (res.counts, truth.counts)


def test_black_cubes_shining_under_a_desk_lamp_are_counted() -> None:
    """Under one hard lamp even matte black tops mirror it where the angle is right, and shine
    dark grey (L* 35 against 13 elsewhere): no colour's, they went uncounted (seed 307: drop
    #22 read 1 of 3 black cubes, #26 1 of 2). Black still asks under such light."""
    for k, black in ((22, 3), (26, 2)):
        counter, img, truth = bench_drop("desk-lamp", 307, k, piles=(0.03, 0.01), paint=0.15)
        res = counter.count(img)
        assert truth.counts["black"] == black
        assert res.counts == truth.counts, (k, res.counts, truth.counts)
        assert res.needs_review


@pytest.mark.parametrize(("name", "seed", "k"), [("cool-cast", 312, 28), ("tall-640", 372, 16)])
def test_a_cube_on_its_edge_in_a_row_is_not_counted_twice(name: str, seed: int, k: int) -> None:
    """A cube on its edge beside a flat one: its two faces lie side by side as two tops in a
    row do, and the outline read the pair surely as a row of three (sample-like piles, paint
    varying by 15%; seed 312 cool-cast #28: red 6 of 5, and seed 372 tall-640 #16: black 7 of
    6, neither asking). The red cube's faces, uncut, make one piece of 1.37 tops lit at 0.73 of
    a flat top; the black one's seams cut a piece of 0.26 tops lit at 0.42, a face turned far
    from the light. The pair is read by its area, and asks."""
    counter, img, truth = bench_drop(name, seed, k, piles=(0.03, 0.01), paint=0.15)
    res = counter.count(img)
    assert not truth.hard
    assert res.counts == truth.counts, (res.counts, truth.counts)
    assert res.needs_review
    assert any(EDGE_IN_ROW in b.reason for b in res.blobs)
