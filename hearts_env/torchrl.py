"""The TorchRL environments.

A public face: defined and documented in ``hearts_env.envs.torchrl``."""

from hearts_env.envs.torchrl import *  # noqa: F403
