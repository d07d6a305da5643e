"""The Hearts engine: a batch of games stepped together by compiled kernels.

A ``State`` is a batch of B games (one row each) of a fixed set of fields, read as arrays with
the batch axis first. Hands, passes and taken piles are ``uint64`` bitboards (bit ``c`` set =
card id ``c`` present). The functions here take a state and return a new one; a state is never
modified, so it may be kept and reused (for search, or to retry after an illegal action).

    state = new_games(HeartsRules(), batch_size=1024, seed=0)
    while not state.done.all():
        state = step(state, sample_actions(state, rng))

Every game of a batch sits in one of three phases: ``PASS`` (the seat to act picks one card to
pass; cards move only after every seat has picked ``pass_count``), ``PLAY`` (the seat to act plays
to the trick) and ``GAME_OVER``. A hand that ends is scored within the step of its last card and
the next hand is dealt at once, so ``hand_over`` marks the states that followed a completed hand,
``last_hand_points`` holds that hand's score and ``last_hand_taken`` the cards each seat took in it.

With two decks (``HeartsRules(decks=2)``, Cancellation Hearts) a seat may hold both copies of a
card: ``hands`` still holds the ids it holds at least once, and ``hands2`` the ids it holds twice
(and so ``passed2``, ``played2``, ``taken2``, ``last_hand_taken2``); the kitty and the pot are
such pairs too. Actions, ``legal`` and the trick stay card ids: the copies are interchangeable.

The rules live in ``hearts_env.engine.kernels`` (numba, compiled on first use and cached on disk); they
loop over the games of a batch, so one game and sixteen thousand take the same code path. Later
deals of a game are drawn from the game's own key (``State.key``) and its hand number through a
counter-based hash, so a game plays out the same whether it runs alone or in any batch.
"""

from __future__ import annotations

import functools
import os

import numpy as np

from hearts_env.engine import cards, checks, kernels, seeding
from hearts_env.engine.cards import (
    BIT,
    HEART_BITS,
    HEART_POINTS,
    JD_BIT,
    JD_POINTS,
    NUM_CARDS,
    QS_BIT,
    QS_POINTS,
    SUIT_OF,
    card_name,
)
from hearts_env.engine.kernels import (
    GAME_OVER,
    PASS,  # noqa: F401  (the phases of State.phase are part of the core's API)
    PLAY,  # noqa: F401
    STATE_FIELDS,
    IllegalReason,
    rule_params,
)
from hearts_env.engine.records import Layout, Records, cached_layout
from hearts_env.engine.records import concatenate as _concatenate
from hearts_env.engine.rules import HeartsRules

PHASE_NAMES = ("pass", "play", "game over")
_U64 = np.uint64


