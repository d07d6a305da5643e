"""The rules, compiled: numba kernels over a batch of games stored as records (``records.py``).

Each kernel takes the batch's ``(B, width)`` byte buffer, the layout's field offsets and the
rules as an int array (``rule_params``), and loops over the games; the same code serves one game
and thousands. Inside, a game's row is read through three typed views (64-, 32- and 8-bit), and
field ``F`` of seat ``s`` is ``r64[off[F] + s]`` (or ``r32``/``r8`` by the field's width).
``hearts_env.engine.core`` wraps these kernels in the public API. Compiled code elsewhere (the info-set
and observation kernels, the agents' card choices, search rollouts, compiled tables) calls the
per-card kernels and the rule facts published here (the points of a pile, the trick winner with
cancellation, the end of the game, the moon), so each rule has one compiled copy; the card
constants they all read (bitboards, points) live in ``cards``. ``illegal_reason`` says why
``legal_cards`` leaves a card out, by the same cascade (the core's ``IllegalMoveError`` words it).

Two decks (``rp[R_DECKS] == 2``, Cancellation Hearts): a pile that may hold both copies of a card
is two bitboards, the cards it holds at least once and the cards it holds twice (``hands`` and
``hands2``, ``kitty[0]`` and ``kitty[1]``, ...), so the first one alone is the set of card ids
and every one-deck rule that asks "does the seat hold this card" reads it unchanged. The fields
of the second copies have zero width in one-deck layouts and are never touched there.
"""

from __future__ import annotations

import enum
import functools

import numpy as np
from numba import njit, prange

from hearts_env.engine import cards
from hearts_env.engine.cards import (
    BIT,
    HEART_BITS,
    HEART_POINTS,
    JD_BIT,
    JD_POINTS,
    MOON_POINTS,
    NUM_CARDS,
    POINT_BITS,
    QS,
    QS_BIT,
    QS_POINTS,
    SUIT_BITS,
    SUIT_OF,
)
from hearts_env.engine.compiled import inline_kernel, row_kernel, store_bits
from hearts_env.engine.rules import MOON_RULES, HeartsRules
from hearts_env.engine.seeding import mix64_word

U64 = np.uint64
_ZERO, _ONE = U64(0), U64(1)

PASS, PLAY, GAME_OVER = 0, 1, 2
ADD_TO_OTHERS, SUBTRACT_FROM_SELF, SHOOTER_CHOICE = (
    MOON_RULES.index(name) for name in ("add_to_others", "subtract_from_self", "shooter_choice")
)

# --- The state's fields, in declaration order (the kernels' field ids) -------------------------
STATE_FIELDS = (
    "key",
    "hand_number",
    "phase",
    "to_play",
    "hands",
    "passed",
    "trick",
    "leader",
    "winner",
    "trick_size",
    "tricks_played",
    "played",
    "voids",
    "tricks",
    "trick_leaders",
    "last_trick",
    "last_trick_winner",
    "hearts_broken",
    "taken",
    "last_hand_taken",
    "scores",
    "last_hand_points",
    "hand_over",
    "winners",
    "legal",
    # Two decks only (zero width otherwise): the second copies, the kitty and the pot.
    "hands2",
    "passed2",
    "played2",
    "taken2",
    "last_hand_taken2",
    "kitty",
    "pot",
)
(
    F_KEY,
    F_HAND_NUMBER,
    F_PHASE,
    F_TO_PLAY,
    F_HANDS,
    F_PASSED,
    F_TRICK,
    F_LEADER,
    F_WINNER,
    F_TRICK_SIZE,
    F_TRICKS_PLAYED,
    F_PLAYED,
    F_VOIDS,
    F_TRICKS,
    F_TRICK_LEADERS,
    F_LAST_TRICK,
    F_LAST_TRICK_WINNER,
    F_HEARTS_BROKEN,
    F_TAKEN,
    F_LAST_HAND_TAKEN,
    F_SCORES,
    F_LAST_HAND_POINTS,
    F_HAND_OVER,
    F_WINNERS,
    F_LEGAL,
    F_HANDS2,
    F_PASSED2,
    F_PLAYED2,
    F_TAKEN2,
    F_LAST_HAND_TAKEN2,
    F_KITTY,
    F_POT,
) = range(len(STATE_FIELDS))

# --- The rules as an int array: entry R_X holds the knob rule_params writes to it -------------
# R_FIRST_LEAD: the cards that lead the first trick when held: the lowest club with one deck; with
# two decks the cards that are not points (no_points_on_first_trick) or none (the usual lead rules).
# R_DECK: bitboard of the cards in play. R_DECKS: 1 or 2. R_CYCLE: the pass offsets start here.
(
    R_PLAYERS,
    R_HAND_SIZE,
    R_PASS_COUNT,
    R_NO_POINTS_FIRST,
    R_QUEEN_BREAKS,
    R_JD,
    R_MOON,
    R_TARGET,
    R_FIRST_LEAD,
    R_HISTORY,
    R_DECK,
    R_DECKS,
    R_CYCLE_LENGTH,
    R_CYCLE,
) = range(14)


