"""sb3-contrib's MaskablePPO with its rollout and its update in preallocated torch tensors.

``MaskablePPO`` keeps a rollout in numpy arrays, copies each step into them and each minibatch
out of them again (swapped and flattened, indexed, copied into new tensors), turns every loss
statistic into a Python float as it goes and looks at every game's info at every step.
``LeanMaskablePPO`` does the same training in fewer copies: the rollout (``Rollout``) lives in
preallocated torch tensors in the environments' own dtypes (uint8 observations, bool masks, int64
cards), each minibatch is one ``index_select`` a field, the statistics stay tensors until the
update ends, and only the games that finished are looked at.

The numbers are sb3-contrib's: the same minibatches (the permutation drawn from numpy's global
generator, as ``RolloutBuffer.get`` draws it, over the rollout laid out in SB3's flattened order),
the same advantages and returns, the same loss, gradient clipping, early stop on ``target_kl``
and logged ``train/`` statistics, and the callbacks called as SB3 calls them (``on_step`` after
every step of the environments, with ``infos`` and ``dones`` in their locals); so a run trains
as ``MaskablePPO`` would from the same seed (``tests/train/test_lean_loop.py``).

The environments must give the whole batch's masks with ``action_masks()`` (``SB3VecEnv``,
``ShardedVecEnv``, under SB3's wrappers) and never truncate an episode (the tables have no time
limit), so no value is bootstrapped at a timeout.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.utils import obs_as_tensor
from stable_baselines3.common.vec_env import VecEnv
from torch.nn import functional as F

Observations = torch.Tensor | dict[str, torch.Tensor]


class Minibatch(NamedTuple):
    """Rows of a rollout, as ``MaskableRolloutBufferSamples`` has them (the cards as int64)."""

    observations: Observations
    actions: torch.Tensor
    old_values: torch.Tensor
    old_log_prob: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor
    action_masks: torch.Tensor


class Rollout:
    """A rollout of ``n_envs`` games x ``buffer_size`` steps in preallocated tensors, game-major
    (``[game, step, ...]``), so that row ``game * buffer_size + step`` of the flat view is the row
    SB3's ``swap_and_flatten`` puts there. Built by ``MaskablePPO`` as its ``rollout_buffer_class``."""

    def __init__(
        self,
        buffer_size: int,
        observation_space: spaces.Space,
        action_space: spaces.Space,
        device: torch.device | str = "auto",
        gamma: float = 0.99,
        gae_lambda: float = 1.0,
        n_envs: int = 1,
    ) -> None:
        if not isinstance(action_space, spaces.Discrete):
            raise ValueError(f"the lean loop plays Discrete actions, got {action_space}")
        device = torch.device("cpu" if device == "auto" else device)
        self.buffer_size, self.n_envs, self.gamma, self.gae_lambda = buffer_size, n_envs, gamma, gae_lambda
        shape = (n_envs, buffer_size)

        def zeros(*tail: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
            return torch.zeros(shape + tail, dtype=dtype, device=device)

        def stored(space: spaces.Space) -> torch.Tensor:  # in the observation's own dtype (uint8: 4x less to copy)
            return zeros(*space.shape, dtype=torch.from_numpy(np.zeros(0, space.dtype)).dtype)

        self.observations: Observations = (
            {key: stored(space) for key, space in observation_space.spaces.items()}
            if isinstance(observation_space, spaces.Dict)
            else stored(observation_space)
        )
        self.actions = zeros(dtype=torch.int64)
        self.action_masks = zeros(int(action_space.n), dtype=torch.bool)
        self.rewards, self.episode_starts, self.values, self.log_probs = zeros(), zeros(), zeros(), zeros()
        self.advantages, self.returns = zeros(), zeros()

    def add_observations(self, step: int, observations: Observations, action_masks: torch.Tensor) -> None:
        """Store what the games show at ``step``, before they are stepped."""
        if isinstance(self.observations, dict):
            assert isinstance(observations, dict)
            for key, tensor in self.observations.items():
                tensor[:, step] = observations[key]
        else:
            self.observations[:, step] = observations
        self.action_masks[:, step] = action_masks

    def add_step(
        self,
        step: int,
        actions: torch.Tensor,
        rewards: np.ndarray,
        episode_starts: np.ndarray,
        values: torch.Tensor,
        log_probs: torch.Tensor,
    ) -> None:
        """Store the cards played at ``step``, what they brought, and the policy's values and log-probabilities."""
        self.actions[:, step] = actions
        self.rewards[:, step] = torch.from_numpy(rewards)
        self.episode_starts[:, step] = torch.from_numpy(episode_starts)
        self.values[:, step] = values.flatten()
        self.log_probs[:, step] = log_probs

    def compute_returns_and_advantage(self, last_values: torch.Tensor, dones: np.ndarray) -> None:
        """GAE(lambda) advantages and the returns (advantages + values), as SB3's ``RolloutBuffer``
        computes them: one pass backwards over the steps, every game at once."""
        next_values = last_values.flatten().to(self.values.device)
        next_non_terminal = 1.0 - torch.from_numpy(dones).to(self.values)
        last_gae_lam = torch.zeros_like(next_values)
        for step in reversed(range(self.buffer_size)):
            delta = self.rewards[:, step] + self.gamma * next_values * next_non_terminal - self.values[:, step]
            last_gae_lam = delta + self.gamma * self.gae_lambda * next_non_terminal * last_gae_lam
            self.advantages[:, step] = last_gae_lam
            next_values, next_non_terminal = self.values[:, step], 1.0 - self.episode_starts[:, step]
        torch.add(self.advantages, self.values, out=self.returns)

    def minibatches(self, batch_size: int) -> Iterator[Minibatch]:
        """One pass over the rollout in random minibatches of ``batch_size`` rows (the last one
        shorter), the rows in the order ``RolloutBuffer.get`` would draw them."""
        rows = self.n_envs * self.buffer_size
        order = torch.from_numpy(np.random.permutation(rows)).to(self.values.device)

        def flat(tensor: torch.Tensor) -> torch.Tensor:
            return tensor.view(rows, *tensor.shape[2:])

        fields = {
            "actions": flat(self.actions),
            "old_values": flat(self.values),
            "old_log_prob": flat(self.log_probs),
            "advantages": flat(self.advantages),
            "returns": flat(self.returns),
            "action_masks": flat(self.action_masks),
        }
        observations = self.observations
        for start in range(0, rows, batch_size):
            index = order[start : start + batch_size]
            if isinstance(observations, dict):
                picked: Observations = {key: flat(t).index_select(0, index) for key, t in observations.items()}
            else:
                picked = flat(observations).index_select(0, index)
            yield Minibatch(picked, **{name: t.index_select(0, index) for name, t in fields.items()})


class LeanMaskablePPO(MaskablePPO):
    """``MaskablePPO`` whose ``collect_rollouts`` and ``train`` run on a ``Rollout``; its
    settings, saving and loading are sb3-contrib's."""

    rollout_buffer: Rollout

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, rollout_buffer_class=Rollout, **kwargs)

    def collect_rollouts(
        self,
        env: VecEnv,
        callback: BaseCallback,
        rollout_buffer: Rollout,
        n_rollout_steps: int,
        use_masking: bool = True,
    ) -> bool:
        """Fill ``rollout_buffer`` with ``n_rollout_steps`` steps of every game and compute its
        advantages; False if a callback stopped the training."""
        if not use_masking:
            raise ValueError("the lean loop always plays with the action masks")
        if self._last_obs is None:
            raise RuntimeError("the lean loop steps on from the environments' last observation: reset them first")
        self.policy.set_training_mode(False)
        callback.on_rollout_start()
        masks_of: Callable[[], np.ndarray] = env.action_masks  # SB3's wrappers forward it
        dones = self._last_episode_starts
        for step in range(n_rollout_steps):
            with torch.inference_mode():
                obs_tensor = obs_as_tensor(self._last_obs, self.device)
                action_masks = torch.as_tensor(masks_of(), device=self.device)
                rollout_buffer.add_observations(step, obs_tensor, action_masks)
                actions, values, log_probs = self.policy(obs_tensor, action_masks=action_masks)
            new_obs, rewards, dones, infos = env.step(actions.cpu().numpy())
            self.num_timesteps += env.num_envs

            callback.update_locals(locals())
            if not callback.on_step():
                return False
            finished = np.flatnonzero(dones)
            # the tables have no time limit: nothing to bootstrap at a timeout
            if any(infos[i].get("TimeLimit.truncated", False) for i in finished):
                raise RuntimeError("the lean loop cannot bootstrap a timeout: an environment truncated an episode")
            self._update_info_buffer([infos[i] for i in finished], dones[finished])

            rollout_buffer.add_step(step, actions, rewards, self._last_episode_starts, values, log_probs)
            self._last_obs, self._last_episode_starts = new_obs, dones

        with torch.inference_mode():  # the value of where each game stands now, to bootstrap the last step
            values = self.policy.predict_values(obs_as_tensor(self._last_obs, self.device))
        rollout_buffer.compute_returns_and_advantage(values, dones)
        callback.on_rollout_end()
        return True

    def train(self) -> None:
        """``n_epochs`` passes of clipped-PPO minibatch steps over the rollout (sb3-contrib's loss),
        then its ``train/`` statistics logged."""
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        clip_range = self.clip_range(self._current_progress_remaining)
        clip_range_vf = None
        if self.clip_range_vf is not None:
            clip_range_vf = self.clip_range_vf(self._current_progress_remaining)

        # per minibatch: policy-gradient, value and entropy losses, clip fraction, approx KL (tensors until the end)
        stats: list[torch.Tensor] = []
        last_epoch_start = 0  # SB3 logs the approximate KL of the last epoch only
        for epoch in range(self.n_epochs):
            last_epoch_start = len(stats)
            stopped = False
            for batch in self.rollout_buffer.minibatches(self.batch_size):
                values, log_prob, entropy = self.policy.evaluate_actions(
                    batch.observations, batch.actions, action_masks=batch.action_masks
                )
                values = values.flatten()
                advantages = batch.advantages
                if self.normalize_advantage:
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
                log_ratio = log_prob - batch.old_log_prob
                ratio = torch.exp(log_ratio)
                policy_loss = -torch.min(
                    advantages * ratio, advantages * torch.clamp(ratio, 1 - clip_range, 1 + clip_range)
                ).mean()
                values_pred = values
                if clip_range_vf is not None:  # the value moves at most clip_range_vf from the rollout's
                    change = torch.clamp(values - batch.old_values, -clip_range_vf, clip_range_vf)
                    values_pred = batch.old_values + change
                value_loss = F.mse_loss(batch.returns, values_pred)
                entropy_loss = -torch.mean(-log_prob) if entropy is None else -torch.mean(entropy)
                loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
                with torch.no_grad():
                    clip_fraction = torch.mean((torch.abs(ratio - 1) > clip_range).float())
                    approx_kl = torch.mean((ratio - 1) - log_ratio)  # http://joschu.net/blog/kl-approx.html
                    stats.append(torch.stack([policy_loss, value_loss, entropy_loss, clip_fraction, approx_kl]))

                if self.target_kl is not None and approx_kl > 1.5 * self.target_kl:
                    stopped = True
                    if self.verbose >= 1:
                        print(f"Early stopping at step {epoch} due to reaching max kl: {approx_kl:.2f}")
                    break
                self.policy.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                self.policy.optimizer.step()
            self._n_updates += 1
            if stopped:
                break

        table = torch.stack(stats).double()
        pg_loss, value_loss_mean, entropy_loss_mean, clip_fraction_mean, _ = table.mean(0).tolist()
        returns, old_values = self.rollout_buffer.returns, self.rollout_buffer.values
        returns_var = returns.var(correction=0).item()  # SB3's explained_variance(values, returns)
        unexplained = (returns - old_values).var(correction=0).item()
        explained_var = np.nan if returns_var == 0 else 1 - unexplained / returns_var
        self.logger.record("train/entropy_loss", entropy_loss_mean)
        self.logger.record("train/policy_gradient_loss", pg_loss)
        self.logger.record("train/value_loss", value_loss_mean)
        self.logger.record("train/approx_kl", table[last_epoch_start:, 4].mean().item())
        self.logger.record("train/clip_fraction", clip_fraction_mean)
        self.logger.record("train/loss", loss.item())
        self.logger.record("train/explained_variance", explained_var)
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip_range)
        if clip_range_vf is not None:
            self.logger.record("train/clip_range_vf", clip_range_vf)
