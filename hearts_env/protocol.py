"""The Hearts bot protocol, version 1, as text: the lines a table manager and a bot exchange
(``docs/bot-protocol.md`` is the specification; this module is its reference encoder and decoder).

Both sides use it: ``hearts_env.agents.program`` (an agent that runs a bot program) writes the
hello, table lines, decisions, events and the batch's ``go`` and reads answers;
``hearts_env.agents.protocol_bot`` (this project's agents served as a bot) reads decisions back
into the very ``InfoSet`` they were written from and writes answers. A decision line is the whole
information set of the seat to act (``hearts_env.infoset``: nothing hidden), in absolute seats;
events are what the table showed since (``step_events``, from the runner's ``Step``).

Decision lines are written and read by compiled kernels (a batch of thousands in one call), so a
bot that answers at once costs a few microseconds a decision.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from hearts_env import kernels as k
from hearts_env.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS, RANK_CHARS, SUIT_CHARS, card_name, parse_card
from hearts_env.compiled import inline_kernel, row_kernel
from hearts_env.infoset import (
    I_HAND,
    I_HAND2,
    I_HAND_NUMBER,
    I_HEARTS_BROKEN,
    I_KITTY_SIZE,
    I_LEGAL,
    I_PASS_OFFSET,
    I_PASSED,
    I_PASSED2,
    I_PHASE,
    I_PLAYED,
    I_PLAYED2,
    I_POINTS,
    I_POT,
    I_POT2,
    I_RECEIVED,
    I_RECEIVED2,
    I_SCORES,
    I_SEAT,
    I_TAKEN,
    I_TAKEN2,
    I_TO_PLAY,
    I_TRICK,
    I_TRICK_LEADER,
    I_TRICK_LEADERS,
    I_TRICK_WINNER,
    I_TRICKS,
    I_TRICKS_PLAYED,
    I_UNSEEN,
    I_UNSEEN2,
    I_VOIDS,
    InfoSet,
    info_layout,
)
from hearts_env.rules import HeartsRules

if TYPE_CHECKING:
    from hearts_env.runner import Step

PROTOCOL = "hearts-bot-protocol"
VERSION = 1
HELLO = f"{PROTOCOL} {VERSION}"
"""The manager's first line; the bot answers ``HELLO name=NAME tables=many`` (or ``tables=one``)."""

# The fixed text of a decision line, in the order it is written (``decision_lines``).
PIECES = (
    "pass ",
    "play ",
    " seat=",
    " hand_number=",
    " pass=",
    " hand=",
    " legal=",
    " passed=",
    " received=",
    " unseen=",
    " played=",
    " trick=",
    " leader=",
    " winner=",
    " tricks_played=",
    " hearts_broken=",
    " voids=",
    " taken=",
    " points=",
    " scores=",
    " tricks=",
    " pot=",
    " kitty=",
    "none",
    "left",
    "right",
    "across",
    "card ",
    "trick ",
    "hand ",
    " points=",
    " scores=",
    "end ",
)
(
    _PASS,
    _PLAY,
    _SEAT,
    _HAND_NUMBER,
    _DIRECTION,
    _HAND,
    _LEGAL,
    _PASSED,
    _RECEIVED,
    _UNSEEN,
    _PLAYED,
    _TRICK,
    _LEADER,
    _WINNER,
    _TRICKS_PLAYED,
    _HEARTS_BROKEN,
    _VOIDS,
    _TAKEN,
    _POINTS,
    _SCORES,
    _TRICKS,
    _POT,
    _KITTY,
    _NONE,
    _LEFT,
    _RIGHT,
    _ACROSS,
    _CARD_EVENT,
    _TRICK_EVENT,
    _HAND_EVENT,
    _POINTS_EVENT,
    _SCORES_EVENT,
    _END_EVENT,
) = range(len(PIECES))
FIELD_NAMES = tuple(p.strip(" =") for p in PIECES[_SEAT : _KITTY + 1])
"""The fields of a decision line, in order (``tricks`` only at tables with ``history=1``, ``pot``
and ``kitty`` only with two decks)."""

_TEXT = np.frombuffer("".join(PIECES).encode(), np.uint8)
_STARTS = np.cumsum([0] + [len(p) for p in PIECES]).astype(np.int64)
_NAMES = np.frombuffer("".join(card_name(c) for c in range(NUM_CARDS)).encode(), np.uint8).reshape(NUM_CARDS, 2)
_RANK_OF = np.full(256, -1, np.int8)  # byte -> rank index 0..12 (either case), else -1
_SUIT_OF = np.full(256, -1, np.int8)  # byte -> suit 0..3 (either case), else -1
for _i, _c in enumerate(RANK_CHARS):
    _RANK_OF[ord(_c)] = _RANK_OF[ord(_c.lower())] = _i
for _i, _c in enumerate(SUIT_CHARS):
    _SUIT_OF[ord(_c)] = _SUIT_OF[ord(_c.lower())] = _i
_LOW_BIT = np.array([(b & -b).bit_length() - 1 for b in range(256)], np.int64)  # lowest set bit of a byte
_DASH, _COMMA, _SLASH, _COLON, _SEMI, _SPACE, _NL = (ord(c) for c in "-,/:; \n")
_BAD = np.int64(-1 << 62)  # an int that could not be read