class State(Records):
    """A batch of B games of P players. Seats are 0..P-1, clockwise. Fields (views of ``data``;
    states are values, so treat them as read-only):

    ==================== =============== ==========================================================
    field                shape, dtype    holds
    ==================== =============== ==========================================================
    ``key``              (B,) uint64     seeds the game's later deals
    ``hand_number``      (B,) int32      1 for a game's first hand
    ``phase``            (B,) int8       PASS, PLAY or GAME_OVER
    ``to_play``          (B,) int8       seat to act; -1 once the game is over
    ``hands``            (B, P) uint64   cards in each seat's hand
    ``passed``           (B, P) uint64   cards each seat picked to pass this hand (in flight during PASS)
    ``trick``            (B, P) int8     card each seat played to the current trick, -1 if none yet
    ``leader``           (B,) int8       seat that leads (led) the current trick
    ``winner``           (B,) int8       seat winning the current trick so far (= leader before a card)
    ``trick_size``       (B,) int8       cards in the current trick
    ``tricks_played``    (B,) int8       tricks completed this hand
    ``played``           (B, P) uint64   cards each seat played to the completed tricks of this hand
    ``voids``            (B, P) uint8    bit s set if the seat failed to follow suit s in a completed trick
    ``tricks``           (B, H, P) int8  card each seat played to each completed trick, -1 if not yet;
                                         H = hand size when the games record their history, else 0
    ``trick_leaders``    (B, H) int8     seat that led each completed trick, -1 if not yet
    ``last_trick``       (B, P) int8     card each seat played to the last completed trick, -1 before any
    ``last_trick_winner`` (B,) int8      seat that took the last completed trick, -1 before any
    ``hearts_broken``    (B,) bool
    ``taken``            (B, P) uint64   cards each seat has taken in tricks this hand
    ``last_hand_taken``  (B, P) uint64   cards each seat took in the last completed hand
    ``scores``           (B, P) int32    game totals
    ``last_hand_points`` (B, P) int32    score of the last completed hand (moon, JD applied)
    ``hand_over``        (B,) bool       the step that made this state completed a hand
    ``winners``          (B, P) bool     lowest total once the game is over (ties shared)
    ``legal``            (B,) uint64     legal cards of the seat to act; 0 once the game is over
    ``hands2``           (B, P2) uint64  two decks: the cards of ``hands`` held twice (P2 = P; 0
                                         with one deck, as for the fields below)
    ``passed2``          (B, P2) uint64  two decks: the cards of ``passed`` picked twice
    ``played2``          (B, P2) uint64  two decks: the cards of ``played`` played twice
    ``taken2``           (B, P2) uint64  two decks: the cards of ``taken`` taken twice
    ``last_hand_taken2`` (B, P2) uint64  two decks: the cards of ``last_hand_taken`` taken twice
    ``kitty``            (B, K) uint64   two decks (K = 2; 0 with one deck): the face-down kitty,
                                         [:, 0] its cards, [:, 1] those it holds twice; emptied
                                         when the first trick with a taker takes it
    ``pot``              (B, K) uint64   two decks: the cards of the tricks without a winner
                                         waiting on the table for the next taker, as ``kitty``
    ==================== =============== ==========================================================

    With two decks, ``winner`` is -1 while every card of the led suit is cancelled, and
    ``last_trick_winner`` is -1 after a trick that went into the pot.

    ``state[index]`` selects games; ``state.replace(field=array, ...)`` changes fields (then
    ``recompute_legal`` brings ``legal`` up to date); ``state.data`` is the (B, width) byte buffer
    behind the fields.
    """

    FIELDS = STATE_FIELDS
    META = ("rules", "layout", "params", "deck")

    def __init__(self, rules: HeartsRules, data: np.ndarray, layout: Layout) -> None:
        super().__init__(rules, data, layout)
        self.params = rule_params(rules, layout.fields["tricks"][2][0] > 0)  # the rules as the kernels read them
        self.deck = _deck8(rules.num_players, rules.decks)  # the cards the kernels deal

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def decks(self) -> int:
        return self.rules.decks

    @property
    def history(self) -> bool:
        """Whether the games record every trick of the hand (``new_games(history=True)``)."""
        return self.params[kernels.R_HISTORY] > 0

    @property
    def done(self) -> np.ndarray:
        """(B,) bool: the game is over."""
        return self.phase == GAME_OVER

    @property
    def pass_offset(self) -> np.ndarray:
        """(B,) int: this hand's pass receiver offset (receiver = seat + offset mod P); 0 = no pass."""
        return pass_offsets(self.rules, self.hand_number)

    @property
    def hand_points(self) -> np.ndarray:
        """(B, P) int32: points taken so far this hand (JD rule included), before any moon adjustment."""
        return points_taken(self.rules, self.taken, self.taken2 if self.rules.decks == 2 else None)

    @property
    def last_hand_moons(self) -> np.ndarray:
        """(B, P) bool: the seat shot the moon in the last completed hand (took every point card
        of it: each copy, with two decks)."""
        two = self.rules.decks == 2
        taken = np.ascontiguousarray(self.last_hand_taken)
        out = np.zeros(taken.shape, np.bool_)
        kernels.moon_shooters(taken, np.ascontiguousarray(self.last_hand_taken2) if two else taken, two, out)
        return out

    @property
    def lead_suit(self) -> np.ndarray:
        """(B,) int8: suit led to the current trick, -1 before the lead."""
        lead = np.take_along_axis(self.trick, self.leader[:, None].astype(np.intp), axis=1)[:, 0]
        return np.where(lead >= 0, SUIT_OF[lead], -1).astype(np.int8)


