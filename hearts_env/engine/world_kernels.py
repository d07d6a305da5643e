"""World sampling, compiled (``hearts_env.engine.worlds`` says what it does and why): what the
observer of an info row knows about where the cards are, and deals of the unseen cards consistent
with it (rejection, then sampling-importance-resampling of constructive deals; with a belief,
constructive deals drawn towards it, importance-resampled to the belief-weighted target).

Randomness is counter-based: a kernel call gets one ``key`` and every world (game, world) draws
from its own stream ``mix64_word(key ^ mix64_word(index))`` (``seed_stream``, ``uniform``: search rollouts
draw from such streams too), so a call's results depend only on its key and its games.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from hearts_env.engine import kernels as k
from hearts_env.engine.cards import BIT, NUM_CARDS, NUM_SUITS, SUIT_BITS
from hearts_env.engine.compiled import row_kernel
from hearts_env.engine.infoset import (
    I_HAND,
    I_HAND2,
    I_KITTY_SIZE,
    I_PASS_OFFSET,
    I_PASSED,
    I_PASSED2,
    I_PHASE,
    I_PLAYED,
    I_PLAYED2,
    I_UNSEEN,
    I_UNSEEN2,
    I_VOIDS,
)
from hearts_env.engine.kernels import count, low_card
from hearts_env.engine.seeding import GAMMA, mix64_word

U64 = np.uint64
_GAMMA = U64(GAMMA)
_TO_UNIT = 1.0 / float(1 << 53)
# VOID_BITS[v]: the cards of the suits in the 4-bit void set v.
VOID_BITS = np.array([sum(int(SUIT_BITS[s]) for s in range(NUM_SUITS) if v >> s & 1) for v in range(16)], dtype=U64)
ERROR_NONE, ERROR_NOT_PLAY, ERROR_SIZES, ERROR_NO_DEAL = 0, 1, 2, 3  # why a game's worlds failed
MAX_PLACES = 12  # places a deal fills: up to 11 seats and, with two decks, the kitty
WORK = 72  # scratch words of a constructive deal (up to ``MAX_PLACES`` places)


@njit(cache=True, inline="always")
def seed_stream(rng: np.ndarray, key: np.uint64, index: int) -> None:
    """Start stream ``index`` of ``key`` in the one-word generator state ``rng``."""
    rng[0] = mix64_word(key ^ mix64_word(U64(index)))


@njit(cache=True, inline="always")
def uniform(rng: np.ndarray) -> float:
    """The next uniform number in [0, 1) of the stream in ``rng`` (SplitMix64)."""
    rng[0] += _GAMMA
    return float(mix64_word(rng[0]) >> U64(11)) * _TO_UNIT


# ---------------------------------------------------------------------------------------------
# What the observer knows


@row_kernel
def constraints_row(
    i64: np.ndarray, i8: np.ndarray, ioff: np.ndarray, rp: np.ndarray, known: np.ndarray, need: np.ndarray
) -> tuple[np.uint64, int]:
    """``known`` (P,): cards known in each relative seat's hand (its own hand; the cards it passed,
    at the receiver, unless played since); ``need`` (P,): how many more (unseen) cards each seat
    holds. Returns the unseen cards and an ``ERROR_*`` code."""
    P = rp[k.R_PLAYERS]
    if i8[ioff[I_PHASE]] != k.PLAY:
        return U64(0), ERROR_NOT_PLAY
    played = U64(0)
    for r in range(P):
        played |= i64[ioff[I_PLAYED] + r]
        known[r] = U64(0)
    known[0] = i64[ioff[I_HAND]]
    receiver = i8[ioff[I_PASS_OFFSET]] % P
    if receiver != 0:
        known[receiver] |= i64[ioff[I_PASSED]] & ~played
    held, total = U64(0), 0
    error = ERROR_NONE
    for r in range(P):
        held |= known[r]
        need[r] = rp[k.R_HAND_SIZE] - count(i64[ioff[I_PLAYED] + r]) - count(known[r])
        total += need[r]
        if need[r] < 0:
            error = ERROR_SIZES
    unseen = U64(rp[k.R_DECK]) & ~played & ~held
    if total != count(unseen):
        error = ERROR_SIZES
    return unseen, error


@row_kernel
def constraints_row2(
    i64: np.ndarray,
    i8: np.ndarray,
    ioff: np.ndarray,
    rp: np.ndarray,
    known: np.ndarray,
    known2: np.ndarray,
    need: np.ndarray,
) -> tuple[np.uint64, np.uint64, int]:
    """Two decks: ``known``/``known2`` (P + 1,): the copies known in each relative seat's hand
    (its own hand; the copies it passed at the receiver, less as many copies as the receiver has
    played since: those may have been its own), none in the kitty (place P); ``need`` (P + 1,):
    how many more (unseen) copies each place holds (the kitty: its size). Returns the copies to
    share out (once, twice) and an ``ERROR_*`` code."""
    P = rp[k.R_PLAYERS]
    if i8[ioff[I_PHASE]] != k.PLAY:
        return U64(0), U64(0), ERROR_NOT_PLAY
    for r in range(P + 1):
        known[r] = known2[r] = U64(0)
    known[0], known2[0] = i64[ioff[I_HAND]], i64[ioff[I_HAND2]]
    free, free2 = i64[ioff[I_UNSEEN]], i64[ioff[I_UNSEEN2]]
    receiver = i8[ioff[I_PASS_OFFSET]] % P
    if receiver != 0:
        played, played2 = i64[ioff[I_PLAYED] + receiver], i64[ioff[I_PLAYED2] + receiver]
        known[receiver], known2[receiver] = k.remove_pile(i64[ioff[I_PASSED]], i64[ioff[I_PASSED2]], played, played2)
        if count(known[receiver] & ~free) + count(known2[receiver] & ~free2):
            return U64(0), U64(0), ERROR_SIZES
        free, free2 = k.remove_pile(free, free2, known[receiver], known2[receiver])
    error, total = ERROR_NONE, 0
    for r in range(P):
        played = count(i64[ioff[I_PLAYED] + r]) + count(i64[ioff[I_PLAYED2] + r])
        need[r] = rp[k.R_HAND_SIZE] - played - count(known[r]) - count(known2[r])
        total += need[r]
        if need[r] < 0:
            error = ERROR_SIZES
    need[P] = i8[ioff[I_KITTY_SIZE]]
    total += need[P]
    if total != count(free) + count(free2):
        error = ERROR_SIZES
    return free, free2, error


@row_kernel
def constraints(idata: np.ndarray, ioff: np.ndarray, rp: np.ndarray, known, need, unseen, errors) -> None:
    i64, i8 = idata.view(U64), idata.view(np.int8)
    for g in range(idata.shape[0]):
        unseen[g], errors[g] = constraints_row(i64[g], i8[g], ioff, rp, known[g], need[g])


# ---------------------------------------------------------------------------------------------
# Dealing the unseen cards


@njit(cache=True, inline="always")
def give(hands: np.ndarray, hands2: np.ndarray, seat: int, bit: np.uint64) -> None:
    """One copy of a card to a seat's (once, twice) hand."""
    if hands[seat] & bit:
        hands2[seat] |= bit
    else:
        hands[seat] |= bit


