"""The Gymnasium environments (one learner seat; the vector env over a batch of tables).

A public face: defined and documented in ``hearts_env.envs.gym_env``."""

from hearts_env.envs.gym_env import *  # noqa: F403
