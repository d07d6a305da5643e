"""hearts_env: Hearts as a vectorised reinforcement-learning environment."""

from hearts_env.rules import HeartsRules

__all__ = ["HeartsRules"]
__version__ = "0.1.0"
