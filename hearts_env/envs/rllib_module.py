"""The masked PPO module of ``hearts_env.envs.rllib``: RLlib's ``DefaultPPOTorchRLModule`` over
``obs["observations"]``, with ``obs["action_mask"]`` applied to its logits.

It is built the way Ray 2.60 builds every RL module, ``RLModule(observation_space=...,
action_space=..., model_config=...)`` (``RLModuleSpec.build``), and has the default module's
networks, with the same parameter names (``encoder.actor_encoder``, ``encoder.critic_encoder``,
``pi``, ``vf``; ``hearts_env.train.libraries.rllib_ppo`` exports the policy from them). The observation
space must be a ``Dict`` of ``"observations"`` (the network's input) and ``"action_mask"`` (1 for
each legal card): cards outside the mask get the logit ``FLOAT_MIN``, so no distribution RLlib
builds from the logits (sampling, greedy, the PPO ratio) picks them. The batch given to the
module is never modified.

This module imports Ray at once; ``hearts_env.envs.rllib`` imports it only inside ``module_spec``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

OBSERVATIONS = "observations"
ACTION_MASK = "action_mask"


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """``DefaultPPOTorchRLModule`` over ``obs["observations"]`` whose logits outside
    ``obs["action_mask"]`` are ``FLOAT_MIN``."""

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space) != {OBSERVATIONS, ACTION_MASK}:
            raise ValueError(
                f"MaskedPPOTorchRLModule needs a Dict observation space of {OBSERVATIONS!r} and {ACTION_MASK!r}, "
                f"got {observation_space!r}"
            )
        self._observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space[OBSERVATIONS], **kwargs)

    def setup(self) -> None:
        super().setup()  # the networks, sized for the observations alone
        self.observation_space = self._observation_space_with_mask  # what the env runners check

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inputs = _split(batch)
        return _masked(super()._forward(inputs, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inputs = _split(batch)
        return _masked(super()._forward_train(inputs, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        return super().compute_values(batch if embeddings is not None else _split(batch)[1], embeddings)


def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The mask, and a shallow copy of the batch whose observations are the network's input."""
    obs = batch[Columns.OBS]
    return obs[ACTION_MASK], {**batch, Columns.OBS: obs[OBSERVATIONS]}


def _masked(outputs: dict[str, Any], mask: Any) -> dict[str, Any]:
    logits = outputs[Columns.ACTION_DIST_INPUTS]
    outputs[Columns.ACTION_DIST_INPUTS] = logits.masked_fill(mask == 0, FLOAT_MIN)
    return outputs
