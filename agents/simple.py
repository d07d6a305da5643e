"""``SimplePolicy``: a classic low-risk Hearts player, and the bitboard helpers rule-based agents share.

The simple player:

* Passing: the highest card by rank, one pick at a time (so the ``pass_count`` highest cards);
  equal ranks go spades first, then hearts, diamonds, clubs.
* Following suit: the highest card that still loses to the trick's current winner, else the
  lowest card of the suit.
* Void in the led suit: the QS if it may, else the highest heart, else the highest card by rank.
* Leading: the lowest legal card by rank (equal ranks: clubs, diamonds, spades, hearts).

Every decision is array operations over the batch; no Python loop runs over games.
"""

from __future__ import annotations

import numpy as np

from hearts_env.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from hearts_env.core import BELOW, BIT, HEART_BITS, PASS, QS, SUIT_BITS, mask_to_bits
from hearts_env.infoset import InfoSet

_U64 = np.uint64
_CARD_IDS = np.arange(NUM_CARDS)
RANK_OF = (_CARD_IDS % NUM_RANKS + 2).astype(np.int8)  # (52,) rank 2..14 of each card id
SUIT_OF = (_CARD_IDS // NUM_RANKS).astype(np.int8)  # (52,) suit of each card id

# Rank-major orders for "highest/lowest by rank" over a (B, 52) mask (1-based so that 0 = not held).
_PASS_TIE = np.array([0, 1, 3, 2])  # equal ranks: spades passed first, then hearts, diamonds, clubs
HIGH_KEY = (RANK_OF.astype(np.int16) * NUM_SUITS + _PASS_TIE[SUIT_OF] - 7).astype(np.int16)  # 1..52
LOW_KEY = ((16 - RANK_OF.astype(np.int16)) * NUM_SUITS - SUIT_OF).astype(np.int16)  # 1..56, lowest rank biggest


def highest(bits: np.ndarray) -> np.ndarray:
    """(B,) int: the highest card id of each bitboard, -1 for an empty one (exact: ids < 53 bits)."""
    return np.frexp(bits.astype(np.float64))[1].astype(np.int64) - 1


def lowest(bits: np.ndarray) -> np.ndarray:
    """(B,) int: the lowest card id of each bitboard, -1 for an empty one."""
    return highest(bits & (~bits + _U64(1)))


def count(bits: np.ndarray) -> np.ndarray:
    """Number of cards in bitboards (any shape), as int64."""
    return np.bitwise_count(bits).astype(np.int64)


def or_columns(bits: np.ndarray) -> np.ndarray:
    """(n, k) bitboards -> (n,): the union of each row (faster than ``np.bitwise_or.reduce`` for small k)."""
    union = bits[:, 0].copy()
    for column in range(1, bits.shape[1]):
        union |= bits[:, column]
    return union


def card_bits(card: np.ndarray) -> np.ndarray:
    """Bitboard of card ids (any shape), 0 where the id is -1."""
    return np.where(card >= 0, BIT.take(np.maximum(card, 0)), _U64(0))


def by_key(mask: np.ndarray, key: np.ndarray) -> np.ndarray:
    """(B,) int: the card of the (B, 52) mask with the biggest ``key`` (a (52,) or (B, 52) array of
    positive values)."""
    return np.argmax(np.where(mask, key, 0), axis=1)


class TrickView:
    """The current trick of each game, read from an info set: who led, what was led, who is winning."""

    def __init__(self, info: InfoSet) -> None:
        B = len(info.phase)
        rows = np.arange(B)
        self.cards = info.trick  # (B, P) relative seats
        self.bits = or_columns(card_bits(info.trick.astype(np.int64)))  # (B,)
        self.size = np.count_nonzero(info.trick >= 0, axis=1)  # cards played to the trick so far
        lead = info.trick[rows, np.maximum(info.trick_leader, 0)].astype(np.int64)
        self.following = (info.phase != PASS) & (self.size > 0)
        self.led_suit = np.where(self.following, lead // NUM_RANKS, 0)
        self.led_bits = np.where(self.following, SUIT_BITS.take(self.led_suit), _U64(0))
        self.winning = highest(self.bits & self.led_bits)  # card now winning the trick, -1 if none
        self.winner = np.argmax(info.trick == self.winning[:, None], axis=1)  # relative seat winning
        self.last = self.size == info.num_players - 1  # the observer plays the trick's last card

    def take(self, rows: np.ndarray) -> TrickView:
        """The view of the games ``rows`` only."""
        new = object.__new__(TrickView)
        new.__dict__.update((name, value[rows]) for name, value in vars(self).items())
        return new


class SimplePolicy:
    """A classic low-risk player: pass high cards, duck, dump the QS and high hearts, lead low."""

    def __init__(self, seed: int | None = None) -> None:
        """Deterministic: ``seed`` is accepted so that ``make_agent(name, seed=...)`` builds any agent."""

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        mask = np.asarray(mask, dtype=bool)
        legal = mask_to_bits(mask)
        trick = TrickView(info)
        high_by_rank = by_key(mask, HIGH_KEY)
        # Leading (and passing picks the highest): the lowest card by rank.
        choice = np.where(info.phase == PASS, high_by_rank, by_key(mask, LOW_KEY))
        # Following suit: the highest card under the winner, else the lowest of the suit.
        follow = legal & trick.led_bits
        duck = highest(follow & BELOW.take(trick.winning))
        follow_card = np.where(duck >= 0, duck, lowest(follow))
        # Void: QS, else the highest heart, else the highest card by rank.
        hearts = highest(legal & HEART_BITS)
        dump = np.where((legal & BIT[QS]) != 0, QS, np.where(hearts >= 0, hearts, high_by_rank))
        choice = np.where(trick.following, np.where(follow != 0, follow_card, dump), choice)
        return choice.astype(np.int64)
