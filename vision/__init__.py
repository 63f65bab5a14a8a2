"""Cube counting for the tower tray: calibrate a setup once, then count cubes by colour.

``calibrate(folder)`` returns a :class:`Profile`; ``Counter(profile).count(frame_bgr)`` returns a
:class:`CountResult` with counts, per-cube detections, a confidence and ``needs_review``.
"""

from vision.blobs import Blob
from vision.calibrate import calibrate
from vision.count import Counter, CountResult
from vision.grading import format_report
from vision.outlines import Detection
from vision.photos import Sample, load_calibration_dir
from vision.profile import COLOURS, ColourModel, Profile, VisionError, load_profile

__all__ = [
    "COLOURS",
    "Blob",
    "ColourModel",
    "CountResult",
    "Counter",
    "Detection",
    "Profile",
    "Sample",
    "VisionError",
    "calibrate",
    "format_report",
    "load_calibration_dir",
    "load_profile",
]
