"""PIMC guided by a trained network (the ``pimc-ppo`` agent): the network orders the moves,
plays the rollouts for every seat, and makes the passes.

For each play-phase decision the seat to act

1. asks the network for its card probabilities and keeps as candidates its ``top_k`` legal cards
   that have at least ``min_prob`` probability (the top card always): the budget goes to the
   cards the network finds plausible, and a card it all but rules out is never played on the
   strength of a few noisy rollouts. A single candidate is played without search;
2. samples ``worlds`` deals of the unseen cards consistent with its information set and builds
   a core state for each (``hearts_env.engine.worlds.sample_worlds`` / ``hearts_env.engine.infoset.world_states``);
3. plays each candidate in each world and rolls the hand out with the network's greedy card for
   every seat (with ``rollout_others="heuristic"``, the heuristic's for every seat but its own):
   games x worlds x candidates are ONE batch of core states stepped together
   (``hearts_env.engine.core.step_in_place``), observed for their seats to act in one compiled pass
   (``hearts_env.engine.observation.observe``) and answered by one forward pass of the network
   (``MLPPolicy.logits``: whole-array numpy matmuls) per step; forced cards skip the network, and a
   rollout stops as soon as every card that scores has been taken. With ``rollout_tricks=n`` it
   stops at the end of the n-th trick from the decision's own at the latest, and the network's
   value head (``hearts_env.agents.search.value_head``) gives the expected score of the rest of the hand:
   ``rollout_tricks=1`` decides 7 to 10 times as fast, at the same strength (docs/results.md).
   With ``endgame=n`` a rollout also stops once n tricks are left (at once, if the searched card
   leaves no more) and the rest of the hand is solved exactly in that world
   (``hearts_env.agents.search.endgame``: every hand is known there; ``endgame_search`` picks the search);
4. plays the candidate with the lowest mean hand score (the real rules' moon and totals applied;
   with ``objective="field"``, that score minus the other seats' mean),
   keeping the network's card unless another beats it by more than ``margin`` points; ties go to
   the network's more probable card.

Rollouts are greedy, not sampled: the network's greedy play is the stronger (it is how ``ppo``
plays), and the worlds already vary the rollouts, so sampling would add noise without adding
information; greedy rollouts also leave the worlds as the only random choice (a seeded agent is
reproducible). In the rollout worlds the other seats' passes are unknown (their observations show
no passed or received cards), as in ``hearts_env.agents.search.pimc``.

During the pass phase the network passes (its passes beat the heuristic's by about 0.5 points a
hand). The agent plays only tables the network was trained for: its player count, decks and JD
rule; any other table raises ``ValueError`` (so ``hearts-arena`` refuses it up front).

Two decks (Cancellation Hearts) are searched as ``pimc`` searches them, with its pieces: the
worlds carry the second copies, the kitty and the pot; a card and its twin are one candidate (an
action names a card, not a copy); a rollout stops once both copies of every card that scores are
taken (``pimc_kernels.all_scored``) and is scored with both copies, the moon over all 52 points
(``pimc.rollout_scores``). The value head, the endgame solver and the belief model are one-deck
models: with ``rollout_tricks``, ``endgame`` or ``inference="belief"`` a two-deck table is refused
in one line naming the option.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from hearts_env.agents.learned.family import SHIPPED_FAMILIES, TableFamily, load_family, table_key
from hearts_env.agents.learned.shared import SHIPPED_ONE, load_shared
from hearts_env.agents.learned.trained import (
    SHIPPED_DIR,
    MLPPolicy,
    TrainedPolicy,
    as_path,
    masked_argmax,
    masked_softmax,
    shipped_policy,
)
from hearts_env.agents.rule_based.heuristic import HeuristicPolicy
from hearts_env.agents.search.belief import belief_for
from hearts_env.agents.search.endgame import SEARCHES, endgame_scores, tricks_left
from hearts_env.agents.search.pimc import evaluate_in_chunks, one_hand_rules, rollout_scores, search_bytes
from hearts_env.agents.search.pimc_kernels import settled_rows
from hearts_env.agents.search.value_head import ValueHead
from hearts_env.engine import checks, seeding
from hearts_env.engine.cards import NUM_CARDS
from hearts_env.engine.core import PLAY, State, choose_from_bits, legal_mask, step, step_in_place
from hearts_env.engine.infoset import InfoSet, infoset, world_states
from hearts_env.engine.kernels import rule_params
from hearts_env.engine.observation import encode, observe
from hearts_env.engine.rules import HeartsRules
from hearts_env.engine.worlds import sample_worlds
from hearts_env.play.agent_options import passes_options_to
from hearts_env.play.policy import Policy

ROLLOUT_OTHERS = ("network", "heuristic")
"""Who plays the other seats in the rollouts (``rollout_others``): the network, as the searcher
does, or the heuristic (the rollouts of ``pimc`` and the play of a heuristic field)."""
OBJECTIVES = ("points", "field")
"""What the search minimises (``objective``): the searcher's hand score, or that score minus the
mean of the other seats' (the benchmark's headline: a moon the searcher shoots counts for the
points it gives every other seat, one it lets another seat shoot for the points it spares them)."""
MAX_ENDGAME = 6  # tricks: 6 take some 12 ms a world, 3 s a decision of 256 worlds (docs/speed.md)


def settled(state: State, rules: HeartsRules) -> np.ndarray:
    """(N,) bool: the games whose hand score is settled, their hand over or every card that scores
    (``rules``; each copy, with two decks) taken: the rest of the hand changes no score. PIMC's
    own stop rule (``pimc_kernels.all_scored``)."""
    out = np.empty(state.batch_size, np.bool_)
    settled_rows(np.ascontiguousarray(state.data), state.layout.offsets, rule_params(rules), out)
    return out


def network_play(
    state: State,
    network: MLPPolicy,
    rules: HeartsRules,
    max_batch: int = 8192,
    until_trick: np.ndarray | None = None,
    others: Policy | None = None,
    searcher: np.ndarray | None = None,
) -> State:
    """The games of ``state`` (one-hand rules, play phase) once every seat has played ``network``'s
    greedy card until their score is ``settled`` under ``rules``; with
    ``until_trick`` (N,) a game also stops at the end of its trick number ``until_trick`` (once
    that many tricks of the hand are complete). The batch is stepped in place as a whole and a game
    leaves it when it stops; forced cards are played without the network; ``max_batch`` bounds
    the rows of one forward pass. With ``others``, every seat but ``searcher`` (N,) plays that
    policy's card instead (from its information set in the game)."""
    n = state.batch_size
    out = np.empty_like(state.data)
    ids = np.arange(n)
    if others is not None and searcher is None:
        raise ValueError("network_play: others needs the searcher's seat of every game")
    buffer = np.empty((min(n, max_batch), network.layout.size), np.uint8)
    while len(ids):
        done = settled(state, rules)
        if until_trick is not None:
            done |= (state.trick_size == 0) & (state.tricks_played >= until_trick[ids])
        if done.any():
            out[ids[done]] = state.data[done]
            keep = ~done
            ids, state = ids[keep], state[keep]
            if not len(ids):
                break
        legal = state.legal
        actions = choose_from_bits(legal, np.zeros(len(ids)))  # the lowest legal card: the forced ones
        think = np.flatnonzero(np.bitwise_count(legal) > 1)
        if others is not None:
            mine = state.to_play[think] == searcher[ids[think]]
            if not mine.all():
                sub = state[think[~mine]]
                actions[think[~mine]] = others(infoset(sub), legal_mask(sub))
            think = think[mine]
        for start in range(0, len(think), max_batch):
            rows = think[start : start + max_batch]
            sub = state[rows]
            obs = observe(sub, sub.to_play.astype(np.int64), network.layout, out=buffer[: len(rows)])
            logits = network.logits(obs)
            actions[rows] = masked_argmax(logits, legal_mask(sub))
        step_in_place(state, actions)
    return state.with_data(out)


