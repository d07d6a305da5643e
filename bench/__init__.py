"""hearts-bench: a versioned benchmark of Hearts agents that results can cite (docs/benchmark.md).

A suite version (``v1``) freezes everything a figure depends on: its tracks (tables, whole games
or single hands, who sits where), each table's deal set (keys from documented seeds on the
split's own seeding stream, with a SHA-256 of the deals), the opponent pool (agent specs, a
SHA-256 of every network's weights, a fingerprint of every member's decisions) and the block size
of every match (agents are reseeded at each block). A run checks all of it before it plays, so
"hearts-bench v1, test split" means the same games on every machine.

    from hearts_env.bench import compare, format_report, run

    report = run("ppo", split="test")                   # a spec, a path, module:factory, or a Policy
    print(format_report(report))
    quick = run(my_policy, name="mine", quick=True, tracks=["standard", "games"])   # a tenth of the deals
    compare(report, other_report)                       # A minus B, paired by deal, per match and track

Modules: ``schema`` (the published JSON Schemas of the files and the checker every loader goes
through), ``suite`` (versions as data, the record and its checks), ``deals`` (deal keys and
hashes), ``identity`` (weights hashes, decision fingerprints), ``candidates`` (anything as the
candidate; ``per_game_policy``, the adapter for per-game callables; the time limit), ``run``
(checks, blocks, executors, resuming), ``store`` (the output folder), ``bench_report`` (the JSON
report, its table and plots), ``compare``, ``leaderboard`` and ``cli``, the command line
``hearts-bench``. The benchmark lives in ``hearts_env.train`` because ``hearts-bench exploit``
trains (``hearts_env.bench.exploit``, imported by that subcommand only); the suite, runs and
reports need no training code.
"""

from hearts_env.bench.bench_report import format_report, load
from hearts_env.bench.candidates import PerGamePolicy, load_candidate, per_game_policy
from hearts_env.bench.compare import compare, format_comparison
from hearts_env.bench.run import run
from hearts_env.bench.suite import BenchError, load_suite, versions

__all__ = [
    "BenchError",
    "PerGamePolicy",
    "compare",
    "format_comparison",
    "format_report",
    "load",
    "load_candidate",
    "load_suite",
    "per_game_policy",
    "run",
    "versions",
]
