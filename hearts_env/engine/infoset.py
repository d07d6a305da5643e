"""What one seat may know, as batched arrays (an information set).

Everything here is visible to the observer at the table: its own hand, what it passed and
received, every card played and by whom, the current trick and who is winning it, points taken,
game totals, the suits each seat is known to be void in and the cards it has not seen. Nothing
hidden goes in, so agents and observation encoders that read only an ``InfoSet`` cannot cheat.

Seats are relative to the observer: 0 = itself, 1 = its left, ..., P - 1 = its right.

With two decks (Cancellation Hearts) a pile that may hold both copies of a card is two bitboards,
as in the core: ``hand`` the cards held at least once and ``hand2`` those held twice, and so on.
The observer also knows the pot on the table and how many cards lie face down in the kitty, but
not which, until the kitty is taken (then its cards are in the taker's ``taken``). With one deck
the fields of the second copies, the pot and the kitty are zero.
An ``InfoSet`` is built by a compiled kernel from the core's state (``infoset(state, seat)``);
``world_states`` goes back: core states from info sets and the cards hidden from the observer (a
search's sampled worlds).
"""

from __future__ import annotations

import functools

import numpy as np

from hearts_env.engine import kernels as k
from hearts_env.engine.cards import BIT, SUIT_OF
from hearts_env.engine.compiled import inline_kernel, row_kernel
from hearts_env.engine.core import State, state_layout
from hearts_env.engine.kernels import rule_params
from hearts_env.engine.records import Layout, Records, cached_layout
from hearts_env.engine.rules import HeartsRules

U64 = np.uint64

INFO_FIELDS = (
    "seat",
    "phase",
    "to_play",
    "hand_number",
    "pass_offset",
    "hand",
    "legal",
    "passed",
    "received",
    "unseen",
    "played",
    "trick",
    "trick_leader",
    "trick_winner",
    "tricks",
    "trick_leaders",
    "tricks_played",
    "hearts_broken",
    "voids",
    "taken",
    "points",
    "scores",
    "hand2",
    "passed2",
    "received2",
    "unseen2",
    "played2",
    "taken2",
    "pot",
    "pot2",
    "kitty_size",
)
(
    I_SEAT,
    I_PHASE,
    I_TO_PLAY,
    I_HAND_NUMBER,
    I_PASS_OFFSET,
    I_HAND,
    I_LEGAL,
    I_PASSED,
    I_RECEIVED,
    I_UNSEEN,
    I_PLAYED,
    I_TRICK,
    I_TRICK_LEADER,
    I_TRICK_WINNER,
    I_TRICKS,
    I_TRICK_LEADERS,
    I_TRICKS_PLAYED,
    I_HEARTS_BROKEN,
    I_VOIDS,
    I_TAKEN,
    I_POINTS,
    I_SCORES,
    I_HAND2,
    I_PASSED2,
    I_RECEIVED2,
    I_UNSEEN2,
    I_PLAYED2,
    I_TAKEN2,
    I_POT,
    I_POT2,
    I_KITTY_SIZE,
) = range(len(INFO_FIELDS))


