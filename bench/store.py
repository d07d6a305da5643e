"""A run's output folder: its identity, every finished block, the report and its plots.

    DIR/run.json                          what the run is (suite version, split, setting, candidate)
    DIR/blocks/TRACK/players.json         who played the track's blocks: decision fingerprints
    DIR/blocks/TRACK/MATCH/BLOCK.npz      a finished block's outcome, the wall and CPU seconds it took
    DIR/report.json, DIR/report.txt       the report and its table
    DIR/plots/TRACK.png                   a plot per played track

A block is written (to a temporary name, then renamed) as soon as it is played, so an interrupted
run keeps every finished block, and the same command resumes: blocks on disk are not played again,
unless they cannot be read as the block (damaged in any way: then they are played again).
A folder of another run (another suite version, split, setting, candidate or weights) is refused,
and so are a track's blocks played by agents (the candidate or a pool member) that decide
otherwise than now, so results of different agents are never mixed; a run of other tracks may
share the folder (``--tracks``); ``restart`` empties the folder's blocks first.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from hearts_env.arena import BlockOutcome
from hearts_env.bench.suite import BenchError

IDENTITY_FILE = "run.json"
CLAIM_FILE = "players.json"


class RunFolder:
    """The output folder of one run (see the module docstring)."""

    def __init__(self, path: str | Path, identity: dict[str, Any], restart: bool = False) -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise BenchError(f"--out {self.path} is a file, not a folder")
        known = self.path / IDENTITY_FILE
        if restart and (self.path / "blocks").is_dir():
            try:
                shutil.rmtree(self.path / "blocks")
            except OSError as error:
                raise BenchError(f"--restart: cannot empty {self.path / 'blocks'}: {error.strerror or error}") from None
        if known.is_file() and not restart:
            try:
                previous = json.loads(known.read_text())
            except (OSError, ValueError, RecursionError):  # damaged: taken for another run's
                previous = {}
            if previous != identity:
                raise BenchError(
                    f"{self.path} holds blocks of another run ({_difference(previous, identity)}): give another "
                    "--out, or --restart to discard them"
                )
        _write(known, (json.dumps(identity, indent=2) + "\n").encode())

    def claim(self, track: str, players: dict[str, Any]) -> None:
        """Record who plays ``track``'s blocks (the candidate's and the pool's decision fingerprints
        there), or ``BenchError`` if its blocks on disk were played by agents that decide otherwise."""
        path = self.path / "blocks" / track / CLAIM_FILE
        if path.is_file():
            try:
                previous = json.loads(path.read_text())
            except (OSError, ValueError, RecursionError):  # damaged: taken for another run's
                previous = None
            if previous != players and any((self.path / "blocks" / track).rglob("*.npz")):
                raise BenchError(
                    f"{self.path}: the {track} blocks there were played by agents that decide otherwise than now "
                    f"({_difference(previous, players)}): give another --out, or --restart to discard them"
                )
        _write(path, (json.dumps(players, indent=2) + "\n").encode())

    def _block(self, track: str, match: str, block: int) -> Path:
        return self.path / "blocks" / track / match / f"{block:05d}.npz"

    def load(
        self, track: str, match: str, block: int, deals: int, seating: tuple[int, int]
    ) -> tuple[BlockOutcome, tuple[float, float]] | None:
        """A finished block's outcome and (wall, CPU) seconds, or None: not played, or unreadable in
        any way (truncated, empty, a folder in its place, arrays not of its ``deals`` x ``seating``
        (rotations, seats) shape), so it is played again."""
        path = self._block(track, match, block)
        if not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as arrays:
                outcome = BlockOutcome(**{f.name: arrays[f.name] for f in fields(BlockOutcome)})
                timing = (float(arrays["seconds"]), float(arrays["cpu_seconds"]))
        except Exception:  # noqa: BLE001  (a damaged file fails in numpy and zipfile in many ways: play it again)
            return None
        return (outcome, timing) if _whole(outcome, timing, deals, seating) else None

    def save(self, track: str, match: str, block: int, outcome: BlockOutcome, timing: tuple[float, float]) -> None:
        """Keep a played block (replacing whatever damaged thing has its name); ``BenchError`` if it
        cannot be written."""
        path = self._block(track, match, block)
        temporary = path.with_suffix(".tmp.npz")
        arrays = {f.name: getattr(outcome, f.name) for f in fields(BlockOutcome)}
        try:
            if path.is_dir() and not path.is_symlink():  # a folder where the block goes: damage, replaced
                shutil.rmtree(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(temporary, seconds=timing[0], cpu_seconds=timing[1], **arrays)
            os.replace(temporary, path)
        except OSError as error:
            raise BenchError(f"cannot keep a block in {path.parent}: {error.strerror or error}") from None

    def write(self, name: str, data: bytes) -> Path:
        """Write ``DIR/name`` (atomically); returns its path."""
        path = self.path / name
        _write(path, data)
        return path


def _write(path: Path, data: bytes) -> None:
    """Write ``path`` atomically; ``BenchError`` naming it if it cannot be (a folder in its place, no space)."""
    temporary = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(data)
        os.replace(temporary, path)
    except OSError as error:
        raise BenchError(f"cannot write {path}: {error.strerror or error}") from None


def _whole(outcome: BlockOutcome, timing: tuple[float, float], deals: int, seating: tuple[int, int]) -> bool:
    """Whether a loaded block holds what a block of ``deals`` deals at ``seating`` (rotations, seats)
    does: every array of its shape and kind, at least one hand a game, finite timings."""
    shape = (deals, *seating)
    arrays = [(outcome.hands, shape[:2], "iu")] + [(outcome.wins, shape, "f")]
    arrays += [(a, shape, "iu") for a in (outcome.scores, outcome.qs, outcome.moons)]
    return (
        all(a.shape == s and a.dtype.kind in kinds for a, s, kinds in arrays)
        and bool((outcome.hands >= 1).all())
        and all(np.isfinite(t) and t >= 0 for t in timing)
    )


def _difference(there: Any, now: Any, where: str = "") -> str:
    """The first entry in which two JSON values differ, as ``key: THERE there, NOW now``."""
    if isinstance(there, dict) and isinstance(now, dict):
        for key in sorted(set(there) | set(now)):
            if there.get(key) != now.get(key):
                return _difference(there.get(key), now.get(key), f"{where}{key}.")
    return f"{where.rstrip('.') or 'content'}: {_short(there)} there, {_short(now)} now"


def _short(value: Any) -> str:
    try:
        text = json.dumps(value, sort_keys=True)
    except RecursionError:  # a damaged file's content, too deep to show
        return "(nested too deeply)"
    return text if len(text) <= 60 else text[:57] + "..."
