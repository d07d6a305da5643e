"""The engine's public API: start, step and score a batch of games.

A public face: defined and documented in ``hearts_env.engine.core``."""

from hearts_env.engine.core import *  # noqa: F403
