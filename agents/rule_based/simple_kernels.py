"""The simple player's card choice, compiled: ``simple_card`` decides one game from its info row
(other compiled code calls it), ``simple_cards`` loops over a batch. The rules are described in
``hearts_env.agents.rule_based.simple``."""

from __future__ import annotations

import numpy as np
from numba import njit

from hearts_env.agents.rule_based.bitboards import HIGH_KEY, LOW_KEY, best_by_key, read_trick
from hearts_env.engine.cards import BELOW, HEART_BITS, QS, QS_BIT, SUIT_BITS
from hearts_env.engine.compiled import row_kernel
from hearts_env.engine.core import PASS
from hearts_env.engine.infoset import I_LEGAL, I_PHASE
from hearts_env.engine.kernels import R_PLAYERS, high_card, low_card

U64 = np.uint64


@njit(cache=True, inline="always")
def simple_card(i64: np.ndarray, i8: np.ndarray, ioff: np.ndarray, rp: np.ndarray) -> int:
    """The simple player's card for the seat to act in one info row (0 when it has no legal card)."""
    legal = i64[ioff[I_LEGAL]]
    if legal == 0:
        return 0
    _, _, led_suit, winning, _ = read_trick(i8, ioff, rp[R_PLAYERS])
    if led_suit < 0:  # passing: the highest by rank; leading: the lowest by rank
        return best_by_key(legal, HIGH_KEY if i8[ioff[I_PHASE]] == PASS else LOW_KEY)
    follow = legal & SUIT_BITS[led_suit]
    if follow:
        duck = high_card(follow & BELOW[winning])
        return duck if duck >= 0 else low_card(follow)
    if legal & QS_BIT:
        return QS
    heart = high_card(legal & HEART_BITS)
    return heart if heart >= 0 else best_by_key(legal, HIGH_KEY)


@row_kernel
def simple_cards(idata: np.ndarray, ioff: np.ndarray, rp: np.ndarray, out: np.ndarray) -> None:
    i64, i8 = idata.view(U64), idata.view(np.int8)
    for g in range(idata.shape[0]):
        out[g] = simple_card(i64[g], i8[g], ioff, rp)