class InfoSet(Records):
    """B observers, one per game. Bitboards are uint64 (bit c = card id c). Fields:

    ================= =============== ==============================================================
    field             shape, dtype    holds
    ================= =============== ==============================================================
    ``seat``          (B,) int8       the observer's own (absolute) seat
    ``phase``         (B,) int8       PASS, PLAY or GAME_OVER
    ``to_play``       (B,) int8       relative seat to act (0 = the observer), -1 once the game is over
    ``hand_number``   (B,) int32
    ``pass_offset``   (B,) int8       this hand's pass: receiver = giver + offset (mod P); 0 = none
    ``hand``          (B,) uint64     the observer's cards
    ``legal``         (B,) uint64     its legal cards when it is to act, else 0
    ``passed``        (B,) uint64     cards it picked to pass this hand (so far, during the pass)
    ``received``      (B,) uint64     cards passed to it this hand (0 until the passes move)
    ``unseen``        (B,) uint64     cards in other hands as far as it knows: in play, not its own
                                      (nor picked to pass), not played (its passes count once they land)
    ``played``        (B, P) uint64   cards each seat has played this hand, current trick included
    ``trick``         (B, P) int8     card each seat played to the current trick, -1 if none
    ``trick_leader``  (B,) int8       seat that leads the current trick (-1 during the pass)
    ``trick_winner``  (B,) int8       seat winning the current trick so far (-1 during the pass, and
                                      with two decks while every card of the led suit is cancelled)
    ``tricks``        (B, H, P) int8  card each seat played to each completed trick (H = 0 without history)
    ``trick_leaders`` (B, H) int8     seat that led each completed trick, -1 if none yet
    ``tricks_played`` (B,) int8
    ``hearts_broken`` (B,) bool
    ``voids``         (B, P) uint8    bit s set if the seat is known void in suit s
    ``taken``         (B, P) uint64   cards each seat has taken in tricks this hand
    ``points``        (B, P) int32    points each seat has taken this hand (JD rule included)
    ``scores``        (B, P) int32    game totals
    ``hand2``         (B,) uint64     two decks: the cards of ``hand`` held twice
    ``passed2``       (B,) uint64     two decks: the cards of ``passed`` picked twice
    ``received2``     (B,) uint64     two decks: the cards of ``received`` received twice
    ``unseen2``       (B,) uint64     two decks: the cards of ``unseen`` of which neither copy was seen
                                      (the face-down kitty's cards count as unseen)
    ``played2``       (B, P) uint64   two decks: the cards of ``played`` each seat played twice
    ``taken2``        (B, P) uint64   two decks: the cards of ``taken`` each seat took twice
    ``pot``           (B,) uint64     two decks: cards of the tricks without a winner, on the table
    ``pot2``          (B,) uint64     two decks: the cards of ``pot`` that lie there twice
    ``kitty_size``    (B,) int8       two decks: cards face down in the kitty (0 once it is taken)
    ================= =============== ==============================================================
    """

    FIELDS = INFO_FIELDS

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def history_length(self) -> int:
        """H: the completed tricks of the hand ``tricks`` holds room for (0 without history)."""
        return self.layout.fields["tricks"][2][0]


@functools.cache
def info_layout(num_players: int, history_length: int) -> Layout:
    P, H = num_players, history_length
    u64, i32, i8 = np.uint64, np.int32, np.int8
    shapes = {
        "seat": (i8, ()),
        "phase": (i8, ()),
        "to_play": (i8, ()),
        "hand_number": (i32, ()),
        "pass_offset": (i8, ()),
        "hand": (u64, ()),
        "legal": (u64, ()),
        "passed": (u64, ()),
        "received": (u64, ()),
        "unseen": (u64, ()),
        "played": (u64, (P,)),
        "trick": (i8, (P,)),
        "trick_leader": (i8, ()),
        "trick_winner": (i8, ()),
        "tricks": (i8, (H, P)),
        "trick_leaders": (i8, (H,)),
        "tricks_played": (i8, ()),
        "hearts_broken": (np.bool_, ()),
        "voids": (np.uint8, (P,)),
        "taken": (u64, (P,)),
        "points": (i32, (P,)),
        "scores": (i32, (P,)),
        "hand2": (u64, ()),
        "passed2": (u64, ()),
        "received2": (u64, ()),
        "unseen2": (u64, ()),
        "played2": (u64, (P,)),
        "taken2": (u64, (P,)),
        "pot": (u64, ()),
        "pot2": (u64, ()),
        "kitty_size": (i8, ()),
    }
    return cached_layout(tuple((name, *shapes[name]) for name in INFO_FIELDS))


