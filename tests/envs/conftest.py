"""What the environments' tests share."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest


@pytest.fixture
def step_at_random() -> Callable[..., None]:
    """``run(env, vector, steps, before)``: step ``env`` (a ``HeartsVectorEnv`` if ``vector``)
    ``steps`` times with random legal cards, keeping in ``before`` the state's data, the masks, the
    learners' seats and their pending rewards as they were before each step: what a step that
    raised must have left."""

    def run(env, vector: bool, steps: int, before: list) -> None:
        rng = np.random.default_rng(0)
        for _ in range(steps):
            tables = env._tables
            before[:] = [env.state.data.copy(), np.copy(env.action_masks()), tables.seat.copy(), tables.pending.copy()]
            masks = np.atleast_2d(env.action_masks())
            actions = (rng.random(masks.shape) * masks).argmax(axis=1)
            env.step(actions if vector else actions[0])

    return run
