"""Perfect-information Monte Carlo search (PIMC): determinize, roll out, keep the best card.

For each game of the batch the seat to act (the observer) only knows its information set. PIMC

1. samples ``worlds`` deals of the cards it cannot see, each consistent with everything the
   information set says (``sample_worlds``);
2. turns each world into a core ``State`` in the middle of the hand (``determinize``);
3. for every legal card of the observer, plays it in every world and rolls the rest of the hand
   out with a fast policy (uniformly random legal cards by default, or any ``Policy``), all
   games x candidates x worlds x rollouts stepped together as one batch;
4. plays the card with the lowest mean hand points of the observer (moon and JD rules applied
   with the real rules and game totals); ties are broken by the seeded generator.

What a sampled world respects (``sample_worlds``):

* the observer's hand is exact; every card played this hand (current trick included) is gone;
* the cards the observer passed are held by their receiver, unless the receiver played them;
* each other seat holds exactly its hand size minus the cards it has played (passing leaves
  every hand size unchanged);
* a seat known to be void in a suit (``InfoSet.voids``: it failed to follow) holds none of it.

Softer inferences (a heart discarded on the first trick means only point cards were left; a
heart led before hearts broke means only hearts were left) are not used. A world is drawn by
rejection first: the unseen cards are shuffled and dealt to the seats' free places, and a deal
that breaks a void is redrawn, up to ``rejection_rounds`` times; an accepted deal is exactly
uniform over the consistent deals. A world still rejected (void-heavy positions: 10-30% of the
worlds over random-play states) is built constructively (``deal_constructive``): card by card,
most constrained suits first, each card to a seat not void in its suit with probability
proportional to the seat's room, among only the seats after which the rest can still be placed
(Hall's condition over the 15 sets of suits, so it never dead-ends). That proposal is biased, so
``proposals`` deals are drawn and one is kept with weight 1 / q (sampling-importance-resampling,
``deal_resampled``), which brings it close to uniform (exactly uniform as ``proposals`` grows).
Every world is consistent either way.

The pass is not searched: during the pass phase PIMC delegates to ``pass_policy``; the default
(``pass_high_cards``) passes the QS, AS and KS first, then the highest ranks (hearts first among
equal ranks). ``pimc_heuristic`` builds the stronger set-up: the heuristic agent's passes and
heuristic rollouts.

Rollouts use the rules with ``target_score=None``, so each rollout ends with its hand; the
observer's score is then recomputed with ``core.hand_score`` under the real rules and game totals
(which only matters for the ``shooter_choice`` moon). Rollouts do not record trick history
(``InfoSet.tricks`` is empty for a rollout policy) and in the rollout worlds the other seats'
passes are unknown (``passed`` holds only what the observer passed and received).

States are built (``determinize``) from the information set rotated back to absolute seats; the
legal cards come from ``core.recompute_legal``, so they are exactly the core's.

Cost: the defaults are ``worlds=64`` with random rollouts (``PIMCPolicy``, the ``pimc-random``
agent) and ``worlds=32`` with heuristic rollouts (``pimc_heuristic``, the ``pimc`` agent), which
cost several times more per world; the README gives the measured time per decision of the
``pimc`` agent, one game per call and batched. Batches of games share the numpy work and cost
far less per game.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from hearts_env import cards
from hearts_env.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from hearts_env.core import (
    BIT,
    GAME_OVER,
    PASS,
    PLAY,
    SUIT_BITS,
    SUIT_OF,
    State,
    bits_to_mask,
    concatenate,
    deck_bits,
    hand_score,
    legal_mask,
    new_games,
    recompute_legal,
    sample_actions,
    step,
)
from hearts_env.infoset import InfoSet, infoset
from hearts_env.policy import Policy
from hearts_env.rules import HeartsRules

_U64 = np.uint64
_ZERO = _U64(0)
QS, KS, AS = (cards.parse_card(c) for c in ("QS", "KS", "AS"))

# VOID_BITS[v]: the cards of the suits in the 4-bit void set v.
VOID_BITS = np.array(
    [np.bitwise_or.reduce(np.where((v >> np.arange(NUM_SUITS)) & 1 == 1, SUIT_BITS, _ZERO)) for v in range(16)],
    dtype=_U64,
)
_SUBSETS = np.arange(16)
_IN_SUBSET = ((_SUBSETS[None, :] >> np.arange(NUM_SUITS)[:, None]) & 1).astype(np.int64)  # (4, 16): suit s in S


def _rotate_to_absolute(values: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(n, P, ...) indexed by relative seat -> indexed by absolute seat (seat = the observer's)."""
    P = values.shape[1]
    rel = (np.arange(P)[None, :] - seat[:, None].astype(np.int64)) % P  # relative seat of absolute a
    rel = rel.reshape(rel.shape + (1,) * (values.ndim - 2))
    return np.take_along_axis(values, rel, axis=1)


