"""Environments refuse a bad seed naming it, and a step (or reset) happens wholly or not at all: a
refused reset seed or an opponent that raises mid-step leaves the environment as it was."""

from __future__ import annotations

import numpy as np
import pytest

import hearts_env
from hearts_env import HeartsEnv, HeartsVectorEnv
from hearts_env.engine import seeding
from hearts_env.play.policy import RandomPolicy


def core_state(env) -> np.ndarray:
    """The bytes of an environment's core state (the AEC env keeps it under ``_state``)."""
    return (env.unwrapped._state if hasattr(env.unwrapped, "_state") else env.state).data.copy()


@pytest.mark.parametrize("make", [lambda: HeartsEnv(), lambda: HeartsVectorEnv(2), lambda: hearts_env.env()])
def test_a_refused_reset_seed_leaves_the_env_as_it_was(make) -> None:
    env = make()
    env.reset(seed=3)
    before = core_state(env)
    for seed in ("3", 1.5, True, -2):
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=seed)
    np.testing.assert_array_equal(core_state(env), before)
    env.reset()  # a plain reset goes on with the good seed's games
    other = make()
    other.reset(seed=3)
    other.reset()
    np.testing.assert_array_equal(core_state(env), core_state(other))


def test_vector_seeds_name_the_game_and_big_seeds_wrap() -> None:
    env = HeartsVectorEnv(2)
    with pytest.raises(ValueError, match=r"seed\[1\] must be an int >= 0"):
        env.reset(seed=[0, 1.5])
    env.reset(seed=2**64 + 7)
    wrapped = env.state.data.copy()
    env.reset(seed=7)
    np.testing.assert_array_equal(env.state.data, wrapped)  # 2**64 + s is s
    assert seeding.check_seed(2**70 + 1) == 1


# ---------------------------------------------------------------------------------------------
# A step happens wholly or not at all


class Failing:
    """An opponent that plays randomly, then raises ``error`` on its ``after``-th call."""

    def __init__(self, error: BaseException, after: int) -> None:
        self.error, self.after, self.random = error, after, RandomPolicy(0)

    def __call__(self, info, mask):
        self.after -= 1
        if self.after < 0:
            raise self.error
        return self.random(info, mask)


@pytest.mark.parametrize("error", [RuntimeError("search crashed"), KeyboardInterrupt()])
@pytest.mark.parametrize("vector", [False, True])
def test_an_opponent_that_raises_mid_step_leaves_the_env_as_it_was(error, vector, step_at_random) -> None:
    failing = Failing(error, after=30)
    env = HeartsVectorEnv(3, opponents=failing) if vector else HeartsEnv(opponents=failing)
    env.reset(seed=1)
    before: list = []
    with pytest.raises(type(error)):
        step_at_random(env, vector, 200, before)
    np.testing.assert_array_equal(env.state.data, before[0])
    np.testing.assert_array_equal(env.action_masks(), before[1])
    np.testing.assert_array_equal(env._tables.pending, before[3])
    assert (env.state.to_play == env._tables.seat).all()  # the learner is to act, not an opponent
    failing.after = 10**9  # the opponent recovers: the env plays on from where it was
    masks = np.atleast_2d(env.action_masks())
    env.step(masks.argmax(axis=1) if vector else int(masks[0].argmax()))


@pytest.mark.parametrize("make", ["aec", "gym", "vector", "torchrl_multi", "torchrl_learner"])
def test_a_keyword_that_is_no_argument_nor_knob_is_named(make: str) -> None:
    """Every environment takes its rules knobs as keywords: any other keyword is refused by name,
    as a ValueError, not Python's TypeError from the rules' constructor."""
    from hearts_env import aec, gym_env

    makers = {"aec": aec.raw_env, "gym": gym_env.HeartsEnv, "vector": lambda **k: gym_env.HeartsVectorEnv(2, **k)}
    if make.startswith("torchrl"):
        torchrl = pytest.importorskip("hearts_env.torchrl")
        makers |= {"torchrl_multi": lambda **k: torchrl.HeartsMultiAgentEnv(2, **k)}
        makers |= {"torchrl_learner": lambda **k: torchrl.HeartsLearnerEnv(2, **k)}
    with pytest.raises(ValueError, match="^colour: neither an argument of this environment nor a rules knob"):
        makers[make](colour=1)
    with pytest.raises(ValueError, match="num_players must be"):
        makers[make](num_players=2)
