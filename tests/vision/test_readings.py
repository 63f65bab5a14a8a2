"""Reading one blob: its count from area and shape, and a second cue's check of it."""

from __future__ import annotations

from vision.odds import (
    BEAM_FLOOR,
    HIDDEN_RISK,
    LOOSE_PAIR_RISK,
    LOOSE_PILE_RISK,
    PAIR_EXCESS,
    REVIEW_BELOW,
    SNUG_PAIR,
    SNUG_PAIR_RISK,
)
from vision.readings import (
    CONFIRMED_PAIR,
    LINE,
    ONE_WITH_BUMP,
    OUTVOTED_CONFIDENCE,
    ROW_OR_BLOCK,
    TILTED_OR_STACKED,
    TOO_LARGE,
    Reading,
    first_reading,
    grid_count,
    read_blob,
    second_cue,
)


def test_an_l_of_three_flush_cubes_counts_three_by_its_shape() -> None:
    # A 2 x 2 block missing a corner (measured on a rendered drop where its seams were lost): its
    # area alone (flush cubes hide each other's sides) is nearer two cubes than three.
    n, confidence, why = read_blob(2.44, 1.92, 1.89, 0.837, 0.672)
    assert (n, why) == (3, "row or block of 3") and confidence >= 0.9
    # Blurred, its inner corner fills (harder piles, seed 112, paint varying).
    assert read_blob(2.587, 1.949, 1.747, 0.916, 0.760)[:1] == (3,)
    # Two cubes touching by a corner fill half their box: no L.
    assert read_blob(2.1, 2.0, 1.9, 0.67, 0.52)[0] == 2


def test_a_row_longer_than_its_area_allows_counts_by_its_length_and_asks() -> None:
    """A flush row of three off the camera's axis hides two of its side faces: 2.18 cube areas
    (two, by area; three under a tenth as likely) in a filled rectangle 2.64 x 0.85 sides (three
    cells). Rendered drop, tilt12: it was read as two at 0.93, and the drop did not ask. The
    shape's count is the likelier where the two disagree (95 of 96 rendered blobs)."""
    n, confidence, why = read_blob(2.177, 2.644, 0.853, 1.0, 0.966)
    assert (n, why) == (3, f"{ROW_OR_BLOCK} 3, but with the area of 2")
    assert confidence < REVIEW_BELOW
    # Where the area allows the row's count, the row's length counts.
    assert read_blob(2.5, 2.644, 0.853, 1.0, 0.966)[::2] == (3, f"{ROW_OR_BLOCK} 3")


def test_two_tops_in_a_rectangle_longer_than_a_cube_are_not_read_surely_as_one() -> None:
    """Two flat tops side by side in a row under a camera tilted 12 degrees, their side faces
    hidden by neighbours: 1.17 cube areas in a filled rectangle 1.45 x 0.83 sides (sample-like
    seed 352 tilt12 #38, read surely as one cube). A cube is never so long for its width."""
    n, confidence, _ = read_blob(1.174, 1.450, 0.834, 1.0, 0.971)
    assert n == 2 and confidence < REVIEW_BELOW
    # As square as a cube (1.54 times as long as wide at most, in 15,791 rendered ones): one.
    assert read_blob(1.1, 1.45, 0.95, 0.98, 0.95)[:2] == (1, 0.9995)
    # A cube partly hidden shows a strip: one, if smaller than expected.
    assert read_blob(0.79, 1.28, 0.81, 0.98, 0.95)[:2] == (1, 0.9995)


def test_more_than_a_cube_in_a_shape_no_cube_has_reads_as_two_overlapping_and_asks() -> None:
    # A lone cube is square from above, even tilted; two overlapping hide part of each other, so
    # a long or dented blob of 1.15-1.6 cube areas is most often two (10 of 11 in rendered drops).
    n, confidence, _ = read_blob(1.22, 1.7, 1.0, 0.9, 0.8)
    assert n == 2 and confidence < 0.9
    # Half again a cube's area, long or dented: two (24 of 24), and too long to be one tilted.
    assert read_blob(1.5, 1.8, 1.0, 0.86, 0.8)[:2] == (2, 0.9)
    assert read_blob(1.4, 1.6, 1.0, 0.85, 0.8)[0] == 2
    # Barely more than one cube's area in a long shape stays one, and asks.
    assert read_blob(1.05, 1.7, 1.0, 0.9, 0.8)[:2] == (1, 0.5)
    # A square of that area is one tilted cube.
    assert read_blob(1.5, 1.3, 1.2, 0.95, 0.9)[0] == 1


