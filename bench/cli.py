"""``hearts-bench``: run the versioned benchmark suite, compare two reports, make the leaderboard.

    hearts-bench run ppo --split test                       # the whole suite v1 for the shipped ppo
    hearts-bench run ppo --split test --quick --tracks standard,games
    hearts-bench run model.zip --workers 2                  # an SB3 MaskablePPO model, two processes
    hearts-bench run mypkg.agents:make --ray auto           # a factory's policy, blocks on a Ray cluster
    hearts-bench compare a/report.json b/report.json        # A minus B, paired by deal
    hearts-bench leaderboard docs/results/bench-v1/*.json --out docs/leaderboard.md
    hearts-bench list                                       # versions, tracks, deals, the pool
    hearts-bench exploit heuristic                          # a best response to heuristic: its exploitability
    hearts-bench exploit pimc:worlds=4 --budget 200000 --deals 200 --eval-deals 50
    hearts-bench exploit pimc:worlds=4 --budget 200000 --shards 32 --ray auto   # the tables on a Ray cluster

``run`` checks everything before it plays (the version, split and tracks, every deal set's hash,
the pool's weights and decisions, the candidate on every table) and keeps every finished block in
``--out`` (default ``runs/bench/VERSION__SPLIT__SETTING__NAME``): the same command resumes an
interrupted run. It prints the report's table and writes ``report.json`` (also to ``--json``),
``report.txt`` and a plot per track in the folder. Errors are one line (``hearts-bench: error:
...``), never a traceback. The protocol: docs/benchmark.md; the API: ``hearts_env.bench``.

``exploit`` trains a best response to the agent with ``hearts_env.train.ppo`` and measures it on
the suite's test deals (``hearts_env.bench.exploit``, docs/exploitability.md); the same command
resumes an interrupted one from its checkpoint. Subcommands are entries of ``COMMANDS`` (arguments
and body). torch is imported only to read an SB3 ``.zip`` or to train.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from hearts_env.arena.sharding import RAY_MISSING, add_ray_argument, ray_failure
from hearts_env.bench import bench_report as reports
from hearts_env.bench import leaderboard as leaderboards
from hearts_env.bench.candidates import TIME_LIMIT, check_time_limit
from hearts_env.bench.compare import compare, format_comparison
from hearts_env.bench.run import run
from hearts_env.bench.schema import read_json
from hearts_env.bench.suite import BenchError, freeze, load_suite, setting, versions
from hearts_env.cli.commands import Parser, add_progress_argument, command, output_problem, positive_int

PROG = "hearts-bench"
RUNS_DIR = Path("runs") / "bench"
"""Where ``run`` keeps its blocks and report unless ``--out`` says otherwise."""


@dataclass(frozen=True)
class Command:
    """A subcommand: its one-line help, its arguments, and its body ``main(args, parser)``."""

    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    main: Callable[[argparse.Namespace, argparse.ArgumentParser], None]


# ---------------------------------------------------------------------------------------------
# run


def _run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "candidate", help="registry spec (pimc:worlds=16), trained:path=DIR, MODEL.zip, or module:factory"
    )
    parser.add_argument("--suite", default="v1", help="suite version, or a suite file (.json) (default: v1)")
    parser.add_argument("--split", default="test", help="deal set: test (for reporting, default) or dev (for tuning)")
    parser.add_argument("--quick", action="store_true", help="a tenth of every match's deals (smoke tests, CI)")
    parser.add_argument("--tracks", type=_names, default=None, help="comma-separated tracks (default: all)")
    parser.add_argument("--name", default=None, help="the candidate's name in the report (default: its spec)")
    parser.add_argument("--out", default=None, help=f"folder of the blocks and report (default: {RUNS_DIR}/...)")
    parser.add_argument("--restart", action="store_true", help="discard the blocks already in --out")
    parser.add_argument("--json", metavar="PATH", help="also write the report here")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--workers", type=positive_int, default=None, help="play the blocks on N processes")
    add_ray_argument(where)
    parser.add_argument(
        "--time-limit",
        type=float,
        default=TIME_LIMIT,
        help=f"seconds a decision of the candidate may take (default: {TIME_LIMIT:g})",
    )
    parser.add_argument(
        "--allow-modified",
        action="store_true",
        help="play even if a pool member differs from the suite's record (the report says VERSION+modified)",
    )
    add_progress_argument(parser)


def _run_main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    check_time_limit(args.time_limit)  # before Ray starts
    if args.ray is not None and importlib.util.find_spec("ray") is None:
        parser.error(f"--ray {RAY_MISSING}")
    if args.json and (problem := output_problem(args.json)):
        parser.error(f"--json: {problem}")
    out = (
        Path(args.out)
        if args.out
        else RUNS_DIR / f"{args.suite}__{args.split}__{setting(args.quick)}__{_slug(args.name or args.candidate)}"
    )
    executor = None
    if args.ray is not None:
        from hearts_env.arena.sharding import RayExecutor

        try:
            executor = RayExecutor(args.ray or None, include_dashboard=False, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as error:
            _fail(f"--ray: {ray_failure(args.ray, error)}")
    try:
        report = run(
            args.candidate,
            version=args.suite,
            split=args.split,
            quick=args.quick,
            tracks=args.tracks,
            name=args.name,
            out=out,
            restart=args.restart,
            workers=args.workers,
            executor=executor,
            progress=args.progress,
            time_limit=args.time_limit,
            allow_modified=args.allow_modified,
            command=shlex.join([PROG, *sys.argv[1:]]),
        )
    except KeyboardInterrupt:
        _fail(f"interrupted; the finished blocks are kept in {out}: the same command resumes", code=130)
    finally:
        if executor is not None:
            executor.shutdown()
    print(reports.format_report(report))
    print(f"\nreport: {out / 'report.json'}" + (f", plots: {out / 'plots'}" if (out / "plots").is_dir() else ""))
    if args.json:
        _write(args.json, reports.dumps(report))


# ---------------------------------------------------------------------------------------------
# compare, leaderboard, list, freeze


def _compare_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", metavar="A.json", help="a report of hearts-bench run")
    parser.add_argument("b", metavar="B.json", help="another report of the same suite version and split")
    parser.add_argument("--json", metavar="PATH", help="also write the comparison as JSON")


def _compare_main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    comparison = compare(reports.load(args.a), reports.load(args.b))
    print(format_comparison(comparison))
    if args.json:
        _write(args.json, json.dumps(comparison, indent=1) + "\n")


def _leaderboard_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reports", nargs="+", metavar="REPORT", help="reports of hearts-bench run")
    parser.add_argument(
        "--exploit", nargs="+", default=[], metavar="EXPLOIT", help="exploit.json reports of hearts-bench exploit"
    )
    parser.add_argument("--out", default=None, help="write the markdown here (default: stdout)")


def _leaderboard_main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    entries = [(path, reports.load(path)) for path in args.reports]
    exploits = [(path, read_json(path, "the exploit report")) for path in args.exploit]
    command = shlex.join(
        [PROG, "leaderboard", *args.reports]
        + (["--exploit", *args.exploit] if args.exploit else [])
        + (["--out", args.out] if args.out else [])
    )
    page = leaderboards.leaderboard(entries, command, exploits)
    if args.out:
        _write(args.out, page)
        print(f"{args.out}: {len(entries)} rows")
    else:
        print(page, end="")


def _list_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--suite", default=None, help="one version (default: every version)")


def _list_main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    for version in [args.suite] if args.suite else versions():
        suite = load_suite(version)
        print(f"{suite.version}: {suite.description}")
        print(
            f"  splits: {', '.join(suite.splits)}; quick: 1/{suite.quick_fraction} of the deals; "
            f"agent seed {suite.agent_seed}"
        )
        print("  pool: " + ", ".join(f"{n} ({m.spec})" for n, m in suite.pool.items()))
        for track in suite.tracks.values():
            matches = ", ".join(f"{m.id} {m.deals}" for m in track.matches)
            print(f"  {track.name} ({'whole games' if track.episode == 'game' else 'single hands'}): {matches} deals")


def _freeze_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("suite_file", metavar="SUITE.json", help='a new version\'s file, with "record": null')


def _freeze_main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    record = freeze(args.suite_file)
    print(
        f"{args.suite_file}: recorded {sum(map(len, record['deals'].values()))} deal sets, "
        f"{len(record['pool'])} pool members"
    )


# ---------------------------------------------------------------------------------------------
# exploit


def _exploit_arguments(parser: argparse.ArgumentParser) -> None:
    from hearts_env.bench.exploit import DEFAULT_BUDGET, DEFAULT_DEALS, DEFAULT_START, SCRATCH

    parser.add_argument(
        "target", help="the agent to exploit: registry spec (pimc:worlds=4), trained:path=DIR, MODEL.zip"
    )
    parser.add_argument(
        "--budget", type=int, default=DEFAULT_BUDGET, help=f"training steps (default: {DEFAULT_BUDGET:,})"
    )
    parser.add_argument(
        "--start",
        default=DEFAULT_START,
        help=f"policy the best response starts from: ppo (shipped), an exported run folder, or {SCRATCH} "
        f"(default: {DEFAULT_START})",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the training and its evaluations (default: 1)")
    parser.add_argument(
        "--deals",
        type=int,
        default=DEFAULT_DEALS,
        help=f"test deals of the final evaluation (default: {DEFAULT_DEALS})",
    )
    parser.add_argument(
        "--eval-deals", type=int, default=200, help="deals per point of the learning curve (default: 200)"
    )
    parser.add_argument("--curve-points", type=int, default=10, help="evaluations during training (default: 10)")
    parser.add_argument(
        "--value-decisions",
        type=int,
        default=200_000,
        help="decisions of the start's own play its value net is fitted to first (default: 200,000)",
    )
    parser.add_argument("--num-envs", type=int, default=256, help="tables played at once in training (default: 256)")
    parser.add_argument("--learning-rate", type=float, default=3e-4, help="Adam learning rate (default: 3e-4)")
    parser.add_argument(
        "--shards",
        type=positive_int,
        default=None,
        help="split the tables into shards, each with its own copy of the target (default: 1)",
    )
    add_ray_argument(parser, "step the shards on Ray actors, one CPU each")
    parser.add_argument("--out", default=None, help=f"the run's folder (default: {RUNS_DIR}/exploit__...)")
    parser.add_argument("--restart", action="store_true", help="discard what --out holds")
    parser.add_argument("--json", metavar="PATH", help="also write the report here")
    add_progress_argument(parser)


def _exploit_main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    from hearts_env.bench.exploit import exploit, format_report

    if args.json and (problem := output_problem(args.json)):
        parser.error(f"--json: {problem}")
    if args.ray is not None and importlib.util.find_spec("ray") is None:
        parser.error(f"--ray {RAY_MISSING}")
    shards = {} if args.shards is None else {"shards": args.shards}  # only when given: older runs still resume
    try:
        report = exploit(
            args.target,
            args.budget,
            start=args.start,
            seed=args.seed,
            deals=args.deals,
            eval_deals=args.eval_deals,
            curve_points=args.curve_points,
            value_decisions=args.value_decisions,
            out=args.out,
            restart=args.restart,
            progress=args.progress,
            command=shlex.join([PROG, *sys.argv[1:]]),
            ray=args.ray,
            num_envs=args.num_envs,
            learning_rate=args.learning_rate,
            **shards,
        )
    except KeyboardInterrupt:
        _fail("interrupted; the checkpoints are kept: the same command resumes", code=130)
    print(format_report(report))
    print(f"\nreport: {report['folder']}/exploit.json, curve: {report['folder']}/curve.png")
    if args.json:
        _write(args.json, json.dumps(report, indent=1) + "\n")


COMMANDS: dict[str, Command] = {
    "run": Command("run the suite for a candidate agent", _run_arguments, _run_main),
    "compare": Command("paired difference of two reports, per track", _compare_arguments, _compare_main),
    "leaderboard": Command("the leaderboard page from reports", _leaderboard_arguments, _leaderboard_main),
    "list": Command("the suite versions, their tracks and pool", _list_arguments, _list_main),
    "freeze": Command("record the hashes of a new suite version's file", _freeze_arguments, _freeze_main),
    "exploit": Command("train a best response to an agent: its exploitability", _exploit_arguments, _exploit_main),
}
"""The subcommands, in the order ``--help`` lists them."""


def make_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG,
        description="hearts-bench: a versioned benchmark of Hearts agents (docs/benchmark.md).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example: hearts-bench run ppo --split test; hearts-bench compare A.json B.json",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, entry in COMMANDS.items():
        sub = commands.add_parser(name, help=entry.help, description=entry.help)
        entry.arguments(sub)
        sub.set_defaults(command_main=entry.main, command_parser=sub)
    return parser


def main(argv: list[str] | None = None) -> None:
    args = make_parser().parse_args(argv)
    try:
        args.command_main(args, args.command_parser)
    except BenchError as error:
        _fail(str(error))


@command("hearts-main-job")
def main_job(argv: Sequence[str] | None = None) -> None:
    """``hearts-main-job`` (``make run``): train a small agent, then benchmark it (``hearts_env.bench.main_job``)."""
    from hearts_env.bench import main_job as job

    job.main(job.parse_args(argv))


def _fail(message: str, code: int = 1) -> None:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    raise SystemExit(code)


def _write(path: str | Path, text: str) -> None:
    try:
        Path(path).write_text(text)
    except OSError as error:
        raise BenchError(f"cannot write {path}: {error.strerror or error}") from None


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _slug(text: str) -> str:
    return re.sub(r"[^\w.-]+", "_", Path(text).name if text.endswith(".zip") else text).strip("_") or "candidate"


if __name__ == "__main__":
    main()