@functools.cache
def rule_params(rules: HeartsRules, history: bool = False) -> np.ndarray:
    """The rules as the int array the kernels read (read-only): entry ``R_X`` holds the knob it
    names, and the pass offsets of the cycle follow from ``R_CYCLE`` on."""
    offsets = rules.pass_offsets if rules.pass_count else (0,)
    params = np.zeros(R_CYCLE + len(offsets), np.int64)
    params[R_PLAYERS] = rules.num_players
    params[R_HAND_SIZE] = rules.hand_size
    params[R_PASS_COUNT] = rules.pass_count
    params[R_NO_POINTS_FIRST] = rules.no_points_on_first_trick
    params[R_QUEEN_BREAKS] = rules.queen_breaks_hearts
    params[R_JD] = rules.jack_of_diamonds
    params[R_MOON] = MOON_RULES.index(rules.moon)
    params[R_TARGET] = rules.target_score or 0
    params[R_FIRST_LEAD] = first_lead_bits(rules)
    params[R_HISTORY] = rules.hand_size if history else 0
    params[R_DECK] = deck_bits(rules.num_players, rules.decks)
    params[R_DECKS] = rules.decks
    params[R_CYCLE_LENGTH] = len(offsets)
    params[R_CYCLE:] = offsets
    params.flags.writeable = False
    return params


def first_lead_bits(rules: HeartsRules) -> int:
    """The cards that lead the first trick when held (``R_FIRST_LEAD``)."""
    if rules.decks == 1:
        return int(BIT[cards.lowest_club(rules.num_players)])
    return int(~POINT_BITS & deck_bits(rules.num_players, 2)) if rules.no_points_on_first_trick else 0


@functools.cache
def deck_bits(num_players: int, decks: int = 1) -> np.uint64:
    """Bitboard of the cards in play with ``num_players`` players (every card with two decks)."""
    return U64(np.bitwise_or.reduce(BIT[cards.deck(num_players, decks)]))


_M1, _M2, _M4, _H01 = U64(0x5555555555555555), U64(0x3333333333333333), U64(0x0F0F0F0F0F0F0F0F), U64(0x0101010101010101)


@inline_kernel
def byte_counts(x: np.uint64) -> np.uint64:
    """The number of set bits of each byte of ``x``, in that byte."""
    x = x - ((x >> _ONE) & _M1)
    x = (x & _M2) + ((x >> U64(2)) & _M2)
    return (x + (x >> U64(4))) & _M4


@row_kernel  # not inlined: the agents count bits in many places, and inlining it everywhere cost 30 s of compiling
def popcount(x: np.uint64) -> int:
    return int((byte_counts(x) * _H01) >> U64(56))


@njit(cache=True, inline="always")
def count(bits: np.uint64) -> int:
    """Number of cards in a bitboard (an int64: numba would make uint64 arithmetic floats)."""
    return np.int64(popcount(bits))


@njit(cache=True, inline="always")
def wrap_seat(x: int, P: int) -> int:
    """``x % P`` for ``x`` in -P..2P - 1, without a division (a division costs more than the
    rest of a seat's update)."""
    if x < 0:
        return x + P
    return x - P if x >= P else x


@inline_kernel
def low_card(bits: np.uint64) -> int:
    """The lowest card id of a bitboard, -1 for an empty one."""
    if bits == 0:
        return -1
    return np.int64(popcount((bits & (~bits + _ONE)) - _ONE))  # an int64: numba makes uint64 arithmetic floats


@inline_kernel
def high_card(bits: np.uint64) -> int:
    """The highest card id of a bitboard, -1 for an empty one."""
    bits |= bits >> U64(1)
    bits |= bits >> U64(2)
    bits |= bits >> U64(4)
    bits |= bits >> U64(8)
    bits |= bits >> U64(16)
    bits |= bits >> U64(32)
    return np.int64(popcount(bits)) - 1


def _select_in_byte() -> np.ndarray:
    """``[byte | k << 8]``: position of the k-th set bit of the byte (8 if it has no k-th)."""
    table = np.full(256 * 8, 8, np.int8)
    for byte in range(256):
        ones = [i for i in range(8) if byte >> i & 1]
        for k, position in enumerate(ones):
            table[byte | k << 8] = position
    return table


SELECT_IN_BYTE = _select_in_byte()
_MSBS = U64(0x8080808080808080)


@inline_kernel
def nth_set_bit(bits: np.uint64, k: int) -> int:
    """Position of the k-th (0-based) set bit of ``bits`` (which has more than k).

    Branch-free (a broadword select): with random cards a loop over the set bits mispredicted its
    exit about once a call, which cost more than the rest of a random move."""
    below = byte_counts(bits) * _H01  # byte i: the set bits of bytes 0..i (at most 64, so bit 7 stays free)
    # Bit 7 of byte i of the difference is set where bytes 0..i hold at most k set bits.
    at_most_k = (((U64(k) * _H01) | _MSBS) - below) & _MSBS
    place = int(((at_most_k >> U64(7)) * _H01) >> U64(56)) * 8  # those bytes counted: where the k-th bit's starts
    rank = k - int(((below << U64(8)) >> U64(place)) & U64(0xFF))
    return place + SELECT_IN_BYTE[int((bits >> U64(place)) & U64(0xFF)) | rank << 8]


