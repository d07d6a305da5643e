"""Reading the protocol's lines: decisions back into the very ``InfoSet`` rows they were written
from (compiled kernels), the one tokenizer of every other line (``read_line``), the bot's hello,
table lines (knobs a later version adds are ignored) and answers."""

from __future__ import annotations

import dataclasses

import numpy as np

from hearts_env.engine import kernels as k
from hearts_env.engine.cards import BIT, NUM_RANKS, parse_card
from hearts_env.engine.compiled import inline_kernel, row_kernel
from hearts_env.engine.infoset import (
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
from hearts_env.engine.rules import HeartsRules
from hearts_env.protocol.words import (
    _ACROSS,
    _COLON,
    _COMMA,
    _DASH,
    _DIRECTION,
    _HAND,
    _HAND_NUMBER,
    _HEARTS_BROKEN,
    _KITTY,
    _LEADER,
    _LEFT,
    _LEGAL,
    _NL,
    _NONE,
    _PASS,
    _PASSED,
    _PLAY,
    _PLAYED,
    _POINTS,
    _POT,
    _RANK_OF,
    _RECEIVED,
    _RIGHT,
    _SCORES,
    _SEAT,
    _SEMI,
    _SLASH,
    _SPACE,
    _STARTS,
    _SUIT_OF,
    _TAKEN,
    _TEXT,
    _TRICK,
    _TRICKS,
    _TRICKS_PLAYED,
    _UNSEEN,
    _VOIDS,
    _WINNER,
    FIELD_NAMES,
    HELLO,
    MAX_NAME,
    MAX_TABLE,
    PROTOCOL,
    VERSION,
    is_bot_name,
    shown,
)


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
    length = rules.hand_size if history else 0
    layout = info_layout(P, length)
    buf = np.frombuffer(text, np.uint8)
    bounds = line_bounds(buf)
    n = len(bounds) - 1
    data = np.zeros((n, layout.width), np.uint8)
    tables = np.zeros(n, np.int64)
    failed = np.zeros(n, np.int64)
    parse_decisions(buf, bounds, P, length, rules.decks, data, layout.offsets, tables, failed)
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
        if pos < 0 or card < 0 or twice & BIT[card] or (decks == 1 and bits & BIT[card]):
            return -1, bits, twice
        if bits & BIT[card]:
            twice |= BIT[card]
        bits |= BIT[card]
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
    kind, plain = (words[0] if words else ""), []
    fields: dict[str, str] = {}
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


def unusable_table_id(word: bytes) -> bool:
    """Whether a line's table-id word (its second) is an integer that is no table id: negative, or
    of more digits than a table id has (``MAX_TABLE``'s 18: the ids ``line_tables`` reads). One
    rule for every id a bot cannot use: a decision naming one is answered ``error WORD table ids
    are 0..MAX_TABLE``; a word that is no integer names no table (the line is ignored, and said so
    on stderr)."""
    negative = word[:1] == b"-"
    digits = word[1:] if negative else word
    return digits.isascii() and digits.isdigit() and (negative or len(digits) > len(str(MAX_TABLE)))


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
    if name and not is_bot_name(name):
        raise ValueError(f"answered the hello with a name that is not {MAX_NAME} printable ASCII characters or fewer")
    if not name or tables not in ("many", "one") or history not in ("0", "1"):
        raise ValueError(
            f"answered the hello with {shown(line)}: it needs name=NAME, tables=many or tables=one "
            "(and history=0 or history=1 if any)"
        )
    return name, tables == "many", history == "1"


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
