"""``SimplePolicy``: a classic low-risk Hearts player.

* Passing: the highest card by rank, one pick at a time (so the ``pass_count`` highest cards);
  equal ranks go spades first, then hearts, diamonds, clubs.
* Following suit: the highest card that still loses to the trick's current winner, else the
  lowest card of the suit.
* Void in the led suit: the QS if it may, else the highest heart, else the highest card by rank.
* Leading: the lowest legal card by rank (equal ranks: clubs, diamonds, spades, hearts).

The rules are compiled (``simple_kernels``): ``simple_card`` decides one game from its info row
(and can be called from other compiled code), ``simple_cards`` loops over a batch.
"""

from __future__ import annotations

import numpy as np

from hearts_env.agents.rule_based.players import SIMPLE
from hearts_env.agents.rule_based.simple_kernels import simple_cards
from hearts_env.agents.rule_based.table import CompiledTable
from hearts_env.engine.infoset import InfoSet
from hearts_env.engine.kernels import rule_params


class SimplePolicy(CompiledTable):
    """A classic low-risk player: pass high cards, duck, dump the QS and high hearts, lead low."""

    compiled_player = SIMPLE

    def __init__(self, seed: int | None = None) -> None:
        """Deterministic: ``seed`` is accepted so that ``make_agent(name, seed=...)`` builds any agent."""

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        """One card per game for the seat to act; ``mask`` (the legal cards, ``info.legal`` as a
        mask) is not read: the legal cards come from ``info.legal``."""
        out = np.empty(info.batch_size, np.int64)
        simple_cards(info.data, info.layout.offsets, rule_params(info.rules), out)
        return out
