"""Writing the protocol's lines: decisions (an ``InfoSet`` batch as text, by compiled kernels), the
bot's hello, table lines, the table's events since the last decision (``step_events``, from the
runner's ``Step``) and answers."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from hearts_env.engine import infoset as fields  # the info set's field indices, I_*
from hearts_env.engine import kernels as k
from hearts_env.engine.cards import BIT, NUM_SUITS
from hearts_env.engine.compiled import inline_kernel, row_kernel
from hearts_env.engine.infoset import InfoSet
from hearts_env.engine.rules import HeartsRules
from hearts_env.protocol.words import (
    _ACROSS,
    _CARD_EVENT,
    _COLON,
    _COMMA,
    _DASH,
    _DIRECTION,
    _END_EVENT,
    _HAND,
    _HAND_EVENT,
    _HAND_NUMBER,
    _HEARTS_BROKEN,
    _KITTY,
    _LEADER,
    _LEFT,
    _LEGAL,
    _LOW_BIT,
    _NAMES,
    _NL,
    _NONE,
    _PASS,
    _PASSED,
    _PLAY,
    _PLAYED,
    _POINTS,
    _POINTS_EVENT,
    _POT,
    _RECEIVED,
    _RIGHT,
    _SCORES,
    _SCORES_EVENT,
    _SEAT,
    _SEMI,
    _SLASH,
    _SPACE,
    _STARTS,
    _SUIT_LETTERS,
    _TAKEN,
    _TEXT,
    _TRICK,
    _TRICK_EVENT,
    _TRICKS,
    _TRICKS_PLAYED,
    _UNSEEN,
    _VOIDS,
    _WINNER,
    HELLO,
    MAX_NAME,
    _line_bound,
    is_bot_name,
)

if TYPE_CHECKING:
    from hearts_env.play.runner import Step


def decision_lines(info: InfoSet, tables: np.ndarray) -> bytes:
    """The decision line of each info set (each of a seat to act) at its table id, newline-terminated."""
    n, P = info.batch_size, info.num_players
    H = info.history_length
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
            for _ in range(2 if twice & BIT[c] else 1):
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
        seat = r8[ioff[fields.I_SEAT]]
        pos = _put(out, pos, _PASS if r8[ioff[fields.I_PHASE]] == k.PASS else _PLAY)
        pos = _put_int(out, pos, tables[g])
        pos = _put(out, pos, _SEAT)
        pos = _put_int(out, pos, seat)
        pos = _put(out, pos, _HAND_NUMBER)
        pos = _put_int(out, pos, r32[ioff[fields.I_HAND_NUMBER]])
        pos = _put(out, pos, _DIRECTION)
        offset = r8[ioff[fields.I_PASS_OFFSET]]
        if offset == 0:
            pos = _put(out, pos, _NONE)
        elif offset == 1:
            pos = _put(out, pos, _LEFT)
        elif offset == P - 1:
            pos = _put(out, pos, _RIGHT)
        else:
            pos = _put(out, pos, _ACROSS)
        pos = _put(out, pos, _HAND)
        pos = _put_pile(out, pos, r64[ioff[fields.I_HAND]], r64[ioff[fields.I_HAND2]])
        pos = _put(out, pos, _LEGAL)
        pos = _put_pile(out, pos, r64[ioff[fields.I_LEGAL]], zero)
        pos = _put(out, pos, _PASSED)
        pos = _put_pile(out, pos, r64[ioff[fields.I_PASSED]], r64[ioff[fields.I_PASSED2]])
        pos = _put(out, pos, _RECEIVED)
        pos = _put_pile(out, pos, r64[ioff[fields.I_RECEIVED]], r64[ioff[fields.I_RECEIVED2]])
        pos = _put(out, pos, _UNSEEN)
        pos = _put_pile(out, pos, r64[ioff[fields.I_UNSEEN]], r64[ioff[fields.I_UNSEEN2]])
        pos = _put_seat_piles(out, pos, r64, ioff[fields.I_PLAYED], ioff[fields.I_PLAYED2], seat, P, _PLAYED)
        pos = _put(out, pos, _TRICK)
        for a in range(P):
            if a:
                pos = _put_byte(out, pos, _SLASH)
            pos = _put_card(out, pos, r8[ioff[fields.I_TRICK] + (a - seat) % P])
        pos = _put(out, pos, _LEADER)
        pos = _put_seat(out, pos, r8[ioff[fields.I_TRICK_LEADER]], seat, P)
        pos = _put(out, pos, _WINNER)
        pos = _put_seat(out, pos, r8[ioff[fields.I_TRICK_WINNER]], seat, P)
        pos = _put(out, pos, _TRICKS_PLAYED)
        pos = _put_int(out, pos, r8[ioff[fields.I_TRICKS_PLAYED]])
        pos = _put(out, pos, _HEARTS_BROKEN)
        pos = _put_int(out, pos, 1 if r8[ioff[fields.I_HEARTS_BROKEN]] else 0)
        pos = _put(out, pos, _VOIDS)
        for a in range(P):
            if a:
                pos = _put_byte(out, pos, _SLASH)
            void = r8[ioff[fields.I_VOIDS] + (a - seat) % P]
            if void == 0:
                pos = _put_byte(out, pos, _DASH)
            for s in range(NUM_SUITS):
                if void & (1 << s):
                    pos = _put_byte(out, pos, _SUIT_LETTERS[s])
        pos = _put_seat_piles(out, pos, r64, ioff[fields.I_TAKEN], ioff[fields.I_TAKEN2], seat, P, _TAKEN)
        pos = _put_seat_ints(out, pos, r32, ioff[fields.I_POINTS], seat, P, _POINTS)
        pos = _put_seat_ints(out, pos, r32, ioff[fields.I_SCORES], seat, P, _SCORES)
        if H:
            pos = _put(out, pos, _TRICKS)
            start = pos
            for h in range(H):
                leader = r8[ioff[fields.I_TRICK_LEADERS] + h]
                if leader < 0:
                    continue
                if pos != start:
                    pos = _put_byte(out, pos, _SEMI)
                pos = _put_seat(out, pos, leader, seat, P)
                pos = _put_byte(out, pos, _COLON)
                for a in range(P):
                    if a:
                        pos = _put_byte(out, pos, _SLASH)
                    pos = _put_card(out, pos, r8[ioff[fields.I_TRICKS] + h * P + (a - seat) % P])
            if pos == start:
                pos = _put_byte(out, pos, _DASH)
        if decks == 2:
            pos = _put(out, pos, _POT)
            pos = _put_pile(out, pos, r64[ioff[fields.I_POT]], r64[ioff[fields.I_POT2]])
            pos = _put(out, pos, _KITTY)
            pos = _put_int(out, pos, r8[ioff[fields.I_KITTY_SIZE]])
        pos = _put_byte(out, pos, _NL)
    return pos


def hello_reply(name: str, many: bool, history: bool = False) -> str:
    """The bot's answer to ``HELLO`` (``history``: it asks for the completed tricks in every decision)."""
    if not is_bot_name(name):  # the rule the manager reads it by (``read_hello_reply``)
        raise ValueError(
            f"a bot's name is one word of {MAX_NAME} printable ASCII characters or fewer, got {name!r:.70}"
        )
    return f"{HELLO} name={name} tables={'many' if many else 'one'}" + (" history=1" if history else "")


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