@functools.cache
def state_layout(num_players: int, history_length: int, decks: int = 1) -> Layout:
    """The fields of a state with P players (and H recorded tricks, 0 without history)."""
    P, H = num_players, history_length
    P2, K = (P, 2) if decks == 2 else (0, 0)  # the two-deck fields have zero width with one deck
    u64, i32, i8, b = np.uint64, np.int32, np.int8, np.bool_
    shapes = {
        "key": (u64, ()),
        "hand_number": (i32, ()),
        "phase": (i8, ()),
        "to_play": (i8, ()),
        "hands": (u64, (P,)),
        "passed": (u64, (P,)),
        "trick": (i8, (P,)),
        "leader": (i8, ()),
        "winner": (i8, ()),
        "trick_size": (i8, ()),
        "tricks_played": (i8, ()),
        "played": (u64, (P,)),
        "voids": (np.uint8, (P,)),
        "tricks": (i8, (H, P)),
        "trick_leaders": (i8, (H,)),
        "last_trick": (i8, (P,)),
        "last_trick_winner": (i8, ()),
        "hearts_broken": (b, ()),
        "taken": (u64, (P,)),
        "last_hand_taken": (u64, (P,)),
        "scores": (i32, (P,)),
        "last_hand_points": (i32, (P,)),
        "hand_over": (b, ()),
        "winners": (b, (P,)),
        "legal": (u64, ()),
        "hands2": (u64, (P2,)),
        "passed2": (u64, (P2,)),
        "played2": (u64, (P2,)),
        "taken2": (u64, (P2,)),
        "last_hand_taken2": (u64, (P2,)),
        "kitty": (u64, (K,)),
        "pot": (u64, (K,)),
    }
    return cached_layout(tuple((name, *shapes[name]) for name in STATE_FIELDS), _HOT_FIELDS)


# What checking, sampling and most steps read and write: first in the row, in one cache line
# (four players: 40 bytes of bitboards and 12 of small ints), so a big batch streams less memory.
_HOT_FIELDS = (
    "legal",
    "hands",
    "phase",
    "to_play",
    "trick_size",
    "leader",
    "winner",
    "tricks_played",
    "hearts_broken",
    "hand_over",
    "trick",
)


@functools.cache
def _deck8(num_players: int, decks: int) -> np.ndarray:
    deck = cards.deck(num_players, decks).astype(np.int8)
    deck.flags.writeable = False
    return deck


def bits_to_mask(bits: np.ndarray) -> np.ndarray:
    """Bitboards of any shape (...) to a (..., 52) bool mask."""
    bits = _bitboards(bits)
    out = np.empty((bits.size, NUM_CARDS), np.uint8)
    kernels.spread_bits(np.ascontiguousarray(bits).reshape(-1), out)
    return out.view(bool).reshape(*bits.shape, NUM_CARDS)


def mask_to_bits(mask: np.ndarray) -> np.ndarray:
    """A (..., 52) bool mask to bitboards of shape (...)."""
    mask = np.asarray(mask)
    if mask.ndim == 0 or mask.shape[-1] != NUM_CARDS or mask.dtype.kind not in "biu":
        raise ValueError(f"a mask has one entry per card: (..., {NUM_CARDS}) bools, got {mask.dtype} {mask.shape}")
    mask = mask.astype(bool, copy=False)
    packed = np.packbits(mask, axis=-1, bitorder="little")  # (..., 7)
    padded = np.zeros((*mask.shape[:-1], 8), dtype=np.uint8)
    padded[..., : packed.shape[-1]] = packed
    return padded.view("<u8")[..., 0].astype(_U64)