def _line_bound(num_players: int, history: int) -> int:
    """Bytes a decision line can take at most (every pile a full double deck)."""
    pile = 3 * 2 * NUM_CARDS + 1
    return 512 + (2 + 2 * num_players) * pile + num_players * 40 + history * (4 + 4 * num_players)


_SUIT_LETTERS = np.frombuffer(SUIT_CHARS.encode(), np.uint8).copy()


# ---------------------------------------------------------------------------------------------
# Decisions, manager side: InfoSet rows -> text


def decision_lines(info: InfoSet, tables: np.ndarray) -> bytes:
    """The decision line of each info set (each of a seat to act) at its table id, newline-terminated."""
    n, P = info.batch_size, info.num_players
    H = info.layout.fields["tricks"][2][0]
    out = np.empty(n * _line_bound(P, H), np.uint8)
    tables = np.ascontiguousarray(tables, np.int64)
    size = write_decisions(info.data, info.layout.offsets, P, H, info.rules.decks, tables, out)
    return out[:size].tobytes()


@inline_kernel
def _put(out: np.ndarray, pos: int, piece: int) -> int:
    for j in range(_STARTS[piece], _STARTS[piece + 1]):
        out[pos] = _TEXT[j]
        pos += 1
    return pos


@inline_kernel
def _put_byte(out: np.ndarray, pos: int, byte: int) -> int:
    out[pos] = byte
    return pos + 1


@inline_kernel
def _put_int(out: np.ndarray, pos: int, value: int) -> int:
    if value < 0:
        pos = _put_byte(out, pos, _DASH)
        value = -value
    digits, rest = 1, value // 10
    while rest:
        digits += 1
        rest //= 10
    for j in range(digits - 1, -1, -1):
        out[pos + j] = 48 + value % 10
        value //= 10
    return pos + digits


@inline_kernel
def _put_seat(out: np.ndarray, pos: int, relative: int, seat: int, P: int) -> int:
    """The absolute seat of ``relative`` (to ``seat``), or '-' for -1."""
    if relative < 0:
        return _put_byte(out, pos, _DASH)
    return _put_int(out, pos, (seat + relative) % P)


@inline_kernel
def _put_card(out: np.ndarray, pos: int, card: int) -> int:
    if card < 0:
        return _put_byte(out, pos, _DASH)
    out[pos] = _NAMES[card, 0]
    out[pos + 1] = _NAMES[card, 1]
    return pos + 2


@inline_kernel
def _put_pile(out: np.ndarray, pos: int, bits: np.uint64, twice: np.uint64) -> int:
    """A pile: its cards in id order, comma-separated, a card held twice written twice; '-' if empty."""
    if bits == 0:
        return _put_byte(out, pos, _DASH)
    start = pos
    for b in range(7):  # byte by byte, set bits only
        byte = (bits >> np.uint64(8 * b)) & np.uint64(0xFF)
        while byte:
            c = 8 * b + _LOW_BIT[byte]
            byte &= byte - np.uint64(1)
            for _ in range(2 if twice & k.BIT[c] else 1):
                if pos != start:
                    pos = _put_byte(out, pos, _COMMA)
                pos = _put_card(out, pos, c)
    return pos


@inline_kernel
def _put_seat_piles(
    out: np.ndarray, pos: int, r64: np.ndarray, at: int, at2: int, seat: int, P: int, piece: int
) -> int:
    """`` piece=`` and each absolute seat's pile, '/'-separated (the info row holds them by relative seat)."""
    pos = _put(out, pos, piece)
    for a in range(P):
        if a:
            pos = _put_byte(out, pos, _SLASH)
        r = (a - seat) % P
        pos = _put_pile(out, pos, r64[at + r], r64[at2 + r])
    return pos


@inline_kernel
def _put_seat_ints(out: np.ndarray, pos: int, r32: np.ndarray, at: int, seat: int, P: int, piece: int) -> int:
    pos = _put(out, pos, piece)
    for a in range(P):
        if a:
            pos = _put_byte(out, pos, _SLASH)
        pos = _put_int(out, pos, r32[at + (a - seat) % P])
    return pos


