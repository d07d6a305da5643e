"""Inference over a search's worlds: how likely each sampled deal makes the cards the other seats
have played this hand, so a search can weigh the worlds its opponents' play points to.

A uniform world ignores what the plays say: a seat that discarded a low club on a spade trick
rather than the QS probably does not hold the QS. ``play_log_likelihoods`` replays the hand in
each world from its first lead (every seat's cards then are its cards in the world plus those
it has played since) and, at each card another seat played with a choice, adds the log of a
network's probability of that card from that seat's view in the world: a whole batch of worlds
stepped through the core together, one forward pass per card of the hand. A world in which a
recorded card would have been illegal (a heart led before hearts were broken by a seat that, in
that world, held another suit) is impossible: -inf.

``resample_worlds`` draws ``pool`` times the worlds wanted, weighs each by its likelihood raised to
the power ``weight`` (below 1 tempers a model of the opponents that is only approximate: they are
not the network) and keeps the wanted number by systematic resampling. The replay needs the
hand's completed tricks in order (``InfoSet.tricks``): the table must record its history
(``core.new_games(history=True)``, ``hearts-arena --history``).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from hearts_env.agents.pimc import sample_worlds
from hearts_env.agents.trained import MLPPolicy, masked_softmax
from hearts_env.core import BIT, State, legal_mask, recompute_legal, step
from hearts_env.infoset import InfoSet, world_states
from hearts_env.observation import observe

_U64 = np.uint64
_FLOOR = 1e-6  # the least probability a played card gets: one surprising card does not rule a world out


def has_history(info: InfoSet) -> bool:
    """Whether ``info`` holds the hand's completed tricks (its table records its history)."""
    return info.tricks.shape[1] > 0


def play_order(info: InfoSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cards played this hand, in order: (B, S) relative seat and card of each (S = room for a
    whole hand), and (B,) how many there are. Needs the trick history."""
    B, P = info.batch_size, info.num_players
    H = info.tricks.shape[1]
    seats = np.arange(P)
    actors = (np.maximum(info.trick_leaders, 0).astype(np.int64)[:, :, None] + seats) % P  # (B, H, P)
    played = np.take_along_axis(info.tricks, actors, axis=2).astype(np.int64)
    actor = np.zeros((B, (H + 1) * P), np.int64)
    card = np.full((B, (H + 1) * P), -1, np.int64)
    actor[:, : H * P], card[:, : H * P] = actors.reshape(B, -1), played.reshape(B, -1)
    # The current trick fills the slots of the first trick not completed.
    current = (info.trick_leader.astype(np.int64)[:, None] + seats) % P
    slot = info.tricks_played.astype(np.int64)[:, None] * P + seats
    rows = np.arange(B)[:, None]
    actor[rows, slot], card[rows, slot] = current, np.take_along_axis(info.trick, current, axis=1)
    count = info.tricks_played.astype(np.int64) * P + (info.trick >= 0).sum(axis=1)
    return actor, card, count


def first_lead(info: InfoSet, hands: np.ndarray) -> State:
    """The worlds ``hands`` (B, K, P) as core states (B * K, game-major) rewound to the hand's
    first lead: each seat holding its world's cards and those it has played since, nothing
    played or taken, the totals, hand number and passes as in ``world_states``."""
    one_hand = dataclasses.replace(info.rules, target_score=None)
    now = world_states(info, hands, one_hand)
    in_trick = np.where(now.trick >= 0, BIT[np.maximum(now.trick, 0)], _U64(0))
    K = hands.shape[1]
    lead = np.where(info.tricks_played > 0, info.trick_leaders[:, 0], info.trick_leader).astype(np.int64)
    leader = np.repeat((info.seat.astype(np.int64) + lead) % info.num_players, K).astype(np.int8)
    start = now.replace(
        hands=now.hands | now.played | in_trick,
        played=np.zeros_like(now.played),
        trick=np.full_like(now.trick, -1),
        trick_size=np.zeros_like(now.trick_size),
        tricks_played=np.zeros_like(now.tricks_played),
        voids=np.zeros_like(now.voids),
        taken=np.zeros_like(now.taken),
        hearts_broken=np.zeros_like(now.hearts_broken),
        leader=leader,
        winner=leader,
        to_play=leader,
    )
    return recompute_legal(start)


def play_log_likelihoods(info: InfoSet, hands: np.ndarray, network: MLPPolicy) -> np.ndarray:
    """(B, K) float: the log-probability, in each world of ``hands`` (B, K, P), of the cards the
    other seats played this hand with a choice, each under ``network`` from that seat's view in
    the world (at least ``_FLOOR`` a card); -inf where a played card would have been illegal."""
    B, K, P = hands.shape
    state = first_lead(info, hands)
    actor, card, count = (np.repeat(x, K, axis=0) for x in play_order(info))
    seat = np.repeat(info.seat.astype(np.int64), K)
    total = np.zeros(B * K)
    possible = np.ones(B * K, bool)
    for i in range(int(count.max(initial=0))):  # one step per card of the hand, every world at once
        rows = np.flatnonzero(possible & (count > i))
        played, legal = card[rows, i], state.legal[rows]
        legal_card = (legal >> played.astype(_U64)) & _U64(1) == 1
        total[rows[~legal_card]], possible[rows[~legal_card]] = -np.inf, False
        rows, played, legal = rows[legal_card], played[legal_card], legal[legal_card]
        choice = np.flatnonzero((actor[rows, i] != 0) & (np.bitwise_count(legal) > 1))
        if len(choice):
            view = state[rows[choice]]
            obs = observe(view, (seat[rows[choice]] + actor[rows[choice], i]) % P, network.layout)
            probs = masked_softmax(network.logits(obs), legal_mask(view))
            total[rows[choice]] += np.log(np.maximum(probs[np.arange(len(choice)), played[choice]], _FLOOR))
        state.data[rows] = step(state[rows], played).data
    return total.reshape(B, K)


def resample_worlds(
    info: InfoSet,
    worlds: int,
    network: MLPPolicy,
    weight: float,
    pool: int,
    rng: np.random.Generator,
    rejection_rounds: int = 64,
    proposals: int = 16,
) -> np.ndarray:
    """(B, worlds, P) hands: ``pool * worlds`` worlds sampled as ``sample_worlds`` does, weighed by
    their play likelihood under ``network`` to the power ``weight``, and ``worlds`` of them kept by
    systematic resampling (a likely world may be kept more than once)."""
    hands = sample_worlds(info, pool * worlds, rng, rejection_rounds, proposals)
    log_w = weight * play_log_likelihoods(info, hands, network)
    log_w[~np.isfinite(log_w).any(axis=1)] = 0.0  # no sampled world explains the plays: keep them all alike
    log_w -= log_w.max(axis=1, keepdims=True)
    w = np.exp(log_w)
    cumulative = np.cumsum(w / w.sum(axis=1, keepdims=True), axis=1)
    marks = (rng.random((len(w), 1)) + np.arange(worlds)) / worlds
    picks = np.minimum((cumulative[:, None, :] < marks[:, :, None]).sum(axis=2), pool * worlds - 1)
    return np.take_along_axis(hands, picks[:, :, None], axis=1)


__all__ = ["first_lead", "has_history", "play_log_likelihoods", "play_order", "resample_worlds"]
