"""The vectorised Hearts engine: a batch of games stepped together with numpy.

A ``State`` is a frozen dataclass of arrays with the batch axis first. Hands, passes and taken
piles are ``uint64`` bitboards (bit ``c`` set = card id ``c`` present). The functions here take a
state and return a new one; arrays are never modified in place, so a state may be kept and
reused (for search, or to retry after an illegal action).

    state = new_games(HeartsRules(), batch_size=1024, seed=0)
    while not state.done.all():
        state = step(state, sample_actions(state, rng))

Every game of a batch sits in one of three phases: ``PASS`` (the seat to act picks one card to
pass; cards move only after every seat has picked ``pass_count``), ``PLAY`` (the seat to act plays
to the trick) and ``GAME_OVER``. A hand that ends is scored within the step of its last card and
the next hand is dealt at once, so ``hand_over`` marks the states that followed a completed hand
and ``last_hand_points`` holds that hand's score.

No Python loop over games or cards runs in ``step`` or ``legal_mask``. Later deals of a game are
drawn from the game's own key (``State.key``) and its hand number through a counter-based hash,
so a game plays out the same whether it runs alone or in any batch.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np

from hearts_env import cards
from hearts_env.cards import NUM_CARDS, NUM_RANKS, card_name
from hearts_env.rules import HeartsRules

PASS, PLAY, GAME_OVER = 0, 1, 2
PHASE_NAMES = ("pass", "play", "game over")

_U64 = np.uint64
BIT = _U64(1) << np.arange(NUM_CARDS, dtype=_U64)  # (52,) bitboard of each single card
SUIT_BITS = _U64(0x1FFF) << (np.arange(cards.NUM_SUITS, dtype=_U64) * _U64(NUM_RANKS))
HEART_BITS = SUIT_BITS[cards.HEARTS]
QS = cards.parse_card("QS")
JD = cards.parse_card("JD")
POINT_BITS = HEART_BITS | BIT[QS]
SUIT_OF = np.arange(NUM_CARDS, dtype=np.int8) // NUM_RANKS
# Bits of the cards of the same suit below (above) each card; index 52 (= card -1) is empty.
BELOW = np.array([int(SUIT_BITS[c // NUM_RANKS]) & ((1 << c) - 1) for c in range(NUM_CARDS)] + [0], dtype=_U64)
ABOVE = np.array([int(SUIT_BITS[c // NUM_RANKS]) & ~((2 << c) - 1) for c in range(NUM_CARDS)] + [0], dtype=_U64)
_MOON_POINTS = 26  # 13 hearts + the QS
_NO_CARD = -1


@dataclass(frozen=True)
class State:
    """A batch of B games of P players. Seats are 0..P-1, clockwise."""

    rules: HeartsRules
    key: np.ndarray  # (B,) uint64: seeds the game's later deals
    hand_number: np.ndarray  # (B,) int32: 1 for a game's first hand
    phase: np.ndarray  # (B,) int8: PASS, PLAY or GAME_OVER
    to_play: np.ndarray  # (B,) int8: seat to act; -1 once the game is over
    hands: np.ndarray  # (B, P) uint64: cards in each seat's hand
    passed: np.ndarray  # (B, P) uint64: cards each seat picked to pass this hand (in flight during PASS)
    trick: np.ndarray  # (B, P) int8: card each seat played to the current trick, -1 if none yet
    leader: np.ndarray  # (B,) int8: seat that leads (led) the current trick
    winner: np.ndarray  # (B,) int8: seat winning the current trick so far (= leader before a card)
    trick_size: np.ndarray  # (B,) int8: cards in the current trick
    tricks_played: np.ndarray  # (B,) int8: tricks completed this hand
    played: np.ndarray  # (B, P) uint64: cards each seat played to the completed tricks of this hand
    voids: np.ndarray  # (B, P) uint8: bit s set if the seat failed to follow suit s in a completed trick
    tricks: np.ndarray  # (B, H, P) int8: card each seat played to each completed trick, -1 if not yet;
    #   H = hand size when the games record their history (``new_games(history=True)``), else 0
    trick_leaders: np.ndarray  # (B, H) int8: seat that led each completed trick, -1 if not yet
    last_trick: np.ndarray  # (B, P) int8: card each seat played to the last completed trick, -1 before any
    last_trick_winner: np.ndarray  # (B,) int8: seat that took the last completed trick, -1 before any
    hearts_broken: np.ndarray  # (B,) bool
    taken: np.ndarray  # (B, P) uint64: cards each seat has taken in tricks this hand
    scores: np.ndarray  # (B, P) int32: game totals
    last_hand_points: np.ndarray  # (B, P) int32: score of the last completed hand (moon, JD applied)
    hand_over: np.ndarray  # (B,) bool: the step that made this state completed a hand
    winners: np.ndarray  # (B, P) bool: lowest total once the game is over (ties shared)
    legal: np.ndarray  # (B,) uint64: legal cards of the seat to act; 0 once the game is over

    @property
    def batch_size(self) -> int:
        return self.phase.shape[0]

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def done(self) -> np.ndarray:
        """(B,) bool: the game is over."""
        return self.phase == GAME_OVER

    @property
    def pass_offset(self) -> np.ndarray:
        """(B,) int: this hand's pass receiver offset (receiver = seat + offset mod P); 0 = no pass."""
        return _pass_offset(self.rules, self.hand_number)

    @property
    def hand_points(self) -> np.ndarray:
        """(B, P) int32: points taken so far this hand (JD rule included), before any moon adjustment."""
        return points_taken(self.rules, self.taken)

    @property
    def lead_suit(self) -> np.ndarray:
        """(B,) int8: suit led to the current trick, -1 before the lead."""
        lead = self.trick[np.arange(self.batch_size), self.leader]
        return np.where(lead >= 0, SUIT_OF[lead], -1).astype(np.int8)

    def __getitem__(self, index: int | slice | np.ndarray) -> State:
        """The sub-batch of the games at ``index`` (an int keeps a batch of one)."""
        if isinstance(index, (int, np.integer)):
            index = slice(index, index + 1) if index != -1 else slice(-1, None)
        return dataclasses.replace(self, **{f: getattr(self, f)[index] for f in ARRAY_FIELDS})


