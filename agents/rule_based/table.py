"""Whole games played by compiled agents in one compiled loop.

The heuristic and the simple player decide from one info row in compiled code, so a table of them
needs no Python between cards: ``play_table`` builds each seat's info row, asks the seat's agent,
checks and plays its card, game after game, until every game is over. Their cards are the ones the
runner gets from the same agents (``runner.play`` asks them batch by batch), so a match's results
do not depend on which of the two plays it; the arena takes this path whenever every agent of a
match has ``play_table`` (``hearts_env.play.policy.TablePolicy``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hearts_env.agents.rule_based.heuristic_tables import NUM_KNOBS
from hearts_env.agents.rule_based.players import player_card
from hearts_env.engine import core
from hearts_env.engine import kernels as k
from hearts_env.engine.cards import BIT, QS_BIT, card_name
from hearts_env.engine.compiled import inline_kernel, row_kernel
from hearts_env.engine.infoset import info_layout, infoset_row
from hearts_env.engine.rewards import MODE as REWARD_MODE
from hearts_env.engine.rewards import game_rewards
from hearts_env.play.policy import Policy, Seats

U64 = np.uint64


class CompiledTable:
    """Base of the agents whose card choice is a compiled player (``hearts_env.agents.rule_based.players``):
    a subclass says which (``compiled_player``, with its ``knobs``), so compiled loops (search
    rollouts) can play it, and whole tables of such agents play in one compiled loop
    (``play_table``: ``hearts_env.play.policy.TablePolicy``)."""

    compiled_player: int
    knobs: np.ndarray = np.zeros(0)

    def play_table(
        self, state: core.State, agent_at: np.ndarray, agents: Sequence[Policy]
    ) -> tuple[core.State, np.ndarray, np.ndarray] | None:
        """Whole games with compiled players at every seat, in one compiled loop (``play_table``)."""
        return play_table(state, agent_at, agents)

    def play_to_seat(
        self, state: core.State, agent_at: np.ndarray, agents: Sequence[Policy], to: Seats
    ) -> tuple[core.State, np.ndarray, np.ndarray] | None:
        """Games played until a given seat is to act, in one compiled loop (``play_to_seat``)."""
        return play_to_seat(state, agent_at, agents, to)


def _compiled_players(agents: Sequence[Policy]) -> tuple[np.ndarray, np.ndarray] | None:
    """Each agent's compiled player and its knobs; None if one has none."""
    kinds = np.empty(len(agents), np.int8)
    knobs = np.zeros((len(agents), NUM_KNOBS), np.float64)
    for a, agent in enumerate(agents):
        if not isinstance(agent, CompiledTable):
            return None
        kinds[a] = agent.compiled_player
        knobs[a, : len(agent.knobs)] = agent.knobs
    return kinds, knobs


def play_table(
    state: core.State, agent_at: np.ndarray, agents: Sequence[Policy]
) -> tuple[core.State, np.ndarray, np.ndarray] | None:
    """Play every game of ``state`` to its end with ``agents[agent_at[g, s]]`` at seat ``s`` of
    game ``g``: the final state, and (B, P) int64 the hands in which each seat took the QS and
    shot the moon. None when an agent is not one this loop can play (the caller then uses the
    runner). ``state`` is not changed. Raises ``ValueError`` if an agent chooses an illegal card."""
    players = _compiled_players(agents)
    if players is None:
        return None
    kinds, knobs = players
    B, P = state.batch_size, state.num_players
    agent_at = np.ascontiguousarray(np.broadcast_to(agent_at, (B, P)), np.int64)
    final = state.replace()  # a copy, played in place
    ilayout = info_layout(P, int(state.params[k.R_HISTORY]))
    info = np.zeros((1, ilayout.width), np.uint8)  # one game's info row, rewritten for every card
    qs, moons, chosen = np.zeros((B, P), np.int64), np.zeros((B, P), np.int64), np.zeros(1, np.int64)
    bad = play_games(
        final.data, final.layout.offsets, final.params, final.deck, agent_at, kinds, knobs,
        info, ilayout.offsets, np.empty(len(final.deck), np.int8), qs, moons, chosen,
    )  # fmt: skip
    _refuse_illegal(bad, final, agent_at, agents, int(chosen[0]))
    return final, qs, moons