@row_kernel
def write_decisions(
    idata: np.ndarray, ioff: np.ndarray, P: int, H: int, decks: int, tables: np.ndarray, out: np.ndarray
) -> int:
    """Write the decision line of every info row into ``out``; returns the bytes written."""
    i64, i32, i8 = idata.view(np.uint64), idata.view(np.int32), idata.view(np.int8)
    zero = np.uint64(0)
    pos = 0
    for g in range(idata.shape[0]):
        r64, r32, r8 = i64[g], i32[g], i8[g]
        seat = r8[ioff[I_SEAT]]
        pos = _put(out, pos, _PASS if r8[ioff[I_PHASE]] == k.PASS else _PLAY)
        pos = _put_int(out, pos, tables[g])
        pos = _put(out, pos, _SEAT)
        pos = _put_int(out, pos, seat)
        pos = _put(out, pos, _HAND_NUMBER)
        pos = _put_int(out, pos, r32[ioff[I_HAND_NUMBER]])
        pos = _put(out, pos, _DIRECTION)
        offset = r8[ioff[I_PASS_OFFSET]]
        if offset == 0:
            pos = _put(out, pos, _NONE)
        elif offset == 1:
            pos = _put(out, pos, _LEFT)
        elif offset == P - 1:
            pos = _put(out, pos, _RIGHT)
        else:
            pos = _put(out, pos, _ACROSS)
        pos = _put(out, pos, _HAND)
        pos = _put_pile(out, pos, r64[ioff[I_HAND]], r64[ioff[I_HAND2]])
        pos = _put(out, pos, _LEGAL)
        pos = _put_pile(out, pos, r64[ioff[I_LEGAL]], zero)
        pos = _put(out, pos, _PASSED)
        pos = _put_pile(out, pos, r64[ioff[I_PASSED]], r64[ioff[I_PASSED2]])
        pos = _put(out, pos, _RECEIVED)
        pos = _put_pile(out, pos, r64[ioff[I_RECEIVED]], r64[ioff[I_RECEIVED2]])
        pos = _put(out, pos, _UNSEEN)
        pos = _put_pile(out, pos, r64[ioff[I_UNSEEN]], r64[ioff[I_UNSEEN2]])
        pos = _put_seat_piles(out, pos, r64, ioff[I_PLAYED], ioff[I_PLAYED2], seat, P, _PLAYED)
        pos = _put(out, pos, _TRICK)
        for a in range(P):
            if a:
                pos = _put_byte(out, pos, _SLASH)
            pos = _put_card(out, pos, r8[ioff[I_TRICK] + (a - seat) % P])
        pos = _put(out, pos, _LEADER)
        pos = _put_seat(out, pos, r8[ioff[I_TRICK_LEADER]], seat, P)
        pos = _put(out, pos, _WINNER)
        pos = _put_seat(out, pos, r8[ioff[I_TRICK_WINNER]], seat, P)
        pos = _put(out, pos, _TRICKS_PLAYED)
        pos = _put_int(out, pos, r8[ioff[I_TRICKS_PLAYED]])
        pos = _put(out, pos, _HEARTS_BROKEN)
        pos = _put_int(out, pos, 1 if r8[ioff[I_HEARTS_BROKEN]] else 0)
        pos = _put(out, pos, _VOIDS)
        for a in range(P):
            if a:
                pos = _put_byte(out, pos, _SLASH)
            void = r8[ioff[I_VOIDS] + (a - seat) % P]
            if void == 0:
                pos = _put_byte(out, pos, _DASH)
            for s in range(NUM_SUITS):
                if void & (1 << s):
                    pos = _put_byte(out, pos, _SUIT_LETTERS[s])
        pos = _put_seat_piles(out, pos, r64, ioff[I_TAKEN], ioff[I_TAKEN2], seat, P, _TAKEN)
        pos = _put_seat_ints(out, pos, r32, ioff[I_POINTS], seat, P, _POINTS)
        pos = _put_seat_ints(out, pos, r32, ioff[I_SCORES], seat, P, _SCORES)
        if H:
            pos = _put(out, pos, _TRICKS)
            start = pos
            for h in range(H):
                leader = r8[ioff[I_TRICK_LEADERS] + h]
                if leader < 0:
                    continue
                if pos != start:
                    pos = _put_byte(out, pos, _SEMI)
                pos = _put_seat(out, pos, leader, seat, P)
                pos = _put_byte(out, pos, _COLON)
                for a in range(P):
                    if a:
                        pos = _put_byte(out, pos, _SLASH)
                    pos = _put_card(out, pos, r8[ioff[I_TRICKS] + h * P + (a - seat) % P])
            if pos == start:
                pos = _put_byte(out, pos, _DASH)
        if decks == 2:
            pos = _put(out, pos, _POT)
            pos = _put_pile(out, pos, r64[ioff[I_POT]], r64[ioff[I_POT2]])
            pos = _put(out, pos, _KITTY)
            pos = _put_int(out, pos, r8[ioff[I_KITTY_SIZE]])
        pos = _put_byte(out, pos, _NL)
    return pos


# ---------------------------------------------------------------------------------------------
# Decisions, bot side: text -> InfoSet rows


@dataclasses.dataclass(frozen=True)
class Decisions:
    """Decision lines read back: their table ids, the information sets (one per line, in order)
    and, per line, 0 if it was read or 1 + the index in ``FIELD_NAMES`` of the field that was
    not (-1: the keyword or the table id)."""

    tables: np.ndarray  # (n,) int64
    info: InfoSet
    failed: np.ndarray  # (n,) int64

    def problem(self, i: int) -> str | None:
        """Why line ``i`` could not be read, or None."""
        f = int(self.failed[i])
        if f == 0:
            return None
        if f < 0:
            return "no 'pass TABLE' or 'play TABLE' at its start"
        return f"cannot read its {FIELD_NAMES[f - 1]!r}" if f <= len(FIELD_NAMES) else "text after its last field"


def read_decisions(text: bytes, rules: HeartsRules, history: bool) -> Decisions:
    """Decision lines (newline-terminated) of tables of ``rules`` (``history``: the table
    line's) as the information sets they were written from."""
    P = rules.num_players
    history = rules.hand_size if history else 0
    layout = info_layout(P, history)
    buf = np.frombuffer(text, np.uint8)
    bounds = line_bounds(buf)
    n = len(bounds) - 1
    data = np.zeros((n, layout.width), np.uint8)
    tables = np.zeros(n, np.int64)
    failed = np.zeros(n, np.int64)
    parse_decisions(buf, bounds, P, history, rules.decks, data, layout.offsets, tables, failed)
    return Decisions(tables, InfoSet(rules, data, layout), failed)