ARRAY_FIELDS = tuple(f.name for f in dataclasses.fields(State) if f.name != "rules")


def bits_to_mask(bits: np.ndarray) -> np.ndarray:
    """Bitboards of any shape (...) to a (..., 52) bool mask."""
    bits = np.asarray(bits, dtype="<u8")
    as_bytes = np.ascontiguousarray(bits).view(np.uint8).reshape(*bits.shape, 8)
    return np.unpackbits(as_bytes, axis=-1, count=NUM_CARDS, bitorder="little").view(bool)


def mask_to_bits(mask: np.ndarray) -> np.ndarray:
    """A (..., 52) bool mask to bitboards of shape (...)."""
    mask = np.asarray(mask, dtype=bool)
    packed = np.packbits(mask, axis=-1, bitorder="little")  # (..., 7)
    padded = np.zeros((*mask.shape[:-1], 8), dtype=np.uint8)
    padded[..., : packed.shape[-1]] = packed
    return padded.view("<u8")[..., 0].astype(_U64)


def bits_to_cards(bits: int | np.integer) -> list[int]:
    """Card ids in one bitboard, ascending."""
    return np.flatnonzero(bits_to_mask(np.asarray(bits))).tolist()


def legal_mask(state: State) -> np.ndarray:
    """(B, 52) bool: legal cards for the seat to act; all False once a game is over."""
    return bits_to_mask(state.legal)


# ---------------------------------------------------------------------------------------------
# Starting games and dealing


