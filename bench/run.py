"""Running a suite: checks first, then every match's blocks (here, on worker processes or on Ray),
kept in the output folder as they finish, then the report.

``run(candidate, ...)`` does, in order, before any deal is played:

1. the version, split and tracks exist (``suite.load_suite``, ``Suite.select``);
2. every table's deal set hashes as recorded (``Suite.check_deals``: a mismatch names the track);
3. every pool member the tracks use plays as recorded (``Suite.check_pool``: weights and decisions);
   if one does not, the run stops, unless ``allow_modified``, which labels the report
   ``VERSION+modified`` and lists what differed (never ``v1``);
4. the candidate is built (``candidates.load_candidate``, right after step 1), decides the first
   position of every table (a table it refuses, as ``ppo`` refuses the variants' tables, is
   skipped with the reason; a track named in ``tracks`` that it cannot play at all is an error)
   and the fingerprint's positions of each track's tables (``identity.fingerprint``, recorded
   with the track);
5. the output folder, if any, holds nothing of another run, and no blocks of a track played by
   agents that decide otherwise (``store.RunFolder``).

Each match is ``hearts_env.arena.plan_match`` of its table, seats, the first ``deals`` keys of
its deal set and the suite's agent seed; its blocks are the jobs. Blocks already in the folder
are loaded, the others are played, the slow matches' first (the suite gives them the small
blocks): in this process (a progress bar over every game of the run), or with ``workers`` > 1 on
that many processes, or on any executor with ``map`` (``hearts_env.arena.sharding.RayExecutor``);
every block reseeds its agents from the match's seed and its index, so the report's figures are
the same however and wherever the blocks ran, and after any number of interruptions. A block
that fails (the candidate raises, overruns its time limit or chooses an illegal card) ends the
run with one ``BenchError`` line naming the candidate, the track, the match and the deals (the
deal itself for an illegal card), after the finished blocks are saved.
"""

from __future__ import annotations

import concurrent.futures
import importlib.metadata
import pickle
import platform
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import hearts_env
from hearts_env.arena import BlockOutcome, MatchPlan, plan_match
from hearts_env.arena.match import Executor
from hearts_env.bench import bench_report as reports
from hearts_env.bench.candidates import (
    TIME_LIMIT,
    Candidate,
    CandidateError,
    check_time_limit,
    load_candidate,
    refusal,
    time_limited,
)
from hearts_env.bench.deals import deal_hash, split_keys
from hearts_env.bench.identity import fingerprint
from hearts_env.bench.store import RunFolder
from hearts_env.bench.suite import CANDIDATE, BenchError, MatchSpec, Suite, Track, load_suite, setting
from hearts_env.play.policy import Policy, close_agents
from hearts_env.play.progress import progress_bar
from hearts_env.play.runner import IllegalCardError

CANDIDATE_FINGERPRINT_GAMES = 2
"""Games per table of the candidate's fingerprint (16 positions a table)."""
Timing = tuple[float, float]  # a block's wall seconds and the CPU seconds of the process that played it


@dataclass(frozen=True)
class _Match:
    """A match of this run: where it comes from, its plan and the hash of its deals."""

    track: Track
    spec: MatchSpec
    plan: MatchPlan
    deals_sha256: str

    def where(self, block: int, split: str) -> str:
        deals = self.plan.block_deals(block)
        return f"track {self.track.name!r}, match {self.spec.id!r}, {split} deals {deals.start}..{deals.stop - 1}"