# ---------------------------------------------------------------------------------------------
# Sampling worlds


def constraints(info: InfoSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the observer knows about where the cards are, in the play phase.

    Returns ``known`` (B, P) uint64: cards known to be in each relative seat's hand (its own hand;
    the cards it passed, at the receiver, unless played since); ``need`` (B, P) int: how many
    more (unseen) cards each seat holds; ``unseen`` (B,) uint64: the cards to share out.
    """
    if np.any(info.phase != PLAY):
        raise ValueError("worlds can only be sampled in the play phase")
    P, B = info.num_players, len(info.seat)
    rows = np.arange(B)
    played = np.bitwise_or.reduce(info.played, axis=1)
    known = np.zeros((B, P), _U64)
    known[:, 0] = info.hand
    receiver = np.asarray(info.pass_offset, np.int64) % P
    passed = np.where(receiver != 0, info.passed & ~played, _ZERO)
    known[rows, receiver] |= passed
    size = info.rules.hand_size - np.bitwise_count(info.played).astype(np.int64)
    need = size - np.bitwise_count(known).astype(np.int64)
    unseen = deck_bits(P) & ~played & ~np.bitwise_or.reduce(known, axis=1)
    if np.any(need < 0) or np.any(need.sum(axis=1) != np.bitwise_count(unseen)):
        raise ValueError("inconsistent information set: hand sizes do not match the unseen cards")
    return known, need, unseen


def sample_worlds(
    info: InfoSet, worlds: int, rng: np.random.Generator, rejection_rounds: int = 4, proposals: int = 16
) -> np.ndarray:
    """(B, worlds, P) uint64: hands of every relative seat (0 = the observer) in sampled deals
    consistent with each game's information set (play phase only; see the module docstring).

    Each world is drawn by rejection (up to ``rejection_rounds`` shuffled deals, exactly uniform
    when accepted); a world still rejected is the importance resample of ``proposals`` constructive
    deals (``deal_constructive``), nearly uniform."""
    known, need, unseen = constraints(info)
    B, P = need.shape
    g = np.repeat(np.arange(B), worlds)
    need, unseen, voids = need[g], unseen[g], info.voids[g].astype(np.int64)
    voids[:, 0] = 0  # the observer's hand is given
    hands = np.zeros((len(g), P), _U64)
    todo = np.arange(len(g))
    for _ in range(rejection_rounds):
        if not len(todo):
            break
        dealt = _deal_random(need[todo], unseen[todo], rng)
        ok = ~np.any(dealt & VOID_BITS[voids[todo]], axis=1)
        hands[todo[ok]] = dealt[ok]
        todo = todo[~ok]
    if len(todo):
        hands[todo] = deal_resampled(need[todo], unseen[todo], voids[todo], rng, proposals)
    hands |= known[g]
    return hands.reshape(B, worlds, P)


def deal_resampled(
    need: np.ndarray, unseen: np.ndarray, voids: np.ndarray, rng: np.random.Generator, proposals: int = 16
) -> np.ndarray:
    """(n, P) hands respecting the voids: for each row, one of ``proposals`` constructive deals
    drawn with weight 1 / q (sampling-importance-resampling towards the uniform deal)."""
    n, P = need.shape
    K = max(1, int(proposals))
    rep = np.repeat(np.arange(n), K)
    dealt, log_q = deal_constructive(need[rep], unseen[rep], voids[rep], rng)
    pick = np.argmax(-log_q.reshape(n, K) + rng.gumbel(size=(n, K)), axis=1)  # Gumbel-max: P(k) ~ 1 / q_k
    return dealt.reshape(n, K, P)[np.arange(n), pick]


def _deal_random(need: np.ndarray, unseen: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(n, P) hands: the unseen cards shuffled and dealt to the seats' free places (voids ignored)."""
    n, P = need.shape
    width = int(np.bitwise_count(unseen).max()) if n else 0
    keys = rng.random((n, NUM_CARDS))
    keys[~bits_to_mask(unseen)] = 2.0
    order = np.argsort(keys, axis=1)[:, :width]  # unseen cards first, in random order
    slot_seat = (np.arange(width)[None, None, :] >= np.cumsum(need, axis=1)[:, :, None]).sum(axis=1)  # P = none
    bits = np.where(slot_seat < P, BIT[order], _ZERO)
    hands = np.empty((n, P), _U64)
    for r in range(P):
        hands[:, r] = np.bitwise_or.reduce(np.where(slot_seat == r, bits, _ZERO), axis=1)
    return hands