def play_to_seat(
    state: core.State, agent_at: np.ndarray, agents: Sequence[Policy], to: Seats
) -> tuple[core.State, np.ndarray, np.ndarray] | None:
    """Play each game of ``state`` with ``agents[agent_at[g, s]]`` at seat ``s`` of game ``g`` until
    seat ``to.seat[g]`` is to act or its episode is over (``to.episode``: the hand or the game): the
    state then, (B,) float32 ``to.pending`` plus what the steps paid that seat (``to.reward``'s
    rewards, added card by card) and (B,) bool the games whose episode ended. The cards are the ones
    ``runner.play`` gets from the same agents with that seat unseated. None when an agent is not
    one this loop can play. ``state`` is not changed. Raises ``ValueError`` if an agent chooses an
    illegal card."""
    players = _compiled_players(agents)
    if players is None:
        return None
    kinds, knobs = players
    B, P = state.batch_size, state.num_players
    agent_at = np.ascontiguousarray(np.broadcast_to(agent_at, (B, P)), np.int64)
    final = state.replace()  # a copy, played in place
    ilayout = info_layout(P, int(state.params[k.R_HISTORY]))
    info = np.zeros((1, ilayout.width), np.uint8)
    pending, ended, chosen = to.pending.astype(np.float32), np.zeros(B, bool), np.zeros(1, np.int64)
    bad = play_games_to_seat(
        final.data, final.layout.offsets, final.params, final.deck, agent_at, kinds, knobs,
        info, ilayout.offsets, np.empty(len(final.deck), np.int8), np.ascontiguousarray(to.seat, np.int64),
        to.episode == "hand", REWARD_MODE[to.reward], np.empty((1, final.data.shape[1]), np.uint8),
        np.empty(P, np.float32), pending, ended, chosen,
    )  # fmt: skip
    _refuse_illegal(bad, final, agent_at, agents, int(chosen[0]))
    return final, pending, ended


def _refuse_illegal(bad: int, final: core.State, agent_at: np.ndarray, agents: Sequence[Policy], card: int) -> None:
    """Raise for the illegal ``card`` an agent chose in game ``bad`` (left as it stood before it), if any."""
    if bad >= 0:
        game = final[bad : bad + 1]
        seat = int(game.to_play[0])
        raise ValueError(
            f"agent {type(agents[agent_at[bad, seat]]).__name__} chose an illegal card {card_name(card)} (seat {seat}, "
            f"game {bad}): {core.explain_illegal(game, 0, card)}"
        )


@inline_kernel
def _seat_card(
    r64: np.ndarray,
    r32: np.ndarray,
    r8: np.ndarray,
    soff: np.ndarray,
    rp: np.ndarray,
    agents: np.ndarray,
    kinds: np.ndarray,
    knobs: np.ndarray,
    i64: np.ndarray,
    i32: np.ndarray,
    i8: np.ndarray,
    ioff: np.ndarray,
) -> int:
    """The card the agent at the seat to play (``agents``: each seat's agent) chooses."""
    seat = r8[soff[k.F_TO_PLAY]]
    a = agents[seat]
    infoset_row(r64, r32, r8, soff, rp, seat, i64, i32, i8, ioff)
    return player_card(kinds[a], knobs[a], i64, i32, i8, ioff, rp)


@inline_kernel
def _play_card(
    r64: np.ndarray,
    r32: np.ndarray,
    r8: np.ndarray,
    soff: np.ndarray,
    rp: np.ndarray,
    deck: np.ndarray,
    card: int,
    shuffled: np.ndarray,
) -> None:
    """Play ``card`` and mark the cards legal next."""
    k.step_game(r64, r32, r8, soff, rp, deck, card, shuffled)
    r64[soff[k.F_LEGAL]] = k.legal_cards(r64, r8, soff, rp)


