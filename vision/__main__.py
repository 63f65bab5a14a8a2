"""Command line: ``python -m vision calibrate ...`` and ``python -m vision count ...``.

    python -m vision calibrate CALIB_DIR --out PROFILE.json
    python -m vision count --profile PROFILE.json [--json] [--annotate OUT_DIR] IMAGE...

``count --json`` prints one JSON object per line per image (``image``, ``counts``,
``confidence``, ``needs_review``, ``ms``, and more keys). An image that cannot be read gives a
line on stderr and, with ``--json``, ``{"image": ..., "error": ...}`` on stdout; the other images
are still counted and the exit status is 1. Problems with the profile or folder exit with 2.
A reader that stops reading (``| head``) ends the run quietly, with status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2

from vision.annotate import annotate
from vision.calibrate import calibrate
from vision.count import Counter
from vision.grading import format_report
from vision.photos import read_image
from vision.profile import COLOURS, VisionError, load_profile


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m vision", description="Calibrate a tray, count cubes by colour."
    )
    sub = ap.add_subparsers(dest="command", required=True)
    cal = sub.add_parser("calibrate", help="build a profile from a calibration folder")
    cal.add_argument("calib_dir", type=Path)
    cal.add_argument("--out", required=True, type=Path, help="profile JSON to write")
    cnt = sub.add_parser("count", help="count cubes in photos")
    cnt.add_argument("--profile", required=True, type=Path)
    cnt.add_argument("--json", action="store_true", help="one JSON object per line per image")
    cnt.add_argument("--annotate", type=Path, metavar="OUT_DIR", help="write annotated copies here")
    cnt.add_argument("images", nargs="+")
    return ap


def _calibrate(args: argparse.Namespace) -> int:
    profile = calibrate(args.calib_dir)
    profile.save(args.out)
    print(format_report(profile))
    print(f"profile written to {args.out}")
    return 0


def _annotated_path(out_dir: Path, image: str, used: set[Path]) -> Path:
    stem = Path(image).stem
    path = out_dir / f"{stem}.annotated.jpg"
    k = 2
    while path in used:
        path = out_dir / f"{stem}-{k}.annotated.jpg"
        k += 1
    used.add(path)
    return path


def _count(args: argparse.Namespace) -> int:
    profile = load_profile(args.profile)
    counter = Counter(profile)
    if args.annotate is not None:
        try:
            args.annotate.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise VisionError(
                f"{args.annotate}: cannot create folder: {exc.strerror or exc}"
            ) from exc
    status = 0
    used: set[Path] = set()
    if not args.json:
        print(
            f"{'image':<28} "
            + " ".join(f"{c:>6}" for c in COLOURS)
            + f" {'total':>6} {'conf':>5}  review   ms"
        )
    for image in args.images:
        try:
            frame = read_image(Path(image))
            result = counter.count(frame)
        except VisionError as exc:
            status = 1
            msg = str(exc) if str(exc).startswith(image) else f"{image}: {exc}"
            print(f"error: {msg}", file=sys.stderr)
            if args.json:
                print(json.dumps({"image": image, "error": msg}), flush=True)
            continue
        if args.annotate is not None:
            path = _annotated_path(args.annotate, image, used)
            if not cv2.imwrite(str(path), annotate(frame, result)):
                status = 1
                print(f"error: {path}: cannot write annotated image", file=sys.stderr)
        if args.json:
            line = {"image": image, **result.to_json()}
            print(json.dumps(line), flush=True)
        else:
            name = image if len(image) <= 28 else "…" + image[-27:]
            review = "YES" if result.needs_review else "no"
            print(
                f"{name:<28} "
                + " ".join(f"{result.counts[c]:>6}" for c in COLOURS)
                + f" {result.total:>6} {result.confidence:>5.2f}  {review:<6} {result.ms:5.1f}"
            )
            for reason in result.reasons:
                print(f"{'':<28} ! {reason}")
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        return _calibrate(args) if args.command == "calibrate" else _count(args)
    except VisionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader stopped reading (``| head``): stop quietly, and let nothing flush into the
        # closed pipe at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
