"""The trainer's lean rollout and update (``hearts_env.train.ppo.lean_loop``) train as sb3-contrib's
MaskablePPO does: the same advantages and returns as SB3's rollout buffer, the same minibatches, and
from the same seed the same weights, optimiser state, logged statistics and callback calls."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tiny_runs import tiny_run

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402
from gymnasium import spaces  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.utils import set_random_seed  # noqa: E402
from stable_baselines3.common.vec_env import VecMonitor  # noqa: E402

from hearts_env.engine.cards import NUM_CARDS  # noqa: E402
from hearts_env.envs.sb3 import SB3VecEnv  # noqa: E402
from hearts_env.train.ppo import PPOConfig, build_model, make_opponents  # noqa: E402
from hearts_env.train.ppo.lean_loop import LeanMaskablePPO, Rollout  # noqa: E402
from hearts_env.train.ppo.trainer import training_tables  # noqa: E402

STEPS, GAMES, OBS = 16, 6, 5


def _random_rollout(seed: int) -> tuple[Rollout, MaskableRolloutBuffer, np.ndarray]:
    """The same random rollout in a ``Rollout`` and in sb3-contrib's buffer, and the last dones."""
    rng = np.random.default_rng(seed)
    obs_space = spaces.Box(0, 255, (OBS,), np.uint8)
    action_space = spaces.Discrete(NUM_CARDS)
    ours = Rollout(STEPS, obs_space, action_space, "cpu", gamma=0.97, gae_lambda=0.9, n_envs=GAMES)
    theirs = MaskableRolloutBuffer(STEPS, obs_space, action_space, "cpu", gamma=0.97, gae_lambda=0.9, n_envs=GAMES)
    for step in range(STEPS):
        obs = rng.integers(0, 4, (GAMES, OBS), dtype=np.uint8)
        masks = rng.random((GAMES, NUM_CARDS)) < 0.5
        actions = rng.integers(0, NUM_CARDS, GAMES)
        rewards = rng.normal(size=GAMES).astype(np.float32)
        starts = rng.random(GAMES) < 0.2
        values, log_probs = torch.randn(GAMES, 1), torch.randn(GAMES)
        ours.add_observations(step, torch.from_numpy(obs), torch.from_numpy(masks))
        ours.add_step(step, torch.from_numpy(actions), rewards, starts, values, log_probs)
        theirs.add(obs, actions.reshape(-1, 1), rewards, starts, values, log_probs, action_masks=masks)
    return ours, theirs, rng.random(GAMES) < 0.3


def test_advantages_and_returns_are_sb3s() -> None:
    ours, theirs, dones = _random_rollout(seed=1)
    last_values = torch.randn(GAMES, 1)
    ours.compute_returns_and_advantage(last_values, dones)
    theirs.compute_returns_and_advantage(last_values, dones)
    # SB3 keeps [step, game]; the rollout [game, step]
    np.testing.assert_allclose(ours.advantages.numpy().T, theirs.advantages, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ours.returns.numpy().T, theirs.returns, rtol=1e-6, atol=1e-6)


def test_minibatches_are_the_rows_sb3_draws() -> None:
    ours, theirs, dones = _random_rollout(seed=2)
    last_values = torch.randn(GAMES, 1)
    ours.compute_returns_and_advantage(last_values, dones)
    theirs.compute_returns_and_advantage(last_values, dones)
    np.random.seed(7)
    mine = list(ours.minibatches(40))
    np.random.seed(7)
    reference = list(theirs.get(40))
    assert [len(b.actions) for b in mine] == [40, 40, 16]
    for got, want in zip(mine, reference, strict=True):
        torch.testing.assert_close(got.observations, want.observations)
        torch.testing.assert_close(got.actions, want.actions.long().flatten())
        torch.testing.assert_close(got.action_masks, want.action_masks.bool())
        for name in ("old_values", "old_log_prob", "advantages", "returns"):
            torch.testing.assert_close(getattr(got, name), getattr(want, name))


class _Steps(BaseCallback):
    """What the callbacks see: each step's timestep count, dones and finished episodes' returns."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[int, list[int], list[float]]] = []
        self.rollouts = 0

    def _on_rollout_end(self) -> None:
        self.rollouts += 1

    def _on_step(self) -> bool:
        done = np.flatnonzero(self.locals["dones"]).tolist()
        returns = [self.locals["infos"][i]["episode"]["r"] for i in done]
        self.seen.append((self.num_timesteps, done, returns))
        return True


def _train(model: MaskablePPO, seed: int, timesteps: int) -> _Steps:
    set_random_seed(seed)  # the sampling's and the minibatches' generators, as both models start
    steps = _Steps()
    model.learn(timesteps, callback=steps)
    return steps


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"critic": "state"},
        {"clip_range_vf": 0.05, "target_kl": 1e-6},  # SB3's value clipping and early stop, not the trainer's
    ],
    ids=["observation", "state", "value-clip-and-target-kl"],
)
def test_training_matches_sb3_contrib(tmp_path: Path, overrides: dict) -> None:
    algorithm = {k: overrides.pop(k) for k in ("clip_range_vf", "target_kl") if k in overrides}
    config = PPOConfig(**tiny_run(tmp_path, seed=4, n_steps=32, batch_size=48, n_epochs=3, **overrides))

    def env() -> VecMonitor:
        tables = training_tables(config, make_opponents(config).seats, config.num_envs)
        return VecMonitor(SB3VecEnv(tables))

    lean = build_model(config, env().venv)
    assert isinstance(lean, LeanMaskablePPO)
    reference = MaskablePPO(
        type(lean.policy),
        env(),
        learning_rate=lean.learning_rate,
        n_steps=lean.n_steps,
        batch_size=lean.batch_size,
        n_epochs=lean.n_epochs,
        gamma=lean.gamma,
        gae_lambda=lean.gae_lambda,
        ent_coef=lean.ent_coef,
        policy_kwargs=lean.policy_kwargs,
        seed=config.seed,
        **algorithm,
    )
    for name in algorithm:
        setattr(lean, name, reference.__dict__[name])
    for mine, theirs in zip(lean.policy.parameters(), reference.policy.parameters(), strict=True):
        torch.testing.assert_close(mine, theirs, rtol=0, atol=0)  # the same start

    timesteps = 3 * config.num_envs * config.n_steps
    got, want = _train(lean, 11, timesteps), _train(reference, 11, timesteps)

    assert got.rollouts == want.rollouts == 3
    assert len(got.seen) == 3 * config.n_steps and any(done for _, done, _ in got.seen)
    assert got.seen == want.seen  # the same games played the same cards, step for step
    assert lean._n_updates == reference._n_updates
    assert (lean._n_updates < 3 * config.n_epochs) == ("target_kl" in algorithm), "an early stop where one is set"
    for mine, theirs in zip(lean.policy.parameters(), reference.policy.parameters(), strict=True):
        torch.testing.assert_close(mine, theirs, rtol=1e-5, atol=1e-6)
    ours, sb3 = lean.policy.optimizer.state_dict()["state"], reference.policy.optimizer.state_dict()["state"]
    for index, entries in sb3.items():
        for key, value in entries.items():
            torch.testing.assert_close(ours[index][key], value, rtol=1e-4, atol=1e-7)
    logged, expected = lean.logger.name_to_value, reference.logger.name_to_value
    assert {k for k in logged if k.startswith("train/")} == {k for k in expected if k.startswith("train/")}
    for key, value in expected.items():
        if key.startswith("train/"):
            assert logged[key] == pytest.approx(value, rel=1e-4, abs=1e-6), key
