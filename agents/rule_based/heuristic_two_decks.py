"""The heuristic's two-deck rules (Cancellation Hearts), compiled: the one-deck ideas with every
count made over copies (a suit holds 26 cards, a hand up to two of each) and what cancellation
changes: a card whose twin is still out may be cancelled, so it is a sure winner only when its
twin is seen (or held); the trick's winner after a card comes from the cards on the table by the
core's cancellation rule (``kernels.uncancelled_winner``); a trick at stake costs its points, the
pot's, and the kitty's expected points while the kitty lies there. The moon (every one of 52
points, the kitty's included) is neither tried nor watched for. Called by
``heuristic_kernels.heuristic_card``; described in ``hearts_env.agents.rule_based.heuristic``."""

from __future__ import annotations

import numpy as np
from numba import njit

from hearts_env.agents.rule_based.bitboards import read_trick
from hearts_env.agents.rule_based.heuristic_tables import (
    K_SAFE_RATIO,
    K_SPADE_GUARD,
    SPADE_BITS,
    SPADE_HONOURS,
    discard_danger,
    lead_cost,
    pass_pick,
    queen_loses_the_game,
)
from hearts_env.engine.cards import (
    ABOVE,
    BELOW,
    BIT,
    HEARTS,
    JD_BIT,
    NUM_RANKS,
    NUM_SUITS,
    QS,
    QS_BIT,
    QS_POINTS,
    SPADES,
    SUIT_BITS,
    SUIT_OF,
)
from hearts_env.engine.infoset import (
    I_HAND,
    I_HAND2,
    I_KITTY_SIZE,
    I_PASSED,
    I_PASSED2,
    I_POT,
    I_POT2,
    I_TRICK,
    I_UNSEEN,
    I_UNSEEN2,
    I_VOIDS,
)
from hearts_env.engine.kernels import (
    R_HAND_SIZE,
    R_JD,
    R_PLAYERS,
    R_TARGET,
    add_piles,
    count,
    high_card,
    low_card,
    pair_points,
    raw_points,
    uncancelled_winner,
)

U64 = np.uint64
F32 = np.float32


@njit(cache=True, inline="always")
def _copies(bits: np.uint64, bits2: np.uint64) -> int:
    """Cards of a two-deck pile, counting both copies."""
    return count(bits) + count(bits2)


@njit(cache=True, inline="always")
def _winner_after(i8: np.ndarray, ioff: np.ndarray, P: int, led_suit: int, mine: int, extra: int) -> int:
    """The relative seat that wins the current trick once the observer plays ``mine`` and, if
    ``extra`` >= 0, a later seat (reported as P) plays ``extra`` (the core's cancellation rule);
    -1 if every card of the led suit is cancelled."""
    once, twice = add_piles(U64(0), U64(0), BIT[mine], U64(0))
    if extra >= 0:
        once, twice = add_piles(once, twice, BIT[extra], U64(0))
    for r in range(1, P):
        card = i8[ioff[I_TRICK] + r]
        if card >= 0:
            once, twice = add_piles(once, twice, BIT[card], U64(0))
    best = uncancelled_winner(once, twice, led_suit)
    if best < 0 or best == mine:
        return 0 if best >= 0 else -1
    if best == extra:
        return P
    for r in range(1, P):
        if i8[ioff[I_TRICK] + r] == best:
            return r
    return -1


@njit(cache=True, inline="always")
def pass_card2(i64: np.ndarray, i8: np.ndarray, ioff: np.ndarray, rp: np.ndarray, kn: np.ndarray, legal) -> int:
    """One pick of a two-deck pass: the one-deck scores, suits counted by copies, the spade guard
    and the short suits scaled to the hand size, hearts passed like side cards (measured better
    from 8 players up); no moon hands, no kept top hearts."""
    dealt, dealt2 = add_piles(i64[ioff[I_HAND]], i64[ioff[I_HAND2]], i64[ioff[I_PASSED]], i64[ioff[I_PASSED2]])
    few_spades = _copies(dealt & SPADE_BITS, dealt2 & SPADE_BITS) * NUM_RANKS < kn[K_SPADE_GUARD] * rp[R_HAND_SIZE]
    # 26 hearts out: high ones are as dangerous as high side cards.
    return pass_pick(i8, ioff, rp, kn, legal, dealt, dealt2, few_spades, F32(0.0), U64(0), False)


