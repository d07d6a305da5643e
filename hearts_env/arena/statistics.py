"""The arena's statistics: per-deal totals of each agent, means over deals with 95% Student-t
intervals, and differences paired by deal (see ``hearts_env.arena`` for what each metric means)."""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

CONFIDENCE = 0.95

METRICS: dict[str, tuple[str, str, str]] = {
    # name: (label, numerator total, denominator total) of the per-deal ratio
    "points_per_hand": ("points per hand", "points", "hands"),
    "game_score": ("final game score", "points", "seat_games"),
    "win_rate": ("win rate", "wins", "seat_games"),
    "qs_per_hand": ("QS taken per hand", "qs", "hands"),
    "moons_made_per_hand": ("moons shot per hand", "moons_made", "hands"),
    "moons_suffered_per_hand": ("moons suffered per hand", "moons_suffered", "hands"),
    "payoff_per_hand": ("zero-sum payoff per hand", "payoff", "hands"),
}
"""The metrics of a match, each a per-deal ratio of two of ``DealSums``'s totals."""

FIELD_METRICS = ("points_per_hand", "game_score", "win_rate")
"""The metrics whose difference to the field goes in summaries."""


# ---------------------------------------------------------------------------------------------
# Confidence intervals


_T975 = {  # two-sided 95% Student t quantiles by degrees of freedom
    **dict(
        enumerate(
            (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281)
            + (2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860)
            + (2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423),
            start=1,
        )
    ),
    40: 2.0211,
    60: 2.0003,
    120: 1.9799,
}
_Z975 = 1.959964


def t_quantile(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (so ``±`` it holds 95%);
    tabulated to df 30, then linear in 1/df between 30, 40, 60, 120 and the normal 1.96 (error < 1e-3)."""
    if df < 1:
        return math.nan
    if df in _T975:
        return _T975[df]
    anchors = [(30, _T975[30]), (40, _T975[40]), (60, _T975[60]), (120, _T975[120]), (math.inf, _Z975)]
    for (d0, t0), (d1, t1) in itertools.pairwise(anchors):
        if d0 < df < d1:
            w = (1 / d0 - 1 / df) / (1 / d0 - 1 / d1)
            return t0 + w * (t1 - t0)
    raise AssertionError(df)  # unreachable: anchors cover df > 30


@dataclass(frozen=True)
class Estimate:
    """A mean over deals with its 95% confidence interval (Student t over the per-deal values)."""

    mean: float
    low: float  # lower end of the interval (nan with fewer than 2 deals)
    high: float  # upper end
    sd: float  # standard deviation of the per-deal values (ddof 1)
    n: int  # deals behind it

    @classmethod
    def of(cls, values: np.ndarray) -> Estimate:
        """The estimate from per-deal values (nan values, deals without data, are left out)."""
        values = np.asarray(values, dtype=np.float64)
        values = values[~np.isnan(values)]
        n = len(values)
        if n == 0:
            return cls(math.nan, math.nan, math.nan, math.nan, 0)
        mean = float(values.mean())
        sd = float(values.std(ddof=1)) if n > 1 else math.nan
        half = t_quantile(n - 1) * sd / math.sqrt(n) if n > 1 else math.nan
        return cls(mean, mean - half, mean + half, sd, n)

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    @property
    def excludes_zero(self) -> bool:
        """The interval lies wholly above or below zero (False when there is no interval)."""
        return bool(self.low > 0 or self.high < 0)

    def to_dict(self) -> dict[str, float | int | None]:
        """JSON-ready: nan becomes None."""
        return {f: _json_float(getattr(self, f)) for f in ("mean", "low", "high", "sd")} | {"n": self.n}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Estimate:
        mean, low, high, sd = (math.nan if d[f] is None else float(d[f]) for f in ("mean", "low", "high", "sd"))
        return cls(mean, low, high, sd, int(d["n"]))


def _json_float(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


# ---------------------------------------------------------------------------------------------
# Per-deal totals of each agent name


@dataclass(frozen=True)
class DealSums:
    """Totals per deal and agent name over every seat the name held in the deal's games, all (N, K)
    float arrays. Totals of matches played on the same deals add up (a tournament's tables)."""

    names: tuple[str, ...]
    seat_games: np.ndarray  # games played (one per seat held)
    hands: np.ndarray  # hands played, summed over those seats
    points: np.ndarray  # hand points taken (moon and JD applied) = final game totals
    wins: np.ndarray  # win shares (1/k each for k tied winners)
    qs: np.ndarray  # hands in which the seat took the QS
    moons_made: np.ndarray  # hands in which the seat shot the moon
    moons_suffered: np.ndarray  # hands in which another seat shot the moon
    payoff: np.ndarray  # the zero-sum payoff: the mean of the other seats' points minus the seat's own

    @property
    def totals(self) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(self) if f.name != "names")

    def ratio(self, metric: str, name: str | None = None, exclude: str | None = None) -> np.ndarray:
        """(N,) per-deal value of ``metric`` for ``name``, or for every name but ``exclude`` pooled;
        nan on deals where the denominator is 0."""
        _, numerator, denominator = _metric(metric)
        if name is not None:
            k = self._index(name)
            num, den = getattr(self, numerator)[:, k], getattr(self, denominator)[:, k]
        else:
            keep = np.array([n != exclude for n in self.names])
            num, den = getattr(self, numerator)[:, keep].sum(1), getattr(self, denominator)[:, keep].sum(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)

    def estimate(self, name: str, metric: str = "points_per_hand") -> Estimate:
        return Estimate.of(self.ratio(metric, name))

    def difference(self, name: str, other: str | None = None, metric: str = "points_per_hand") -> Estimate:
        """``name``'s metric minus ``other``'s (or the field's: every other name pooled), per deal."""
        if other == name:
            raise ValueError(f"difference of {name!r} with itself")
        mine = self.ratio(metric, name)
        theirs = self.ratio(metric, other) if other is not None else self.ratio(metric, exclude=name)
        return Estimate.of(mine - theirs)

    def take(self, deals: np.ndarray) -> DealSums:
        """The totals of the deals ``deals`` (indices or a boolean mask) alone."""
        return dataclasses.replace(self, **{total: getattr(self, total)[deals] for total in self.totals})

    @classmethod
    def combine(cls, names: Sequence[str], parts: Sequence[DealSums]) -> DealSums:
        """The totals of ``parts`` (matches on the same deals) added up per name, over ``names``."""
        fields = {}
        for total in parts[0].totals:
            out = np.zeros((getattr(parts[0], total).shape[0], len(names)))
            for sums in parts:
                out[:, [names.index(n) for n in sums.names]] += getattr(sums, total)
            fields[total] = out
        return cls(tuple(names), **fields)

    def _index(self, name: str) -> int:
        if name not in self.names:
            raise ValueError(f"no agent named {name!r}; agents: {', '.join(self.names)}")
        return self.names.index(name)


def _metric(metric: str) -> tuple[str, str, str]:
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; metrics: {', '.join(METRICS)}")
    return METRICS[metric]
