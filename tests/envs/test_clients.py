"""The environments from other RL libraries: the RLlib glue (``hearts_env.envs.rllib``: the observation
wrapper, the env creator, one masked PPO iteration under a local Ray), TorchRL's PettingZoo and Gym
wrappers, Tianshou's PettingZoo env, and the vector env's auto-reset modes that Gymnasium's
observation wrappers and TorchRL need. Tests of a library that is not installed are skipped."""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from pettingzoo import AECEnv
from pettingzoo.test import api_test

import hearts_env
from hearts_env import HeartsEnv, HeartsVectorEnv
from hearts_env.engine.observation import ObservationLayout
from hearts_env.engine.rules import HeartsRules
from hearts_env.envs.rllib import MaskedFloatObservations

# A one-hand game of 4 players: 12 pass picks and 52 cards, every seat's points summing to 26, or
# to 78 after a moon (26 added to each other seat).
ONE_HAND = {"target_score": 0}
HAND_STEPS = 64
HAND_TOTALS = (-26.0, -78.0)

pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be"),
    pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested using version"),
]


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal card per row of (B, 52) masks."""
    return (rng.random(masks.shape) * masks).argmax(axis=1)


def states_equal(a, b) -> bool:
    return all(np.array_equal(getattr(a, name), getattr(b, name)) for name in a.FIELDS)


# ---------------------------------------------------------------------------------------------
# hearts_env.envs.rllib without Ray: the import rule and the observation wrapper


@pytest.mark.processes
def test_hearts_env_never_imports_ray():
    code = "import sys, hearts_env, hearts_env.rllib; print(sorted(m for m in sys.modules if m.split('.')[0] == 'ray'))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_masked_float_observations_api_test():
    api_test(MaskedFloatObservations(hearts_env.env(num_players=5, jack_of_diamonds=True)), num_cycles=1000)


def test_masked_float_observations_are_the_scaled_vector_and_mask():
    inner = hearts_env.env(history=True)
    table = MaskedFloatObservations(inner)
    scale = ObservationLayout(HeartsRules(), history=True).scale()
    table.reset(seed=3)
    rng = np.random.default_rng(3)
    steps = 0
    for agent in table.agent_iter():
        obs, _, termination, truncation, _ = table.last()
        raw = inner.observe(agent)
        assert obs["observations"].dtype == np.float32
        assert np.array_equal(obs["observations"], raw["observation"].astype(np.float32) * scale)
        assert obs["action_mask"].dtype == np.int8 and np.array_equal(obs["action_mask"], raw["action_mask"])
        assert table.observation_space(agent).contains(obs)
        for other in table.agents:  # only the agent on turn has legal cards
            assert table.observe(other)["action_mask"].any() == (other == agent and not termination)
        steps += 1
        table.step(None if termination or truncation else int(random_legal(obs["action_mask"][None], rng)[0]))
    assert steps > HAND_STEPS  # a whole game to 100
    assert obs["observations"].max() >= 1  # a score reached the target: the space's bound is 255 * scale


def test_masked_float_observations_refuses_other_envs():
    for other in (AECEnv(), HeartsEnv()):
        with pytest.raises(ValueError, match="MaskedFloatObservations wraps a hearts_env AEC env"):
            MaskedFloatObservations(other)


# ---------------------------------------------------------------------------------------------
# RLlib


@pytest.fixture
def local_ray():
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.rllib")
    pytest.importorskip("torch")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def test_rllib_env_creator_plays_a_hand():
    pytest.importorskip("ray.rllib")
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    from hearts_env.envs import rllib

    env = rllib.env_creator({"num_players": 4, "reward": "points", **ONE_HAND})
    assert isinstance(env, MultiAgentEnv)
    assert env.possible_agents == [f"player_{s}" for s in range(4)]
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    steps, done = 0, False
    while not done:
        ((agent, agent_obs),) = obs.items()  # one agent on turn
        assert env.get_observation_space(agent).contains(agent_obs)
        action = int(random_legal(agent_obs["action_mask"][None], rng)[0])
        obs, rewards, terminateds, _, _ = env.step({agent: action})
        for name, reward in rewards.items():
            returns[name] += reward
        steps += 1
        done = terminateds["__all__"]
    assert steps == HAND_STEPS
    assert set(obs) == set(env.possible_agents)  # every seat gets its final observation
    assert sum(returns.values()) in HAND_TOTALS


@pytest.mark.training
def test_rllib_masked_ppo_one_iteration(local_ray):
    import torch
    from ray.rllib.core.columns import Columns

    from hearts_env.envs import rllib

    # An illegal card would end the hand at -1000 for its player: the returns below exclude it.
    config = (
        rllib.ppo_config({**ONE_HAND, "illegal_reward": -1000.0}, {"fcnet_hiddens": [32], "fcnet_activation": "relu"})
        .env_runners(num_env_runners=1, rollout_fragment_length=128)  # sampled in a Ray worker
        .training(train_batch_size_per_learner=512, minibatch_size=128, num_epochs=1)
        .debugging(seed=0)
    )
    algo = config.build_algo()
    try:
        result = algo.train()
        runners = result["env_runners"]
        assert runners["num_env_steps_sampled_lifetime"] >= 512
        assert runners["num_episodes"] >= 512 // HAND_STEPS - 1
        assert HAND_TOTALS[1] <= runners["episode_return_mean"] <= HAND_TOTALS[0]
        assert np.isfinite(result["learners"][rllib.MODULE_ID]["total_loss"])

        # The trained module puts no weight on illegal cards.
        table = MaskedFloatObservations(hearts_env.env(**ONE_HAND))
        table.reset(seed=1)
        obs = table.observe(table.agent_selection)
        module = algo.get_module(rllib.MODULE_ID)
        batch = {Columns.OBS: {key: torch.from_numpy(value)[None] for key, value in obs.items()}}
        with torch.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].numpy()
        legal = obs["action_mask"] == 1
        assert legal.sum() == 13  # the opening pass: the whole hand
        assert logits[legal].min() > logits[~legal].max() + 1e30
    finally:
        algo.stop()


# ---------------------------------------------------------------------------------------------
# TorchRL


def test_torchrl_pettingzoo_wrapper_one_group():
    pytest.importorskip("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import MarlGroupMapType, check_env_specs

    env = PettingZooWrapper(
        hearts_env.env(**ONE_HAND), use_mask=True, group_map=MarlGroupMapType.ALL_IN_ONE_GROUP, seed=0
    )
    assert env.group_map == {"agents": [f"player_{s}" for s in range(4)]}
    check_env_specs(env)
    rollout = env.rollout(1000, break_when_any_done=True)  # random cards from the masked spec
    assert rollout.batch_size == (HAND_STEPS,)  # no illegal card ended the hand early
    acting = rollout["agents", "mask"]  # (T, 4): the agent on turn
    assert (acting.sum(1) == 1).all()
    masks, actions = rollout["agents", "action_mask"][acting], rollout["agents", "action"][acting]
    assert masks.gather(1, actions[:, None]).all()
    assert rollout["next", "agents", "reward"].sum().item() in HAND_TOTALS


def test_torchrl_gym_wrapper_vector_env_without_autoreset():
    pytest.importorskip("torchrl")
    import torch
    from torchrl.data import Binary, Unbounded
    from torchrl.envs import ActionMask, GymWrapper, TransformedEnv
    from torchrl.envs.gym_like import default_info_dict_reader

    B = 4
    base = GymWrapper(HeartsVectorEnv(B, **ONE_HAND, autoreset_mode=AutoresetMode.DISABLED))
    specs = {
        "action_mask": Binary(n=52, shape=(B, 52), dtype=torch.bool),
        "scores": Unbounded(shape=(B, 4), dtype=torch.float32),
    }
    base.set_info_dict_reader(default_info_dict_reader(["action_mask", "scores"], spec=specs))
    env = TransformedEnv(base, ActionMask())
    env.set_seed(0)
    steps = 3 * 16  # three one-hand episodes of 16 learner decisions (3 passes, 13 cards) per game
    rollout = env.rollout(steps, break_when_any_done=False)  # raises on an illegal card
    done = rollout["next", "done"].squeeze(-1)  # (B, T)
    assert done.sum().item() == 3 * B
    rewards = rollout["next", "reward"].squeeze(-1).cumsum(1)
    episode_return = torch.diff(rewards[done].view(B, 3), prepend=torch.zeros(B, 1))
    learner_points = rollout["next", "scores"][..., 0][done].view(B, 3)  # relative seats: 0 is the learner
    assert torch.equal(episode_return, -learner_points)


def test_torchrl_gym_wrapper_same_step_vector_env():
    """TorchRL's GymWrapper reads ``autoreset_mode``; it takes one unmasked random step while it is
    built, which the env tolerates with ``illegal_action="random"``."""
    pytest.importorskip("torchrl")
    from torchrl.envs import GymWrapper

    env = GymWrapper(HeartsVectorEnv(4, **ONE_HAND, illegal_action="random"))
    rollout = env.rollout(40, break_when_any_done=False)
    assert rollout["next", "done"].sum().item() >= 4


# ---------------------------------------------------------------------------------------------
# Tianshou


def test_tianshou_pettingzoo_env():
    pytest.importorskip("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def make_env():
        return PettingZooEnv(hearts_env.env(**ONE_HAND))

    env = make_env()
    players = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=players, env=env)
    envs = DummyVectorEnv([make_env for _ in range(2)])
    envs.seed(0)
    collector = Collector(algorithm, envs, VectorReplayBuffer(1000, len(envs)))
    collector.reset()
    stats = collector.collect(n_episode=4)
    assert stats.n_collected_steps == 4 * HAND_STEPS  # no illegal card ended a hand early
    assert set(stats.returns.sum(axis=1)) <= set(HAND_TOTALS)


# ---------------------------------------------------------------------------------------------
# The vector env's auto-reset modes


def test_autoreset_mode_attribute_and_metadata():
    assert HeartsVectorEnv(2).autoreset_mode == AutoresetMode.SAME_STEP
    envs = HeartsVectorEnv(2, autoreset_mode="NextStep")
    assert envs.autoreset_mode == envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert HeartsVectorEnv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP  # per instance
    made = gymnasium.make_vec("hearts_env/Hearts-v0", num_envs=2, autoreset_mode=AutoresetMode.DISABLED)
    assert isinstance(made, HeartsVectorEnv) and made.autoreset_mode == AutoresetMode.DISABLED
    with pytest.raises(ValueError, match="autoreset_mode must be one of .*got 'next'"):
        HeartsVectorEnv(2, autoreset_mode="next")


@pytest.mark.parametrize("episode", ["game", "hand"])
def test_next_step_autoreset_matches_single_envs(episode):
    """Game i of a NEXT_STEP vector env plays as a HeartsEnv seeded s + i: the ending step returns
    the final observation and no legal cards; the next step ignores the game's card and returns
    the next episode's first observation with reward 0."""
    B, seed = 4, 11
    knobs = {"episode": episode, "learner_seat": "rotate", "target_score": 40}
    envs = HeartsVectorEnv(B, autoreset_mode=AutoresetMode.NEXT_STEP, **knobs)
    singles = [HeartsEnv(**knobs) for _ in range(B)]
    obs, info = envs.reset(seed=seed)
    single_info = [env.reset(seed=seed + i)[1] for i, env in enumerate(singles)]
    rng = np.random.default_rng(0)
    ended = np.zeros(B, bool)
    resets = 0
    for _ in range(400):
        actions = np.where(ended, 99, random_legal(envs.action_masks(), rng))  # 99: not even a card
        obs, rewards, terminations, truncations, info = envs.step(actions)
        assert not truncations.any()
        for i, env in enumerate(singles):
            if ended[i]:
                single_obs, single_info[i] = env.reset()
                single_reward, single_terminated = 0.0, False
                resets += 1
            else:
                single_obs, single_reward, single_terminated, _, single_info[i] = env.step(actions[i])
            assert np.array_equal(obs[i], single_obs)
            assert rewards[i] == single_reward and terminations[i] == single_terminated
            assert np.array_equal(info["action_mask"][i], single_info[i]["action_mask"])
            assert np.array_equal(info["scores"][i], single_info[i]["scores"])
        assert np.array_equal(envs.action_masks(), info["action_mask"])
        assert not envs.action_masks()[terminations].any()  # the final observation: nothing legal
        assert "final_obs" not in info
        ended = terminations
    assert resets >= B


