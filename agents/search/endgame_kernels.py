"""The exact endgame, compiled: a perfect-information search of the rest of a hand from a core
state row (one deck, every seat's cards known), stepped with the core's own per-card kernels
(``kernels.legal_cards``, ``kernels.step_game``) and scored by its hand-end scoring
(``kernels.hand_score2``: the moon and the JD rule as the rules say), so no rule is copied here.
``hearts_env.agents.search.endgame`` is its Python face and says what the two searches are.

The search copies a game's row to the next level of a stack and steps the copy (copy-make: the
core has no undo). A line ends when the hand does or, at the end of a trick, once every card that
scores has been taken (the rest changes no score). Three things keep it small:

* equivalent cards: a legal card whose nearest lower card still in play (in a hand or on the
  trick) is also the mover's legal card, of the same suit and the same points, leads to the
  same outcomes as that lower card (it wins and loses against the same cards), so only the lowest
  of such a run is searched;
* a transposition table at the start of each trick, where tricks played in another order meet:
  keyed by a 64-bit hash of the hands, each seat's taken cards that score (all the score reads
  of a pile) and the leader; an entry holds the value (max-n) or its bounds (paranoid) and the
  best card, which the paranoid search tries first;
* alpha-beta cut-offs in the paranoid search, which tries the highest card first where the table
  names none (a third fewer positions than the lowest first, on 4-trick endgames).

Entries of one solve are told from those of another by a salt in the hash, so the table is cleared
once per kernel call, not per solve. A hash collision (two positions, one 64-bit hash) would go
unnoticed; with tables of 2^16 entries (the slot reads 16 of the 64 bits) its odds are about
2^-48 a probe.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hearts_env.agents.search.pimc_kernels import all_scored, scoring_cards
from hearts_env.engine import kernels as k
from hearts_env.engine.cards import BIT, SUIT_BITS, SUIT_OF
from hearts_env.engine.compiled import row_kernel
from hearts_env.engine.kernels import high_card, low_card
from hearts_env.engine.seeding import mix64_word

U64 = np.uint64
MAXN, PARANOID = 0, 1  # the searches (``hearts_env.agents.search.endgame.SEARCHES``)
INFINITE = 1 << 14  # beyond any hand score; fits the table's int16 columns
LOWER, UPPER = 0, 1  # paranoid entries: bounds of the decider's score (max-n: columns 0..P-1 hold the scores)
BEST = 7  # the entry's best card
ENTRY = 8  # int16 columns of an entry (up to 7 seats' scores, then the best card)
# Columns of a search's frame, one row per depth: the card being searched, the best value and card
# so far, the alpha-beta window now and on entry, the position's table slot (-1: none).
CARD, BEST_VALUE, BEST_CARD, ALPHA, BETA, ALPHA0, BETA0, SLOT = range(8)
FRAME = 8


@njit(cache=True, inline="always")
def finished(r64: np.ndarray, r8: np.ndarray, soff: np.ndarray, rp: np.ndarray, scoring: np.uint64) -> bool:
    """The hand's score is settled: the hand is over, or a trick has just ended with every card
    that scores taken."""
    if r8[soff[k.F_PHASE]] == k.GAME_OVER:
        return True
    return r8[soff[k.F_TRICK_SIZE]] == 0 and all_scored(r64, soff, rp, scoring)


@njit(cache=True, inline="always")
def score(r64: np.ndarray, soff: np.ndarray, rp_real: np.ndarray, totals: np.ndarray, points: np.ndarray) -> None:
    """``points`` (P,): each seat's score of the hand from the cards taken (settled), under the
    real rules ``rp_real`` and the game totals before the hand."""
    P = rp_real[k.R_PLAYERS]
    taken = r64[soff[k.F_TAKEN] : soff[k.F_TAKEN] + P]
    k.hand_score2(taken, taken, totals, rp_real, points)  # taken2 is read only with two decks


@njit(cache=True, inline="always")
def distinct_moves(r64: np.ndarray, r8: np.ndarray, soff: np.ndarray, rp: np.ndarray, legal: np.uint64) -> np.uint64:
    """``legal`` less each card equivalent to a lower legal card (module docstring)."""
    live = U64(0)
    for s in range(rp[k.R_PLAYERS]):
        live |= r64[soff[k.F_HANDS] + s]
        card = r8[soff[k.F_TRICK] + s]
        if card >= 0:
            live |= BIT[card]
    jd = rp[k.R_JD] != 0
    moves, bits = legal, legal
    while bits:
        card = low_card(bits)
        bits &= bits - U64(1)
        lower = high_card(live & SUIT_BITS[SUIT_OF[card]] & (BIT[card] - U64(1)))
        if lower >= 0 and legal & BIT[lower] and k.pile_points(BIT[lower], jd) == k.pile_points(BIT[card], jd):
            moves ^= BIT[card]
    return moves


@njit(cache=True, inline="always")
def position_key(r64: np.ndarray, r8: np.ndarray, soff: np.ndarray, rp: np.ndarray, scoring, salt) -> np.uint64:
    """Hash of a position at the start of a trick: the hands, the cards that score each seat has
    taken, the leader."""
    key = salt
    for s in range(rp[k.R_PLAYERS]):
        key = mix64_word(key ^ r64[soff[k.F_HANDS] + s])
        key = mix64_word(key ^ (r64[soff[k.F_TAKEN] + s] & scoring))
    return mix64_word(key ^ U64(r8[soff[k.F_TO_PLAY]]))


@njit(cache=True, inline="always")
def play(stack: np.ndarray, depth: int, soff: np.ndarray, rp: np.ndarray, deck, card: int, shuffled) -> None:
    """Row ``depth + 1`` of ``stack``: row ``depth`` after ``card``."""
    words = stack.view(U64)
    for i in range(words.shape[1]):  # a loop of words: a slice copy allocates (the rows share an array)
        words[depth + 1, i] = words[depth, i]
    s64, s32, s8 = stack.view(U64)[depth + 1], stack.view(np.int32)[depth + 1], stack.view(np.int8)[depth + 1]
    k.step_game(s64, s32, s8, soff, rp, deck, card, shuffled)


@row_kernel
def paranoid(
    stack: np.ndarray,
    soff: np.ndarray,
    rp: np.ndarray,
    rp_real: np.ndarray,
    totals: np.ndarray,
    decider: int,
    keys: np.ndarray,
    entries: np.ndarray,
    salt: np.uint64,
    scoring: np.uint64,
    deck: np.ndarray,
    shuffled: np.ndarray,
    points: np.ndarray,
    frame: np.ndarray,
    left: np.ndarray,
    nodes: np.ndarray,
) -> int:
    """The decider's hand score from row 0 of ``stack`` (not settled) when it minimises it and
    every other seat maximises it: fail-soft alpha-beta, depth first over the rows of ``stack``.
    ``frame`` (rows, ``FRAME``) and ``left`` (rows,) hold each depth's search (``CARD`` ...)."""
    depth, descend, value = 0, True, 0
    frame[0, ALPHA], frame[0, BETA] = -INFINITE, INFINITE
    while True:
        r64, r8 = stack.view(U64)[depth], stack.view(np.int8)[depth]
        minimise = r8[soff[k.F_TO_PLAY]] == decider
        done = False
        if descend:  # a new position: the table may settle it or narrow its window
            nodes[0] += 1
            alpha, beta = frame[depth, ALPHA], frame[depth, BETA]
            slot, first = -1, -1
            if r8[soff[k.F_TRICK_SIZE]] == 0 and len(keys):
                key = position_key(r64, r8, soff, rp, scoring, salt)
                slot = np.int64(key & U64(len(keys) - 1))  # an int64: uint64 and int unify to float
                if keys[slot] == key:
                    low, high = np.int64(entries[slot, LOWER]), np.int64(entries[slot, UPPER])
                    if low >= beta or low == high:
                        value, done = low, True
                    elif high <= alpha:
                        value, done = high, True
                    else:
                        alpha, beta = max(alpha, low), min(beta, high)
                        first = entries[slot, BEST]
            if not done:
                frame[depth, ALPHA], frame[depth, BETA] = alpha, beta
                frame[depth, ALPHA0], frame[depth, BETA0], frame[depth, SLOT] = alpha, beta, slot
                frame[depth, BEST_VALUE], frame[depth, BEST_CARD] = (INFINITE if minimise else -INFINITE), -1
                moves = distinct_moves(r64, r8, soff, rp, k.legal_cards(r64, r8, soff, rp))
                card = first if first >= 0 and moves & BIT[first] else high_card(moves)
                frame[depth, CARD], left[depth] = card, moves ^ BIT[card]
        else:  # ``value``: the score after this position's card
            if (value < frame[depth, BEST_VALUE]) if minimise else (value > frame[depth, BEST_VALUE]):
                frame[depth, BEST_VALUE], frame[depth, BEST_CARD] = value, frame[depth, CARD]
            if minimise:
                frame[depth, BETA] = min(frame[depth, BETA], value)
            else:
                frame[depth, ALPHA] = max(frame[depth, ALPHA], value)
            if frame[depth, ALPHA] >= frame[depth, BETA] or not left[depth]:
                value, done = frame[depth, BEST_VALUE], True
                slot = frame[depth, SLOT]
                if slot >= 0:
                    keys[slot] = position_key(r64, r8, soff, rp, scoring, salt)
                    entries[slot, LOWER] = value if value > frame[depth, ALPHA0] else -INFINITE  # else an upper bound
                    entries[slot, UPPER] = value if value < frame[depth, BETA0] else INFINITE  # else a lower bound
                    entries[slot, BEST] = frame[depth, BEST_CARD]
            else:
                frame[depth, CARD] = high_card(left[depth])
                left[depth] ^= BIT[frame[depth, CARD]]
        if done:  # back to the position before, with this one's value
            if depth == 0:
                return value
            depth, descend = depth - 1, False
            continue
        play(stack, depth, soff, rp, deck, frame[depth, CARD], shuffled)
        c64, c8 = stack.view(U64)[depth + 1], stack.view(np.int8)[depth + 1]
        if finished(c64, c8, soff, rp, scoring):
            score(c64, soff, rp_real, totals, points)
            value, descend = np.int64(points[decider]), False
        else:
            frame[depth + 1, ALPHA], frame[depth + 1, BETA] = frame[depth, ALPHA], frame[depth, BETA]
            depth, descend = depth + 1, True


