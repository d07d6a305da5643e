"""The benchmark's report: a JSON document with a schema version, a manifest and a checksum; its
table and its plots.

A report (``SCHEMA`` 1) holds

* ``suite`` (``v1``, or ``v1+modified`` when a pool member differed from the record), ``version``,
  ``split``, ``setting`` (``full`` or ``quick``), ``frozen`` and ``modified`` (what differed);
* ``candidate``: its name, spec, kind and weights hash;
* ``manifest``: deal-set and pool hashes, the package version and git commit, Python, numpy,
  numba and torch versions, the CPU, the command, when it started and its wall time, and how
  many blocks it played and how many it found kept in its folder (a resumed run);
* ``tracks``: per track its ``status`` (``played``, or ``skipped`` with the reason per table), the
  candidate's decisions fingerprint on its tables, its ``mean`` over its matches and, per match,
  the seats, deals and their hash (``deals_sha256``),
  the arena's summary of the match (``hearts_env.arena``: every metric of every seat name, with
  95% intervals over deals, by pass direction for single hands) and ``per_deal``, the candidate's
  and the field's totals of every deal (integers, zlib-compressed and base64-encoded) from
  which ``compare`` pairs two reports deal by deal;
* ``checksum``: the SHA-256 of the canonical JSON of everything else, so an edited or damaged
  report is refused (``load``).

The headline of a match is the candidate's points per hand minus the field's, ``adp`` (lower is
better; the ADP of Hearts); a track's ``mean`` averages its matches' figures with the interval of a
mean of independent estimates (the half-widths combined in quadrature over the match count; the
matches play different games, even where their deals overlap). The zero-sum ``payoff`` (the
others' mean points minus one's own) of a candidate at one seat is exactly minus its ``adp``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from hearts_env.arena import CONFIDENCE, MatchResult
from hearts_env.bench.schema import BenchError, read_json, validate
from hearts_env.bench.suite import CANDIDATE

SCHEMA = 1
"""The report format's version: a reader refuses any other."""
WIN_SCALE = 27720
"""Per-deal win shares are stored times this (the least common multiple of 1..12: every share
1/k of a tie of k <= 12 players, summed over the rotations, is then an integer)."""
TIMING_KEYS = ("seconds", "cpu_seconds", "hands_per_second", "wall_seconds", "started", "command")
"""Entries that differ between runs of the same figures (``figures`` leaves them out)."""
HEADLINES = {
    "adp": ("points per hand minus the field", ("vs_field", "points_per_hand")),
    "points_per_hand": ("points per hand", ("points_per_hand",)),
    "win_rate": ("win rate (ties shared)", ("win_rate",)),
    "payoff": ("zero-sum payoff per hand", ("payoff_per_hand",)),
    "qs_rate": ("QS taken per hand", ("qs_per_hand",)),
    "moon_rate": ("moons shot per hand", ("moons_made_per_hand",)),
    "moons_suffered": ("moons suffered per hand", ("moons_suffered_per_hand",)),
}
"""The candidate's figures of a match: name -> (label, path in its arena summary entry)."""


# ---------------------------------------------------------------------------------------------
# Building


def match_entry(spec: Any, result: MatchResult, deals_sha256: str) -> dict[str, Any]:
    """The report's entry of a match (``spec``: its ``suite.MatchSpec``) from its arena result."""
    sums = result.sums()
    k = sums.names.index(CANDIDATE)
    field = [i for i in range(len(sums.names)) if i != k]
    per_deal = {
        "candidate_points": sums.points[:, k],
        "candidate_hands": sums.hands[:, k],
        "candidate_wins": sums.wins[:, k] * WIN_SCALE,
        "field_points": sums.points[:, field].sum(axis=1),
        "field_hands": sums.hands[:, field].sum(axis=1),
    }
    return {
        "id": spec.id,
        "table": spec.table,
        "seats": list(spec.seats),
        "deals": result.deals,
        "deals_sha256": deals_sha256,
        "block": spec.block,
        "seconds": result.seconds,
        "summary": result.summary(),
        "per_deal": {name: pack(values) for name, values in per_deal.items()},
    }