def new_games(
    rules: HeartsRules | None = None,
    batch_size: int | None = None,
    seed: int | np.random.SeedSequence | None = None,
    deals: np.ndarray | None = None,
    history: bool = False,
    keys: np.ndarray | None = None,
) -> State:
    """Start a batch of games at hand 1.

    Give ``batch_size`` for random deals, or ``deals``, an int array (B, 52) holding the seat dealt
    each card (-1 for the cards removed at this player count), for given first deals. ``seed``
    seeds every random deal of the batch (the first, when not given, and all later ones).
    ``history`` records every trick of the hand in ``State.tricks`` (it costs some speed).
    ``keys`` (B,) uint64, instead of ``seed``, gives each game its own key: a game's deals depend
    only on its key, so equal keys give equal games in any batch.
    """
    rules = HeartsRules() if rules is None else rules
    if deals is None and batch_size is None and keys is not None:
        batch_size = len(keys)
    if deals is None:
        if batch_size is None or isinstance(batch_size, bool) or int(batch_size) < 1:
            raise ValueError(f"batch_size must be a positive int when no deals are given, got {batch_size!r}")
        batch_size = int(batch_size)
    else:
        deals = _check_deals(rules, deals)
        if batch_size is not None and batch_size != deals.shape[0]:
            raise ValueError(f"batch_size {batch_size} disagrees with deals of {deals.shape[0]} games")
        batch_size = deals.shape[0]
    if keys is None:
        key = np.random.default_rng(seed).integers(0, 2**64, size=batch_size, dtype=_U64, endpoint=False)
    elif seed is not None or np.shape(keys) != (batch_size,):
        raise ValueError(f"keys must be a ({batch_size},) array given instead of a seed, got shape {np.shape(keys)}")
    else:
        key = np.asarray(keys, dtype=_U64)
    hand_number = np.ones(batch_size, dtype=np.int32)
    hands = _hands_from_deals(rules, deals) if deals is not None else _deal(rules, key, hand_number)
    P = rules.num_players
    state = State(
        rules=rules,
        key=key,
        hand_number=hand_number,
        phase=np.zeros(batch_size, np.int8),
        to_play=np.zeros(batch_size, np.int8),
        hands=hands,
        passed=np.zeros((batch_size, P), _U64),
        trick=np.full((batch_size, P), _NO_CARD, np.int8),
        leader=np.zeros(batch_size, np.int8),
        winner=np.zeros(batch_size, np.int8),
        trick_size=np.zeros(batch_size, np.int8),
        tricks_played=np.zeros(batch_size, np.int8),
        played=np.zeros((batch_size, P), _U64),
        voids=np.zeros((batch_size, P), np.uint8),
        tricks=np.full((batch_size, rules.hand_size if history else 0, P), _NO_CARD, np.int8),
        trick_leaders=np.full((batch_size, rules.hand_size if history else 0), -1, np.int8),
        last_trick=np.full((batch_size, P), _NO_CARD, np.int8),
        last_trick_winner=np.full(batch_size, -1, np.int8),
        hearts_broken=np.zeros(batch_size, bool),
        taken=np.zeros((batch_size, P), _U64),
        scores=np.zeros((batch_size, P), np.int32),
        last_hand_points=np.zeros((batch_size, P), np.int32),
        hand_over=np.zeros(batch_size, bool),
        winners=np.zeros((batch_size, P), bool),
        legal=np.zeros(batch_size, _U64),
    )
    work = _Work(state)
    _start_hands(work, slice(None))
    _update_legal(work)
    return work.state()


def _check_deals(rules: HeartsRules, deals: np.ndarray) -> np.ndarray:
    deals = np.asarray(deals)
    if deals.ndim != 2 or deals.shape[1] != NUM_CARDS or deals.shape[0] < 1:
        raise ValueError(f"deals must have shape (B, 52) with B >= 1, got {deals.shape}")
    if not np.issubdtype(deals.dtype, np.integer):
        raise ValueError(f"deals must hold integer seats, got dtype {deals.dtype}")
    P = rules.num_players
    removed = np.zeros(NUM_CARDS, bool)
    removed[list(cards.removed_cards(P))] = True
    bad_seat = (deals < -1) | (deals >= P)
    if bad_seat.any():
        g, c = np.argwhere(bad_seat)[0]
        raise ValueError(f"deals: game {g} gives {card_name(c)} to seat {deals[g, c]}; seats are -1..{P - 1}")
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


