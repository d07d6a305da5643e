"""The flat observation vector of one seat, made from its information set.

The vector is ``uint8``: card sections are 0/1 bits in card-id order (``index = suit * 13 +
rank - 2``), counts are small integers. Seats are relative to the observer (0 = itself, 1 = its
left, ...). Its layout depends only on the number of players, the JD rule, the decks and ``history``;
``ObservationLayout.split`` returns the named sections of any vector. The compact layout
(``history=False``), with P players:

| section | size | holds |
|---|---|---|
| ``hand`` | 52 | the observer's cards |
| ``played`` | P x 52 | cards each seat has played this hand (current trick included) |
| ``trick`` | P x 52 | the card each seat played to the current trick |
| ``passed`` | 52 | cards the observer passed this hand |
| ``received`` | 52 | cards passed to the observer this hand (once the passes land) |
| ``legal`` | 52 | the observer's legal cards (all 0 when it is not to act) |
| ``unseen`` | 52 | cards in other hands: not the observer's, not played (its passes count once they land) |
| ``higher_unseen`` | 52 | for every card, how many unseen cards of its suit rank above it (0..12) |
| ``trick_leader`` | P | one-hot: seat that leads the current trick |
| ``voids`` | P x 4 | suits each seat is known to be void in (failed to follow) |
| ``points`` | P | hearts and QS points each seat has taken this hand (0..26) |
| ``jd_taken`` | P | one-hot: seat that took the JD (only with ``jack_of_diamonds``) |
| ``scores`` | P | each game total minus the lowest total, capped at 255 |
| ``to_target`` | 1 | target score minus the highest total, capped to 0..255 (a one-hand game shows a game to 100) |
| ``hearts_broken`` | 1 | 1 once hearts are broken |
| ``phase`` | 2 | one-hot: passing, playing |
| ``pass_direction`` | P | one-hot receiver offset of this hand's pass (0 = no pass, 1 = left, ...) |
| ``tricks_played`` | 1 | completed tricks this hand |

``encode(info, layout, out=buffer)`` writes into a reused array. ``encode_packed`` gives the same
information in about a quarter of the bytes (every card row as the 8 bytes of a little-endian
64-bit bitboard, then the other sections; ``layout.packed_size`` bytes, 193 for 4 players):
cheaper to build and to move to a GPU, and ``unpack(packed, layout)`` turns it back into
``encode``'s vectors.

With two decks (``HeartsRules(decks=2)``, Cancellation Hearts) card rows hold the cards present
at least once, and these sections add the second copies, the pot and the kitty:

| section | size | holds |
|---|---|---|
| ``hand2`` | 52 | cards the observer holds twice (after ``hand``) |
| ``played2`` | P x 52 | cards each seat has played twice this hand (after ``played``) |
| ``passed2``, ``received2`` | 52 each | cards passed, received twice (after ``passed``, ``received``) |
| ``unseen2`` | 52 | cards of which neither copy has been seen (after ``unseen``) |
| ``pot``, ``pot2`` | 52 each | the tricks without a winner on the table, once and twice (after ``higher_unseen``) |
| ``kitty_size`` | 1 | cards face down in the kitty, 0 once taken |

and ``higher_unseen`` counts unseen copies (0..24), ``points`` run to 52 and ``jd_taken`` counts
the JDs each seat took (0..2). The one-deck layout is unchanged.

``trick_outcomes=True`` adds what each legal card does to the current trick, worked out with the
core's trick rule (cancellation included), so a network need not learn it from the trick's rows:

| section | size | holds |
|---|---|---|
| ``takes_now`` | 52 | legal cards after which the observer holds the trick (a lead always does) |
| ``takes_if_cancelled`` | 52 | two decks: the same, should the twin of the card then winning come later |
| ``trick_winner`` | P | one-hot: the seat holding the trick before the observer plays (all 0: none) |

They follow ``legal`` (the card rows) and ``trick_leader``. A twin counts when it is unseen and a
seat still plays after the observer; without one, ``takes_if_cancelled`` is ``takes_now``.

``history=True`` appends ``history`` (H x P x 52: the card each seat played to each completed
trick, H = hand size) and ``history_leaders`` (H x P: one-hot leader of each trick); the games
must then record their history (``core.new_games(..., history=True)``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from hearts_env.engine import checks
from hearts_env.engine import infoset as inf
from hearts_env.engine import kernels as k
from hearts_env.engine.cards import BIT, JD_BIT, NUM_CARDS, NUM_RANKS, NUM_SUITS, SUIT_OF
from hearts_env.engine.compiled import inline_kernel, row_kernel, store, store_bits
from hearts_env.engine.core import State
from hearts_env.engine.infoset import InfoSet, info_layout, infoset_row
from hearts_env.engine.kernels import rule_params
from hearts_env.engine.rules import HeartsRules

LAYOUT_VERSION = 2
"""Bumped whenever the layout changes, so saved policies can refuse observations they do not know."""

STANDARD_TARGET = 100
"""The target a one-hand game's observation shows, so it reads as hand 1 of a standard game."""
_CAP = 255
_ROW_BYTES = 8  # a packed card row: one little-endian 64-bit word, bit c = card c

