"""The heuristic's card choice, compiled: ``heuristic_card`` decides one game from its info row,
the rules' int params and the knobs (``HeuristicPolicy.knobs``), so other compiled code (a
search's rollouts, compiled tables) can call it; ``heuristic_cards`` loops over a batch. The
one-deck rules are here, the two-deck ones in ``heuristic_two_decks``; what they do is described
in ``hearts_env.agents.rule_based.heuristic``."""

from __future__ import annotations

import numpy as np
from numba import njit

from hearts_env.agents.rule_based.bitboards import LOW_KEY, best_by_key, read_trick
from hearts_env.agents.rule_based.heuristic_tables import (
    ABOVE_JD,
    AH_BIT,
    K_KEEP_TOP_HEARTS,
    K_MOON_ALARM,
    K_MOON_LOSERS,
    K_MOON_SLACK,
    K_PASS_HEART,
    K_SAFE_RATIO,
    K_SHOOT_MOON,
    K_SPADE_GUARD,
    SPADE_BITS,
    SPADE_HONOURS,
    discard_danger,
    lead_cost,
    pass_pick,
    queen_loses_the_game,
)
from hearts_env.agents.rule_based.heuristic_two_decks import pass_card2, play_card2
from hearts_env.engine.cards import (
    ABOVE,
    BELOW,
    BIT,
    CLUBS,
    DIAMONDS,
    HEART_BITS,
    HEARTS,
    JD,
    JD_BIT,
    MOON_POINTS,
    NUM_CARDS,
    NUM_RANKS,
    NUM_SUITS,
    POINT_BITS,
    QS,
    QS_BIT,
    QS_POINTS,
    SPADES,
    SUIT_BITS,
    SUIT_OF,
)
from hearts_env.engine.compiled import inline_kernel, row_kernel
from hearts_env.engine.core import PASS
from hearts_env.engine.infoset import (
    I_HAND,
    I_LEGAL,
    I_PASSED,
    I_PHASE,
    I_TAKEN,
    I_TRICK,
    I_TRICKS_PLAYED,
    I_UNSEEN,
    I_VOIDS,
)
from hearts_env.engine.kernels import (
    R_DECK,
    R_DECKS,
    R_JD,
    R_NO_POINTS_FIRST,
    R_PASS_COUNT,
    R_PLAYERS,
    R_TARGET,
    count,
    high_card,
    low_card,
    raw_points,
)

U64 = np.uint64
F32 = np.float32


@row_kernel
def heuristic_cards(idata: np.ndarray, ioff: np.ndarray, rp: np.ndarray, kn: np.ndarray, out: np.ndarray) -> None:
    i64, i32, i8 = idata.view(U64), idata.view(np.int32), idata.view(np.int8)
    for g in range(idata.shape[0]):
        out[g] = heuristic_card(i64[g], i32[g], i8[g], ioff, rp, kn)


@row_kernel
def one_deck_cards(idata: np.ndarray, ioff: np.ndarray, rp: np.ndarray, kn: np.ndarray, out: np.ndarray) -> None:
    """``heuristic_cards`` of one-deck tables: without the two-deck rules, which a one-deck run then
    never compiles (compiling them cost as much as the rest of a first run's kernels)."""
    i64, i32, i8 = idata.view(U64), idata.view(np.int32), idata.view(np.int8)
    for g in range(idata.shape[0]):
        out[g] = one_deck_card(i64[g], i32[g], i8[g], ioff, rp, kn)


@row_kernel
def heuristic_card(
    i64: np.ndarray, i32: np.ndarray, i8: np.ndarray, ioff: np.ndarray, rp: np.ndarray, kn: np.ndarray
) -> int:
    """The heuristic's card for the seat to act in one info row (0 when it has no legal card);
    ``rp``: ``kernels.rule_params``; ``kn``: ``HeuristicPolicy.knobs``."""
    if rp[R_DECKS] == 2:
        legal = i64[ioff[I_LEGAL]]
        if legal == 0:
            return 0
        if i8[ioff[I_PHASE]] == PASS:
            return pass_card2(i64, i8, ioff, rp, kn, legal)
        return play_card2(i64, i32, i8, ioff, rp, kn, legal)
    return one_deck_card(i64, i32, i8, ioff, rp, kn)