class PIMCPPOPolicy:
    """Determinized search with a trained network's move ordering, rollouts and passes (see the
    module docstring).

    ``worlds``: sampled deals per decision; ``top_k``: most candidate cards searched;
    ``min_prob``: a card below this network probability is not searched (the network's top card
    always is); ``margin``: points per hand another card must gain over the network's top card
    to be played instead; ``path``: a run folder exported by ``train/ppo/trainer.py`` (default: the
    shipped ``ppo``), or ``network``: the network itself (a shared network at one table,
    ``hearts_env.agents.learned.shared``; it has no value head); ``rejection_rounds``,
    ``proposals``: world sampling (``hearts_env.engine.worlds.sample_worlds``);
    ``max_batch``: most rollout games stepped at once (games are chunked); ``rollout_tricks``:
    with n > 0, a rollout stops at the end of the n-th trick from the decision's own and the
    network's value head (``hearts_env.agents.search.value_head``, saved in its policy folder) judges the
    rest of the hand; 0 plays the hand out. ``endgame``: with n > 0, the last n tricks of each
    rollout are solved exactly (``hearts_env.agents.search.endgame``) by the search ``endgame_search``
    (``"paranoid"`` or ``"maxn"``); 0 leaves them to the network. ``inference``: ``"none"``
    (uniform worlds) or ``"belief"`` (worlds drawn with the belief model,
    ``hearts_env.agents.search.belief``, each the importance resample of ``proposals`` deals).
    ``rollout_others``: who plays the other seats in the rollouts, ``"network"`` or ``"heuristic"``.
    ``objective``: what a candidate's rollouts are scored by (``OBJECTIVES``); ``"field"`` needs
    whole rollouts (every seat's score), so neither ``rollout_tricks`` nor ``endgame``.
    """

    def __init__(
        self,
        seed: int | np.random.SeedSequence | None = None,
        worlds: int = 64,
        top_k: int = 4,
        min_prob: float = 0.02,
        margin: float = 0.0,
        path: str | Path | None = None,
        rejection_rounds: int = 64,
        proposals: int = 16,
        max_batch: int = 32768,
        rollout_tricks: int = 0,
        endgame: int = 0,
        endgame_search: str = "paranoid",
        inference: str = "none",
        rollout_others: str = "network",
        objective: str = "points",
        network: MLPPolicy | None = None,
    ) -> None:
        self.belief = belief_for(inference)
        others = checks.choice("rollout_others", rollout_others, list(ROLLOUT_OTHERS))
        self.others: Policy | None = HeuristicPolicy() if others == "heuristic" else None
        worlds, top_k = checks.integer("worlds", worlds, 1), checks.integer("top_k", top_k, 1, NUM_CARDS)
        max_batch = checks.integer("max_batch", max_batch, 1)
        self.rollout_tricks = checks.integer("rollout_tricks", rollout_tricks, 0)
        self.endgame = checks.integer("endgame", endgame, 0, MAX_ENDGAME)
        self.endgame_search = checks.choice("endgame_search", endgame_search, list(SEARCHES))
        self.objective = checks.choice("objective", objective, list(OBJECTIVES))
        if self.objective == "field" and (self.rollout_tricks or self.endgame):
            raise ValueError(
                "objective='field' scores every seat of whole rollouts: give it no rollout_tricks or endgame"
            )
        rejection_rounds = checks.integer("rejection_rounds", rejection_rounds, 0)
        proposals = checks.integer("proposals", proposals, 1)
        checks.fits_in_memory(f"{worlds:,} worlds", search_bytes(worlds))
        for name, value, ok in (("min_prob", min_prob, "in [0, 1)"), ("margin", margin, ">= 0 points")):
            number = isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
            if not number or not (0 <= value < 1 if name == "min_prob" else 0 <= value < np.inf):
                raise ValueError(f"{name} must be a number {ok}, got {value!r}")
        if network is not None and (path is not None or not isinstance(network, MLPPolicy)):
            raise ValueError(f"network must be a network (MLPPolicy) given without a path, got {network!r:.80}")
        self.network: MLPPolicy = (
            network if network is not None else shipped_policy() if path is None else TrainedPolicy(path)
        )
        if self.network.layout.history:
            raise ValueError(f"{self.network!r} reads the trick history, which the search's worlds do not hold")
        folder = SHIPPED_DIR / "ppo" if path is None and network is None else getattr(self.network, "path", None)
        if self.rollout_tricks and folder is None:
            raise ValueError(f"rollout_tricks needs a value head, which {self.network!r} lacks")
        self.value = ValueHead.load(folder) if self.rollout_tricks else None
        self.worlds, self.top_k, self.max_batch = int(worlds), int(top_k), int(max_batch)
        self.min_prob, self.margin = float(min_prob), float(margin)
        self.rejection_rounds, self.proposals = int(rejection_rounds), int(proposals)
        self.seed(seed)

    def seed(self, seed: int | np.random.SeedSequence | None) -> None:
        self.rng = seeding.generator(seed)

    def __repr__(self) -> str:
        tricks = f", rollout_tricks={self.rollout_tricks}" if self.rollout_tricks else ""
        if self.endgame:
            tricks += f", endgame={self.endgame}, endgame_search={self.endgame_search!r}"
        if self.belief is not None:
            tricks += ", inference='belief'"
        if self.others is not None:
            tricks += ", rollout_others='heuristic'"
        if self.objective != "points":
            tricks += f", objective={self.objective!r}"
        return f"PIMCPPOPolicy(worlds={self.worlds}, top_k={self.top_k}{tricks}, network={self.network!r})"

    def check_rules(self, rules: HeartsRules) -> None:
        """``ValueError`` unless the network (and the value head, with ``rollout_tricks``) was
        trained for tables like ``rules``, and every option asked for plays their decks."""
        if rules.decks != 1:  # the one-deck models: their inputs and outputs hold one copy of a card
            for option, on in (
                ("rollout_tricks (the value head)", self.value is not None),
                ("endgame (the exact solver)", self.endgame > 0),
                ("inference='belief' (the belief model)", self.belief is not None),
            ):
                if on:
                    raise ValueError(f"pimc-ppo's {option} plays one deck, the table {table_key(rules)} has two")
        self.network.check_rules(rules)
        if self.belief is not None:
            self.belief.check_rules(rules)
        if self.value is not None:
            self.value.check_rules(rules)

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        return self.decide_with_values(info, mask)[0]

    def decide_with_values(self, info: InfoSet, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The cards it plays, and (B, 52) the search's value of each card it searched (its mean
        hand score over the worlds, lower is better; NaN for the cards and the decisions it did
        not search): what expert iteration records besides the card."""
        self.check_rules(info.rules)
        mask = np.asarray(mask, bool)
        logits = self.network.logits(encode(info, self.network.layout))
        probs = masked_softmax(logits, mask)
        actions = masked_argmax(logits, mask)  # the network's card, as ``ppo`` plays it
        candidates = self.candidates(probs)
        rows = np.arange(len(actions))
        candidates[rows, actions] |= mask[rows, actions]  # searched even if rounding ties its probability
        search = np.flatnonzero((info.phase == PLAY) & (candidates.sum(axis=1) > 1))
        searched = np.full(mask.shape, np.nan)
        if len(search):
            searched[search] = values = self.evaluate(info[search], candidates[search])
            top = actions[search]
            gain = values[np.arange(len(search)), top, None] - values  # points saved over the network's card
            gain = np.where(np.isnan(gain), -np.inf, gain)
            best = np.lexsort((-probs[search], -gain), axis=-1)[:, 0]  # ties go to the more probable card
            beats_top = gain[np.arange(len(search)), best] > self.margin
            actions[search] = np.where(beats_top, best, top)
        return actions.astype(np.int64), searched

    def probabilities(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        """(B, 52): its network's probability of each legal card (what orders its search)."""
        self.check_rules(info.rules)
        return self.network.probabilities(info, mask)

    def candidates(self, probs: np.ndarray) -> np.ndarray:
        """(B, 52) bool: the cards searched, the ``top_k`` most probable legal cards with at least
        ``min_prob`` probability, the top one always."""
        order = np.argsort(-probs, axis=1, kind="stable")[:, : self.top_k]
        kept = np.take_along_axis(probs, order, axis=1) >= self.min_prob
        kept[:, 0] = True
        out = np.zeros(probs.shape, bool)
        np.put_along_axis(out, order, kept & (np.take_along_axis(probs, order, axis=1) > 0), axis=1)
        return out

    def evaluate(self, info: InfoSet, candidates: np.ndarray) -> np.ndarray:
        """(B, 52) float: the mean hand score (lower is better; minus the others' mean with
        ``objective="field"``) of each candidate card over the sampled worlds; NaN elsewhere.
        Every game must be in the play phase, its observer to act."""
        return evaluate_in_chunks(self._evaluate, info, candidates, self.worlds, self.max_batch)

    def rollout_starts(self, info: InfoSet, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray, State]:
        """The (M,) game and card of each candidate of ``candidates``, and the (M * W,) states of
        their sampled worlds before the card is played (candidate-major, W = ``worlds``)."""
        W = self.worlds
        one_hand = one_hand_rules(info.rules)
        belief = None if self.belief is None else self.belief.weights(info)
        hands = sample_worlds(info, W, self.rng, self.rejection_rounds, self.proposals, belief)
        worlds = world_states(info, hands, one_hand)
        game, card = np.nonzero(candidates)
        return game, card, worlds[(game[:, None] * W + np.arange(W)).ravel()]

    def _evaluate(self, info: InfoSet, candidates: np.ndarray) -> np.ndarray:
        W, rules = self.worlds, info.rules
        game, card, start = self.rollout_starts(info, candidates)
        seat = start.to_play.astype(np.int64)
        after = step(start, np.repeat(card, W))
        roll = np.flatnonzero(tricks_left(after) > self.endgame)  # the others are solved from here
        until = self.rollout_stops(start)
        searcher = None if self.others is None else seat[roll]
        after.data[roll] = network_play(
            after[roll], self.network, rules, self.max_batch, until[roll], self.others, searcher
        ).data
        scores = rollout_scores(rules, after, start.scores).astype(np.float64)
        own = scores[np.arange(len(seat)), seat]
        if self.objective == "field":
            own -= (scores.sum(axis=1) - own) / (scores.shape[1] - 1)
        cut = np.flatnonzero(~settled(after, rules))
        solve = cut[tricks_left(after[cut]) <= self.endgame]
        if len(solve):
            own[solve] = endgame_scores(after[solve], seat[solve], rules, self.endgame_search)
        rest = np.setdiff1d(cut, solve)  # stopped by rollout_tricks: the value head judges the rest
        if self.value is not None and len(rest):
            expected = self.value.expected_points(after[rest], rules, start.scores[rest])
            own[rest] = expected[np.arange(len(rest)), seat[rest]]
        values = np.full(candidates.shape, np.nan)
        values[game, card] = own.reshape(len(game), W).mean(axis=1)
        return values

    def rollout_stops(self, start: State) -> np.ndarray:
        """(N,) int: the trick at whose end each rollout from ``start`` stops (before the candidate
        card): ``rollout_tricks`` on for the value head, or where ``endgame`` tricks are left;
        the hand's last trick for neither."""
        H = start.rules.hand_size
        stop = np.full(start.batch_size, H, np.int64)
        if self.value is not None:
            stop = np.minimum(stop, start.tricks_played.astype(np.int64) + self.rollout_tricks)
        if self.endgame:
            stop = np.minimum(stop, H - self.endgame)
        return stop