def run(
    candidate: str | Policy,
    *,
    version: str | Suite = "v1",
    split: str = "test",
    quick: bool = False,
    tracks: Sequence[str] | None = None,
    name: str | None = None,
    out: str | Path | None = None,
    restart: bool = False,
    workers: int | None = None,
    executor: Executor | None = None,
    progress: bool = False,
    time_limit: float = TIME_LIMIT,
    allow_modified: bool = False,
    command: str | None = None,
) -> dict[str, Any]:
    """Run suite ``version`` (a version, a suite file or a ``Suite``) on ``split`` (``quick``: a
    tenth of the deals) for ``candidate`` (a spec, a path, an import path or a ``Policy``, see
    ``candidates``) and return the report (a JSON-ready dict, ``report.SCHEMA``;
    ``report.format_report`` prints it). ``tracks``: a subset (default: all); ``name``: the
    candidate's label; ``out``: the folder that keeps the blocks and receives ``report.json``
    (see ``store``; ``restart`` discards its blocks); ``workers`` or ``executor``: where the
    blocks run; ``time_limit``: seconds per decision of the candidate; ``command``: recorded in
    the manifest. ``BenchError`` in one line for anything refused or failed."""
    started, wall, commit = datetime.now(timezone.utc), time.perf_counter(), _git_commit()
    time_limit = check_time_limit(time_limit)
    if workers is not None and executor is not None:
        raise BenchError("give workers or an executor, not both")
    suite = version if isinstance(version, Suite) else load_suite(version)
    suite.check_split(split)
    selected = suite.select(tracks)
    cand = load_candidate(candidate, name, suite.agent_seed)
    owned: list[object] = [cand.policy] if isinstance(candidate, (str, Path)) else []  # built here: closed here
    try:
        suite.check_deals(split, selected)
        members, identities, modified = _pool(suite, selected, allow_modified)
        owned += members.values()
        skipped = _refusals(cand, selected, time_limit, explicit=tracks is not None)
        played = {t.name: [m for m in t.matches if m.table not in skipped[t.name]] for t in selected}
        if not any(played.values()):
            raise BenchError(f"candidate {cand.name!r} can play none of the tracks: {next(iter(skipped.values()))}")
        guarded = time_limited(cand.policy, cand.name, time_limit)
        players = {
            t.name: _players(t, played[t.name], guarded, cand.name, identities) for t in selected if played[t.name]
        }
        matches = [
            _plan(suite, track, spec, split, quick, guarded, members, cand.history)
            for track in selected
            for spec in played[track.name]
        ]
        label = suite.version if not modified else f"{suite.version}+modified"
        candidate_entry = {"spec": cand.spec, "weights_sha256": cand.weights_sha256}
        identity = {"suite": suite.version, "split": split, "setting": setting(quick), "candidate": candidate_entry}
        folder = None if out is None else RunFolder(out, identity, restart)
        for track, who in players.items():
            if folder is not None:
                folder.claim(track, who)
        blocks, played_now = _play(matches, folder, split, workers, executor, progress, cand.name)
        entries = {}
        for match in matches:
            outcomes = blocks[id(match)]
            result = match.plan.result([o for o, _ in outcomes], seconds=sum(t[0] for _, t in outcomes))
            entry = reports.match_entry(match.spec, result, match.deals_sha256)
            entries[id(match)] = entry | {"cpu_seconds": sum(t[1] for _, t in outcomes)}
        report = {
            "schema": reports.SCHEMA,
            "suite": label,
            "version": suite.version,
            "frozen": not modified,
            "modified": modified,
            "split": split,
            "setting": setting(quick),
            "candidate": {"name": cand.name, "kind": cand.kind} | candidate_entry,
            "tracks": {
                t.name: _track_entry(t, [entries[id(m)] for m in matches if m.track is t], skipped[t.name], players)
                for t in selected
            },
            "manifest": _manifest(suite, split, selected, identities, commit, started, wall, workers, executor, command)
            | {"blocks_played": played_now, "blocks_kept": sum(len(b) for b in blocks.values()) - played_now},
        }
    finally:  # a program agent ends its bot, sending the last events of its tables first
        close_agents(owned)
    report = reports.finish(report)
    if folder is not None:
        _write_outputs(folder, report)
    return report


def _pool(
    suite: Suite, tracks: list[Track], allow_modified: bool
) -> tuple[dict[str, Policy], dict[str, dict[str, str | None]], list[str]]:
    """The pool members the tracks use, built, their weights hashes and fingerprints, and how
    those differ from the record; ``BenchError`` if they differ and that is not allowed."""
    used = dict.fromkeys(n for t in tracks for m in t.matches for n in m.opponents)
    members = {n: suite.pool[n].build(suite.agent_seed) for n in used}
    identities = suite.identify(members)
    modified = suite.check_pool(identities)
    if modified and not allow_modified:
        more = f" (and {len(modified) - 1} more)" if len(modified) > 1 else ""
        raise BenchError(
            f"the pool differs from suite {suite.version}'s record, so results would not be {suite.version}: "
            f"{modified[0]}{more}; make a new version (docs/benchmark.md) or pass --allow-modified for a "
            f"report labelled {suite.version}+modified"
        )
    return members, identities, modified