def headline(match: Mapping[str, Any], name: str, direction: str | None = None) -> dict[str, Any]:
    """The candidate's figure ``name`` (``HEADLINES``) in a match entry, as an estimate dict; with
    ``direction``, over the deals passing that way."""
    summary = match["summary"]
    entry = summary["agents"] if direction is None else summary["by_direction"][direction]["agents"]
    value = entry[CANDIDATE]
    for key in HEADLINES[name][1]:
        value = value[key]
    return value


def combined(estimates: list[Mapping[str, Any]]) -> dict[str, Any]:
    """The mean of independent estimates with its 95% interval (half-widths in quadrature / K)."""
    means = [e["mean"] for e in estimates]
    if not means or any(m is None for m in means):
        return {"mean": None, "low": None, "high": None, "n": sum(e["n"] for e in estimates)}
    halves = [0.0 if e["low"] is None else (e["high"] - e["low"]) / 2 for e in estimates]
    mean, half = float(np.mean(means)), math.sqrt(sum(h * h for h in halves)) / len(halves)
    return {"mean": mean, "low": mean - half, "high": mean + half, "n": sum(e["n"] for e in estimates)}


def track_mean(matches: list[Mapping[str, Any]], episode: str) -> dict[str, Any]:
    """A track's figures averaged over its matches (win rate only for whole games)."""
    names = ["adp", "payoff", "points_per_hand"] + (["win_rate"] if episode == "game" else [])
    return {name: combined([headline(m, name) for m in matches]) for name in names}


def finish(report: dict[str, Any]) -> dict[str, Any]:
    """The report with its ``checksum`` set (over its canonical JSON)."""
    body = {k: v for k, v in report.items() if k != "checksum"}
    return body | {"checksum": checksum(body)}


def dumps(report: Mapping[str, Any]) -> str:
    """The report as compact JSON text (what ``load`` reads back)."""
    return json.dumps(report, separators=(",", ":")) + "\n"


