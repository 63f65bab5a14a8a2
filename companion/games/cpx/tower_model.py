"""A model of the cube tower and its fit from logged drops (``companion tower fit``).

Model: a cube dropped in falls straight out with probability ``p``; a cube already inside falls
out with probability ``q`` in each later drop; cubes act independently and colours do not matter.
So for one colour of one drop, ``out = Binomial(in, p) + Binomial(inside, q)``, where ``inside``
is the ledger's count before the drop (CPX-105). The fit maximises the exact likelihood of that
convolution over every colour of every drop; intervals come from the profile likelihood
(likelihood-ratio 1.92 for 95 %), and goodness of fit is Pearson's statistic per degree of
freedom (near 1 when the model fits).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class TowerModel:
    """Independent cubes: first-pass fall-out ``p``, later fall-out ``q`` per drop."""

    p: float = 0.6
    q: float = 0.3

    def sample_out(
        self, inp: Mapping[str, int], inside: Mapping[str, int], rng: random.Random
    ) -> dict[str, int]:
        """One simulated drop's counts by colour, from ``rng`` only."""
        out: dict[str, int] = {}
        for colour in sorted(set(inp) | set(inside)):
            n = sum(1 for _ in range(inp.get(colour, 0)) if rng.random() < self.p)
            n += sum(1 for _ in range(inside.get(colour, 0)) if rng.random() < self.q)
            if n:
                out[colour] = n
        return out


@dataclass(frozen=True)
class DropRecord:
    """One colour of one confirmed drop: what went in, what was inside, what came out."""

    dropped: int
    inside: int
    out: int
    drop: int = 0
    """Which drop of the log the record belongs to (several colours share one drop)."""


@dataclass(frozen=True)
class FitResult:
    p: float
    q: float
    p_interval: tuple[float, float]
    q_interval: tuple[float, float]
    log_likelihood: float
    chi2_per_dof: float
    records: int
    drops: int

    def summary(self) -> str:
        """The lines ``companion tower fit`` prints."""
        return "\n".join(
            [
                f"drops {self.drops}, colour records {self.records}",
                f"p (falls straight through) = {self.p:.3f}  "
                f"95% [{self.p_interval[0]:.3f}, {self.p_interval[1]:.3f}]",
                f"q (falls out later, per drop) = {self.q:.3f}  "
                f"95% [{self.q_interval[0]:.3f}, {self.q_interval[1]:.3f}]",
                f"goodness of fit: Pearson chi2/dof = {self.chi2_per_dof:.2f} (about 1 if the "
                "model fits)",
            ]
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "p": self.p,
            "q": self.q,
            "p_interval": list(self.p_interval),
            "q_interval": list(self.q_interval),
            "log_likelihood": self.log_likelihood,
            "chi2_per_dof": self.chi2_per_dof,
            "records": self.records,
            "drops": self.drops,
        }


def records_from_log(
    entries: Iterable[tuple[Mapping[str, Any], Mapping[str, Any]]],
) -> list[DropRecord]:
    """Per-colour records from ``(state_before, command)`` pairs of a session's log.

    A drop is counted from its *confirmed* report: for each ``confirm_drop`` the state before it
    holds the drop's input, the ledger before the drop and the report being confirmed.
    """
    out: list[DropRecord] = []
    index = 0
    for state, command in entries:
        if command.get("name") != "confirm_drop":
            continue
        drop = state.get("drop")
        if not drop or drop.get("report") is None:
            continue
        tower = state.get("tower", {})
        for colour in sorted(set(drop["input"]) | set(tower) | set(drop["report"])):
            dropped = int(drop["input"].get(colour, 0))
            inside = int(tower.get(colour, 0))
            if dropped or inside:
                out.append(DropRecord(dropped, inside, int(drop["report"].get(colour, 0)), index))
        index += 1
    return out


def records_from_commands(game: Any, setup: Any, commands: Iterable[Any]) -> list[DropRecord]:
    """Per-colour records from a session's setup and accepted commands, by replaying them.

    ``game`` is the CPX ``Game``; ``commands`` are ``companion.engine.Command`` objects in log
    order. This is what ``companion tower fit SESSION`` needs from the session log.
    """
    state = game.initial_state(setup)
    pairs = []
    for command in commands:
        if command.name == "confirm_drop":
            pairs.append((game.dump_state(state), command.to_json()))
        state, _events = game.apply(state, command)
    return records_from_log(pairs)