def _hands_from_deals(rules: HeartsRules, deals: np.ndarray) -> np.ndarray:
    held = deals[:, None, :] == np.arange(rules.num_players)[None, :, None]  # (B, P, 52)
    return np.bitwise_or.reduce(np.where(held, BIT, _U64(0)), axis=2)


def mix64(x: np.ndarray) -> np.ndarray:
    """A counter-based hash (SplitMix64's finaliser): well-mixed uint64 from uint64, elementwise.
    Hashing a key with a counter gives reproducible random streams per game."""
    x = x + _U64(0x9E3779B97F4A7C15)
    for shift, multiplier in ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB)):
        x ^= x >> _U64(shift)
        x *= _U64(multiplier)
    x ^= x >> _U64(31)
    return x


def _deal(rules: HeartsRules, key: np.ndarray, hand_number: np.ndarray) -> np.ndarray:
    """(n, P) hands for hand ``hand_number`` of the games with these keys."""
    deck = _deck8(rules.num_players)
    n, P = len(key), rules.num_players
    counter = mix64(key ^ (hand_number.astype(_U64) * _U64(0xD1B54A32D192ED03)))
    words = mix64(counter[:, None] + np.arange(1, 27, dtype=_U64) * _U64(0xA0761D6478BD642F))
    # Sort keys: 26 random high bits over the card id in the low 6; sorting them shuffles the deck.
    # Ties in the random bits (about 2e-5 per deal) only bias the order negligibly.
    keys = words.view(np.uint32)[:, : len(deck)] & np.uint32(0xFFFFFFC0) | deck.astype(np.uint32)
    keys.sort(axis=1)
    shuffled = (keys & np.uint32(63)).astype(np.int8).reshape(n, P, rules.hand_size)
    by_position = np.ascontiguousarray(shuffled.transpose(2, 0, 1))  # (hand_size, n, P): reduces fast
    return np.bitwise_or.reduce(BIT.take(by_position), axis=0)


@functools.cache
def _deck8(num_players: int) -> np.ndarray:
    return cards.deck(num_players).astype(np.int8)


@functools.cache
def deck_bits(num_players: int) -> np.uint64:
    """Bitboard of the cards in play with ``num_players`` players."""
    return _U64(np.bitwise_or.reduce(BIT[cards.deck(num_players)]))


def _pass_offset(rules: HeartsRules, hand_number: np.ndarray) -> np.ndarray:
    if rules.pass_count == 0:
        return np.zeros_like(hand_number)
    offsets = np.asarray(rules.pass_offsets)
    return offsets[(hand_number - 1) % len(offsets)]


def _raw_points(taken: np.ndarray) -> np.ndarray:
    """Hearts 1, QS 13, of taken piles (any shape of bitboards)."""
    hearts = np.bitwise_count(taken & HEART_BITS).astype(np.int32)
    return hearts + 13 * ((taken >> _U64(QS)) & _U64(1)).astype(np.int32)


def _jd_bonus(rules: HeartsRules, taken: np.ndarray) -> np.ndarray | int:
    return -10 * ((taken >> _U64(JD)) & _U64(1)).astype(np.int32) if rules.jack_of_diamonds else 0


def points_taken(rules: HeartsRules, taken: np.ndarray) -> np.ndarray:
    """Points of taken piles (any shape of bitboards) before the moon: hearts, QS, and the JD rule."""
    return _raw_points(taken) + _jd_bonus(rules, taken)


def _holder(hands: np.ndarray, card: int) -> np.ndarray:
    """(n,) seat holding ``card`` in each game."""
    return np.argmax((hands & BIT[card]) != 0, axis=1).astype(np.int8)


# ---------------------------------------------------------------------------------------------
# Stepping


