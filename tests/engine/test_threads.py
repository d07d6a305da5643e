"""``core.use_threads``: the threaded step kernel plays exactly as the one-thread kernel."""

from __future__ import annotations

import numpy as np
import pytest

from hearts_env import HeartsRules
from hearts_env.engine import core


def test_threaded_steps_equal_single_thread_steps() -> None:
    rules = HeartsRules(num_players=5, target_score=60)
    start = core.new_games(rules, batch_size=600, seed=3)
    runs = []
    for threads in (1, 2):
        core.use_threads(threads, min_batch=1)
        try:
            rng, state = np.random.default_rng(0), start
            for _ in range(400):
                state = core.step(state, core.sample_actions(state, rng))
        finally:
            core.use_threads(1)
        runs.append(state)
    np.testing.assert_array_equal(runs[0].data, runs[1].data)
    assert runs[0].hand_number.max() > 1  # whole hands were played, new deals dealt


def test_threaded_step_refuses_an_illegal_card_and_changes_nothing() -> None:
    state = core.new_games(HeartsRules(), batch_size=300, seed=1)
    before = state.data.copy()
    actions = core.sample_actions(state, np.random.default_rng(0))
    actions[123] = int(np.flatnonzero(~core.legal_mask(state)[123])[0])
    core.use_threads(2, min_batch=1)
    try:
        with pytest.raises(ValueError, match="game 123"):
            core.step_in_place(state, actions)
    finally:
        core.use_threads(1)
    np.testing.assert_array_equal(state.data, before)


@pytest.mark.parametrize("threads", [0, -1, 1.5, True])
def test_bad_thread_counts(threads) -> None:
    with pytest.raises(ValueError, match="threads"):
        core.use_threads(threads)
