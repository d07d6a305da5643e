"""Training refuses bad input before any work: the checkpoint loader (never unpickles, loads nothing
it refuses), the settings of PPO and expert iteration, the network a run starts from, and the
command lines ``hearts-train`` and ``hearts-main-job``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from command_errors import refused
from policy_files import export

from hearts_env import HeartsRules
from hearts_env.agents.learned.trained import META_FILE
from hearts_env.bench import cli as bench_cli
from hearts_env.train import cli as train_cli


class Payload:
    """Unpickling this would create ``marker``: a checkpoint must never run it."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


@pytest.fixture(scope="module")
def ppo():
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from hearts_env.train.ppo import trainer as ppo

    return ppo


def small_config(ppo, tmp_path: Path, **overrides):
    settings = dict(num_envs=2, n_steps=8, batch_size=16, net_arch="8", run_dir=str(tmp_path / "runs"))
    return ppo.PPOConfig(**(settings | overrides))


def small_model(ppo, config):
    from hearts_env.envs.gym_env import HeartsVectorEnv
    from hearts_env.envs.sb3 import SB3VecEnv

    return ppo.build_model(config, SB3VecEnv(HeartsVectorEnv(config.num_envs, config.rules)))


def trained_a_step(model) -> None:
    """One optimizer step on a dummy loss, so the optimizer holds per-parameter state."""
    loss = sum(p.sum() for p in model.policy.parameters())
    model.policy.optimizer.zero_grad()
    loss.backward()
    model.policy.optimizer.step()


def snapshot(model) -> list[np.ndarray]:
    tensors = [t.detach().clone().numpy() for t in model.policy.state_dict().values()]
    for state in model.policy.optimizer.state_dict()["state"].values():
        tensors += [v.detach().clone().numpy() for v in state.values()]
    return tensors + [np.array(model.num_timesteps)]


