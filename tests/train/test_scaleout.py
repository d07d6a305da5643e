"""Scale-out of the training collections.

* ``ShardedVecEnv`` (``hearts_env.envs.sharded``): K shards of the tables play the very games one
  ``SB3VecEnv`` of them plays (opponents that choose from what they see: the same observations,
  masks, rewards and final observations step by step); one shard is that env exactly, opponents
  that draw random numbers included; SB3's per-game methods answer for each game from its shard;
  bad shard counts are refused.
* On a local Ray of 2 CPUs (skipped where Ray is not installed): the exploitability trainer with
  the same shards trains the same best response with the shards on Ray actors as in this process;
  expert iteration's workers as Ray tasks collect the process pool's very demonstrations; more
  shards than Ray's CPUs are refused before any actor starts.
"""

from __future__ import annotations

import dataclasses
from functools import partial

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from hearts_env.agents import make_agent  # noqa: E402
from hearts_env.engine.rules import HeartsRules  # noqa: E402
from hearts_env.envs.gym_env import HeartsVectorEnv  # noqa: E402
from hearts_env.envs.sb3 import SB3VecEnv  # noqa: E402
from hearts_env.envs.sharded import ShardedVecEnv  # noqa: E402
from hearts_env.play.policy import RandomPolicy  # noqa: E402


def tables(opponents, num_envs: int) -> HeartsVectorEnv:
    return HeartsVectorEnv(num_envs, opponents=opponents, learner_seat="rotate", episode="hand", reward="zero_sum")


def assert_same_steps(a, b, seed: int, steps: int = 40) -> None:
    """Two SB3 vector envs seeded alike give the same batches under the same legal actions."""
    a.seed(seed), b.seed(seed)
    obs_a, obs_b = a.reset(), b.reset()
    rng = np.random.default_rng(seed)
    ended = 0
    for _ in range(steps):
        np.testing.assert_array_equal(obs_a, obs_b)
        masks = a.action_masks()
        np.testing.assert_array_equal(masks, b.action_masks())
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        (obs_a, rewards_a, dones_a, infos_a), (obs_b, rewards_b, dones_b, infos_b) = a.step(actions), b.step(actions)
        np.testing.assert_array_equal(rewards_a, rewards_b)
        np.testing.assert_array_equal(dones_a, dones_b)
        for i in np.flatnonzero(dones_a):
            np.testing.assert_array_equal(infos_a[i]["terminal_observation"], infos_b[i]["terminal_observation"])
        ended += dones_a.sum()
    assert ended > 0  # episodes ended and the next ones began


def test_shards_play_the_games_of_one_env() -> None:
    heuristic = make_agent("heuristic")
    sharded = ShardedVecEnv(partial(tables, heuristic), num_envs=7, shards=3)
    assert [len(games) for games in sharded.games] == [3, 2, 2]
    assert_same_steps(sharded, SB3VecEnv(tables(heuristic, 7)), seed=11)
    assert sharded.get_attr("num_envs") == [3, 3, 3, 2, 2, 2, 2] and sharded.get_attr("num_envs", [4]) == [2]
    assert sharded.has_attr("action_masks") and not sharded.has_attr("no_such_thing")
    np.testing.assert_array_equal(np.stack(sharded.env_method("action_masks")), sharded.action_masks())
    sharded.close()


def test_one_shard_is_the_one_env_random_opponents_included() -> None:
    opponents = RandomPolicy(seed=0)
    assert_same_steps(ShardedVecEnv(partial(tables, opponents), num_envs=5), SB3VecEnv(tables(opponents, 5)), seed=3)


def test_bad_shard_counts_are_refused() -> None:
    make = partial(tables, None)
    with pytest.raises(ValueError, match=r"shards must be at most num_envs \(4\)"):
        ShardedVecEnv(make, num_envs=4, shards=5)
    with pytest.raises(ValueError, match="shards"):
        ShardedVecEnv(make, num_envs=4, shards=0)


# ---------------------------------------------------------------------------------------------
# On Ray


def test_more_shards_than_rays_cpus_are_refused(local_ray) -> None:
    with pytest.raises(ValueError, match="3 actors of 1 CPU need 3 CPUs; Ray has 2"):
        ShardedVecEnv(partial(tables, None), num_envs=6, shards=3, ray="")
    assert local_ray.is_initialized()  # the Ray it found, left running


@pytest.mark.training
def test_exploit_trains_the_same_best_response_with_its_shards_on_ray(local_ray, tmp_path) -> None:
    from hearts_env.bench.exploit import exploit

    tiny = dict(
        budget=256, start="scratch", seed=2, deals=4, eval_deals=2, curve_points=1, value_decisions=1, num_envs=7,
        n_steps=32, batch_size=112, net_arch="8", shards=2,
    )  # fmt: skip
    target = "random"  # draws random numbers: each shard from its own seeds
    here = exploit(target, out=tmp_path / "here", **tiny)
    on_ray = exploit(target, out=tmp_path / "ray", ray="", **tiny)
    assert on_ray["best_response"]["weights_sha256"] == here["best_response"]["weights_sha256"]
    assert on_ray["curve"] == here["curve"] and on_ray["settings"] == here["settings"]  # ray: no setting of the run
    assert local_ray.is_initialized()


@pytest.mark.processes
def test_expert_iteration_workers_as_ray_tasks_collect_the_process_pools_decisions(local_ray) -> None:
    pytest.importorskip("torch")
    from hearts_env.train.distill.expert_iteration import ExItConfig, collect_parallel

    config = ExItConfig(decisions=200, worlds=2, top_k=2, seed=3, workers=2, progress_bar=False)
    hand = HeartsRules(target_score=None)
    pooled = collect_parallel(config, hand)
    on_ray = collect_parallel(dataclasses.replace(config, ray=""), hand)
    assert len(pooled) > 0
    for field in dataclasses.fields(pooled):
        mine, theirs = getattr(on_ray, field.name), getattr(pooled, field.name)
        if theirs is None:
            assert mine is None, field.name
        else:
            np.testing.assert_array_equal(mine, theirs, err_msg=field.name)  # NaNs (unsearched cards) equal too
    assert local_ray.is_initialized()
