"""A run's output folder: its identity, every finished block, the report and its plots.

    DIR/run.json                          what the run is (suite, split, setting, candidate, pool)
    DIR/blocks/TRACK/MATCH/BLOCK.npz      a finished block's outcome, the wall and CPU seconds it took
    DIR/report.json, DIR/report.txt       the report and its table
    DIR/plots/TRACK.png                   a plot per played track

A block is written (to a temporary name, then renamed) as soon as it is played, so an interrupted
run keeps every finished block, and the same command resumes: blocks on disk are not played again.
A folder of another run (another candidate, weights, split, setting or pool) is refused, so results
of different agents are never mixed; ``restart`` empties the folder's blocks first.
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
            for key in sorted(set(previous) | set(identity)):
                if previous.get(key) != identity.get(key):
                    raise BenchError(
                        f"{self.path} holds blocks of another run ({key}: {_short(previous.get(key))} there, "
                        f"{_short(identity.get(key))} now): give another --out, or --restart to discard them"
                    )
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            _write(known, (json.dumps(identity, indent=2) + "\n").encode())
        except OSError as error:
            raise BenchError(f"cannot write the run folder {self.path}: {error}") from None

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


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."
