"""The PettingZoo AEC environment.

A public face: defined and documented in ``hearts_env.envs.aec``."""

from hearts_env.envs.aec import *  # noqa: F403
