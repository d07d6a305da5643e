"""A run's output folder: its identity, every finished block, the report and its plots.

    DIR/run.json                          what the run is (suite version, split, setting, candidate)
    DIR/blocks/TRACK/players.json         who played the track's blocks: decision fingerprints
    DIR/blocks/TRACK/MATCH/BLOCK.npz      a finished block's outcome, the wall and CPU seconds it took
    DIR/report.json, DIR/report.txt       the report and its table
    DIR/plots/TRACK.png                   a plot per played track

A block is written (to a temporary name, then renamed) as soon as it is played, so an interrupted
run keeps every finished block, and the same command resumes: blocks on disk are not played again.
A folder of another run (another suite version, split, setting, candidate or weights) is refused,
and so are a track's blocks played by agents (the candidate or a pool member) that decide
otherwise than now, so results of different agents are never mixed; a run of other tracks may
share the folder (``--tracks``); ``restart`` empties the folder's blocks first.
"""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from hearts_env.agents.bench.suite import BenchError
from hearts_env.arena import BlockOutcome

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
            shutil.rmtree(self.path / "blocks")
        if known.is_file() and not restart:
            try:
                previous = json.loads(known.read_text())
            except ValueError:
                previous = {}
            if previous != identity:
                raise BenchError(
                    f"{self.path} holds blocks of another run ({_difference(previous, identity)}): give another "
                    "--out, or --restart to discard them"
                )
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            _write(known, (json.dumps(identity, indent=2) + "\n").encode())
        except OSError as error:
            raise BenchError(f"cannot write the run folder {self.path}: {error}") from None

    def claim(self, track: str, players: dict[str, Any]) -> None:
        """Record who plays ``track``'s blocks (the candidate's and the pool's decision fingerprints
        there), or ``BenchError`` if its blocks on disk were played by agents that decide otherwise."""
        path = self.path / "blocks" / track / CLAIM_FILE
        if path.is_file():
            try:
                previous = json.loads(path.read_text())
            except ValueError:
                previous = None
            if previous != players and any((self.path / "blocks" / track).rglob("*.npz")):
                raise BenchError(
                    f"{self.path}: the {track} blocks there were played by agents that decide otherwise than now "
                    f"({_difference(previous, players)}): give another --out, or --restart to discard them"
                )
        path.parent.mkdir(parents=True, exist_ok=True)
        _write(path, (json.dumps(players, indent=2) + "\n").encode())

    def _block(self, track: str, match: str, block: int) -> Path:
        return self.path / "blocks" / track / match / f"{block:05d}.npz"

    def load(self, track: str, match: str, block: int) -> tuple[BlockOutcome, tuple[float, float]] | None:
        """A finished block's outcome and (wall, CPU) seconds, or None (not played, or unreadable:
        played again)."""
        path = self._block(track, match, block)
        if not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as arrays:
                outcome = BlockOutcome(**{f.name: arrays[f.name] for f in fields(BlockOutcome)})
                return outcome, (float(arrays["seconds"]), float(arrays["cpu_seconds"]))
        except (OSError, KeyError, ValueError, zipfile.BadZipFile):
            return None

    def save(self, track: str, match: str, block: int, outcome: BlockOutcome, timing: tuple[float, float]) -> None:
        path = self._block(track, match, block)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp.npz")
        arrays = {f.name: getattr(outcome, f.name) for f in fields(BlockOutcome)}
        np.savez(temporary, seconds=timing[0], cpu_seconds=timing[1], **arrays)
        os.replace(temporary, path)

    def write(self, name: str, data: bytes) -> Path:
        """Write ``DIR/name`` (atomically); returns its path."""
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        _write(path, data)
        return path


def _write(path: Path, data: bytes) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def _difference(there: Any, now: Any, where: str = "") -> str:
    """The first entry in which two JSON values differ, as ``key: THERE there, NOW now``."""
    if isinstance(there, dict) and isinstance(now, dict):
        for key in sorted(set(there) | set(now)):
            if there.get(key) != now.get(key):
                return _difference(there.get(key), now.get(key), f"{where}{key}.")
    return f"{where.rstrip('.') or 'content'}: {_short(there)} there, {_short(now)} now"


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."