def infoset(state: State, seat: np.ndarray | int | None = None) -> InfoSet:
    """The information set of ``seat`` (B,) in every game; default: the seat to act (seat 0 in
    games that are over)."""
    B, P = state.batch_size, state.num_players
    if seat is None:
        seats = np.maximum(state.to_play, 0).astype(np.int64)
    else:
        seats = np.asarray(seat)
        if seats.dtype.kind not in "iu" or seats.shape not in ((), (B,)):
            raise ValueError(f"seat must be an int in 0..{P - 1} or ({B},) of them, got {seats.dtype} {seats.shape}")
        seats = np.broadcast_to(seats, (B,))
        if B and (seats.min() < 0 or seats.max() >= P):
            raise ValueError(f"seat must be in 0..{P - 1}, got {seats.min() if seats.min() < 0 else seats.max()}")
        seats = seats.astype(np.int64)
    H = int(state.params[k.R_HISTORY])
    layout = info_layout(P, H)
    data = np.zeros((B, layout.width), np.uint8)  # zeros: padding bytes too, so equal info sets have equal data
    build_infosets(state.data, state.layout.offsets, state.params, seats, data, layout.offsets)
    return InfoSet(state.rules, data, layout)


@row_kernel
def build_infosets(
    sdata: np.ndarray, soff: np.ndarray, rp: np.ndarray, seats: np.ndarray, idata: np.ndarray, ioff: np.ndarray
) -> None:
    s64, s32, s8 = sdata.view(U64), sdata.view(np.int32), sdata.view(np.int8)
    i64, i32, i8 = idata.view(U64), idata.view(np.int32), idata.view(np.int8)
    for g in range(sdata.shape[0]):
        infoset_row(s64[g], s32[g], s8[g], soff, rp, seats[g], i64[g], i32[g], i8[g], ioff)


@inline_kernel
def infoset_row(
    s64: np.ndarray,
    s32: np.ndarray,
    s8: np.ndarray,
    soff: np.ndarray,
    rp: np.ndarray,
    seat: int,
    i64: np.ndarray,
    i32: np.ndarray,
    i8: np.ndarray,
    ioff: np.ndarray,
    points: bool = True,
) -> None:
    """A game's row (as 64-, 32- and 8-bit views) seen from absolute seat ``seat``, written into
    an info row (views alike). ``points=False`` leaves each seat's points unwritten (a call per
    seat; the observation counts them itself)."""
    P, H = rp[k.R_PLAYERS], rp[k.R_HISTORY]
    phase = s8[soff[k.F_PHASE]]
    to_play = s8[soff[k.F_TO_PLAY]]
    hand_number = s32[soff[k.F_HAND_NUMBER]]
    offset = k.pass_offset(rp, hand_number)
    i8[ioff[I_SEAT]] = seat
    i8[ioff[I_PHASE]] = phase
    i8[ioff[I_TO_PLAY]] = -1 if to_play < 0 else k.wrap_seat(to_play - seat, P)
    i32[ioff[I_HAND_NUMBER]] = hand_number
    i8[ioff[I_PASS_OFFSET]] = offset
    hand = s64[soff[k.F_HANDS] + seat]
    passed = s64[soff[k.F_PASSED] + seat]
    i64[ioff[I_HAND]] = hand
    i64[ioff[I_LEGAL]] = s64[soff[k.F_LEGAL]] if to_play == seat else U64(0)
    i64[ioff[I_PASSED]] = passed
    landed = phase != k.PASS and offset != 0  # the passes have moved
    i64[ioff[I_RECEIVED]] = s64[soff[k.F_PASSED] + k.wrap_seat(seat - offset, P)] if landed else U64(0)
    lead = s8[soff[k.F_TRICK] + s8[soff[k.F_LEADER]]]
    seen = hand | (passed if phase == k.PASS else U64(0))  # picks not yet passed are still its own
    for r in range(P):
        a = k.wrap_seat(seat + r, P)
        card = s8[soff[k.F_TRICK] + a]
        i8[ioff[I_TRICK] + r] = card
        played = s64[soff[k.F_PLAYED] + a]
        void = s8[soff[k.F_VOIDS] + a]
        if card >= 0:
            played |= BIT[card]
            if SUIT_OF[card] != SUIT_OF[lead]:  # failed to follow in the current trick
                void |= 1 << SUIT_OF[lead]
        seen |= played
        i64[ioff[I_PLAYED] + r] = played
        i8[ioff[I_VOIDS] + r] = void
        i64[ioff[I_TAKEN] + r] = s64[soff[k.F_TAKEN] + a]
        if points:
            i32[ioff[I_POINTS] + r] = k.seat_points(s64, soff, rp, a)
        i32[ioff[I_SCORES] + r] = s32[soff[k.F_SCORES] + a]
    i64[ioff[I_UNSEEN]] = U64(rp[k.R_DECK]) & ~seen
    passing = phase == k.PASS
    i8[ioff[I_TRICK_LEADER]] = -1 if passing else k.wrap_seat(s8[soff[k.F_LEADER]] - seat, P)
    winner = s8[soff[k.F_WINNER]]
    i8[ioff[I_TRICK_WINNER]] = -1 if passing or winner < 0 else k.wrap_seat(winner - seat, P)
    for h in range(H):
        for r in range(P):
            i8[ioff[I_TRICKS] + h * P + r] = s8[soff[k.F_TRICKS] + h * P + k.wrap_seat(seat + r, P)]
        led = s8[soff[k.F_TRICK_LEADERS] + h]
        i8[ioff[I_TRICK_LEADERS] + h] = -1 if led < 0 else k.wrap_seat(led - seat, P)
    i8[ioff[I_TRICKS_PLAYED]] = s8[soff[k.F_TRICKS_PLAYED]]
    i8[ioff[I_HEARTS_BROKEN]] = s8[soff[k.F_HEARTS_BROKEN]]
    if rp[k.R_DECKS] == 2:
        second_copies(s64, s8, soff, rp, seat, i64, i8, ioff)


