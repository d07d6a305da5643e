"""The privileged critic (``hearts-train --critic state``): the policy net reads the observation
alone and is the ordinary one, the value net reads the global state too, the cloning records the
states, and a run trains, exports and resumes with it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tiny_runs import tiny_run

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from hearts_env.agents import make_agent  # noqa: E402
from hearts_env.agents.learned.trained import TrainedPolicy  # noqa: E402
from hearts_env.engine.global_state import GlobalStateLayout  # noqa: E402
from hearts_env.engine.observation import ObservationLayout  # noqa: E402
from hearts_env.engine.rules import HeartsRules  # noqa: E402
from hearts_env.envs.gym_env import HeartsVectorEnv  # noqa: E402
from hearts_env.envs.sb3 import SB3VecEnv  # noqa: E402
from hearts_env.train.libraries.rllib_ppo import RLlibPPOConfig  # noqa: E402
from hearts_env.train.ppo import PPOConfig, build_model, main  # noqa: E402
from hearts_env.train.ppo.checkpoints import CHECKPOINT_FILE, load_checkpoint, policy_layers  # noqa: E402
from hearts_env.train.ppo.imitation import collect, pretrain  # noqa: E402


def _config(run_dir: Path, **overrides) -> PPOConfig:
    settings = tiny_run(run_dir, exp_name="privileged", seed=5, opponents=["heuristic"], eval_every=0, critic="state")
    return PPOConfig(**(settings | overrides))


def _model(config: PPOConfig):
    return build_model(config, SB3VecEnv(HeartsVectorEnv(config.num_envs, config.rules, global_state=True)))


def test_the_policy_net_reads_the_observation_alone_and_the_value_net_the_state(tmp_path: Path) -> None:
    model = _model(_config(tmp_path))
    policy = model.policy
    rules = HeartsRules()
    obs_size, state_size = ObservationLayout(rules).size, GlobalStateLayout(rules).size
    plain = build_model(_config(tmp_path, critic="observation"), SB3VecEnv(HeartsVectorEnv(8, rules)))
    shapes = [layer.weight.shape for layer in policy_layers(model)]
    assert shapes == [layer.weight.shape for layer in policy_layers(plain)], "the ordinary policy net"
    assert policy.mlp_extractor.value_net[0].weight.shape[1] == obs_size + state_size
    generator = torch.Generator().manual_seed(0)
    observation = torch.randint(0, 2, (16, obs_size), generator=generator, dtype=torch.uint8)
    state = torch.randint(0, 2, (16, state_size), generator=generator, dtype=torch.uint8)
    other_state = torch.randint(0, 2, (16, state_size), generator=generator, dtype=torch.uint8)
    with torch.no_grad():
        first = policy.mlp_extractor(policy.extract_features({"observation": observation, "state": state}))
        second = policy.mlp_extractor(policy.extract_features({"observation": observation, "state": other_state}))
    torch.testing.assert_close(first[0], second[0])  # the actor's latent: the state plays no part
    assert not torch.allclose(policy.value_net(first[1]), policy.value_net(second[1]))


def test_cloning_records_the_state_seen_from_each_deciding_seat() -> None:
    rules = HeartsRules()
    demos = collect(rules, make_agent("heuristic", seed=0), 600, seed=1, states=True)
    layout, observation = GlobalStateLayout(rules), ObservationLayout(rules)
    assert demos.states is not None and demos.states.shape == (len(demos), layout.size)
    np.testing.assert_array_equal(
        layout.split(demos.states)["hands"][:, 0], observation.split(demos.observations)["hand"]
    )
    assert collect(rules, make_agent("heuristic", seed=0), 600, seed=1).states is None


def test_the_value_fit_on_states_learns(tmp_path: Path) -> None:
    """Fitted to the returns with the states, the privileged value net's error falls."""
    model = _model(_config(tmp_path))
    demos = collect(HeartsRules(), make_agent("heuristic", seed=0), 3000, seed=2, states=True)
    first = pretrain(model.policy, demos, epochs=1, batch_size=256, action_coef=0.0, seed=0)
    later = pretrain(model.policy, demos, epochs=4, batch_size=256, action_coef=0.0, seed=0)
    assert later["bc/holdout_value_loss"] < first["bc/holdout_value_loss"]


@pytest.mark.training
def test_a_run_with_the_privileged_critic_trains_exports_and_resumes(tmp_path: Path) -> None:
    run = main(_config(tmp_path / "a"))
    assert json.loads((run / "config.json").read_text())["critic"] == "state"
    trained = TrainedPolicy(run)  # the export is the ordinary policy net
    env = HeartsVectorEnv(16, learner_seat="rotate")
    obs, _ = env.reset(seed=3)
    cards = trained.act(obs, env.action_masks())
    assert env.action_masks()[np.arange(16), cards].all()
    resumed = main(_config(tmp_path / "b", resume=str(run), total_timesteps=2048))
    model = _model(_config(tmp_path))
    load_checkpoint(model, resumed / CHECKPOINT_FILE)
    assert model.num_timesteps == 2048


def test_rllib_refuses_the_state_critic() -> None:
    with pytest.raises(ValueError, match="critic: unknown 'state'; choose from observation$"):
        RLlibPPOConfig(critic="state").check()


@pytest.mark.training
def test_torchrl_trainer_with_the_privileged_critic(tmp_path: Path) -> None:
    """The TorchRL trainer's state critic reads each seat's observation, the table's state and the
    seat; its run trains and exports the ordinary actor."""
    pytest.importorskip("torchrl")
    from hearts_env.envs.torchrl import GROUP, HeartsMultiAgentEnv
    from hearts_env.train.libraries.torchrl_ppo import TorchRLPPOConfig, give_seats_the_state, networks
    from hearts_env.train.libraries.torchrl_ppo import main as torchrl_main

    settings = dict(rules=HeartsRules(target_score=None), num_envs=8, n_steps=16, total_timesteps=256, batch_size=64)
    config = TorchRLPPOConfig(
        **settings, n_epochs=1, net_arch="16", eval_deals=2, critic="state", run_dir=str(tmp_path), progress_bar=False
    )
    actor, critic = networks(config)
    env = HeartsMultiAgentEnv(4, config.rules, global_state=True)
    data = env.rollout(5, actor, break_when_any_done=False)
    give_seats_the_state(data, 4)
    with torch.no_grad():
        values = critic(data)[GROUP, "state_value"]
        data[GROUP, "seat"] = data[GROUP, "seat"].flip(-2)  # the same table, valued for the other seats
        swapped = critic(data)[GROUP, "state_value"]
    assert values.shape == (4, 5, 4, 1) and not torch.allclose(values, swapped)
    folder = torchrl_main(config)
    assert json.loads((folder / "config.json").read_text())["critic"] == "state"
    assert TrainedPolicy(folder).hidden == [16]