@inline_kernel
def one_deck_card(
    i64: np.ndarray, i32: np.ndarray, i8: np.ndarray, ioff: np.ndarray, rp: np.ndarray, kn: np.ndarray
) -> int:
    """``heuristic_card`` of a one-deck table."""
    legal = i64[ioff[I_LEGAL]]
    if legal == 0:
        return 0
    if i8[ioff[I_PHASE]] == PASS:
        return _pass_card(i64, i8, ioff, rp, kn, legal)
    return _play_card(i64, i32, i8, ioff, rp, kn, legal)


# ---------------------------------------------------------------------------------------------
# Card tracking and the moon


@njit(cache=True, inline="always")
def _suit_masters(hand: np.uint64, out: np.uint64, suit: int) -> np.uint64:
    """The cards of ``hand`` in ``suit`` that rank above every out card of the suit."""
    top_out = high_card(out & SUIT_BITS[suit])
    return hand & (ABOVE[top_out] if top_out >= 0 else SUIT_BITS[suit])


@njit(cache=True, inline="always")
def _masters(hand: np.uint64, out: np.uint64) -> np.uint64:
    """The cards of ``hand`` that rank above every out card of their suit."""
    return (
        _suit_masters(hand, out, 0)
        | _suit_masters(hand, out, 1)
        | _suit_masters(hand, out, 2)
        | _suit_masters(hand, out, 3)
    )


@njit(cache=True, inline="always")
def _moon_hand(hand: np.uint64, out: np.uint64, P: int, spare: int, kn: np.ndarray) -> bool:
    """The hand can take every point: its master hearts pull the out hearts, it has few losers
    elsewhere (``spare`` more while passing), and it holds or can catch the QS."""
    side_losers = 0
    for s in (HEARTS, CLUBS, DIAMONDS, SPADES):  # hearts first: most hands fail there
        length = count(hand & SUIT_BITS[s])
        mastered = count(_suit_masters(hand, out, s))
        pulls = mastered * (P - 1) + kn[K_MOON_SLACK] >= count(out & SUIT_BITS[s])  # masters draw the suit
        if s == HEARTS:
            if not (pulls and length > 0):
                return False
        elif not pulls:
            side_losers += length - mastered
        if s == SPADES and not ((hand & QS_BIT) != 0 or mastered > 0 or (out & QS_BIT) == 0):
            return False  # the QS is neither held nor catchable
    return side_losers <= kn[K_MOON_LOSERS] + spare


# ---------------------------------------------------------------------------------------------
# Passing


# The pass and the play are real calls, not inlined: inlined, the heuristic compiled as one function
# in 33 s of a first run; as two calls in 10 s, deciding as fast (speed/speed_agents.py).
@row_kernel
def _pass_card(i64: np.ndarray, i8: np.ndarray, ioff: np.ndarray, rp: np.ndarray, kn: np.ndarray, legal) -> int:
    """One pick: the legal card with the highest pass score (the first among equals)."""
    P = rp[R_PLAYERS]
    passed = i64[ioff[I_PASSED]]
    dealt = i64[ioff[I_HAND]] | passed  # the hand as dealt: the picks made so far count
    # Spade honours go when short.
    few_spades = count(dealt & SPADE_BITS) < kn[K_SPADE_GUARD]

    # Never the three highest hearts together (that could hand someone a moon; one of them always
    # stays), nor a lone AH; or (``keep_top_hearts``) never any of the k highest.
    held = dealt & HEART_BITS
    never = U64(0)
    keep = kn[K_KEEP_TOP_HEARTS]
    if keep < 0:
        top3, rest = U64(0), held
        for _ in range(3):
            if rest:
                top = BIT[high_card(rest)]
                top3 |= top
                rest ^= top
        n_held = count(held)
        if count(top3 & passed) >= min(max(n_held - 1, 1), 2):
            never = top3
        if n_held == 1:
            never |= AH_BIT
    else:
        for c in range(HEARTS * NUM_RANKS, NUM_CARDS):
            if count(held & (ABOVE[c] | BIT[c])) <= keep:  # held hearts from the top down to c
                never |= BIT[c]

    # A moon hand passes its losers, lowest first, and keeps its masters and every point card.
    moon = kn[K_SHOOT_MOON] != 0 and _moon_hand(dealt, U64(rp[R_DECK]) & ~dealt, P, rp[R_PASS_COUNT], kn)
    if moon:
        never = _masters(dealt, U64(rp[R_DECK]) & ~dealt) | POINT_BITS
    # Hearts go after the side cards.
    return pass_pick(i8, ioff, rp, kn, legal, dealt, U64(0), few_spades, F32(-kn[K_PASS_HEART]), never, moon)


