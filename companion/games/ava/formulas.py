"""The integer formulas of §11 (AVA-95..AVA-102) and collection (AVA-39).

Pure functions of plain numbers, so tests and the AI can use them without a game state.
``Units`` tuples are (infantry, tanks, planes, battleships).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

Units = tuple[int, int, int, int]
NO_UNITS: Units = (0, 0, 0, 0)
POWERS: Units = (1, 3, 5, 7)


def add(a: Units, b: Units) -> Units:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3])


def sub(a: Units, b: Units) -> Units:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3])


def raw_power(units: Units, powers: Units = POWERS) -> int:
    return sum(n * p for n, p in zip(units, powers, strict=True))


def invasion_power(units: Units, seaport: bool, powers: Units = POWERS) -> int:
    """AVA-95: IP = I + 3T + 5P + 7B, battleships only against a seaport; no support."""
    i, t, p, b = units
    return i * powers[0] + t * powers[1] + p * powers[2] + (b * powers[3] if seaport else 0)


SUPPORT_PAIRS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))


def defence_power(
    garrison: Units,
    seaport: bool,
    support_model: str = "pairing",
    powers: Units = POWERS,
    pairs: Sequence[tuple[int, int]] = SUPPORT_PAIRS,
) -> int:
    """AVA-96: base power plus support; battleships count only at a seaport (AVA-13)."""
    g = garrison if seaport else (garrison[0], garrison[1], garrison[2], 0)
    base = raw_power(g, powers)
    if support_model == "full_cross":
        support = sum(g[a] * g[b] for a, b in pairs)
    else:
        support = sum(min(g[a], g[b]) for a, b in pairs)
    return base + support


def treaty_cost(neutral_garrison: int, treaties_counted: int) -> int:
    """AVA-97: TC = garrison × (20 + 10 × earlier treaties)."""
    return neutral_garrison * (20 + 10 * treaties_counted)


def strategic_cost(uses: int, steps: int) -> int:
    """AVA-98: c1 = 1000 × (uses + 1), c2 = 2 × c1."""
    return 1000 * (uses + 1) * steps


def penalty_power(dp: int, penalty_pct: int, rounding: str = "half_up") -> int:
    """AVA-99: PP from DP × rate, half up by default."""
    if rounding == "ceil":
        return (dp * penalty_pct + 99) // 100
    if rounding == "floor":
        return (dp * penalty_pct) // 100
    return (dp * penalty_pct + 50) // 100


def eligible(units: Units, battleships: bool) -> Units:
    return units if battleships else (units[0], units[1], units[2], 0)


def removal_weakest_first(available: Units, pp: int, battleships: bool, powers: Units = POWERS):
    """AVA-100: whole units, weakest first, until removed power ≥ PP. Returns (removed, power)."""
    removed = [0, 0, 0, 0]
    power = 0
    pool = eligible(available, battleships)
    for k in range(4):
        if power >= pp:
            break
        if pool[k] == 0:
            continue
        need = -(-(pp - power) // powers[k])  # ceil
        take = min(pool[k], need)
        removed[k] = take
        power += take * powers[k]
    out: Units = (removed[0], removed[1], removed[2], removed[3])
    return out, power


def removal_min_overshoot(available: Units, pp: int, battleships: bool, powers: Units = POWERS):
    """AVA-100 option ``min_overshoot``: the cheapest-in-power multiset with power ≥ PP.

    Ties: fewer units, then fewer battleships, planes, tanks. Each type beyond what PP needs is
    useless, so counts are bounded by ceil(PP / power), which keeps the search small.
    """
    pool = eligible(available, battleships)
    if raw_power(pool, powers) < pp:
        return pool, raw_power(pool, powers)
    if pp <= 0:
        return NO_UNITS, 0
    ranges = [range(min(pool[k], -(-pp // powers[k])) + 1) for k in range(4)]
    best: tuple[tuple[int, ...], Units] | None = None
    for combo in product(*ranges):
        c: Units = (combo[0], combo[1], combo[2], combo[3])
        pw = raw_power(c, powers)
        if pw < pp:
            continue
        key = (pw, sum(c), c[3], c[2], c[1])
        if best is None or key < best[0]:
            best = (key, c)
    assert best is not None
    return best[1], raw_power(best[1], powers)


def ransom(jail_count: int) -> int:
    """AVA-101: R = 2000 × jail_count (the current jailing included)."""
    return 2000 * jail_count


def army_power(units: Sequence[Units], powers: Units = POWERS) -> int:
    """AVA-102: all units' power, no support, battleships everywhere."""
    return sum(raw_power(u, powers) for u in units)