@njit(cache=True, inline="always")
def play_card2(
    i64: np.ndarray, i32: np.ndarray, i8: np.ndarray, ioff: np.ndarray, rp: np.ndarray, kn: np.ndarray, legal
) -> int:
    P = rp[R_PLAYERS]
    jd_rule = rp[R_JD] != 0
    hand, hand2 = i64[ioff[I_HAND]], i64[ioff[I_HAND2]]
    out, out2 = i64[ioff[I_UNSEEN]], i64[ioff[I_UNSEEN2]]  # copies in other hands or the kitty
    # At stake in a trick besides its own cards: the pot, and the kitty's expected points.
    stake = float(pair_points(i64[ioff[I_POT]], i64[ioff[I_POT2]], jd_rule))
    kitty = i8[ioff[I_KITTY_SIZE]]
    if kitty > 0:
        stake += kitty * pair_points(out, out2, jd_rule) / max(_copies(out, out2), 1)
    _, size, led_suit, winning, winner = read_trick(i8, ioff, P)
    if led_suit < 0:
        return _lead2(i8, ioff, rp, kn, legal, hand, hand2, out, out2, stake)
    if legal & SUIT_BITS[led_suit]:
        return _follow2(i8, ioff, rp, kn, legal, out, out2, stake, size, led_suit, winning)
    return _discard2(i32, i8, ioff, rp, kn, legal, hand, hand2, out, out2, size, winner)


@njit(cache=True, inline="always")
def _lead2(i8, ioff, rp, kn, legal, hand, hand2, out, out2, stake) -> int:
    # Smoke out a QS: spades while holding none above the jack.
    qs_out = (out & QS_BIT) != 0
    spades = legal & SPADE_BITS
    if qs_out and (hand & SPADE_HONOURS) == 0 and spades:
        return high_card(spades)
    # Otherwise the lowest card of the suit with the best exit, as with one deck, counted by copies.
    points_out = raw_points(out) + raw_points(out2) + stake > 0
    best, best_cost = -1, np.inf
    for s in range(NUM_SUITS):
        low = low_card(legal & SUIT_BITS[s])
        if low < 0:
            continue
        n_above = F32(_copies(out & ABOVE[low], out2 & ABOVE[low]))
        n_below = F32(_copies(out & BELOW[low], out2 & BELOW[low]))
        sure = n_above == 0 and not out & BIT[low]  # a sure winner has its twin seen
        length = _copies(hand & SUIT_BITS[s], hand2 & SUIT_BITS[s])
        cost = lead_cost(i8, ioff, rp, kn, s, n_above, n_below, sure, points_out, hand, qs_out, length, 0.0)
        if cost < best_cost or best < 0:
            best, best_cost = low, cost
    return best


