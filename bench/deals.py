"""The benchmark's frozen deal sets: keys drawn from a split's own seeding stream, and their hashes.

A table of a track (``suite.Table``) deals from its documented ``deal_seed`` on the split's stream:
deal ``d`` of the ``test`` split has the key ``seeding.derive(deal_seed, seeding.BENCH_TEST, d)``
(``dev``: ``seeding.BENCH_DEV``). Training draws its games from ``seeding.GAMES`` with the user's
seeds (``seeding.game_keys``), so it never meets a test deal (``tests/bench/test_bench.py`` checks the
seeds training uses). A match plays the first ``deals`` keys of its table; the ``quick`` setting
the first tenth of those.

A deal set's identity is ``deal_hash``: the SHA-256 of its keys and of the first hand dealt from
each (``core.new_games(rules, keys=...)``: the hands, and with two decks the second copies and the
kitty), so a change to the keys, the table or the dealing code changes it. The suite records the
hash of every table's deal set; a run recomputes it before it plays.
"""

from __future__ import annotations

import hashlib

import numpy as np

from hearts_env.engine import core, seeding
from hearts_env.engine.rules import HeartsRules

SPLIT_STREAMS = {"dev": seeding.BENCH_DEV, "test": seeding.BENCH_TEST}
"""The seeding stream of each split's deal keys."""


def split_keys(split: str, deal_seed: int, deals: int) -> np.ndarray:
    """(deals,) uint64: the keys of the first ``deals`` deals of a table with ``deal_seed`` in ``split``."""
    if split not in SPLIT_STREAMS:
        raise ValueError(f"unknown split {split!r}; the splits are {', '.join(SPLIT_STREAMS)}")
    return seeding.derive(deal_seed, SPLIT_STREAMS[split], np.arange(deals))


def deal_hash(rules: HeartsRules, keys: np.ndarray) -> str:
    """The SHA-256 (hex) of the deal keys and the first hand each deals at a table of ``rules``."""
    state = core.new_games(rules, keys=keys)
    digest = hashlib.sha256()
    arrays = [np.asarray(keys, np.uint64), state.hands]
    if rules.decks == 2:
        arrays += [state.hands2, state.kitty]
    for array in arrays:
        digest.update(np.ascontiguousarray(array).astype("<u8").tobytes())
    return digest.hexdigest()