@row_kernel
def second_copies(
    s64: np.ndarray,
    s8: np.ndarray,
    soff: np.ndarray,
    rp: np.ndarray,
    seat: int,
    i64: np.ndarray,
    i8: np.ndarray,
    ioff: np.ndarray,
) -> None:
    """Two decks: the fields of the second copies, the pot and the kitty's size, and ``unseen`` /
    ``unseen2`` counted by copies. Every copy the observer has seen is in its hand (or, during
    the pass, among its picks), in a taken pile (the kitty included, once taken), in the pot or
    in the current trick; the rest it has not seen."""
    P = rp[k.R_PLAYERS]
    phase = s8[soff[k.F_PHASE]]
    offset = i8[ioff[I_PASS_OFFSET]]
    hand, hand2 = s64[soff[k.F_HANDS] + seat], s64[soff[k.F_HANDS2] + seat]
    passed, passed2 = s64[soff[k.F_PASSED] + seat], s64[soff[k.F_PASSED2] + seat]
    i64[ioff[I_HAND2]] = hand2
    i64[ioff[I_PASSED2]] = passed2
    landed = phase != k.PASS and offset != 0
    i64[ioff[I_RECEIVED2]] = s64[soff[k.F_PASSED2] + k.wrap_seat(seat - offset, P)] if landed else U64(0)
    pot, pot2 = s64[soff[k.F_POT]], s64[soff[k.F_POT] + 1]
    i64[ioff[I_POT]] = pot
    i64[ioff[I_POT2]] = pot2
    i8[ioff[I_KITTY_SIZE]] = k.popcount(s64[soff[k.F_KITTY]]) + k.popcount(s64[soff[k.F_KITTY] + 1])
    seen, seen2 = k.add_piles(hand, hand2, pot, pot2)
    if phase == k.PASS:  # picks not yet passed are still its own
        seen, seen2 = k.add_piles(seen, seen2, passed, passed2)
    for r in range(P):
        a = k.wrap_seat(seat + r, P)
        played2 = s64[soff[k.F_PLAYED2] + a]
        taken, taken2 = s64[soff[k.F_TAKEN] + a], s64[soff[k.F_TAKEN2] + a]
        card = s8[soff[k.F_TRICK] + a]
        if card >= 0:  # ``played`` (written already) holds it; a second copy goes to ``played2``
            _, played2 = k.add_piles(s64[soff[k.F_PLAYED] + a], played2, BIT[card], U64(0))
            seen, seen2 = k.add_piles(seen, seen2, BIT[card], U64(0))
        i64[ioff[I_PLAYED2] + r] = played2
        i64[ioff[I_TAKEN2] + r] = taken2
        seen, seen2 = k.add_piles(seen, seen2, taken, taken2)
    deck = U64(rp[k.R_DECK])
    i64[ioff[I_UNSEEN]], i64[ioff[I_UNSEEN2]] = k.remove_pile(deck, deck, seen, seen2)


