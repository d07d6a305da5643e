"""Training tables in shards: an SB3 ``VecEnv`` over K ``SB3VecEnv`` shards, stepped in this
process or side by side on Ray actors.

With slow opponents (search agents) the opponents' decisions are the cost of collecting a
rollout, and they are taken inside the environment's ``step``. ``ShardedVecEnv`` splits the
``num_envs`` tables into ``shards`` contiguous shards, each a ``HeartsVectorEnv`` of its own
(``make_tables(n)``, with its own copy of the opponents) behind ``hearts_env.envs.sb3.SB3VecEnv``;
the learner (SB3's algorithm) stays in this process and sees one ``VecEnv`` of ``num_envs`` games.
With ``ray`` each shard lives on a Ray actor of one CPU (``hearts_env.arena.sharding.RayActors``:
Ray started here, or the cluster at ``ray``) and the shards step side by side; without it they
step here, one after the other.

Seeds: ``seed(s)`` gives game ``i`` the seed ``s + i`` at the next ``reset()``, as one
``SB3VecEnv`` of all the tables does, so the shard holding games ``[a, b)`` plays the games those
tables play there; each shard's ``HeartsVectorEnv`` reseeds its opponents from its first game's
seed ``s + a``, so their random streams are the shard's own. The training therefore depends on the
seed and the number of shards, never on where the shards ran: ``ray`` or not, the same ``shards``
give the same observations, rewards and so the same training. One shard gives the one
``SB3VecEnv``'s games and opponents' cards. Each shard receives a copy of ``make_tables`` (pickled
to a Ray actor, or copied here): it must be picklable, as a module-level function or a
``functools.partial`` of one, and bring everything the tables need.

```python
from functools import partial
from sb3_contrib import MaskablePPO
from hearts_env.agents import make_agent
from hearts_env.envs.gym_env import HeartsVectorEnv
from hearts_env.envs.sharded import ShardedVecEnv

tables = partial(HeartsVectorEnv, opponents=make_agent("heuristic"), learner_seat="rotate")
env = ShardedVecEnv(tables, num_envs=64, shards=2)  # ray="" or ray="auto": the shards on Ray actors
model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=512, seed=0)
model.learn(total_timesteps=2048)
env.close()
```

Only this module's ``ray=`` needs Ray (the ``ray`` extra), imported when used.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any, cast

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from hearts_env.arena.sharding import RayActors
from hearts_env.engine import checks
from hearts_env.envs.gym_env import HeartsVectorEnv, card_ids
from hearts_env.envs.sb3 import SB3VecEnv

__all__ = ["ShardedVecEnv", "TableShard"]

TablesMaker = Callable[[int], HeartsVectorEnv]
"""``make_tables(n)``: a ``HeartsVectorEnv`` of ``n`` tables, its opponents its own."""


class TableShard:
    """One shard's tables: ``SB3VecEnv(make_tables(num_envs))``, whose ``reset`` and ``step`` also
    return the learners' masks, so that a step is one call (one round trip to a Ray actor)."""

    def __init__(self, make_tables: TablesMaker, num_envs: int) -> None:
        self.env = SB3VecEnv(make_tables(num_envs))

    def spaces(self) -> tuple[spaces.Space, spaces.Space]:
        """The observation and action spaces of one game."""
        return self.env.observation_space, self.env.action_space

    def reset(self) -> tuple[VecEnvObs, np.ndarray]:
        return self.env.reset(), self.env.action_masks()

    def check(self, actions: np.ndarray, first_game: int) -> None:
        """Raise what ``step(actions)`` refuses, before anything changes; games counted from ``first_game``."""
        self.env.check_actions(actions, first_game)

    def step(self, actions: np.ndarray) -> tuple[VecEnvObs, np.ndarray, np.ndarray, list[dict], np.ndarray]:
        return *self.env.step(actions), self.env.action_masks()

    def call(self, method: str, args: tuple = (), kwargs: dict[str, Any] | None = None) -> Any:
        """``SB3VecEnv``'s ``method(*args, **kwargs)`` (``seed``, ``get_attr``, ...)."""
        return getattr(self.env, method)(*args, **(kwargs or {}))

    def close(self) -> None:
        self.env.close()


class _Here:
    """The shards in this process, each made from its own copy of its arguments (as a Ray actor
    is), called one after the other; ``RayActors``' interface."""

    def __init__(self, cls: type, args: Sequence[tuple]) -> None:
        self.objects: list[Any] = []
        try:
            for a in args:
                self.objects.append(cls(*copy.deepcopy(a)))
        except BaseException:  # the shards made so far are closed (a window, a bot's process)
            self.call("close", [()] * len(self.objects))
            raise

    def call(self, method: str, args: Sequence[tuple]) -> list[Any]:
        return [getattr(obj, method)(*a) for obj, a in zip(self.objects, args, strict=True)]

    def shutdown(self) -> None:
        self.objects = []


