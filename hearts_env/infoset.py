"""What one seat may know, as batched arrays (an information set).

Everything here is visible to the observer at the table: its own hand, what it passed and
received, every card played and by whom, the current trick, points taken, game totals and the
suits each seat is known to be void in. Nothing hidden goes in, so agents and observation
encoders that read only an ``InfoSet`` cannot cheat.

Seats are relative to the observer: 0 = itself, 1 = its left, ..., P - 1 = its right.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hearts_env.core import BIT, PASS, SUIT_OF, State, _rows
from hearts_env.rules import HeartsRules

_NO_CARD = -1


@dataclass(frozen=True)
class InfoSet:
    """B observers, one per game. Bitboards are uint64 (bit c = card id c)."""

    rules: HeartsRules
    seat: np.ndarray  # (B,) int8: the observer's own (absolute) seat
    phase: np.ndarray  # (B,) int8: PASS, PLAY or GAME_OVER
    to_play: np.ndarray  # (B,) int8: relative seat to act (0 = the observer), -1 once the game is over
    hand_number: np.ndarray  # (B,) int32
    pass_offset: np.ndarray  # (B,) int: this hand's pass: receiver = giver + offset (mod P); 0 = none
    hand: np.ndarray  # (B,) uint64: the observer's cards
    legal: np.ndarray  # (B,) uint64: its legal cards when it is to act, else 0
    passed: np.ndarray  # (B,) uint64: cards it picked to pass this hand (so far, during the pass)
    received: np.ndarray  # (B,) uint64: cards passed to it this hand (0 until the passes move)
    played: np.ndarray  # (B, P) uint64: cards each seat has played this hand, current trick included
    trick: np.ndarray  # (B, P) int8: card each seat played to the current trick, -1 if none
    trick_leader: np.ndarray  # (B,) int8: seat that leads the current trick (-1 during the pass)
    tricks: np.ndarray  # (B, hand size, P) int8: card each seat played to each completed trick
    trick_leaders: np.ndarray  # (B, hand size) int8: seat that led each completed trick, -1 if none yet
    tricks_played: np.ndarray  # (B,) int8
    hearts_broken: np.ndarray  # (B,) bool
    voids: np.ndarray  # (B, P) uint8: bit s set if the seat is known void in suit s
    taken: np.ndarray  # (B, P) uint64: cards each seat has taken in tricks this hand
    points: np.ndarray  # (B, P) int32: points each seat has taken this hand (JD rule included)
    scores: np.ndarray  # (B, P) int32: game totals

    @property
    def num_players(self) -> int:
        return self.rules.num_players


def infoset(state: State, seat: np.ndarray | int | None = None) -> InfoSet:
    """The information set of ``seat`` (B,) in every game; default: the seat to act."""
    B, P = state.batch_size, state.num_players
    seat = state.to_play if seat is None else np.broadcast_to(np.asarray(seat, dtype=np.int8), (B,))
    seat = np.where(seat < 0, 0, seat).astype(np.int8)  # games over: observe from seat 0
    # order[b, r]: absolute seat of relative seat r; to_rel maps absolute seats back.
    order = (seat[:, None] + np.arange(P)) % P
    flat = _rows(B)[:, None] * P + order

    def rel(values: np.ndarray) -> np.ndarray:  # (B, P) absolute -> relative
        return values.reshape(B * P, *values.shape[2:])[flat]

    def to_rel(absolute: np.ndarray) -> np.ndarray:  # seats -> relative seats, -1 stays -1
        return np.where(absolute >= 0, (absolute - seat.reshape(seat.shape + (1,) * (absolute.ndim - 1))) % P, -1)

    own = _rows(B) * P + seat
    offset = state.pass_offset
    moved = (state.phase != PASS) & (offset != 0)  # the passes have landed
    giver = _rows(B) * P + (seat - offset) % P
    received = np.where(moved, state.passed.reshape(-1).take(giver), np.uint64(0))
    trick = rel(state.trick)
    in_trick = np.where(trick >= 0, BIT.take(np.maximum(trick, 0)), np.uint64(0))
    return InfoSet(
        rules=state.rules,
        seat=seat,
        phase=state.phase,
        to_play=to_rel(state.to_play).astype(np.int8),
        hand_number=state.hand_number,
        pass_offset=offset,
        hand=state.hands.reshape(-1).take(own),
        legal=np.where(state.to_play == seat, state.legal, np.uint64(0)),
        passed=state.passed.reshape(-1).take(own),
        received=received,
        played=rel(state.played) | in_trick,
        trick=trick,
        trick_leader=np.where(state.phase == PASS, -1, to_rel(state.leader)).astype(np.int8),
        tricks=np.take_along_axis(state.tricks, order[:, None, :], axis=2),
        trick_leaders=to_rel(state.trick_leaders).astype(np.int8),
        tricks_played=state.tricks_played,
        hearts_broken=state.hearts_broken,
        voids=rel(state.voids) | _current_voids(state, trick),
        taken=rel(state.taken),
        points=rel(state.hand_points),
        scores=rel(state.scores),
    )


def _current_voids(state: State, trick: np.ndarray) -> np.ndarray:
    """(B, P) uint8: suits seats failed to follow in the current trick (``trick`` is relative)."""
    lead = state.trick.reshape(-1).take(_rows(state.batch_size) * state.num_players + state.leader)
    lead_suit = np.where(lead >= 0, SUIT_OF.take(np.maximum(lead, 0)), 0)
    off_suit = (trick >= 0) & (SUIT_OF.take(np.maximum(trick, 0)) != lead_suit[:, None]) & (lead >= 0)[:, None]
    return (off_suit * (1 << lead_suit)[:, None]).astype(np.uint8)
