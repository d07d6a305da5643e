"""Rewards, one knob shared by every environment.

- ``points`` (default): minus the points of each trick as it is taken, plus a correction at hand
  end for the moon, so that a hand's rewards sum to minus its score;
- ``hand``: minus the hand's score, at hand end;
- ``zero_sum``: at hand end, the mean of the other seats' hand scores minus one's own;
- ``win``: at game end, 1 for a win (1/k each for a k-way tie), else 0.

``step_rewards(before, after, mode)`` gives what one step paid each seat; an environment hands
each agent the sum of what built up since its own last move.
"""

from __future__ import annotations

import numpy as np

from hearts_env.core import State

REWARD_MODES = ("points", "hand", "zero_sum", "win")


def check_reward_mode(mode: str) -> str:
    if mode not in REWARD_MODES:
        raise ValueError(f"reward must be one of {', '.join(REWARD_MODES)}; got {mode!r}")
    return mode


def step_rewards(before: State, after: State, mode: str) -> np.ndarray:
    """(B, P) float32: what the step from ``before`` to ``after`` paid each seat."""
    hand_over = after.hand_over[:, None]
    P = after.num_players
    if mode == "points":
        paid = before.hand_points  # tricks already rewarded this hand
        owed = np.where(hand_over, after.last_hand_points, after.hand_points)
        rewards = -(owed - paid)
    elif mode == "hand":
        rewards = np.where(hand_over, -after.last_hand_points, 0)
    elif mode == "zero_sum":
        score = after.last_hand_points
        others = (score.sum(axis=1, keepdims=True) - score) / (P - 1)
        rewards = np.where(hand_over, others - score, 0)
    elif mode == "win":
        share = after.winners / np.maximum(after.winners.sum(axis=1, keepdims=True), 1)
        rewards = np.where(after.done[:, None], share, 0)
    else:
        check_reward_mode(mode)
    # Games that were already over when the step began pay nothing.
    return np.where(before.done[:, None], 0, rewards).astype(np.float32)