@inline_kernel
def raw_points(pile: np.uint64) -> int:
    """Hearts and QS points of a pile of cards, before the JD rule and the moon."""
    return popcount(pile & HEART_BITS) * HEART_POINTS + (QS_POINTS if pile & QS_BIT else 0)


@inline_kernel
def pile_points(pile: np.uint64, jack_of_diamonds: bool) -> int:
    """Points of a pile of cards before the moon: hearts, the QS and, with the JD rule, the JD."""
    return raw_points(pile) + (JD_POINTS if jack_of_diamonds and pile & JD_BIT else 0)


@inline_kernel
def pass_offset(rp: np.ndarray, hand_number: int) -> int:
    """Receiver offset of hand ``hand_number``'s pass (receiver = giver + offset mod P); 0 = none."""
    return rp[R_CYCLE + (hand_number - 1) % rp[R_CYCLE_LENGTH]]


# --- Piles of two decks: (at least once, twice) bitboard pairs ------------------------------------


@inline_kernel
def add_card(r64: np.ndarray, once: int, twice: int, bit: np.uint64) -> None:
    """Put one copy of the card ``bit`` in the pile at ``r64[once], r64[twice]``."""
    if r64[once] & bit:
        r64[twice] |= bit
    else:
        r64[once] |= bit


@inline_kernel
def remove_card(r64: np.ndarray, once: int, twice: int, bit: np.uint64) -> None:
    """Take one copy of the card ``bit`` (held) out of the pile at ``r64[once], r64[twice]``."""
    if r64[twice] & bit:
        r64[twice] ^= bit
    else:
        r64[once] ^= bit


@inline_kernel
def add_piles(a: np.uint64, a2: np.uint64, b: np.uint64, b2: np.uint64) -> tuple[np.uint64, np.uint64]:
    """The pile (a, a2) plus the pile (b, b2), of two decks: no card more than twice in all."""
    return a | b, a2 | b2 | (a & b)


@inline_kernel
def remove_pile(a: np.uint64, a2: np.uint64, b: np.uint64, b2: np.uint64) -> tuple[np.uint64, np.uint64]:
    """The pile (a, a2) less the pile (b, b2) it contains."""
    return (a & ~b) | (a2 & ~b2), a2 & ~b


@inline_kernel
def pair_points(once: np.uint64, twice: np.uint64, jack_of_diamonds: bool) -> int:
    """Points of a two-deck pile (``once``: its cards, ``twice``: those it holds twice) before the moon."""
    return pile_points(once, jack_of_diamonds) + pile_points(twice, jack_of_diamonds)


@row_kernel
def seat_points(r64: np.ndarray, off: np.ndarray, rp: np.ndarray, seat: int) -> int:
    """Points ``seat`` has taken so far this hand (both copies with two decks), before the moon."""
    jd = rp[R_JD] != 0
    if rp[R_DECKS] == 2:
        return pair_points(r64[off[F_TAKEN] + seat], r64[off[F_TAKEN2] + seat], jd)
    return pile_points(r64[off[F_TAKEN] + seat], jd)


@inline_kernel
def game_ends(highest: int, rp: np.ndarray) -> bool:
    """Whether a hand that leaves the highest game total at ``highest`` ends the game (a single-hand
    game, ``target_score`` None, always ends)."""
    return rp[R_TARGET] == 0 or highest >= rp[R_TARGET]


@inline_kernel
def uncancelled_winner(once: np.uint64, twice: np.uint64, led_suit: int) -> int:
    """Two decks: the winning card of a trick holding the pile (``once``, ``twice``): the highest
    card of the led suit played only once (two copies of a card cancel each other), -1 if every
    card of the led suit is cancelled."""
    return high_card(once & ~twice & SUIT_BITS[led_suit])


# --- Legal cards: the cascade ------------------------------------------------------------------


@inline_kernel
def legal_cards(r64: np.ndarray, r8: np.ndarray, off: np.ndarray, rp: np.ndarray) -> np.uint64:
    """Legal cards of the seat to act in one game."""
    phase = r8[off[F_PHASE]]
    if phase == GAME_OVER:
        return _ZERO
    hand = r64[off[F_HANDS] + r8[off[F_TO_PLAY]]]
    if phase == PASS:  # any held card may be picked to pass
        return hand
    first_trick = r8[off[F_TRICKS_PLAYED]] == 0
    if r8[off[F_TRICK_SIZE]] == 0:
        # Leading the first trick: the lowest club opens the hand. Two decks: the seat left of the
        # dealer leads, no heart or QS (with no_points_on_first_trick) unless it holds nothing else.
        # (In this form the compiled cascade is as fast as with the one-deck rule alone; others were
        # up to 20% slower.)
        if first_trick and hand & U64(rp[R_FIRST_LEAD]):
            return hand & U64(rp[R_FIRST_LEAD])
        # Hearts only once broken, or from a hand of nothing but hearts (and the QS).
        any_card = (r8[off[F_HEARTS_BROKEN]] != 0) | ((hand & ~POINT_BITS) == _ZERO)
        return hand if any_card else hand & ~HEART_BITS
    # Following: the led suit if able. Void: any card, but no hearts or QS on the first trick
    # unless the hand holds nothing else. (Selects, not branches: which case applies is random.)
    lead = r8[off[F_TRICK] + r8[off[F_LEADER]]]
    follow = hand & SUIT_BITS[SUIT_OF[lead]]
    safe = hand & ~POINT_BITS
    void = safe if (rp[R_NO_POINTS_FIRST] != 0) & first_trick & (safe != _ZERO) else hand
    return follow if follow != _ZERO else void