def _bitboards(bits: np.ndarray) -> np.ndarray:
    """``bits`` as uint64 bitboards; other integers are taken if they are cards' bits (0..2**52)."""
    bits = np.asarray(bits)
    if bits.dtype == _U64:
        return bits
    if bits.dtype.kind not in "iu" or (bits.size and (bits.min() < 0 or bits.max() >= 1 << NUM_CARDS)):
        raise ValueError(
            f"bitboards are non-negative integers below 2**52 (bit c = card c), got {bits.dtype} {bits!r:.80}"
        )
    return bits.astype(_U64)


def bits_to_cards(bits: int | np.integer) -> list[int]:
    """Card ids in one bitboard, ascending."""
    bits, out = int(bits), []
    while bits:  # one round per card held, not per card of the deck (views draw many small piles)
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


def legal_mask(state: State) -> np.ndarray:
    """(B, 52) bool: legal cards for the seat to act; all False once a game is over."""
    return bits_to_mask(state.legal)


def concatenate(states: list[State]) -> State:
    """One batch of the games of several batches (same rules and history setting), in order."""
    if not states:
        raise ValueError("concatenate needs at least one batch of games")
    return _concatenate(states)


# ---------------------------------------------------------------------------------------------
# Starting games


def new_games(
    rules: HeartsRules | None = None,
    batch_size: int | None = None,
    seed: int | None = None,
    deals: np.ndarray | None = None,
    history: bool = False,
    keys: np.ndarray | None = None,
) -> State:
    """Start a batch of games at hand 1.

    Give ``batch_size`` for random deals, or ``deals``, an int array (B, 52) holding the seat dealt
    each card (-1 for the cards removed at this player count), for given first deals; with two
    decks (B, 104), the seat of each card's one copy then (from entry 52) of its other copy, and
    ``cards.KITTY`` (-2) for the kitty's cards (``cards.deal_from_hands`` writes a row). ``seed``
    seeds every random deal of the batch (the first, when not given, and all later ones): game
    ``i`` gets the key ``seeding.game_keys(seed, i)``, so it is game ``i`` of every run with that
    seed (the arena's deal ``i``, the environments' first game); no seed draws a fresh one.
    ``history`` records every trick of the hand in ``State.tricks`` (it costs some speed).
    ``keys`` (B,) uint64, instead of ``seed``, gives each game its own key: a game's deals depend
    only on its key, so equal keys give equal games in any batch.
    """
    rules = HeartsRules() if rules is None else rules
    if not isinstance(rules, HeartsRules):
        raise ValueError(f"rules must be a HeartsRules, got {type(rules).__name__}")
    history = checks.flag("history", history)
    if batch_size is not None and (
        isinstance(batch_size, (bool, np.bool_)) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1
    ):
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
    if deals is None and batch_size is None and keys is not None:
        batch_size = len(keys)
    if deals is None:
        if batch_size is None:
            raise ValueError("batch_size must be a positive int when no deals are given, got None")
        batch_size = int(batch_size)
        checks.fits_in_memory(
            f"{batch_size:,} games", batch_size * 2 * state_layout(rules.num_players, 0, rules.decks).width
        )
    else:
        deals = _check_deals(rules, deals)
        if batch_size is not None and batch_size != deals.shape[0]:
            raise ValueError(f"batch_size {batch_size} disagrees with deals of {deals.shape[0]} games")
        batch_size = deals.shape[0]
    if keys is None:
        key = seeding.game_keys(seeding.fresh_seed() if seed is None else seed, np.arange(batch_size))
    elif seed is not None or np.shape(keys) != (batch_size,):
        raise ValueError(f"keys must be a ({batch_size},) array given instead of a seed, got shape {np.shape(keys)}")
    else:
        key = np.asarray(keys)
        if key.dtype.kind not in "iu" or (key.dtype.kind == "i" and (key < 0).any()):
            raise ValueError(f"keys must be non-negative integers (uint64 game keys), got {key.dtype} {key!r:.80}")
        key = key.astype(_U64)
    layout = state_layout(rules.num_players, rules.hand_size if history else 0, rules.decks)
    data = layout.zeros(batch_size)
    layout.view(data, "key")[:] = key
    if deals is not None:
        _write_hands(rules, layout, data, deals)
    state = State(rules, data, layout)
    kernels.new_games(
        data, layout.offsets, state.params, state.deck, deals is not None, np.empty(len(state.deck), np.int8)
    )
    return state


