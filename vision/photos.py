"""Reading photos: an image file, and a calibration folder's photos by their names (the empty
tray, and ``<colour>-<n>`` for n cubes of one colour); every failure names its file."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.profile import COLOURS, VisionError

IMAGE_EXTS = (".jpg", ".jpeg", ".png")
SAMPLE_NAME = re.compile(r"^([a-z]+)-(\d+)$")


@dataclass(frozen=True)
class Sample:
    """One calibration photo: ``n`` cubes, all of ``colour``; ``name`` is for messages."""

    colour: str
    n: int
    image: np.ndarray
    name: str


REDUCED = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
           8: cv2.IMREAD_REDUCED_COLOR_8}
"""How to decode a photo that many times smaller each way."""


def reduced(image: np.ndarray, reduce: int) -> np.ndarray:
    """A decoded photo ``reduce`` times smaller each way, much as :func:`read_image` decodes it
    so (its size within a pixel of it)."""
    if reduce == 1:
        return image
    return cv2.resize(image, None, fx=1 / reduce, fy=1 / reduce, interpolation=cv2.INTER_AREA)


def read_image(path: Path, reduce: int = 1) -> np.ndarray:
    """Decode an image file, ``reduce`` (see :data:`REDUCED`) times smaller each way, or fail
    with one line naming it. A JPEG decodes so straight from its coarse coefficients: a 12 MP
    photo at an eighth in a quarter of the time, without the resize after."""
    try:
        data = np.fromfile(str(path), np.uint8)
    except OSError as exc:
        raise VisionError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    img = cv2.imdecode(data, REDUCED[reduce]) if data.size else None
    if img is None:
        raise VisionError(f"{path}: not a readable image")
    return img


COLOURLESS_LEVELS = 2
"""Most a pixel's three channels differ in a photo taken without colour: a greyscale camera
mode's photos, or grey files, decode to equal channels (within a level of rounding). In a colour
photo they differ by more wherever anything coloured shows: half the shared sample's pixels, and
1.4-100% of every named rendered setup's empty tray (its rim, chute, cast or noise); a plain
grey floor in neutral light, seen with no rim, may show none, nor may black cubes on it."""
COLOURLESS_SHARE = 0.001
"""Share of pixels under which channels differing by more than :data:`COLOURLESS_LEVELS` leave
a photo colourless (a few stuck pixels do not make colour)."""


NO_COLOUR = "the photo has no colour (a camera in a greyscale mode?)"
"""What a count's reason and a calibration error say of a :func:`colourless` photo."""


def colourless(image: np.ndarray) -> bool:
    """Whether a photo holds no colour, so that its cubes cannot be told apart by colour."""
    if image.ndim == 2 or image.shape[2] < 3:
        return True
    h, w = image.shape[:2]
    small = cv2.resize(image, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_NEAREST)
    b, g, r = cv2.split(small)[:3]
    spread = cv2.max(cv2.max(cv2.absdiff(b, g), cv2.absdiff(g, r)), cv2.absdiff(b, r))
    return np.count_nonzero(spread > COLOURLESS_LEVELS) < COLOURLESS_SHARE * spread.size


def calibration_files(folder: str | Path) -> tuple[Path, list[tuple[str, int, Path]]]:
    """Check a calibration folder's names: the empty tray's photo, and each sample's colour,
    count and file."""
    root = Path(folder)
    if not root.is_dir():
        raise VisionError(f"{root}: not a folder")
    empty: Path | None = None
    files: list[tuple[str, int, Path]] = []
    for path in sorted(root.iterdir()):
        if path.suffix.lower() not in IMAGE_EXTS or not path.is_file():
            continue
        stem = path.stem.lower()
        if stem == "empty":
            if empty is not None:
                raise VisionError(
                    f"{path}: a second empty-tray photo (keep one of {empty.name}, {path.name})"
                )
            empty = path
            continue
        m = SAMPLE_NAME.match(stem)
        if not m:
            raise VisionError(f"{path}: name must be empty.jpg or <colour>-<n>.jpg, e.g. red-6.jpg")
        colour, n = m.group(1), int(m.group(2))
        if colour not in COLOURS:
            raise VisionError(f"{path}: unknown colour '{colour}' (known: {', '.join(COLOURS)})")
        if n < 1:
            raise VisionError(f"{path}: a calibration photo must hold at least one cube")
        files.append((colour, n, path))
    if empty is None:
        raise VisionError(f"{root / 'empty.jpg'}: missing (a photo of the empty tray)")
    have = {colour for colour, _, _ in files}
    for colour in COLOURS:
        if colour not in have:
            raise VisionError(f"{root / (colour + '-N.jpg')}: missing (N cubes of {colour} only)")
    return empty, files


def load_calibration_dir(folder: str | Path) -> tuple[np.ndarray, list[Sample]]:
    """Read ``empty.*`` and every ``<colour>-<n>.*`` of a calibration folder, all decoded (for
    callers that change the photos before calibrating; :func:`calibrate` reads them in turn)."""
    empty, files = calibration_files(folder)
    return read_image(empty), [Sample(c, n, read_image(path), str(path)) for c, n, path in files]
