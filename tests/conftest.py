"""Fixtures shared by the test modules."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):
    # The test processes share the cores: torch's thread pool (a thread per core in each process,
    # the notebooks' kernels included) would have them wait on each other.
    os.environ.setdefault("OMP_NUM_THREADS", "1")

from hearts_env.arena import play_match
from hearts_env.bench.suite import freeze
from hearts_env.engine.rules import HeartsRules
from hearts_env.play import replay
from hearts_env.play.policy import RandomPolicy


@pytest.fixture(scope="session", autouse=True)
def sb3_log_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """SB3's ``learn`` on a model without a logger of ours (the tests that train SB3's own models)
    makes a folder in the system's temp for every call unless ``SB3_LOGDIR`` names one."""
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3"))


@pytest.fixture(scope="session")
def recorded_match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A replay file: 2 deals x 4 rotations of random players, whole games to 30 (a few hands each)."""
    field = RandomPolicy(seed=1)
    agents = [("random-a", RandomPolicy(seed=0)), ("random-b", field), ("random-b", field), ("random-b", field)]
    result = play_match(HeartsRules(target_score=30), agents, deals=2, seed=3, record=True)
    path = tmp_path_factory.mktemp("replays") / "games.jsonl"
    replay.save(path, [result])
    return path


TINY = {
    "version": "tiny",
    "description": "a small suite for the tests",
    "splits": ["dev", "test"],
    "agent_seed": 0,
    "quick_fraction": 2,
    "pool": {
        "random": {"spec": "random", "fingerprint_games": 2},
        "simple": {"spec": "simple", "fingerprint_games": 2},
        "heuristic": {"spec": "heuristic", "fingerprint_games": 2},
    },
    "tracks": {
        "standard": {
            "description": "single hands against three copies of each member",
            "episode": "hand",
            "tables": {"standard": {"rules": {}, "deal_seed": 1, "deals": 12}},
            "matches": [
                {"id": n, "table": "standard", "seats": ["candidate", n, n, n], "deals": d, "block": b}
                for n, d, b in (("random", 12, 5), ("simple", 8, 8), ("heuristic", 12, 3))
            ],
        },
        "games": {
            "description": "whole games to 50",
            "episode": "game",
            "tables": {"standard": {"rules": {"target_score": 50}, "deal_seed": 2, "deals": 4}},
            "matches": [
                {
                    "id": "heuristic",
                    "table": "standard",
                    "seats": ["candidate"] + ["heuristic"] * 3,
                    "deals": 4,
                    "block": 2,
                }
            ],
        },
        "variants": {
            "description": "three players",
            "episode": "hand",
            "tables": {"3p": {"rules": {"num_players": 3}, "deal_seed": 3, "deals": 6}},
            "matches": [
                {"id": "3p", "table": "3p", "seats": ["candidate", "heuristic", "random"], "deals": 6, "block": 6}
            ],
        },
    },
    "record": None,
}


@pytest.fixture(scope="session")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny hearts-bench suite of the same form as v1 (a few deals, fast agents), frozen."""
    path = tmp_path_factory.mktemp("suite") / "tiny.json"
    path.write_text(json.dumps(TINY))
    freeze(path)
    return path


@pytest.fixture(scope="module")
def local_ray():
    """A Ray of 2 CPUs started here for a module's tests (skipped where Ray is not installed), shut down after."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()
