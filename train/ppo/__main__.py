"""``python -m hearts_env.train.ppo``: the same command as ``hearts-train``."""

from hearts_env.train.cli import ppo

ppo()