class IllegalReason(enum.IntEnum):
    """Why a card is not legal for the seat to act: the step of ``legal_cards``' cascade that
    leaves it out (``illegal_reason``)."""

    LEGAL = 0
    NOT_A_CARD = 1  # not a card id 0..51
    GAME_OVER = 2
    ALREADY_PICKED = 3  # passing: the seat picked it (every copy of it) already
    NOT_HELD = 4
    MUST_LEAD_LOWEST_CLUB = 5  # one deck: the lowest club leads the first trick
    NO_POINTS_LEAD_FIRST_TRICK = 6  # two decks, no_points_on_first_trick: no point card leads it
    HEARTS_NOT_BROKEN = 7
    MUST_FOLLOW_SUIT = 8
    NO_POINTS_FIRST_TRICK = 9  # void on the first trick: no hearts or QS (no_points_on_first_trick)


@inline_kernel
def illegal_reason(r64: np.ndarray, r8: np.ndarray, off: np.ndarray, rp: np.ndarray, card: int) -> IllegalReason:
    """Why ``legal_cards`` leaves ``card`` out for the seat to act in one game (``LEGAL`` if it
    does not): its cascade, step by step (tests check that the two agree on every card)."""
    if card < 0 or card >= NUM_CARDS:
        return IllegalReason.NOT_A_CARD
    phase = r8[off[F_PHASE]]
    if phase == GAME_OVER:
        return IllegalReason.GAME_OVER
    seat = r8[off[F_TO_PLAY]]
    hand, bit = r64[off[F_HANDS] + seat], BIT[card]
    if (hand & bit) == _ZERO:
        if phase == PASS and (r64[off[F_PASSED] + seat] & bit) != _ZERO:
            return IllegalReason.ALREADY_PICKED
        return IllegalReason.NOT_HELD
    if phase == PASS:
        return IllegalReason.LEGAL
    first_trick = r8[off[F_TRICKS_PLAYED]] == 0
    if r8[off[F_TRICK_SIZE]] == 0:
        first_lead = U64(rp[R_FIRST_LEAD])
        if first_trick and (hand & first_lead) != _ZERO:
            if (bit & first_lead) != _ZERO:
                return IllegalReason.LEGAL
            return IllegalReason.MUST_LEAD_LOWEST_CLUB if rp[R_DECKS] == 1 else IllegalReason.NO_POINTS_LEAD_FIRST_TRICK
        if r8[off[F_HEARTS_BROKEN]] != 0 or (hand & ~POINT_BITS) == _ZERO or (bit & HEART_BITS) == _ZERO:
            return IllegalReason.LEGAL
        return IllegalReason.HEARTS_NOT_BROKEN
    follow = hand & SUIT_BITS[SUIT_OF[r8[off[F_TRICK] + r8[off[F_LEADER]]]]]
    if follow != _ZERO:
        return IllegalReason.LEGAL if (bit & follow) != _ZERO else IllegalReason.MUST_FOLLOW_SUIT
    safe = hand & ~POINT_BITS
    if rp[R_NO_POINTS_FIRST] != 0 and first_trick and safe != _ZERO and (bit & safe) == _ZERO:
        return IllegalReason.NO_POINTS_FIRST_TRICK
    return IllegalReason.LEGAL


@row_kernel
def game_illegal_reason(data: np.ndarray, off: np.ndarray, rp: np.ndarray, game: int, card: int) -> IllegalReason:
    """``illegal_reason`` of ``card`` in game ``game`` of a batch."""
    return illegal_reason(data.view(U64)[game], data.view(np.int8)[game], off, rp, card)


@row_kernel
def update_legal(data: np.ndarray, off: np.ndarray, rp: np.ndarray) -> None:
    d64, d8 = data.view(U64), data.view(np.int8)
    for g in range(data.shape[0]):
        d64[g, off[F_LEGAL]] = legal_cards(d64[g], d8[g], off, rp)


# --- Dealing and starting hands ------------------------------------------------------------------


@row_kernel
def deal(
    r64: np.ndarray,
    off: np.ndarray,
    rp: np.ndarray,
    deck: np.ndarray,
    key: np.uint64,
    hand_number: int,
    shuffled: np.ndarray,
) -> None:
    """Deal hand ``hand_number`` of the game with this key: a Fisher-Yates shuffle of the deck
    (into the scratch array ``shuffled``) driven by hashed counters, cut into hands; with two
    decks the cards left over form the kitty."""
    P, size = rp[R_PLAYERS], rp[R_HAND_SIZE]
    counter = mix64_word(key ^ (U64(hand_number) * U64(0xD1B54A32D192ED03)))
    n = len(deck)
    for i in range(n):
        shuffled[i] = deck[i]
    word = _ZERO
    for i in range(n - 1, 0, -1):
        if i % 2 == 1:  # each hashed word gives two 32-bit draws
            word = mix64_word(counter + U64(i) * U64(0xA0761D6478BD642F))
        else:
            word >>= U64(32)
        j = int(((word & U64(0xFFFFFFFF)) * U64(i + 1)) >> U64(32))  # uniform in 0..i (bias < 2^-26)
        shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
    if rp[R_DECKS] == 2:
        for s in range(P):
            r64[off[F_HANDS] + s] = r64[off[F_HANDS2] + s] = _ZERO
            for i in range(s * size, (s + 1) * size):
                add_card(r64, off[F_HANDS] + s, off[F_HANDS2] + s, BIT[shuffled[i]])
        r64[off[F_KITTY]] = r64[off[F_KITTY] + 1] = _ZERO
        for i in range(P * size, n):
            add_card(r64, off[F_KITTY], off[F_KITTY] + 1, BIT[shuffled[i]])
        return
    for s in range(P):
        hand = _ZERO
        for i in range(s * size, (s + 1) * size):
            hand |= BIT[shuffled[i]]
        r64[off[F_HANDS] + s] = hand