def line_bounds(buf: np.ndarray) -> np.ndarray:
    """(n + 1,) int64: where each newline-terminated line of ``buf`` starts, then its end."""
    bounds = np.empty(len(buf) + 1, np.int64)
    return bounds[: find_lines(buf, bounds)]


@row_kernel
def find_lines(buf: np.ndarray, bounds: np.ndarray) -> int:
    bounds[0] = 0
    n = 1
    for i in range(len(buf)):
        if buf[i] == _NL:
            bounds[n] = i + 1
            n += 1
    return n


def line_tables(text: bytes) -> np.ndarray:
    """(n,) int64: the table id (the second word) of each newline-terminated line, -1 where
    there is none."""
    buf = np.frombuffer(text, np.uint8)
    bounds = line_bounds(buf)
    tables = np.empty(len(bounds) - 1, np.int64)
    parse_line_tables(buf, bounds, tables)
    return tables


@row_kernel
def parse_line_tables(buf: np.ndarray, bounds: np.ndarray, tables: np.ndarray) -> None:
    for g in range(len(tables)):
        pos, end = bounds[g], bounds[g + 1] - 1
        while pos < end and buf[pos] != _SPACE:
            pos += 1
        pos, value = _get_id(buf, pos + 1, end)
        tables[g] = value if pos >= 0 and (pos == end or buf[pos] == _SPACE) else -1


@inline_kernel
def _expect(buf: np.ndarray, pos: int, end: int, piece: int) -> int:
    """The position after ``piece`` at ``pos``, or -1 if it is not there."""
    if pos < 0 or pos + _STARTS[piece + 1] - _STARTS[piece] > end:
        return -1
    for j in range(_STARTS[piece], _STARTS[piece + 1]):
        if buf[pos] != _TEXT[j]:
            return -1
        pos += 1
    return pos


@inline_kernel
def _get_int(buf: np.ndarray, pos: int, end: int) -> tuple[int, int]:
    """(position after, value) of a decimal int at ``pos``; (-1, 0) if none."""
    if pos < 0 or pos >= end:
        return -1, 0
    sign = 1
    if buf[pos] == _DASH:
        sign = -1
        pos += 1
    start, value = pos, 0
    while pos < end and 48 <= buf[pos] <= 57 and pos - start < 18:  # any 18 digits fit an int64
        value = value * 10 + buf[pos] - 48
        pos += 1
    if pos == start:
        return -1, 0
    return pos, sign * value


@inline_kernel
def _get_id(buf: np.ndarray, pos: int, end: int) -> tuple[int, int]:
    """(position after, value) of a table id (digits only, at most 18); (-1, 0) if none."""
    if 0 <= pos < end and buf[pos] == _DASH:
        return -1, 0
    return _get_int(buf, pos, end)


@inline_kernel
def _get_seat(buf: np.ndarray, pos: int, end: int, seat: int, P: int) -> tuple[int, int]:
    """(position after, seat relative to ``seat``) of an absolute seat or '-' (-1)."""
    if 0 <= pos < end and buf[pos] == _DASH and (pos + 1 == end or not 48 <= buf[pos + 1] <= 57):
        return pos + 1, -1
    pos, value = _get_int(buf, pos, end)
    if pos < 0 or not 0 <= value < P:
        return -1, 0
    return pos, (value - seat) % P


@inline_kernel
def _get_card(buf: np.ndarray, pos: int, end: int) -> tuple[int, int]:
    """(position after, card id) of a card name or '-' (-1)."""
    if pos < 0 or pos >= end:
        return -1, 0
    if buf[pos] == _DASH:
        return pos + 1, -1
    if pos + 2 > end or _RANK_OF[buf[pos]] < 0 or _SUIT_OF[buf[pos + 1]] < 0:
        return -1, 0
    return pos + 2, _SUIT_OF[buf[pos + 1]] * NUM_RANKS + _RANK_OF[buf[pos]]


@inline_kernel
def _get_pile(buf: np.ndarray, pos: int, end: int, decks: int) -> tuple[int, np.uint64, np.uint64]:
    """(position after, cards, cards written twice) of a pile or '-' (a card twice only with two decks)."""
    bits, twice = np.uint64(0), np.uint64(0)
    if 0 <= pos < end and buf[pos] == _DASH:
        return pos + 1, bits, twice
    while True:
        pos, card = _get_card(buf, pos, end)
        if pos < 0 or card < 0 or twice & k.BIT[card] or (decks == 1 and bits & k.BIT[card]):
            return -1, bits, twice
        if bits & k.BIT[card]:
            twice |= k.BIT[card]
        bits |= k.BIT[card]
        if pos >= end or buf[pos] != _COMMA:
            return pos, bits, twice
        pos += 1


@inline_kernel
def _get_piles(
    buf: np.ndarray, pos: int, end: int, seat: int, P: int, decks: int, r64: np.ndarray, at: int, at2: int
) -> int:
    """The position after P piles, one per seat from seat 0 and '/' between them: each seat's
    cards go to ``r64[at + ...]`` and those written twice to ``r64[at2 + ...]``, relative to ``seat``."""
    for a in range(P):
        pos, bits, twice = _get_pile(buf, _get_slash(buf, pos, end, a), end, decks)
        r64[at + (a - seat) % P] = bits
        r64[at2 + (a - seat) % P] = twice
    return pos


