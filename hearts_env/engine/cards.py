"""Card ids, names and the deck for each player count (docs/rules.md, "Cards and seats").

With two decks (Cancellation Hearts, docs/rules.md) the deck holds every id twice: the copies of a
card are interchangeable, so a card is still named by its id.

A card's id is ``suit * 13 + (rank - 2)`` with suits clubs 0, diamonds 1, spades 2, hearts 3 and
ranks 2..14, so ``2C = 0``, ``QS = 36``, ``AH = 51``. The id is also the action id of every
environment. Names are a rank character from ``23456789TJQKA`` and a suit character from ``CDSH``.

Every card constant lives here, in the first lines: the ids, the bitboards (a ``uint64`` with bit
``c`` set for card ``c``: ``BIT``, ``SUIT_BITS``, ``POINT_BITS``, ``BELOW``, ``ABOVE``, ...) and the
points of the point cards; the compiled rules and the agents read them from here.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

import numpy as np

NUM_CARDS = 52
NUM_SUITS = 4
NUM_RANKS = 13
CLUBS, DIAMONDS, SPADES, HEARTS = range(NUM_SUITS)
SUIT_CHARS = "CDSH"
SUIT_SYMBOLS = "♣♦♠♥"
RANK_CHARS = "23456789TJQKA"
MIN_PLAYERS, MAX_PLAYERS = 3, 7
PLAYERS_BY_DECKS = {1: (MIN_PLAYERS, MAX_PLAYERS), 2: (6, 11)}  # players allowed with one and two decks
KITTY = -2  # the "seat" of a kitty card in a two-deck ``deals`` row
SUIT_OF = np.arange(NUM_CARDS, dtype=np.int8) // NUM_RANKS  # (52,) suit of each card id
RANK_OF = (np.arange(NUM_CARDS, dtype=np.int8) % NUM_RANKS + 2).astype(np.int8)  # (52,) rank 2..14 of each card id
SUIT_OF.flags.writeable = RANK_OF.flags.writeable = False
QS = SPADES * NUM_RANKS + 12 - 2  # 36, the queen of spades
JD = DIAMONDS * NUM_RANKS + 11 - 2  # 22, the jack of diamonds

# Bitboards: a uint64 whose bit c is set when card c is present (compiled code reads these as constants).
BIT = np.uint64(1) << np.arange(NUM_CARDS, dtype=np.uint64)  # (52,) the bitboard of each single card
SUIT_BITS = np.uint64(0x1FFF) << (np.arange(NUM_SUITS, dtype=np.uint64) * np.uint64(NUM_RANKS))  # (4,) each suit
HEART_BITS = SUIT_BITS[HEARTS]
QS_BIT, JD_BIT = BIT[QS], BIT[JD]
POINT_BITS = HEART_BITS | QS_BIT  # the cards that score: every heart and the QS
# (53,) the cards of the same suit below (above) each card; index 52 (= card -1) is empty.
BELOW = np.array([int(SUIT_BITS[c // NUM_RANKS]) & ((1 << c) - 1) for c in range(NUM_CARDS)] + [0], np.uint64)
ABOVE = np.array([int(SUIT_BITS[c // NUM_RANKS]) & ~((2 << c) - 1) for c in range(NUM_CARDS)] + [0], np.uint64)

# Points (docs/rules.md, "Scoring a hand").
HEART_POINTS = 1  # each heart taken
QS_POINTS = 13  # the queen of spades taken
JD_POINTS = -10  # the jack of diamonds taken, with the JD rule
MOON_POINTS = NUM_RANKS * HEART_POINTS + QS_POINTS  # every point card of a hand: 26 (one deck)

# Cards taken out so that the deck divides evenly among the players (never a point card).
REMOVED_CARDS: dict[int, tuple[str, ...]] = {
    3: ("2D",),
    4: (),
    5: ("2D", "2C"),
    6: ("2D", "3D", "3C", "4C"),
    7: ("2D", "3D", "3C"),
}


def card_id(suit: int, rank: int) -> int:
    """The id of the card of ``suit`` (0..3) and ``rank`` (2..14)."""
    if not 0 <= suit < NUM_SUITS or not 2 <= rank <= 14:
        raise ValueError(f"no card with suit {suit} and rank {rank} (suit 0..3, rank 2..14)")
    return suit * NUM_RANKS + rank - 2


def suit_of(card: int) -> int:
    return int(SUIT_OF[_check_id(card)])


def rank_of(card: int) -> int:
    """Rank 2..14 (J=11, Q=12, K=13, A=14)."""
    return int(RANK_OF[_check_id(card)])


def parse_card(text: str) -> int:
    """Card id of a name such as ``"QS"``, ``"th"`` or ``"10H"``."""
    name = text.strip().upper()
    if name.startswith("10"):
        name = "T" + name[2:]
    if len(name) != 2 or name[0] not in RANK_CHARS or name[1] not in SUIT_CHARS:
        raise ValueError(
            f"not a card: {text!r} (expected a rank from {RANK_CHARS} or 10, then a suit from {SUIT_CHARS})"
        )
    return SUIT_CHARS.index(name[1]) * NUM_RANKS + RANK_CHARS.index(name[0])


def parse_cards(text: str | Iterable[str | int]) -> list[int]:
    """Card ids of a space- or comma-separated string of names, or of an iterable of names/ids."""
    items = text.replace(",", " ").split() if isinstance(text, str) else text
    return [parse_card(c) if isinstance(c, str) else _check_id(c) for c in items]


def _check_id(card: int) -> int:
    if not 0 <= int(card) < NUM_CARDS:
        raise ValueError(f"card id {card} is out of range 0..51")
    return int(card)


def card_name(card: int) -> str:
    """``"QS"`` for 36."""
    card = _check_id(card)
    return RANK_CHARS[card % NUM_RANKS] + SUIT_CHARS[card // NUM_RANKS]


def card_symbol(card: int) -> str:
    """``"Q♠"`` for 36; ten is written ``"10"``."""
    card = _check_id(card)
    rank = RANK_CHARS[card % NUM_RANKS]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[card // NUM_RANKS]


def check_decks(decks: int) -> int:
    if isinstance(decks, bool) or not isinstance(decks, (int, np.integer)) or decks not in PLAYERS_BY_DECKS:
        raise ValueError(f"decks must be 1 or 2 (2: Cancellation Hearts), got {decks!r}")
    return int(decks)


def check_num_players(num_players: int, decks: int = 1) -> int:
    low, high = PLAYERS_BY_DECKS[check_decks(decks)]
    with_decks = "" if decks == 1 else f" with decks={decks}"
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
        raise ValueError(f"num_players must be an int in {low}..{high}{with_decks}, got {num_players!r}")
    if not low <= num_players <= high:
        two = PLAYERS_BY_DECKS[2]
        hint = f" ({two[0]}..{two[1]} players play with decks=2)" if decks == 1 and num_players > high else ""
        raise ValueError(f"num_players must be in {low}..{high}{with_decks}, got {num_players}{hint}")
    return int(num_players)


def removed_cards(num_players: int, decks: int = 1) -> tuple[int, ...]:
    """Ids of the cards taken out of the deck for ``num_players`` (none with two decks)."""
    check_num_players(num_players, decks)
    return () if decks == 2 else tuple(parse_card(c) for c in REMOVED_CARDS[num_players])


@functools.cache
def deck(num_players: int, decks: int = 1) -> np.ndarray:
    """Sorted ids of the cards in play for ``num_players`` (read-only); with two decks every id
    twice (104 cards)."""
    ids = np.setdiff1d(np.arange(NUM_CARDS), removed_cards(num_players, decks))
    ids = np.repeat(ids, decks)
    ids.flags.writeable = False
    return ids


def hand_size(num_players: int, decks: int = 1) -> int:
    return len(deck(num_players, decks)) // num_players


def kitty_size(num_players: int, decks: int = 1) -> int:
    """Cards left over after dealing evenly, face down in the kitty (always 0 with one deck)."""
    return len(deck(num_players, decks)) % num_players


def lowest_club(num_players: int) -> int:
    """The club that leads the first trick with one deck: 2C, or 3C where 2C is removed."""
    return int(deck(num_players)[0])


def deal_from_hands(
    hands: Sequence[str | Iterable[str | int]], kitty: str | Iterable[str | int] = "", decks: int = 1
) -> np.ndarray:
    """A ``deals`` row for ``core.new_games``: the seat holding each card.

    ``hands[s]`` lists seat ``s``'s cards, e.g. ``["2C 3C QS ...", "AH KH ...", ...]``. One deck:
    52 entries, -1 for cards not held. Two decks: 104 entries, entry ``c`` for one copy of card
    ``c`` and ``52 + c`` for the other, ``KITTY`` (-2) for the cards of ``kitty``; a card may be
    listed twice (in one hand, two hands, or the kitty).
    """
    decks = check_decks(decks)
    if decks == 1 and kitty:
        raise ValueError("a kitty exists only with two decks")
    row = np.full(decks * NUM_CARDS, -1, dtype=np.int8)
    places = [(seat, hand) for seat, hand in enumerate(hands)] + [(KITTY, kitty)]
    for seat, held in places:
        for card in parse_cards(held):
            free = [i for i in range(card, decks * NUM_CARDS, NUM_CARDS) if row[i] == -1]
            if not free:
                owners = " and ".join(_place_name(row[i]) for i in range(card, decks * NUM_CARDS, NUM_CARDS))
                raise ValueError(f"{card_name(card)} is given to {owners} and {_place_name(seat)}")
            row[free[0]] = seat
    return row


def _place_name(seat: int) -> str:
    return "the kitty" if seat == KITTY else f"seat {seat}"
