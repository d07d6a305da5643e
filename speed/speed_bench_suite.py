"""The time the benchmark suite takes for one candidate: each track's wall time, and which match
(opponent) costs most.

Each track runs on its own (``hearts_env.bench.run`` with ``tracks=[track]``) into one
output folder, timed from the start of the call (the checks before play included); then the
whole suite is run once more into that folder, which plays nothing (every block is kept) and
writes the report. With ``--json`` the report is also written there (a leaderboard row). The
table gives each track's wall time and, per match, the CPU seconds of the processes that played
its blocks (summed): what the match costs on a free machine, whatever the load while measuring
(the wall time on N free cores is about the CPU time over N).

    python speed/speed_bench_suite.py ppo --workers 2                   # the targets: standard <= 10 min, suite <= 60
    python speed/speed_bench_suite.py heuristic --workers 2 --json docs/results/bench-v1/heuristic.json
    python speed/speed_bench_suite.py ppo --quick                       # a tenth of the deals

Absolute times follow the machine's load: quote the ratios of one run.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from hearts_env.bench import BenchError, format_report, load_suite, run
from hearts_env.bench import bench_report as reports


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("candidate", help="the candidate (as hearts-bench run takes it)")
    parser.add_argument("--suite", default="v1")
    parser.add_argument("--split", default="test")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--tracks", default=None, help="comma-separated tracks (default: all)")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--out", default=None, help="the run folder (default: runs/bench/timing__CANDIDATE)")
    parser.add_argument("--json", default=None, help="also write the report here")
    args = parser.parse_args()
    out = Path(args.out or f"runs/bench/timing__{args.candidate.replace(':', '_').replace('/', '_')}")
    suite = load_suite(args.suite)
    tracks = args.tracks.split(",") if args.tracks else list(suite.tracks)
    common = dict(version=args.suite, split=args.split, quick=args.quick, out=out, workers=args.workers)
    walls = {}
    for track in tracks:
        start = time.perf_counter()
        try:
            run(args.candidate, tracks=[track], progress=True, **common)
        except BenchError as error:  # a track the candidate cannot play: the report says why
            print(f"{track}: {error}")
            continue
        walls[track] = time.perf_counter() - start
    start = time.perf_counter()
    chosen = tracks if args.tracks else None  # every track: those it cannot play are skipped
    report = run(args.candidate, tracks=chosen, command=f"speed/speed_bench_suite.py {args.candidate}", **common)
    assembled = time.perf_counter() - start
    print(format_report(report))
    print(f"\nper track: wall time (workers: {args.workers or 1}), CPU time, and each match's CPU time:")
    for track, wall in walls.items():
        entry = report["tracks"][track]
        costs = ", ".join(f"{m['id']} {m['cpu_seconds']:.0f} s" for m in entry["matches"]) or entry["status"]
        print(f"  {track:10} {wall:7.1f} s wall {entry['cpu_seconds']:7.1f} s CPU   ({costs})")
    cpu = sum(t["cpu_seconds"] for t in report["tracks"].values())
    total = sum(walls.values())
    print(f"  {'suite':10} {total:7.1f} s wall {cpu:7.1f} s CPU   (the report from the kept blocks: {assembled:.1f} s)")
    if args.json:
        Path(args.json).write_text(reports.dumps(report))
        print(f"report: {args.json}")


if __name__ == "__main__":
    main()