@njit(cache=True)
def deal_random(
    unseen: np.uint64,
    unseen2: np.uint64,
    need: np.ndarray,
    voids: np.ndarray,
    hands: np.ndarray,
    hands2: np.ndarray,
    deck: np.ndarray,
    rng: np.ndarray,
) -> bool:
    """One uniformly random deal of the copies ``unseen`` (and a second copy of ``unseen2``, two
    decks) to the places' free room (``need``), by a Fisher-Yates shuffle of ``deck`` (scratch,
    104,); False as soon as a card lands in a suit its place is void in (``voids``: suit bits)."""
    n = 0
    for bits in (unseen, unseen2):
        while bits:
            deck[n] = low_card(bits)
            bits &= bits - U64(1)
            n += 1
    seat, room = 0, need[0]
    for r in range(len(need)):
        hands[r] = hands2[r] = U64(0)
    for i in range(n):
        while room == 0:
            seat += 1
            room = need[seat]
        j = i + int(uniform(rng) * (n - i))
        card = deck[j]
        deck[j] = deck[i]
        deck[i] = card
        if VOID_BITS[voids[seat]] & BIT[card]:
            return False
        give(hands, hands2, seat, BIT[card])
        room -= 1
    return True


@njit(cache=True)
def deal_constructive(
    unseen: np.uint64,
    unseen2: np.uint64,
    need: np.ndarray,
    voids: np.ndarray,
    belief: np.ndarray,
    hands: np.ndarray,
    hands2: np.ndarray,
    rng: np.ndarray,
    work: np.ndarray,
    weight: np.ndarray,
) -> tuple[float, float, bool]:
    """Deal ``unseen`` (and a second copy of ``unseen2``) copy by copy, none into a suit its seat
    is void in, never into a dead end, into ``hands`` (a copy landing where one lies already goes to
    ``hands2``); returns the deal's log-probability under this sampler (copies counted as distinct
    cards), the sum of ``log belief[seat, card]`` over the copies dealt (the belief-weighted
    target's log-weight) and False if no deal exists. ``belief`` (places, 52) float: positive
    weights of each card at each place (all ones: the uniform deal); ``work`` (``WORK``,) int64 and
    ``weight`` (``MAX_PLACES``,) float64 are scratch.

    Suits that more seats (with room) are void in go first, then by card id. Each card goes to a
    seat not void in its suit with probability proportional to the seat's room, among the seats
    after which the rest still fits: by Hall's condition, for every set S of suits the cards left
    in S fit in the room of the seats not void in all of S. Before a card of suit s is placed
    every S holds (demand <= supply); afterwards S's demand drops if s is in S and its supply
    drops if the seat may take cards of S. So the seats that may take S are ruled out where S is
    tight (demand == supply) and s is not in S. A card's chance at a seat is its room times the
    seat's ``belief`` of the card (exactly the uniform sampler's draws when the belief is all ones)."""
    P, M = len(need), MAX_PLACES
    cap = work[0:P]  # room left; ``weight``: chance weight of each seat for a card
    eligible = work[2 * M : 2 * M + P]  # 16-bit masks: the suit sets S each seat may take a card of
    supply = work[3 * M : 3 * M + 16]  # room of the seats that may take a card of S
    demand = work[3 * M + 16 : 3 * M + 32]  # cards left in the suits of S
    shut_out = work[3 * M + 32 : 3 * M + 36]  # seats with room void in each suit
    work[:] = 0
    for r in range(P):
        cap[r] = need[r]
        hands[r] = hands2[r] = U64(0)
        for s in range(NUM_SUITS):
            if cap[r] > 0 and voids[r] >> s & 1:
                shut_out[s] += 1
        for S in range(16):
            if S & ~voids[r] & 15:
                eligible[r] |= 1 << S
                supply[S] += cap[r]
    for s in range(NUM_SUITS):
        left = count(unseen & SUIT_BITS[s]) + count(unseen2 & SUIT_BITS[s])
        for S in range(16):
            if S >> s & 1:
                demand[S] += left
    log_q = log_p = 0.0
    for shut in range(P, -1, -1):  # the suits most seats are shut out of first
        for s in range(NUM_SUITS):
            if shut_out[s] != shut:
                continue
            for copies in (unseen, unseen2):
                bits = copies & SUIT_BITS[s]
                while bits:
                    card = low_card(bits)
                    bits &= bits - U64(1)
                    tight, dead = 0, False
                    for S in range(16):
                        left = demand[S] - (S >> s & 1)
                        if left > supply[S]:
                            dead = True
                        elif left == supply[S]:
                            tight |= 1 << S
                    total = 0.0
                    for r in range(P):
                        fits = not dead and cap[r] > 0 and not voids[r] >> s & 1 and not eligible[r] & tight
                        weight[r] = cap[r] * belief[r, card] if fits else 0.0
                        total += weight[r]
                    if total == 0:
                        return log_q, log_p, False
                    target = uniform(rng) * total
                    seat, cum = 0, weight[0]
                    while cum <= target and seat < P - 1:
                        seat += 1
                        cum += weight[seat]
                    log_q += math.log(weight[seat] / total)
                    log_p += math.log(belief[seat, card])
                    give(hands, hands2, seat, BIT[card])
                    cap[seat] -= 1
                    for S in range(16):
                        supply[S] -= eligible[seat] >> S & 1
                        demand[S] -= S >> s & 1
    return log_q, log_p, True