# ---------------------------------------------------------------------------------------------
# Worlds: core states from an info set and the hidden cards (the inverse of ``infoset_row``)


def world_places(hands: np.ndarray) -> np.ndarray:
    """Worlds (``world_states``' ``hands``) as the kernels read them, (B, W, copies, places): one
    deck's (B, W, P) gain an axis."""
    hands = np.ascontiguousarray(hands, U64)
    if hands.ndim not in (3, 4):
        raise ValueError(f"worlds are (B, W, P) or, two decks, (B, W, 2, P + 1) bitboards, got shape {hands.shape}")
    return hands[:, :, None, :] if hands.ndim == 3 else hands


def world_states(info: InfoSet, hands: np.ndarray, rules: HeartsRules | None = None) -> State:
    """Core states (B * W games, game-major) of the worlds ``hands`` (B, W, P): the cards of every
    relative seat (0 = the observer) in W deals of the hidden cards consistent with each info set
    (two decks: (B, W, 2, P + 1), [..., 0, :] the cards each place holds at least once, [..., 1, :]
    those it holds twice, the places the relative seats then the kitty). The inverse of
    ``infoset``: a world's state seen from the observer's seat is the info set again, on all the
    observer knows (a test checks it). Play phase only, the observer to act.

    ``rules`` (default: the info set's) become the states' rules. What the info set cannot give is
    set plainly: no trick history, no last trick, the other seats' passes unknown (only what the
    observer passed and received is filled in), zero hand-over flags.
    """
    if np.any(info.phase != k.PLAY):
        raise ValueError("only play-phase information sets have worlds")
    rules = info.rules if rules is None else rules
    places = world_places(hands)
    B, W = places.shape[:2]
    P, two = rules.num_players, rules.decks == 2
    if places.shape[0] != info.batch_size or places.shape[2:] != ((2, P + 1) if two else (1, P)):
        want = f"({info.batch_size}, W, 2, {P + 1})" if two else f"({info.batch_size}, W, {P})"
        raise ValueError(f"hands must be {want}: the hidden cards of each world, got shape {np.shape(hands)}")
    layout = state_layout(rules.num_players, 0, rules.decks)
    data = layout.zeros(B * W)
    world_rows(info.data, info.layout.offsets, places, data, layout.offsets, rule_params(rules))
    return State(rules, data, layout)


