"""RLlib glue: Hearts as an RLlib multi-agent environment, and masked PPO for it out of the box.

RLlib's action-masking PPO module (``ActionMaskingTorchRLModule``, shipped in RLlib's examples)
reads ``obs["observations"]`` and ``obs["action_mask"]`` and feeds the former straight into a float
network, while ``hearts_env.env()`` observes ``{"observation": uint8, "action_mask": int8}``. This
module bridges the two:

- ``MaskedFloatObservations``: a PettingZoo AEC wrapper presenting each agent's observation as
  ``{"observations": float32 (layout.size,), "action_mask": int8 (52,)}``, the vector multiplied
  by ``ObservationLayout.scale()`` (counts near 0..1), the mask the env's own.
- ``env_creator(config)``: RLlib's ``PettingZooEnv`` over that wrapper over
  ``hearts_env.env(**config)``.
- ``register(name)``: registers ``env_creator`` with Ray Tune under ``name`` (``"hearts_v0"``).
- ``rl_module_spec(model_config)``: a ``MultiRLModuleSpec`` holding one action-masking PPO module,
  ``"shared"``, that plays every seat (``policy_mapping_fn``).
- ``ppo_config(env_config, model_config)``: a ``PPOConfig`` wired with all of the above.

``config`` / ``env_config`` holds ``hearts_env.env()``'s keywords: ``reward``, ``history``,
``illegal_reward``, ``rules`` or the rules knobs (``num_players``, ``jack_of_diamonds``, ...).
RLlib seeds each env runner's environment on its first reset (``config.debugging(seed=s)`` plus
the runner's index); the later episodes follow from that seed, so a seeded run is reproducible.

Ray is imported only inside the functions that need it: ``import hearts_env`` never imports Ray,
and this module imports without it (the wrapper is plain PettingZoo). Install Ray with the
project's extra: ``pip install -e ".[ray]"``.

```python
import ray
from hearts_env import rllib

ray.init(num_cpus=2, include_dashboard=False)
config = (
    rllib.ppo_config({"reward": "points"})
    .env_runners(num_env_runners=1)
    .training(train_batch_size_per_learner=2048, minibatch_size=256)
    .debugging(seed=0)
)
algo = config.build_algo()
print(algo.train()["env_runners"]["episode_return_mean"])
algo.stop()
ray.shutdown()
```
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

import hearts_env
from hearts_env.aec import raw_env

if TYPE_CHECKING:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

ENV_NAME = "hearts_v0"
"""The name ``register()`` gives the environment by default (PettingZoo's ``metadata["name"]``)."""
MODULE_ID = "shared"
"""The id of the one RL module that plays every seat."""
MODEL_CONFIG: dict[str, Any] = {"fcnet_hiddens": [256, 256], "fcnet_activation": "relu", "vf_share_layers": False}
"""The default network: that of ``train.ppo`` (separate 256x256 ReLU policy and value MLPs)."""


class MaskedFloatObservations(BaseWrapper):
    """Presents a Hearts AEC env's observations as RLlib's action-masking module reads them:
    ``{"observations": float32 vector scaled by ObservationLayout.scale(), "action_mask": int8}``;
    the mask is the env's own (all zeros for agents not on turn)."""

    def __init__(self, env: AECEnv) -> None:
        if not isinstance(getattr(env, "unwrapped", None), raw_env):
            raise ValueError(f"MaskedFloatObservations wraps a hearts_env AEC env (hearts_env.env()), got {env!r}")
        super().__init__(env)
        layout = env.unwrapped.layout
        self._scale = layout.scale()
        box = spaces.Box(np.zeros(layout.size, np.float32), 255 * self._scale, dtype=np.float32)
        self.observation_spaces = {
            agent: spaces.Dict({"observations": box, "action_mask": env.observation_space(agent)["action_mask"]})
            for agent in self.possible_agents
        }

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.env.observe(agent)
        return {"observations": obs["observation"] * self._scale, "action_mask": obs["action_mask"]}


def env_creator(config: Mapping[str, Any] | None = None) -> MultiAgentEnv:
    """RLlib's ``PettingZooEnv`` over ``MaskedFloatObservations(hearts_env.env(**config))``;
    ``config`` may be RLlib's ``EnvContext``."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    table = MaskedFloatObservations(hearts_env.env(**dict(config or {})))
    env = PettingZooEnv(table)
    env.possible_agents = table.possible_agents[:]  # in seat order (PettingZooEnv lists a set)
    env.agents = table.possible_agents[:]
    return env


def register(name: str = ENV_NAME) -> str:
    """Register ``env_creator`` with Ray Tune under ``name``; returns the name for
    ``config.environment(name, env_config=...)``."""
    from ray.tune.registry import register_env

    register_env(name, env_creator)
    return name


def policy_mapping_fn(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Every seat plays the one shared module (self-play)."""
    return MODULE_ID


def rl_module_spec(model_config: Mapping[str, Any] | None = None) -> MultiRLModuleSpec:
    """The RL module spec of masked PPO: RLlib's ``ActionMaskingTorchRLModule`` under
    ``MODULE_ID``, with ``model_config`` (``DefaultModelConfig`` fields; ``MODEL_CONFIG`` by
    default). Pass it to ``config.rl_module(rl_module_spec=...)``."""
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=dict(model_config or MODEL_CONFIG))
    return MultiRLModuleSpec(rl_module_specs={MODULE_ID: module})


def ppo_config(
    env_config: Mapping[str, Any] | None = None,
    model_config: Mapping[str, Any] | None = None,
    env_name: str = ENV_NAME,
) -> PPOConfig:
    """A ``PPOConfig`` for masked self-play PPO on Hearts: the environment registered under
    ``env_name`` with ``env_config`` (``hearts_env.env()``'s keywords), every seat mapped to the
    shared module, and ``rl_module_spec(model_config)``. Chain ``.training(...)``,
    ``.env_runners(...)``, ``.debugging(seed=...)`` onto it as usual."""
    from ray.rllib.algorithms.ppo import PPOConfig

    return (
        PPOConfig()
        .environment(register(env_name), env_config=dict(env_config or {}))
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=policy_mapping_fn)
        .rl_module(rl_module_spec=rl_module_spec(model_config))
    )
