"""The arena's output: JSON-ready summaries of matches and tournaments, their plain-text tables
and plots. ``format_table`` and ``plot`` take a summary as ``summary()`` returns it or as loaded
back from JSON."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from hearts_env.arena.statistics import CONFIDENCE, FIELD_METRICS, METRICS, DealSums
from hearts_env.engine.rules import HeartsRules

# ---------------------------------------------------------------------------------------------
# Summaries


def settings(rules: HeartsRules, episode: str, deals: int, seed: int) -> dict[str, Any]:
    """The settings of a match or tournament, JSON-ready."""
    knobs = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules) if f.init}
    knobs["pass_cycle"] = list(knobs["pass_cycle"])
    return {"rules": knobs, "episode": episode, "deals": deals, "seed": seed, "confidence": CONFIDENCE}


def agent_summaries(sums: DealSums, episode: str) -> dict[str, dict[str, Any]]:
    """Every name's counts and estimates, and its differences to the field."""
    out = {}
    for k, name in enumerate(sums.names):
        entry: dict[str, Any] = {
            "seat_games": int(sums.seat_games[:, k].sum()),
            "seat_hands": int(sums.hands[:, k].sum()),
            "qs_taken": int(sums.qs[:, k].sum()),
            "moons_made": int(sums.moons_made[:, k].sum()),
            "moons_suffered": int(sums.moons_suffered[:, k].sum()),
        }
        for metric in METRICS:
            if metric != "game_score" or episode == "game":
                entry[metric] = sums.estimate(name, metric).to_dict()
        if len(sums.names) > 1:
            entry["vs_field"] = {
                m: sums.difference(name, None, m).to_dict()
                for m in FIELD_METRICS
                if m != "game_score" or episode == "game"
            }
        out[name] = entry
    return out


def direction_summaries(sums: DealSums, directions: np.ndarray, episode: str) -> dict[str, dict[str, Any]]:
    """``{direction: {"deals": n, "agents": agent summaries over its deals}}``, directions in the
    order the deals first pass them."""
    out = {}
    for direction in dict.fromkeys(directions.tolist()):
        deals = directions == direction
        out[direction] = {"deals": int(deals.sum()), "agents": agent_summaries(sums.take(deals), episode)}
    return out


# ---------------------------------------------------------------------------------------------
# Tables


def format_table(summary: Mapping[str, Any]) -> str:
    """The plain-text table of a match or tournament summary (``summary()`` or its JSON loaded back),
    followed, for single hands, by points per hand by pass direction."""
    agents = summary["agents"]
    whole = summary["episode"] == "game"
    rated = summary.get("kind") == "round_robin" and summary.get("rating_model") is not None
    seats = "tables" if summary.get("kind") == "round_robin" else "seats"
    columns = [
        ("agent", lambda n, a: n),
        (seats, lambda n, a: str(a[seats])),
        ("seat-hands", lambda n, a: f"{a['seat_hands']:,}"),
        ("points/hand", lambda n, a: _pm(a["points_per_hand"], 2)),
    ]
    if whole:
        columns.append(("game score", lambda n, a: _pm(a["game_score"], 1)))
    columns.append(("win %", lambda n, a: _pm(a["win_rate"], 1, 100)))
    columns.append(("QS %hands", lambda n, a: _pm(a["qs_per_hand"], 1, 100)))
    columns.append(("moons made %", lambda n, a: _pm(a["moons_made_per_hand"], 2, 100)))
    columns.append(("suffered %", lambda n, a: _pm(a["moons_suffered_per_hand"], 2, 100)))
    if all("payoff_per_hand" in a for a in agents.values()):  # summaries written before the metric lack it
        columns.append(("payoff/hand", lambda n, a: _pm(a["payoff_per_hand"], 2)))
    if len(agents) > 1:
        columns.append(("pts/hand vs field", lambda n, a: _pm(a["vs_field"]["points_per_hand"], 2, mark=True)))
        columns.append(("win % vs field", lambda n, a: _pm(a["vs_field"]["win_rate"], 1, 100, mark=True)))
    if rated:
        columns.append(("rating mu ± sigma", lambda n, a: f"{a['rating']['mu']:.2f} ± {a['rating']['sigma']:.2f}"))
    order = list(agents)
    if rated:
        order.sort(key=lambda n: -agents[n]["rating"]["ordinal"])
    lines = _align([[c[0] for c in columns]] + [[fn(n, agents[n]) for _, fn in columns] for n in order])

    mode = "whole games" if whole else "single hands"
    target = summary["rules"]["target_score"]
    speed = summary.get("hands_per_second")
    if summary.get("kind") == "round_robin":
        head = f"round robin: {len(summary['tables'])} tables x {summary['deals']:,} deals"
    else:
        head = f"match: {summary['deals']:,} deals x {summary['rotations']} seatings"
    head += f" = {summary['games_played']:,} {mode}" + (f" to {target}" if whole else "")
    head += f", {summary['hands_played']:,} hands, seed {summary['seed']}"
    if speed:
        head += f" ({summary['seconds']:.1f} s, {speed:,.0f} hands/s)"
    foot = (
        f"± : {round(summary['confidence'] * 100)}% t-interval over the {summary['deals']:,} deals "
        "(per-deal values pooled over each agent's seats); * : the interval excludes 0"
    )
    if rated:
        foot += f"\nratings: OpenSkill {summary['rating_model']}, one update per game (lowest score ranks first)"
    parts = [head, *lines, foot]
    if len(summary.get("by_direction", ())) > 1:
        parts += ["", *_direction_table(summary, order)]
    return "\n".join(parts)


