"""``HeuristicPolicy``: a strong rule-based Hearts player, vectorised over a batch of games.

It follows the advice of the rules texts this project started from (``docs/rules.md``, "Strategy": passing
advice, tactics, card tracking) and what good players do. Every rule reads only the seat's own
information set, and each is a few array operations over the games it concerns: no Python loop
runs over games (loops run over rules and suits).

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
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from agents.simple import (
    LOW_KEY,
    RANK_OF,
    SUIT_OF,
    TrickView,
    by_key,
    count,
    highest,
    lowest,
    or_columns,
)
from hearts_env.cards import CLUBS, DIAMONDS, HEARTS, NUM_CARDS, NUM_RANKS, NUM_SUITS, SPADES
from hearts_env.core import (
    ABOVE,
    BELOW,
    BIT,
    HEART_BITS,
    JD,
    PASS,
    QS,
    SUIT_BITS,
    bits_to_mask,
    deck_bits,
    mask_to_bits,
)
from hearts_env.infoset import InfoSet

_U64 = np.uint64
_QS_BIT = BIT[QS]
_JD_BIT = BIT[JD]
_POINT_BITS = HEART_BITS | _QS_BIT
_SPADES = SUIT_BITS[SPADES]
_SPADE_HONOURS = BIT[QS] | BIT[QS + 1] | BIT[QS + 2]  # QS, KS, AS
_LOW_SPADES = _SPADES & ~_SPADE_HONOURS
_ABOVE_JD = SUIT_BITS[DIAMONDS] & ABOVE[JD]
_IDS = np.arange(NUM_CARDS)
_RANK = RANK_OF.astype(np.float32)
_NEVER = -1000.0  # score of a card a rule forbids (still legal: it is played if nothing else is)
_IS_HEART = SUIT_OF == HEARTS
_IS_QS = _IDS == QS
_IS_JD = _IDS == JD
_IS_KS_AS = (SUIT_OF == SPADES) & (RANK_OF >= 13)
_LOW_RANK = RANK_OF <= 3  # 2s and 3s: kept when passing
_HONOURS = slice(QS, QS + 3)  # QS, KS, AS
_HONOUR_IS_QS = np.array([True, False, False])
_HONOUR_PASS = np.array([102.0, 100.0, 101.0], np.float32)  # passed in the order QS, AS, KS
_HONOUR_RANK = _RANK[_HONOURS]
_HEARTS = slice(HEARTS * NUM_RANKS, NUM_CARDS)
# Pass score of each card before the hand's adjustments: its rank; 2s and 3s kept, low spades never.
_PASS_BASE = np.where(_LOW_RANK, _NEVER / 2, _RANK).astype(np.float32)
_PASS_BASE[(SUIT_OF == SPADES) & (RANK_OF < 12)] = _NEVER
_POINT_MASK = _IS_HEART | _IS_QS
_KEEP_POINTS_LOW = np.where(_POINT_MASK, 0, LOW_KEY).astype(np.int16)  # lowest non-point card first
_MOON_POINTS = 26


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


class HeuristicPolicy:
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
        self.shoot_moon = shoot_moon
        self.spade_guard = spade_guard
        self.keep_top_hearts = keep_top_hearts
        self.moon_alarm = moon_alarm
        self.safe_ratio = safe_ratio
        self.weights = Weights() if weights is None else weights  # deterministic: ``seed`` is unused

    def __repr__(self) -> str:
        changed = {k: v for k, v in dataclasses.asdict(self.weights).items() if getattr(Weights, k) != v}
        return (
            f"HeuristicPolicy(shoot_moon={self.shoot_moon}, spade_guard={self.spade_guard}, "
            f"keep_top_hearts={self.keep_top_hearts}, moon_alarm={self.moon_alarm}, safe_ratio={self.safe_ratio}"
            + (f", weights=Weights(**{changed})" if changed else "")
            + ")"
        )

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        mask = np.asarray(mask, dtype=bool)
        legal = mask_to_bits(mask)
        choice = np.full(len(legal), -1, dtype=np.int64)
        passing = info.phase == PASS
        rows = _select(passing)
        if rows is not None:
            sub = info[rows]
            choice[rows] = self._pass(sub, mask[rows])
        rows = _select(~passing)
        if rows is not None:
            table = _Table(self, info if isinstance(rows, slice) else info[rows], legal[rows])
            choice[rows] = self._play(table, mask[rows])
        # Every rule offers legal cards only; this guard keeps the promise if one ever did not.
        bad = (choice < 0) | ((legal >> np.maximum(choice, 0).astype(_U64)) & _U64(1) == 0)
        if np.count_nonzero(bad):
            choice = np.where(bad, by_key(mask, LOW_KEY), choice)
        return choice

    # -----------------------------------------------------------------------------------------
    # Passing

    def _pass(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        """One pick per game: the legal card with the highest pass score."""
        w = self.weights
        P = info.num_players
        dealt = info.hand | info.passed  # the hand as dealt: the picks made so far count
        suit_len = count(_suit_split(dealt)).astype(np.float32)  # (n, 4)

        # Side cards: high first, short suits first (short: under 4 cards in 13, scaled to the hand
        # size), long suits holding a low card last; 2s and 3s are kept. Hearts after side cards.
        short = np.maximum(0, max(1, round(4 * info.rules.hand_size / 13)) - suit_len)
        long_with_low = (suit_len >= 4) & (count(_suit_split(dealt & _LOW_5)) > 0)
        by_suit = short * w.pass_short - long_with_low * np.float32(w.pass_long_low)
        by_suit[:, HEARTS] = -w.pass_heart
        score = _PASS_BASE + by_suit[:, SUIT_OF]  # (n, 52); spades below the queen never go

        # Spade honours go when short (passing right with a low spade kept: the QS alone).
        few_spades = suit_len[:, SPADES] < self.spade_guard
        right = (info.pass_offset == P - 1) & ((dealt & _LOW_SPADES) != 0)
        pass_honour = few_spades[:, None] & (_HONOUR_IS_QS | ~right[:, None])  # (n, 3)
        score[:, _HONOURS] = np.where(pass_honour, _HONOUR_PASS, _HONOUR_RANK - w.pass_honour_kept)

        # Never the three highest hearts together (that could hand someone a moon; one of them
        # always stays), nor a lone AH.
        held = bits_to_mask(dealt & HEART_BITS)[:, _HEARTS]  # (n, 13)
        from_top = np.cumsum(held[:, ::-1], axis=1, dtype=np.int8)[:, ::-1]  # 1 = highest held
        if self.keep_top_hearts is None:
            n_held = count(dealt & HEART_BITS)
            top3 = held & (from_top <= 3)
            passed = bits_to_mask(info.passed & HEART_BITS)[:, _HEARTS]
            one_left = np.count_nonzero(top3 & passed, axis=1) >= np.clip(n_held - 1, 1, 2)
            never = top3 & one_left[:, None]  # one of the three highest always stays
            never[:, -1] |= n_held == 1  # a lone AH
        else:
            never = from_top <= self.keep_top_hearts
        score[:, _HEARTS] = np.where(never, _NEVER, score[:, _HEARTS])

        if info.rules.jack_of_diamonds:  # keep the JD and the diamonds that can capture it
            score[:, JD] = _NEVER
            score[:, JD + 1 : JD + 4] -= 8.0

        if self.shoot_moon:  # a moon hand passes its losers, lowest first, and keeps every point card
            out = deck_bits(P) & ~dealt
            rows = np.flatnonzero(self._moon_hand(dealt, out, P, spare=info.rules.pass_count))
            if len(rows):
                keep = bits_to_mask(_masters(dealt[rows], out[rows])) | _POINT_MASK
                losers = 20.0 - _RANK + short[rows][:, SUIT_OF]
                score[rows] = np.where(keep, _NEVER, losers)

        np.copyto(score, -np.inf, where=~mask)
        return np.argmax(score, axis=1)

    # -----------------------------------------------------------------------------------------
    # The moon

    def _moon_hand(self, hand: np.ndarray, out: np.ndarray, P: int, spare: int = 0) -> np.ndarray:
        """(n,) bool: the hand can take every point: its master hearts pull the out hearts, it has
        few losers elsewhere (``spare`` more while passing), and it holds or can catch the QS."""
        w = self.weights
        mine = _suit_split(hand)  # (n, 4)
        length = count(mine)
        masters = count(_masters(hand, out)[:, None] & SUIT_BITS)
        pulls = masters * (P - 1) + w.moon_slack >= count(_suit_split(out))  # masters draw the suit
        losers = np.where(pulls, 0, length - masters)
        side_losers = losers[:, CLUBS] + losers[:, DIAMONDS] + losers[:, SPADES]
        hearts_ok = pulls[:, HEARTS] & (length[:, HEARTS] > 0)
        queen_ok = ((hand & _QS_BIT) != 0) | (masters[:, SPADES] > 0) | ((out & _QS_BIT) == 0)
        return hearts_ok & queen_ok & (side_losers <= w.moon_losers + spare)

    # -----------------------------------------------------------------------------------------
    # Playing

    def _play(self, t: _Table, mask: np.ndarray) -> np.ndarray:
        choice = np.full(len(t.legal), -1, dtype=np.int64)
        for rule, when in ((self._lead, t.leading), (self._follow, t.can_follow), (self._discard, t.void)):
            rows = _select(when)
            if rows is not None:
                choice[rows] = rule(t if isinstance(rows, slice) else t.take(rows), mask[rows])
        return choice

    def _lead(self, t: _Table, mask: np.ndarray) -> np.ndarray:
        w = self.weights
        n = len(t.legal)
        pick = _Pick(n)
        mine = t.legal[:, None] & SUIT_BITS  # (n, 4)
        top_mine = highest(mine)
        top_out = highest(t.out[:, None] & SUIT_BITS)
        is_master = (top_mine > top_out) & (top_mine >= 0)
        # Shooting the moon: master hearts, then the side master with the most cards behind it,
        # then the highest card.
        if np.count_nonzero(t.moon):
            pick.offer(t.moon & is_master[:, HEARTS], top_mine[:, HEARTS])
            master_len = np.where(is_master, count(mine), -1)
            master_len[:, HEARTS] = -1
            best = np.argmax(master_len, axis=1)
            pick.offer(t.moon & (master_len.max(axis=1) >= 0), np.take_along_axis(top_mine, best[:, None], 1)[:, 0])
            pick.offer(t.moon, highest(t.legal))
        # Stopping a moon: take a trick with a master heart.
        pick.offer(t.threat & is_master[:, HEARTS], top_mine[:, HEARTS])
        # Smoke out the QS: spades while holding none above the jack.
        spades = t.legal & _SPADES
        pick.offer(t.qs_out & ((t.hand & _SPADE_HONOURS) == 0) & (spades != 0), highest(spades))

        # Otherwise the lowest card of the suit with the best exit.
        low = lowest(mine)  # (n, 4)
        low_bits = np.where(low >= 0, BIT.take(np.maximum(low, 0)), _U64(0))
        out_suit = t.out[:, None] & SUIT_BITS
        n_above = count(out_suit & ABOVE.take(low)).astype(np.float32)
        n_below = count(out_suit & BELOW.take(low)).astype(np.float32)
        points_out = (count(t.out & HEART_BITS) + 13 * t.qs_out) > 0
        share = n_below / np.maximum(n_above + n_below, 1)
        sure_win = w.lead_sure_win * (1.0 + points_out)[:, None]
        cost = np.where(n_above == 0, sure_win, w.lead_share * share)
        # Opponents known void in the suit dump points on the trick's winner.
        void_flags = t.voids[:, 1:]  # (n, P - 1)
        voids = np.stack([np.count_nonzero(void_flags & (1 << s), axis=1) for s in range(NUM_SUITS)], axis=1)
        cost += voids * np.where(n_below > 0, w.lead_void, 1.0) * points_out[:, None]
        holds_qs = (t.hand & _QS_BIT) != 0
        holds_honour = (t.hand & _SPADE_HONOURS & ~_QS_BIT) != 0
        cost[:, SPADES] += holds_qs * w.lead_spades_with_queen + (holds_honour & t.qs_out) * w.lead_spades_with_honour
        cost[:, HEARTS] += w.lead_heart + t.threat * 20.0
        cost += w.lead_length * count(t.hand[:, None] & SUIT_BITS)
        if t.rules.jack_of_diamonds:
            cost[:, DIAMONDS] += ((t.hand & _JD_BIT) != 0) * 5.0
        cost = np.where(low_bits != 0, cost, np.inf)
        pick.offer(np.ones(n, bool), np.take_along_axis(low, np.argmin(cost, axis=1)[:, None], 1)[:, 0])
        return pick.card

    def _follow(self, t: _Table, mask: np.ndarray) -> np.ndarray:
        n = len(t.legal)
        pick = _Pick(n)
        follow = t.legal & t.trick.led_bits
        winning = t.trick.winning
        no_qs = follow & ~_QS_BIT
        high, low = highest(no_qs), lowest(no_qs)
        last = t.trick.last
        points = t.trick_points
        # Shooting the moon: win tricks with points (cheaply when last to a quiet trick).
        if np.count_nonzero(t.moon):
            wins = highest(follow) > winning
            quiet_last = last & (points == 0)
            pick.offer(t.moon & wins & ~quiet_last, highest(follow))
            pick.offer(t.moon & wins & quiet_last, lowest(follow & ABOVE.take(winning)))
            pick.offer(t.moon, lowest(follow))
        # Stopping a moon: overtake the shooter in a trick with points, or before it plays.
        if np.count_nonzero(t.threat):
            shooter_played = np.take_along_axis(t.trick.cards, t.shooter[:, None], 1)[:, 0] >= 0
            shooter_ahead = (t.trick.winner == t.shooter) | ~shooter_played
            worth = (points > 0) | (t.trick.led_suit == HEARTS)
            pick.offer(t.threat & shooter_ahead & worth & (high > winning), high)
        spades_led = t.trick.led_suit == SPADES
        # The QS goes on an AS or KS.
        pick.offer(spades_led & (winning > QS), np.where((follow & _QS_BIT) != 0, QS, -1))
        if t.rules.jack_of_diamonds:
            self._follow_jack(pick, t, follow)
        # A safe trick takes the highest card: it holds no points and none can come.
        after = t.num_players - 1 - t.trick.size
        early = (
            (t.trick.led_suit != SPADES)
            & (t.trick.led_suit != HEARTS)
            & ~t.void_behind
            & (count(t.out & t.trick.led_bits) >= self.safe_ratio * after)
        )
        shed = no_qs
        if t.rules.jack_of_diamonds:  # the JD only where it wins
            shed = np.where(winning > JD, shed & ~_JD_BIT, shed)
        pick.offer((points == 0) & (last | t.first_trick | early), highest(shed))
        # Duck: the highest card that still loses.
        pick.offer(np.ones(n, bool), highest(no_qs & BELOW.take(winning)))
        # None loses.
        pick.offer(~last & t.qs_out & spades_led, low)  # the QS may still fall on it: stay low
        pick.offer(last, high)
        pick.offer(points > 0, low)  # hope to be overtaken
        pick.offer(np.ones(n, bool), high)
        pick.offer(np.ones(n, bool), lowest(follow))
        return pick.card

    def _follow_jack(self, pick: _Pick, t: _Table, follow: np.ndarray) -> None:
        """JD rule: win a trick holding the JD, or win with the JD, when it outweighs the points."""
        winning = t.trick.winning
        worth = (t.trick.led_suit == DIAMONDS) & (t.trick_points < 10)
        jd_in = (t.trick.bits & _JD_BIT) != 0
        winners = follow & ABOVE.take(winning) & ~_JD_BIT
        pick.offer(worth & jd_in & t.trick.last, lowest(winners))
        pick.offer(worth & jd_in, highest(winners))
        jd_master = (t.out & _ABOVE_JD) == 0
        has_jd = (follow & _JD_BIT) != 0
        pick.offer(worth & has_jd & (winning < JD) & (t.trick.last | jd_master), np.full(len(follow), JD))

    def _discard(self, t: _Table, mask: np.ndarray) -> np.ndarray:
        w = self.weights
        n = len(t.legal)
        pick = _Pick(n)
        safe = t.legal & ~_POINT_BITS
        # Shooting the moon: the lowest card that scores nothing.
        if np.count_nonzero(t.moon):
            pick.offer(t.moon & (safe != 0), by_key(mask, _KEEP_POINTS_LOW))
        # Stopping a moon: hearts to anyone but the shooter, nothing that scores to the shooter.
        if np.count_nonzero(t.threat):
            shooter_played = np.take_along_axis(t.trick.cards, t.shooter[:, None], 1)[:, 0] >= 0
            shooter_wins = t.trick.winner == t.shooter
            pick.offer(t.threat & shooter_played & ~shooter_wins, highest(t.legal & HEART_BITS))
            pick.offer(t.threat & (shooter_wins | ~shooter_played), highest(safe))
        # The QS, unless it would end the game with another player winning.
        hold_queen = self._hold_queen(t)
        pick.offer(~hold_queen & ((t.legal & _QS_BIT) != 0), np.full(n, QS))
        # The most dangerous card.
        out_mask = bits_to_mask(t.out).reshape(n, NUM_SUITS, NUM_RANKS)
        upto = np.cumsum(out_mask, axis=2, dtype=np.int8)
        above = (upto[:, :, -1:] - upto).reshape(n, NUM_CARDS)
        below = (upto - out_mask).reshape(n, NUM_CARDS)
        danger = _RANK + _IS_HEART * np.float32(w.dump_heart)
        danger = danger + ((above == 0) & (below > 0)) * np.float32(w.dump_master)
        exit_malus = np.where(_IS_HEART, w.dump_exit_heart, w.dump_exit).astype(np.float32)
        danger = danger - ((below == 0) & (above > 0)) * exit_malus
        danger = danger + (_IS_KS_AS & t.qs_out[:, None]) * np.float32(w.dump_spade_honour)
        singleton = count(t.hand[:, None] & SUIT_BITS) == 1  # (n, 4)
        danger = danger + singleton[:, SUIT_OF] * np.float32(w.dump_singleton)
        danger = np.where(_IS_QS, np.where(hold_queen, -np.inf, 200.0)[:, None], danger)
        if t.rules.jack_of_diamonds:
            jd_out = (t.out & _JD_BIT) != 0
            danger = np.where(_IS_JD, -60.0, danger)
            danger = danger - (jd_out[:, None] & (SUIT_OF == DIAMONDS) & (RANK_OF > 11)) * 8.0
        pick.offer(np.ones(n, bool), np.argmax(np.where(mask, danger, -np.inf), axis=1))
        return pick.card

    def _hold_queen(self, t: _Table) -> np.ndarray:
        """(n,) bool: as last to play, the QS on this trick would end the game with another winner."""
        target = t.rules.target_score
        if target is None:
            return np.zeros(len(t.legal), bool)
        totals = (t.scores + t.points).copy()
        np.add.at(totals, (np.arange(len(totals)), t.trick.winner), 13 + t.trick_points)
        ends = totals.max(axis=1) >= target
        i_win = totals[:, 0] <= totals.min(axis=1)
        return t.trick.last & ends & ~i_win


class _Table:
    """Everything the play rules read, per game (all arrays have the games on axis 0)."""

    def __init__(self, policy: HeuristicPolicy, info: InfoSet, legal: np.ndarray) -> None:
        P = info.num_players
        n = len(legal)
        self.rules = info.rules
        self.num_players = P
        self.legal = legal
        self.hand = info.hand
        self.out = deck_bits(P) & ~info.hand & ~or_columns(info.played)
        self.qs_out = (self.out & _QS_BIT) != 0
        self.voids = info.voids
        self.scores = info.scores
        self.points = info.points
        self.first_trick = (info.tricks_played == 0) & info.rules.no_points_on_first_trick
        trick = TrickView(info)
        self.trick = trick
        self.leading = ~trick.following
        has_led = (legal & trick.led_bits) != 0
        self.can_follow = trick.following & has_led
        self.void = trick.following & ~has_led
        self.trick_points = count(trick.bits & HEART_BITS) + 13 * ((trick.bits & _QS_BIT) != 0)
        # A seat still to play to the trick is known void in the led suit.
        led_flag = (1 << trick.led_suit).astype(np.uint8)
        behind = info.trick < 0
        behind[:, 0] = False
        self.void_behind = (behind & ((info.voids & led_flag[:, None]) != 0)).any(axis=1)

        taken_hearts = count(info.taken & HEART_BITS)  # (n, P)
        raw = taken_hearts + 13 * ((info.taken & _QS_BIT) != 0)
        total = raw.sum(axis=1)
        # The moon: no other seat holds a point, and the hand can take them all.
        if policy.shoot_moon:
            self.moon = (total == raw[:, 0]) & policy._moon_hand(info.hand, self.out, P)
        else:
            self.moon = np.zeros(n, bool)
        # A moon threat: one opponent holds every point so far, with ``moon_alarm`` hearts or more.
        self.shooter = np.argmax(raw, axis=1)
        shooter_hearts = np.take_along_axis(taken_hearts, self.shooter[:, None], 1)[:, 0]
        self.threat = (
            (self.shooter != 0)
            & (raw.max(axis=1) == total)
            & (shooter_hearts >= policy.moon_alarm)
            & (total < _MOON_POINTS)
            & ~self.moon
        )

    def take(self, rows: np.ndarray) -> _Table:
        """The table of the games ``rows`` only."""
        new = object.__new__(_Table)
        for name, value in vars(self).items():
            if isinstance(value, np.ndarray):
                value = value[rows]
            elif isinstance(value, TrickView):
                value = value.take(rows)
            new.__dict__[name] = value
        return new


class _Pick:
    """The card chosen so far in each game (-1 = none yet); rules offer cards in priority order."""

    def __init__(self, n: int) -> None:
        self.card = np.full(n, -1, dtype=np.int64)

    def offer(self, when: np.ndarray, card: np.ndarray) -> None:
        """Choose ``card`` (where it is not -1) in the games where ``when`` holds and none is chosen."""
        np.copyto(self.card, card, where=(self.card < 0) & when & (card >= 0))


_LOW_5 = _U64(sum(1 << c for c in range(NUM_CARDS) if RANK_OF[c] <= 5))  # every card ranked 2..5


def _suit_split(bits: np.ndarray) -> np.ndarray:
    """(n,) bitboards -> (n, 4): the cards of each suit."""
    return bits[:, None] & SUIT_BITS


def _masters(hand: np.ndarray, out: np.ndarray) -> np.ndarray:
    """(n,) bitboards: the cards of ``hand`` that rank above every out card of their suit."""
    top_out = highest(out[:, None] & SUIT_BITS)  # (n, 4); -1 (none out) reads ABOVE[52] = 0
    above = np.where(top_out >= 0, ABOVE.take(top_out), SUIT_BITS)
    return hand & or_columns(above)


def _select(when: np.ndarray) -> slice | np.ndarray | None:
    """The games where ``when`` holds: all of them as a slice, none as None."""
    k = np.count_nonzero(when)
    if k == len(when):
        return slice(None)
    return None if k == 0 else np.flatnonzero(when)
