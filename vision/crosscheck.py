"""A blob's first reading (from its area and shape) checked against what else it shows: its
seam-cut pieces, its separate cores, and how its faces are lit (a tilted cube's faces turn from
the light, flat tops do not)."""

from __future__ import annotations

import numpy as np

from vision.cues import (
    SEAM_DEPTH,
    cut_at_seams,
    edge_piece,
    neck_count,
    seam_count,
    seam_tops,
    tilted_face,
)
from vision.profile import ColourModel
from vision.readings import (
    CLUSTER_AREA,
    LARGER_THAN_ONE,
    ROW_OR_BLOCK,
    TILT_OR_PAIR,
    TILTED_OR_STACKED,
    Reading,
    first_reading,
    posterior,
    second_cue,
)

SHALLOW = 0.6
"""Share of a colour's calibrated seam depth at which a cluster its seams cannot count is cut
again, when calibration set that depth above the least (:data:`~vision.cues.SEAM_DEPTH`): the
count of such shallower seams only confirms the area's, never changes it. One lone cube whose
blob holds something darker (the tray's wall beside it) sets a colour's depth for every pile;
in a fresh rig under a camera tilted 12 degrees yellow's stood at 0.3, and a chain of four
yellow cubes along the wall, its seams 0.2-0.31 deep, was read from its area alone (0.63) and
asked. Fresh rigs and the shared sample (582 drops): 3 right counts fewer ask (61.9% -> 61.2%),
no count changes; rendered drops (seed 70, 630; physics 72, 420; heavy piles 95, 420; the
bench's 249) and the sample's camera changes (144) unchanged."""
ON_ANOTHER = "one tilted cube, or one lying on another (one whole top)"
ON_ANOTHER_LIGHT = 0.85
"""Lightness (over a flat top's) from which a tilted-looking blob's largest face, a little darker
than a flat top, may be the top of a cube lying on another: in 960 rendered drops (12 setups,
piles with tilted and stacked cubes) 22 of 125 such blobs at 0.89 or more held two cubes, and 2
of 481 whose face was darker (a cube on an edge, a corner or leaning). Drops settled by physics
(13 setups, 3 seeds, 2,340 drops), where a cube comes to rest tilted only against another, show
a cube lying flat on another at 0.85-0.89 as well: 16 of 21 such blobs held two or three cubes,
and 3 of 39 darker ones."""
ON_ANOTHER_CONFIDENCE = 0.8
"""How sure such a blob is of one cube."""
PAINTED_DARKER = "one tilted cube, or flat cubes painted darker (its faces lit alike)"
PAINTED_LIGHT = 0.75
"""Lightness (over a flat top's) down to which a tilted-looking blob's largest face may be flat
tops painted darker than the calibration cubes, when its faces do not differ from each other:
the shared sample's lone flat tops range over 0.76-1.17 (5th-95th percentile of 115; the grain
differs from cube to cube). Two flat cubes in one uncut seam piece then pass for one tilted
cube: in 2,160 rendered drops (18 setups, seed 118 harder piles and 119 sample-like ones, paint
varying by 15%), 3 of 120 such blobs read surely as one held two, one of them in a drop that did
not ask (two red cubes flush, partly under others, their piece lit 0.79); of the darker ones
0 of 118. (Calibration tests each colour against paint a fifth darker and lighter, the same
range: :data:`vision.calibrate.PAINT_SPREAD`.)"""
PAINTED_CONFIDENCE = 0.85
"""How sure such a blob is of one cube: it asks, as a cube lying on another does."""
EDGE_IN_ROW = "a row's outline, but one piece is part of a tilted cube (on its edge)"
EDGE_IN_ROW_CONFIDENCE = 0.8
"""Most a blob read as a flush row or block is trusted, read by its area instead, when one of its
seam-cut pieces is a cube on its edge, or a face turned far from the light
(:func:`~vision.cues.edge_piece`)."""
NECK_CONFIDENCE = 0.985
"""How sure a pile's reading is when its area and its separate cores give the same count."""
UNCONFIRMED_PAIR = 0.93
"""How sure a pair read from its area alone can be, its seams and cores saying nothing: such a
pair is often odd (a face turned, a third cube's sliver lost in it). In 1,440 rendered drops (12
setups, both pile mixes), 2 of 50 such pairs read at 0.9 or more held a third cube mostly hidden,
one of them not asking; among pairs whose seams or cores agreed, 7 of 749 (sample-like piles)."""