class _Work:
    """The arrays of the state a step is building. An array is copied from the input state when
    first touched, so the input state never changes and untouched arrays are shared."""

    def __init__(self, state: State) -> None:
        self._state = state
        self.rules = state.rules
        self.rows = _rows(state.batch_size)
        self.base = _bases(state.batch_size, state.rules.num_players)  # flat index of each game's seat 0

    def __getattr__(self, name: str) -> np.ndarray:  # only called for arrays not yet copied
        array = getattr(self._state, name).copy()
        setattr(self, name, array)
        return array

    def peek(self, name: str) -> np.ndarray:
        """An array as it stands, without copying it: for reading only."""
        return self.__dict__[name] if name in self.__dict__ else getattr(self._state, name)

    def state(self) -> State:
        # A shallow copy with the changed arrays swapped in (dataclasses.replace costs more per step).
        new = object.__new__(State)
        new.__dict__.update(self._state.__dict__)
        new.__dict__.update((f, v) for f, v in vars(self).items() if f in _ARRAY_SET)
        return new


_ARRAY_SET = frozenset(ARRAY_FIELDS)


@functools.cache
def _rows(batch_size: int) -> np.ndarray:
    rows = np.arange(batch_size)
    rows.flags.writeable = False
    return rows


@functools.cache
def _bases(batch_size: int, num_players: int) -> np.ndarray:
    bases = _rows(batch_size) * num_players
    bases.flags.writeable = False
    return bases


def _select(mask: np.ndarray) -> slice | np.ndarray | None:
    """Index of the games where ``mask`` holds: all of them as a slice, none as None."""
    count = np.count_nonzero(mask)  # cheaper than mask.all() and mask.any()
    if count == len(mask):
        return slice(None)
    if count == 0:
        return None
    return np.flatnonzero(mask)


def _by_value(values: np.ndarray) -> list[tuple[int, slice | np.ndarray]]:
    """(value, games holding it) for each distinct value; one slice of all games in the common
    case where the batch moves in lockstep."""
    first = values[0]
    if len(values) == 1 or np.count_nonzero(values != first) == 0:
        return [(int(first), slice(None))]
    return [(int(v), np.flatnonzero(values == v)) for v in np.unique(values)]


def _compose(w: _Work, g: slice | np.ndarray, sub: slice | np.ndarray) -> slice | np.ndarray:
    """The games ``sub`` of the selection ``g`` (slices stay slices, so indexing stays a view)."""
    if isinstance(sub, slice):
        return g
    return w.rows[g][sub]


def step(state: State, actions: np.ndarray) -> State:
    """Apply one card id per game for the seat to act; return the new state.

    Actions of games that are over are ignored. If any action is illegal, a ``ValueError`` names
    the game, the card and the rule, and nothing changes.
    """
    actions = np.asarray(actions)
    B = state.batch_size
    if actions.shape != (B,) or actions.dtype.kind not in "iu":
        raise ValueError(f"actions must be integer card ids of shape ({B},), got {actions.dtype} {actions.shape}")
    groups = _by_value(state.phase)
    over = state.phase == GAME_OVER if any(phase == GAME_OVER for phase, _ in groups) else None
    card = actions if over is None else np.where(over, 0, actions)
    out_of_range = card.view(f"u{card.itemsize}") >= NUM_CARDS  # negatives wrap to huge values
    bit = BIT.take(card, mode="clip")
    bad = out_of_range | ((state.legal & bit) == 0)
    if over is not None:
        bad &= ~over
    if np.count_nonzero(bad):
        g = int(np.argmax(bad))
        if out_of_range[g]:
            raise ValueError(f"game {g}: action {actions[g]} is not a card id (0..51)")
        raise ValueError(f"game {g}: {card_name(int(card[g]))} is illegal: {explain_illegal(state, g, int(card[g]))}")

    w = _Work(state)
    if np.count_nonzero(state.hand_over):
        w.hand_over = np.zeros(B, bool)
    for phase, games in groups:
        if phase == PASS:
            _pass_card(w, games, bit[games])
        elif phase == PLAY:
            _play_card(w, games, card[games], bit[games])
    _update_legal(w)
    return w.state()