@inline_kernel
def _get_slash(buf: np.ndarray, pos: int, end: int, a: int) -> int:
    """Past the '/' before the entry of seat ``a`` (none before seat 0)."""
    if a == 0 or pos < 0:
        return pos
    if pos >= end or buf[pos] != _SLASH:
        return -1
    return pos + 1


@row_kernel
def parse_decisions(
    buf: np.ndarray,
    bounds: np.ndarray,
    P: int,
    H: int,
    decks: int,
    idata: np.ndarray,
    ioff: np.ndarray,
    tables: np.ndarray,
    failed: np.ndarray,
) -> None:
    """Read decision line g (``buf[bounds[g]:bounds[g + 1] - 1]``) into info row g; ``failed[g]``
    as ``Decisions.failed``."""
    i64, i32, i8 = idata.view(np.uint64), idata.view(np.int32), idata.view(np.int8)
    for g in range(idata.shape[0]):
        r64, r32, r8 = i64[g], i32[g], i8[g]
        pos, end = bounds[g], bounds[g + 1] - 1
        if end > pos and buf[end - 1] == 13:  # a '\r' before the newline
            end -= 1
        phase = k.PASS
        at = _expect(buf, pos, end, _PASS)
        if at < 0:
            phase = k.PLAY
            at = _expect(buf, pos, end, _PLAY)
        pos, tables[g] = _get_id(buf, at, end)
        if pos < 0:
            failed[g] = -1
            continue
        r8[ioff[I_PHASE]] = phase
        r8[ioff[I_TO_PLAY]] = 0
        field = 0
        # each step reads one field; a failure keeps its index
        pos, seat = _get_int(buf, _expect(buf, pos, end, _SEAT), end)
        if pos < 0 or not 0 <= seat < P:
            pos = -1
        r8[ioff[I_SEAT]] = seat
        if pos >= 0:
            field = 1
            pos, r32[ioff[I_HAND_NUMBER]] = _get_int(buf, _expect(buf, pos, end, _HAND_NUMBER), end)
        if pos >= 0:
            field = 2
            pos = _expect(buf, pos, end, _DIRECTION)
            offset = -1
            for piece, value in ((_NONE, 0), (_LEFT, 1), (_RIGHT, P - 1), (_ACROSS, 2)):
                after = _expect(buf, pos, end, piece)
                if after >= 0 and offset < 0:
                    offset, at = value, after
            pos = at if offset >= 0 else -1
            r8[ioff[I_PASS_OFFSET]] = offset
        for f, piece, field1, field2 in (
            (3, _HAND, I_HAND, I_HAND2),
            (4, _LEGAL, I_LEGAL, -1),
            (5, _PASSED, I_PASSED, I_PASSED2),
            (6, _RECEIVED, I_RECEIVED, I_RECEIVED2),
            (7, _UNSEEN, I_UNSEEN, I_UNSEEN2),
        ):
            if pos >= 0:
                field = f
                pos, bits, twice = _get_pile(buf, _expect(buf, pos, end, piece), end, decks)
                r64[ioff[field1]] = bits
                if field2 >= 0:
                    r64[ioff[field2]] = twice
                elif twice or bits == 0 or bits & ~r64[ioff[I_HAND]]:  # a decision has legal cards, all in hand
                    pos = -1
        if pos >= 0:
            field = 8
            pos = _get_piles(
                buf, _expect(buf, pos, end, _PLAYED), end, seat, P, decks, r64, ioff[I_PLAYED], ioff[I_PLAYED2]
            )
        if pos >= 0:
            field = 9
            pos = _expect(buf, pos, end, _TRICK)
            for a in range(P):
                pos, card = _get_card(buf, _get_slash(buf, pos, end, a), end)
                r8[ioff[I_TRICK] + (a - seat) % P] = card
        if pos >= 0:
            field = 10
            pos, r8[ioff[I_TRICK_LEADER]] = _get_seat(buf, _expect(buf, pos, end, _LEADER), end, seat, P)
        if pos >= 0:
            field = 11
            pos, r8[ioff[I_TRICK_WINNER]] = _get_seat(buf, _expect(buf, pos, end, _WINNER), end, seat, P)
        if pos >= 0:
            field = 12
            pos, r8[ioff[I_TRICKS_PLAYED]] = _get_int(buf, _expect(buf, pos, end, _TRICKS_PLAYED), end)
        if pos >= 0:
            field = 13
            pos, broken = _get_int(buf, _expect(buf, pos, end, _HEARTS_BROKEN), end)
            if broken != 0 and broken != 1:
                pos = -1
            r8[ioff[I_HEARTS_BROKEN]] = broken
        if pos >= 0:
            field = 14
            pos = _expect(buf, pos, end, _VOIDS)
            for a in range(P):
                pos = _get_slash(buf, pos, end, a)
                void = 0
                if 0 <= pos < end and buf[pos] == _DASH:
                    pos += 1
                else:
                    start = pos
                    while 0 <= pos < end and _SUIT_OF[buf[pos]] >= 0:
                        void |= 1 << _SUIT_OF[buf[pos]]
                        pos += 1
                    if pos == start:
                        pos = -1
                r8[ioff[I_VOIDS] + (a - seat) % P] = void
        if pos >= 0:
            field = 15
            pos = _get_piles(
                buf, _expect(buf, pos, end, _TAKEN), end, seat, P, decks, r64, ioff[I_TAKEN], ioff[I_TAKEN2]
            )
        for f, piece, at in ((16, _POINTS, ioff[I_POINTS]), (17, _SCORES, ioff[I_SCORES])):
            if pos >= 0:
                field = f
                pos = _expect(buf, pos, end, piece)
                for a in range(P):
                    pos, r32[at + (a - seat) % P] = _get_int(buf, _get_slash(buf, pos, end, a), end)
        for h in range(H):
            r8[ioff[I_TRICK_LEADERS] + h] = -1
            for r in range(P):
                r8[ioff[I_TRICKS] + h * P + r] = -1
        if H and pos >= 0:
            field = 18
            pos = _expect(buf, pos, end, _TRICKS)
            if 0 <= pos < end and buf[pos] == _DASH:
                pos += 1
            else:
                for h in range(H):
                    if h:
                        if pos >= end or buf[pos] != _SEMI:
                            break
                        pos += 1
                    pos, leader = _get_seat(buf, pos, end, seat, P)
                    if pos < 0 or pos >= end or buf[pos] != _COLON:
                        pos = -1
                        break
                    r8[ioff[I_TRICK_LEADERS] + h] = leader
                    pos += 1
                    for a in range(P):
                        pos, card = _get_card(buf, _get_slash(buf, pos, end, a), end)
                        r8[ioff[I_TRICKS] + h * P + (a - seat) % P] = card
                    if pos < 0:
                        break
        if decks == 2 and pos >= 0:
            field = 19
            pos, bits, twice = _get_pile(buf, _expect(buf, pos, end, _POT), end, decks)
            r64[ioff[I_POT]], r64[ioff[I_POT2]] = bits, twice
            if pos >= 0:
                field = 20
                pos, r8[ioff[I_KITTY_SIZE]] = _get_int(buf, _expect(buf, pos, end, _KITTY), end)
        if pos < 0:
            failed[g] = field + 1
        elif pos == end or buf[pos] == _SPACE:  # fields after the last are a later version's: ignored
            failed[g] = 0
        else:
            failed[g] = len(FIELD_NAMES) + 1


