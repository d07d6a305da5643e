"""PIMC's compiled rollouts (see ``hearts_env.agents.search.pimc`` for what they do and why): from the
core states of the sampled worlds (``hearts_env.engine.infoset.world_row``; the worlds come from
``hearts_env.engine.worlds``), every candidate card is played and the hand rolled out to its end
with random, simple or heuristic players.

Randomness is counter-based, as the world sampler's (``hearts_env.engine.world_kernels``): every
rollout (game, card, world, rollout) draws from its own stream ``mix64_word(key ^ mix64_word(index))``, so
a call's results depend only on its key and its games.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hearts_env.agents.rule_based.players import RANDOM, player_card
from hearts_env.engine import kernels as k
from hearts_env.engine.cards import JD_BIT, NUM_CARDS, POINT_BITS
from hearts_env.engine.infoset import I_SEAT, infoset_row, world_row
from hearts_env.engine.kernels import count, low_card
from hearts_env.engine.world_kernels import seed_stream, uniform

U64 = np.uint64


@njit(cache=True, inline="always")
def scoring_cards(rp: np.ndarray) -> np.uint64:
    """The cards of the deck that carry points under the rules ``rp`` (the JD with its rule)."""
    return U64(rp[k.R_DECK]) & (POINT_BITS | (JD_BIT if rp[k.R_JD] else U64(0)))


@njit(cache=True, inline="always")
def all_scored(s64: np.ndarray, soff: np.ndarray, rp: np.ndarray, scoring: np.uint64) -> bool:
    """Every card that scores (each copy, with two decks) lies in a taken pile."""
    P = rp[k.R_PLAYERS]
    pile, pile2 = U64(0), U64(0)
    for r in range(P):
        if rp[k.R_DECKS] == 2:
            pile, pile2 = k.add_piles(pile, pile2, s64[soff[k.F_TAKEN] + r], s64[soff[k.F_TAKEN2] + r])
        else:
            pile |= s64[soff[k.F_TAKEN] + r]
    return (pile2 if rp[k.R_DECKS] == 2 else pile) & scoring == scoring


@njit(cache=True)
def settled_rows(data: np.ndarray, soff: np.ndarray, rp: np.ndarray, out: np.ndarray) -> None:
    """``out[g]``: the hand score of state row g (rules ``rp``) is settled, the game over or every
    card that scores taken (``all_scored``)."""
    d64, d8 = data.view(U64), data.view(np.int8)
    scoring = scoring_cards(rp)
    for g in range(data.shape[0]):
        out[g] = d8[g, soff[k.F_PHASE]] == k.GAME_OVER or all_scored(d64[g], soff, rp, scoring)


@njit(cache=True)
def rollout_values(
    idata: np.ndarray,
    ioff: np.ndarray,
    worlds: np.ndarray,
    candidates: np.ndarray,
    soff: np.ndarray,
    width: int,
    rp: np.ndarray,
    rp_real: np.ndarray,
    deck: np.ndarray,
    roff: np.ndarray,
    rwidth: int,
    player: int,
    kn: np.ndarray,
    key: np.uint64,
    rollouts: int,
    margin: bool,
    values: np.ndarray,
) -> None:
    """``values[g, c]``: the observer's mean hand score over the worlds (B, W, C, Q) of game g
    (see ``sample_worlds``) and ``rollouts`` rollouts each, after it plays candidate card c (a bit
    of ``candidates[g]``) and every seat then plays the compiled player ``player``
    (``hearts_env.agents.rule_based.players``: ``RANDOM``, ``SIMPLE``, or ``HEURISTIC`` with knobs ``kn``) to the
    hand's end under the rules ``rp`` (one hand: target score 0), or until every card that scores
    has been taken. The hand is scored with the real rules ``rp_real`` and the game totals;
    ``margin``: minus the others' mean. Forced cards (a single legal one) are played without asking
    the player.
    ``soff``/``width``: the rollout states' layout; ``roff``/``rwidth``: their info rows'.
    ``values`` must hold zeros at the candidates."""
    B, W = worlds.shape[:2]
    P = rp[k.R_PLAYERS]
    i64, i32, i8 = idata.view(U64), idata.view(np.int32), idata.view(np.int8)
    base = np.zeros(width, np.uint8)
    b64, b32, b8 = base.view(U64), base.view(np.int32), base.view(np.int8)
    row = np.zeros(width, np.uint8)
    s64, s32, s8 = row.view(U64), row.view(np.int32), row.view(np.int8)
    info = np.zeros(rwidth, np.uint8)
    r64, r32, r8 = info.view(U64), info.view(np.int32), info.view(np.int8)
    points = np.empty(P, np.int32)
    rng = np.empty(1, U64)
    shuffled = np.empty(len(deck), np.int8)  # the step's scratch for dealing (rollouts end with the hand)
    taken, scores = soff[k.F_TAKEN], soff[k.F_SCORES]
    taken2 = soff[k.F_TAKEN2] if rp[k.R_DECKS] == 2 else taken  # read only with two decks
    # Once every card that scores has been taken, the rest of the hand changes no score.
    scoring = scoring_cards(rp)
    for g in range(B):
        observer = i8[g, ioff[I_SEAT]]
        for w in range(W):
            world_row(i64[g], i32[g], i8[g], ioff, worlds[g, w], b64, b32, b8, soff, rp)
            cards = candidates[g]
            while cards:
                card = low_card(cards)
                cards &= cards - U64(1)
                for n in range(rollouts):
                    seed_stream(rng, key, ((g * NUM_CARDS + card) * W + w) * rollouts + n)
                    row[:] = base
                    play = card
                    for _ in range(P * rp[k.R_HAND_SIZE]):
                        k.step_game(s64, s32, s8, soff, rp, deck, play, shuffled)
                        if s8[soff[k.F_PHASE]] == k.GAME_OVER:
                            break
                        if s8[soff[k.F_TRICK_SIZE]] == 0 and all_scored(s64, soff, rp, scoring):
                            break  # a trick ended and the scores are settled
                        legal = k.legal_cards(s64, s8, soff, rp)
                        s64[soff[k.F_LEGAL]] = legal
                        if legal & (legal - U64(1)) == 0:  # forced: any player plays it
                            play = low_card(legal)
                        elif player == RANDOM:
                            play = np.int64(k.nth_set_bit(legal, int(uniform(rng) * count(legal))))
                        else:
                            infoset_row(s64, s32, s8, soff, rp, s8[soff[k.F_TO_PLAY]], r64, r32, r8, roff)
                            play = player_card(player, kn, r64, r32, r8, roff, rp)
                    k.hand_score2(
                        s64[taken : taken + P], s64[taken2 : taken2 + P], b32[scores : scores + P], rp_real, points
                    )
                    own = float(points[observer])
                    if margin:
                        own -= (points.sum() - own) / (P - 1)
                    values[g, card] += own
        cards = candidates[g]
        while cards:
            card = low_card(cards)
            cards &= cards - U64(1)
            values[g, card] /= W * rollouts
