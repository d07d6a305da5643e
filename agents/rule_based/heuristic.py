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

import numpy as np

from hearts_env.agents.rule_based.heuristic_kernels import heuristic_cards, one_deck_cards
from hearts_env.agents.rule_based.heuristic_tables import Weights
from hearts_env.agents.rule_based.players import HEURISTIC
from hearts_env.agents.rule_based.table import CompiledTable
from hearts_env.engine import checks
from hearts_env.engine.infoset import InfoSet
from hearts_env.engine.kernels import rule_params


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

    compiled_player = HEURISTIC

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
        shoot_moon = checks.flag("shoot_moon", shoot_moon)
        spade_guard = checks.integer("spade_guard", spade_guard, 0)
        moon_alarm = checks.integer("moon_alarm", moon_alarm, 0)
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
        # Writable, as a copy of the policy (check_agents', an arena block's) and the compiled tables
        # and rollouts pass it: read-only would be another type to numba, another compile of the player.
        self.knobs = np.array(list(named.values()), np.float64)

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
        cards = heuristic_cards if info.rules.decks == 2 else one_deck_cards  # each compiles what it plays
        cards(info.data, info.layout.offsets, rule_params(info.rules), self.knobs, out)
        return out