# ---------------------------------------------------------------------------------------------
# The other lines: hello, tables, events, answers

MAX_NAME = 64
"""The longest bot name (printable ASCII, one word): it appears in every message about the bot."""
MAX_TABLE = 10**18 - 1
"""The largest table id: ids are read by compiled kernels as 64-bit ints."""


@dataclasses.dataclass(frozen=True)
class Line:
    """A protocol line in words (``read_line``): its keyword, the plain words after it (up to the
    first ``key=value`` word) and its ``key=value`` fields. Plain words after the fields are left
    out: a later version may add them, and a reader ignores what it does not know."""

    kind: str
    words: tuple[str, ...]
    fields: dict[str, str]


def read_line(line: str | bytes) -> Line:
    """The one tokenizer of protocol lines, both sides: words split at ASCII whitespace, bytes that
    are not ASCII read as U+FFFD (so they never pass for digits or names). ``ValueError`` for a
    field given twice (which of the two was meant is unknowable)."""
    if isinstance(line, bytes):
        line = line.decode("ascii", errors="replace")
    words = line.split()
    kind, plain, fields = (words[0] if words else ""), [], {}
    for word in words[1:]:
        key, equals, value = word.partition("=")
        if not equals:
            if not fields:
                plain.append(word)
            continue
        if key in fields:
            raise ValueError(f"field {shown(key)} is given twice")
        fields[key] = value
    return Line(kind, tuple(plain), fields)


def read_int(text: str, what: str, low: int, high: int | None = None) -> int:
    """A decimal int (ASCII digits, an optional '-') in ``low..high``; ``ValueError`` naming ``what``."""
    digits = text[1:] if text[:1] == "-" else text
    bounds = f"{low}..{high}" if high is not None else f">= {low}"
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 40:
        raise ValueError(f"{what} {shown(text, 40)} is not an integer {bounds}")
    value = int(text)
    if value < low or (high is not None and value > high):
        raise ValueError(f"{what} {shown(text, 40)} is not in {bounds}")
    return value


def read_table_id(text: str) -> int:
    """A table id: 0..``MAX_TABLE``; ``ValueError`` saying so."""
    return read_int(text, "table id", 0, MAX_TABLE)


def hello_reply(name: str, many: bool, history: bool = False) -> str:
    """The bot's answer to ``HELLO`` (``history``: it asks for the completed tricks in every decision)."""
    if not name or not name.isprintable() or any(c.isspace() for c in name):
        raise ValueError(f"a bot's name is one word without spaces, got {name!r}")
    return f"{HELLO} name={name} tables={'many' if many else 'one'}" + (" history=1" if history else "")


