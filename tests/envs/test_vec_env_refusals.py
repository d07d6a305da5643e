"""Refusals of the SB3 vector envs (``hearts_env.envs.sb3``, ``hearts_env.envs.sharded``): a step
of the sharded tables is all or nothing (a bad card or a wrong-length batch in any shard leaves
every shard unstepped, and the env goes on), ``step_wait`` without ``step_async`` is a named
error, and a second ``close()`` has nothing to do."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from hearts_env.engine.core import IllegalMoveError  # noqa: E402
from hearts_env.envs.gym_env import HeartsVectorEnv  # noqa: E402
from hearts_env.envs.sb3 import SB3VecEnv  # noqa: E402
from hearts_env.envs.sharded import ShardedVecEnv  # noqa: E402
from hearts_env.play.policy import RandomPolicy  # noqa: E402


def tables(num_envs: int) -> HeartsVectorEnv:
    return HeartsVectorEnv(num_envs, opponents=RandomPolicy(seed=0), learner_seat="rotate", episode="hand")


def legal_actions(env, rng: np.random.Generator) -> np.ndarray:
    masks = env.action_masks()
    return (rng.random(masks.shape) * masks).argmax(axis=1)


def snapshot(env: ShardedVecEnv) -> list[bytes]:
    """Every shard's core state and learner seats (what a step changes)."""
    return [shard.env.env.state.data.tobytes() + shard.env.env.learner_seats.tobytes() for shard in env._shards.objects]


@pytest.fixture
def sharded():
    env = ShardedVecEnv(tables, num_envs=7, shards=3)  # games 0-2, 3-4, 5-6
    env.seed(0)
    env.reset()
    yield env
    env.close()


def test_an_illegal_card_in_a_later_shard_leaves_every_shard_unstepped(sharded):
    rng = np.random.default_rng(1)
    before, masks = snapshot(sharded), sharded.action_masks().copy()
    actions = legal_actions(sharded, rng)
    actions[5] = int(np.flatnonzero(~masks[5])[0])  # a card its learner may not play, in the last shard
    with pytest.raises(IllegalMoveError, match=r"^game 5: .* is illegal") as error:
        sharded.step(actions)
    assert error.value.game == 5
    assert snapshot(sharded) == before and np.array_equal(sharded.action_masks(), masks)
    actions[5] = int(np.flatnonzero(masks[5])[0])
    for bad in (52, -1):
        actions[6] = bad
        with pytest.raises(ValueError, match=rf"^game 6: action {bad} is not a card id"):
            sharded.step(actions)
        assert snapshot(sharded) == before
    obs, rewards, dones, infos = sharded.step(legal_actions(sharded, rng))  # the env goes on
    assert len(obs) == len(rewards) == len(infos) == 7 and snapshot(sharded) != before


@pytest.mark.parametrize(
    "actions",
    [np.zeros(6, np.int64), np.zeros(8, np.int64), np.zeros(7), np.full(7, np.nan), [[0], [0, 1]] + [[0]] * 5, None],
)
def test_a_wrong_batch_of_actions_is_refused_before_any_shard_steps(sharded, actions):
    before = snapshot(sharded)
    with pytest.raises(ValueError, match=r"^actions must be integer card ids of shape \(7,\), got "):
        sharded.step(actions)
    assert snapshot(sharded) == before
    sharded.step(legal_actions(sharded, np.random.default_rng(2)))


def test_the_sharded_env_and_one_vector_env_refuse_alike():
    """The shards check their cards with the one vector env's check: the same error, the games
    counted across the shards."""
    one, sharded = SB3VecEnv(tables(7)), ShardedVecEnv(tables, num_envs=7, shards=3)
    for env in (one, sharded):
        env.seed(4)
        env.reset()
    masks = one.action_masks()
    assert np.array_equal(masks, sharded.action_masks())
    actions = legal_actions(one, np.random.default_rng(3))
    actions[4] = int(np.flatnonzero(~masks[4])[0])
    messages = []
    for env in (one, sharded):
        with pytest.raises(IllegalMoveError) as error:
            env.step(actions)
        messages.append(str(error.value))
    assert messages[0] == messages[1] and messages[0].startswith("game 4: ")
    sharded.close()


def test_step_wait_without_step_async_is_a_named_error(sharded):
    one = SB3VecEnv(tables(2))
    one.reset()
    for env in (one, sharded):
        with pytest.raises(RuntimeError, match=r"step_wait\(\) needs the actions of step_async\(actions\) first"):
            env.step_wait()
    one.step_async(legal_actions(one, np.random.default_rng(5)))
    one.step_wait()
    with pytest.raises(RuntimeError, match="step_async"):  # the actions are taken once
        one.step_wait()


def test_a_second_close_has_nothing_to_do():
    env = ShardedVecEnv(tables, num_envs=4, shards=2)
    env.reset()
    env.close()
    env.close()
    with pytest.raises(RuntimeError, match="the ShardedVecEnv is closed"):
        env.reset()


def test_shards_made_before_one_that_fails_are_closed():
    made = []

    def make(num_envs: int) -> HeartsVectorEnv:
        if made:
            raise ValueError("the second shard's tables are refused")
        made.append(tables(num_envs))
        return made[-1]

    with pytest.raises(ValueError, match="the second shard's tables are refused"):
        ShardedVecEnv(partial(make), num_envs=4, shards=2)
    assert len(made) == 1 and made[0].closed
