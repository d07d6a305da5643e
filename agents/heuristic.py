"""``HeuristicPolicy``: a strong rule-based Hearts player, compiled.

It follows the advice of the rules texts this project started from (``docs/rules.md``, "Strategy": passing
advice, tactics, card tracking) and what good players do. Every rule reads only the seat's own
information set. ``heuristic_card`` decides one game from its info row, the rules' int params
and the policy's knobs as a float array (``HeuristicPolicy.knobs``), so other compiled code (a
search's rollouts) can call it; ``heuristic_cards`` loops over a batch.

Card tracking. The cards still *out* (in other hands) are the deck less the own hand and every
card played this hand. Per suit the player knows how many out cards rank above and below each of
its cards (a card with none above is a *master*, one with none below an *exit*), which seats
are known void, and the points every seat has taken.

Passing, one pick at a time; each pick is the best card left, judged on the hand as dealt:
  1. with fewer than ``spade_guard`` spades, the QS, AS and KS (passing right with a low spade
     kept, the QS alone);
  2. never a spade below the queen, nor a 2 or a 3; never the three highest hearts together (that
     could hand someone a moon), nor a lone AH; with the JD rule, never the JD and rarely a
     diamond above it;
  3. otherwise high cards, short side suits first (to make voids), long suits holding low cards
     last; hearts after side cards.
  A hand fit to shoot the moon passes its losers (low side cards) instead.

Play, in order of priority (the first rule that applies to a game decides it):
  * Shooting the moon, while no other seat has a point and the hand can take them all (its
    masters pull every out heart, few losers elsewhere, the QS held or catchable): lead masters,
    win every trick with points, never give a point away.
  * Stopping a moon, when one opponent holds every point so far with ``moon_alarm`` hearts or
    more: lead a master heart, overtake that opponent in a trick with points, and when void give
    hearts to anyone but that opponent (nothing that scores to it).
  * Void in the led suit: the QS first (unless, as last to play, it would end the game with
    someone else winning), then the most dangerous card: the AS/KS while the QS is out, high
    hearts, masters that would win later tricks, singletons (to make a void); exits are kept,
    and with the JD rule the JD and the diamonds above it (winners to capture the JD late).
  * Following suit: the QS goes on an AS or KS; with the JD rule, win a trick holding the JD (or
    with the JD) when it is worth more than its points; a safe trick (no points and none can
    come: the first trick, last to play, or an early round of a side suit nobody behind is void
    in) takes the highest card, to shed it; otherwise duck with the highest card that still
    loses; if none loses: in spades with the QS out, the lowest; as last to play, the highest;
    with points in the trick, the lowest (hoping to be overtaken); else the highest.
  * Leading: smoke the QS out with spades while holding no spade above the jack; otherwise the
    lowest card of the suit with the best exit: a card others can beat (a sure winner costs
    most), in a suit nobody is void in, short suits first, never spades while holding the QS,
    hearts welcome (except into a moon threat).

Two decks (Cancellation Hearts, ``decks=2``): a separate pass and play (the two-deck section
below, sharing the knobs and tables) count every suit by copies and add what cancellation
changes: a card is a sure winner only when its twin is seen or held; the trick's winner after
each card is worked out with cancellation (the twin of the winning card cancels it, a safe way to
shed a high card), and a duck is preferred that stays beaten should the winner's twin come later;
a trick costs the pot's points and, while the kitty lies there, its expected points too; the QS
goes on an AS or KS only when no twin can cancel it; a trick that cannot be ducked, with two or
more seats to come, is played low; hearts are passed like side cards. No moon is tried or
watched for.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from hearts_env.agents.bitboards import LOW_KEY, RANK_OF, SUIT_OF, best_by_key, count, high_card, low_card, read_trick
from hearts_env.agents.compiled import CompiledTable
from hearts_env.cards import CLUBS, DIAMONDS, HEARTS, NUM_CARDS, NUM_RANKS, SPADES
from hearts_env.compiled import row_kernel
from hearts_env.core import (
    ABOVE,
    BELOW,
    BIT,
    HEART_BITS,
    JD,
    JD_POINTS,
    MOON_POINTS,
    PASS,
    POINT_BITS,
    QS,
    SUIT_BITS,
    rule_params,
)
from hearts_env.infoset import (
    I_HAND,
    I_HAND2,
    I_KITTY_SIZE,
    I_LEGAL,
    I_PASS_OFFSET,
    I_PASSED,
    I_PASSED2,
    I_PHASE,
    I_POINTS,
    I_POT,
    I_POT2,
    I_SCORES,
    I_TAKEN,
    I_TRICK,
    I_TRICKS_PLAYED,
    I_UNSEEN,
    I_UNSEEN2,
    I_VOIDS,
    InfoSet,
)
from hearts_env.kernels import (
    R_DECK,
    R_DECKS,
    R_HAND_SIZE,
    R_JD,
    R_NO_POINTS_FIRST,
    R_PASS_COUNT,
    R_PLAYERS,
    R_TARGET,
    add_piles,
    raw_points,
)

U64 = np.uint64
F32 = np.float32
_QS_BIT, _JD_BIT, _AH_BIT = BIT[QS], BIT[JD], BIT[NUM_CARDS - 1]
_SPADES = SUIT_BITS[SPADES]
_SPADE_HONOURS = BIT[QS] | BIT[QS + 1] | BIT[QS + 2]  # QS, KS, AS
_LOW_SPADES = _SPADES & ~_SPADE_HONOURS
_ABOVE_JD = SUIT_BITS[DIAMONDS] & ABOVE[JD]
_LOW_5 = U64(sum(1 << c for c in range(NUM_CARDS) if RANK_OF[c] <= 5))  # every card ranked 2..5
_RANK = RANK_OF.astype(np.float32)
_NEVER = F32(-1000.0)  # score of a card a rule forbids (still legal: it is played if nothing else is)
_HONOUR_PASS = np.array([102.0, 100.0, 101.0], np.float32)  # passed in the order QS, AS, KS
# Pass score of each card before the hand's adjustments: its rank; 2s and 3s kept, low spades never.
_PASS_BASE = np.where(RANK_OF <= 3, _NEVER / 2, _RANK).astype(np.float32)
_PASS_BASE[(SUIT_OF == SPADES) & (RANK_OF < 12)] = _NEVER


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


class HeuristicPolicy(CompiledTable):
    """A strong rule-based player (see the module docstring for its rules).

    Options:
      * ``shoot_moon``: try for the moon with a hand fit for it;
      * ``spade_guard``: with fewer spades than this, pass the QS, AS and KS;
      * ``keep_top_hearts``: None (the seeds' advice) never passes the three highest hearts
        together nor a lone AH; an int k never passes any of the k highest hearts;
      * ``moon_alarm``: hearts one opponent must have taken (with every point so far) before the
        player spends a trick to stop a moon;
      * ``safe_ratio``: out cards of the led suit per player still to play that make an early
        round of a side suit safe for shedding a high card;
      * ``weights``: the numbers behind the rules (``Weights``).
    """

    def __init__(
        self,
        seed: int | None = None,
        shoot_moon: bool = True,
        spade_guard: int = 4,
        keep_top_hearts: int | None = None,
        moon_alarm: int = 5,
        safe_ratio: float = 2.5,
        weights: Weights | None = None,
    ) -> None:
        weights = Weights() if weights is None else weights
        if not isinstance(weights, Weights):
            raise ValueError(f"weights must be a Weights, got {type(weights).__name__}")
        if keep_top_hearts is not None and (isinstance(keep_top_hearts, bool) or not keep_top_hearts >= 0):
            raise ValueError(f"keep_top_hearts must be None or an int >= 0, got {keep_top_hearts!r}")
        self.shoot_moon = shoot_moon
        self.spade_guard = spade_guard
        self.keep_top_hearts = keep_top_hearts
        self.moon_alarm = moon_alarm
        self.safe_ratio = safe_ratio
        self.weights = weights  # deterministic: ``seed`` is unused
        # The options and weights as ``heuristic_card`` reads them (``K_*``), fixed here.
        named = {
            "shoot_moon": shoot_moon,
            "spade_guard": spade_guard,
            "keep_top_hearts": -1 if keep_top_hearts is None else keep_top_hearts,
            "moon_alarm": moon_alarm,
            "safe_ratio": safe_ratio,
            **{f"weights.{f.name}": getattr(weights, f.name) for f in dataclasses.fields(Weights)},
        }
        for name, value in named.items():
            if not isinstance(value, (int, float, np.integer, np.floating)) or not math.isfinite(value):
                raise ValueError(f"HeuristicPolicy: {name} must be a finite number, got {value!r}")
        self.knobs = np.array(list(named.values()), np.float64)
        self.knobs.flags.writeable = False

    def __repr__(self) -> str:
        changed = {k: v for k, v in dataclasses.asdict(self.weights).items() if getattr(Weights, k) != v}
        return (
            f"HeuristicPolicy(shoot_moon={self.shoot_moon}, spade_guard={self.spade_guard}, "
            f"keep_top_hearts={self.keep_top_hearts}, moon_alarm={self.moon_alarm}, safe_ratio={self.safe_ratio}"
            + (f", weights=Weights(**{changed})" if changed else "")
            + ")"
        )

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        """One card per game for the seat to act; ``mask`` (the legal cards, ``info.legal`` as a
        mask) is not read: the legal cards come from ``info.legal``."""
        out = np.empty(info.batch_size, np.int64)
        heuristic_cards(info.data, info.layout.offsets, rule_params(info.rules), self.knobs, out)
        return out


@row_kernel
def heuristic_cards(idata: np.ndarray, ioff: np.ndarray, rp: np.ndarray, kn: np.ndarray, out: np.ndarray) -> None:
    i64, i32, i8 = idata.view(U64), idata.view(np.int32), idata.view(np.int8)
    for g in range(idata.shape[0]):
        out[g] = heuristic_card(i64[g], i32[g], i8[g], ioff, rp, kn)


@row_kernel
def heuristic_card(
    i64: np.ndarray, i32: np.ndarray, i8: np.ndarray, ioff: np.ndarray, rp: np.ndarray, kn: np.ndarray
) -> int:
    """The heuristic's card for the seat to act in one info row (0 when it has no legal card);
    ``rp``: ``core.rule_params``; ``kn``: ``HeuristicPolicy.knobs``."""
    legal = i64[ioff[I_LEGAL]]
    if legal == 0:
        return 0
    if rp[R_DECKS] == 2:
        if i8[ioff[I_PHASE]] == PASS:
            return _pass_card2(i64, i8, ioff, rp, kn, legal)
        return _play_card2(i64, i32, i8, ioff, rp, kn, legal)
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
        if s == SPADES and not ((hand & _QS_BIT) != 0 or mastered > 0 or (out & _QS_BIT) == 0):
            return False  # the QS is neither held nor catchable
    return side_losers <= kn[K_MOON_LOSERS] + spare


# ---------------------------------------------------------------------------------------------
# Passing


@njit(cache=True, inline="always")
def _pass_card(i64: np.ndarray, i8: np.ndarray, ioff: np.ndarray, rp: np.ndarray, kn: np.ndarray, legal) -> int:
    """One pick: the legal card with the highest pass score (the first among equals)."""
    P = rp[R_PLAYERS]
    passed = i64[ioff[I_PASSED]]
    dealt = i64[ioff[I_HAND]] | passed  # the hand as dealt: the picks made so far count
    # Short: under 4 cards in 13, scaled to the hand size (4 * size / 13 is never a half: no tie to round).
    short_length = max(1, int(math.floor(4 * rp[R_HAND_SIZE] / 13 + 0.5)))

    # Spade honours go when short (passing right with a low spade kept: the QS alone).
    few_spades = count(dealt & _SPADES) < kn[K_SPADE_GUARD]
    right = i8[ioff[I_PASS_OFFSET]] == P - 1 and (dealt & _LOW_SPADES) != 0

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
            never |= _AH_BIT
    else:
        for c in range(HEARTS * NUM_RANKS, NUM_CARDS):
            if count(held & (ABOVE[c] | BIT[c])) <= keep:  # held hearts from the top down to c
                never |= BIT[c]

    # A moon hand passes its losers, lowest first, and keeps its masters and every point card.
    moon = kn[K_SHOOT_MOON] != 0 and _moon_hand(dealt, U64(rp[R_DECK]) & ~dealt, P, rp[R_PASS_COUNT], kn)
    moon_keep = (_masters(dealt, U64(rp[R_DECK]) & ~dealt) | POINT_BITS) if moon else U64(0)
    jd_rule = rp[R_JD] != 0

    best, best_score = -1, F32(-np.inf)
    for s in range(4):
        bits = legal & SUIT_BITS[s]
        if not bits:
            continue
        length = count(dealt & SUIT_BITS[s])
        short = max(0, short_length - length)
        # Side cards: high first, short suits first, long suits holding low cards last; hearts after.
        if s == HEARTS:
            by_suit = F32(-kn[K_PASS_HEART])
        else:
            by_suit = F32(F32(short) * F32(kn[K_PASS_SHORT]))
            if length >= 4 and dealt & SUIT_BITS[s] & _LOW_5:
                by_suit = F32(by_suit - F32(kn[K_PASS_LONG_LOW]))
        while bits:
            c = low_card(bits)
            bits &= bits - U64(1)
            if moon:
                score = _NEVER if moon_keep & BIT[c] else F32(F32(20.0 - _RANK[c]) + F32(short))
            else:
                score = F32(_PASS_BASE[c] + by_suit)
                if QS <= c <= QS + 2:  # the spade honours
                    if few_spades and (c == QS or not right):
                        score = _HONOUR_PASS[c - QS]
                    else:
                        score = F32(_RANK[c] - F32(kn[K_PASS_HONOUR_KEPT]))
                if never & BIT[c]:
                    score = _NEVER
                if jd_rule:  # keep the JD and the diamonds that can capture it
                    if c == JD:
                        score = _NEVER
                    elif JD < c <= JD + 3:
                        score = F32(score - F32(8.0))
            if score > best_score:
                best, best_score = c, score
    return best


# ---------------------------------------------------------------------------------------------
# Playing


@njit(cache=True, inline="always")
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
        for s in range(3):  # the side suits
            mine = legal & SUIT_BITS[s]
            top = high_card(mine)
            if top >= 0 and top > high_card(out & SUIT_BITS[s]) and count(mine) > most:
                best, most = top, count(mine)
        return best if best >= 0 else high_card(legal)
    # Stopping a moon: take a trick with a master heart.
    if threat and master_heart:
        return top_heart
    # Smoke out the QS: spades while holding none above the jack.
    qs_out = (out & _QS_BIT) != 0
    spades = legal & _SPADES
    if qs_out and (hand & _SPADE_HONOURS) == 0 and spades:
        return high_card(spades)

    # Otherwise the lowest card of the suit with the best exit (the lowest cost, the first among equals).
    P = rp[R_PLAYERS]
    points_out = count(out & HEART_BITS) + 13 * qs_out > 0
    holds_qs = (hand & _QS_BIT) != 0
    holds_honour = (hand & _SPADE_HONOURS & ~_QS_BIT) != 0
    best, best_cost = -1, np.inf
    for s in range(4):
        low = low_card(legal & SUIT_BITS[s])
        if low < 0:
            continue
        out_suit = out & SUIT_BITS[s]
        n_above = F32(count(out_suit & ABOVE[low]))
        n_below = F32(count(out_suit & BELOW[low]))
        if n_above == 0:  # a sure winner costs most
            cost = kn[K_LEAD_SURE_WIN] * (2.0 if points_out else 1.0)
        else:  # a card others can beat: the more out cards below it, the worse
            share = F32(n_below / max(F32(n_above + n_below), F32(1.0)))
            cost = float(F32(F32(kn[K_LEAD_SHARE]) * share))
        # Opponents known void in the suit dump points on the trick's winner.
        voids = 0
        for r in range(1, P):
            voids += (i8[ioff[I_VOIDS] + r] >> s) & 1
        cost += voids * (kn[K_LEAD_VOID] if n_below > 0 else 1.0) * (1.0 if points_out else 0.0)
        if s == SPADES:
            cost += (1.0 if holds_qs else 0.0) * kn[K_LEAD_SPADES_WITH_QUEEN] + (
                1.0 if holds_honour and qs_out else 0.0
            ) * kn[K_LEAD_SPADES_WITH_HONOUR]
        elif s == HEARTS:
            cost += kn[K_LEAD_HEART] + (20.0 if threat else 0.0)
        cost += kn[K_LEAD_LENGTH] * count(hand & SUIT_BITS[s])
        if s == DIAMONDS and rp[R_JD] and hand & _JD_BIT:
            cost += 5.0
        if cost < best_cost or best < 0:
            best, best_cost = low, cost
    return best


@njit(cache=True, inline="always")
def _follow(i8, ioff, rp, kn, legal, out, moon, threat, shooter, trick, size, led_suit, winning, winner) -> int:
    P = rp[R_PLAYERS]
    follow = legal & SUIT_BITS[led_suit]
    no_qs = follow & ~_QS_BIT
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
    if led_suit == SPADES and winning > QS and follow & _QS_BIT:
        return QS
    jd_rule = rp[R_JD] != 0
    if jd_rule:  # win a trick holding the JD, or win with the JD, when it outweighs the points
        if led_suit == DIAMONDS and points < 10:
            winners = follow & ABOVE[winning] & ~_JD_BIT
            if trick & _JD_BIT and winners:
                return low_card(winners) if last else high_card(winners)
            jd_master = (out & _ABOVE_JD) == 0
            if follow & _JD_BIT and winning < JD and (last or jd_master):
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
        shed = no_qs & ~_JD_BIT if jd_rule and winning > JD else no_qs  # the JD only where it wins
        if safe and shed:
            return high_card(shed)
    # Duck: the highest card that still loses.
    duck = high_card(no_qs & BELOW[winning])
    if duck >= 0:
        return duck
    # None loses.
    if not last and (out & _QS_BIT) and led_suit == SPADES and low >= 0:
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
    if legal & _QS_BIT and rp[R_TARGET] > 0 and size == P - 1:
        hold_queen = _queen_loses_the_game(i32, ioff, rp, winner, 13 + raw_points(trick))
    if legal & _QS_BIT and not hold_queen:
        return QS
    # The most dangerous card (the first among equals).
    qs_out = (out & _QS_BIT) != 0
    jd_out = rp[R_JD] != 0 and (out & _JD_BIT) != 0
    best, best_danger = -1, -np.inf
    bits = legal
    while bits:
        c = low_card(bits)
        bits &= bits - U64(1)
        s = SUIT_OF[c]
        above = count(out & ABOVE[c])
        below = count(out & BELOW[c])
        danger = _RANK[c]
        if s == HEARTS:
            danger = F32(danger + F32(kn[K_DUMP_HEART]))
        if above == 0 and below > 0:  # a master would win a later trick
            danger = F32(danger + F32(kn[K_DUMP_MASTER]))
        if below == 0 and above > 0:  # an exit is kept to lose the lead later
            danger = F32(danger - F32(kn[K_DUMP_EXIT_HEART] if s == HEARTS else kn[K_DUMP_EXIT]))
        if qs_out and (c == QS + 1 or c == QS + 2):
            danger = F32(danger + F32(kn[K_DUMP_SPADE_HONOUR]))
        if count(hand & SUIT_BITS[s]) == 1:  # discarding a singleton makes a void
            danger = F32(danger + F32(kn[K_DUMP_SINGLETON]))
        value = float(danger)
        if c == QS:
            value = -np.inf if hold_queen else 200.0
        if rp[R_JD]:  # the JD, and the diamonds that capture it while it is out, are kept
            if c == JD:
                value = -60.0
            elif jd_out and s == DIAMONDS and RANK_OF[c] > 11:
                value -= 8.0
        if value > best_danger:
            best, best_danger = c, value
    return best if best >= 0 else QS  # nothing but the QS, kept at -inf, is left


# ---------------------------------------------------------------------------------------------
# Two decks (Cancellation Hearts)
#
# The same ideas, with every count made over copies (a suit holds 26 cards, a hand up to two of
# each) and with what cancellation changes: a card whose twin is still out may be cancelled, so
# it is a sure winner only when its twin is seen (or held); the trick's winner after a card is
# worked out exactly from the cards on the table (the twin of the winning card cancels it); a
# trick at stake costs its points, the pot's, and the kitty's expected points while the kitty
# lies there. The moon (every one of 52 points, the kitty's included) is neither tried nor
# watched for.


@njit(cache=True, inline="always")
def _queen_loses_the_game(i32: np.ndarray, ioff: np.ndarray, rp: np.ndarray, winner: int, cost: int) -> bool:
    """Whether giving the trick's winner (relative seat) ``cost`` more points would end the game
    with the observer above the lowest total."""
    highest, lowest, own = -(2**31), 2**31, 0
    for r in range(rp[R_PLAYERS]):
        total = i32[ioff[I_SCORES] + r] + i32[ioff[I_POINTS] + r] + (cost if r == winner else 0)
        highest, lowest = max(highest, total), min(lowest, total)
        if r == 0:
            own = total
    return highest >= rp[R_TARGET] and own > lowest


@njit(cache=True, inline="always")
def _copies(bits: np.uint64, bits2: np.uint64) -> int:
    """Cards of a two-deck pile, counting both copies."""
    return count(bits) + count(bits2)


@njit(cache=True, inline="always")
def _pile_points2(bits: np.uint64, bits2: np.uint64, jd_rule: bool) -> int:
    """Points of a two-deck pile: hearts, QSs and, with the JD rule, -10 per JD."""
    points = raw_points(bits) + raw_points(bits2)
    if jd_rule:
        points += JD_POINTS * ((1 if bits & _JD_BIT else 0) + (1 if bits2 & _JD_BIT else 0))
    return points


@njit(cache=True, inline="always")
def _winner_after(i8: np.ndarray, ioff: np.ndarray, P: int, led_suit: int, mine: int, extra: int) -> int:
    """The relative seat that wins the current trick once the observer plays ``mine`` and, if
    ``extra`` >= 0, a later seat (reported as P) plays ``extra``: the highest card of the led suit
    that no other copy in the trick cancels; -1 if every one is cancelled."""
    once, twice = U64(0), U64(0)
    for r in range(P + 1):
        card = mine if r == 0 else (extra if r == P else i8[ioff[I_TRICK] + r])
        if card >= 0:
            once, twice = add_piles(once, twice, BIT[card], U64(0))
    winner, best = -1, -1
    for r in range(P + 1):
        card = mine if r == 0 else (extra if r == P else i8[ioff[I_TRICK] + r])
        if card > best and card // NUM_RANKS == led_suit and not twice & BIT[card]:
            winner, best = r, card
    return winner


@njit(cache=True, inline="always")
def _pass_card2(i64: np.ndarray, i8: np.ndarray, ioff: np.ndarray, rp: np.ndarray, kn: np.ndarray, legal) -> int:
    """One pick of a two-deck pass: the one-deck scores, suits counted by copies, the spade guard
    and the short suits scaled to the hand size, hearts passed like side cards (measured better
    from 8 players up); no moon hands, no kept top hearts."""
    P, size = rp[R_PLAYERS], rp[R_HAND_SIZE]
    dealt, dealt2 = add_piles(i64[ioff[I_HAND]], i64[ioff[I_HAND2]], i64[ioff[I_PASSED]], i64[ioff[I_PASSED2]])
    short_length = max(1, int(math.floor(4 * size / 13 + 0.5)))
    few_spades = _copies(dealt & _SPADES, dealt2 & _SPADES) * 13 < kn[K_SPADE_GUARD] * size
    right = i8[ioff[I_PASS_OFFSET]] == P - 1 and (dealt & _LOW_SPADES) != 0
    jd_rule = rp[R_JD] != 0
    best, best_score = -1, F32(-np.inf)
    for s in range(4):
        bits = legal & SUIT_BITS[s]
        if not bits:
            continue
        length = _copies(dealt & SUIT_BITS[s], dealt2 & SUIT_BITS[s])
        if s == HEARTS:  # 26 hearts out: high ones are as dangerous as high side cards
            by_suit = F32(0.0)
        else:
            by_suit = F32(F32(max(0, short_length - length)) * F32(kn[K_PASS_SHORT]))
            if length >= 4 and dealt & SUIT_BITS[s] & _LOW_5:
                by_suit = F32(by_suit - F32(kn[K_PASS_LONG_LOW]))
        while bits:
            c = low_card(bits)
            bits &= bits - U64(1)
            score = F32(_PASS_BASE[c] + by_suit)
            if QS <= c <= QS + 2:  # the spade honours
                if few_spades and (c == QS or not right):
                    score = _HONOUR_PASS[c - QS]
                else:
                    score = F32(_RANK[c] - F32(kn[K_PASS_HONOUR_KEPT]))
            if jd_rule:  # keep the JDs and the diamonds that can capture them
                if c == JD:
                    score = _NEVER
                elif JD < c <= JD + 3:
                    score = F32(score - F32(8.0))
            if score > best_score:
                best, best_score = c, score
    return best


@njit(cache=True, inline="always")
def _play_card2(
    i64: np.ndarray, i32: np.ndarray, i8: np.ndarray, ioff: np.ndarray, rp: np.ndarray, kn: np.ndarray, legal
) -> int:
    P = rp[R_PLAYERS]
    jd_rule = rp[R_JD] != 0
    hand, hand2 = i64[ioff[I_HAND]], i64[ioff[I_HAND2]]
    out, out2 = i64[ioff[I_UNSEEN]], i64[ioff[I_UNSEEN2]]  # copies in other hands or the kitty
    # At stake in a trick besides its own cards: the pot, and the kitty's expected points.
    stake = float(_pile_points2(i64[ioff[I_POT]], i64[ioff[I_POT2]], jd_rule))
    kitty = i8[ioff[I_KITTY_SIZE]]
    if kitty > 0:
        stake += kitty * _pile_points2(out, out2, jd_rule) / max(_copies(out, out2), 1)
    _, size, led_suit, winning, winner = read_trick(i8, ioff, P)
    if led_suit < 0:
        return _lead2(i8, ioff, rp, kn, legal, hand, hand2, out, out2, stake)
    if legal & SUIT_BITS[led_suit]:
        return _follow2(i8, ioff, rp, kn, legal, out, out2, stake, size, led_suit, winning)
    return _discard2(i32, i8, ioff, rp, kn, legal, hand, hand2, out, out2, size, winner)


@njit(cache=True, inline="always")
def _lead2(i8, ioff, rp, kn, legal, hand, hand2, out, out2, stake) -> int:
    P = rp[R_PLAYERS]
    # Smoke out a QS: spades while holding none above the jack.
    qs_out = (out & _QS_BIT) != 0
    spades = legal & _SPADES
    if qs_out and (hand & _SPADE_HONOURS) == 0 and spades:
        return high_card(spades)
    # Otherwise the lowest card of the suit with the best exit, as with one deck, counted by copies.
    points_out = raw_points(out) + raw_points(out2) + stake > 0
    holds_honour = (hand & _SPADE_HONOURS & ~_QS_BIT) != 0
    best, best_cost = -1, np.inf
    for s in range(4):
        low = low_card(legal & SUIT_BITS[s])
        if low < 0:
            continue
        n_above = F32(_copies(out & ABOVE[low], out2 & ABOVE[low]))
        n_below = F32(_copies(out & BELOW[low], out2 & BELOW[low]))
        if n_above == 0 and not out & BIT[low]:  # a sure winner (its twin seen) costs most
            cost = kn[K_LEAD_SURE_WIN] * (2.0 if points_out else 1.0)
        else:
            share = F32(n_below / max(F32(n_above + n_below), F32(1.0)))
            cost = float(F32(F32(kn[K_LEAD_SHARE]) * share))
        voids = 0
        for r in range(1, P):
            voids += (i8[ioff[I_VOIDS] + r] >> s) & 1
        cost += voids * (kn[K_LEAD_VOID] if n_below > 0 else 1.0) * (1.0 if points_out else 0.0)
        if s == SPADES:
            cost += (1.0 if hand & _QS_BIT else 0.0) * kn[K_LEAD_SPADES_WITH_QUEEN] + (
                1.0 if holds_honour and qs_out else 0.0
            ) * kn[K_LEAD_SPADES_WITH_HONOUR]
        elif s == HEARTS:
            cost += kn[K_LEAD_HEART]
        cost += kn[K_LEAD_LENGTH] * _copies(hand & SUIT_BITS[s], hand2 & SUIT_BITS[s])
        if s == DIAMONDS and rp[R_JD] and hand & _JD_BIT:
            cost += 5.0
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
    stake += _pile_points2(once, twice, jd_rule)
    # The QS goes on a higher spade that stays the winner (no twin of it can cancel it later).
    if led_suit == SPADES and winning > QS and follow & _QS_BIT and (last or not out & BIT[winning]):
        return QS
    # Each card: does the observer take the trick after it (now; and if the twin of the card then
    # winning comes from a seat still to play, cancelling it)?
    no_qs = follow & ~_QS_BIT
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
    if not last and (out & _QS_BIT) and led_suit == SPADES:
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
    if legal & _QS_BIT and rp[R_TARGET] > 0 and size == P - 1 and winner >= 0:
        hold_queen = _queen_loses_the_game(i32, ioff, rp, winner, 13)
    if legal & _QS_BIT and not hold_queen:
        return QS
    # The most dangerous card (the first among equals), as with one deck, counted by copies: a
    # master must have its twin seen or held too.
    qs_out = (out & _QS_BIT) != 0
    jd_out = rp[R_JD] != 0 and (out & _JD_BIT) != 0
    best, best_danger = -1, -np.inf
    bits = legal
    while bits:
        c = low_card(bits)
        bits &= bits - U64(1)
        s = SUIT_OF[c]
        above = _copies(out & ABOVE[c], out2 & ABOVE[c])
        below = _copies(out & BELOW[c], out2 & BELOW[c])
        danger = _RANK[c]
        if s == HEARTS:
            danger = F32(danger + F32(kn[K_DUMP_HEART]))
        if above == 0 and below > 0 and not out & BIT[c]:  # a master would win a later trick
            danger = F32(danger + F32(kn[K_DUMP_MASTER]))
        if below == 0 and above > 0:  # an exit is kept to lose the lead later
            danger = F32(danger - F32(kn[K_DUMP_EXIT_HEART] if s == HEARTS else kn[K_DUMP_EXIT]))
        if qs_out and (c == QS + 1 or c == QS + 2):
            danger = F32(danger + F32(kn[K_DUMP_SPADE_HONOUR]))
        if _copies(hand & SUIT_BITS[s], hand2 & SUIT_BITS[s]) == 1:  # discarding a singleton makes a void
            danger = F32(danger + F32(kn[K_DUMP_SINGLETON]))
        value = float(danger)
        if c == QS:
            value = -np.inf
        if rp[R_JD]:
            if c == JD:
                value = -60.0
            elif jd_out and s == DIAMONDS and RANK_OF[c] > 11:
                value -= 8.0
        if value > best_danger:
            best, best_danger = c, value
    return best if best >= 0 else QS
