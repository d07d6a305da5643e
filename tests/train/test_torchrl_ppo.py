"""hearts_env.train.libraries.torchrl_ppo: a tiny run writes its files, its export plays through
make_agent("trained") with the torch actor's logits, and bad settings are refused before any
file is written. Skipped where TorchRL is not installed."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import numpy as np
import pytest
from tiny_runs import tiny_run

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from hearts_env.agents import make_agent  # noqa: E402
from hearts_env.arena import play_match  # noqa: E402
from hearts_env.engine.rules import HeartsRules  # noqa: E402
from hearts_env.envs.torchrl import HeartsMultiAgentEnv  # noqa: E402
from hearts_env.play.policy import RandomPolicy  # noqa: E402
from hearts_env.train.cli import torchrl as cli  # noqa: E402
from hearts_env.train.libraries.torchrl_ppo import TorchRLPPOConfig, main, networks  # noqa: E402


def tiny(tmp_path, **overrides) -> TorchRLPPOConfig:
    settings = tiny_run(tmp_path, rules=HeartsRules(target_score=None), n_steps=16, total_timesteps=256, batch_size=64)
    settings |= dict(n_epochs=1, net_arch="16", eval_deals=2)
    del settings["bc_decisions"], settings["bc_epochs"]  # TorchRL's trainer does not clone
    return TorchRLPPOConfig(**(settings | overrides))


@pytest.mark.training
def test_a_tiny_run_and_its_export(tmp_path):
    config = tiny(tmp_path)
    folder = main(config)
    assert {"config.json", "progress.csv", "eval.json", "policy.npz", "policy.json"} <= {
        p.name for p in folder.iterdir()
    }
    with (folder / "progress.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [int(row["global_step"]) for row in rows] == [128, 256]  # two batches of 8 tables x 16 steps
    assert {"losses/policy_loss", "losses/value_loss", "charts/eval_points_per_hand"} <= set(rows[-1])
    assert [e["timesteps"] for e in json.loads((folder / "eval.json").read_text())] == [0, 256]
    trained = make_agent("trained", path=str(folder))
    result = play_match(
        None, [("trained", trained)] + [("random", RandomPolicy())] * 3, deals=4, seed=0, episode="hand"
    )
    assert result.hands.sum() == 4 * 4  # the runner refuses an illegal card


def test_the_export_is_the_actor(tmp_path):
    from hearts_env.train.libraries.torchrl_ppo import numpy_policy

    config = tiny(tmp_path, net_arch="16,8", activation="tanh")
    actor, _ = networks(config)
    env = HeartsMultiAgentEnv(6, config.rules)
    env.set_seed(1)
    td = env.rollout(20, break_when_any_done=False)[:, -1]
    with torch.no_grad():
        actor(td)
    acting = td["agents", "mask"]
    logits = td["agents", "logits"][acting].numpy()
    policy, _, _ = numpy_policy(actor, config)
    assert np.allclose(policy.logits(td["agents", "observation"][acting].numpy()), logits, atol=1e-5)
    assert torch.equal(td["agents", "logits"][~acting], torch.zeros((int((~acting).sum()), 52)))


def test_bad_settings_are_refused_before_anything_is_written(tmp_path, capsys):
    with pytest.raises(ValueError, match="n_steps must be >= 1"):
        tiny(tmp_path, n_steps=0)
    with pytest.raises(ValueError, match="activation: unknown 'gelu'"):
        tiny(tmp_path, activation="gelu")
    with pytest.raises(SystemExit):
        cli(["--episode", "trick", "--run-dir", str(tmp_path)])
    assert "hearts-train-torchrl: error: episode: unknown 'trick'" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


@pytest.mark.processes
def test_without_torchrl_the_command_says_so_in_one_line(tmp_path):
    code = (
        "import sys; sys.modules['tensordict'] = None; sys.modules['torchrl'] = None\n"
        "from hearts_env.train.cli import torchrl as cli\n"
        f"cli(['--run-dir', {str(tmp_path)!r}])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 1 and not list(tmp_path.iterdir())
    assert out.stderr.startswith('hearts-train-torchrl: error: TorchRL is not installed: pip install -e ".[torchrl]"')
    assert len(out.stderr.strip().splitlines()) == 1