@row_kernel
def world_row(
    i64: np.ndarray,
    i32: np.ndarray,
    i8: np.ndarray,
    ioff: np.ndarray,
    world: np.ndarray,
    s64: np.ndarray,
    s32: np.ndarray,
    s8: np.ndarray,
    soff: np.ndarray,
    rp: np.ndarray,
) -> None:
    """Write the state row (no trick history) of the info row's game with the places' hands
    ``world`` (C, Q) (see ``world_states``): the play phase, the observer to act, everything
    public from the info row; the other seats' passes unknown (only what the observer passed and
    received), no last trick."""
    P = rp[k.R_PLAYERS]
    s8[:] = 0
    seat = i8[ioff[I_SEAT]]
    s32[soff[k.F_HAND_NUMBER]] = i32[ioff[I_HAND_NUMBER]]
    s8[soff[k.F_PHASE]] = k.PLAY
    s8[soff[k.F_TO_PLAY]] = (seat + i8[ioff[I_TO_PLAY]]) % P
    s8[soff[k.F_LEADER]] = (seat + i8[ioff[I_TRICK_LEADER]]) % P
    winner = i8[ioff[I_TRICK_WINNER]]  # -1 (two decks) while the led suit is all cancelled
    s8[soff[k.F_WINNER]] = -1 if winner < 0 else (seat + winner) % P
    s8[soff[k.F_TRICKS_PLAYED]] = i8[ioff[I_TRICKS_PLAYED]]
    s8[soff[k.F_HEARTS_BROKEN]] = i8[ioff[I_HEARTS_BROKEN]]
    s8[soff[k.F_LAST_TRICK_WINNER]] = -1
    size = 0
    for r in range(P):
        a = (seat + r) % P
        card = i8[ioff[I_TRICK] + r]
        s8[soff[k.F_TRICK] + a] = card
        played = i64[ioff[I_PLAYED] + r]
        if card >= 0:
            size += 1
            played &= ~BIT[card]  # the current trick is not a completed one
        s64[soff[k.F_HANDS] + a] = world[0, r]
        s64[soff[k.F_PLAYED] + a] = played
        s8[soff[k.F_VOIDS] + a] = i8[ioff[I_VOIDS] + r]
        s64[soff[k.F_TAKEN] + a] = i64[ioff[I_TAKEN] + r]
        s32[soff[k.F_SCORES] + a] = i32[ioff[I_SCORES] + r]
        s8[soff[k.F_LAST_TRICK] + a] = -1
    s8[soff[k.F_TRICK_SIZE]] = size
    s64[soff[k.F_PASSED] + seat] = i64[ioff[I_PASSED]]
    giver = (seat - i8[ioff[I_PASS_OFFSET]]) % P
    if giver != seat:
        s64[soff[k.F_PASSED] + giver] |= i64[ioff[I_RECEIVED]]
    if rp[k.R_DECKS] == 2:
        _world_second_copies(i64, i8, ioff, world, s64, soff, rp, seat, giver)
    s64[soff[k.F_LEGAL]] = k.legal_cards(s64, s8, soff, rp)


@inline_kernel
def _world_second_copies(
    i64: np.ndarray,
    i8: np.ndarray,
    ioff: np.ndarray,
    world: np.ndarray,
    s64: np.ndarray,
    soff: np.ndarray,
    rp: np.ndarray,
    seat: int,
    giver: int,
) -> None:
    """Two decks: the second copies, the kitty (the world's place P) and the pot of a state row."""
    P = rp[k.R_PLAYERS]
    for r in range(P):
        a = (seat + r) % P
        played, played2 = i64[ioff[I_PLAYED] + r], i64[ioff[I_PLAYED2] + r]
        card = i8[ioff[I_TRICK] + r]
        if card >= 0:  # the current trick is not a completed one
            played, played2 = k.remove_pile(played, played2, BIT[card], U64(0))
        s64[soff[k.F_PLAYED] + a], s64[soff[k.F_PLAYED2] + a] = played, played2
        s64[soff[k.F_HANDS2] + a] = world[1, r]
        s64[soff[k.F_TAKEN2] + a] = i64[ioff[I_TAKEN2] + r]
    s64[soff[k.F_PASSED2] + seat] = i64[ioff[I_PASSED2]]
    if giver != seat:
        s64[soff[k.F_PASSED2] + giver] |= i64[ioff[I_RECEIVED2]]
    s64[soff[k.F_KITTY]], s64[soff[k.F_KITTY] + 1] = world[0, P], world[1, P]
    s64[soff[k.F_POT]], s64[soff[k.F_POT] + 1] = i64[ioff[I_POT]], i64[ioff[I_POT2]]


@row_kernel
def world_rows(idata, ioff, worlds, sdata, soff, rp) -> None:
    """State rows (B * W, game-major) of the worlds (B, W, C, Q) of each info row."""
    B, W = worlds.shape[:2]
    i64, i32, i8 = idata.view(U64), idata.view(np.int32), idata.view(np.int8)
    s64, s32, s8 = sdata.view(U64), sdata.view(np.int32), sdata.view(np.int8)
    for g in range(B):
        for w in range(W):
            n = g * W + w
            world_row(i64[g], i32[g], i8[g], ioff, worlds[g, w], s64[n], s32[n], s8[n], soff, rp)
