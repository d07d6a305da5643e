"""The interface of anything that plays a seat, and the uniformly random player.

A policy maps the information sets of a batch of games and their legal-action masks to one card
id per game: ``policy(info, mask) -> (B,) int``. Environments call opponents this way, and the
agents of ``agents/`` implement it. A policy with a ``seed(seed)`` method is reseeded by the
environment's ``reset(seed=...)``, so a seeded run is reproducible.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from hearts_env.core import mask_to_bits, sample_from_bits
from hearts_env.infoset import InfoSet


@runtime_checkable
class Policy(Protocol):
    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray: ...


class RandomPolicy:
    """A uniformly random legal card (passing included)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | np.random.SeedSequence | None) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        return sample_from_bits(mask_to_bits(mask), self.rng)
