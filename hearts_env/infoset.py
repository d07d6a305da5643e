"""What one seat may know, as batched arrays (an information set).

Everything here is visible to the observer at the table: its own hand, what it passed and
received, every card played and by whom, the current trick, points taken, game totals and the
suits each seat is known to be void in. Nothing hidden goes in, so agents and observation
encoders that read only an ``InfoSet`` cannot cheat.

Seats are relative to the observer: 0 = itself, 1 = its left, ..., P - 1 = its right.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np

from hearts_env.core import _SUIT_FLAG, BIT, PASS, SUIT_BITS, SUIT_OF, State, _rows
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

    def __getitem__(self, index: slice | np.ndarray) -> InfoSet:
        """The info sets of the games at ``index`` (a batch)."""
        return dataclasses.replace(self, **{f: getattr(self, f)[index] for f in _INFO_ARRAYS})


_INFO_ARRAYS = tuple(f.name for f in dataclasses.fields(InfoSet) if f.name != "rules")


def infoset(state: State, seat: np.ndarray | int | None = None) -> InfoSet:
    """The information set of ``seat`` (B,) in every game; default: the seat to act."""
    B, P = state.batch_size, state.num_players
    if seat is None:
        seat = np.maximum(state.to_play, 0)  # games over: observe from seat 0
    else:
        seat = np.broadcast_to(np.asarray(seat), (B,))
        if seat.min() < 0 or seat.max() >= P:
            raise ValueError(f"seat must be in 0..{P - 1}, got {seat.min() if seat.min() < 0 else seat.max()}")
    seat = seat.astype(np.int8)
    rows = _rows(B)
    flat = (rows * P)[:, None] + _rotations(P).take(seat, axis=0)  # flat index of relative seat r

    def rel(values: np.ndarray) -> np.ndarray:  # (B, P, ...) by absolute seat -> by relative seat
        return values.reshape(B * P, *values.shape[2:]).take(flat, axis=0)

    def to_rel(absolute: np.ndarray) -> np.ndarray:  # absolute seats -> relative seats, -1 stays -1
        shape = seat.shape + (1,) * (absolute.ndim - 1)
        return np.where(absolute >= 0, (absolute - seat.reshape(shape)) % P, -1).astype(np.int8)

    own = rows * P + seat
    offset = state.pass_offset
    landed = (state.phase != PASS) & (offset != 0)  # the passes have moved
    giver = rows * P + (seat - offset) % P
    trick = rel(state.trick)
    in_trick = np.where(trick >= 0, BIT.take(trick), np.uint64(0))  # -1 reads BIT[-1]; masked
    return InfoSet(
        rules=state.rules,
        seat=seat,
        phase=state.phase,
        to_play=to_rel(state.to_play),
        hand_number=state.hand_number,
        pass_offset=offset,
        hand=state.hands.reshape(-1).take(own),
        legal=np.where(state.to_play == seat, state.legal, np.uint64(0)),
        passed=state.passed.reshape(-1).take(own),
        received=np.where(landed, state.passed.reshape(-1).take(giver), np.uint64(0)),
        played=rel(state.played) | in_trick,
        trick=trick,
        trick_leader=np.where(state.phase == PASS, -1, to_rel(state.leader)).astype(np.int8),
        tricks=rel(state.tricks.transpose(0, 2, 1)).transpose(0, 2, 1),
        trick_leaders=to_rel(state.trick_leaders),
        tricks_played=state.tricks_played,
        hearts_broken=state.hearts_broken,
        voids=rel(state.voids) | _current_voids(state, in_trick),
        taken=rel(state.taken),
        points=rel(state.hand_points),
        scores=rel(state.scores),
    )


@functools.cache
def _rotations(num_players: int) -> np.ndarray:
    """(P, P): row s lists the absolute seats of relative seats 0..P-1 seen from seat s."""
    return (np.arange(num_players)[:, None] + np.arange(num_players)) % num_players


def _current_voids(state: State, in_trick: np.ndarray) -> np.ndarray:
    """(B, P) uint8: the led suit's bit for seats that failed to follow it in the current trick."""
    lead = state.trick.reshape(-1).take(_rows(state.batch_size) * state.num_players + state.leader)
    lead_suit = SUIT_OF.take(lead)  # lead -1 (no card yet) reads a suit; masked by in_trick == 0
    off_suit = (in_trick != 0) & ((in_trick & SUIT_BITS.take(lead_suit)[:, None]) == 0)
    return off_suit * _SUIT_FLAG.take(lead_suit)[:, None]
