"""``sample_actions``: uniform over the legal cards, for one game and batches."""

import numpy as np
import pytest

from hearts_env import HeartsRules
from hearts_env.engine.core import legal_mask, new_games, sample_actions, step


@pytest.mark.parametrize("batch_size", [1, 16, 64])
def test_sample_actions_is_uniform_over_legal_cards(batch_size: int) -> None:
    rng = np.random.default_rng(0)
    state = new_games(HeartsRules(num_players=5), batch_size=batch_size, seed=1)
    for _ in range(20):  # into the play phase, where legal sets vary in size
        state = step(state, sample_actions(state, rng))
    mask = legal_mask(state)
    draws = 4000
    counts = np.zeros(mask.shape)
    for _ in range(draws):
        counts[np.arange(batch_size), sample_actions(state, rng)] += 1
    assert counts[~mask].sum() == 0
    expected = draws / mask.sum(axis=1, keepdims=True)
    # Each count is binomial; 5 standard deviations bounds all cells with room to spare.
    sigma = np.sqrt(expected * (1 - 1 / mask.sum(axis=1, keepdims=True)))
    assert np.all(np.abs(counts - expected)[mask] <= (5 * sigma + 1e-9).repeat(52, axis=1)[mask])
