"""Card ids, names and decks.

A public face: defined and documented in ``hearts_env.engine.cards``."""

from hearts_env.engine.cards import *  # noqa: F403