def _players(
    track: Track, matches: list[MatchSpec], candidate: Policy, name: str, identities: dict[str, Any]
) -> dict[str, Any]:
    """Who plays a track: the candidate's decisions fingerprint on the positions of the track's
    tables it plays, and the pool members' weights hashes and fingerprints."""
    tables = {m.table: track.tables[m.table].rules for m in matches}
    try:
        decisions = fingerprint(candidate, tables, CANDIDATE_FINGERPRINT_GAMES)
    except (CandidateError, ValueError) as error:
        raise BenchError(f"candidate {name!r} fails on the positions of track {track.name!r}: {error}") from None
    members = dict.fromkeys(n for m in matches for n in m.opponents)
    return {"candidate_fingerprint": decisions, "pool": {n: identities[n] for n in members}}


def _refusals(cand: Candidate, tracks: Iterable[Track], limit: float, explicit: bool) -> dict[str, dict[str, str]]:
    """Per track, the tables the candidate refuses and why; ``BenchError`` if a track named
    explicitly is refused whole."""
    out = {}
    for track in tracks:
        out[track.name] = {}
        for table in track.tables.values():
            reason = refusal(cand, table.rules, f"track {track.name!r}, table {table.name!r}", limit)
            if reason is not None:
                out[track.name][table.name] = reason
        if explicit and len(out[track.name]) == len(track.tables):
            raise BenchError(
                f"candidate {cand.name!r} cannot play track {track.name!r}: {next(iter(out[track.name].values()))}"
            )
    return out


def _plan(
    suite: Suite,
    track: Track,
    spec: MatchSpec,
    split: str,
    quick: bool,
    candidate: Policy,
    members: dict[str, Policy],
    history: bool,
) -> _Match:
    table = track.tables[spec.table]
    keys = split_keys(split, table.deal_seed, suite.match_deals(spec, quick))
    entries = [(CANDIDATE, candidate) if seat == CANDIDATE else (seat, members[seat]) for seat in spec.seats]
    plan = plan_match(
        table.rules, entries, seed=suite.agent_seed, episode=track.episode, history=history, block=spec.block, keys=keys
    )
    return _Match(track, spec, plan, deal_hash(table.rules, keys))


# ---------------------------------------------------------------------------------------------
# Playing the blocks


def _play_job(job: tuple[MatchPlan, int], bar: Any = None) -> tuple[BlockOutcome | None, Timing, str | None]:
    """Play one block (anywhere): its outcome and timing, or the one-line reason it failed."""
    plan, block = job
    start, cpu = time.perf_counter(), time.process_time()
    try:
        outcome = plan.play_block(block, bar)
    except (CandidateError, IllegalCardError) as error:
        return None, (0.0, 0.0), str(error)
    except Exception as error:  # noqa: BLE001  (any agent's failure ends the run in one line)
        return None, (0.0, 0.0), f"{type(error).__name__}: {error}"
    return outcome, (time.perf_counter() - start, time.process_time() - cpu), None


def _play(
    matches: list[_Match],
    folder: RunFolder | None,
    split: str,
    workers: int | None,
    executor: Executor | None,
    progress: bool,
    name: str,
) -> tuple[dict[int, list[tuple[BlockOutcome, Timing]]], int]:
    """Every block of every match, loaded from ``folder`` or played, with its timing, by ``id`` of
    the match; and how many were played now."""
    done: dict[int, list[Any]] = {id(m): [None] * m.plan.blocks for m in matches}
    pending = []
    for match in matches:
        for b in range(match.plan.blocks):
            kept = None
            if folder is not None:
                deals = len(match.plan.block_deals(b))
                kept = folder.load(match.track.name, match.spec.id, b, deals, match.plan.seating.shape)
            if kept is None:
                pending.append((match, b))
            else:
                done[id(match)][b] = kept
    pending.sort(key=lambda job: job[0].spec.block)  # the slow matches have the small blocks: first
    games = {id(m): m.plan.seating.shape[0] for m in matches}
    total = sum(m.plan.deals * games[id(m)] for m in matches)
    left = sum(len(m.plan.block_deals(b)) * games[id(m)] for m, b in pending)
    bar = _progress_bar(progress, total, total - left, f"hearts-bench {name}")

    kept = "" if folder is None else f"; the blocks finished are kept in {folder.path}: the same command resumes"

    def keep(match: _Match, b: int, outcome: BlockOutcome | None, timing: Timing, error: str | None) -> None:
        if error is not None:
            raise BenchError(f"{name}: {match.where(b, split)}: {error}{kept}")
        done[id(match)][b] = (outcome, timing)
        if folder is not None:
            folder.save(match.track.name, match.spec.id, b, outcome, timing)

    own = None
    if workers is not None and workers > 1:
        _check_picklable(matches, name)
        executor = own = concurrent.futures.ProcessPoolExecutor(workers)
    try:
        if executor is None:
            for match, b in pending:
                if bar is not None:
                    bar.set_postfix_str(f"{match.track.name} {match.spec.id}")
                keep(match, b, *_play_job((match.plan, b), bar))
        else:
            if own is None:
                _check_picklable(matches, name)
            results = executor.map(_play_job, [(m.plan, b) for m, b in pending])
            finished = 0
            try:
                for (match, b), (outcome, timing, error) in zip(pending, results, strict=True):
                    keep(match, b, outcome, timing, error)
                    finished += 1
                    if bar is not None:
                        bar.update(len(match.plan.block_deals(b)) * games[id(match)])
            except concurrent.futures.process.BrokenProcessPool:  # a worker ended: os._exit, a crash, no memory
                match, b = pending[finished]
                raise BenchError(
                    f"{name}: {match.where(b, split)}: a worker process died while the candidate or its opponents "
                    f"played (the candidate, or an agent it plays with, ended the process){kept}"
                ) from None
    finally:
        if own is not None:
            own.shutdown(wait=False, cancel_futures=True)  # the futures are done, or the run failed
        if bar is not None:
            bar.close()
    return done, len(pending)