# ---------------------------------------------------------------------------------------------
# Playing


@row_kernel
def _play_card(
    i64: np.ndarray, i32: np.ndarray, i8: np.ndarray, ioff: np.ndarray, rp: np.ndarray, kn: np.ndarray, legal
) -> int:
    P = rp[R_PLAYERS]
    hand = i64[ioff[I_HAND]]
    out = i64[ioff[I_UNSEEN]]  # cards in other hands
    # The moon: no other seat holds a point, and the hand can take them all. A moon threat: one
    # opponent holds every point so far, with ``moon_alarm`` hearts or more.
    total, mine, shooter, most, shooter_hearts = 0, 0, 0, -1, 0
    for r in range(P):
        taken = i64[ioff[I_TAKEN] + r]
        hearts = count(taken & HEART_BITS)
        raw = raw_points(taken)
        total += raw
        if r == 0:
            mine = raw
        if raw > most:
            shooter, most, shooter_hearts = r, raw, hearts
    moon = kn[K_SHOOT_MOON] != 0 and total == mine and _moon_hand(hand, out, P, 0, kn)
    threat = shooter != 0 and most == total and shooter_hearts >= kn[K_MOON_ALARM] and total < MOON_POINTS and not moon
    trick, size, led_suit, winning, winner = read_trick(i8, ioff, P)
    if led_suit < 0:
        return _lead(i8, ioff, rp, kn, legal, hand, out, moon, threat)
    if legal & SUIT_BITS[led_suit]:
        return _follow(i8, ioff, rp, kn, legal, out, moon, threat, shooter, trick, size, led_suit, winning, winner)
    return _discard(
        i32, i8, ioff, rp, kn, legal, hand, out, moon, threat, shooter, trick, size, led_suit, winning, winner
    )


@njit(cache=True, inline="always")
def _lead(i8, ioff, rp, kn, legal, hand, out, moon, threat) -> int:
    top_heart = high_card(legal & HEART_BITS)
    master_heart = top_heart >= 0 and top_heart > high_card(out & HEART_BITS)
    # Shooting the moon: master hearts, then the side master with the most cards behind it, then
    # the highest card.
    if moon:
        if master_heart:
            return top_heart
        best, most = -1, -1
        for s in range(HEARTS):  # the side suits (clubs, diamonds, spades)
            mine = legal & SUIT_BITS[s]
            top = high_card(mine)
            if top >= 0 and top > high_card(out & SUIT_BITS[s]) and count(mine) > most:
                best, most = top, count(mine)
        return best if best >= 0 else high_card(legal)
    # Stopping a moon: take a trick with a master heart.
    if threat and master_heart:
        return top_heart
    # Smoke out the QS: spades while holding none above the jack.
    qs_out = (out & QS_BIT) != 0
    spades = legal & SPADE_BITS
    if qs_out and (hand & SPADE_HONOURS) == 0 and spades:
        return high_card(spades)

    # Otherwise the lowest card of the suit with the best exit (the lowest cost, the first among equals).
    points_out = count(out & HEART_BITS) + QS_POINTS * qs_out > 0
    best, best_cost = -1, np.inf
    for s in range(NUM_SUITS):
        low = low_card(legal & SUIT_BITS[s])
        if low < 0:
            continue
        out_suit = out & SUIT_BITS[s]
        n_above = F32(count(out_suit & ABOVE[low]))
        n_below = F32(count(out_suit & BELOW[low]))
        length = count(hand & SUIT_BITS[s])
        heart_cost = 20.0 if threat else 0.0  # no heart into a moon threat
        sure = n_above == 0
        cost = lead_cost(i8, ioff, rp, kn, s, n_above, n_below, sure, points_out, hand, qs_out, length, heart_cost)
        if cost < best_cost or best < 0:
            best, best_cost = low, cost
    return best


