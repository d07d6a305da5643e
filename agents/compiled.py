"""The agents' kernels call the core's: cache them in the folder of both packages' sources
(see ``hearts_env.compiled``). Imported first by ``agents/__init__.py``.

Loops that play whole games card by card (search rollouts, compiled tables) inline the core's
per-game kernels: the same code, without a call per card that passes every array as a struct
(15-20% of a rollout).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numba import njit

from hearts_env import compiled

compiled.use_cache_for(Path(__file__).resolve().parent)

from hearts_env import kernels  # noqa: E402  (after the cache folder is set)
from hearts_env.core import State  # noqa: E402
from hearts_env.infoset import infoset_row  # noqa: E402
from hearts_env.policy import Policy  # noqa: E402

inline_step_game = njit(inline="always")(kernels.step_game.py_func)
inline_legal_cards = njit(inline="always")(kernels.legal_cards.py_func)
inline_infoset_row = njit(inline="always")(infoset_row.py_func)


class CompiledTable:
    """Base of the agents that ``agents.table`` plays in one compiled loop (the heuristic and
    simple): their ``play_table`` (``hearts_env.policy.TablePolicy``)."""

    def play_table(
        self, state: State, agent_at: np.ndarray, agents: Sequence[Policy]
    ) -> tuple[State, np.ndarray, np.ndarray] | None:
        """Whole games with heuristic and simple players at every seat, in one compiled loop
        (``agents.table.play_table``)."""
        from agents.table import play_table  # which imports the agents' modules, and so this one

        return play_table(state, agent_at, agents)