CARD_SECTIONS = (
    "hand",
    "hand2",
    "played",
    "played2",
    "trick",
    "passed",
    "passed2",
    "received",
    "received2",
    "legal",
    "takes_now",
    "takes_if_cancelled",
    "unseen",
    "unseen2",
    "pot",
    "pot2",
    "history",
)
"""Sections made of 0/1 card rows (52 entries each); the packed form stores them as bits."""


@dataclass(frozen=True)
class ObservationLayout:
    """Named sections of the observation vector for one rules set."""

    rules: HeartsRules
    history: bool = False
    trick_outcomes: bool = False
    sections: dict[str, tuple[slice, tuple[int, ...]]] = field(init=False, repr=False, compare=False)
    packed_sections: dict[str, tuple[slice, tuple[int, ...]]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.rules, HeartsRules):
            raise ValueError(f"rules must be a HeartsRules, got {self.rules!r}")
        checks.flag("history", self.history)
        checks.flag("trick_outcomes", self.trick_outcomes)
        P, H = self.rules.num_players, self.rules.hand_size
        two = self.rules.decks == 2
        shapes: dict[str, tuple[int, ...]] = {"hand": (NUM_CARDS,)}
        if two:
            shapes["hand2"] = (NUM_CARDS,)
        shapes["played"] = (P, NUM_CARDS)
        if two:
            shapes["played2"] = (P, NUM_CARDS)
        shapes |= {"trick": (P, NUM_CARDS), "passed": (NUM_CARDS,)}
        if two:
            shapes["passed2"] = (NUM_CARDS,)
        shapes["received"] = (NUM_CARDS,)
        if two:
            shapes["received2"] = (NUM_CARDS,)
        shapes["legal"] = (NUM_CARDS,)
        if self.trick_outcomes:
            shapes["takes_now"] = (NUM_CARDS,)
            if two:
                shapes["takes_if_cancelled"] = (NUM_CARDS,)
        shapes["unseen"] = (NUM_CARDS,)
        if two:
            shapes["unseen2"] = (NUM_CARDS,)
        shapes["higher_unseen"] = (NUM_CARDS,)
        if two:
            shapes |= {"pot": (NUM_CARDS,), "pot2": (NUM_CARDS,), "kitty_size": (1,)}
        shapes["trick_leader"] = (P,)
        if self.trick_outcomes:
            shapes["trick_winner"] = (P,)
        shapes |= {"voids": (P, NUM_SUITS), "points": (P,)}
        shapes |= game_sections(self.rules)
        if self.history:
            shapes |= {"history": (H, P, NUM_CARDS), "history_leaders": (H, P)}
        object.__setattr__(self, "sections", section_table(shapes))
        # The packed form: every card row as a 64-bit little-endian word, then the other sections.
        packed, start = {}, self.card_rows * _ROW_BYTES
        for name, shape in shapes.items():
            if name not in CARD_SECTIONS:
                size = int(np.prod(shape))
                packed[name] = (slice(start, start + size), shape)
                start += size
        object.__setattr__(self, "packed_sections", packed)

    @functools.cached_property
    def starts(self) -> np.ndarray:
        """Where each section starts in the vector (the encoder kernel's table)."""
        return _starts(self, packed=False)

    @functools.cached_property
    def packed_starts(self) -> np.ndarray:
        """Where each section starts in the packed form."""
        return _starts(self, packed=True)

    @functools.cached_property
    def size(self) -> int:
        return max(s.stop for s, _ in self.sections.values())

    @property
    def card_rows(self) -> int:
        """How many 52-card rows the card sections hold."""
        return sum(int(np.prod(shape[:-1])) for name, (_, shape) in self.sections.items() if name in CARD_SECTIONS)

    @functools.cached_property
    def packed_size(self) -> int:
        """Bytes of one packed observation (``encode_packed``)."""
        return self.card_rows * _ROW_BYTES + sum(s.stop - s.start for s, _ in self.packed_sections.values())

    def scale(self) -> np.ndarray:
        """(size,) float32 multipliers that bring the counts near 0..1 for a network's input (bits
        keep 1): points by 26, scores and ``to_target`` by the target score (100 for one-hand
        games), ``tricks_played`` by the hand size, ``higher_unseen`` by 12; with two decks
        points by 52, ``higher_unseen`` by 24 and ``kitty_size`` by the kitty's size."""
        scale = np.ones(self.size, np.float32)
        view = self.split(scale)
        scale_counts(view, self.rules)
        view["higher_unseen"][:] = 1 / (12 * self.rules.decks)
        if "kitty_size" in view:
            view["kitty_size"][:] = 1 / max(1, self.rules.kitty_size)
        return scale

    def split(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """The named sections of observations (..., size), each reshaped to (..., *section shape)."""
        return split_sections(observation, self.sections)


def game_sections(rules: HeartsRules) -> dict[str, tuple[int, ...]]:
    """The sections of the game as a whole, the same in the observation and the global state: the JD
    taken (with the JD rule), the scores, the distance to the target, hearts broken, the phase, the
    pass direction and the tricks played."""
    P = rules.num_players
    shapes: dict[str, tuple[int, ...]] = {"jd_taken": (P,)} if rules.jack_of_diamonds else {}
    return shapes | {
        "scores": (P,),
        "to_target": (1,),
        "hearts_broken": (1,),
        "phase": (2,),
        "pass_direction": (P,),
        "tricks_played": (1,),
    }


def section_table(shapes: dict[str, tuple[int, ...]]) -> dict[str, tuple[slice, tuple[int, ...]]]:
    """Each section's place (a slice of the flat vector) and shape, the sections laid end to end in order."""
    sections, start = {}, 0
    for name, shape in shapes.items():
        size = int(np.prod(shape))
        sections[name] = (slice(start, start + size), shape)
        start += size
    return sections


def split_sections(vectors: np.ndarray, sections: dict[str, tuple[slice, tuple[int, ...]]]) -> dict[str, np.ndarray]:
    """The named sections of vectors (..., size), each reshaped to (..., *section shape)."""
    lead = vectors.shape[:-1]
    return {name: vectors[..., s].reshape(*lead, *shape) for name, (s, shape) in sections.items()}


def scale_counts(view: dict[str, np.ndarray], rules: HeartsRules) -> None:
    """Write the multipliers of the counts every table shares into a split vector of ones: points by
    the moon's points, scores and ``to_target`` by the target score (100 for one-hand games),
    ``tricks_played`` by the hand size."""
    view["points"][:] = 1 / rules.moon_points
    view["scores"][:] = view["to_target"][:] = 1 / (rules.target_score or STANDARD_TARGET)
    view["tricks_played"][:] = 1 / rules.hand_size


def encode(info: InfoSet, layout: ObservationLayout, out: np.ndarray | None = None) -> np.ndarray:
    """(B, layout.size) uint8 observations of the information sets, written into ``out`` if given
    (a reused buffer saves allocating, and page-faulting, megabytes at every step of a big batch)."""
    out = output_buffer(out, info.batch_size, layout.size)
    _check_info(info, layout)
    encode_infosets(info.data, info.layout.offsets, _params(layout), layout.starts, False, out)
    return out


def encode_packed(info: InfoSet, layout: ObservationLayout, out: np.ndarray | None = None) -> np.ndarray:
    """(B, layout.packed_size) uint8: the observations with every card row packed into the 8 bytes
    of a little-endian 64-bit word (bit c = entry c; ``packed[:, :8 * layout.card_rows].view("<u8")``
    reads them as bitboards), then the other sections' bytes in layout order. About a quarter of
    ``encode``'s bytes; ``unpack`` gives back ``encode``'s vectors."""
    out = output_buffer(out, info.batch_size, layout.packed_size)
    _check_info(info, layout)
    encode_infosets(info.data, info.layout.offsets, _params(layout), layout.packed_starts, True, out)
    return out


def observe(
    state: State,
    seat: np.ndarray | int,
    layout: ObservationLayout,
    out: np.ndarray | None = None,
    packed: bool = False,
) -> np.ndarray:
    """``encode(infoset(state, seat), layout)`` (or ``encode_packed`` with ``packed``) in one
    compiled pass, without building the info sets: what the environments call every step."""
    B = state.data.shape[0]
    write = observer(state, layout, checks.flag("packed", packed))
    return write(state, seat_array(seat, B), output_buffer(out, B, layout.packed_size if packed else layout.size))


def observer(
    state: State, layout: ObservationLayout, packed: bool = False
) -> Callable[[State, np.ndarray, np.ndarray], np.ndarray]:
    """``observe`` with what it checks and looks up done once, for states of ``state``'s kind (its
    rules and whether it records history): a function of (state, (B,) int64 seats, a (B, size)
    uint8 buffer) that writes the observations into the buffer and returns it. For a caller that
    observes every step of the same games (the AEC env)."""
    _check_rules(state.rules, layout, "states")
    history = state.history
    if layout.history and not history:
        raise ValueError("history=True needs games that record their history: new_games(..., history=True)")
    ilayout = info_layout(state.rules.num_players, state.tricks.shape[1] if history else 0)
    ioff, iwidth, starts = ilayout.offsets, ilayout.width, layout.packed_starts if packed else layout.starts

    def write(state: State, seats: np.ndarray, out: np.ndarray) -> np.ndarray:
        bad = observe_states(state.data, state.layout.offsets, state.params, seats, ioff, iwidth, starts, packed, out)
        if bad >= 0:
            raise ValueError(f"seat must be in 0..{state.num_players - 1}, got {seats[bad]} (game {bad})")
        return out

    return write


def unpack(packed: np.ndarray, layout: ObservationLayout) -> np.ndarray:
    """(..., layout.size) uint8: ``encode``'s vectors from ``encode_packed``'s (..., packed_size)."""
    packed = np.asarray(packed, np.uint8)
    if packed.shape[-1] != layout.packed_size:
        raise ValueError(f"packed observations must have {layout.packed_size} bytes, got shape {packed.shape}")
    lead, rows = packed.shape[:-1], layout.card_rows
    card_bytes = packed[..., : rows * _ROW_BYTES].reshape(*lead, rows, _ROW_BYTES)
    bits = np.unpackbits(card_bytes, axis=-1, count=NUM_CARDS, bitorder="little")
    out = np.empty((*lead, layout.size), np.uint8)
    view, row = layout.split(out), 0
    for name, (_, shape) in layout.sections.items():
        if name in CARD_SECTIONS:
            n = int(np.prod(shape[:-1]))
            view[name][:] = bits[..., row : row + n, :].reshape(view[name].shape)
            row += n
    for name, part in split_sections(packed, layout.packed_sections).items():
        view[name][:] = part
    return out


def seat_array(seat: np.ndarray | int, batch: int) -> np.ndarray:
    """(batch,) int64 seats from an int or (batch,) ints (the kernels check their range)."""
    if type(seat) is np.ndarray and seat.dtype == np.int64 and seat.shape == (batch,):
        return seat  # the environments' fast path
    if type(seat) is int:
        return np.full(batch, seat, np.int64)
    given = np.asarray(seat)
    if given.dtype.kind not in "iu" or given.shape not in ((), (batch,)):
        raise ValueError(f"seat must be an int or ({batch},) ints, got {given.dtype} {given.shape}")
    return np.ascontiguousarray(np.broadcast_to(given.astype(np.int64), (batch,)))


def output_buffer(out: np.ndarray | None, batch: int, size: int) -> np.ndarray:
    """``out`` checked to be a C-contiguous (batch, size) uint8 buffer, or a new one."""
    if out is None:
        return np.empty((batch, size), np.uint8)
    if out.shape != (batch, size) or out.dtype != np.uint8 or not out.flags.c_contiguous:
        raise ValueError(
            f"out must be a C-contiguous uint8 array of shape {(batch, size)}, got {out.dtype} {out.shape}"
        )
    return out


def _check_rules(rules: HeartsRules, layout: ObservationLayout, what: str) -> None:
    """The layout is one of these rules' tables: the same players and decks (what its rows hold)."""
    if not isinstance(layout, ObservationLayout):
        raise ValueError(f"layout must be an ObservationLayout, got {layout!r}")
    if rules.num_players != layout.rules.num_players:
        raise ValueError(f"{what} of {rules.num_players} players for a {layout.rules.num_players}-player layout")
    if rules.decks != layout.rules.decks:
        raise ValueError(f"{what} of {rules.decks} deck(s) for a layout of {layout.rules.decks}")


def _check_info(info: InfoSet, layout: ObservationLayout) -> None:
    _check_rules(info.rules, layout, "info sets")
    if layout.history and info.tricks.shape[1] == 0:
        raise ValueError("history=True needs games that record their history: new_games(..., history=True)")


# --- The encoder kernel ------------------------------------------------------------------------

SECTIONS = (
    "hand",
    "played",
    "trick",
    "passed",
    "received",
    "legal",
    "unseen",
    "higher_unseen",
    "takes_now",
    "takes_if_cancelled",
    "trick_winner",
    "hand2",
    "played2",
    "passed2",
    "received2",
    "unseen2",
    "pot",
    "pot2",
    "kitty_size",
    "trick_leader",
    "voids",
    "points",
    "jd_taken",
    "scores",
    "to_target",
    "hearts_broken",
    "phase",
    "pass_direction",
    "tricks_played",
    "history",
    "history_leaders",
)
(
    S_HAND,
    S_PLAYED,
    S_TRICK,
    S_PASSED,
    S_RECEIVED,
    S_LEGAL,
    S_UNSEEN,
    S_HIGHER_UNSEEN,
    S_TAKES_NOW,
    S_TAKES_IF_CANCELLED,
    S_TRICK_WINNER,
    S_HAND2,
    S_PLAYED2,
    S_PASSED2,
    S_RECEIVED2,
    S_UNSEEN2,
    S_POT,
    S_POT2,
    S_KITTY_SIZE,
    S_TRICK_LEADER,
    S_VOIDS,
    S_POINTS,
    S_JD_TAKEN,
    S_SCORES,
    S_TO_TARGET,
    S_HEARTS_BROKEN,
    S_PHASE,
    S_PASS_DIRECTION,
    S_TRICKS_PLAYED,
    S_HISTORY,
    S_HISTORY_LEADERS,
) = range(len(SECTIONS))


def _starts(layout: ObservationLayout, packed: bool) -> np.ndarray:
    """Where each section starts in the vector (-1 if absent). Packed: card sections start at
    their first word's byte, the rest at their packed offsets."""
    starts = np.full(len(SECTIONS), -1, np.int64)
    row = 0
    for name, (where, shape) in layout.sections.items():
        if packed and name in CARD_SECTIONS:
            starts[SECTIONS.index(name)] = row * _ROW_BYTES
            row += int(np.prod(shape[:-1]))
        elif packed:
            starts[SECTIONS.index(name)] = layout.packed_sections[name][0].start
        else:
            starts[SECTIONS.index(name)] = where.start
    starts.flags.writeable = False
    return starts


def _params(layout: ObservationLayout) -> np.ndarray:
    return rule_params(layout.rules, layout.history)


# SPREAD[b]: the eight bits of byte b as eight 0/1 bytes (little-endian), for running counts.
SPREAD = np.array([sum(((b >> i) & 1) << (8 * i) for i in range(8)) for b in range(256)], np.uint64)
_EVERY_BYTE = np.uint64(0x0101010101010101)


@njit(cache=True, inline="always")
def _cards(out: np.ndarray, start: int, bits: np.uint64, packed: bool) -> None:
    """One card row: 52 bits as 0/1 bytes, or one little-endian word when packed."""
    if packed:
        store(out, start, bits)
    else:
        store_bits(out, start, bits, NUM_CARDS)


@njit(cache=True, inline="always")
def _higher_unseen(out: np.ndarray, start: int, unseen: np.uint64, unseen2: np.uint64) -> None:
    """For each card of one suit (the low 13 bits of ``unseen``, ``unseen2``: its unseen cards and
    second copies), how many unseen copies rank above it, at ``out[start:start + 13]``. Eight cards
    at a time: the cards as 0/1 bytes, times 0x0101...01, are the running counts from the deuce up
    (a loop over the cards, each count waiting for the last, made an observation 8% slower)."""
    low = SPREAD[unseen & np.uint64(0xFF)] + SPREAD[unseen2 & np.uint64(0xFF)]  # cards 2..9: 0, 1 or 2 copies
    high = SPREAD[(unseen >> np.uint64(8)) & np.uint64(0x1F)] + SPREAD[(unseen2 >> np.uint64(8)) & np.uint64(0x1F)]
    upto_low = low * _EVERY_BYTE  # byte i: the copies of cards 0..i (at most 26: no byte carries)
    upto_high = high * _EVERY_BYTE + (upto_low >> np.uint64(56)) * _EVERY_BYTE
    total = ((upto_high >> np.uint64(32)) & np.uint64(0xFF)) * _EVERY_BYTE  # every byte: the suit's count
    above_low, above_high = total - upto_low, total - upto_high  # above = total - up to and including
    store(out, start, above_low)
    # cards 5..12 in one overlapping word: the top three bytes of the low word, the five of the high
    store(out, start + NUM_RANKS - 8, (above_low >> np.uint64(40)) | (above_high << np.uint64(24)))


@njit(cache=True, inline="always")
def _trick_outcomes(
    i8: np.ndarray, o_trick: int, leader: int, P: int, legal: np.uint64, unseen: np.uint64, two: bool
) -> tuple[np.uint64, np.uint64, int]:
    """The ``takes_now`` and ``takes_if_cancelled`` bits of the ``legal`` cards and the seat holding
    the trick (-1 if none), from the trick's cards by relative seat. One deck has no twins, so
    ``uncancelled_winner`` (nothing played twice) is the plain highest card of the led suit."""
    once, twice, size = np.uint64(0), np.uint64(0), 0
    for r in range(P):
        card = i8[o_trick + r]
        if card >= 0:
            once, twice = k.add_piles(once, twice, BIT[card], np.uint64(0))
            size += 1
    if size == 0 or leader < 0:  # a lead holds the trick until a later card takes it or cancels it
        return legal, legal & ~unseen if two else legal, -1
    led = SUIT_OF[i8[o_trick + leader]]
    best = k.uncancelled_winner(once, twice, led)
    winner = -1
    for r in range(P):
        if best >= 0 and i8[o_trick + r] == best:
            winner = r
    later = size < P - 1  # a seat still plays after the observer
    now, if_cancelled = np.uint64(0), np.uint64(0)
    bits = legal
    while bits:
        c = k.low_card(bits)
        bits &= bits - np.uint64(1)
        once2, twice2 = k.add_piles(once, twice, BIT[c], np.uint64(0))
        w = k.uncancelled_winner(once2, twice2, led)
        if w == c:
            now |= BIT[c]
        if two and later and w >= 0 and unseen & BIT[w]:  # the twin of the winning card may still come
            once2, twice2 = k.add_piles(once2, twice2, BIT[w], np.uint64(0))
            w = k.uncancelled_winner(once2, twice2, led)
        if w == c:
            if_cancelled |= BIT[c]
    return now, if_cancelled, winner


@njit(cache=True, inline="always")
def one_hot(out: np.ndarray, start: int, size: int, index: int) -> None:
    for i in range(size):
        out[start + i] = 0
    if index >= 0:
        out[start + index] = 1


@inline_kernel
def encode_row(
    i64: np.ndarray,
    i32: np.ndarray,
    i8: np.ndarray,
    ioff: np.ndarray,
    rp: np.ndarray,
    st: np.ndarray,
    packed: bool,
    out: np.ndarray,
) -> None:
    """The observation of one info row (as 64-, 32- and 8-bit views) into ``out`` (one vector)."""
    P, H = rp[k.R_PLAYERS], rp[k.R_HISTORY]
    # Section starts and field offsets as locals: numba cannot tell that a store to ``out`` leaves
    # ``st`` and ``ioff`` alone, and would read them again after every store.
    s_played, s_trick, s_higher, s_voids = st[S_PLAYED], st[S_TRICK], st[S_HIGHER_UNSEEN], st[S_VOIDS]
    s_points, s_jd, s_scores = st[S_POINTS], st[S_JD_TAKEN], st[S_SCORES]
    o_played, o_trick, o_voids, o_scores = ioff[inf.I_PLAYED], ioff[inf.I_TRICK], ioff[inf.I_VOIDS], ioff[inf.I_SCORES]
    o_taken, o_taken2 = ioff[inf.I_TAKEN], ioff[inf.I_TAKEN2]
    row = NUM_CARDS if not packed else _ROW_BYTES  # entries of one card row
    _cards(out, st[S_HAND], i64[ioff[inf.I_HAND]], packed)
    for r in range(P):
        _cards(out, s_played + r * row, i64[o_played + r], packed)
        card = i8[o_trick + r]
        _cards(out, s_trick + r * row, BIT[card] if card >= 0 else np.uint64(0), packed)
    _cards(out, st[S_PASSED], i64[ioff[inf.I_PASSED]], packed)
    _cards(out, st[S_RECEIVED], i64[ioff[inf.I_RECEIVED]], packed)
    _cards(out, st[S_LEGAL], i64[ioff[inf.I_LEGAL]], packed)
    unseen = i64[ioff[inf.I_UNSEEN]]
    _cards(out, st[S_UNSEEN], unseen, packed)
    two = st[S_HAND2] >= 0
    unseen2 = i64[ioff[inf.I_UNSEEN2]] if two else np.uint64(0)
    for suit in range(NUM_SUITS):
        shift = np.uint64(suit * NUM_RANKS)
        _higher_unseen(out, s_higher + suit * NUM_RANKS, unseen >> shift, unseen2 >> shift)
    if two:  # the sections of two decks
        _cards(out, st[S_HAND2], i64[ioff[inf.I_HAND2]], packed)
        for r in range(P):
            _cards(out, st[S_PLAYED2] + r * row, i64[ioff[inf.I_PLAYED2] + r], packed)
        _cards(out, st[S_PASSED2], i64[ioff[inf.I_PASSED2]], packed)
        _cards(out, st[S_RECEIVED2], i64[ioff[inf.I_RECEIVED2]], packed)
        _cards(out, st[S_UNSEEN2], unseen2, packed)
        _cards(out, st[S_POT], i64[ioff[inf.I_POT]], packed)
        _cards(out, st[S_POT2], i64[ioff[inf.I_POT2]], packed)
        out[st[S_KITTY_SIZE]] = i8[ioff[inf.I_KITTY_SIZE]]
    one_hot(out, st[S_TRICK_LEADER], P, i8[ioff[inf.I_TRICK_LEADER]])
    if st[S_TAKES_NOW] >= 0:
        legal = i64[ioff[inf.I_LEGAL]] if i8[ioff[inf.I_PHASE]] == k.PLAY else np.uint64(0)
        leader = i8[ioff[inf.I_TRICK_LEADER]]
        now, if_cancelled, winner = _trick_outcomes(i8, ioff[inf.I_TRICK], leader, P, legal, unseen, two)
        _cards(out, st[S_TAKES_NOW], now, packed)
        if two:
            _cards(out, st[S_TAKES_IF_CANCELLED], if_cancelled, packed)
        one_hot(out, st[S_TRICK_WINNER], P, winner)
    lowest, highest = i32[o_scores], i32[o_scores]
    for r in range(P):
        score = i32[o_scores + r]
        lowest, highest = min(lowest, score), max(highest, score)
    for r in range(P):
        store_bits(out, s_voids + r * NUM_SUITS, i8[o_voids + r], NUM_SUITS)
        taken = i64[o_taken + r]
        taken2 = i64[o_taken2 + r]  # zero with one deck
        out[s_points + r] = k.raw_points(taken) + (k.raw_points(taken2) if two else 0)
        if s_jd >= 0:
            out[s_jd + r] = ((taken & JD_BIT) != np.uint64(0)) + ((taken2 & JD_BIT) != np.uint64(0))
        out[s_scores + r] = min(i32[o_scores + r] - lowest, _CAP)
    # A one-hand game reads as the first hand of a game to the standard target.
    target = rp[k.R_TARGET] if rp[k.R_TARGET] else STANDARD_TARGET
    out[st[S_TO_TARGET]] = max(0, min(target - highest, _CAP))
    out[st[S_HEARTS_BROKEN]] = i8[ioff[inf.I_HEARTS_BROKEN]]
    phase = i8[ioff[inf.I_PHASE]]
    s_phase = st[S_PHASE]
    out[s_phase] = phase == k.PASS
    out[s_phase + 1] = phase == k.PLAY
    one_hot(out, st[S_PASS_DIRECTION], P, i8[ioff[inf.I_PASS_OFFSET]])
    out[st[S_TRICKS_PLAYED]] = i8[ioff[inf.I_TRICKS_PLAYED]]
    if st[S_HISTORY] >= 0:
        for h in range(H):
            for r in range(P):
                card = i8[ioff[inf.I_TRICKS] + h * P + r]
                _cards(out, st[S_HISTORY] + (h * P + r) * row, BIT[card] if card >= 0 else np.uint64(0), packed)
            one_hot(out, st[S_HISTORY_LEADERS] + h * P, P, i8[ioff[inf.I_TRICK_LEADERS] + h])


@row_kernel
def encode_infosets(
    idata: np.ndarray, ioff: np.ndarray, rp: np.ndarray, st: np.ndarray, packed: bool, out: np.ndarray
) -> None:
    i64, i32, i8 = idata.view(np.uint64), idata.view(np.int32), idata.view(np.int8)
    for g in range(idata.shape[0]):
        encode_row(i64[g], i32[g], i8[g], ioff, rp, st, packed, out[g])


@njit(cache=True)
def observe_states(
    sdata: np.ndarray,
    soff: np.ndarray,
    rp: np.ndarray,
    seats: np.ndarray,
    ioff: np.ndarray,
    iwidth: int,
    st: np.ndarray,
    packed: bool,
    out: np.ndarray,
) -> int:
    """Write the observations; -1, or the first game whose seat is not at the table (nothing
    written then)."""
    scratch = np.zeros((1, iwidth), np.uint8)  # one info row, rewritten for every game
    return observe_rows(sdata, soff, rp, seats, ioff, scratch, st, packed, out)


@row_kernel
def observe_rows(
    sdata: np.ndarray,
    soff: np.ndarray,
    rp: np.ndarray,
    seats: np.ndarray,
    ioff: np.ndarray,
    scratch: np.ndarray,
    st: np.ndarray,
    packed: bool,
    out: np.ndarray,
) -> int:
    for g in range(sdata.shape[0]):  # a seat off the table would read outside the game's row
        if seats[g] < 0 or seats[g] >= rp[k.R_PLAYERS]:
            return g
    s64, s32, s8 = sdata.view(np.uint64), sdata.view(np.int32), sdata.view(np.int8)
    i64, i32, i8 = scratch.view(np.uint64)[0], scratch.view(np.int32)[0], scratch.view(np.int8)[0]
    for g in range(sdata.shape[0]):
        infoset_row(s64[g], s32[g], s8[g], soff, rp, seats[g], i64, i32, i8, ioff, False)
        encode_row(i64, i32, i8, ioff, rp, st, packed, out[g])
    return -1
