"""Perfect-information Monte Carlo search (PIMC): determinize, roll out, keep the best card.

For each game of the batch the seat to act (the observer) only knows its information set. PIMC

1. samples ``worlds`` deals of the cards it cannot see, each consistent with everything the
   information set says (``hearts_env.engine.worlds.sample_worlds``);
2. turns each world into a core ``State`` in the middle of the hand (``hearts_env.engine.infoset.world_states``);
3. for every legal card of the observer, plays it in every world and rolls the rest of the hand
   out with a fast policy (uniformly random legal cards by default, or any ``Policy``): one
   compiled kernel runs every rollout for random, simple and heuristic players
   (``pimc_kernels.rollout_values``, calling the core's step kernel and the players' compiled
   rules game by game); any other policy is stepped as one batch of games x candidates x worlds
   x rollouts (``rollout``);
4. plays the card with the lowest mean hand points of the observer (moon and JD rules applied
   with the real rules and game totals); ties are broken by the seeded generator.

The worlds are the engine's (``hearts_env.engine.worlds``): uniform, or very nearly, over the deals
consistent with everything the information set says (the observer's hand, the cards played, the
observer's passes at their receiver, each seat's hand size and known voids). With
``inference="belief"`` they are drawn towards the belief model's marginals of where each unseen
card lies (``hearts_env.agents.search.belief``), the same hard facts kept. The determinized
states carry the second copies, the kitty and the pot with two decks.

The pass is not searched: during the pass phase PIMC delegates to ``pass_policy``; the default
(``pass_high_cards``) passes the QS, AS and KS first, then the highest ranks (hearts first among
equal ranks). ``pimc_heuristic`` builds the stronger set-up: the heuristic agent's passes and
heuristic rollouts.

Rollouts use the rules with ``target_score=None``, so each rollout ends with its hand; the
observer's score is then recomputed with ``core.hand_score`` under the real rules and game totals
(which only matters for the ``shooter_choice`` moon). Rollouts do not record trick history
(``InfoSet.tricks`` is empty for a rollout policy) and in the rollout worlds the other seats'
passes are unknown (``passed`` holds only what the observer passed and received).

States are built (``hearts_env.engine.infoset.world_states``) from the information set rotated back to
absolute seats; the legal cards come from the core's own legal-card kernel, so they are exactly the core's.

World sampling, determinizing and the rollouts are compiled (``hearts_env.engine.world_kernels``,
``pimc_kernels``), with counter-based random streams keyed from the agent's seeded generator: a
seeded agent is reproducible.

Cost: the defaults are ``worlds=64`` with random rollouts (``PIMCPolicy``, the ``pimc-random``
agent) and ``worlds=32`` with heuristic rollouts (``pimc_heuristic``, the ``pimc`` agent); the
README gives the measured decisions per second (``speed/speed_pimc.py``), one game per call
and batched.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

import numpy as np

from hearts_env.agents.rule_based.heuristic import HeuristicPolicy
from hearts_env.agents.rule_based.players import RANDOM
from hearts_env.agents.rule_based.table import CompiledTable
from hearts_env.agents.search import pimc_kernels as kern
from hearts_env.agents.search.belief import belief_for
from hearts_env.engine import cards, checks, seeding
from hearts_env.engine.cards import NUM_CARDS, NUM_RANKS
from hearts_env.engine.core import PASS, PLAY, State, hand_score, mask_to_bits, state_layout, step
from hearts_env.engine.infoset import InfoSet, info_layout, world_places, world_states
from hearts_env.engine.kernels import rule_params
from hearts_env.engine.rules import HeartsRules
from hearts_env.engine.worlds import sample_worlds, stream_key
from hearts_env.play import runner
from hearts_env.play.agent_options import passes_options_to
from hearts_env.play.policy import Policy, RandomPolicy

QS, KS, AS = (cards.parse_card(c) for c in ("QS", "KS", "AS"))


@functools.cache
def _deck8(num_players: int, decks: int) -> np.ndarray:
    return cards.deck(num_players, decks).astype(np.int8)


@functools.cache
def one_hand_rules(rules: HeartsRules) -> HeartsRules:
    """The rules of the rollouts: each ends with its hand."""
    return dataclasses.replace(rules, target_score=None)


# ---------------------------------------------------------------------------------------------
# Rollouts


def rollout(state: State, rng: np.random.Generator, policy: Policy | None = None) -> State:
    """Every game of ``state`` played to its end by ``policy`` at every seat (default: uniformly
    random legal cards drawn from ``rng``), through the runner; the final states in input order."""
    if policy is None:
        policy = RandomPolicy()
        policy.rng = rng  # the caller's stream: the search's draws stay one sequence
    return runner.play(state, [policy] * state.num_players)


def rollout_scores(rules: HeartsRules, final: State, totals: np.ndarray) -> np.ndarray:
    """(N, P) int32: the hand score of rollouts whose score is settled (``final``) under the real
    ``rules`` and the game ``totals`` (N, P) before the hand: the moon and JD rules applied, both
    copies of every card counted with two decks."""
    return hand_score(rules, final.taken, totals, final.taken2 if rules.decks == 2 else None)


# ---------------------------------------------------------------------------------------------
# The pass


_PASS_DANGER = np.arange(NUM_CARDS) % NUM_RANKS + 0.5 * (np.arange(NUM_CARDS) // NUM_RANKS == cards.HEARTS)
_PASS_DANGER[[QS, AS, KS]] = 3 * NUM_RANKS + np.array([2, 1, 0])  # QS first, then AS, KS


def pass_high_cards(info: InfoSet, mask: np.ndarray) -> np.ndarray:
    """The default pass: QS, AS, KS first, then the highest rank (hearts first among equals)."""
    mask = np.asarray(mask, bool)
    return np.argmax(np.where(mask, _PASS_DANGER, -np.inf), axis=1)


# ---------------------------------------------------------------------------------------------
# The agent


class PIMCPolicy:
    """Determinized Monte Carlo search (see the module docstring).

    ``worlds``: sampled deals per decision; ``rollouts``: rollouts per (world, candidate card);
    ``rollout``: the policy that plays every seat after the candidate card (None: uniformly
    random legal cards, the fastest; e.g. ``hearts_env.agents.rule_based.heuristic.HeuristicPolicy()`` for stronger,
    slower rollouts; random, ``SimplePolicy`` and ``HeuristicPolicy`` rollouts are compiled, any
    other policy is called on batches of rollout games); ``pass_policy``: plays the pass phase
    (default ``pass_high_cards``);
    ``objective``: ``"points"`` (the observer's hand points) or ``"margin"`` (its points minus
    the mean of the others'); ``rejection_rounds``: rejection-sampling rounds before the
    constructive fallback; ``proposals``: constructive deals resampled into one world there;
    ``max_batch``: most rollout games stepped at once (bounds memory; games are chunked);
    ``inference``: ``"none"`` (uniform worlds) or ``"belief"`` (worlds drawn with the belief model,
    each the importance resample of ``proposals`` deals; 4-player one-deck tables).
    In the play phase a game with a single legal card is answered without search.
    """

    def __init__(
        self,
        seed: int | np.random.SeedSequence | None = None,
        worlds: int = 64,
        rollout: Policy | None = None,
        rollouts: int = 1,
        pass_policy: Policy | None = None,
        objective: str = "points",
        rejection_rounds: int = 64,
        proposals: int = 16,
        max_batch: int = 32768,
        inference: str = "none",
    ) -> None:
        self.belief = belief_for(inference)
        self.worlds, self.rollouts = checks.integer("worlds", worlds, 1), checks.integer("rollouts", rollouts, 1)
        checks.fits_in_memory(f"{worlds:,} worlds x {rollouts:,} rollouts", search_bytes(self.worlds * self.rollouts))
        self.objective = checks.choice("objective", objective, ("points", "margin"))
        self.rejection_rounds = checks.integer("rejection_rounds", rejection_rounds, 0)
        self.proposals = checks.integer("proposals", proposals, 1)
        self.max_batch = checks.integer("max_batch", max_batch, 1)
        for name, policy in (("rollout", rollout), ("pass_policy", pass_policy)):
            if policy is not None and not callable(policy):
                raise ValueError(f"{name} must be a policy (info, mask) -> cards, got {policy!r}")
        self.rollout_policy = rollout
        self.pass_policy = pass_high_cards if pass_policy is None else pass_policy
        # The compiled rollout player, if any (None: the policy is called from Python).
        if rollout is None:
            self._player, self._knobs = RANDOM, np.zeros(0)
        elif isinstance(rollout, CompiledTable):
            self._player, self._knobs = rollout.compiled_player, rollout.knobs
        else:
            self._player = None
        self.seed(seed)

    def seed(self, seed: int | np.random.SeedSequence | None) -> None:
        self.rng = seeding.generator(seed)
        for policy in (self.rollout_policy, self.pass_policy):
            if callable(getattr(policy, "seed", None)):
                policy.seed(int(self.rng.integers(2**63)))

    def __repr__(self) -> str:
        inference = "" if self.belief is None else ", inference='belief'"
        return f"PIMCPolicy(worlds={self.worlds}, rollouts={self.rollouts}, rollout={self.rollout_policy!r}{inference})"

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        if self.belief is not None:  # refused up front, in the pass too (a match checks its first position)
            self.belief.check_rules(info.rules)
        mask = np.asarray(mask, bool)
        actions = np.argmax(mask, axis=1)  # the only legal card, or 0 when there is none
        passing = np.flatnonzero((info.phase == PASS) & mask.any(axis=1))
        if len(passing):
            actions[passing] = np.asarray(self.pass_policy(info[passing], mask[passing]))
        search = np.flatnonzero((info.phase == PLAY) & (mask.sum(axis=1) > 1))
        if len(search):
            values = self.evaluate(info[search], mask[search])
            noise = self.rng.random(values.shape)  # breaks exact ties at random
            best = np.lexsort((noise, np.where(np.isnan(values), np.inf, values)), axis=-1)[:, 0]
            actions[search] = best
        return actions.astype(np.int64)

    def evaluate(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        """(B, 52) float: the mean rollout score (lower is better) of each legal card; NaN elsewhere.
        Every game must be in the play phase with its observer to act."""
        mask = np.asarray(mask, bool)
        if np.any(info.to_play != 0):
            raise ValueError("PIMC searches only for the seat to act (info.to_play must be 0)")
        return evaluate_in_chunks(self._evaluate, info, mask, self.worlds * self.rollouts, self.max_batch)

    def _evaluate(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        B, W, R = mask.shape[0], self.worlds, self.rollouts
        rules = info.rules
        belief = None if self.belief is None else self.belief.weights(info)
        hands = sample_worlds(info, W, self.rng, self.rejection_rounds, self.proposals, belief)
        one_hand = one_hand_rules(rules)
        margin = self.objective == "margin"
        if self._player is not None:
            values = np.zeros((B, NUM_CARDS))
            P = rules.num_players
            layout, rollout_info = state_layout(P, 0, rules.decks), info_layout(P, 0)
            kern.rollout_values(
                info.data,
                info.layout.offsets,
                world_places(hands),
                mask_to_bits(mask),
                layout.offsets,
                layout.width,
                rule_params(one_hand),
                rule_params(rules),
                _deck8(P, rules.decks),
                rollout_info.offsets,
                rollout_info.width,
                self._player,
                self._knobs,
                stream_key(self.rng),
                R,
                margin,
                values,
            )
            values[~mask] = np.nan
            return values
        worlds = world_states(info, hands, one_hand)
        game, card = np.nonzero(mask)  # the candidates, (M,)
        index = (game[:, None] * W + np.arange(W)).repeat(R, axis=1).ravel()  # (M * W * R,)
        start = worlds[index]
        final = rollout(step(start, np.repeat(card, W * R)), self.rng, self.rollout_policy)
        points = rollout_scores(rules, final, start.scores).astype(np.float64)
        own = points[np.arange(len(index)), start.to_play.astype(np.intp)]
        if margin:
            own = own - (points.sum(axis=1) - own) / (rules.num_players - 1)
        values = np.full((B, NUM_CARDS), np.nan)
        values[game, card] = own.reshape(len(game), W * R).mean(axis=1)
        return values


def evaluate_in_chunks(
    evaluate: Callable[[InfoSet, np.ndarray], np.ndarray],
    info: InfoSet,
    cards: np.ndarray,
    rollouts: int,
    max_batch: int,
) -> np.ndarray:
    """(B, 52) float: ``evaluate(info, cards)`` of the games in chunks, each chunk as many games
    as fit their rollouts (``rollouts`` for each card of ``cards``) in ``max_batch``, one at least."""
    B = len(cards)
    values = np.full((B, NUM_CARDS), np.nan)
    per_game = cards.sum(axis=1) * rollouts
    start = 0
    while start < B:
        stop = start + max(1, int(np.searchsorted(np.cumsum(per_game[start:]), max_batch, side="right")))
        chunk = np.arange(start, min(stop, B))
        values[chunk] = evaluate(info[chunk], cards[chunk])
        start = chunk[-1] + 1
    return values


def search_bytes(rollouts: int) -> int:
    """About the memory one decision's search takes for a game with ``rollouts`` rollouts per
    candidate card: a world and a game state per rollout, for every legal card."""
    return rollouts * NUM_CARDS * 512


@passes_options_to(PIMCPolicy)
def pimc_heuristic(seed: int | np.random.SeedSequence | None = None, worlds: int = 32, **options) -> PIMCPolicy:
    """PIMC with the heuristic agent (``hearts_env.agents.rule_based.heuristic``) for its passes and its rollouts:
    stronger than random rollouts, slower per world."""
    options.setdefault("rollout", HeuristicPolicy())
    options.setdefault("pass_policy", HeuristicPolicy())
    return PIMCPolicy(seed=seed, worlds=worlds, **options)


__all__ = ["PIMCPolicy", "one_hand_rules", "pass_high_cards", "pimc_heuristic", "rollout", "rollout_scores"]