def checked_reading(
    first: tuple[int, float, str],
    ratio: float,
    sub: np.ndarray,
    grey: np.ndarray | None,
    side: float,
    top: float,
    face_grey: float,
    model: ColourModel,
) -> Reading:
    """A blob's reading: its first one (``n``, confidence, why) checked by its faces, seams and
    cores. ``sub`` is the blob's mask, ``grey`` its lightness over the same box (None: not
    known), ``ratio`` its area in cube areas, ``side`` one cube's side there (pixels), ``top`` a
    lone flat top's seam-cut core there, ``face_grey`` a flat top's grey level under this light,
    ``model`` the colour's calibration."""
    n, conf, why = first
    tilted_read = why in (TILTED_OR_STACKED, LARGER_THAN_ONE)
    corner_read = why == TILT_OR_PAIR  # two, or one on a corner (its outline a hexagon)
    faces_decide = (n == 1 and tilted_read) or corner_read  # one tilted cube, or more?
    pieces = None
    if (grey is not None and model.seam_depth > 0  # else calibration learned no seams
            and (faces_decide or (conf < 0.99 and ratio >= 1.0))):
        pieces = cut_at_seams(sub, grey, side, model.seam_depth)
    faces = (tilted_face(pieces, top, face_grey)
             if pieces is not None and faces_decide else None)
    if corner_read:
        # Two flat tops are lit as flat tops; a cube on a corner turns its largest face well
        # away from the light (darker than a cube lying on another shows its top). In 720
        # rendered drops, 1 of 10 such blobs was one cube on a corner (its face at 0.81);
        # the pairs' largest faces were lit flat, or at 0.93. (Where paint varies, pairs
        # painted darker show such faces too: seeds 118 and 119 with paint varying by 15%,
        # 6 of 6 such blobs lit alike at 0.75-0.85 held two. They ask: PAINTED_LIGHT.)
        faces = faces if faces is not None and faces.light < ON_ANOTHER_LIGHT else None
        n = 1 if faces is not None else n
    tilted = faces is not None
    # A face only a little darker than a flat top is also what the top of a cube lying on
    # another shows, and what flat tops painted darker show; neither the seams nor the cores
    # can tell (they see whole tops).
    on_another = faces is not None and faces.light >= ON_ANOTHER_LIGHT
    painted = (faces is not None and not on_another and not faces.uneven
               and faces.light >= PAINTED_LIGHT)
    if on_another:
        conf, why = ON_ANOTHER_CONFIDENCE, ON_ANOTHER
    elif painted:
        conf, why = PAINTED_CONFIDENCE, PAINTED_DARKER
    elif tilted:
        conf, why = 0.97, "one tilted cube (its faces are shaded unlike a flat top)"
    whole_tops = on_another or painted  # one reading the seams and cores cannot check
    reading = first_reading(n, conf, why, ratio)
    tops = 0  # tops the seams show when they cannot count (none for a tilted cube's faces)
    if pieces is not None and conf < 0.99 and ratio >= 1.0:
        seam = seam_count(pieces, top, face_grey, ratio)
        if seam is None and not tilted:
            tops = seam_tops(pieces, top, face_grey)
            if why.startswith("cluster of") and model.seam_depth > SEAM_DEPTH:
                shallow = cut_at_seams(sub, grey, side,
                                       max(SEAM_DEPTH, SHALLOW * model.seam_depth))
                again = seam_count(shallow, top, face_grey, ratio) if shallow is not None else None
                if again is not None and again.n == n and again.firm:
                    reading = second_cue(ratio, reading, n, again.confidence,
                                         "shallower seams agree",
                                         f"shallower seams suggest {again.n}")
        # One whole top in a blob too large or misshapen for one cube is also what a cube
        # lying on another shows (the one below peeks out, or is lost in the seams): the
        # seams confirm a single cube only when its faces show it clearly tilted.
        if seam is not None and ((tilted and not whole_tops) or not n == seam.n == 1):
            # Flat tops painted darker pass for a tilted cube's faces: their seams count.
            keep = (tilted and not painted) or not seam.firm
            reading = second_cue(ratio, reading, seam.n, seam.confidence, "seams agree",
                                 f"the seams suggest {seam.n}", keep=keep)
    if (reading.why == why and why.startswith(ROW_OR_BLOCK) and pieces is not None
            and edge_piece(pieces, top, face_grey)):
        # A cube on its edge shows two faces side by side, as two tops in a row do: the
        # outline then counts it twice, and the area is read instead (and asks).
        best, post = posterior(ratio)
        reading = first_reading(best, min(post, EDGE_IN_ROW_CONFIDENCE),
                                f"cluster of {best}; {EDGE_IN_ROW}", ratio)
    if reading.confidence < NECK_CONFIDENCE and ratio >= 1.3:
        necks = neck_count(sub, side)
        if necks is not None and not (whole_tops and necks == 1):
            # Cores count a cube on an edge or a corner once, where its area counts it
            # nearly twice: where the two disagree, the cores were right 49 times of 55 in
            # rendered drops (harder piles seeds 236 and 238, sample-like 237, physics 239;
            # paint varying), and 8 of 8 where the area made their count unlikely (2 cubes
            # over 2.87-3.03 cube areas, 3 over 4.32, 4 over 5.29, 8 over 10.8).
            reading = second_cue(ratio, reading, necks, NECK_CONFIDENCE,
                                 "cores apart agree", f"{necks} cores stand apart",
                                 keep=tilted, beyond_area=True)
    if tops > reading.n:  # area and cores alike can come out a cube short in a tight pile
        # Not so a blob read as one cube or two (under a cluster's area) in a colour told
        # apart reliably: there a tilted cube's side face shows as a second top (heavy piles,
        # seed 95: 3 of 3 such blobs held one; seed 70, tilt12 #2). It only asks.
        reading = second_cue(ratio, reading, tops, 0.8, "", f"the seams show {tops} tops",
                             keep=ratio < CLUSTER_AREA and model.reliable)
    if reading.n == 2 and reading.why == why and why.startswith("cluster of"):
        reading = reading._replace(confidence=min(reading.confidence, UNCONFIRMED_PAIR))
    return reading