@row_kernel
def start_play(r64: np.ndarray, r32: np.ndarray, r8: np.ndarray, off: np.ndarray, rp: np.ndarray) -> None:
    """The holder of the lowest club leads the first trick; with two decks, the seat left of the
    dealer: seat (h - 1) mod P in hand h."""
    first = 0
    if rp[R_DECKS] == 2:
        first = (r32[off[F_HAND_NUMBER]] - 1) % rp[R_PLAYERS]
    else:
        for s in range(rp[R_PLAYERS]):
            if r64[off[F_HANDS] + s] & U64(rp[R_FIRST_LEAD]):  # the lowest club
                first = s
    r8[off[F_PHASE]] = PLAY
    r8[off[F_TO_PLAY]] = first
    r8[off[F_LEADER]] = first
    r8[off[F_WINNER]] = first


@row_kernel
def start_hand(r64: np.ndarray, r32: np.ndarray, r8: np.ndarray, off: np.ndarray, rp: np.ndarray) -> None:
    """Reset the per-hand fields of a freshly dealt game and open the pass (or the play)."""
    P, H = rp[R_PLAYERS], rp[R_HISTORY]
    for s in range(P):
        r64[off[F_PASSED] + s] = _ZERO
        r64[off[F_TAKEN] + s] = _ZERO
        r64[off[F_PLAYED] + s] = _ZERO
        r8[off[F_VOIDS] + s] = 0
        r8[off[F_TRICK] + s] = -1
        if rp[R_DECKS] == 2:
            r64[off[F_PASSED2] + s] = r64[off[F_TAKEN2] + s] = r64[off[F_PLAYED2] + s] = _ZERO
    if rp[R_DECKS] == 2:
        r64[off[F_POT]] = r64[off[F_POT] + 1] = _ZERO
    for i in range(H * P):
        r8[off[F_TRICKS] + i] = -1
    for i in range(H):
        r8[off[F_TRICK_LEADERS] + i] = -1
    r8[off[F_TRICK_SIZE]] = 0
    r8[off[F_TRICKS_PLAYED]] = 0
    r8[off[F_HEARTS_BROKEN]] = 0
    r8[off[F_PHASE]] = PASS
    r8[off[F_TO_PLAY]] = 0
    if pass_offset(rp, r32[off[F_HAND_NUMBER]]) == 0:
        start_play(r64, r32, r8, off, rp)


@row_kernel
def open_hands(data: np.ndarray, off: np.ndarray, rp: np.ndarray) -> None:
    """Open the current hand of every game again from the hands it holds now (``core.deal_hands``)."""
    d64, d32, d8 = data.view(U64), data.view(np.int32), data.view(np.int8)
    for g in range(data.shape[0]):
        start_hand(d64[g], d32[g], d8[g], off, rp)
        d64[g, off[F_LEGAL]] = legal_cards(d64[g], d8[g], off, rp)


@row_kernel
def new_games(
    data: np.ndarray, off: np.ndarray, rp: np.ndarray, deck: np.ndarray, dealt: bool, shuffled: np.ndarray
) -> None:
    """Open hand 1 of every game; deal it from the game's key unless ``dealt`` (hands given).
    ``shuffled``: scratch of the deck's length."""
    P = rp[R_PLAYERS]
    d64, d32, d8 = data.view(U64), data.view(np.int32), data.view(np.int8)
    for g in range(data.shape[0]):
        r64, r32, r8 = d64[g], d32[g], d8[g]
        r32[off[F_HAND_NUMBER]] = 1
        r8[off[F_LEADER]] = 0
        r8[off[F_WINNER]] = 0
        r8[off[F_LAST_TRICK_WINNER]] = -1
        for s in range(P):
            r8[off[F_LAST_TRICK] + s] = -1
        if not dealt:
            deal(r64, off, rp, deck, r64[off[F_KEY]], r32[off[F_HAND_NUMBER]], shuffled)  # an int32: one compile
        start_hand(r64, r32, r8, off, rp)
        r64[off[F_LEGAL]] = legal_cards(r64, r8, off, rp)


# --- Scoring -------------------------------------------------------------------------------------


@row_kernel
def shot_the_moon(taken: np.uint64, taken2: np.uint64, two: bool) -> bool:
    """Whether a seat that took ``taken`` (and ``taken2`` twice, with two decks) in a hand took
    every point card of it."""
    every = (taken & POINT_BITS) == POINT_BITS
    return every and (not two or (taken2 & POINT_BITS) == POINT_BITS)