def searched_family(name: str) -> Callable[..., TableFamily]:
    """``make_agent``'s factory of ``pimc-`` + ``name``: ``pimc-ppo`` (with its options) guided at
    each table by the network the shipped family ``name`` (``SHIPPED_FAMILIES``; or the family
    folder ``path=``) holds for it, at one deck and at two (Cancellation Hearts)."""

    @passes_options_to(PIMCPPOPolicy, fixed=("network",))
    def search(
        seed: int | np.random.SeedSequence | None = None, path: str | Path | None = None, **options: Any
    ) -> TableFamily:
        folder = SHIPPED_DIR / name if path is None else as_path("family", path, "a family folder")
        return search_family(f"pimc-{name}", folder, seed, options)

    return search


pimc_ppo_family = searched_family(SHIPPED_FAMILIES[0])
"""The ``pimc-ppo-family`` agent."""


def search_family(
    name: str, folder: Path, seed: int | np.random.SeedSequence | None, options: dict[str, Any]
) -> TableFamily:
    """``pimc-ppo`` (with ``options``) guided at each table by the network of the family of
    ``folder``, called ``name``."""
    make = lambda member: PIMCPPOPolicy(path=member, **options)  # noqa: E731
    return load_family(folder, name, make, seed)


@passes_options_to(PIMCPPOPolicy, fixed=("network",))
def pimc_ppo_one(
    seed: int | np.random.SeedSequence | None = None, path: str | Path | None = None, **options: Any
) -> TableFamily:
    """The ``pimc-ppo-one`` agent: ``pimc-ppo`` (with ``options``) guided at every table by the
    shipped shared network (``hearts_env.agents.learned.shared``; or the one in ``path=``)."""
    make = lambda network: PIMCPPOPolicy(network=network, **options)  # noqa: E731
    return load_shared(SHIPPED_ONE if path is None else path, "pimc-ppo-one", make, seed)
