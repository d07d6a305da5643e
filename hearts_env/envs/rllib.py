"""RLlib glue: Hearts as an RLlib multi-agent environment, and masked PPO for it out of the box.

The masked PPO module (``hearts_env.envs.rllib_module.MaskedPPOTorchRLModule``: RLlib's
``DefaultPPOTorchRLModule`` with the mask applied to its logits) reads ``obs["observations"]`` and
``obs["action_mask"]`` and feeds the former straight into a float network, while
``hearts_env.env()`` observes ``{"observation": uint8, "action_mask": int8}``. This module bridges
the two:

- ``MaskedFloatObservations``: a PettingZoo AEC wrapper presenting each agent's observation as
  ``{"observations": float32 (layout.size,), "action_mask": int8 (52,)}``, the vector multiplied
  by ``ObservationLayout.scale()`` (counts near 0..1), the mask the env's own.
- ``env_creator(config)``: RLlib's ``PettingZooEnv`` over that wrapper over
  ``hearts_env.env(**config)``.
- ``register(name)``: registers ``env_creator`` with Ray Tune under ``name`` (``"hearts_v0"``).
- ``rl_module_spec(model_config)``: a ``MultiRLModuleSpec`` holding one masked PPO module,
  ``"shared"``, that plays every seat (``policy_mapping_fn``); ``module_spec(model_config)`` is
  that module's own spec, for single-agent training.
- ``ppo_config(env_config, model_config)``: a ``PPOConfig`` wired with all of the above.
- ``MaskedFloatVectorObservations``: the same observations for the batched ``HeartsVectorEnv``
  (one learner seat, opponents played inside the env), so that one RLlib env runner steps
  hundreds of tables at once through RLlib's single-agent API (``hearts_env.train.libraries.rllib_ppo`` builds it).

``config`` / ``env_config`` holds ``hearts_env.env()``'s keywords: ``reward``, ``history``,
``illegal_reward``, ``rules`` or the rules knobs (``num_players``, ``jack_of_diamonds``, ...).
RLlib seeds each env runner's environments on their first reset: table ``i`` of runner ``w`` gets
``s + w + i`` (``config.debugging(seed=s)``), so tables of different runners would share seeds;
``env_creator`` therefore seeds each game from the pair (that seed, ``w``), and
``MaskedFloatVectorObservations`` each of its tables from (that seed, ``i``): every table of a
run plays its own games. The later episodes follow from those seeds, so a seeded run is
reproducible.

Ray is imported only inside the functions that need it: ``import hearts_env`` never imports Ray,
and this module imports without it (the wrappers are plain PettingZoo and Gymnasium). Install
Ray with the project's extra: ``pip install -e ".[ray]"``.

```python
import ray
from hearts_env.envs import rllib

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
from gymnasium.vector import AutoresetMode, VectorWrapper
from gymnasium.vector.utils import batch_space
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from hearts_env.engine import seeding
from hearts_env.engine.cards import NUM_CARDS
from hearts_env.envs import aec
from hearts_env.envs.aec import raw_env
from hearts_env.envs.gym_env import HeartsVectorEnv

if TYPE_CHECKING:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

ENV_NAME = "hearts_v0"
"""The name ``register()`` gives the environment by default (PettingZoo's ``metadata["name"]``)."""
MODULE_ID = "shared"
"""The id of the one RL module that plays every seat."""
MODEL_CONFIG: dict[str, Any] = {"fcnet_hiddens": [256, 256], "fcnet_activation": "relu", "vf_share_layers": False}
"""The default network: that of ``hearts_env.train.ppo`` (separate 256x256 ReLU policy and value MLPs)."""
TABLE_SEEDS = 16
"""The ``hearts_env.engine.seeding`` stream the RLlib environments derive their tables' seeds from."""


class MaskedFloatObservations(BaseWrapper):
    """Presents a Hearts AEC env's observations as RLlib's action-masking module reads them:
    ``{"observations": float32 vector scaled by ObservationLayout.scale(), "action_mask": int8}``;
    the mask is the env's own (all zeros for agents not on turn). With ``table`` (an env runner's
    index), ``reset(seed=s)`` seeds the env with ``seeding.derive(s, TABLE_SEEDS, table)``."""

    def __init__(self, env: AECEnv, table: int | None = None) -> None:
        if not isinstance(getattr(env, "unwrapped", None), raw_env):
            raise ValueError(f"MaskedFloatObservations wraps a hearts_env AEC env (hearts_env.env()), got {env!r}")
        super().__init__(env)
        self._table = table
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

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None and self._table is not None:
            seed = int(seeding.derive(seed, TABLE_SEEDS, self._table) >> np.uint64(1))
        self.env.reset(seed=seed, options=options)


class MaskedFloatVectorObservations(VectorWrapper):
    """Presents a ``HeartsVectorEnv``'s observations as RLlib's action-masking module reads them:
    ``{"observations": float32 (B, layout.size) scaled by ObservationLayout.scale(), "action_mask":
    int8 (B, 52)}`` (the learners' legal cards; all zeros on an episode's final observation). The
    env must auto-reset in ``AutoresetMode.NEXT_STEP``, as RLlib's single-agent env runner expects
    (it records the next episode's first observation on the step after the last). The info
    dicts are left empty: RLlib would store them, a mask per step, in its episodes.

    ``reset(seed=s)`` with an int gives table ``i`` the seed ``seeding.derive(s, TABLE_SEEDS, i)``
    (instead of the vector env's ``s + i``): RLlib seeds its env runners ``s``, ``s + 1``, ... and
    their tables must not replay each other's games."""

    env: HeartsVectorEnv

    def __init__(self, env: HeartsVectorEnv) -> None:
        if not isinstance(env, HeartsVectorEnv) or env.autoreset_mode != AutoresetMode.NEXT_STEP:
            raise ValueError(
                f"MaskedFloatVectorObservations wraps a HeartsVectorEnv with autoreset_mode=AutoresetMode.NEXT_STEP, "
                f"got {env!r}"
            )
        super().__init__(env)
        layout = env.layout
        self._scale = layout.scale()
        box = spaces.Box(np.zeros(layout.size, np.float32), 255 * self._scale, dtype=np.float32)
        self.single_observation_space = spaces.Dict(
            {"observations": box, "action_mask": spaces.Box(0, 1, (NUM_CARDS,), dtype=np.int8)}
        )
        self.observation_space = batch_space(self.single_observation_space, env.num_envs)

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seed = [int(s) for s in seeding.derive(int(seed), TABLE_SEEDS, np.arange(self.num_envs)) >> np.uint64(1)]
        obs, _ = self.env.reset(seed=seed, options=options)
        return self._observe(obs), {}

    def step(
        self, actions: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        obs, rewards, terminations, truncations, _ = self.env.step(actions)
        return self._observe(obs), rewards, terminations, truncations, {}

    def _observe(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        mask = self.env.action_masks().astype(np.int8)
        return {"observations": obs * self._scale, "action_mask": mask}


def env_creator(config: Mapping[str, Any] | None = None) -> MultiAgentEnv:
    """RLlib's ``PettingZooEnv`` over ``MaskedFloatObservations(hearts_env.env(**config))``;
    ``config`` may be RLlib's ``EnvContext``, whose ``worker_index`` then takes part in the seed."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    table = MaskedFloatObservations(aec.env(**dict(config or {})), getattr(config, "worker_index", None))
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


def module_spec(model_config: Mapping[str, Any] | None = None) -> RLModuleSpec:
    """The spec of one masked PPO module, ``hearts_env.envs.rllib_module.MaskedPPOTorchRLModule``, with
    ``model_config`` (``DefaultModelConfig`` fields; ``MODEL_CONFIG`` by default)."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from hearts_env.envs.rllib_module import MaskedPPOTorchRLModule

    return RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=dict(model_config or MODEL_CONFIG))


def rl_module_spec(model_config: Mapping[str, Any] | None = None) -> MultiRLModuleSpec:
    """The RL module spec of masked self-play PPO: ``module_spec(model_config)`` under
    ``MODULE_ID``. Pass it to ``config.rl_module(rl_module_spec=...)``."""
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    return MultiRLModuleSpec(rl_module_specs={MODULE_ID: module_spec(model_config)})


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
