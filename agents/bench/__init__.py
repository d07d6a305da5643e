"""hearts-bench: a versioned benchmark protocol (see docs/benchmark.md)."""

from hearts_env.agents.bench.candidates import PerGamePolicy, load_candidate, per_game_policy
from hearts_env.agents.bench.compare import compare
from hearts_env.agents.bench.report import format_report, load
from hearts_env.agents.bench.run import run
from hearts_env.agents.bench.suite import BenchError, load_suite, versions

__all__ = [
    "BenchError",
    "PerGamePolicy",
    "compare",
    "format_report",
    "load",
    "load_candidate",
    "load_suite",
    "per_game_policy",
    "run",
    "versions",
]