def deal_hands(state: State, deals: np.ndarray) -> State:
    """The games of ``state`` with the hand they are at dealt as ``deals`` (rows as ``new_games``
    takes them) in place of the deal drawn from their keys, for a caller that deals the cards
    itself (OpenSpiel's chance nodes, ``hearts_env.envs.openspiel``). Each game must be at the start
    of a hand: no card picked to pass or played yet. The hand then opens as every hand does (the
    pass, or the lead of the lowest club); nothing else changes (hand number, totals)."""
    deals = _check_deals(state.rules, deals)
    if deals.shape[0] != state.batch_size:
        raise ValueError(f"deals of {deals.shape[0]} games for a batch of {state.batch_size}")
    picked = state.passed | state.passed2 if state.decks == 2 else state.passed
    started = state.done | (state.tricks_played > 0) | (state.trick_size > 0) | (picked != 0).any(axis=1)
    if started.any():
        raise ValueError(f"deal_hands: game {int(np.argmax(started))} is not at the start of a hand")
    data = state.data.copy()
    _write_hands(state.rules, state.layout, data, deals)
    kernels.open_hands(data, state.layout.offsets, state.params)
    return state.with_data(data)


def _write_hands(rules: HeartsRules, layout: Layout, data: np.ndarray, deals: np.ndarray) -> None:
    """The hands (and with two decks the kitty) of checked ``deals`` rows into the games' ``data``."""
    P = rules.num_players
    if rules.decks == 1:
        layout.view(data, "hands")[:] = _piles(deals, np.arange(P))
    else:  # the cards each place holds at least once, and twice (the kitty is place P)
        places = np.append(np.arange(P), cards.KITTY)
        copy1, copy2 = _piles(deals[:, :NUM_CARDS], places), _piles(deals[:, NUM_CARDS:], places)
        once, twice = copy1 | copy2, copy1 & copy2
        layout.view(data, "hands")[:], layout.view(data, "hands2")[:] = once[:, :P], twice[:, :P]
        layout.view(data, "kitty")[:] = np.stack([once[:, P], twice[:, P]], axis=1)


def _piles(deals: np.ndarray, places: np.ndarray) -> np.ndarray:
    """(B, len(places)) bitboards: the cards ``deals`` (B, 52) puts at each place."""
    held = deals[:, None, :] == places[None, :, None]
    return np.bitwise_or.reduce(np.where(held, BIT, _U64(0)), axis=2)