def _log_binom_pmf(n: int, k: np.ndarray, p: np.ndarray) -> np.ndarray:
    """log Binomial(k; n, p) for a grid of p (rows) and k values (columns)."""
    k = np.asarray(k)
    lc = (
        math.lgamma(n + 1) - np.vectorize(math.lgamma)(k + 1) - np.vectorize(math.lgamma)(n - k + 1)
    )
    with np.errstate(divide="ignore"):
        return lc + k * np.log(p) + (n - k) * np.log1p(-p)


def _loglik_grid(records: Sequence[DropRecord], ps: np.ndarray, qs: np.ndarray) -> np.ndarray:
    """Log-likelihood on the grid ``ps x qs`` (exact convolution for each record)."""
    total = np.zeros((len(ps), len(qs)))
    groups: dict[tuple[int, int, int], int] = {}
    for r in records:
        key = (r.dropped, r.inside, r.out)
        groups[key] = groups.get(key, 0) + 1
    for (n_in, n_t, out), count in groups.items():
        ks = np.arange(max(0, out - n_t), min(n_in, out) + 1)
        if ks.size == 0:
            return np.full((len(ps), len(qs)), -np.inf)
        a = _log_binom_pmf(n_in, ks, ps[:, None])  # (P, K)
        b = _log_binom_pmf(n_t, out - ks, qs[:, None])  # (Q, K)
        m = a[:, None, :] + b[None, :, :]
        mx = np.max(m, axis=2, keepdims=True)
        with np.errstate(invalid="ignore"):
            lse = (mx + np.log(np.sum(np.exp(m - mx), axis=2, keepdims=True)))[..., 0]
        total += count * np.nan_to_num(lse, nan=-np.inf, neginf=-1e300)
    return total


def fit(records: Sequence[DropRecord]) -> FitResult:
    """Maximum-likelihood ``p`` and ``q`` with 95 % profile intervals and a fit statistic."""
    if not records:
        raise ValueError("no drops to fit: confirm some drops first")
    if not any(r.dropped for r in records):
        raise ValueError("no cube was dropped in these records")
    coarse = np.linspace(0.005, 0.995, 67)
    ll = _loglik_grid(records, coarse, coarse)
    i, j = np.unravel_index(int(np.argmax(ll)), ll.shape)
    fine_p = _window(float(coarse[i]))
    fine_q = _window(float(coarse[j]))
    llf = _loglik_grid(records, fine_p, fine_q)
    fi, fj = np.unravel_index(int(np.argmax(llf)), llf.shape)
    p, q, best = float(fine_p[fi]), float(fine_q[fj]), float(llf[fi, fj])
    cut = best - 1.92
    has_inside = any(r.inside for r in records)
    p_int = _interval(fine_p, llf.max(axis=1), cut, p, coarse, ll.max(axis=1))
    q_int = (
        _interval(fine_q, llf.max(axis=0), cut, q, coarse, ll.max(axis=0))
        if has_inside
        else (0.0, 1.0)
    )
    chi2 = 0.0
    for r in records:
        mean = r.dropped * p + r.inside * q
        var = r.dropped * p * (1 - p) + r.inside * q * (1 - q)
        if var > 1e-12:
            chi2 += (r.out - mean) ** 2 / var
    dof = max(1, len(records) - 2)
    return FitResult(
        p=p,
        q=q,
        p_interval=p_int,
        q_interval=q_int,
        log_likelihood=best,
        chi2_per_dof=chi2 / dof,
        records=len(records),
        drops=len({r.drop for r in records}),
    )


def _window(centre: float, half: float = 0.12, n: int = 61) -> np.ndarray:
    return np.linspace(max(1e-4, centre - half), min(1 - 1e-4, centre + half), n)


def _interval(
    grid: np.ndarray,
    profile: np.ndarray,
    cut: float,
    at: float,
    coarse: np.ndarray,
    coarse_profile: np.ndarray,
) -> tuple[float, float]:
    """The 95 % profile-likelihood interval; the coarse grid is used where the fine one ends."""
    inside = grid[profile >= cut]
    if inside.size == 0:
        return (at, at)
    lo, hi = float(inside.min()), float(inside.max())
    wide = coarse[coarse_profile >= cut]
    if lo <= grid[0] and wide.size:
        lo = min(lo, float(wide.min()))
    if hi >= grid[-1] and wide.size:
        hi = max(hi, float(wide.max()))
    step = float(grid[1] - grid[0])
    return (max(0.0, lo - step / 2), min(1.0, hi + step / 2))