def read_hello_reply(line: str | bytes) -> tuple[str, bool, bool]:
    """(name, plays many tables at once, asks for history) from the bot's answer to ``HELLO``;
    ``ValueError`` saying what is wrong with it."""
    expected = f"'{HELLO} name=NAME tables=many|one'"
    try:
        read = read_line(line)
    except ValueError as error:
        raise ValueError(f"answered the hello with {shown(line)}: {error}") from None
    if read.kind != PROTOCOL or not read.words:
        raise ValueError(f"answered the hello with {shown(line)}, not {expected}")
    if read.words[0] != str(VERSION):
        raise ValueError(f"speaks {PROTOCOL} {shown(read.words[0])}; this manager speaks version {VERSION}")
    name, tables, history = read.fields.get("name"), read.fields.get("tables"), read.fields.get("history", "0")
    if name and not (len(name) <= MAX_NAME and name.isascii() and name.isprintable()):
        raise ValueError(f"answered the hello with a name that is not {MAX_NAME} printable ASCII characters or fewer")
    if not name or tables not in ("many", "one") or history not in ("0", "1"):
        raise ValueError(
            f"answered the hello with {shown(line)}: it needs name=NAME, tables=many or tables=one "
            "(and history=0 or history=1 if any)"
        )
    return name, tables == "many", history == "1"


def _knob_text(value: object) -> str:
    if isinstance(value, (bool, np.bool_)):
        return str(int(value))
    if value is None:
        return "0"
    if isinstance(value, tuple):
        return ",".join(value)
    return str(value)


@functools.cache
def table_text(rules: HeartsRules, history: bool) -> str:
    """What follows a table line's seat: ``history=0|1`` and every rules knob as ``name=value``
    (booleans 0/1, the pass cycle comma-separated, ``target_score=0`` for one hand)."""
    knobs = " ".join(f"{name}={_knob_text(value)}" for name, value in rules.to_dict().items())
    return f"history={int(history)} {knobs}"


def table_lines(tables: Sequence[int], seats: Sequence[int], rules: HeartsRules, history: bool) -> str:
    """``table T seat=S history=0|1 KNOBS`` for each table and seat, newline-terminated."""
    text = table_text(rules, history)
    return "".join([f"table {t} seat={s} {text}\n" for t, s in zip(tables, seats, strict=True)])


_KNOB_DEFAULTS = HeartsRules().to_dict()
_INT_LIMIT = 2**31 - 1  # int knobs are held in 32-bit ints by the kernels


def read_table_kind(line: Line) -> tuple[HeartsRules, bool]:
    """(rules, history) of a table line's fields: knobs this version does not know are ignored (a
    later version adds them), a knob left out keeps its default, ``history`` left out is 0;
    ``ValueError`` naming the field that is wrong."""
    fields = line.fields
    if fields.get("history", "0") not in ("0", "1"):
        raise ValueError(f"history is 0 or 1, not {shown(fields['history'], 40)}")
    knobs: dict[str, object] = {}
    for name, default in _KNOB_DEFAULTS.items():
        if name not in fields:
            continue
        text = fields[name]
        if isinstance(default, bool):
            if text not in ("0", "1"):
                raise ValueError(f"{name} is 0 or 1, not {shown(text, 40)}")
            knobs[name] = text == "1"
        elif name == "pass_cycle":
            knobs[name] = tuple(text.split(","))
        elif isinstance(default, str):
            knobs[name] = text
        else:
            knobs[name] = read_int(text, name, 0, _INT_LIMIT)
    return HeartsRules.from_dict(knobs), fields.get("history") == "1"


def read_table_seat(line: Line, rules: HeartsRules) -> int:
    """The seat of a table line at a table of ``rules``; ``ValueError`` if it is missing or not a seat there."""
    if "seat" not in line.fields:
        raise ValueError("it has no seat=S")
    return read_int(line.fields["seat"], "seat", 0, rules.num_players - 1)


def read_table_line(line: str | bytes) -> tuple[int, int, HeartsRules, bool]:
    """(table, seat, rules, history) of a table line; ``ValueError`` naming what is wrong."""
    try:
        read = read_line(line)
        if read.kind != "table" or not read.words:
            raise ValueError("it is not 'table T seat=S ...'")
        table = read_table_id(read.words[0])
        rules, history = read_table_kind(read)
        return table, read_table_seat(read, rules), rules, history
    except ValueError as error:
        raise ValueError(f"table line {shown(line)}: {error}") from None


def step_events(step: Step, tables: np.ndarray) -> bytes:
    """The event lines of a runner step for the tables at its games' seats (``tables`` (n, P):
    the table id of seat s of the step's game i, -1 for none): ``card T SEAT CARD`` for a card
    another seat played, ``trick T WINNER`` when a trick ends, ``hand T points=... scores=...``
    when a hand ends and ``end T`` when the game is over, a table's lines in that order."""
    before, after = step.state, step.after
    n, P = tables.shape
    trick_over = (after.tricks_played != before.tricks_played) | after.hand_over
    out = np.empty(n * P * (96 + 24 * P), np.uint8)
    c = np.ascontiguousarray  # one compiled signature, whatever the views' strides
    size = write_events(
        c(tables, np.int64),
        c(before.to_play),
        c(before.phase == k.PLAY),
        c(step.actions, np.int64),
        c(trick_over),
        c(after.last_trick_winner),
        c(after.hand_over),
        c(after.last_hand_points),
        c(after.scores),
        c(after.done),
        out,
    )
    return out[:size].tobytes()


