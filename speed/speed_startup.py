"""Start-up: the first PettingZoo game in a new process, and the first
``hearts-arena ppo heuristic heuristic heuristic --deals 10``, with the kernels compiled afresh
(cold: an empty cache folder) and then loaded from that cache (warm).

Each run is a separate Python process whose ``XDG_CACHE_HOME`` points at one temporary folder
(``NUMBA_CACHE_DIR`` unset), so the first compiles every kernel the game reaches (core,
observation, reward) and the second finds them cached; anything the processes print is shown.

    python speed/speed_startup.py
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

GAME = """
import time
start = time.perf_counter()
import numpy as np
from hearts_env.envs.aec import env
imported = time.perf_counter()
table = env()
table.reset(seed=0)
rng = np.random.default_rng(0)
for _agent in table.agent_iter():
    observation, _reward, termination, truncation, _info = table.last()
    if termination or truncation:
        table.step(None)
        continue
    legal = np.flatnonzero(observation["action_mask"])
    table.step(int(legal[rng.integers(len(legal))]))
print(imported - start, time.perf_counter() - imported)
"""


def first_game(cache: str) -> tuple[float, float, str]:
    """(import seconds, first-game seconds, whatever else the process printed)."""
    done = subprocess.run(
        [sys.executable, "-c", GAME],
        env={k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"XDG_CACHE_HOME": cache},
        capture_output=True,
        text=True,
        check=True,
    )
    *other, last = done.stdout.strip().splitlines()
    imported, game = (float(x) for x in last.split())
    return imported, game, "\n".join(other) + done.stderr


ARENA = ["ppo", "heuristic", "heuristic", "heuristic", "--deals", "10", "--no-progress"]


def first_arena(cache: str) -> float:
    """Seconds of the whole ``hearts-arena`` command in a new process."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "hearts_env.agents.cli", *ARENA],
        env={k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"XDG_CACHE_HOME": cache},
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as cache:
        for name in ("cold", "warm"):
            imported, game, printed = first_game(cache)
            print(f"{name}: import {imported:.1f} s, first game {game:.1f} s")
            if printed.strip():
                print(f"  it printed:\n{printed}")
    with tempfile.TemporaryDirectory() as cache:
        for name in ("cold", "warm"):
            print(f"{name}: hearts-arena {' '.join(ARENA[:6])} {first_arena(cache):.1f} s")


if __name__ == "__main__":
    main()