def _check_deals(rules: HeartsRules, deals: np.ndarray) -> np.ndarray:
    deals = np.asarray(deals)
    width = NUM_CARDS * rules.decks
    if deals.ndim != 2 or deals.shape[1] != width or deals.shape[0] < 1:
        raise ValueError(f"deals must have shape (B, {width}) with B >= 1 for {rules.decks} deck(s), got {deals.shape}")
    if not np.issubdtype(deals.dtype, np.integer):
        raise ValueError(f"deals must hold integer seats, got dtype {deals.dtype}")
    P = rules.num_players
    if rules.decks == 1:
        bad_seat, seats = (deals < -1) | (deals >= P), f"-1..{P - 1}"
    else:
        bad_seat = ((deals < 0) & (deals != cards.KITTY)) | (deals >= P)
        seats = f"0..{P - 1} and {cards.KITTY} (the kitty)"
    if bad_seat.any():
        g, c = np.argwhere(bad_seat)[0]
        raise ValueError(f"deals: game {g} gives {card_name(c % NUM_CARDS)} to seat {deals[g, c]}; seats are {seats}")
    if rules.decks == 1:
        removed = np.zeros(NUM_CARDS, bool)
        removed[list(cards.removed_cards(P))] = True
        wrong_removed = (deals == -1) != removed
        if wrong_removed.any():
            g, c = np.argwhere(wrong_removed)[0]
            what = "is removed with" if removed[c] else "must be dealt with"
            raise ValueError(f"deals: game {g}: {card_name(c)} {what} {P} players (seat {deals[g, c]} given)")
    counts = (deals[:, :, None] == np.arange(P)).sum(axis=1)
    wrong_count = counts != rules.hand_size
    if wrong_count.any():
        g, s = np.argwhere(wrong_count)[0]
        raise ValueError(f"deals: game {g} gives seat {s} {counts[g, s]} cards; each seat gets {rules.hand_size}")
    return deals.astype(np.int8)


def pass_offsets(rules: HeartsRules, hand_number: np.ndarray) -> np.ndarray:
    """Pass receiver offset (receiver = seat + offset mod P; 0 = no pass) of each hand number."""
    if rules.pass_count == 0:
        return np.zeros_like(hand_number)
    offsets = np.asarray(rules.pass_offsets)
    return offsets[(np.asarray(hand_number) - 1) % len(offsets)]


# ---------------------------------------------------------------------------------------------
# Points


def raw_points(piles: np.ndarray) -> np.ndarray:
    """Hearts (``HEART_POINTS`` each) and the QS (``QS_POINTS``) of card piles (bitboards of any
    shape), before the JD rule and the moon."""
    piles = np.asarray(piles, _U64)
    return (np.bitwise_count(piles & HEART_BITS) * HEART_POINTS + QS_POINTS * ((piles & QS_BIT) != 0)).astype(np.int32)


def points_taken(rules: HeartsRules, taken: np.ndarray, taken2: np.ndarray | None = None) -> np.ndarray:
    """Points of taken piles (any shape of bitboards) before the moon: hearts, QS, and the JD rule;
    ``taken2``, with two decks, the cards of each pile taken twice."""
    points = raw_points(taken)
    if rules.jack_of_diamonds:
        points += JD_POINTS * ((np.asarray(taken, _U64) & JD_BIT) != 0)
    if taken2 is not None:
        points += points_taken(rules, taken2)
    return points


def hand_score(
    rules: HeartsRules, taken: np.ndarray, totals: np.ndarray, taken2: np.ndarray | None = None
) -> np.ndarray:
    """(n, P) int32 score of completed hands from the cards each seat took (n, P) and the game
    totals before the hand (n, P): hearts 1, QS 13, the moon rule, and the JD rule on top. With
    two decks ``taken2`` (n, P) gives the cards each seat took twice (none if not given)."""
    taken = np.ascontiguousarray(_bitboards(taken))
    totals = np.asarray(totals)
    P = rules.num_players
    if taken.ndim != 2 or taken.shape[1] != P or totals.shape != taken.shape or totals.dtype.kind not in "iu":
        raise ValueError(
            f"taken and totals must be (n, {P}): the cards each seat took, and integer totals; "
            f"got {taken.shape} and {totals.dtype} {totals.shape}"
        )
    totals = np.ascontiguousarray(totals, np.int32)
    taken2 = np.zeros_like(taken) if taken2 is None else np.ascontiguousarray(_bitboards(taken2))
    if taken2.shape != taken.shape:
        raise ValueError(f"taken2 must have the shape of taken {taken.shape}, got {taken2.shape}")
    out = np.empty(taken.shape, np.int32)
    kernels.score_hands(taken, taken2, totals, rule_params(rules), out)
    return out


# ---------------------------------------------------------------------------------------------
# Stepping


_INT64 = np.dtype(np.int64)  # the actions' dtype that needs no conversion (an identity test: the fast path)