@row_kernel
def maxn(
    stack: np.ndarray,
    soff: np.ndarray,
    rp: np.ndarray,
    rp_real: np.ndarray,
    totals: np.ndarray,
    decider: int,
    keys: np.ndarray,
    entries: np.ndarray,
    salt: np.uint64,
    scoring: np.uint64,
    deck: np.ndarray,
    shuffled: np.ndarray,
    values: np.ndarray,
    frame: np.ndarray,
    left: np.ndarray,
    nodes: np.ndarray,
) -> None:
    """``values[0]`` (P,): every seat's hand score from row 0 of ``stack`` (not settled) when each
    seat minimises its own; among cards equal for the mover, the one worst for the decider, then
    the lowest card. Depth first: ``values[depth]`` holds the best so far of each depth,
    ``values[depth + 1]`` the value of its card; ``frame`` and ``left`` as in ``paranoid``."""
    P = rp[k.R_PLAYERS]
    depth, descend = 0, True
    while True:
        r64, r8 = stack.view(U64)[depth], stack.view(np.int8)[depth]
        best, child = values[depth], values[depth + 1]
        done = False
        if descend:  # a new position: the table may hold its value
            nodes[0] += 1
            slot = -1
            if r8[soff[k.F_TRICK_SIZE]] == 0 and len(keys):
                key = position_key(r64, r8, soff, rp, scoring, salt)
                slot = np.int64(key & U64(len(keys) - 1))
                if keys[slot] == key:
                    for s in range(P):  # loops: slice copies would allocate
                        best[s] = entries[slot, s]
                    done = True
            if not done:
                moves = distinct_moves(r64, r8, soff, rp, k.legal_cards(r64, r8, soff, rp))
                frame[depth, SLOT], frame[depth, BEST_CARD] = slot, -1
                frame[depth, CARD], left[depth] = low_card(moves), moves & (moves - U64(1))
        else:  # ``child``: the scores after this position's card
            mover = r8[soff[k.F_TO_PLAY]]
            better = child[mover] < best[mover] or (child[mover] == best[mover] and child[decider] > best[decider])
            if frame[depth, BEST_CARD] < 0 or better:
                for s in range(P):
                    best[s] = child[s]
                frame[depth, BEST_CARD] = frame[depth, CARD]
            if left[depth]:
                frame[depth, CARD] = low_card(left[depth])
                left[depth] &= left[depth] - U64(1)
            else:
                done = True
                if frame[depth, SLOT] >= 0:
                    keys[frame[depth, SLOT]] = position_key(r64, r8, soff, rp, scoring, salt)
                    for s in range(P):
                        entries[frame[depth, SLOT], s] = best[s]
        if done:  # back to the position before, with this one's scores in ``values[depth]``
            if depth == 0:
                return
            depth, descend = depth - 1, False
            continue
        play(stack, depth, soff, rp, deck, frame[depth, CARD], shuffled)
        c64, c8 = stack.view(U64)[depth + 1], stack.view(np.int8)[depth + 1]
        if finished(c64, c8, soff, rp, scoring):
            score(c64, soff, rp_real, totals, child)
            descend = False
        else:
            depth, descend = depth + 1, True


