"""The global state: the whole table as one flat vector, for critics trained on what no seat sees.

Centralised critics (MAPPO), asymmetric actor-critic and oracle guiding train a value function,
or a teacher, on every hand while the actors see only their observations; this is their input.
Nothing here reaches an actor: the environments hand it out on a separate channel only
(``aec`` ``state()``, TorchRL's ``"state"``, the Gymnasium and vector envs' ``global_state``
option), and the observations stay exactly what ``observation.observe`` makes.

The vector is ``uint8``, built like the observation (card rows as 0/1 bits in card-id order,
counts as small integers), and every section named as one of the observation's means what it
means there, for every seat at once. Seats are relative to ``seat`` (0 = that seat, 1 = its
left, ...); the environments' ``state()`` uses seat 0, so the rows run in table order. With P
players:

| section | size | holds |
|---|---|---|
| ``hands`` | P x 52 | the cards in each seat's hand (its pass picks leave it when picked) |
| ``passed`` | P x 52 | cards each seat picked to pass this hand (in flight until all have picked) |
| ``played`` | P x 52 | cards each seat has played this hand (current trick included) |
| ``trick`` | P x 52 | the card each seat played to the current trick |
| ``trick_leader`` | P | one-hot: seat that leads the current trick (zeros while passing) |
| ``to_play`` | P | one-hot: seat to act (zeros once the game is over) |
| ``points`` | P | hearts and QS points each seat has taken this hand (0..26) |
| ``jd_taken`` | P | one-hot: seat that took the JD (only with ``jack_of_diamonds``) |
| ``scores`` | P | each game total minus the lowest total, capped at 255 |
| ``to_target`` | 1 | target score minus the highest total, capped to 0..255 (a one-hand game shows a game to 100) |
| ``hearts_broken`` | 1 | 1 once hearts are broken |
| ``phase`` | 2 | one-hot: passing, playing (zeros once the game is over) |
| ``pass_direction`` | P | one-hot receiver offset of this hand's pass (0 = no pass, 1 = left, ...) |
| ``tricks_played`` | 1 | completed tricks this hand |

With two decks (Cancellation Hearts) the card rows hold the cards present at least once, and
these sections add the second copies, the kitty and the pot:

| section | size | holds |
|---|---|---|
| ``hands2`` | P x 52 | cards each seat holds twice (after ``hands``) |
| ``passed2`` | P x 52 | cards each seat picked twice (after ``passed``) |
| ``played2`` | P x 52 | cards each seat has played twice this hand (after ``played``) |
| ``kitty``, ``kitty2`` | 52 each | the face-down kitty's cards, once and twice (after ``trick``; empty once taken) |
| ``pot``, ``pot2`` | 52 each | the tricks without a winner on the table, once and twice |

and ``points`` run to 52 and ``jd_taken`` counts the JDs each seat took (0..2).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from hearts_env.engine import kernels as k
from hearts_env.engine.cards import BIT, JD_BIT, NUM_CARDS
from hearts_env.engine.compiled import row_kernel, store_bits
from hearts_env.engine.core import State
from hearts_env.engine.observation import (
    STANDARD_TARGET,
    game_sections,
    one_hot,
    output_buffer,
    scale_counts,
    seat_array,
    section_table,
    split_sections,
)
from hearts_env.engine.rules import HeartsRules

_CAP = 255


@dataclass(frozen=True)
class GlobalStateLayout:
    """Named sections of the global-state vector for one rules set."""

    rules: HeartsRules
    sections: dict[str, tuple[slice, tuple[int, ...]]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.rules, HeartsRules):
            raise ValueError(f"rules must be a HeartsRules, got {self.rules!r}")
        P, two = self.rules.num_players, self.rules.decks == 2
        rows = (P, NUM_CARDS)
        shapes: dict[str, tuple[int, ...]] = {}
        for name in ("hands", "passed", "played"):
            shapes[name] = rows
            if two:
                shapes[f"{name}2"] = rows
        shapes["trick"] = rows
        if two:
            shapes |= {name: (NUM_CARDS,) for name in ("kitty", "kitty2", "pot", "pot2")}
        shapes |= {"trick_leader": (P,), "to_play": (P,), "points": (P,)}
        shapes |= game_sections(self.rules)
        object.__setattr__(self, "sections", section_table(shapes))

    @functools.cached_property
    def size(self) -> int:
        return max(s.stop for s, _ in self.sections.values())

    @functools.cached_property
    def starts(self) -> np.ndarray:
        """Where each section starts in the vector, -1 if absent (the kernel's table)."""
        starts = np.full(len(SECTIONS), -1, np.int64)
        for name, (where, _) in self.sections.items():
            starts[SECTIONS.index(name)] = where.start
        starts.flags.writeable = False
        return starts

    def scale(self) -> np.ndarray:
        """(size,) float32 multipliers that bring the counts near 0..1 for a network's input, as
        ``ObservationLayout.scale`` does (bits keep 1)."""
        scale = np.ones(self.size, np.float32)
        scale_counts(self.split(scale), self.rules)
        return scale

    def split(self, vectors: np.ndarray) -> dict[str, np.ndarray]:
        """The named sections of vectors (..., size), each reshaped to (..., *section shape)."""
        return split_sections(vectors, self.sections)


def global_state(
    state: State, layout: GlobalStateLayout, seat: np.ndarray | int = 0, out: np.ndarray | None = None
) -> np.ndarray:
    """(B, layout.size) uint8: the global state of each game, seats relative to ``seat`` (an int or
    (B,) ints; 0 = table order), written into ``out`` if given. One compiled pass over the games."""
    if not isinstance(layout, GlobalStateLayout):
        raise ValueError(f"layout must be a GlobalStateLayout, got {layout!r}")
    if (state.num_players, state.decks) != (layout.rules.num_players, layout.rules.decks):
        raise ValueError(
            f"games of {state.num_players} players and {state.decks} deck(s) for a layout of"
            f" {layout.rules.num_players} players and {layout.rules.decks}"
        )
    B = state.data.shape[0]
    out = output_buffer(out, B, layout.size)
    seats = seat_array(seat, B)
    bad = global_rows(state.data, state.layout.offsets, state.params, seats, layout.starts, out)
    if bad >= 0:
        raise ValueError(f"seat must be in 0..{state.num_players - 1}, got {seats[bad]} (game {bad})")
    return out


# --- The kernel --------------------------------------------------------------------------------

SECTIONS = (
    "hands",
    "hands2",
    "passed",
    "passed2",
    "played",
    "played2",
    "trick",
    "kitty",
    "kitty2",
    "pot",
    "pot2",
    "trick_leader",
    "to_play",
    "points",
    "jd_taken",
    "scores",
    "to_target",
    "hearts_broken",
    "phase",
    "pass_direction",
    "tricks_played",
)
(
    G_HANDS,
    G_HANDS2,
    G_PASSED,
    G_PASSED2,
    G_PLAYED,
    G_PLAYED2,
    G_TRICK,
    G_KITTY,
    G_KITTY2,
    G_POT,
    G_POT2,
    G_TRICK_LEADER,
    G_TO_PLAY,
    G_POINTS,
    G_JD_TAKEN,
    G_SCORES,
    G_TO_TARGET,
    G_HEARTS_BROKEN,
    G_PHASE,
    G_PASS_DIRECTION,
    G_TRICKS_PLAYED,
) = range(len(SECTIONS))


@njit(cache=True, inline="always")
def _relative(seat: int, origin: int, P: int) -> int:
    """``seat`` counted from ``origin`` (-1 stays -1)."""
    return -1 if seat < 0 else k.wrap_seat(seat - origin, P)


@row_kernel
def global_rows(
    sdata: np.ndarray,
    soff: np.ndarray,
    rp: np.ndarray,
    seats: np.ndarray,
    st: np.ndarray,
    out: np.ndarray,
) -> int:
    """Write each game's global state; -1, or the first game whose seat is not at the table
    (nothing written then)."""
    P = rp[k.R_PLAYERS]
    two = rp[k.R_DECKS] == 2
    target = rp[k.R_TARGET] if rp[k.R_TARGET] else STANDARD_TARGET  # as the observation reads it
    for g in range(sdata.shape[0]):  # a seat off the table would read outside the game's row
        if seats[g] < 0 or seats[g] >= P:
            return g
    s64, s32, s8 = sdata.view(np.uint64), sdata.view(np.int32), sdata.view(np.int8)
    for g in range(sdata.shape[0]):
        r64, r32, r8, o, seat = s64[g], s32[g], s8[g], out[g], seats[g]
        lowest, highest = r32[soff[k.F_SCORES]], r32[soff[k.F_SCORES]]
        for a in range(P):
            lowest, highest = min(lowest, r32[soff[k.F_SCORES] + a]), max(highest, r32[soff[k.F_SCORES] + a])
        for r in range(P):
            a = k.wrap_seat(seat + r, P)
            card = r8[soff[k.F_TRICK] + a]
            in_trick = BIT[card] if card >= 0 else np.uint64(0)
            row = r * NUM_CARDS
            store_bits(o, st[G_HANDS] + row, r64[soff[k.F_HANDS] + a], NUM_CARDS)
            store_bits(o, st[G_PASSED] + row, r64[soff[k.F_PASSED] + a], NUM_CARDS)
            played = r64[soff[k.F_PLAYED] + a]
            store_bits(o, st[G_PLAYED] + row, played | in_trick, NUM_CARDS)
            store_bits(o, st[G_TRICK] + row, in_trick, NUM_CARDS)
            taken = r64[soff[k.F_TAKEN] + a]
            taken2 = r64[soff[k.F_TAKEN2] + a] if two else np.uint64(0)
            if two:
                store_bits(o, st[G_HANDS2] + row, r64[soff[k.F_HANDS2] + a], NUM_CARDS)
                store_bits(o, st[G_PASSED2] + row, r64[soff[k.F_PASSED2] + a], NUM_CARDS)
                _, played2 = k.add_piles(played, r64[soff[k.F_PLAYED2] + a], in_trick, np.uint64(0))
                store_bits(o, st[G_PLAYED2] + row, played2, NUM_CARDS)
            o[st[G_POINTS] + r] = k.raw_points(taken) + (k.raw_points(taken2) if two else 0)
            if st[G_JD_TAKEN] >= 0:
                o[st[G_JD_TAKEN] + r] = ((taken & JD_BIT) != np.uint64(0)) + ((taken2 & JD_BIT) != np.uint64(0))
            o[st[G_SCORES] + r] = min(r32[soff[k.F_SCORES] + a] - lowest, _CAP)
        if two:
            store_bits(o, st[G_KITTY], r64[soff[k.F_KITTY]], NUM_CARDS)
            store_bits(o, st[G_KITTY2], r64[soff[k.F_KITTY] + 1], NUM_CARDS)
            store_bits(o, st[G_POT], r64[soff[k.F_POT]], NUM_CARDS)
            store_bits(o, st[G_POT2], r64[soff[k.F_POT] + 1], NUM_CARDS)
        phase = r8[soff[k.F_PHASE]]
        leader = -1 if phase == k.PASS else r8[soff[k.F_LEADER]]
        one_hot(o, st[G_TRICK_LEADER], P, _relative(leader, seat, P))
        one_hot(o, st[G_TO_PLAY], P, _relative(r8[soff[k.F_TO_PLAY]], seat, P))
        o[st[G_TO_TARGET]] = max(0, min(target - highest, _CAP))
        o[st[G_HEARTS_BROKEN]] = r8[soff[k.F_HEARTS_BROKEN]]
        o[st[G_PHASE]] = phase == k.PASS
        o[st[G_PHASE] + 1] = phase == k.PLAY
        one_hot(o, st[G_PASS_DIRECTION], P, k.pass_offset(rp, r32[soff[k.F_HAND_NUMBER]]))
        o[st[G_TRICKS_PLAYED]] = r8[soff[k.F_TRICKS_PLAYED]]
    return -1