class _Threads:
    enabled = False
    min_batch = 1024


_threads = _Threads()


def use_threads(threads: int | None = None, min_batch: int = 1024) -> None:
    """Step batches of at least ``min_batch`` games on ``threads`` threads (numba's ``prange``;
    None: every core numba sees); ``use_threads(1)`` goes back to one thread. One thread is the
    default: environments, search and small batches gain nothing from threads, and training
    processes often have their cores spoken for."""
    import numba

    if "NUMBA_THREADING_LAYER" not in os.environ:
        # numba's own thread pool: OpenMP's spinning waits cost milliseconds a call whenever another
        # process (a torch learner, say) holds a core, and its threads would compete with torch's.
        numba.config.THREADING_LAYER = "workqueue"  # type: ignore[attr-defined]  # numba's hints omit its config
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be a positive int or None, got {threads!r}")
    available: int = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]  # as above
    threads = available if threads is None else min(threads, available)
    _threads.enabled = threads > 1
    _threads.min_batch = int(min_batch)
    if threads > 1:
        numba.set_num_threads(threads)


def step(state: State, actions: np.ndarray) -> State:
    """Apply one card id per game for the seat to act; return the new state.

    Actions of games that are over are ignored. If any action is illegal, an ``IllegalMoveError``
    names the first such game, its card and the rule, and nothing changes.
    """
    data = state.data.copy()
    _step_data(state, data, actions)
    return state.with_data(data)


def step_in_place(state: State, actions: np.ndarray) -> None:
    """``step`` that writes the new state into ``state`` itself, for a caller that owns it (an
    environment, a search) where copying would cost more than the step. Field arrays read from
    ``state`` before see the change. An illegal action raises and changes nothing."""
    _step_data(state, state.data, actions)


def _step_data(state: State, data: np.ndarray, actions: np.ndarray) -> None:
    B = len(data)
    given = actions  # as the caller wrote them, for the message (a uint64 2**63 is no -2**63)
    if type(actions) is not np.ndarray or actions.dtype is not _INT64 or actions.shape != (B,):  # else: fast path
        given = np.asarray(actions)
        if given.shape != (B,) or given.dtype.kind not in "iu":
            raise ValueError(f"actions must be integer card ids of shape ({B},), got {given.dtype} {given.shape}")
        actions = given.astype(np.int64)
    kernel = kernels.step_parallel if _threads.enabled and B >= _threads.min_batch else kernels.step
    bad = kernel(data, actions, state.layout.offsets, state.params, state.deck)
    if bad >= 0:
        raise illegal_move(state, bad, int(given[bad]))


def recompute_legal(state: State) -> State:
    """The state with ``legal`` worked out again from its other fields (after ``replace``)."""
    data = state.data.copy()
    kernels.update_legal(data, state.layout.offsets, state.params)
    return state.with_data(data)


