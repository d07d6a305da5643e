"""The protocol's words: its name and version, the fixed text of its lines, the limits of names and
table ids, and the byte tables that both directions read and write with (``docs/bot-protocol.md``)."""

from __future__ import annotations

import numpy as np

from hearts_env.engine.cards import NUM_CARDS, RANK_CHARS, SUIT_CHARS, card_name

PROTOCOL = "hearts-bot-protocol"
VERSION = 1
HELLO = f"{PROTOCOL} {VERSION}"
"""The manager's first line; the bot answers ``HELLO name=NAME tables=many`` (or ``tables=one``)."""
LADDER = "hearts-ladder"
LADDER_VERSION = 1
"""The ladder's extension over TCP (``docs/bot-protocol.md``): a bot that connects first writes
``hearts-ladder 1 token=TOKEN``; the server answers ``welcome NAME`` (then ``HELLO``: a session
of this protocol for as long as the connection lasts) or ``refused REASON`` and closes."""
BUSY = "busy: too many connections, try again later"
"""The ladder's refusal when it has no room for the connection."""
SLOW_HANDSHAKE = "no complete handshake within"
"""How the ladder's refusal of a handshake that did not arrive in time starts."""
TRY_AGAIN = (BUSY, SLOW_HANDSHAKE)
"""The starts of the refusals after which a client connects again (a full server; a handshake late
on a slow link or a loaded server): every other refusal (an unknown token, another protocol) is
for good."""

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

MAX_NAME = 64
"""The longest bot name (printable ASCII, one word): it appears in every message about the bot."""


def is_bot_name(name: object) -> bool:
    """Whether ``name`` is a bot's name: one word of 1 to ``MAX_NAME`` printable ASCII characters."""
    return (
        isinstance(name, str)
        and 0 < len(name) <= MAX_NAME
        and name.isascii()
        and name.isprintable()
        and not any(c.isspace() for c in name)
    )


MAX_TABLE = 10**18 - 1
"""The largest table id: ids are read by compiled kernels as 64-bit ints."""


def shown(text: str | bytes, limit: int = 80) -> str:
    """``text`` quoted for a message, cut at ``limit`` characters."""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return repr(text if len(text) <= limit else text[:limit] + "...")
