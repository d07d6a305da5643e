"""The flat observation vector of one seat, made from its information set.

The vector is ``uint8``: card sections are 0/1 bits in card-id order (``index = suit * 13 +
rank - 2``), counts are small integers. Seats are relative to the observer (0 = itself, 1 = its
left, ...). Its layout depends only on the number of players, the JD rule and ``history``;
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
| ``to_target`` | 1 | target score minus the highest total, capped to 0..255 (0 for one-hand games) |
| ``hearts_broken`` | 1 | 1 once hearts are broken |
| ``phase`` | 2 | one-hot: passing, playing |
| ``pass_direction`` | P | one-hot receiver offset of this hand's pass (0 = no pass, 1 = left, ...) |
| ``tricks_played`` | 1 | completed tricks this hand |

``encode(info, layout, out=buffer)`` writes into a reused array. ``encode_packed`` gives the same
information in about a quarter of the bytes (every card row as the 8 bytes of a little-endian
64-bit bitboard, then the other sections; ``layout.packed_size`` bytes, 193 for 4 players):
cheaper to build and to move to a GPU, and ``unpack(packed, layout)`` turns it back into
``encode``'s vectors.

``history=True`` appends ``history`` (H x P x 52: the card each seat played to each completed
trick, H = hand size) and ``history_leaders`` (H x P: one-hot leader of each trick); the games
must then record their history (``core.new_games(..., history=True)``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from hearts_env.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from hearts_env.core import BIT, JD, PASS, PLAY, _raw_points, bits_to_mask, deck_bits
from hearts_env.infoset import InfoSet
from hearts_env.rules import HeartsRules

LAYOUT_VERSION = 2
"""Bumped whenever the layout changes, so saved policies can refuse observations they do not know."""

_CAP = 255
_ROW_BYTES = 8  # a packed card row: one little-endian 64-bit word, bit c = card c

CARD_SECTIONS = ("hand", "played", "trick", "passed", "received", "legal", "unseen", "history")
"""Sections made of 0/1 card rows (52 entries each); the packed form stores them as bits."""


@dataclass(frozen=True)
class ObservationLayout:
    """Named sections of the observation vector for one rules set."""

    rules: HeartsRules
    history: bool = False
    sections: dict[str, tuple[slice, tuple[int, ...]]] = field(init=False, repr=False)
    packed_sections: dict[str, tuple[slice, tuple[int, ...]]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        P, H = self.rules.num_players, self.rules.hand_size
        shapes: dict[str, tuple[int, ...]] = {
            "hand": (NUM_CARDS,),
            "played": (P, NUM_CARDS),
            "trick": (P, NUM_CARDS),
            "passed": (NUM_CARDS,),
            "received": (NUM_CARDS,),
            "legal": (NUM_CARDS,),
            "unseen": (NUM_CARDS,),
            "higher_unseen": (NUM_CARDS,),
            "trick_leader": (P,),
            "voids": (P, NUM_SUITS),
            "points": (P,),
        }
        if self.rules.jack_of_diamonds:
            shapes["jd_taken"] = (P,)
        shapes |= {
            "scores": (P,),
            "to_target": (1,),
            "hearts_broken": (1,),
            "phase": (2,),
            "pass_direction": (P,),
            "tricks_played": (1,),
        }
        if self.history:
            shapes |= {"history": (H, P, NUM_CARDS), "history_leaders": (H, P)}
        sections, start = {}, 0
        for name, shape in shapes.items():
            size = int(np.prod(shape))
            sections[name] = (slice(start, start + size), shape)
            start += size
        object.__setattr__(self, "sections", sections)
        # The packed form: every card row as a 64-bit little-endian word, then the other sections.
        packed, start = {}, self.card_rows * _ROW_BYTES
        for name, shape in shapes.items():
            if name not in CARD_SECTIONS:
                size = int(np.prod(shape))
                packed[name] = (slice(start, start + size), shape)
                start += size
        object.__setattr__(self, "packed_sections", packed)

    @property
    def size(self) -> int:
        return max(s.stop for s, _ in self.sections.values())

    @property
    def card_rows(self) -> int:
        """How many 52-card rows the card sections hold."""
        return sum(int(np.prod(shape[:-1])) for name, (_, shape) in self.sections.items() if name in CARD_SECTIONS)

    @property
    def packed_size(self) -> int:
        """Bytes of one packed observation (``encode_packed``)."""
        return self.card_rows * _ROW_BYTES + sum(s.stop - s.start for s, _ in self.packed_sections.values())

    def scale(self) -> np.ndarray:
        """(size,) float32 multipliers that bring the counts near 0..1 for a network's input (bits
        keep 1): points by 26, scores and ``to_target`` by the target score (100 for one-hand
        games), ``tricks_played`` by the hand size, ``higher_unseen`` by 12."""
        scale = np.ones(self.size, np.float32)
        view = self.split(scale)
        view["points"][:] = 1 / 26
        view["scores"][:] = view["to_target"][:] = 1 / (self.rules.target_score or 100)
        view["tricks_played"][:] = 1 / self.rules.hand_size
        view["higher_unseen"][:] = 1 / 12
        return scale

    def split(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """The named sections of observations (..., size), each reshaped to (..., *section shape)."""
        return _split(observation, self.sections)


def encode(info: InfoSet, layout: ObservationLayout, out: np.ndarray | None = None) -> np.ndarray:
    """(B, layout.size) uint8 observations of the information sets, written into ``out`` if given
    (a reused buffer saves allocating, and page-faulting, megabytes at every step of a big batch)."""
    out = _output(out, len(info.seat), layout.size)
    view = layout.split(out)
    # Section by section: one unpack of every card row would make a multi-megabyte temporary,
    # and fresh pages of that size fault on every call.
    boards = _card_boards(info, layout)
    for name, bits in boards.items():
        view[name][:] = bits_to_mask(bits)
    _write_counts(info, layout, view, boards["unseen"])
    return out


def encode_packed(info: InfoSet, layout: ObservationLayout, out: np.ndarray | None = None) -> np.ndarray:
    """(B, layout.packed_size) uint8: the observations with every card row packed into the 8 bytes
    of a little-endian 64-bit word (bit c = entry c; ``packed[:, :8 * layout.card_rows].view("<u8")``
    reads them as bitboards), then the other sections' bytes in layout order. About a quarter of
    ``encode``'s bytes; ``unpack`` gives back ``encode``'s vectors."""
    B, rows = len(info.seat), layout.card_rows
    out = _output(out, B, layout.packed_size)
    boards = _card_boards(info, layout)
    words = out[:, : rows * _ROW_BYTES].view("<u8")  # (B, rows): the card rows of the buffer as words
    start = 0
    for bits in boards.values():
        n = bits[0].size
        words[:, start : start + n] = bits.reshape(B, n)
        start += n
    _write_counts(info, layout, _split(out, layout.packed_sections), boards["unseen"])
    return out


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
    for name, part in _split(packed, layout.packed_sections).items():
        view[name][:] = part
    return out


def _output(out: np.ndarray | None, batch: int, size: int) -> np.ndarray:
    if out is None:
        return np.empty((batch, size), np.uint8)
    if out.shape != (batch, size) or out.dtype != np.uint8 or not out.flags.c_contiguous:
        raise ValueError(
            f"out must be a C-contiguous uint8 array of shape {(batch, size)}, got {out.dtype} {out.shape}"
        )
    return out


def _split(vectors: np.ndarray, sections: dict[str, tuple[slice, tuple[int, ...]]]) -> dict[str, np.ndarray]:
    lead = vectors.shape[:-1]
    return {name: vectors[..., s].reshape(*lead, *shape) for name, (s, shape) in sections.items()}


def _card_boards(info: InfoSet, layout: ObservationLayout) -> dict[str, np.ndarray]:
    """The bitboards of the card sections, in layout order, each shaped like its section's rows."""
    in_trick = np.where(info.trick >= 0, BIT.take(np.maximum(info.trick, 0)), np.uint64(0))
    in_hand = info.hand | np.where(info.phase == PASS, info.passed, np.uint64(0))  # picks not yet passed
    unseen = deck_bits(info.rules.num_players) & ~in_hand & ~np.bitwise_or.reduce(info.played, axis=1)
    boards = {
        "hand": info.hand,
        "played": info.played,
        "trick": in_trick,
        "passed": info.passed,
        "received": info.received,
        "legal": info.legal,
        "unseen": unseen,
    }
    if layout.history:
        if info.tricks.shape[1] == 0:
            raise ValueError("history=True needs games that record their history: new_games(..., history=True)")
        boards["history"] = np.where(info.tricks >= 0, BIT.take(np.maximum(info.tricks, 0)), np.uint64(0))
    return boards