@row_kernel
def moon_shooters(taken: np.ndarray, taken2: np.ndarray, two: bool, out: np.ndarray) -> None:
    """``out[g, s]``: seat s shot the moon with the cards ``taken[g, s]`` (``taken2``: those taken
    twice, read with two decks)."""
    for g in range(taken.shape[0]):
        for s in range(taken.shape[1]):
            out[g, s] = shot_the_moon(taken[g, s], taken2[g, s], two)


@row_kernel
def hand_score2(taken: np.ndarray, taken2: np.ndarray, totals: np.ndarray, rp: np.ndarray, out: np.ndarray) -> None:
    """``out`` (P,): the score of a completed hand from the cards each seat took (``taken2``: the
    cards it took twice, read only with two decks) and the game totals before it: hearts 1, QS 13,
    the moon rule, and the JD rule (-10 per JD) on top."""
    P, two = rp[R_PLAYERS], rp[R_DECKS] == 2
    moon_points = MOON_POINTS * rp[R_DECKS]  # every point card of the hand
    shooter = -1
    for s in range(P):
        out[s] = raw_points(taken[s]) + (raw_points(taken2[s]) if two else 0)
        if shot_the_moon(taken[s], taken2[s], two):
            shooter = s
    moon = rp[R_MOON]
    if shooter >= 0 and moon == SHOOTER_CHOICE:
        # Add to the others, unless that would end the game with the shooter above the lowest.
        lowest, highest, mine = 1 << 30, -(1 << 30), 0  # over the totals after adding
        for s in range(P):
            after = totals[s] + (0 if s == shooter else moon_points)
            if rp[R_JD]:
                after += JD_POINTS * jacks_taken(taken, taken2, s, two)
            lowest = min(lowest, after)
            highest = max(highest, after)
            if s == shooter:
                mine = after
        moon = SUBTRACT_FROM_SELF if game_ends(highest, rp) and mine > lowest else ADD_TO_OTHERS
    for s in range(P):
        if shooter >= 0:
            if moon == ADD_TO_OTHERS:
                out[s] = 0 if s == shooter else moon_points
            else:
                out[s] = -moon_points if s == shooter else 0
        if rp[R_JD]:
            out[s] += JD_POINTS * jacks_taken(taken, taken2, s, two)


@row_kernel
def jacks_taken(taken: np.ndarray, taken2: np.ndarray, seat: int, two: bool) -> int:
    """How many JDs ``seat`` took (0..2 with two decks)."""
    jacks = 1 if taken[seat] & JD_BIT else 0
    if two and taken2[seat] & JD_BIT:
        jacks += 1
    return jacks


@row_kernel
def score_hands(taken: np.ndarray, taken2: np.ndarray, totals: np.ndarray, rp: np.ndarray, out: np.ndarray) -> None:
    for g in range(taken.shape[0]):
        hand_score2(taken[g], taken2[g], totals[g], rp, out[g])


# --- Stepping ------------------------------------------------------------------------------------


@row_kernel
def end_hand(
    r64: np.ndarray,
    r32: np.ndarray,
    r8: np.ndarray,
    off: np.ndarray,
    rp: np.ndarray,
    deck: np.ndarray,
    shuffled: np.ndarray,
) -> None:
    """Score the completed hand, then end the game or deal the next hand."""
    P, two = rp[R_PLAYERS], rp[R_DECKS] == 2
    taken = r64[off[F_TAKEN] : off[F_TAKEN] + P]
    taken2 = r64[off[F_TAKEN2] : off[F_TAKEN2] + P] if two else taken  # read only with two decks
    scores = r32[off[F_SCORES] : off[F_SCORES] + P]
    points = r32[off[F_LAST_HAND_POINTS] : off[F_LAST_HAND_POINTS] + P]
    hand_score2(taken, taken2, scores, rp, points)
    lowest = highest = scores[0] + points[0]
    for s in range(P):
        scores[s] += points[s]
        r64[off[F_LAST_HAND_TAKEN] + s] = taken[s]
        if two:
            r64[off[F_LAST_HAND_TAKEN2] + s] = taken2[s]
        lowest = min(lowest, scores[s])
        highest = max(highest, scores[s])
    r8[off[F_HAND_OVER]] = 1
    if game_ends(highest, rp):
        r8[off[F_PHASE]] = GAME_OVER
        r8[off[F_TO_PLAY]] = -1
        for s in range(P):
            r8[off[F_WINNERS] + s] = scores[s] == lowest
    else:
        r32[off[F_HAND_NUMBER]] += 1
        deal(r64, off, rp, deck, r64[off[F_KEY]], r32[off[F_HAND_NUMBER]], shuffled)
        start_hand(r64, r32, r8, off, rp)


