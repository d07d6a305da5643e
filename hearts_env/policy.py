"""The ``Policy`` interface of agents.

A public face: defined and documented in ``hearts_env.play.policy``."""

from hearts_env.play.policy import *  # noqa: F403
