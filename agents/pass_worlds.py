"""Sampled worlds for a pass decision, and the pass phase played out in them.

At a pass pick the observer knows only its own 13 cards (and the ones it has picked so far): every
split of the other cards among the other seats is equally likely, so a world is a uniform shuffle
of them (no voids or plays to respect, unlike ``hearts_env.agents.pimc.sample_worlds``). The
worlds start at the pass's first pick with the real hand number (its pass direction) and game
totals; ``play_passes`` then lets every seat pick, the observer its planned cards first.
"""

from __future__ import annotations

import numpy as np

from hearts_env.agents.trained import MLPPolicy, masked_argmax
from hearts_env.cards import NUM_CARDS
from hearts_env.core import PASS, State, bits_to_mask, choose_from_bits, deck_bits, legal_mask, new_games, step_in_place
from hearts_env.infoset import InfoSet
from hearts_env.observation import observe
from hearts_env.rules import HeartsRules

_U64 = np.uint64


def absolute_scores(info: InfoSet) -> np.ndarray:
    """(B, P) the game totals by absolute seat (the info set holds them from the observer's)."""
    P = info.num_players
    seats = (info.seat[:, None].astype(np.int64) + np.arange(P)) % P
    out = np.empty_like(info.scores)
    np.put_along_axis(out, seats, info.scores, axis=1)
    return out


def sample_pass_worlds(info: InfoSet, worlds: int, rng: np.random.Generator, rules: HeartsRules) -> State:
    """Core states (B * W games, game-major, W = ``worlds``) at the first pick of the pass of each
    info set (pass phase, one deck): the observer holds its cards (picked ones included), the
    others' cards are shuffled uniformly among the other seats; ``rules`` become the states'."""
    if np.any(info.phase != PASS) or rules.decks != 1:
        raise ValueError("pass worlds are for one-deck information sets in the pass phase")
    B, W, P, H = info.batch_size, int(worlds), info.num_players, rules.hand_size
    own = info.hand | info.passed
    others = bits_to_mask(deck_bits(P) & ~own)  # (B, 52): every row holds (P - 1) * H cards
    cards = np.nonzero(others)[1].reshape(B, 1, (P - 1) * H)
    shuffled = rng.permuted(np.broadcast_to(cards, (B, W, cards.shape[2])), axis=2).reshape(B * W, -1)
    seat = np.repeat(info.seat.astype(np.int64), W)
    deals = np.full((B * W, NUM_CARDS), -1, np.int64)
    deals[bits_to_mask(np.repeat(own, W))] = np.repeat(seat, H)
    other_seats = (seat[:, None] + np.repeat(np.arange(1, P), H)) % P
    np.put_along_axis(deals, shuffled, other_seats, axis=1)
    state = new_games(rules, deals=deals, keys=np.zeros(B * W, _U64))
    state.layout.view(state.data, "hand_number")[:] = np.repeat(info.hand_number, W)
    state.layout.view(state.data, "scores")[:] = np.repeat(absolute_scores(info), W, axis=0)
    return state


def play_passes(state: State, network: MLPPolicy, observer: np.ndarray, planned: np.ndarray) -> None:
    """Play the pass phase of every game of ``state`` in place: seat ``observer`` (B,) picks the
    cards of ``planned`` (B,) bitboards first, lowest first, then like every other seat the
    ``network``'s greedy pick."""
    rules = state.rules
    for _ in range(rules.num_players * rules.pass_count):
        seats = state.to_play.astype(np.int64)
        actions = masked_argmax(network.logits(observe(state, seats, network.layout)), legal_mask(state))
        rows = np.arange(state.batch_size)
        todo = planned & state.hands[rows, seats]  # planned cards not picked yet are still in hand
        forced = np.flatnonzero((seats == observer) & (todo != 0))
        actions[forced] = choose_from_bits(todo[forced], np.zeros(len(forced)))
        step_in_place(state, actions)
