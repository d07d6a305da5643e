"""The agents' kernels call the core's: cache them in the folder of both packages' sources
(see ``hearts_env.compiled``). Imported first by ``agents/__init__.py``.

Loops that play whole games card by card (search rollouts, compiled tables) call the core's
per-card kernels (``kernels.step_game``, ``kernels.legal_cards``, ``infoset.infoset_row``), which
numba inlines into them (``hearts_env.compiled.inline_kernel``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from hearts_env import compiled

compiled.use_cache_for(Path(__file__).resolve().parent)

from hearts_env.core import State  # noqa: E402  (after the cache folder is set)
from hearts_env.policy import Policy  # noqa: E402


class CompiledTable:
    """Base of the agents that ``hearts_env.agents.table`` plays in one compiled loop (the heuristic and
    simple): their ``play_table`` (``hearts_env.policy.TablePolicy``)."""

    def play_table(
        self, state: State, agent_at: np.ndarray, agents: Sequence[Policy]
    ) -> tuple[State, np.ndarray, np.ndarray] | None:
        """Whole games with heuristic and simple players at every seat, in one compiled loop
        (``hearts_env.agents.table.play_table``)."""
        from hearts_env.agents.table import play_table  # which imports the agents' modules, and so this one

        return play_table(state, agent_at, agents)