def _pass_card(w: _Work, g: slice | np.ndarray, bit: np.ndarray) -> None:
    rules = w.rules
    seat = w.to_play[g]
    flat = w.base[g] + seat
    w.hands.reshape(-1)[flat] ^= bit
    passed = w.passed.reshape(-1)
    passed[flat] |= bit
    w.to_play[g] = seat + (np.bitwise_count(passed[flat]) == rules.pass_count)
    complete = _select(w.to_play[g] == rules.num_players)
    if complete is None:
        return
    rows = _compose(w, g, complete)
    # Every seat has picked: the passes move together. Seat s receives from seat s - offset.
    offset = _pass_offset(rules, w.hand_number[rows])
    giver = (np.arange(rules.num_players) - offset[:, None]) % rules.num_players
    w.hands[rows] |= np.take_along_axis(w.passed[rows], giver, axis=1)
    _start_play(w, rows)


def _start_play(w: _Work, rows: slice | np.ndarray) -> None:
    first = _holder(w.hands[rows], cards.lowest_club(w.rules.num_players))
    w.phase[rows] = PLAY
    w.to_play[rows] = first
    w.leader[rows] = first
    w.winner[rows] = first


def _play_card(w: _Work, g: slice | np.ndarray, card: np.ndarray, bit: np.ndarray) -> None:
    rules = w.rules
    base = w.base[g]
    seat = w.to_play[g]
    flat = base + seat
    hands = w.hands.reshape(-1)
    hands[flat] = hands.take(flat) ^ bit
    trick = w.trick.reshape(-1)
    trick[flat] = card
    # The winner so far is the leader before any card, so the first card compares with itself.
    winner = w.winner[g]
    lead = trick.take(base + w.peek("leader")[g])
    beats = (SUIT_OF.take(card) == SUIT_OF.take(lead)) & (card > trick.take(base + winner))
    w.winner[g] = np.where(beats, seat, winner)
    w.hearts_broken[g] |= _BREAKS_HEARTS[rules.queen_breaks_hearts].take(card)
    w.trick_size[g] += 1
    w.to_play[g] = _next_seat(rules.num_players).take(seat)

    ended = _select(w.trick_size[g] == rules.num_players)
    if ended is not None:
        _end_trick(w, _compose(w, g, ended))


def _end_trick(w: _Work, rows: slice | np.ndarray) -> None:
    winner = w.winner[rows]
    trick = w.trick[rows]
    card_bits = BIT.take(trick.T)  # (P, n): this layout reduces fast
    w.taken.reshape(-1)[w.base[rows] + winner] |= np.bitwise_or.reduce(card_bits, axis=0)
    w.played[rows] |= card_bits.T
    lead_suit = SUIT_OF.take(trick.reshape(-1).take(w.base[: len(trick)] + w.leader[rows]))  # (n, P) flat
    w.voids[rows] |= _SUIT_FLAG.take(lead_suit)[:, None] * (SUIT_OF.take(trick) != lead_suit[:, None])
    if w.peek("tricks").shape[1]:  # the games record their history
        games, number = w.rows[rows], w.tricks_played[rows]
        w.tricks[games, number] = trick
        w.trick_leaders[games, number] = w.leader[rows]
    w.last_trick[rows] = trick
    w.last_trick_winner[rows] = winner
    w.trick[rows] = _NO_CARD
    w.trick_size[rows] = 0
    w.leader[rows] = winner
    w.to_play[rows] = winner
    w.tricks_played[rows] += 1
    hand_done = _select(w.tricks_played[rows] == w.rules.hand_size)
    if hand_done is not None:
        _end_hand(w, w.rows[_compose(w, rows, hand_done)])


_SUIT_FLAG = (1 << np.arange(cards.NUM_SUITS)).astype(np.uint8)  # bit of each suit in ``voids``
_BREAKS_HEARTS = {  # [queen_breaks_hearts][card]: playing the card breaks hearts
    False: (SUIT_OF == cards.HEARTS),
    True: (SUIT_OF == cards.HEARTS) | (np.arange(NUM_CARDS) == QS),
}


@functools.cache
def _next_seat(num_players: int) -> np.ndarray:
    return ((np.arange(num_players) + 1) % num_players).astype(np.int8)