def deal_constructive(
    need: np.ndarray, unseen: np.ndarray, voids: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Deal the ``unseen`` cards (n,) to seats with room ``need`` (n, P), none into a suit the
    seat is void in (``voids`` (n, P) suit bits), card by card; returns the hands (n, P) and the
    log-probability (n,) of the deal under this sampler (for importance weights).

    Cards go in order of their suit's constraint (suits more seats are void in first). Each card
    goes to a seat not void in its suit with probability proportional to the seat's room, among
    only the seats after which the remaining cards can still be placed: by Hall's condition, for
    every set S of suits, the cards left in S fit in the room of the seats not void in all of S.
    So the deal never dead-ends. Without voids this is exactly a uniform random deal.
    """
    n, P = need.shape
    rows = np.arange(n)
    cap = need.astype(np.int64).copy()
    remaining = np.bitwise_count(unseen[:, None] & SUIT_BITS[None, :]).astype(np.int64)  # (n, 4)
    void = ((voids[:, :, None] >> np.arange(NUM_SUITS)) & 1).astype(bool)  # (n, P, 4)
    # eligible[i, r, S]: seat r may take a card of some suit in the suit set S.
    eligible = ((_SUBSETS[None, None, :] & ~voids[:, :, None] & 15) != 0).astype(np.int64)
    shut_out = (void & (cap[:, :, None] > 0)).sum(axis=1)  # (n, 4): seats with room void in the suit
    key = np.where(bits_to_mask(unseen), -shut_out[:, SUIT_OF] * 64 + np.arange(NUM_CARDS), 10_000)
    count = np.bitwise_count(unseen).astype(np.int64)
    order = np.argsort(key, axis=1)[:, : int(count.max()) if n else 0]
    hands = np.zeros((n, P), _U64)
    log_q = np.zeros(n)
    for t in range(order.shape[1]):
        has = t < count
        card = order[:, t]
        suit = SUIT_OF[card]
        after = remaining.copy()
        after[rows, suit] -= 1
        demand = after @ _IN_SUBSET  # (n, 16): cards left in each suit set once this one is placed
        supply = np.einsum("np,nps->ns", cap, eligible)[:, None, :] - eligible  # (n, P, 16) if it goes to r
        fits = np.all(demand[:, None, :] <= supply, axis=2) & (cap > 0) & ~void[rows, :, suit]
        weight = np.where(fits, cap, 0)
        total = weight.sum(axis=1)
        if np.any(has & (total == 0)):  # cannot happen for a consistent information set
            raise ValueError("inconsistent information set: no consistent deal of the unseen cards")
        cum = np.cumsum(weight, axis=1)
        seat = np.minimum((cum <= (rng.random(n) * total)[:, None]).sum(axis=1), P - 1)
        i, r = rows[has], seat[has]
        log_q[i] += np.log(weight[i, r] / total[i])
        hands[i, r] |= BIT[card[i]]
        cap[i, r] -= 1
        remaining[i, suit[i]] -= 1
    return hands, log_q


# ---------------------------------------------------------------------------------------------
# Building core states


def determinize(info: InfoSet, hands: np.ndarray, rules: HeartsRules | None = None) -> State:
    """Core states (B * W games, game-major) of the worlds ``hands`` (B, W, P) by relative seat,
    in the play phase, the observer to act: everything public comes from the information set.

    ``rules`` (default: the info set's) become the states' rules. Fields the info set cannot
    give are set plainly: no trick history, no last trick, the other seats' passes unknown (only
    what the observer passed and received is filled in), zero hand-over flags.
    """
    if np.any(info.phase != PLAY):
        raise ValueError("only play-phase information sets can be determinized")
    rules = info.rules if rules is None else rules
    B, W, P = hands.shape
    seat = info.seat.astype(np.int64)
    rows = np.arange(B)
    trick = _rotate_to_absolute(info.trick, seat)
    in_trick = np.where(info.trick >= 0, BIT.take(info.trick), _ZERO)
    leader = ((seat + info.trick_leader) % P).astype(np.int8)
    trick_size = (trick >= 0).sum(axis=1).astype(np.int8)
    winner = (seat + info.trick_winner) % P
    passed = np.zeros((B, P), _U64)
    passed[rows, seat] = info.passed
    giver = (seat - np.asarray(info.pass_offset, np.int64)) % P
    passed[rows, giver] |= np.where(giver != seat, info.received, _ZERO)
    base = new_games(rules, batch_size=B, keys=np.zeros(B, _U64)).replace(
        hand_number=info.hand_number,
        phase=PLAY,
        to_play=(seat + info.to_play) % P,
        hands=0,
        passed=passed,
        trick=trick,
        leader=leader,
        winner=winner,
        trick_size=trick_size,
        tricks_played=info.tricks_played,
        played=_rotate_to_absolute(info.played & ~in_trick, seat),
        voids=_rotate_to_absolute(info.voids, seat),
        hearts_broken=info.hearts_broken,
        taken=_rotate_to_absolute(info.taken, seat),
        scores=_rotate_to_absolute(info.scores, seat),
    )
    state = base[np.repeat(rows, W)]
    absolute = _rotate_to_absolute(hands.reshape(B * W, P), np.repeat(seat, W))
    return recompute_legal(state.replace(hands=absolute))


# ---------------------------------------------------------------------------------------------
# Rollouts


def rollout(
    state: State, rng: np.random.Generator, policy: Policy | None = None, max_steps: int | None = None
) -> State:
    """Step every game to its end (uniformly random legal cards, or ``policy`` for every seat);
    games that end leave the batch as they end. Returns the final states in the input order."""
    n = state.batch_size
    done = state.phase == GAME_OVER
    ids = np.arange(n)
    finished: list[tuple[np.ndarray, State]] = []
    limit = max_steps if max_steps is not None else NUM_CARDS * 2
    for _ in range(limit):
        if np.count_nonzero(done):
            finished.append((ids[done], state[done]))
            keep = ~done
            ids, state = ids[keep], state[keep]
        if not len(ids):
            break
        if policy is None:
            actions = sample_actions(state, rng)
        else:
            actions = np.asarray(policy(infoset(state), legal_mask(state)))
        state = step(state, actions)
        done = state.phase == GAME_OVER
    else:
        raise RuntimeError("rollout did not end")
    if len(finished) == 1:
        return finished[0][1]
    order = np.argsort(np.concatenate([i for i, _ in finished]))
    parts = [s for _, s in finished]
    return concatenate(parts)[order]


# ---------------------------------------------------------------------------------------------
# The pass


_PASS_DANGER = np.arange(NUM_CARDS) % NUM_RANKS + 0.5 * (SUIT_OF == cards.HEARTS)
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
    random legal cards, the fastest; e.g. ``agents.heuristic.HeuristicPolicy()`` for stronger,
    slower rollouts); ``pass_policy``: plays the pass phase (default ``pass_high_cards``);
    ``objective``: ``"points"`` (the observer's hand points) or ``"margin"`` (its points minus
    the mean of the others'); ``rejection_rounds``: rejection-sampling rounds before the
    constructive fallback; ``proposals``: constructive deals resampled into one world there;
    ``max_batch``: most rollout games stepped at once (bounds memory; games are chunked).
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
        rejection_rounds: int = 4,
        proposals: int = 16,
        max_batch: int = 32768,
    ) -> None:
        if int(worlds) < 1 or int(rollouts) < 1:
            raise ValueError(f"worlds and rollouts must be >= 1, got {worlds} and {rollouts}")
        if objective not in ("points", "margin"):
            raise ValueError(f"objective must be 'points' or 'margin', got {objective!r}")
        self.worlds, self.rollouts = int(worlds), int(rollouts)
        self.rollout_policy = rollout
        self.pass_policy = pass_high_cards if pass_policy is None else pass_policy
        self.objective = objective
        self.rejection_rounds = int(rejection_rounds)
        self.proposals = int(proposals)
        self.max_batch = int(max_batch)
        self.seed(seed)

    def seed(self, seed: int | np.random.SeedSequence | None) -> None:
        self.rng = np.random.default_rng(seed)
        for policy in (self.rollout_policy, self.pass_policy):
            if callable(getattr(policy, "seed", None)):
                policy.seed(int(self.rng.integers(2**63)))

    def __repr__(self) -> str:
        return f"PIMCPolicy(worlds={self.worlds}, rollouts={self.rollouts}, rollout={self.rollout_policy!r})"

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
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
        B = mask.shape[0]
        values = np.full((B, NUM_CARDS), np.nan)
        per_game = mask.sum(axis=1) * self.worlds * self.rollouts
        start = 0
        while start < B:  # chunks of games whose rollouts fit in max_batch
            stop = start + max(1, int(np.searchsorted(np.cumsum(per_game[start:]), self.max_batch, side="right")))
            chunk = np.arange(start, min(stop, B))
            values[chunk] = self._evaluate(info[chunk], mask[chunk])
            start = chunk[-1] + 1
        return values

    def _evaluate(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        B, W, R = mask.shape[0], self.worlds, self.rollouts
        rules = info.rules
        hands = sample_worlds(info, W, self.rng, self.rejection_rounds, self.proposals)
        worlds = determinize(info, hands, dataclasses.replace(rules, target_score=None))
        game, card = np.nonzero(mask)  # the candidates, (M,)
        index = (game[:, None] * W + np.arange(W)).repeat(R, axis=1).ravel()  # (M * W * R,)
        start = worlds[index]
        final = rollout(step(start, np.repeat(card, W * R)), self.rng, self.rollout_policy)
        points = hand_score(rules, final.taken, start.scores).astype(np.float64)
        own = points[np.arange(len(index)), start.to_play.astype(np.intp)]
        if self.objective == "margin":
            P = rules.num_players
            own = own - (points.sum(axis=1) - own) / (P - 1)
        values = np.full((B, NUM_CARDS), np.nan)
        values[game, card] = own.reshape(len(game), W * R).mean(axis=1)
        return values


def pimc_heuristic(seed: int | np.random.SeedSequence | None = None, worlds: int = 32, **options) -> PIMCPolicy:
    """PIMC with the heuristic agent (``agents.heuristic``) for its passes and its rollouts:
    stronger than random rollouts, about ten times slower per world."""
    from agents.heuristic import HeuristicPolicy  # optional: only this set-up needs it

    options.setdefault("rollout", HeuristicPolicy())
    options.setdefault("pass_policy", HeuristicPolicy())
    return PIMCPolicy(seed=seed, worlds=worlds, **options)


def describe(values: np.ndarray) -> dict[str, float]:
    """A game's legal cards and their mean rollout score, by name (for printing)."""
    return {cards.card_name(int(c)): round(float(values[c]), 3) for c in np.flatnonzero(~np.isnan(values))}


__all__ = [
    "PIMCPolicy",
    "constraints",
    "deal_constructive",
    "deal_resampled",
    "describe",
    "determinize",
    "pass_high_cards",
    "pimc_heuristic",
    "rollout",
    "sample_worlds",
]
