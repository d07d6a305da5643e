"""Worlds weighed by the play so far: policy-based inference for a determinized search.

A sampled world (``hearts_env.agents.pimc.sample_worlds``) respects what the observer knows for
certain (the cards it has seen, the voids), but every consistent deal is equally likely to it.
The other seats' plays say more: a seat that ducked under the lead three times probably holds
no low card of that suit; one that threw the QS at the first chance held it; a heart led before
hearts broke means that seat held only hearts. ``log_likelihoods`` scores each world by how
likely the other seats' plays of this hand were, had they held that world's hands and played
like a trained network: the hand is replayed from its first lead in the world (the core's own
rules, so a play that would have been illegal there makes the world impossible), and at each
decision of another seat with a choice the network's probability of the card it played is read.

The network is a model of the other seats, not the other seats, so each probability is mixed
with the uniform choice among the legal cards (``floor``): a play the network all but rules out
lowers a world's weight without ruling the world out. ``resample`` then keeps a fixed number of
worlds drawn in proportion to the weights, so the search spends its rollouts on likely worlds.

The replay needs the order of the hand's plays: the games must record their trick history
(``hearts_env.core.new_games(history=True)``, ``hearts-arena --history``). In the replayed worlds
the other seats' passes are unknown, as in the search's rollouts.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from hearts_env.agents.trained import MLPPolicy, masked_softmax
from hearts_env.core import State, legal_mask, step_in_place
from hearts_env.infoset import InfoSet, world_states
from hearts_env.observation import observe


def play_order(info: InfoSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The hand's plays so far in the order they were made: ``seats`` (B, L) relative seats and
    ``cards`` (B, L) card ids, -1 past each game's ``count`` (B,) plays. ``ValueError`` if a game
    has completed tricks but the info sets hold no trick history."""
    B, P = info.batch_size, info.num_players
    tricks = info.tricks  # (B, H, P)
    H = tricks.shape[1]
    if H == 0 and np.any(info.tricks_played > 0):
        raise ValueError("weighing worlds by the play needs the trick history: record it (history=True, --history)")
    seats_done = (info.trick_leaders[:, :, None] + np.arange(P)) % P  # (B, H, P) in play order
    cards_done = np.take_along_axis(tricks, seats_done, axis=2)
    done = np.arange(H)[None, :, None] < info.tricks_played[:, None, None]
    seats_now = (info.trick_leader[:, None] + np.arange(P)) % P  # the current trick, from its leader
    cards_now = np.take_along_axis(info.trick, seats_now, axis=1)
    seats = np.concatenate([seats_done.reshape(B, H * P), seats_now], axis=1).astype(np.int64)
    cards = np.concatenate([cards_done.reshape(B, H * P), cards_now], axis=1).astype(np.int64)
    made = np.concatenate([np.broadcast_to(done, (B, H, P)).reshape(B, H * P), cards_now >= 0], axis=1)
    order = np.argsort(~made, axis=1, kind="stable")  # the plays made first, in their order
    seats, cards, made = (np.take_along_axis(a, order, axis=1) for a in (seats, cards, made))
    count = made.sum(axis=1)
    return np.where(made, seats, -1), np.where(made, cards, -1), count


def hand_start(info: InfoSet, hands: np.ndarray) -> State:
    """Core states (B * W, game-major) at the first lead of the hand in each world ``hands``
    (B, W, P) of the info sets (``world_states``' worlds): every card played since back in its
    player's hand, nothing taken, hearts unbroken; the rules played to the end of the hand."""
    first = (
        info.trick_leader
        if info.tricks.shape[1] == 0
        else np.where(info.tricks_played > 0, info.trick_leaders[:, 0], info.trick_leader)
    )
    start = info.replace(
        to_play=first, played=0, trick=-1, trick_leader=first, trick_winner=first, tricks_played=0,
        hearts_broken=False, voids=0, taken=0, points=0,
    )  # fmt: skip
    held = np.asarray(hands, np.uint64) | info.played[:, None, :]
    return world_states(start, held, dataclasses.replace(info.rules, target_score=None))


def log_likelihoods(
    info: InfoSet, hands: np.ndarray, network: MLPPolicy, floor: float = 0.1, max_batch: int = 32768
) -> np.ndarray:
    """(B, W) float: for each world of ``hands`` (B, W, P), the log-probability of the other
    seats' plays of this hand so far had they held the world's cards and played like
    ``network``, each card's probability mixed with the uniform one (``(1 - floor) p + floor /
    legal cards``); -inf for a world in which one of those plays breaks a rule. The observer's own
    plays and forced cards count 1. ``max_batch`` bounds the rows of one forward pass."""
    B, W = np.shape(hands)[:2]
    seats, cards, count = play_order(info)
    state = hand_start(info, hands)
    game = np.repeat(np.arange(B), W)
    out = np.zeros(B * W)
    ids = np.arange(B * W)
    buffer = np.empty((min(len(ids), max_batch), network.layout.size), np.uint8)
    for t in range(int(count.max(initial=0))):
        keep = count[game[ids]] > t
        card = cards[game[ids], t]
        legal = state.legal
        possible = (legal >> np.where(card >= 0, card, 0).astype(np.uint64)) & np.uint64(1) == 1
        out[ids[keep & ~possible]] = -np.inf
        keep &= possible
        if not keep.all():
            ids, state, card, legal = ids[keep], state[keep], card[keep], legal[keep]
            if not len(ids):
                break
        choice = np.bitwise_count(legal)
        think = np.flatnonzero((seats[game[ids], t] != 0) & (choice > 1))
        for begin in range(0, len(think), max_batch):
            rows = think[begin : begin + max_batch]
            sub = state[rows]
            obs = observe(sub, sub.to_play.astype(np.int64), network.layout, out=buffer[: len(rows)])
            probs = masked_softmax(network.logits(obs), legal_mask(sub))[np.arange(len(rows)), card[rows]]
            out[ids[rows]] += np.log((1 - floor) * probs + floor / choice[rows])
        step_in_place(state, card)
    return out.reshape(B, W)


def resample(log_weights: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """(B, count) indices into each row of ``log_weights`` (B, K), drawn in proportion to the
    weights by systematic resampling (one uniform offset per row: the least added noise). A row
    whose weights are all zero (-inf) is drawn uniformly."""
    B, K = log_weights.shape
    top = log_weights.max(axis=1, keepdims=True)
    weights = np.exp(log_weights - np.where(np.isfinite(top), top, 0))
    weights[~np.isfinite(top[:, 0])] = 1.0
    rows = np.arange(B)[:, None]
    cumulative = np.cumsum(weights / weights.sum(axis=1, keepdims=True), axis=1) + rows  # row b in (b, b + 1]
    points = (rng.random((B, 1)) + np.arange(count)) / count + rows
    picks = np.searchsorted(cumulative.ravel(), points.ravel(), side="right").reshape(B, count) - rows * K
    return np.clip(picks, 0, K - 1)
