"""A simulated cube tower with a hidden inventory, so simulation behaves like a real tower.

Each cube dropped in falls straight through with probability ``p``; otherwise it stays inside.
Each cube already inside falls out with probability ``q`` per later drop. The simulator knows the
truth (what is inside); the companion only ever sees what comes out, through the beam and the
camera, exactly as at a real table.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field

COLOURS = ("red", "yellow", "blue", "green", "black", "white")


@dataclass
class CubeTower:
    p: float = 0.6
    q: float = 0.35
    rng: random.Random = field(default_factory=random.Random)
    inside: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COLOURS, 0))

    def __post_init__(self) -> None:
        for name, value in (("p", self.p), ("q", self.q)):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"tower {name} must be a probability (0..1), not {value}")

    def drop(self, cubes_in: Mapping[str, int]) -> dict[str, int]:
        """Drop cubes in at the top; returns what falls out at the bottom, by colour."""
        unknown = set(cubes_in) - set(COLOURS)
        if unknown:
            raise ValueError(f"unknown cube colour(s): {', '.join(sorted(unknown))}")
        if any(n < 0 for n in cubes_in.values()):
            raise ValueError("a drop cannot hold a negative number of cubes")
        out = {}
        for colour in COLOURS:
            released = sum(self.rng.random() < self.q for _ in range(self.inside[colour]))
            new = cubes_in.get(colour, 0)
            passed = sum(self.rng.random() < self.p for _ in range(new))
            self.inside[colour] += new - passed - released
            out[colour] = passed + released
        return out

    def empty(self) -> dict[str, int]:
        """Shake the tower empty (a table does this before setup); returns what came out."""
        out, self.inside = self.inside, dict.fromkeys(COLOURS, 0)
        return out