def _check_picklable(matches: list[_Match], name: str) -> None:
    try:
        pickle.dumps(matches[0].plan)
    except Exception as error:  # noqa: BLE001  (pickling a user's object can fail in many ways)
        raise BenchError(
            f"candidate {name!r} cannot be sent to other processes ({type(error).__name__}: {error}): "
            "run it without --workers/--ray, or make its policy picklable"
        ) from None


def _progress_bar(enabled: bool, total: int, initial: int, desc: str) -> Any:
    return progress_bar(total, desc, "game", initial=initial) if enabled else None


# ---------------------------------------------------------------------------------------------
# The report's parts


def _track_entry(
    track: Track, matches: list[dict[str, Any]], skipped: dict[str, str], players: dict[str, Any]
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "description": track.description,
        "episode": track.episode,
        "status": "played" if matches else "skipped",
        "skipped": skipped,
        "candidate_fingerprint": players[track.name]["candidate_fingerprint"] if matches else None,
        "matches": matches,
        "seconds": sum(m["seconds"] for m in matches),
        "cpu_seconds": sum(m["cpu_seconds"] for m in matches),
    }
    if matches:
        entry["mean"] = reports.track_mean(matches, track.episode)
    return entry


def _manifest(
    suite: Suite,
    split: str,
    tracks: list[Track],
    identities: dict[str, dict[str, str | None]],
    commit: str | None,
    started: datetime,
    wall: float,
    workers: int | None,
    executor: Executor | None,
    command: str | None,
) -> dict[str, Any]:
    record = suite.record or {}
    return {
        "deals": {
            f"{t.name}/{table}": record.get("deals", {}).get(split, {}).get(f"{t.name}/{table}")
            for t in tracks
            for table in t.tables
        },
        "pool": {n: {"spec": suite.pool[n].spec, **identities[n]} for n in identities},
        "hearts_env": hearts_env.__version__,
        "git_commit": commit,
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "numba": _version("numba"),
        "torch": _version("torch"),
        "platform": platform.platform(),
        "cpu": _cpu(),
        "started": started.isoformat(timespec="seconds"),
        "wall_seconds": time.perf_counter() - wall,
        "workers": workers if executor is None else type(executor).__name__,
        "command": command,
    }


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _git_commit() -> str | None:
    """The commit of the checkout the package runs from (``+dirty`` with changes to tracked files), or None."""
    where = Path(hearts_env.__file__).parent
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True, timeout=10)
        if commit.returncode:
            return None
        status = ["git", "status", "--porcelain", "--untracked-files=no"]
        dirty = subprocess.run(status, cwd=where, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return commit.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _write_outputs(folder: RunFolder, report: dict[str, Any]) -> None:
    folder.write("report.json", reports.dumps(report).encode())
    folder.write("report.txt", (reports.format_report(report) + "\n").encode())
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("hearts-bench: note: no plots without matplotlib (pip install matplotlib)", file=sys.stderr)
        return
    for name, track in report["tracks"].items():
        if track["status"] == "played":
            path = folder.path / "plots" / f"{name}.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            reports.plot_track(report, name, path)