def test_next_step_illegal_card_changes_nothing():
    envs = HeartsVectorEnv(8, autoreset_mode=AutoresetMode.NEXT_STEP)
    envs.reset(seed=5)
    rng = np.random.default_rng(5)
    terminations = np.zeros(8, bool)
    while not terminations.any() or terminations.all():
        actions = np.where(terminations, 0, random_legal(envs.action_masks(), rng))
        _, _, terminations, _, _ = envs.step(actions)
    before, masks = envs.state, envs.action_masks()
    live = np.flatnonzero(~terminations)[0]
    actions = random_legal(np.where(terminations[:, None], True, masks), rng)
    actions[live] = np.flatnonzero(~masks[live])[0]
    with pytest.raises(ValueError, match="is illegal"):
        envs.step(actions)
    assert states_equal(envs.state, before)
    assert np.array_equal(envs.action_masks(), masks)
    actions[live] = np.flatnonzero(masks[live])[0]
    _, rewards, terminations_after, _, _ = envs.step(actions)  # now the ended games start over
    assert envs.action_masks()[terminations].any(axis=1).all()
    assert (rewards[terminations] == 0).all() and not terminations_after[terminations].any()


def test_next_step_feeds_gymnasium_observation_wrappers():
    from gymnasium.wrappers.vector import DtypeObservation, NormalizeObservation

    with pytest.raises((AssertionError, ValueError)):  # why the option exists (the error differs by version)
        NormalizeObservation(HeartsVectorEnv(2))
    plain = HeartsVectorEnv(4, autoreset_mode=AutoresetMode.NEXT_STEP)
    as_float = DtypeObservation(HeartsVectorEnv(4, autoreset_mode=AutoresetMode.NEXT_STEP), np.float32)
    normalized = NormalizeObservation(HeartsVectorEnv(4, autoreset_mode=AutoresetMode.NEXT_STEP))
    obs = [env.reset(seed=2)[0] for env in (plain, as_float, normalized)]
    rng = np.random.default_rng(2)
    for _ in range(100):
        actions = random_legal(np.where(plain.action_masks().any(1, keepdims=True), plain.action_masks(), True), rng)
        obs = [env.step(actions)[0] for env in (plain, as_float, normalized)]
        assert obs[1].dtype == np.float32 and np.array_equal(obs[1], obs[0].astype(np.float32))
        assert np.isfinite(obs[2]).all()
    assert normalized.obs_rms.count > 100 * 4