def _direction_table(summary: Mapping[str, Any], order: list[str]) -> list[str]:
    """Points per hand (and the difference to the field) of each agent by the deals' pass direction."""
    by, agents = summary["by_direction"], summary["agents"]
    directions = list(by)
    rows = [["pass direction", *directions, "all"]]
    for name in order:
        rows.append([name, *(_pm(by[d]["agents"][name]["points_per_hand"], 2) for d in directions)])
        rows[-1].append(_pm(agents[name]["points_per_hand"], 2))
        if len(agents) > 1:
            field = [by[d]["agents"][name]["vs_field"]["points_per_hand"] for d in directions]
            rows.append(["  vs field", *(_pm(e, 2, mark=True) for e in field)])
            rows[-1].append(_pm(agents[name]["vs_field"]["points_per_hand"], 2, mark=True))
    rows.append(["deals", *(f"{by[d]['deals']:,}" for d in directions), f"{summary['deals']:,}"])
    cycle = ", ".join(summary["pass_directions"])
    head = f"points per hand by pass direction (deal d passes entry d mod {len(summary['pass_directions'])} of {cycle})"
    return [head, *_align(rows)]


def _align(rows: list[list[str]]) -> list[str]:
    """Rows of cells as lines: the first column left-aligned, the others right; a rule under the header."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths, strict=True)))
        for r in rows
    ]
    lines.insert(1, "-" * len(lines[0]))
    return lines


def _pm(est: Mapping[str, Any], digits: int, scale: float = 1.0, mark: bool = False) -> str:
    """'mean ± half-width' of an estimate dict, scaled; '*' when marked and the interval excludes 0."""
    if est["mean"] is None:
        return "-"
    mean = est["mean"] * scale
    if est["low"] is None:
        return f"{mean:.{digits}f}"
    half = (est["high"] - est["low"]) / 2 * scale
    if not mark:
        return f"{mean:.{digits}f} ± {half:.{digits}f}"
    star = "*" if est["low"] > 0 or est["high"] < 0 else " "
    return f"{mean:+.{digits}f} ± {half:.{digits}f} {star}"


# ---------------------------------------------------------------------------------------------
# Plots


def plot(summary: Any, path: str, title: str | None = None) -> None:
    """Write a PNG comparing the agents: points per hand and win rate with their 95% intervals,
    for single hands with more than one agent their difference to the field by pass direction, and
    ratings for a rated tournament. ``summary``: a summary dict, or a match or tournament result.
    Needs matplotlib (imported here)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plotting needs matplotlib: pip install matplotlib") from None
    if not isinstance(summary, Mapping):
        summary = summary.summary()
    agents = summary["agents"]
    names = list(agents)
    panels = [("points_per_hand", "(lower is better)", 1.0), ("win_rate", "%", 100.0)]
    by_direction = len(names) > 1 and len(summary.get("by_direction", ())) > 1
    rated = all("rating" in agents[n] for n in names)
    count = len(panels) + by_direction + rated
    height = max(1.2 + 0.45 * len(names), 2.8 if by_direction else 0)  # room for the directions' legend
    fig = Figure(figsize=(4.5 * count + 0.9 * by_direction, height), layout="constrained")
    axes = iter(fig.subplots(1, count, sharey=True, squeeze=False)[0])
    y = np.arange(len(names))[::-1]
    for metric, unit, scale in panels:
        ax = next(axes)
        _intervals(ax, y, [agents[n][metric] for n in names], scale, fmt="o")
        ax.set_xlabel(f"{METRICS[metric][0]} {unit}")
        if metric == "points_per_hand":
            ax.set_yticks(y, names)
    if by_direction:
        ax = next(axes)
        groups = {d: entry["agents"] for d, entry in summary["by_direction"].items()} | {"all": agents}
        offsets = np.linspace(0.25, -0.25, len(groups))
        for (direction, group), offset in zip(groups.items(), offsets, strict=True):
            estimates = [group[n]["vs_field"]["points_per_hand"] for n in names]
            style = {"fmt": "o"} if direction != "all" else {"fmt": "D", "color": "black"}
            _intervals(ax, y + offset, estimates, 1.0, label=direction, **style)
        ax.axvline(0, color="grey", linewidth=0.8)
        ax.legend(fontsize="small", title="pass", title_fontsize="small", loc="center left", bbox_to_anchor=(1, 0.5))
        ax.set_xlabel("points per hand minus the field, by pass direction")
    if rated:
        ax = next(axes)
        mu = np.array([agents[n]["rating"]["mu"] for n in names])
        sigma = np.array([agents[n]["rating"]["sigma"] for n in names])
        ax.errorbar(mu, y, xerr=2 * sigma, fmt="s", capsize=4, color="tab:green")
        ax.set_xlabel("OpenSkill rating (mu ± 2 sigma)")
        ax.grid(axis="x", alpha=0.3)
    mode = "whole games" if summary["episode"] == "game" else "single hands"
    fig.suptitle(title or f"{summary['deals']:,} duplicate deals, {mode}, 95% intervals over deals")
    fig.savefig(path, dpi=120)


def _intervals(ax: Any, y: np.ndarray, estimates: list[Mapping[str, Any]], scale: float, **style: Any) -> None:
    """Means with their intervals as horizontal error bars at heights ``y``."""
    mean = np.array([_nan(e["mean"]) for e in estimates]) * scale
    low = np.array([_nan(e["low"]) for e in estimates]) * scale
    high = np.array([_nan(e["high"]) for e in estimates]) * scale
    ax.errorbar(mean, y, xerr=np.nan_to_num(np.stack([mean - low, high - mean])), capsize=4, **style)
    ax.grid(axis="x", alpha=0.3)


def _nan(x: float | None) -> float:
    return math.nan if x is None else x
