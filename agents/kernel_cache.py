"""The agents' kernels call the core's and one another's (a search's rollouts play the rule-based
kernels): cache them in a folder named after the sources of the core and of every agent family
that defines kernels (see ``hearts_env.engine.compiled``). Imported first by ``agents/__init__.py``,
before any module that defines kernels.

Loops that play whole games card by card (search rollouts, compiled tables) call the core's
per-card kernels (``kernels.step_game``, ``kernels.legal_cards``, ``infoset.infoset_row``), which
numba inlines into them (``hearts_env.engine.compiled.inline_kernel``).
"""

from __future__ import annotations

from pathlib import Path

from hearts_env.engine import compiled

_HERE = Path(__file__).resolve().parent
compiled.use_cache_for(*(_HERE / family for family in ("rule_based", "search", "learned")))
