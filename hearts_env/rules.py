"""``HeartsRules``: every variant knob.

A public face: defined and documented in ``hearts_env.engine.rules``."""

from hearts_env.engine.rules import *  # noqa: F403
