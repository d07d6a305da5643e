"""Compiled helpers the rule-based agents share: picking cards of bitboards (counting them and the
lowest and highest card are the core's, ``kernels.count``/``low_card``/``high_card``), ranking
cards by rank across suits, and reading the current trick from an info row.

An info row is one game's row of ``InfoSet.data`` read through 64-, 32- and 8-bit views (``i64``,
``i32``, ``i8``); ``ioff`` is ``info.layout.offsets`` (see ``hearts_env.engine.infoset``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hearts_env.engine.cards import NUM_RANKS, NUM_SUITS, RANK_OF, SUIT_OF
from hearts_env.engine.infoset import I_PHASE, I_TRICK, I_TRICK_LEADER, I_TRICK_WINNER
from hearts_env.engine.kernels import PASS, low_card

U64 = np.uint64
_ONE = U64(1)

# Keys ranking cards by rank across suits (bigger wins; every card's key is distinct and > 0).
_RANKS, _SUITS = RANK_OF.astype(np.int64), SUIT_OF.astype(np.int64)
_PASS_TIE = np.array([0, 1, 3, 2])  # equal ranks: spades first, then hearts, diamonds, clubs
HIGH_KEY = _RANKS * NUM_SUITS + _PASS_TIE[_SUITS] - 7  # 1..52: the highest rank biggest
LOW_KEY = (16 - _RANKS) * NUM_SUITS - _SUITS  # 1..56: the lowest rank biggest (then clubs, diamonds, ...)


@njit(cache=True, inline="always")
def best_by_key(bits: np.uint64, key: np.ndarray) -> int:
    """The card of ``bits`` with the biggest ``key`` (52,) entry (the lowest id among equals); 0
    for an empty bitboard."""
    best, best_key = 0, -1
    while bits:
        card = low_card(bits)
        bits &= bits - _ONE
        if key[card] > best_key:
            best, best_key = card, key[card]
    return best


@njit(cache=True, inline="always")
def read_trick(i8: np.ndarray, ioff: np.ndarray, P: int) -> tuple[np.uint64, int, int, int, int]:
    """The current trick of an info row: (bitboard of its cards, cards played to it, led suit,
    winning card, relative seat winning). Before the lead (and while passing) the led suit is
    -1, the winning card -1 and the winner 0; with two decks, while every card of the led suit is cancelled, the
    winning card and the winner are -1."""
    played, size = U64(0), 0
    for r in range(P):
        card = i8[ioff[I_TRICK] + r]
        if card >= 0:
            played |= _ONE << U64(card)
            size += 1
    if size == 0 or i8[ioff[I_PHASE]] == PASS:
        return played, size, -1, -1, 0
    led_suit = i8[ioff[I_TRICK] + i8[ioff[I_TRICK_LEADER]]] // NUM_RANKS
    winner = i8[ioff[I_TRICK_WINNER]]  # the core's, seen from the observer
    if winner < 0:  # two decks: every card of the led suit is cancelled
        return played, size, led_suit, -1, winner
    return played, size, led_suit, i8[ioff[I_TRICK] + winner], winner