@row_kernel
def play_games(
    sdata: np.ndarray,
    soff: np.ndarray,
    rp: np.ndarray,
    deck: np.ndarray,
    agent_at: np.ndarray,
    kinds: np.ndarray,
    knobs: np.ndarray,
    idata: np.ndarray,
    ioff: np.ndarray,
    shuffled: np.ndarray,
    qs: np.ndarray,
    moons: np.ndarray,
    chosen: np.ndarray,
) -> int:
    """Play each game in place to its end (``idata``: one scratch info row; ``shuffled``: scratch
    for dealing); count the QS and moons per hand and seat. Returns -1, or the first game whose
    agent chose an illegal card (``chosen[0]``), left as it stood before that card."""
    s64, s32, s8 = sdata.view(U64), sdata.view(np.int32), sdata.view(np.int8)
    i64, i32, i8 = idata.view(U64)[0], idata.view(np.int32)[0], idata.view(np.int8)[0]
    P, two = rp[k.R_PLAYERS], rp[k.R_DECKS] == 2
    for g in range(sdata.shape[0]):
        r64, r32, r8 = s64[g], s32[g], s8[g]
        while r8[soff[k.F_PHASE]] != k.GAME_OVER:
            card = _seat_card(r64, r32, r8, soff, rp, agent_at[g], kinds, knobs, i64, i32, i8, ioff)
            if not r64[soff[k.F_LEGAL]] & BIT[card]:
                chosen[0] = card
                return g
            _play_card(r64, r32, r8, soff, rp, deck, card, shuffled)
            if r8[soff[k.F_HAND_OVER]]:
                for s in range(P):
                    taken = r64[soff[k.F_LAST_HAND_TAKEN] + s]
                    taken2 = r64[soff[k.F_LAST_HAND_TAKEN2] + s] if two else U64(0)
                    qs[g, s] += (taken & QS_BIT) != 0
                    moons[g, s] += k.shot_the_moon(taken, taken2, two)
    return -1


@row_kernel
def play_games_to_seat(
    sdata: np.ndarray,
    soff: np.ndarray,
    rp: np.ndarray,
    deck: np.ndarray,
    agent_at: np.ndarray,
    kinds: np.ndarray,
    knobs: np.ndarray,
    idata: np.ndarray,
    ioff: np.ndarray,
    shuffled: np.ndarray,
    stop_at: np.ndarray,
    hand_episode: bool,
    mode: int,
    before: np.ndarray,
    paid: np.ndarray,
    pending: np.ndarray,
    ended: np.ndarray,
    chosen: np.ndarray,
) -> int:
    """Play each game in place until seat ``stop_at[g]`` is to act or its episode is over (``ended``),
    adding what each card paid that seat to ``pending`` (``before``: scratch for the row before a card;
    ``paid``: for the seats' rewards). Returns -1, or the first game whose agent chose an illegal
    card (``chosen[0]``), left as it stood before that card."""
    s64, s32, s8 = sdata.view(U64), sdata.view(np.int32), sdata.view(np.int8)
    i64, i32, i8 = idata.view(U64)[0], idata.view(np.int32)[0], idata.view(np.int8)[0]
    b64, b8 = before.view(U64)[0], before.view(np.int8)[0]
    for g in range(sdata.shape[0]):
        r64, r32, r8 = s64[g], s32[g], s8[g]
        while r8[soff[k.F_PHASE]] != k.GAME_OVER and r8[soff[k.F_TO_PLAY]] != stop_at[g]:
            card = _seat_card(r64, r32, r8, soff, rp, agent_at[g], kinds, knobs, i64, i32, i8, ioff)
            if not r64[soff[k.F_LEGAL]] & BIT[card]:
                chosen[0] = card
                return g
            for w in range(len(r64)):  # the row before the card, for its rewards
                b64[w] = r64[w]
            _play_card(r64, r32, r8, soff, rp, deck, card, shuffled)
            game_rewards(b64, b8, r64, r32, r8, soff, rp, mode, paid)
            pending[g] += paid[stop_at[g]]
            if r8[soff[k.F_PHASE]] == k.GAME_OVER or (hand_episode and r8[soff[k.F_HAND_OVER]]):
                ended[g] = True
                break
    return -1
