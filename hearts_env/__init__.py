"""hearts_env: Hearts as a vectorised reinforcement-learning environment."""

from hearts_env.aec import env, raw_env
from hearts_env.rules import HeartsRules

__all__ = ["HeartsRules", "env", "raw_env"]
__version__ = "0.1.0"
