"""Two reports compared deal by deal: does one candidate beat the other?

``compare(a, b)`` pairs the matches the two reports both played (the same track and match, so
the same pool opponents at the same table) deal by deal: for every deal, A's points per hand
minus the field's, less B's (``report.per_deal_adp``), and the mean of those differences with its
95% Student-t interval over the deals (the arena's ``Estimate``, as ``MatchResult.paired_difference``). Pairing
by deal removes what the cards themselves add to the variance, so the interval is narrower than
the two reports' own. A negative difference whose interval excludes 0 says A takes fewer points
than B against that opponent. Whole-game tracks also pair the win rates. A track's ``mean``
averages its matches' differences (``report.combined``).

Reports of different suite versions (``v1`` and ``v1+modified`` differ), splits or settings, or
whose matches were played on deals that hash differently, are refused with ``BenchError``;
``report.load`` has already refused edited or damaged files.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearts_env.arena import CONFIDENCE, Estimate
from hearts_env.bench import bench_report as reports
from hearts_env.bench.suite import BenchError


def compare(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    """A minus B per match and track both played (see the module docstring), JSON-ready."""
    for key, what in (("suite", "suite versions"), ("split", "splits"), ("setting", "settings")):
        if a[key] != b[key]:
            raise BenchError(f"the reports are of different {what} ({a[key]} and {b[key]}): they share no deals")
    out: dict[str, Any] = {"a": a["candidate"]["name"], "b": b["candidate"]["name"], "suite": a["suite"], "tracks": {}}
    for name, track_a in a["tracks"].items():
        track_b = b["tracks"].get(name)
        if track_b is None or "played" not in (track_a["status"], track_b["status"]):
            continue
        by_id = {m["id"]: m for m in track_b["matches"]}
        matches = {}
        for match_a in track_a["matches"]:
            match_b = by_id.get(match_a["id"])
            if match_b is None:
                continue
            if (match_a["deals_sha256"], match_a["deals"]) != (match_b["deals_sha256"], match_b["deals"]):
                a_deals, b_deals = (f"{m['deals']} hashing to {m['deals_sha256'][:12]}..." for m in (match_a, match_b))
                raise BenchError(
                    f"track {name!r}, match {match_a['id']!r}: the reports' deals differ ({a_deals} and {b_deals})"
                )
            entry = {
                "a": reports.headline(match_a, "adp"),
                "b": reports.headline(match_b, "adp"),
                "difference": Estimate.of(reports.per_deal_adp(match_a) - reports.per_deal_adp(match_b)).to_dict(),
            }
            if track_a["episode"] == "game":
                wins = reports.per_deal_win_rate(match_a) - reports.per_deal_win_rate(match_b)
                entry["win_rate_difference"] = Estimate.of(wins).to_dict()
            matches[match_a["id"]] = entry
        if matches:
            mean = reports.combined([m["difference"] for m in matches.values()])
            out["tracks"][name] = {"matches": matches, "mean": mean}
    if not out["tracks"]:
        raise BenchError("the reports have no played match in common")
    return out


def format_comparison(comparison: Mapping[str, Any]) -> str:
    """The printed table of ``compare``'s result."""
    a, b = comparison["a"], comparison["b"]
    rows = [["track", "match", f"{a} vs field", f"{b} vs field", "A - B (paired)", "win % A - B"]]
    for track, entry in comparison["tracks"].items():
        for match, m in entry["matches"].items():
            wins = m.get("win_rate_difference")
            rows.append(
                [
                    track,
                    match,
                    reports.pm(m["a"], 2, signed=True),
                    reports.pm(m["b"], 2, signed=True),
                    reports.pm(m["difference"], 2, mark=True),
                    reports.pm(wins, 1, 100, mark=True) if wins else "",
                ]
            )
        rows.append([track, "mean", "", "", reports.pm(entry["mean"], 2, mark=True), ""])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        for r in rows
    ]
    lines.insert(1, "-" * len(lines[0]))
    head = f"hearts-bench {comparison['suite']}: A = {a}, B = {b}, paired by deal (same deals, same opponents)"
    foot = (
        f"A - B: A's points per hand minus the field's, less B's, deal by deal; ± {round(CONFIDENCE * 100)}% "
        "t-interval over deals; * : excludes 0 (negative: A takes fewer points than B, A is stronger)"
    )
    return "\n".join([head, *lines, foot])