def test_a_part_of_a_cube_counts_one_and_asks_unless_the_beam_agrees() -> None:
    # Half a black or white cube's area, the rest in shade or glare: one cube most often.
    n, confidence, _ = read_blob(0.45, 0.8, 0.6, 0.9, 0.8)
    assert n == 1 and BEAM_FLOOR <= confidence < REVIEW_BELOW


def test_two_cues_that_outvote_the_area_leave_the_pile_asking() -> None:
    # A pile of 2.69 cube areas: the area says three, the seams two, and the cores two as well
    # (a rendered drop: it held three). Agreeing against the area is not sure enough to pass.
    area = Reading(3, 0.7, "cluster of 3")
    seams = second_cue(2.69, area, 2, 0.99, "seams agree", "the seams suggest 2")
    assert seams.n == 2 and seams.confidence < REVIEW_BELOW
    cores = second_cue(2.69, seams, 2, 0.985, "cores apart agree", "2 cores stand apart")
    assert cores.n == 2 and cores.confidence <= OUTVOTED_CONFIDENCE < 0.985
    # With nothing against them, agreeing cues are as sure as the surer one.
    sure = second_cue(2.9, area, 3, 0.99, "seams agree", "the seams suggest 3")
    assert (sure.n, sure.confidence) == (3, 0.99)


def test_a_cue_that_sees_past_the_area_is_taken_where_the_area_makes_it_unlikely() -> None:
    # Two cubes on their edges cover 2.94 cube areas: the area says three and makes two unlikely
    # (under a tenth). Seams are kept to what the area allows; separate cores, which count a
    # tilted cube once, are taken all the same. Both ask.
    area = Reading(3, 0.9, "cluster of 3")
    seams = second_cue(2.94, area, 2, 0.99, "seams agree", "the seams suggest 2")
    cores = second_cue(2.94, area, 2, 0.985, "cores apart agree", "2 cores stand apart",
                       beyond_area=True)
    assert (seams.n, cores.n) == (3, 2)
    assert max(seams.confidence, cores.confidence) < REVIEW_BELOW
    assert second_cue(2.94, area, 2, 0.985, "", "", keep=True, beyond_area=True).n == 3


def test_a_blob_much_longer_and_thinner_than_a_cube_is_a_line() -> None:
    n, confidence, why = read_blob(0.9, 6.8, 0.22, 0.95, 0.9)
    assert (n, why) == (0, LINE) and confidence < 0.9
    assert read_blob(0.4, 1.5, 0.3, 0.9, 0.9)[0] == 1  # a hidden cube's strip stays a cube


def test_a_blob_larger_than_any_drop_could_cover_holds_no_cube_and_asks() -> None:
    """Past what MAX_CLUSTER cubes cover, every count is equally unlikely: such a blob was read
    as one cube (the first of equal likelihoods). It is none, and asks."""
    n, confidence, why = read_blob(120.0, 12.0, 10.0, 0.95, 0.9)
    assert (n, why) == (0, TOO_LARGE) and confidence < 0.9
    assert read_blob(60.0, 9.0, 7.0, 0.95, 0.9)[0] > 40  # a large pile is still counted


def test_a_confirmed_pair_is_as_sure_as_its_area_leaves_room_for_a_third_cube() -> None:
    # Up to SNUG_PAIR cube areas, a pair whose seams agree hides a third hardly ever (1 of
    # 1,101 in rendered drops); from there to PAIR_EXCESS a third's sliver may be in it (9 of 325).
    area = Reading(2, 0.95, "cluster of 2")

    def sure(ratio: float) -> float:
        read = second_cue(ratio, area, 2, 0.99, "seams agree", "the seams suggest 2")
        return min(read.confidence, 1.0 - read.hidden)

    assert sure(1.95) == CONFIRMED_PAIR == 1.0 - SNUG_PAIR_RISK
    assert sure(SNUG_PAIR + 0.1) == 1.0 - LOOSE_PAIR_RISK < 0.98
    assert sure(PAIR_EXCESS + 0.1) < REVIEW_BELOW
    # Outvoted cues still ask.
    outvoted = second_cue(1.95, Reading(2, 0.8, "x", disputed=True), 2, 0.99, "agree", "no")
    assert outvoted.confidence <= OUTVOTED_CONFIDENCE


