"""The agents' kernels call the core's: cache them in the folder of both packages' sources (see
``hearts_env.engine.compiled``). Imported first by ``agents/__init__.py``, before any module that
defines kernels.

Loops that play whole games card by card (search rollouts, compiled tables) call the core's
per-card kernels (``kernels.step_game``, ``kernels.legal_cards``, ``infoset.infoset_row``), which
numba inlines into them (``hearts_env.engine.compiled.inline_kernel``).
"""

from __future__ import annotations

from pathlib import Path

from hearts_env.engine import compiled

compiled.use_cache_for(Path(__file__).resolve().parent)
