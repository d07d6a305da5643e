"""RLlib's multi-agent environment and masked PPO.

A public face: defined and documented in ``hearts_env.envs.rllib``."""

from hearts_env.envs.rllib import *  # noqa: F403