def test_a_row_is_read_surely_from_its_top_and_may_hide_a_cube_as_any_such_pile() -> None:
    # A filled rectangle two cubes long is a row of two; at 2.4 cube areas a third cube's sliver
    # may be in it (rendered drops: 1 of 1 such rows held a third), as in a pair whose seams agree.
    n, conf, why = read_blob(2.4, 2.1, 1.05, 0.97, 0.92)
    assert (n, why) == (2, f"{ROW_OR_BLOCK} 2") and conf >= 0.98
    row = first_reading(n, conf, why, 2.4)
    assert min(row.confidence, 1.0 - row.hidden) < REVIEW_BELOW
    snug = first_reading(*read_blob(2.0, 2.05, 1.02, 0.97, 0.93), 2.0)
    assert snug.n == 2 and snug.hidden == SNUG_PAIR_RISK
    assert first_reading(*read_blob(2.0, 1.8, 1.3, 0.8, 0.7), 2.0).hidden == 0.0  # no row


def test_a_confirmed_pile_of_three_with_room_for_a_fourth_is_doubted_more() -> None:
    # Piles of three whose seams agree hid a fourth 9 times in 714 up to 3.3 cube areas, and 4 in
    # 57 above (rendered drops, 6 seeds; settled by physics, 14 in 65); a pile's own chance grows
    # with its size, and only the largest piles' passes that.
    area = Reading(3, 0.9, "cluster of 3")

    def hidden(n: int, ratio: float) -> float:
        return second_cue(ratio, area._replace(n=n), n, 0.99, "seams agree", "no").hidden

    assert hidden(3, 3.2) == 2 * HIDDEN_RISK
    assert hidden(3, 3.4) == LOOSE_PILE_RISK > 2 * HIDDEN_RISK
    assert hidden(8, 9.5) == LOOSE_PILE_RISK > 7 * HIDDEN_RISK
    assert hidden(16, 18.0) == 15 * HIDDEN_RISK > LOOSE_PILE_RISK


def test_a_cube_bulging_on_one_side_may_hide_another_corner_and_asks() -> None:
    """A cube's area and a fifth more in a shape filling 0.78 of its least rectangle: a lone
    cube fills 0.93 or more (95 in 100); in rendered drops a third of such blobs held a second
    cube, a tenth to a quarter of it showing (cool-cast, harder piles seed 183, #19)."""
    n, conf, why = read_blob(1.22, 1.38, 1.13, 1.0, 0.78)
    assert (n, why) == (1, ONE_WITH_BUMP) and conf < REVIEW_BELOW
    assert read_blob(1.22, 1.2, 1.12, 1.0, 0.95)[:2] == (1, 0.9995)  # square: one cube
    assert read_blob(1.1, 1.3, 1.1, 1.0, 0.78)[:2] == (1, 0.9995)  # no more than a cube's area
    # A desk lamp's rig (seed 64, #28): a red cube's sliver, the rest under a black cube, joined
    # to a red neighbour; read surely as one, the drop did not ask.
    assert read_blob(1.151, 1.19, 1.12, 0.998, 0.861)[2] == ONE_WITH_BUMP


def test_a_blob_as_wide_as_long_is_one_cube_on_its_corner_however_large() -> None:
    """Off the camera's axis a cube on its corner shows a hexagon of up to two cube areas and
    more, 1.5-1.6 cube sides each way; two cubes lie half as long again as wide."""
    n, conf, why = read_blob(1.92, 1.5, 1.45, 0.98, 0.83)
    assert (n, why) == (1, TILTED_OR_STACKED) and conf < REVIEW_BELOW
    assert read_blob(2.07, 1.58, 1.57, 1.0, 0.83)[0] == 1
    assert read_blob(1.9, 1.73, 1.13, 1.0, 0.97)[0] == 2  # a pair side by side
    assert read_blob(1.88, 1.83, 1.33, 0.96, 0.77)[0] == 2  # a pair overlapping


def test_a_flush_row_or_block_shows_side_faces_only_on_its_outside() -> None:
    """Off the camera's axis a flush row of k cubes is k tops plus one side face long and one top
    plus that face wide, so its length over its width falls short of k (2.71 for three); a 2 x 2
    block seen so is longer one way than the other. Measured on rendered drops where area alone
    read them a cube short (sample-like seed 287: tilt12 #26, dim-noisy #8, tall-640 #26)."""
    assert grid_count(2.522, 0.981, 0.95, 1.0) == 3
    assert grid_count(2.838, 1.071, 0.965, 1.0) == 3
    assert grid_count(1.975, 1.804, 0.97, 1.0) == 4
    assert read_blob(3.455, 1.975, 1.804, 1.0, 0.97)[0] == 4
    assert grid_count(1.93, 1.09, 0.96, 1.0) == 2  # a row of two
    assert grid_count(2.12, 0.99, 0.98, 1.0) == 2  # its side shaded off
    assert grid_count(1.55, 1.1, 0.96, 1.0) == 0  # neither one cube nor two
    assert grid_count(2.5, 1.9, 0.97, 1.0) == 0  # nor a block of four or six