def _write_counts(info: InfoSet, layout: ObservationLayout, view: dict[str, np.ndarray], unseen: np.ndarray) -> None:
    """Every section that is not a card row, into ``view`` (a split of the vector or the packed form)."""
    B, P = len(info.seat), info.rules.num_players
    suits = (unseen[:, None] >> _SUIT_SHIFTS) & np.uint64(0x1FFF)
    view["higher_unseen"][:] = _HIGHER_IN_SUIT.take(suits, axis=0).reshape(B, NUM_CARDS)
    view["trick_leader"][:] = _one_hot_rows(P)[info.trick_leader]
    view["voids"][:] = _VOID_ROWS.take(info.voids, axis=0)
    view["points"][:] = _raw_points(info.taken)
    if info.rules.jack_of_diamonds:
        view["jd_taken"][:] = (info.taken >> np.uint64(JD)) & np.uint64(1)
    view["scores"][:] = np.minimum(info.scores - info.scores.min(axis=1, keepdims=True), _CAP)
    target = info.rules.target_score
    view["to_target"][:, 0] = 0 if target is None else np.clip(target - info.scores.max(axis=1), 0, _CAP)
    view["hearts_broken"][:, 0] = info.hearts_broken
    view["phase"][:, 0] = info.phase == PASS
    view["phase"][:, 1] = info.phase == PLAY
    view["pass_direction"][:] = _one_hot_rows(P)[info.pass_offset]
    view["tricks_played"][:, 0] = info.tricks_played
    if layout.history:
        view["history_leaders"][:] = _one_hot_rows(P)[info.trick_leaders]


_SUIT_SHIFTS = np.arange(NUM_SUITS, dtype=np.uint64) * np.uint64(NUM_RANKS)
# _HIGHER_IN_SUIT[pattern, r]: how many ranks above r the 13-bit suit pattern holds.
_PATTERNS = np.arange(1 << NUM_RANKS)
_HIGHER_IN_SUIT = np.stack([np.bitwise_count(_PATTERNS >> (r + 1)) for r in range(NUM_RANKS)], axis=1).astype(np.uint8)
_VOID_ROWS = ((np.arange(16)[:, None] >> np.arange(NUM_SUITS)) & 1).astype(np.uint8)  # 4-bit void set -> 4 flags


@functools.cache
def _one_hot_rows(n: int) -> np.ndarray:
    """(n + 1, n) uint8: row i one-hot for i < n; the last row (index -1) all zero."""
    return np.vstack([np.eye(n, dtype=np.uint8), np.zeros((1, n), np.uint8)])