@njit(cache=True, inline="always")
def _follow2(i8, ioff, rp, kn, legal, out, out2, stake, size, led_suit, winning) -> int:
    P = rp[R_PLAYERS]
    jd_rule = rp[R_JD] != 0
    follow = legal & SUIT_BITS[led_suit]
    last = size == P - 1
    once, twice = U64(0), U64(0)
    for r in range(1, P):
        card = i8[ioff[I_TRICK] + r]
        if card >= 0:
            once, twice = add_piles(once, twice, BIT[card], U64(0))
    stake += pair_points(once, twice, jd_rule)
    # The QS goes on a higher spade that stays the winner (no twin of it can cancel it later).
    if led_suit == SPADES and winning > QS and follow & QS_BIT and (last or not out & BIT[winning]):
        return QS
    # Each card: does the observer take the trick after it (now; and if the twin of the card then
    # winning comes from a seat still to play, cancelling it)?
    no_qs = follow & ~QS_BIT
    duck, safe_duck, win_high, win_low = -1, -1, -1, -1
    bits = no_qs
    while bits:
        c = low_card(bits)
        bits &= bits - U64(1)
        w = _winner_after(i8, ioff, P, led_suit, c, -1)
        if w == 0:
            win_high = c
            if win_low < 0:
                win_low = c
            continue
        duck = c
        # Cancelled (w < 0) it stays cancelled; else the twin of the winning card may still come.
        if last or w < 0 or not out & BIT[i8[ioff[I_TRICK] + w]]:
            safe_duck = c
        elif _winner_after(i8, ioff, P, led_suit, c, i8[ioff[I_TRICK] + w]) != 0:
            safe_duck = c
    # A trick worth taking (the JD rule): win it with the highest winner.
    if stake <= -5 and win_high >= 0:
        return win_high
    # A safe trick (nothing at stake, last to play or an early round of a side suit nobody behind
    # is void in) takes the highest card, to shed it.
    if stake < 0.5 and win_high >= 0:
        safe = last
        if not safe and led_suit != SPADES and led_suit != HEARTS:
            void_behind = False
            for r in range(1, P):
                if i8[ioff[I_TRICK] + r] < 0 and (i8[ioff[I_VOIDS] + r] >> led_suit) & 1:
                    void_behind = True
            safe = not void_behind and _copies(out & SUIT_BITS[led_suit], out2 & SUIT_BITS[led_suit]) >= kn[
                K_SAFE_RATIO
            ] * (P - 1 - size)
        if safe:
            return win_high
    # Duck with the highest card that loses even if a twin cancels the winner, else the highest that loses now.
    if safe_duck >= 0:
        return safe_duck
    if duck >= 0:
        return duck
    # Every card takes the trick now.
    high, low = win_high, win_low
    if high < 0:
        return QS  # nothing but the QS
    if not last and (out & QS_BIT) and led_suit == SPADES:
        return low  # a QS may still fall on it: stay low
    if last:
        return high
    if stake > 0 or P - 1 - size >= 2:
        return low  # hope to be overtaken (or cancelled): likely with points or several seats to come
    return high


@njit(cache=True, inline="always")
def _discard2(i32, i8, ioff, rp, kn, legal, hand, hand2, out, out2, size, winner) -> int:
    P = rp[R_PLAYERS]
    # A QS, unless as last to play it would end the game with another player winning.
    hold_queen = False
    if legal & QS_BIT and rp[R_TARGET] > 0 and size == P - 1 and winner >= 0:
        hold_queen = queen_loses_the_game(i32, ioff, rp, winner, QS_POINTS)
    if legal & QS_BIT and not hold_queen:
        return QS
    # The most dangerous card (the first among equals), as with one deck, counted by copies: a
    # master must have its twin seen or held too.
    qs_out = (out & QS_BIT) != 0
    jd_out = rp[R_JD] != 0 and (out & JD_BIT) != 0
    best, best_danger = -1, -np.inf
    bits = legal
    while bits:
        c = low_card(bits)
        bits &= bits - U64(1)
        s = SUIT_OF[c]
        above = _copies(out & ABOVE[c], out2 & ABOVE[c])
        below = _copies(out & BELOW[c], out2 & BELOW[c])
        singleton = _copies(hand & SUIT_BITS[s], hand2 & SUIT_BITS[s]) == 1
        master = above == 0 and below > 0 and not out & BIT[c]  # it would win a later trick, its twin seen
        value = discard_danger(c, above, below, master, singleton, qs_out, jd_out, rp[R_JD] != 0, kn)
        if c == QS:
            value = -np.inf
        if value > best_danger:
            best, best_danger = c, value
    return best if best >= 0 else QS
