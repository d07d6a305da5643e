"""The agents' kernels call the core's: cache them in the folder of both packages' sources
(see ``hearts_env.compiled``). Imported first by ``agents/__init__.py``.

Loops that play whole games card by card (search rollouts, compiled tables) inline the core's
per-game kernels: the same code, without a call per card that passes every array as a struct
(15-20% of a rollout).
"""

from pathlib import Path

from numba import njit

from hearts_env import compiled

compiled.use_cache_for(Path(__file__).resolve().parent)

from hearts_env import kernels  # noqa: E402  (after the cache folder is set)
from hearts_env.infoset import infoset_row  # noqa: E402

inline_step_game = njit(inline="always")(kernels.step_game.py_func)
inline_legal_cards = njit(inline="always")(kernels.legal_cards.py_func)
inline_infoset_row = njit(inline="always")(infoset_row.py_func)
