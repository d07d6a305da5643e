"""The OpenSpiel game ``hearts_env``, registered with ``pyspiel`` on import (needs the
``openspiel`` extra).

A public face: defined and documented in ``hearts_env.envs.openspiel``."""

from hearts_env.envs.openspiel import *  # noqa: F403
