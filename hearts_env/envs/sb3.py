"""stable-baselines3 adapter: ``HeartsVectorEnv`` as an SB3 ``VecEnv``, so that sb3-contrib's
``MaskablePPO`` trains on the batched tables directly.

This module imports stable_baselines3 (``pip install stable-baselines3 sb3-contrib``); the rest of
``hearts_env`` does not need it.

SB3's ``VecEnv`` conventions: ``reset()`` returns the observations only, ``step`` returns
``(obs, rewards, dones, infos)`` with ``infos`` a list of one dict per game; a game whose episode
ends is reset in the same step (``HeartsVectorEnv`` auto-resets in ``AutoresetMode.SAME_STEP``),
its final observation in ``infos[i]["terminal_observation"]``. With ``global_state=True`` (a
``HeartsVectorEnv`` keyword) the observations are dicts, ``{"observation": the learner's vector,
"state": the global state seen from the learner}`` in a ``Dict`` space, so that SB3's rollout
buffers keep the state beside each observation for a critic that reads it (``hearts-train
--critic state``); the ``"observation"`` entry is the same vector as without the option. ``action_masks()`` and
``env_method("action_masks")`` give the learners' legal cards, which ``MaskablePPO`` reads through
``sb3_contrib.common.maskable.utils.get_action_masks``. ``seed(s)`` gives game ``i`` the seed
``s + i`` at the next ``reset()``, as ``HeartsVectorEnv.reset(seed=s)`` does. Wrap it in SB3's
``VecMonitor`` for episode statistics in the training logs.

```python
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecMonitor
from hearts_env.sb3 import SB3VecEnv

vec_env = VecMonitor(SB3VecEnv(num_envs=64, num_players=4, reward="points", learner_seat="rotate"))
model = MaskablePPO("MlpPolicy", vec_env, n_steps=128, seed=0)
model.learn(total_timesteps=20_000)
```
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from hearts_env.envs.gym_env import HeartsVectorEnv, card_ids


class SB3VecEnv(VecEnv):
    """A ``HeartsVectorEnv`` behind SB3's ``VecEnv`` interface. Give the vector environment, or the
    arguments to build one (``num_envs`` and any ``HeartsVectorEnv`` keyword)."""

    def __init__(self, env: HeartsVectorEnv | None = None, **kwargs: Any) -> None:
        if env is None:
            env = HeartsVectorEnv(**kwargs)
        elif kwargs:
            raise ValueError("give either a HeartsVectorEnv or the arguments to build one, not both")
        if env.autoreset_mode != AutoresetMode.SAME_STEP:  # SB3 reads the final observation from the info
            raise ValueError(f"SB3VecEnv needs autoreset_mode=AutoresetMode.SAME_STEP, got {env.autoreset_mode}")
        self.env = env
        space: spaces.Space = env.single_observation_space
        if env.single_state_space is not None:
            space = spaces.Dict({"observation": space, "state": env.single_state_space})
        super().__init__(env.num_envs, space, env.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> VecEnvObs:
        seeds: Sequence[int | None] | None = None if all(s is None for s in self._seeds) else self._seeds
        options = self._options[0] or None  # the same options for every game
        obs, info = self.env.reset(seed=seeds, options=options)
        self._reset_seeds()
        self._reset_options()
        return self._observations(obs, info)

    def _observations(self, obs: np.ndarray, info: dict[str, Any]) -> VecEnvObs:
        """The observations, with the global state beside them when the env gives it."""
        return {"observation": obs, "state": info["state"]} if "state" in info else obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = card_ids(actions, self.num_envs)  # refused here if they are no actions at all

    def step_wait(self) -> VecEnvStepReturn:
        """The step of the actions ``step_async`` gave (``RuntimeError`` without them), taken once."""
        actions, self._actions = self._actions, None
        if actions is None:
            raise RuntimeError("step_wait() needs the actions of step_async(actions) first (or call step(actions))")
        obs, rewards, terminated, truncated, info = self.env.step(actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):  # SB3's per-game info dicts
            final = info["final_obs"][i]
            if "state" in info:
                final = {"observation": final, "state": info["final_info"]["state"][i]}
            infos[i]["terminal_observation"] = final
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return self._observations(obs, info), rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, 52) bool: each learner's legal cards."""
        return self.env.action_masks()

    def check_actions(self, actions: np.ndarray, first_game: int = 0) -> None:
        """Raise what ``step(actions)`` refuses, before anything changes (``HeartsVectorEnv.check_actions``)."""
        self.env.check_actions(actions, first_game)

    def close(self) -> None:
        self.env.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The vector environment's attribute, once per index (the games share it)."""
        value = getattr(self.env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of the vector environment (shared by every game)."""
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        """``action_masks`` gives one (52,) mask per index; any other method is called once on the
        vector environment, its result given once per index."""
        indices = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self.env.action_masks()[indices])
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result for _ in indices]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]