@row_kernel
def write_events(
    tables: np.ndarray,
    actor: np.ndarray,
    playing: np.ndarray,
    actions: np.ndarray,
    trick_over: np.ndarray,
    winner: np.ndarray,
    hand_over: np.ndarray,
    points: np.ndarray,
    scores: np.ndarray,
    done: np.ndarray,
    out: np.ndarray,
) -> int:
    pos = 0
    n, P = tables.shape
    for g in range(n):
        for s in range(P):
            t = tables[g, s]
            if t < 0:
                continue
            if playing[g] and s != actor[g]:
                pos = _put(out, pos, _CARD_EVENT)
                pos = _put_int(out, pos, t)
                pos = _put_byte(out, pos, _SPACE)
                pos = _put_int(out, pos, actor[g])
                pos = _put_byte(out, pos, _SPACE)
                pos = _put_card(out, pos, actions[g])
                pos = _put_byte(out, pos, _NL)
            if trick_over[g]:
                pos = _put(out, pos, _TRICK_EVENT)
                pos = _put_int(out, pos, t)
                pos = _put_byte(out, pos, _SPACE)
                pos = _put_seat(out, pos, winner[g], 0, P)
                pos = _put_byte(out, pos, _NL)
            if hand_over[g]:
                pos = _put(out, pos, _HAND_EVENT)
                pos = _put_int(out, pos, t)
                for piece, values in ((_POINTS_EVENT, points), (_SCORES_EVENT, scores)):
                    pos = _put(out, pos, piece)
                    for a in range(P):
                        if a:
                            pos = _put_byte(out, pos, _SLASH)
                        pos = _put_int(out, pos, values[g, a])
                pos = _put_byte(out, pos, _NL)
            if done[g]:
                pos = _put(out, pos, _END_EVENT)
                pos = _put_int(out, pos, t)
                pos = _put_byte(out, pos, _NL)
    return pos


def answer_lines(tables: np.ndarray, cards: np.ndarray) -> bytes:
    """``T CARD`` for each table and its card, newline-terminated."""
    out = np.empty(len(tables) * 24, np.uint8)
    size = write_answers(np.ascontiguousarray(tables, np.int64), np.ascontiguousarray(cards, np.int64), out)
    return out[:size].tobytes()


@row_kernel
def write_answers(tables: np.ndarray, cards: np.ndarray, out: np.ndarray) -> int:
    pos = 0
    for g in range(len(tables)):
        pos = _put_int(out, pos, tables[g])
        pos = _put_byte(out, pos, _SPACE)
        pos = _put_card(out, pos, cards[g])
        pos = _put_byte(out, pos, _NL)
    return pos


def read_answers(text: bytes) -> tuple[np.ndarray, np.ndarray, list[bytes]]:
    """The answer lines ``T CARD`` of ``text`` (newline-terminated): (n,) table ids and card ids,
    -1 for a line that is not an answer, and the lines themselves (for messages)."""
    buf = np.frombuffer(text, np.uint8)
    bounds = line_bounds(buf)
    tables = np.empty(len(bounds) - 1, np.int64)
    cards = np.empty(len(bounds) - 1, np.int64)
    parse_answers(buf, bounds, tables, cards)
    lines = text.split(b"\n")[:-1]
    for i in np.flatnonzero(cards < 0):  # not the plain form: another spelling (``10h``), or not a card
        answer = read_answer(lines[i])
        if answer is not None and not isinstance(answer[1], str):
            tables[i], cards[i] = answer
    return tables, cards, lines


@row_kernel
def parse_answers(buf: np.ndarray, bounds: np.ndarray, tables: np.ndarray, cards: np.ndarray) -> None:
    for g in range(len(tables)):
        pos, end = bounds[g], bounds[g + 1] - 1
        if end > pos and buf[end - 1] == 13:
            end -= 1
        pos, table = _get_id(buf, pos, end)
        tables[g] = table if pos >= 0 else -1
        cards[g] = -1
        if pos >= 0 and pos + 3 == end and buf[pos] == _SPACE:
            pos, card = _get_card(buf, pos + 1, end)
            cards[g] = card if pos == end else -1


def read_answer(line: bytes) -> tuple[int, int] | tuple[int, str] | None:
    """(table, card id) of an answer line ``T CARD`` (any spelling ``parse_card`` reads),
    (table, message) of ``error T MESSAGE`` (the bot cannot decide it), or None if it is neither.
    A table id beyond ``MAX_TABLE`` reads as ``MAX_TABLE + 1``, an id no manager asks."""
    words = line.split(maxsplit=2)
    if len(words) >= 2 and words[0] == b"error":
        table = _answered_table(words[1])
        message = words[2].decode(errors="replace").strip() if len(words) > 2 else ""
        return None if table is None else (table, message)
    table = _answered_table(words[0]) if len(words) == 2 else None
    if table is None:
        return None
    try:
        return table, parse_card(words[1].decode("ascii"))
    except (ValueError, UnicodeDecodeError):
        return None


def _answered_table(word: bytes) -> int | None:
    if not (word.isascii() and word.isdigit()):
        return None
    word = word.lstrip(b"0") or b"0"
    return int(word) if len(word) <= len(str(MAX_TABLE)) else MAX_TABLE + 1


def shown(text: str | bytes, limit: int = 80) -> str:
    """``text`` quoted for a message, cut at ``limit`` characters."""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return repr(text if len(text) <= limit else text[:limit] + "...")