@njit(cache=True)
def solve_rows(
    data: np.ndarray,
    soff: np.ndarray,
    rp: np.ndarray,
    rp_real: np.ndarray,
    deck: np.ndarray,
    seats: np.ndarray,
    search: int,
    table_bits: int,
    out: np.ndarray,
    nodes: np.ndarray,
) -> None:
    """``out[g]``: the hand score of seat ``seats[g]`` in game g (a one-deck row, play phase,
    stepped under the rules ``rp``) under the search ``search`` (``MAXN`` or ``PARANOID``), scored
    with the real rules ``rp_real`` and the row's game totals. ``table_bits``: the transposition
    table holds 2^table_bits entries (0: none). ``nodes[0]``: positions searched, added up."""
    P = rp[k.R_PLAYERS]
    d64, d32, d8 = data.view(U64), data.view(np.int32), data.view(np.int8)
    scoring = scoring_cards(rp)
    size = (1 << table_bits) if table_bits > 0 else 0
    keys, entries = np.zeros(size, U64), np.zeros((size, ENTRY), np.int16)
    rows = P * rp[k.R_HAND_SIZE] + 2  # the root, one per card still to play, and the values' scratch
    stack = np.empty((rows, data.shape[1]), np.uint8)
    frame, left = np.empty((rows, FRAME), np.int64), np.empty(rows, U64)
    values = np.empty((rows, P), np.int32)
    totals = np.empty(P, np.int32)
    shuffled = np.empty(len(deck), np.int8)  # the step's scratch for dealing (never used: the hand ends the game)
    for g in range(data.shape[0]):
        totals[:] = d32[g, soff[k.F_SCORES] : soff[k.F_SCORES] + P]
        stack[0] = data[g]
        if finished(d64[g], d8[g], soff, rp, scoring):
            score(d64[g], soff, rp_real, totals, values[0])
            out[g] = values[0, seats[g]]
            continue
        salt = mix64_word(U64(g + 1))
        if search == PARANOID:
            out[g] = paranoid(
                stack, soff, rp, rp_real, totals, seats[g], keys, entries, salt, scoring, deck, shuffled, values[0],
                frame, left, nodes,
            )  # fmt: skip
        else:
            maxn(
                stack, soff, rp, rp_real, totals, seats[g], keys, entries, salt, scoring, deck, shuffled, values,
                frame, left, nodes,
            )  # fmt: skip
            out[g] = values[0, seats[g]]