class IllegalMoveError(ValueError):
    """An action the rules forbid (``step`` raises it and changes nothing): ``game`` (its index in
    the batch), ``seat`` (the seat to act), ``card`` (the action) and ``reason`` (an
    ``IllegalReason``) say which and why, so a caller words it for its own audience from these
    fields (``describe``, ``rule``); the message is ``game 3: 5H is illegal: seat 1 must follow
    suit (C)``. ``lead_suit`` is the suit to follow (-1 before the lead) and ``first_lead`` the card
    that leads the first trick with one deck (-1 with two)."""

    def __init__(
        self, game: int, seat: int, card: int, reason: IllegalReason, lead_suit: int = -1, first_lead: int = -1
    ) -> None:
        self.game, self.seat, self.card, self.reason = game, seat, card, IllegalReason(reason)
        self.lead_suit, self.first_lead = lead_suit, first_lead
        super().__init__(f"game {game}: {self.describe()}")

    def __reduce__(self) -> tuple[type, tuple[int, int, int, IllegalReason, int, int]]:
        return type(self), (self.game, self.seat, self.card, self.reason, self.lead_suit, self.first_lead)

    def describe(self, you: bool = False) -> str:
        """The card and the rule: ``5H is illegal: seat 1 must follow suit (C)`` (``you``: ``... you
        must follow ...``)."""
        if self.reason == IllegalReason.NOT_A_CARD:
            return f"action {self.card} is not a card id (0..{NUM_CARDS - 1})"
        return f"{card_name(self.card)} is illegal: {self.rule(you)}"

    def rule(self, you: bool = False) -> str:
        """The rule that forbids the card, about the seat (``seat 2 does not hold it``) or, with
        ``you``, told to it (``you do not hold it``)."""
        seat, reason = ("you" if you else f"seat {self.seat}"), self.reason
        if reason == IllegalReason.ALREADY_PICKED:
            return f"{seat} {'have' if you else 'has'} already picked it to pass"
        if reason == IllegalReason.NOT_HELD:
            return f"{seat} {'do' if you else 'does'} not hold it"
        if reason == IllegalReason.MUST_FOLLOW_SUIT:
            return f"{seat} must follow suit ({cards.SUIT_CHARS[self.lead_suit]})"
        if reason == IllegalReason.MUST_LEAD_LOWEST_CLUB:
            return f"the first trick must be led with {card_name(self.first_lead)}"
        return _RULES[reason]


_RULES = {  # the rules whose words name no seat, card or suit
    IllegalReason.LEGAL: "it is legal",
    IllegalReason.NOT_A_CARD: f"it is not a card id (0..{NUM_CARDS - 1})",
    IllegalReason.GAME_OVER: "the game is over",
    IllegalReason.NO_POINTS_LEAD_FIRST_TRICK: (
        "no heart or QS may lead the first trick unless the hand holds nothing else"
    ),
    IllegalReason.HEARTS_NOT_BROKEN: (
        "hearts are not broken: a heart may be led only once broken or from a hand of only hearts (and the QS)"
    ),
    IllegalReason.NO_POINTS_FIRST_TRICK: "no hearts or QS on the first trick unless the hand holds nothing else",
}


def illegal_move(state: State, game: int, card: int) -> IllegalMoveError:
    """The error of playing ``card`` for the seat to act in ``game``, its reason from the kernel
    that decides legal cards (``kernels.illegal_reason``; ``LEGAL`` if the card is legal)."""
    in_kernel = card if 0 <= card < NUM_CARDS else -1  # any other number is no card (and may not fit an int64)
    reason = kernels.game_illegal_reason(state.data, state.layout.offsets, state.params, game, in_kernel)
    first_lead = cards.lowest_club(state.num_players) if state.decks == 1 else -1
    return IllegalMoveError(game, int(state.to_play[game]), card, reason, int(state.lead_suit[game]), first_lead)


def explain_illegal(state: State, game: int, card: int) -> str:
    """Which rule forbids ``card`` for the seat to act in ``game`` (``IllegalMoveError.rule``)."""
    return illegal_move(state, game, card).rule()


# ---------------------------------------------------------------------------------------------
# Random play


def sample_actions(state: State, rng: np.random.Generator) -> np.ndarray:
    """(B,) int: a uniformly random legal card per game (0 for games that are over)."""
    out = np.empty(state.data.shape[0], np.int64)
    kernels.sample_legal(state.data, state.layout.offsets, rng.random(len(out)), out)
    return out


def sample_from_bits(bits: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) int: a uniformly random set bit (card) of each bitboard (0 for an empty one)."""
    return choose_from_bits(bits, rng.random(len(bits)))


def choose_from_bits(bits: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """(B,) int: the set bit of rank ``floor(uniform * count)`` of each bitboard (0 for an empty
    one), for ``uniform`` (B,) in [0, 1): a random card from the caller's own random numbers."""
    bits = np.ascontiguousarray(bits, _U64)
    out = np.empty(len(bits), np.int64)
    kernels.sample_bits(bits, np.ascontiguousarray(uniform, np.float64), out)
    return out
