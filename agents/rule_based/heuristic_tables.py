"""The heuristic's numbers: its weights, the knobs as its kernels read them, and the card tables
and helpers that its one-deck rules (``heuristic_kernels``) and two-deck rules
(``heuristic_two_decks``) share. The rules themselves are described in ``hearts_env.agents.rule_based.heuristic``."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from hearts_env.engine.cards import (
    ABOVE,
    BIT,
    DIAMONDS,
    HEARTS,
    JD,
    JD_BIT,
    NUM_CARDS,
    NUM_RANKS,
    NUM_SUITS,
    QS,
    QS_BIT,
    RANK_OF,
    SPADES,
    SUIT_BITS,
    SUIT_OF,
)
from hearts_env.engine.infoset import I_PASS_OFFSET, I_POINTS, I_SCORES, I_VOIDS
from hearts_env.engine.kernels import R_HAND_SIZE, R_JD, R_PLAYERS, count, game_ends, low_card

U64 = np.uint64
F32 = np.float32
AH_BIT = BIT[NUM_CARDS - 1]
SPADE_BITS = SUIT_BITS[SPADES]
SPADE_HONOURS = BIT[QS] | BIT[QS + 1] | BIT[QS + 2]  # QS, KS, AS
LOW_SPADES = SPADE_BITS & ~SPADE_HONOURS
ABOVE_JD = SUIT_BITS[DIAMONDS] & ABOVE[JD]
LOW_5 = U64(sum(1 << c for c in range(NUM_CARDS) if RANK_OF[c] <= 5))  # every card ranked 2..5
RANK_F32 = RANK_OF.astype(np.float32)
NEVER = F32(-1000.0)  # score of a card a rule forbids (still legal: it is played if nothing else is)
HONOUR_PASS = np.array([102.0, 100.0, 101.0], np.float32)  # passed in the order QS, AS, KS
# Pass score of each card before the hand's adjustments: its rank; 2s and 3s kept, low spades never.
PASS_BASE = np.where(RANK_OF <= 3, NEVER / 2, RANK_F32).astype(np.float32)
PASS_BASE[(SUIT_OF == SPADES) & (RANK_OF < 12)] = NEVER


@dataclass(frozen=True)
class Weights:
    """The numbers behind the rules (tuned on duplicate deals against the simple player and itself)."""

    pass_short: float = 3.0
    """Passing: bonus per card under 4 in a side suit (short suits are emptied first)."""
    pass_long_low: float = 8.0
    """Passing: malus for the cards of a suit of 4+ cards holding a card ranked 5 or less."""
    pass_heart: float = 5.0
    """Passing: malus of a (passable) heart against a side card of its rank."""
    pass_honour_kept: float = 6.0
    """Passing: malus of a spade honour that rule 1 keeps, against a side card of its rank."""
    dump_heart: float = 6.0
    """Discarding: bonus of a heart over a side card of its rank."""
    dump_master: float = 3.0
    """Discarding: bonus of a master (it would win a later trick)."""
    dump_exit: float = 6.0
    """Discarding: malus of a side-suit exit (kept to lose the lead later)."""
    dump_exit_heart: float = 3.0
    """Discarding: malus of a heart exit."""
    dump_spade_honour: float = 40.0
    """Discarding: bonus of the AS and KS while the QS is out."""
    dump_singleton: float = 2.0
    """Discarding: bonus of a card alone in its suit (discarding it makes a void)."""
    lead_share: float = 10.0
    """Leading: cost per share of the out cards of the suit ranked below the led card."""
    lead_sure_win: float = 50.0
    """Leading: cost of a card nobody can beat (doubled while points are out)."""
    lead_void: float = 6.0
    """Leading: cost per opponent void in the suit (1 when the led card is an exit), points out."""
    lead_spades_with_queen: float = 30.0
    """Leading: cost of a spade while holding the QS."""
    lead_spades_with_honour: float = 8.0
    """Leading: cost of a spade while holding the AS or KS and the QS is out."""
    lead_heart: float = -2.0
    """Leading: cost of a heart (negative: giving hearts away is welcome)."""
    lead_length: float = 2.0
    """Leading: cost per card held in the suit (short suits first)."""
    moon_slack: int = 3
    """Moon: out cards of a suit the masters may leave unpulled (masters * (P - 1) + slack >= out)."""
    moon_losers: int = 3
    """Moon: side-suit losers allowed (plus the pass count while passing)."""


# The knobs as the kernels read them (``HeuristicPolicy.knobs``): the options, then ``Weights`` in field order.
NUM_KNOBS = 24
(
    K_SHOOT_MOON,
    K_SPADE_GUARD,
    K_KEEP_TOP_HEARTS,  # -1: None
    K_MOON_ALARM,
    K_SAFE_RATIO,
    K_PASS_SHORT,
    K_PASS_LONG_LOW,
    K_PASS_HEART,
    K_PASS_HONOUR_KEPT,
    K_DUMP_HEART,
    K_DUMP_MASTER,
    K_DUMP_EXIT,
    K_DUMP_EXIT_HEART,
    K_DUMP_SPADE_HONOUR,
    K_DUMP_SINGLETON,
    K_LEAD_SHARE,
    K_LEAD_SURE_WIN,
    K_LEAD_VOID,
    K_LEAD_SPADES_WITH_QUEEN,
    K_LEAD_SPADES_WITH_HONOUR,
    K_LEAD_HEART,
    K_LEAD_LENGTH,
    K_MOON_SLACK,
    K_MOON_LOSERS,
) = range(NUM_KNOBS)
assert len(dataclasses.fields(Weights)) == NUM_KNOBS - K_PASS_SHORT


@njit(cache=True, inline="always")
def queen_loses_the_game(i32: np.ndarray, ioff: np.ndarray, rp: np.ndarray, winner: int, cost: int) -> bool:
    """Whether giving the trick's winner (relative seat) ``cost`` more points would end the game
    with the observer above the lowest total."""
    highest, lowest, own = -(2**31), 2**31, 0
    for r in range(rp[R_PLAYERS]):
        total = i32[ioff[I_SCORES] + r] + i32[ioff[I_POINTS] + r] + (cost if r == winner else 0)
        highest, lowest = max(highest, total), min(lowest, total)
        if r == 0:
            own = total
    return game_ends(highest, rp) and own > lowest


# ---------------------------------------------------------------------------------------------
# Scores both deck counts give (the callers count the cards: once, or by copies)


@njit(cache=True, inline="always")
def side_suit_pass_score(length: int, short_length: int, holds_low: bool, kn: np.ndarray) -> np.float32:
    """Passing: what every card of a side suit of ``length`` cards gets: short suits first (to make
    voids), long suits holding a card ranked 5 or less (``holds_low``) last."""
    score = F32(F32(max(0, short_length - length)) * F32(kn[K_PASS_SHORT]))
    if length >= 4 and holds_low:
        score = F32(score - F32(kn[K_PASS_LONG_LOW]))
    return score


@njit(cache=True, inline="always")
def honour_pass_score(c: int, score: np.float32, few_spades: bool, right: bool, kn: np.ndarray) -> np.float32:
    """Passing: a spade honour (QS, KS, AS) goes when short in spades (passing right with a low spade
    kept: the QS alone), else it ranks below the side cards of its rank; other cards keep ``score``."""
    if QS <= c <= QS + 2:
        if few_spades and (c == QS or not right):
            return HONOUR_PASS[c - QS]
        return F32(RANK_F32[c] - F32(kn[K_PASS_HONOUR_KEPT]))
    return score


@njit(cache=True, inline="always")
def jd_pass_score(c: int, score: np.float32) -> np.float32:
    """Passing with the JD rule: the JD is kept, and the diamonds that can capture it mostly too."""
    if c == JD:
        return NEVER
    if JD < c <= JD + 3:
        return F32(score - F32(8.0))
    return score


@njit(cache=True, inline="always")
def pass_pick(
    i8: np.ndarray,
    ioff: np.ndarray,
    rp: np.ndarray,
    kn: np.ndarray,
    legal: np.uint64,
    dealt: np.uint64,
    dealt2: np.uint64,
    few_spades: bool,
    heart_score: np.float32,
    never: np.uint64,
    moon: bool,
) -> int:
    """One pick of a pass: the legal card with the highest pass score (the first among equals).
    ``dealt``: the hand as dealt (the picks made so far count), ``dealt2`` its second copies (0
    with one deck); ``few_spades``: spade honours go; every heart gets ``heart_score`` as its suit's
    score; a ``never`` card goes only if nothing else can. A ``moon`` hand passes its losers,
    lowest first."""
    # Short: under 4 cards in 13, scaled to the hand size (4 * size / 13 is never a half: no tie to round).
    short_length = max(1, int(math.floor(4 * rp[R_HAND_SIZE] / NUM_RANKS + 0.5)))
    # Passing right with a low spade kept: of the spade honours, the QS alone goes.
    right = i8[ioff[I_PASS_OFFSET]] == rp[R_PLAYERS] - 1 and (dealt & LOW_SPADES) != 0
    jd_rule = rp[R_JD] != 0
    best, best_score = -1, F32(-np.inf)
    for s in range(NUM_SUITS):
        bits = legal & SUIT_BITS[s]
        if not bits:
            continue
        length = count(dealt & SUIT_BITS[s]) + count(dealt2 & SUIT_BITS[s])
        short = max(0, short_length - length)
        # Side cards: high first, short suits first, long suits holding low cards last.
        if s == HEARTS:
            by_suit = heart_score
        else:
            by_suit = side_suit_pass_score(length, short_length, (dealt & SUIT_BITS[s] & LOW_5) != 0, kn)
        while bits:
            c = low_card(bits)
            bits &= bits - U64(1)
            if moon:
                score = F32(F32(20.0 - RANK_F32[c]) + F32(short))
            else:
                score = honour_pass_score(c, F32(PASS_BASE[c] + by_suit), few_spades, right, kn)
                if jd_rule:
                    score = jd_pass_score(c, score)
            if never & BIT[c]:
                score = NEVER
            if score > best_score:
                best, best_score = c, score
    return best


@njit(cache=True, inline="always")
def lead_cost(
    i8: np.ndarray,
    ioff: np.ndarray,
    rp: np.ndarray,
    kn: np.ndarray,
    s: int,
    n_above: np.float32,
    n_below: np.float32,
    sure: bool,
    points_out: bool,
    hand: np.uint64,
    qs_out: bool,
    length: int,
    heart_cost: float,
) -> float:
    """Leading the lowest card of suit ``s`` (``n_above``/``n_below`` out cards of the suit above and
    below it; ``sure``: nobody can beat it; ``length`` cards held in the suit; ``heart_cost``: more
    cost of a heart): a sure winner costs most, else the share of the out cards below it; voids
    seen in the suit (points out), spades while holding the QS or an honour, length, the JD."""
    if sure:
        cost = kn[K_LEAD_SURE_WIN] * (2.0 if points_out else 1.0)
    else:  # a card others can beat: the more out cards below it, the worse
        share = F32(n_below / max(F32(n_above + n_below), F32(1.0)))
        cost = float(F32(F32(kn[K_LEAD_SHARE]) * share))
    # Opponents known void in the suit dump points on the trick's winner.
    voids = 0
    for r in range(1, rp[R_PLAYERS]):
        voids += (i8[ioff[I_VOIDS] + r] >> s) & 1
    cost += voids * (kn[K_LEAD_VOID] if n_below > 0 else 1.0) * (1.0 if points_out else 0.0)
    if s == SPADES:
        holds_honour = (hand & SPADE_HONOURS & ~QS_BIT) != 0
        cost += (1.0 if hand & QS_BIT else 0.0) * kn[K_LEAD_SPADES_WITH_QUEEN] + (
            1.0 if holds_honour and qs_out else 0.0
        ) * kn[K_LEAD_SPADES_WITH_HONOUR]
    elif s == HEARTS:
        cost += kn[K_LEAD_HEART] + heart_cost
    cost += kn[K_LEAD_LENGTH] * length
    if s == DIAMONDS and rp[R_JD] and hand & JD_BIT:
        cost += 5.0
    return cost


@njit(cache=True, inline="always")
def discard_danger(
    c: int, above: int, below: int, master: bool, singleton: bool, qs_out: bool, jd_out: bool, jd_rule: bool, kn
) -> float:
    """Discarding ``c`` (``above``/``below`` out cards of its suit; ``master``: it would win a later
    trick; ``singleton``: alone in its suit): how dangerous it is to keep, the highest goes first.
    High cards, hearts, masters, the AS/KS while the QS is out and singletons go; exits are kept,
    and with the JD rule the JD and (while it is out) the diamonds above it."""
    s = SUIT_OF[c]
    danger = RANK_F32[c]
    if s == HEARTS:
        danger = F32(danger + F32(kn[K_DUMP_HEART]))
    if master:
        danger = F32(danger + F32(kn[K_DUMP_MASTER]))
    if below == 0 and above > 0:  # an exit is kept to lose the lead later
        danger = F32(danger - F32(kn[K_DUMP_EXIT_HEART] if s == HEARTS else kn[K_DUMP_EXIT]))
    if qs_out and (c == QS + 1 or c == QS + 2):
        danger = F32(danger + F32(kn[K_DUMP_SPADE_HONOUR]))
    if singleton:  # discarding it makes a void
        danger = F32(danger + F32(kn[K_DUMP_SINGLETON]))
    value = float(danger)
    if jd_rule:
        if c == JD:
            value = -60.0
        elif jd_out and s == DIAMONDS and RANK_OF[c] > 11:
            value -= 8.0
    return value