@njit(cache=True, inline="always")
def _follow(i8, ioff, rp, kn, legal, out, moon, threat, shooter, trick, size, led_suit, winning, winner) -> int:
    P = rp[R_PLAYERS]
    follow = legal & SUIT_BITS[led_suit]
    no_qs = follow & ~QS_BIT
    high, low = high_card(no_qs), low_card(no_qs)
    last = size == P - 1
    points = raw_points(trick)
    # Shooting the moon: win tricks with points (cheaply when last to a quiet trick).
    if moon:
        top = high_card(follow)
        if top > winning:
            if not (last and points == 0):
                return top
            return low_card(follow & ABOVE[winning])
        return low_card(follow)
    # Stopping a moon: overtake the shooter in a trick with points, or before it plays.
    if threat:
        shooter_ahead = winner == shooter or i8[ioff[I_TRICK] + shooter] < 0
        if shooter_ahead and (points > 0 or led_suit == HEARTS) and high > winning:
            return high
    # The QS goes on an AS or KS.
    if led_suit == SPADES and winning > QS and follow & QS_BIT:
        return QS
    jd_rule = rp[R_JD] != 0
    if jd_rule:  # win a trick holding the JD, or win with the JD, when it outweighs the points
        if led_suit == DIAMONDS and points < 10:
            winners = follow & ABOVE[winning] & ~JD_BIT
            if trick & JD_BIT and winners:
                return low_card(winners) if last else high_card(winners)
            jd_master = (out & ABOVE_JD) == 0
            if follow & JD_BIT and winning < JD and (last or jd_master):
                return JD
    # A safe trick takes the highest card: it holds no points and none can come (the first trick,
    # last to play, or an early round of a side suit nobody behind is void in).
    if points == 0:
        first_trick = i8[ioff[I_TRICKS_PLAYED]] == 0 and rp[R_NO_POINTS_FIRST] != 0
        safe = last or first_trick
        if not safe and led_suit != SPADES and led_suit != HEARTS:
            void_behind = False
            for r in range(1, P):
                if i8[ioff[I_TRICK] + r] < 0 and (i8[ioff[I_VOIDS] + r] >> led_suit) & 1:
                    void_behind = True
            safe = not void_behind and count(out & SUIT_BITS[led_suit]) >= kn[K_SAFE_RATIO] * (P - 1 - size)
        shed = no_qs & ~JD_BIT if jd_rule and winning > JD else no_qs  # the JD only where it wins
        if safe and shed:
            return high_card(shed)
    # Duck: the highest card that still loses.
    duck = high_card(no_qs & BELOW[winning])
    if duck >= 0:
        return duck
    # None loses.
    if not last and (out & QS_BIT) and led_suit == SPADES and low >= 0:
        return low  # the QS may still fall on it: stay low
    if last and high >= 0:
        return high
    if points > 0 and low >= 0:
        return low  # hope to be overtaken
    return high if high >= 0 else low_card(follow)


@njit(cache=True, inline="always")
def _discard(i32, i8, ioff, rp, kn, legal, hand, out, moon, threat, shooter, trick, size, led_suit, winning, winner):
    P = rp[R_PLAYERS]
    safe = legal & ~POINT_BITS
    # Shooting the moon: the lowest card that scores nothing.
    if moon and safe:
        return best_by_key(safe, LOW_KEY)
    # Stopping a moon: hearts to anyone but the shooter, nothing that scores to the shooter.
    if threat:
        shooter_played = i8[ioff[I_TRICK] + shooter] >= 0
        if shooter_played and winner != shooter:
            if legal & HEART_BITS:
                return high_card(legal & HEART_BITS)
        elif safe:
            return high_card(safe)
    # The QS, unless as last to play it would end the game with another player winning.
    hold_queen = False
    if legal & QS_BIT and rp[R_TARGET] > 0 and size == P - 1:
        hold_queen = queen_loses_the_game(i32, ioff, rp, winner, QS_POINTS + raw_points(trick))
    if legal & QS_BIT and not hold_queen:
        return QS
    # The most dangerous card (the first among equals).
    qs_out = (out & QS_BIT) != 0
    jd_out = rp[R_JD] != 0 and (out & JD_BIT) != 0
    best, best_danger = -1, -np.inf
    bits = legal
    while bits:
        c = low_card(bits)
        bits &= bits - U64(1)
        above, below = count(out & ABOVE[c]), count(out & BELOW[c])
        singleton = count(hand & SUIT_BITS[SUIT_OF[c]]) == 1
        master = above == 0 and below > 0  # it would win a later trick
        value = discard_danger(c, above, below, master, singleton, qs_out, jd_out, rp[R_JD] != 0, kn)
        if c == QS:
            value = -np.inf if hold_queen else 200.0
        if value > best_danger:
            best, best_danger = c, value
    return best if best >= 0 else QS  # nothing but the QS, kept at -inf, is left