def checksum(body: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def figures(report: Mapping[str, Any]) -> Any:
    """The report without what changes from one run of the same figures to the next (timings,
    dates, the command, the manifest, the checksum): equal for equal results."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in TIMING_KEYS}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip({k: v for k, v in report.items() if k not in ("manifest", "checksum")})


# ---------------------------------------------------------------------------------------------
# Per-deal arrays


def pack(values: np.ndarray) -> str:
    """Integer-valued per-deal numbers as base64 of zlib-compressed little-endian int32."""
    integers = np.rint(values).astype("<i4")
    if len(values) and np.abs(integers - values).max() > 1e-6:
        raise ValueError("per-deal values must be integers (scale them first)")
    return base64.b64encode(zlib.compress(integers.tobytes(), 9)).decode("ascii")


def unpack(text: str, count: int | None = None) -> np.ndarray:
    """The values ``pack`` wrote; with ``count``, ``ValueError`` (not a memory error) for text that
    is not such values or holds more than ``count`` of them."""
    limit = 0 if count is None else 4 * count + 1  # one byte more than count values: too many, said
    try:
        data = zlib.decompressobj().decompress(base64.b64decode(text, validate=True), limit)
        values = np.frombuffer(data[: 4 * count] if count is not None else data, "<i4").astype(np.float64)
    except (ValueError, zlib.error) as error:
        raise ValueError(f"not packed per-deal values ({error})") from None
    if count is not None and len(data) > 4 * count:
        raise ValueError(f"more than {count} values")
    return values


def per_deal_adp(match: Mapping[str, Any]) -> np.ndarray:
    """(N,) the candidate's points per hand minus the field's, deal by deal."""
    arrays = {name: unpack(text) for name, text in match["per_deal"].items()}
    return arrays["candidate_points"] / arrays["candidate_hands"] - arrays["field_points"] / arrays["field_hands"]


def per_deal_win_rate(match: Mapping[str, Any]) -> np.ndarray:
    """(N,) the candidate's win rate, deal by deal (its win shares over its games)."""
    rotations = match["summary"]["rotations"]
    return unpack(match["per_deal"]["candidate_wins"]) / WIN_SCALE / rotations


# ---------------------------------------------------------------------------------------------
# Reading


def load(path: str | Path) -> dict[str, Any]:
    """A report read back and checked: its schema version, its checksum, its shape
    (``schemas/report.schema.json``) and its per-deal arrays; ``BenchError`` in one line naming the
    file (and the field) if it cannot be read, is of another schema, or was edited or damaged."""
    path = Path(path)
    report = read_json(path, "the report")
    if not isinstance(report, dict) or type(report.get("schema")) is not int or report["schema"] != SCHEMA:
        found = report.get("schema") if isinstance(report, dict) else None
        raise BenchError(f"{path} is not a hearts-bench report of schema {SCHEMA} (schema {_short(found)})")
    try:
        edited = report.get("checksum") != checksum({k: v for k, v in report.items() if k != "checksum"})
    except RecursionError:
        raise BenchError(f"the report {path} is not usable JSON: nested too deeply") from None
    if edited:
        raise BenchError(f"{path} was edited or is damaged: its checksum does not match its content")
    validate(report, "report", f"the report {path}")
    for name, track in report["tracks"].items():
        problem = _track_problem(track)
        if problem is not None:
            raise BenchError(f"the report {path}: tracks.{name}{problem}")
    return report


def _track_problem(track: Mapping[str, Any]) -> str | None:
    """What the schema cannot say about a track of a report: its status, mean and per-deal arrays
    agree with its matches (``.FIELD: what is wrong``), or None."""
    played = track["status"] == "played"
    if played != bool(track["matches"]):
        return f".status: {track['status']} with {len(track['matches'])} matches"
    wanted = {"adp", "payoff", "points_per_hand"} | ({"win_rate"} if track["episode"] == "game" else set())
    if played and not wanted <= set(track.get("mean", {})):
        return f".mean: must hold {', '.join(sorted(wanted))}"
    for i, match in enumerate(track["matches"]):
        for name, text in match["per_deal"].items():
            try:
                values = unpack(text, match["deals"])
            except ValueError as error:
                return f".matches[{i}].per_deal.{name}: {error}"
            if len(values) != match["deals"] or (name.endswith("_hands") and values.min() < 1):
                return f".matches[{i}].per_deal.{name}: not {match['deals']} deals of the match"
    return None


def _short(value: Any) -> str:
    return repr(value) if isinstance(value, (int, str, type(None))) and len(repr(value)) <= 40 else type(value).__name__


# ---------------------------------------------------------------------------------------------
# Table and plots


def format_report(report: Mapping[str, Any]) -> str:
    """The printed table of a report: per track one row per match, then the track's mean."""
    candidate = report["candidate"]
    lines = [
        f"hearts-bench {report['suite']} ({report['split']} split, {report['setting']}): {candidate['name']}"
        f" ({candidate['kind']} {candidate['spec']})"
    ]
    if report["modified"]:
        lines += ["  NOT the frozen suite: " + "; ".join(report["modified"])]
    for name, track in report["tracks"].items():
        lines += ["", f"{name}: {track['description']}"]
        if track["status"] == "played":
            lines += _track_table(track)
        lines += [f"  table {table} not played: {reason}" for table, reason in track["skipped"].items()]
    lines += [
        "",
        f"± : {round(CONFIDENCE * 100)}% t-interval over deals; * : excludes 0; vs field = the candidate's points "
        "per hand minus the other seats' (lower is better); the mean's interval combines its matches'; CPU s: "
        "the CPU seconds of the processes that played the blocks",
    ]
    return "\n".join(lines)


def _track_table(track: Mapping[str, Any]) -> list[str]:
    whole = track["episode"] == "game"
    by_direction = [m["summary"].get("by_direction", {}) for m in track["matches"]]
    directions = [] if whole else list(dict.fromkeys(d for entry in by_direction for d in entry))
    figures = ["points/hand", "vs field", "win %", "payoff/hand", "QS %", "moons %"]
    head = ["match", "deals", *figures, *directions, "CPU s"]
    rows = [head]
    for m in track["matches"]:
        rows.append(
            [
                m["id"],
                f"{m['deals']:,}",
                pm(headline(m, "points_per_hand"), 2),
                pm(headline(m, "adp"), 2, mark=True),
                pm(headline(m, "win_rate"), 1, 100),
                pm(headline(m, "payoff"), 2, signed=True),
                pm(headline(m, "qs_rate"), 1, 100),
                pm(headline(m, "moon_rate"), 2, 100),
                *(
                    pm(headline(m, "adp", d), 2, signed=True) if d in m["summary"].get("by_direction", {}) else "-"
                    for d in directions
                ),
                f"{m.get('cpu_seconds', 0.0):.0f}",
            ]
        )
    mean = track["mean"]
    rows.append(
        [
            "mean",
            "",
            pm(mean["points_per_hand"], 2),
            pm(mean["adp"], 2, mark=True),
            pm(mean["win_rate"], 1, 100) if whole else "",
            pm(mean["payoff"], 2, signed=True),
            "",
            "",
            *([""] * len(directions)),
            f"{track.get('cpu_seconds', 0.0):.0f}",
        ]
    )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = [
        "  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        for r in rows
    ]
    lines.insert(1, "  " + "-" * (len(lines[0]) - 2))
    if directions:
        lines.append(f"  (by pass direction: vs field over the deals passing {', '.join(directions)})")
    return lines


def pm(est: Mapping[str, Any] | None, digits: int, scale: float = 1.0, signed: bool = False, mark: bool = False) -> str:
    """'mean ± half-width' of an estimate dict, scaled; ``signed``: the mean with its sign; ``mark``:
    signed, then ' *' when the interval excludes 0 (two spaces otherwise, to keep columns aligned)."""
    if est is None or est["mean"] is None:
        return "-"
    signed = signed or mark
    value = round(est["mean"] * scale, digits) + 0.0  # no "-0.00"
    mean = f"{value:{'+' if signed else ''}.{digits}f}"
    if est["low"] is None:
        return mean
    text = f"{mean} ± {(est['high'] - est['low']) / 2 * scale:.{digits}f}"
    if mark:
        text += " *" if est["low"] > 0 or est["high"] < 0 else "  "
    return text


def plot_track(report: Mapping[str, Any], track_name: str, path: str | Path) -> None:
    """A PNG of a played track: the candidate's points per hand minus the field per match, with
    95% intervals, and for single hands the same by pass direction. Needs matplotlib."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise BenchError("plots need matplotlib: pip install matplotlib") from None
    track = report["tracks"][track_name]
    matches = track["matches"]
    y = np.arange(len(matches))[::-1]
    fig = Figure(figsize=(7.5, 1.4 + 0.45 * len(matches)), layout="constrained")
    ax = fig.subplots()
    groups: list[tuple[str, str | None]] = [("all deals", None)]
    if track["episode"] == "hand":
        groups += [(d, d) for d in dict.fromkeys(d for m in matches for d in m["summary"].get("by_direction", {}))]
    offsets = np.linspace(0.25, -0.25, len(groups)) if len(groups) > 1 else [0.0]
    for (label, direction), offset in zip(groups, offsets, strict=True):
        estimates = [
            headline(m, "adp", direction)
            if direction is None or direction in m["summary"].get("by_direction", {})
            else {"mean": None, "low": None, "high": None}
            for m in matches
        ]
        mean = np.array([math.nan if e["mean"] is None else e["mean"] for e in estimates])
        low = np.array([math.nan if e["low"] is None else e["low"] for e in estimates])
        high = np.array([math.nan if e["high"] is None else e["high"] for e in estimates])
        style = {"fmt": "D", "color": "black"} if direction is None else {"fmt": "o", "alpha": 0.7}
        ax.errorbar(
            mean, y + offset, xerr=np.nan_to_num(np.stack([mean - low, high - mean])), capsize=3, label=label, **style
        )
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_yticks(y, [m["id"] for m in matches])
    ax.set_xlabel("candidate's points per hand minus the field's (lower is better), 95% intervals")
    ax.grid(axis="x", alpha=0.3)
    if len(groups) > 1:
        ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1, 0.5))
    fig.suptitle(f"hearts-bench {report['suite']} {track_name} ({report['split']}): {report['candidate']['name']}")
    fig.savefig(path, dpi=110)
