"""hearts_env: Hearts as a fast reinforcement-learning environment (compiled rules, standard interfaces)."""

import gymnasium

from hearts_env.engine import compiled  # noqa: F401  (first: where numba caches the kernels defined below)
from hearts_env.engine.rules import HeartsRules
from hearts_env.envs.aec import env, raw_env
from hearts_env.envs.gym_env import HeartsEnv, HeartsVectorEnv

__all__ = ["HeartsEnv", "HeartsRules", "HeartsVectorEnv", "env", "raw_env"]
__version__ = "0.1.0"

if "hearts_env/Hearts-v0" not in gymnasium.registry:
    gymnasium.register(
        id="hearts_env/Hearts-v0",
        entry_point="hearts_env.envs.gym_env:HeartsEnv",
        vector_entry_point="hearts_env.envs.gym_env:HeartsVectorEnv",
    )