def test_disabled_autoreset_waits_for_reset_mask():
    envs = HeartsVectorEnv(4, autoreset_mode=AutoresetMode.DISABLED, **ONE_HAND)
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(16):  # one hand: 3 passes and 13 cards each
        _, _, terminations, _, _ = envs.step(random_legal(envs.action_masks(), rng))
    assert terminations.all() and not envs.action_masks().any()
    before = envs.state
    with pytest.raises(RuntimeError, match=r"games \[0, 1, 2, 3\] are over and autoreset_mode is DISABLED"):
        envs.step(np.zeros(4, np.int64))
    assert states_equal(envs.state, before)
    envs.reset(options={"reset_mask": np.array([True, True, False, False])})
    assert envs.action_masks()[:2].any(axis=1).all() and not envs.action_masks()[2:].any()
    with pytest.raises(RuntimeError, match=r"games \[2, 3\] are over"):
        envs.step(random_legal(envs.action_masks(), rng))


def test_sb3_vec_env_needs_same_step():
    pytest.importorskip("stable_baselines3")
    from hearts_env.envs.sb3 import SB3VecEnv

    with pytest.raises(ValueError, match="SB3VecEnv needs autoreset_mode=AutoresetMode.SAME_STEP"):
        SB3VecEnv(HeartsVectorEnv(2, autoreset_mode=AutoresetMode.NEXT_STEP))