def test_checkpoint_loader_refuses_everything_but_a_checkpoint_and_loads_nothing(ppo, tmp_path):
    import torch

    from hearts_env.train.ppo.checkpoints import load_checkpoint, save_checkpoint

    config = small_config(ppo, tmp_path)
    source, target = small_model(ppo, config), small_model(ppo, config)
    trained_a_step(source)
    source.num_timesteps = 123
    good = tmp_path / "good.pt"
    save_checkpoint(source, good)
    state = torch.load(good, weights_only=True)
    other = small_model(ppo, small_config(ppo, tmp_path, net_arch="16"))
    trained_a_step(other)
    other_state = {"policy": other.policy.state_dict(), "optimizer": other.policy.optimizer.state_dict()}
    trained_a_step(target)
    marker = tmp_path / "payload-ran"
    bad_optimizer = state["optimizer"] | {"state": {0: {"exp_avg": torch.zeros(3), "step": torch.tensor(1.0)}}}
    cases = {
        "pickle": (state | {"policy": Payload(marker)}, "cannot load"),
        "bare tensor": (torch.zeros(3), "expected a dict"),
        "list": ([state["policy"], state["optimizer"]], "expected a dict"),
        "missing key": ({k: v for k, v in state.items() if k != "optimizer"}, "expected a dict"),
        "other network": (state | {"policy": other_state["policy"]}, "another shape"),
        "other optimizer": (state | {"optimizer": other_state["optimizer"]}, "optimizer state"),
        "optimizer of other shapes": (state | {"optimizer": bad_optimizer}, "optimizer state exp_avg"),
        "float timesteps": (state | {"num_timesteps": torch.tensor(1.5)}, "num_timesteps"),
        "negative timesteps": (state | {"num_timesteps": torch.tensor(-1)}, "num_timesteps"),
    }
    before = snapshot(target)
    for case, (payload, fragment) in cases.items():
        path = tmp_path / f"{case}.pt"
        torch.save(payload, path)
        with pytest.raises(ValueError, match="resume: cannot load") as info:
            load_checkpoint(target, path)
        assert fragment in str(info.value) and str(path) in str(info.value), (case, str(info.value))
        for a, b in zip(before, snapshot(target), strict=True):
            np.testing.assert_array_equal(a, b, err_msg=case)
    assert not marker.exists()
    data = good.read_bytes()
    for case, damaged in {"truncated": data[: len(data) // 2], "empty": b"", "noise": bytes(range(256)) * 8}.items():
        path = tmp_path / f"{case}.pt"
        path.write_bytes(damaged)
        with pytest.raises(ValueError, match=f"resume: cannot load {re.escape(str(path))}"):
            load_checkpoint(target, path)
    load_checkpoint(target, good)  # and the real one loads whole
    assert target.num_timesteps == 123
    for a, b in zip(snapshot(source), snapshot(target), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("settings", "fragment"),
    [
        ({"num_envs": "3"}, "num_envs must be int"),
        ({"num_envs": 0}, "num_envs must be >= 1"),
        ({"total_timesteps": True}, "total_timesteps must be int"),
        ({"learning_rate": float("nan")}, "learning_rate"),
        ({"gamma": 1.5}, "gamma"),
        ({"opponents": ["heuristic", 3]}, "opponents must be a list of names"),
        ({"opponents": ["heuristic", "nobody", "random"]}, "opponents: unknown 'nobody'"),
        ({"opponents": ["random", "random"]}, "give 1 name or 3"),
        ({"rules": {"num_players": 9}}, "num_players"),
        ({"rules": "standard"}, "rules must be HeartsRules"),
        ({"exp_name": "a/b"}, "exp_name"),
        ({"exp_name": ".."}, "exp_name"),
        ({"net_arch": "64,,64"}, "net_arch"),
        ({"activation": "gelu"}, "activation"),
        ({"reward": "money"}, "reward"),
        ({"episode": "set"}, "episode"),
        ({"eval_opponent": "self"}, "eval_opponent"),
        ({"bc_teacher": "nobody"}, "bc_teacher"),
        ({"device": "toaster"}, "device"),
    ],
)
def test_training_settings_are_checked(ppo, settings, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        ppo.PPOConfig(**settings)


def test_training_config_round_trips_through_json(ppo):
    config = ppo.PPOConfig(rules=HeartsRules(num_players=5, moon="shooter_choice"), opponents=["simple"])
    assert ppo.PPOConfig(**json.loads(json.dumps(config.to_dict()))) == config


def test_train_command_refuses_a_damaged_checkpoint_before_making_the_run_folder(ppo, capsys, tmp_path):
    from hearts_env.train.ppo.checkpoints import CHECKPOINT_FILE

    (tmp_path / "old").mkdir()
    (tmp_path / "old" / CHECKPOINT_FILE).write_bytes(b"PK\x03\x04 truncated")
    runs = tmp_path / "runs"
    argv = ["--resume", str(tmp_path / "old"), "--run-dir", str(runs), "--num-envs", "2", "--net-arch", "8"]
    refused(capsys, lambda: train_cli.ppo(argv), "hearts-train: error: resume: cannot load")
    assert not runs.exists()


def test_train_command_refuses_a_run_dir_that_is_a_file(ppo, capsys, tmp_path):
    (tmp_path / "runs").write_text("not a folder")
    argv = ["--run-dir", str(tmp_path / "runs"), "--num-envs", "2", "--net-arch", "8", "--bc-teacher", ""]
    refused(capsys, lambda: train_cli.ppo(argv), "hearts-train: error: run_dir: cannot make the run folder")


def test_train_command_takes_every_rules_flag(ppo):
    config = ppo.parse_args(["--num-players", "5", "--moon", "subtract_from_self", "--points-on-first-trick"])
    assert config.rules == HeartsRules(num_players=5, moon="subtract_from_self", no_points_on_first_trick=False)


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--baselines", "random", "nobody"], "baselines: unknown 'nobody'"),
        (["--num-players", "5"], "agent 'ppo' cannot play"),
        (["--jack-of-diamonds", "--baselines", "random", "ppo", "--shipped", "false"], "agent 'ppo' cannot play"),
        (["--deals", "0"], "deals must be >= 1"),
        (["--exp-name", "../x"], "exp_name"),
    ],
)
def test_benchmark_command_refuses_before_training(ppo, argv, fragment, capsys, tmp_path, monkeypatch):

    monkeypatch.setattr(ppo, "main", lambda config: pytest.fail("the training started"))
    runs = tmp_path / "runs"
    refused(capsys, lambda: bench_cli.main_job(argv + ["--run-dir", str(runs)]), "hearts-main-job: error:", fragment)
    assert not runs.exists()


def test_benchmark_of_a_variant_without_the_shipped_agent_starts(ppo, monkeypatch):

    class Started(Exception):
        pass

    def started(config):
        assert config.rules.num_players == 5 and not config.shipped
        raise Started

    monkeypatch.setattr(ppo, "main", started)
    with pytest.raises(Started):
        bench_cli.main_job(["--num-players", "5", "--shipped", "false", "--opponents", "random"])


def test_training_seeds_are_refused_above_32_bits() -> None:
    from hearts_env.train.distill.expert_iteration import ExItConfig
    from hearts_env.train.ppo import PPOConfig

    for config in (PPOConfig, ExItConfig):
        with pytest.raises(ValueError, match=r"seed must be below 4,294,967,296"):
            config(seed=2**70)


# ---------------------------------------------------------------------------------------------
# Expert iteration and a network to start from


def test_expert_iteration_refuses_before_collecting(tmp_path: Path) -> None:
    from hearts_env.train.distill.expert_iteration import ExItConfig

    history = export(tmp_path / "hist", HeartsRules(), history=True)
    with pytest.raises(ValueError, match="reads the trick history"):
        ExItConfig(policy=str(history), run_dir=str(tmp_path / "runs"))
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(ValueError, match="run_dir: cannot make the run folder"):
        ExItConfig(run_dir=str(tmp_path / "file"))


def test_init_policy_takes_the_network_shape_from_the_arrays(tmp_path: Path) -> None:
    from hearts_env.envs.gym_env import HeartsVectorEnv
    from hearts_env.envs.sb3 import SB3VecEnv
    from hearts_env.train.ppo import PPOConfig, build_model, load_policy

    folder = export(tmp_path / "p", HeartsRules())
    meta = json.loads((folder / META_FILE).read_text())
    del meta["net_arch"]
    (folder / META_FILE).write_text(json.dumps(meta))
    config = PPOConfig(init_policy=str(folder), net_arch="32", num_envs=2, run_dir=str(tmp_path / "runs"))
    model = build_model(config, SB3VecEnv(HeartsVectorEnv(2, reward=config.reward)))
    with pytest.raises(ValueError, match=r"is a relu MLP \[16\]; this run builds a relu MLP \[32\]"):
        load_policy(model, config)