def scaled(total: int, pct: int, rounding: str = "floor") -> int:
    """AVA-39: floor(Σ × pct / 100), or half up with ``resource_rounding = half_up``."""
    if rounding == "half_up":
        return (total * pct + 50) // 100
    return (total * pct) // 100


def collection(
    productions: Sequence[tuple[int, int, int, int, int]], pct: int, rounding: str = "floor"
) -> tuple[int, int, int, int, int]:
    """AVA-39: per resource type, sum over the owned squares first, then scale and round."""
    sums = [0, 0, 0, 0, 0]
    for prod in productions:
        for k in range(5):
            sums[k] += prod[k]
    g = [scaled(s, pct, rounding) for s in sums]
    return g[0], g[1], g[2], g[3], g[4]


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def min_invasion_set(
    available: Units,
    defence: int,
    allowed: tuple[bool, bool, bool, bool],
    costs: Units,
    powers: Units = POWERS,
) -> Units | None:
    """AVA-140: the cheapest (money value) selection of ≥ 1 unit with IP ≥ D, or None.

    Ties go to fewer units, then fewer battleships, planes, tanks. Exact, without searching every
    count: for the default unit table each stronger type is cheaper per power point, and any
    seven (five) weaker units contain a subset whose power is a multiple of 7 (5), which that
    many battleships (planes) would replace for less. So an optimal selection either has few
    weaker units or uses (nearly) every stronger unit, which leaves a handful of battleship and
    plane counts to try; the tank count then follows from convexity. With another unit table
    the search falls back to trying every count.
    """
    pool = tuple(n if ok else 0 for n, ok in zip(available, allowed, strict=True))
    avail: Units = (pool[0], pool[1], pool[2], pool[3])
    if sum(avail) == 0 or raw_power(avail, powers) < defence:
        return None
    if defence <= 0:  # any one unit will do: the cheapest
        k = min((costs[k], k) for k in range(4) if avail[k] > 0)[1]
        one = [0, 0, 0, 0]
        one[k] = 1
        return one[0], one[1], one[2], one[3]
    if powers != POWERS or costs != (50, 140, 220, 300):
        return _min_invasion_brute(avail, defence, costs, powers)
    best: tuple[tuple[int, ...], Units] | None = None
    for b in _window(avail[3], defence, 7, 30, 4):
        rest_b = defence - 7 * b
        for p in _window(avail[2], rest_b, 5, 12, 2):
            rest = rest_b - 5 * p
            for t, i in _tank_choices(avail[1], avail[0], rest):
                c: Units = (i, t, p, b)
                if sum(c) == 0:
                    continue
                key = (raw_power(c, costs), sum(c), b, p, t)
                if best is None or key < best[0]:
                    best = (key, c)
    return best[1] if best else None


def _window(have: int, need: int, power: int, weak_power: int, near_all: int) -> set[int]:
    """Counts of a stronger type worth trying: near the count that covers ``need`` with at most
    ``weak_power`` left to weaker units, or near using all ``have``."""
    top = min(have, max(0, _ceil_div(need, power)))
    low = max(0, _ceil_div(need - weak_power, power))
    counts = set(range(min(low, top), top + 1))
    counts |= set(range(max(0, have - near_all), top + 1))
    return counts


def _tank_choices(tanks: int, infantry: int, rest: int) -> list[tuple[int, int]]:
    """(t, i) candidates covering ``rest``: cost is convex in t, so its minimum is next to
    rest/3, clamped to what is available."""
    if rest <= 0:
        return [(0, 0)]
    lo = max(0, _ceil_div(rest - infantry, 3))
    if lo > tanks:
        return []
    out = []
    for t in {lo, tanks, rest // 3, _ceil_div(rest, 3)}:
        t = min(max(t, lo), tanks)
        out.append((t, max(0, rest - 3 * t)))
    return out


def _min_invasion_brute(avail: Units, defence: int, costs: Units, powers: Units) -> Units | None:
    """Every count of the three stronger types (house-rules unit tables only)."""
    caps = [min(avail[k], _ceil_div(defence, powers[k])) for k in (1, 2, 3)]
    best: tuple[tuple[int, ...], Units] | None = None
    for t in range(caps[0] + 1):
        for p in range(caps[1] + 1):
            for b in range(caps[2] + 1):
                rest = defence - t * powers[1] - p * powers[2] - b * powers[3]
                i = max(0, _ceil_div(rest, powers[0]))
                if i > avail[0] or i + t + p + b == 0:
                    continue
                c: Units = (i, t, p, b)
                key = (raw_power(c, costs), sum(c), b, p, t)
                if best is None or key < best[0]:
                    best = (key, c)
    return best[1] if best else None