def _end_hand(w: _Work, rows: np.ndarray) -> None:
    """Score the completed hand, then end the game or deal the next hand."""
    rules = w.rules
    points = hand_score(rules, w.taken[rows], w.scores[rows])
    scores = w.scores[rows] + points
    w.scores[rows] = scores
    w.last_hand_points[rows] = points
    w.hand_over[rows] = True
    if rules.target_score is None:
        over = np.ones(len(scores), bool)
    else:
        over = (scores >= rules.target_score).any(axis=1)
    over_rows = rows[over]
    w.phase[over_rows] = GAME_OVER
    w.to_play[over_rows] = -1
    w.winners[over_rows] = scores[over] == scores[over].min(axis=1, keepdims=True)
    next_rows = rows[~over]
    if len(next_rows):
        w.hand_number[next_rows] += 1
        w.hands[next_rows] = _deal(rules, w.key[next_rows], w.hand_number[next_rows])
        _start_hands(w, next_rows)


def hand_score(rules: HeartsRules, taken: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """(n, P) int32 score of completed hands from the cards each seat took (n, P) and the game
    totals before the hand (n, P): hearts 1, QS 13, the moon rule, and the JD rule on top."""
    raw = _raw_points(taken)
    bonus = _jd_bonus(rules, taken)
    moon = raw == _MOON_POINTS  # (n, P): the shooter, if any
    shot = moon.any(axis=1, keepdims=True)
    add = np.where(shot, _MOON_POINTS - raw, raw) + bonus  # shooter 0, others 26
    subtract = np.where(shot, -raw, raw) + bonus  # shooter -26, others 0
    if rules.moon == "add_to_others":
        return add.astype(np.int32)
    if rules.moon == "subtract_from_self":
        return subtract.astype(np.int32)
    # shooter_choice: add, unless the hand's full score (JD included) would then end the game with
    # the shooter's total above the lowest.
    after = totals + add
    ends = np.ones(len(after), bool) if rules.target_score is None else (after >= rules.target_score).any(axis=1)
    shooter_total = np.where(moon, after, np.iinfo(np.int32).min).max(axis=1)
    loses = ends & (shooter_total > after.min(axis=1))
    return np.where(loses[:, None], subtract, add).astype(np.int32)


def _start_hands(w: _Work, rows: slice | np.ndarray) -> None:
    """Reset the per-hand arrays of freshly dealt games and open the pass (or play) phase."""
    w.passed[rows] = 0
    w.taken[rows] = 0
    w.played[rows] = 0
    w.voids[rows] = 0
    if w.peek("tricks").shape[1]:
        w.tricks[rows] = _NO_CARD
        w.trick_leaders[rows] = -1
    w.trick[rows] = _NO_CARD
    w.trick_size[rows] = 0
    w.tricks_played[rows] = 0
    w.hearts_broken[rows] = False
    no_pass = _pass_offset(w.rules, w.hand_number[rows]) == 0
    w.phase[rows] = PASS
    w.to_play[rows] = 0
    if no_pass.any():
        _start_play(w, w.rows[rows][no_pass])


_LEADING, _FOLLOWING = 2 * PLAY, 2 * PLAY + 1


def _update_legal(w: _Work) -> None:
    """Legal cards of the seat to act in every game."""
    hand = w.peek("hands").reshape(-1).take(w.base + w.peek("to_play"))  # game over: reads a hand, unused
    situation = 2 * w.peek("phase") + (w.peek("trick_size") > 0)  # PASS, _LEADING, _FOLLOWING or over
    groups = _by_value(situation)
    legal = hand if len(groups) == 1 else np.zeros(len(hand), _U64)  # one group: fill `hand` in place
    for kind, g in groups:
        if kind == 2 * PASS:
            legal[g] = hand[g]
        elif kind == _LEADING:
            legal[g] = _lead_legal(w, g, hand[g])
        elif kind == _FOLLOWING:
            legal[g] = _follow_legal(w, g, hand[g])
        else:
            legal[g] = 0
    w.legal = legal


def _lead_legal(w: _Work, g: slice | np.ndarray, hand: np.ndarray) -> np.ndarray:
    """The lowest club opens the hand; hearts may be led once broken, or from a hand of only
    hearts and the QS. The QS may always be led."""
    only_points = (hand & ~POINT_BITS) == 0
    legal = np.where(w.peek("hearts_broken")[g] | only_points, hand, hand & ~HEART_BITS)
    opening = w.peek("tricks_played")[g] == 0
    return np.where(opening, hand & BIT[cards.lowest_club(w.rules.num_players)], legal)


def _follow_legal(w: _Work, g: slice | np.ndarray, hand: np.ndarray) -> np.ndarray:
    """Follow the led suit if able; else any card, except that on the first trick hearts and
    the QS only when the hand holds nothing else."""
    lead = w.peek("trick").reshape(-1).take(w.base[g] + w.peek("leader")[g])
    follow = hand & SUIT_BITS.take(SUIT_OF.take(lead))
    discard = hand
    if w.rules.no_points_on_first_trick:
        safe = hand & ~POINT_BITS
        discard = np.where((w.peek("tricks_played")[g] == 0) & (safe != 0), safe, hand)
    return np.where(follow != 0, follow, discard)


def explain_illegal(state: State, game: int, card: int) -> str:
    """Which rule forbids ``card`` for the seat to act in ``game`` (for error messages)."""
    if state.phase[game] == GAME_OVER:
        return "the game is over"
    seat = int(state.to_play[game])
    hand = int(state.hands[game, seat])
    if state.phase[game] == PASS and int(state.passed[game, seat]) >> card & 1:
        return f"seat {seat} has already picked it to pass"
    if not hand >> card & 1:
        return f"seat {seat} does not hold it"
    if state.phase[game] == PASS:
        return "it cannot be passed"
    first_trick = state.tricks_played[game] == 0
    if state.trick_size[game] == 0:
        low = cards.lowest_club(state.num_players)
        if first_trick:
            return f"the first trick must be led with {card_name(low)}"
        return "hearts are not broken: a heart may be led only once broken or from a hand of only hearts (and the QS)"
    suit = int(state.lead_suit[game])
    if hand & int(SUIT_BITS[suit]):
        return f"seat {seat} must follow suit ({cards.SUIT_CHARS[suit]})"
    return "no hearts or QS on the first trick unless the hand holds nothing else"


def sample_actions(state: State, rng: np.random.Generator) -> np.ndarray:
    """(B,) int: a uniformly random legal card per game (0 for games that are over)."""
    return sample_from_bits(state.legal, rng)


def sample_from_bits(bits: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) int: a uniformly random set bit (card) of each bitboard (0 for an empty one)."""
    k = (rng.random(len(bits)) * np.bitwise_count(bits)).astype(np.uint8)  # rank among the set bits
    if len(bits) <= _SMALL_BATCH:  # fewer, larger array operations win when there are few games
        return np.count_nonzero(np.cumsum(bits_to_mask(bits), axis=1) <= k[:, None], axis=1)
    return nth_set_bit(bits, k)


_SMALL_BATCH = 16


def nth_set_bit(bits: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Position of the k-th (0-based) set bit of each bitboard, by halving the word three times
    (32, 16, 8 bits) and finishing in a 256-entry table."""
    bits = bits.copy()
    k = k.astype(np.uint8)  # a copy, updated in place below
    position = np.zeros(len(bits), np.uint8)
    for width in (32, 16, 8):
        low = np.bitwise_count(bits & _U64((1 << width) - 1))
        upper = (k >= low).view(np.uint8)  # 1 where the bit lies in the upper half
        k -= low * upper
        np.right_shift(bits, _U64(width) * upper, out=bits)
        position += np.uint8(width) * upper
    return position + _BYTE_SELECT.take((bits & _U64(0xFF)).astype(np.intp) * 8 + k)


_BYTE_SELECT = np.array(  # [byte * 8 + k]: position of the k-th set bit of the byte (0 if none)
    [([i for i in range(8) if b >> i & 1] + [0] * 8)[k] for b in range(256) for k in range(8)], dtype=np.int64
)