@inline_kernel
def end_trick(
    r64: np.ndarray,
    r32: np.ndarray,
    r8: np.ndarray,
    off: np.ndarray,
    rp: np.ndarray,
    deck: np.ndarray,
    shuffled: np.ndarray,
) -> None:
    """The winner takes the trick and leads the next; a hand's last trick ends the hand.

    Two decks: a trick without a winner (every card of the led suit cancelled) goes into the pot
    and its leader leads again, unless it is the hand's last trick: then its leader takes it. The
    next trick that has a taker takes the pot with it, and the first one also the kitty."""
    P, two = rp[R_PLAYERS], rp[R_DECKS] == 2
    winner, leader = r8[off[F_WINNER]], r8[off[F_LEADER]]
    lead_suit = SUIT_OF[r8[off[F_TRICK] + leader]]
    number = r8[off[F_TRICKS_PLAYED]]
    last = number + 1 == rp[R_HAND_SIZE]
    pile = pile2 = _ZERO
    for s in range(P):
        card = r8[off[F_TRICK] + s]
        if two:
            pile, pile2 = add_piles(pile, pile2, BIT[card], _ZERO)
            add_card(r64, off[F_PLAYED] + s, off[F_PLAYED2] + s, BIT[card])
        else:
            pile |= BIT[card]
            r64[off[F_PLAYED] + s] |= BIT[card]
        r8[off[F_VOIDS] + s] |= (SUIT_OF[card] != lead_suit) << lead_suit
        if rp[R_HISTORY]:
            r8[off[F_TRICKS] + number * P + s] = card
        r8[off[F_LAST_TRICK] + s] = card
        r8[off[F_TRICK] + s] = -1
    taker = winner
    if two:
        if taker < 0 and last:
            taker = leader
        pile, pile2 = add_piles(pile, pile2, r64[off[F_POT]], r64[off[F_POT] + 1])
        if taker >= 0:
            pile, pile2 = add_piles(pile, pile2, r64[off[F_KITTY]], r64[off[F_KITTY] + 1])
            r64[off[F_KITTY]] = r64[off[F_KITTY] + 1] = _ZERO
            t, t2 = r64[off[F_TAKEN] + taker], r64[off[F_TAKEN2] + taker]
            r64[off[F_TAKEN] + taker], r64[off[F_TAKEN2] + taker] = add_piles(t, t2, pile, pile2)
            pile = pile2 = _ZERO
        r64[off[F_POT]], r64[off[F_POT] + 1] = pile, pile2
    else:
        r64[off[F_TAKEN] + winner] |= pile
    if rp[R_HISTORY]:
        r8[off[F_TRICK_LEADERS] + number] = leader
    r8[off[F_LAST_TRICK_WINNER]] = taker
    lead = taker if taker >= 0 else leader
    r8[off[F_TRICK_SIZE]] = 0
    r8[off[F_LEADER]] = lead
    r8[off[F_WINNER]] = lead
    r8[off[F_TO_PLAY]] = lead
    r8[off[F_TRICKS_PLAYED]] = number + 1
    if last:
        end_hand(r64, r32, r8, off, rp, deck, shuffled)


@inline_kernel
def trick_winner(r8: np.ndarray, off: np.ndarray, rp: np.ndarray) -> int:
    """Two decks: the seat of the highest card of the led suit in the trick that no other copy of
    it cancels, or -1 if every such card is cancelled."""
    once = twice = _ZERO
    for s in range(rp[R_PLAYERS]):
        card = r8[off[F_TRICK] + s]
        if card >= 0:
            once, twice = add_piles(once, twice, BIT[card], _ZERO)
    best = uncancelled_winner(once, twice, SUIT_OF[r8[off[F_TRICK] + r8[off[F_LEADER]]]])
    for s in range(rp[R_PLAYERS]):
        if best >= 0 and r8[off[F_TRICK] + s] == best:
            return s
    return -1


@inline_kernel
def step_game(
    r64: np.ndarray,
    r32: np.ndarray,
    r8: np.ndarray,
    off: np.ndarray,
    rp: np.ndarray,
    deck: np.ndarray,
    card: int,
    shuffled: np.ndarray,
) -> None:
    """Apply one legal card for the seat to act (``shuffled``: scratch for dealing the next hand)."""
    P, two = rp[R_PLAYERS], rp[R_DECKS] == 2
    r8[off[F_HAND_OVER]] = 0
    phase = r8[off[F_PHASE]]
    if phase == GAME_OVER:
        return
    seat = r8[off[F_TO_PLAY]]
    bit = BIT[card]
    if two:
        remove_card(r64, off[F_HANDS] + seat, off[F_HANDS2] + seat, bit)
    else:
        r64[off[F_HANDS] + seat] ^= bit
    if phase == PASS:
        if two:
            add_card(r64, off[F_PASSED] + seat, off[F_PASSED2] + seat, bit)
            picked = popcount(r64[off[F_PASSED] + seat]) + popcount(r64[off[F_PASSED2] + seat])
        else:
            r64[off[F_PASSED] + seat] |= bit
            picked = popcount(r64[off[F_PASSED] + seat])
        if picked == rp[R_PASS_COUNT]:
            r8[off[F_TO_PLAY]] = seat + 1
            if seat + 1 == P:
                # Every seat has picked: the passes move together. Seat s receives from s - offset.
                offset = pass_offset(rp, r32[off[F_HAND_NUMBER]])
                for s in range(P):
                    giver = wrap_seat(s - offset, P)
                    if two:
                        h, h2 = r64[off[F_HANDS] + s], r64[off[F_HANDS2] + s]
                        p, p2 = r64[off[F_PASSED] + giver], r64[off[F_PASSED2] + giver]
                        r64[off[F_HANDS] + s], r64[off[F_HANDS2] + s] = add_piles(h, h2, p, p2)
                    else:
                        r64[off[F_HANDS] + s] |= r64[off[F_PASSED] + giver]
                start_play(r64, r32, r8, off, rp)
    else:
        r8[off[F_TRICK] + seat] = card
        if two:  # a card may cancel the one winning so far: look at the whole trick again
            r8[off[F_WINNER]] = trick_winner(r8, off, rp)
        else:
            # The winner so far is the leader before any card, so the first card compares with itself.
            # (Bitwise, not short-circuit: a branch here mispredicts often with random cards.)
            lead = r8[off[F_TRICK] + r8[off[F_LEADER]]]
            winner = r8[off[F_WINNER]]
            beats = (SUIT_OF[card] == SUIT_OF[lead]) & (card > r8[off[F_TRICK] + winner])
            r8[off[F_WINNER]] = seat if beats else winner
        breaks = (SUIT_OF[card] == cards.HEARTS) | ((card == QS) & (rp[R_QUEEN_BREAKS] != 0))
        r8[off[F_HEARTS_BROKEN]] |= breaks
        r8[off[F_TRICK_SIZE]] += 1
        r8[off[F_TO_PLAY]] = wrap_seat(seat + 1, P)
        if r8[off[F_TRICK_SIZE]] == P:
            end_trick(r64, r32, r8, off, rp, deck, shuffled)


