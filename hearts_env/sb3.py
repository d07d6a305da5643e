"""The stable-baselines3 vector env adapter.

A public face: defined and documented in ``hearts_env.envs.sb3``."""

from hearts_env.envs.sb3 import *  # noqa: F403