@njit(cache=True)
def deal_resampled(
    unseen: np.uint64,
    unseen2: np.uint64,
    need: np.ndarray,
    voids: np.ndarray,
    belief: np.ndarray,
    proposals: int,
    hands: np.ndarray,
    hands2: np.ndarray,
    rng: np.ndarray,
    scratch: np.ndarray,
    work: np.ndarray,
    weight: np.ndarray,
) -> bool:
    """One of ``proposals`` constructive deals (drawn towards ``belief``), kept with weight p / q
    (Gumbel-max), p the product of the beliefs of its cards' places (1 for the uniform target),
    into ``hands``/``hands2``; ``scratch`` (2, places) holds each proposal, ``work`` and ``weight``
    are ``deal_constructive``'s. False if no deal exists."""
    best = -np.inf
    for _ in range(max(1, proposals)):
        log_q, log_p, ok = deal_constructive(
            unseen, unseen2, need, voids, belief, scratch[0], scratch[1], rng, work, weight
        )
        if not ok:
            return False
        score = log_p - log_q - math.log(-math.log(uniform(rng)))
        if score > best:
            best = score
            hands[:] = scratch[0]
            hands2[:] = scratch[1]
    return True


@njit(cache=True)
def sample_worlds(
    idata: np.ndarray,
    ioff: np.ndarray,
    rp: np.ndarray,
    key: np.uint64,
    rejection_rounds: int,
    proposals: int,
    belief: np.ndarray,
    out: np.ndarray,
    errors: np.ndarray,
) -> None:
    """``out`` (B, W, C, Q): the places' hands in W deals per game consistent with its info row:
    up to ``rejection_rounds`` random deals (exactly uniform when accepted), else an importance
    resample of ``proposals`` constructive deals. One deck: C = 1, Q = P (the relative seats);
    two decks: C = 2 (the cards held at least once, then twice), Q = P + 1 (the seats, then the
    kitty). ``belief``: (0, Q, 52) for uniform worlds; (B, Q, 52) for each game's belief of where
    its cards lie: every world is then an importance resample of ``proposals`` constructive deals
    drawn towards it (no rejection rounds). ``errors`` (B,): ``ERROR_*``."""
    B, W, C, Q = out.shape
    P = rp[k.R_PLAYERS]
    two = rp[k.R_DECKS] == 2
    i64, i8 = idata.view(U64), idata.view(np.int8)
    known, known2 = np.zeros(Q, U64), np.zeros(Q, U64)
    need, voids = np.zeros(Q, np.int64), np.zeros(Q, np.int64)
    hands, hands2, scratch = np.empty(Q, U64), np.empty(Q, U64), np.empty((2, Q), U64)
    work, deck = np.empty(WORK, np.int64), np.empty(2 * NUM_CARDS, np.int64)
    weight, rng = np.empty(MAX_PLACES), np.empty(1, U64)
    weighted = belief.shape[0] > 0
    ones = np.ones((Q, NUM_CARDS))
    rounds = 0 if weighted else rejection_rounds
    for g in range(B):
        bias = belief[g] if weighted else ones
        unseen2 = U64(0)
        if two:
            unseen, unseen2, errors[g] = constraints_row2(i64[g], i8[g], ioff, rp, known, known2, need)
        else:
            unseen, errors[g] = constraints_row(i64[g], i8[g], ioff, rp, known, need)
        if errors[g] != ERROR_NONE:
            continue
        for r in range(1, P):  # the observer's hand is given; the kitty (place P) has no voids
            voids[r] = i8[g, ioff[I_VOIDS] + r]
        for w in range(W):
            seed_stream(rng, key, g * W + w)
            dealt = False
            for _ in range(rounds):
                if deal_random(unseen, unseen2, need, voids, hands, hands2, deck, rng):
                    dealt = True
                    break
            if not dealt and not deal_resampled(
                unseen, unseen2, need, voids, bias, proposals, hands, hands2, rng, scratch, work, weight
            ):
                errors[g] = ERROR_NO_DEAL
                break
            for r in range(Q):
                once, twice = k.add_piles(hands[r], hands2[r], known[r], known2[r])
                out[g, w, 0, r] = once
                if two:
                    out[g, w, 1, r] = twice


@njit(cache=True)
def deal_rows(
    need: np.ndarray, unseen: np.ndarray, voids: np.ndarray, key: np.uint64, proposals: int, hands, log_q, ok
) -> None:
    """Row by row (one deck): one constructive deal (``proposals`` = 0, with its log-probability)
    or an importance resample of ``proposals`` of them."""
    n, P = need.shape
    hands2, scratch, work = np.empty(P, U64), np.empty((2, P), U64), np.empty(WORK, np.int64)
    weight, ones, rng = np.empty(MAX_PLACES), np.ones((P, NUM_CARDS)), np.empty(1, U64)
    for i in range(n):
        seed_stream(rng, key, i)
        if proposals == 0:
            log_q[i], _, ok[i] = deal_constructive(
                unseen[i], U64(0), need[i], voids[i], ones, hands[i], hands2, rng, work, weight
            )
        else:
            ok[i] = deal_resampled(
                unseen[i], U64(0), need[i], voids[i], ones, proposals, hands[i], hands2, rng, scratch, work, weight
            )
