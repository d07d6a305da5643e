"""Helpers shared by the information-set and observation tests."""

import numpy as np

from hearts_env import HeartsRules
from hearts_env.core import State, new_games, sample_actions, step

OFFSETS = {"left": 1, "across": 2, "none": 0}  # "right" is P - 1


def pass_offset(rules: HeartsRules, hand_number: int) -> int:
    """The receiver offset of a hand's pass, worked out from the directions of docs/rules.md."""
    direction = rules.pass_direction(int(hand_number))
    return rules.num_players - 1 if direction == "right" else OFFSETS[direction]


def random_states(rules: HeartsRules, batch: int, seed: int, history: bool, steps: int, keep: float) -> list[State]:
    """States of ``batch`` random games, kept with probability ``keep`` after each step."""
    rng = np.random.default_rng(seed)
    state = new_games(rules, batch_size=batch, seed=seed, history=history)
    kept = [state]
    for _ in range(steps):
        state = step(state, sample_actions(state, rng))
        if rng.random() < keep:
            kept.append(state)
    return kept