@row_kernel
def first_illegal(data: np.ndarray, actions: np.ndarray, off: np.ndarray) -> int:
    """The first game whose action is not a legal card (games over accept anything), or -1."""
    d64, d8 = data.view(U64), data.view(np.int8)
    for g in range(data.shape[0]):
        if d8[g, off[F_PHASE]] == GAME_OVER:
            continue
        card = actions[g]
        if card < 0 or card >= NUM_CARDS or not (d64[g, off[F_LEGAL]] & BIT[card]):
            return g
    return -1


@njit(cache=True)
def step(data: np.ndarray, actions: np.ndarray, off: np.ndarray, rp: np.ndarray, deck: np.ndarray) -> int:
    """Step every game in place with its action; if any action is illegal, change nothing and
    return the first such game (else -1)."""
    bad = first_illegal(data, actions, off)
    if bad >= 0:
        return bad
    step_games(data, actions, off, rp, deck, 0, data.shape[0], np.empty(len(deck), np.int8))
    return -1


@row_kernel
def step_games(
    data: np.ndarray,
    actions: np.ndarray,
    off: np.ndarray,
    rp: np.ndarray,
    deck: np.ndarray,
    start: int,
    stop: int,
    shuffled: np.ndarray,
) -> None:
    """Step the games ``start..stop - 1`` (all legal) in place (``shuffled``: scratch of the
    deck's length, for dealing the next hand)."""
    d64, d32, d8 = data.view(U64), data.view(np.int32), data.view(np.int8)
    for g in range(start, stop):
        r64, r32, r8 = d64[g], d32[g], d8[g]
        step_game(r64, r32, r8, off, rp, deck, actions[g], shuffled)
        r64[off[F_LEGAL]] = legal_cards(r64, r8, off, rp)


PARALLEL_CHUNK = 256  # games a thread steps at a time


@njit(cache=True, parallel=True)
def step_parallel(data: np.ndarray, actions: np.ndarray, off: np.ndarray, rp: np.ndarray, deck: np.ndarray) -> int:
    """``step`` with chunks of games spread over numba's threads."""
    bad = first_illegal(data, actions, off)
    if bad >= 0:
        return bad
    B = data.shape[0]
    for chunk in prange((B + PARALLEL_CHUNK - 1) // PARALLEL_CHUNK):
        start = chunk * PARALLEL_CHUNK
        step_games(data, actions, off, rp, deck, start, min(start + PARALLEL_CHUNK, B), np.empty(len(deck), np.int8))
    return -1


@row_kernel
def sample_legal(data: np.ndarray, off: np.ndarray, uniform: np.ndarray, out: np.ndarray) -> None:
    """``out[g]``: the legal card of rank ``floor(uniform[g] * count)`` among game g's legal cards
    (0 once the game is over)."""
    d64 = data.view(U64)
    for g in range(data.shape[0]):
        legal = d64[g, off[F_LEGAL]]
        out[g] = nth_set_bit(legal, int(uniform[g] * popcount(legal))) if legal else 0


@row_kernel
def sample_bits(bits: np.ndarray, uniform: np.ndarray, out: np.ndarray) -> None:
    """``out[g]``: a set bit of ``bits[g]`` chosen by ``uniform[g]`` (0 for an empty word)."""
    for g in range(bits.shape[0]):
        out[g] = nth_set_bit(bits[g], int(uniform[g] * popcount(bits[g]))) if bits[g] else 0


@row_kernel
def spread_bits(bits: np.ndarray, out: np.ndarray) -> None:
    """``out[g]``: the 52 bits of ``bits[g]`` as 0/1 bytes (``out`` (n, 52) uint8)."""
    for g in range(bits.shape[0]):
        store_bits(out[g], 0, bits[g], NUM_CARDS)
