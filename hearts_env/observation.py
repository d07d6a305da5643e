"""The observation vector and its layout.

A public face: defined and documented in ``hearts_env.engine.observation``."""

from hearts_env.engine.observation import *  # noqa: F403
