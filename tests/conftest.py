"""Fixtures shared by the test modules."""

from __future__ import annotations

from pathlib import Path

import pytest

from hearts_env import replay
from hearts_env.arena import play_match
from hearts_env.policy import RandomPolicy
from hearts_env.rules import HeartsRules


@pytest.fixture(scope="session")
def recorded_match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A replay file: 2 deals x 4 rotations of random players, whole games to 30 (a few hands each)."""
    field = RandomPolicy(seed=1)
    agents = [("random-a", RandomPolicy(seed=0)), ("random-b", field), ("random-b", field), ("random-b", field)]
    result = play_match(HeartsRules(target_score=30), agents, deals=2, seed=3, record=True)
    path = tmp_path_factory.mktemp("replays") / "games.jsonl"
    replay.save(path, [result])
    return path