class ShardedVecEnv(VecEnv):
    """``num_envs`` training tables in ``shards`` contiguous shards of ``make_tables(n)`` tables
    (as even as can be), stepped here or on Ray actors (``ray``: "" for Ray started here, or a
    cluster's address; ``ray_init``: more ``ray.init`` arguments). See the module docstring."""

    def __init__(
        self, make_tables: TablesMaker, num_envs: int, shards: int = 1, ray: str | None = None, **ray_init: Any
    ) -> None:
        checks.count("num_envs", num_envs)
        checks.count("shards", shards)
        if shards > num_envs:
            raise ValueError(f"shards must be at most num_envs ({num_envs}): a shard holds one table or more")
        sizes = [len(part) for part in np.array_split(np.arange(num_envs), shards)]
        bounds = np.cumsum([0] + sizes).tolist()
        self.games = [range(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]  # each shard's
        args = [(make_tables, n) for n in sizes]
        self._shards = _Here(TableShard, args) if ray is None else RayActors(TableShard, args, ray or None, **ray_init)
        self._masks = np.zeros((num_envs, 0), bool)  # the learners' legal cards, from each reset and step
        self._actions: np.ndarray | None = None
        self._closed = False
        try:
            observation_space, action_space = self._each("spaces")[0]  # the shards are up (or fail here)
        except BaseException:
            self._shards.shutdown()  # the actors, and Ray if it was started for them
            raise
        super().__init__(num_envs, observation_space, action_space)

    def _each(self, method: str, args: Sequence[tuple] | None = None) -> list[Any]:
        """``TableShard.method`` on every shard (with its entry of ``args``), side by side on Ray."""
        if self._closed:
            raise RuntimeError("the ShardedVecEnv is closed")
        return self._shards.call(method, [()] * len(self.games) if args is None else args)

    def _env(self, method: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Every shard's ``SB3VecEnv.method(*args, **kwargs)``."""
        return self._each("call", [(method, args, kwargs)] * len(self.games))

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        seeds = super().seed(seed)  # seed + i for game i
        self._each("call", [("seed", (seeds[g.start],)) for g in self.games])  # a shard's game i: seeds[start] + i
        self._reset_seeds()  # kept by the shards until their reset
        return seeds

    def set_options(self, options: list[dict] | dict | None = None) -> None:
        if isinstance(options, list):
            self._each("call", [("set_options", (options[g.start : g.stop],)) for g in self.games])
        else:
            self._env("set_options", options)

    def reset(self) -> VecEnvObs:
        obs, masks = zip(*self._each("reset"), strict=True)
        self._masks = np.concatenate(masks)
        return _concatenate(obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = card_ids(actions, self.num_envs)  # refused here if they are no actions at all

    def step_wait(self) -> VecEnvStepReturn:
        """The step of the actions ``step_async`` gave, all or nothing: every shard's actions are
        checked (``HeartsVectorEnv.check_actions``, the check of its own ``step``) before any shard
        steps, so a bad one leaves every shard as it was."""
        actions, self._actions = self._actions, None
        if actions is None:
            raise RuntimeError("step_wait() needs the actions of step_async(actions) first (or call step(actions))")
        parts = [actions[g.start : g.stop] for g in self.games]
        self._each("check", [(part, g.start) for part, g in zip(parts, self.games, strict=True)])
        obs, rewards, dones, infos, masks = zip(*self._each("step", [(part,) for part in parts]), strict=True)
        self._masks = np.concatenate(masks)
        return _concatenate(obs), np.concatenate(rewards), np.concatenate(dones), [i for part in infos for i in part]

    def action_masks(self) -> np.ndarray:
        """(num_envs, 52) bool: each learner's legal cards."""
        return self._masks

    def close(self) -> None:
        """Close every shard and end their actors (and Ray if it was started for them); once."""
        if self._closed:
            return
        try:
            self._each("close")
        finally:
            self._closed = True
            self._shards.shutdown()

    def _per_game(self, per_shard: list[Any], indices: VecEnvIndices) -> list[Any]:
        """Each shard's value once for each of its games among ``indices``."""
        shard_of = [k for k, games in enumerate(self.games) for _ in games]
        return [per_shard[shard_of[i]] for i in self._get_indices(indices)]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The vector environments' attribute, each shard's for its games."""
        return self._per_game([values[0] for values in self._env("get_attr", attr_name, 0)], indices)

    def has_attr(self, attr_name: str) -> bool:
        return all(self._env("has_attr", attr_name))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of every shard's vector environment (shared by its games)."""
        self._env("set_attr", attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        """``action_masks`` gives one (52,) mask per index; any other method is called once on each
        shard's vector environment, its result given for each of its games."""
        if method_name == "action_masks":
            return list(self._masks[list(self._get_indices(indices))])
        results = self._env("env_method", method_name, *method_args, indices=0, **method_kwargs)
        return self._per_game([r[0] for r in results], indices)

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]


def _concatenate(parts: Sequence[VecEnvObs]) -> VecEnvObs:
    """The shards' observations as one batch: arrays, or dicts of arrays (with the global state)."""
    if isinstance(parts[0], dict):
        dicts = cast("Sequence[dict[str, np.ndarray]]", parts)
        return {key: np.concatenate([p[key] for p in dicts]) for key in dicts[0]}
    return np.concatenate(cast("Sequence[np.ndarray]", parts))
