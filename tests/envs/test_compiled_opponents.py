"""``LearnerTables`` plays compiled opponents (the heuristic) in one compiled loop
(``TablePolicy.play_to_seat``): the same games as the runner's batched steps, in every reward mode
and episode length, one deck and two, with and without the history."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from hearts_env.agents import make_agent
from hearts_env.envs.gym_env import HeartsVectorEnv


def _play(
    compiled: bool, reward: str, episode: str, table: dict[str, Any], steps: int = 120
) -> list[tuple[np.ndarray, ...]]:
    env = HeartsVectorEnv(
        16,
        opponents=make_agent("heuristic"),
        reward=reward,
        episode=episode,
        learner_seat="rotate",
        **table,
    )
    assert env._tables._table is not None  # the heuristic offers the compiled loop
    if not compiled:
        env._tables._table = None  # the runner's path
    env.reset(seed=3)
    rng, seen = np.random.default_rng(0), []
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in env.action_masks()])
        obs, rewards, terminated, _, _ = env.step(actions)
        seen.append((obs.copy(), rewards.copy(), terminated.copy()))
    return seen


@pytest.mark.parametrize("table", [{}, {"num_players": 3, "history": True}, {"num_players": 6, "decks": 2}])
@pytest.mark.parametrize("episode", ["game", "hand"])
@pytest.mark.parametrize("reward", ["points", "hand", "zero_sum", "win"])
def test_compiled_opponents_play_the_runners_games(reward: str, episode: str, table: dict[str, Any]) -> None:
    compiled, runner = _play(True, reward, episode, table), _play(False, reward, episode, table)
    assert sum(int(t.sum()) for _, _, t in compiled) > 0  # episodes ended on the way
    for got, expected in zip(compiled, runner, strict=True):
        for a, b in zip(got, expected, strict=True):
            np.testing.assert_array_equal(a, b)
