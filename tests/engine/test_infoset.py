"""Tests of ``hearts_env.engine.infoset``: what one seat may know.

* No leak: the cards of the other seats are moved among them wherever the observer cannot tell
  (respecting every constraint it knows: card counts, known voids, the cards it passed and
  received, the lowest club that opens the hand) and the in-flight passes of the other seats are
  swapped during the pass; the observer's info set and its encoded observation must not change.
  Changing the observer's own hand must change them.
* Relative seats: every per-seat field is the absolute state rotated to the observer.
* A plain-Python record of the actions (picks, tricks, who failed to follow) is the reference for
  ``received``, ``passed``, ``voids``, ``tricks`` and ``trick_leaders``.
* Two decks (Cancellation Hearts): single copies of cards move among the other seats' hands,
  their in-flight passes and the face-down kitty without changing the observer's info set; the
  fields of the second copies, the pot and the kitty's size read back from the state.
"""

from __future__ import annotations

import numpy as np
import pytest
from random_states import cancelling_states, pass_offset, random_states

from hearts_env import HeartsRules
from hearts_env.engine import cards
from hearts_env.engine.core import (
    GAME_OVER,
    PASS,
    PLAY,
    State,
    bits_to_cards,
    new_games,
    recompute_legal,
    sample_actions,
    step,
)
from hearts_env.engine.infoset import InfoSet, infoset, world_states
from hearts_env.engine.observation import ObservationLayout, encode, encode_packed
from hearts_env.engine.worlds import sample_worlds

INFO_FIELDS = list(InfoSet.FIELDS)
QS = cards.parse_card("QS")
HEART_MASK = sum(1 << c for c in range(cards.card_id(cards.HEARTS, 2), cards.NUM_CARDS))
POINT_MASK = HEART_MASK | 1 << QS
SUIT_MASK = [sum(1 << (s * 13 + r) for r in range(13)) for s in range(4)]


def suit(card: int) -> int:
    return card // 13


def bits(card_ids) -> int:
    return sum(1 << int(c) for c in card_ids)


def rules_id(rules: HeartsRules) -> str:
    default = HeartsRules(num_players=rules.num_players, decks=rules.decks)
    knobs = [
        f"{f}={getattr(rules, f)}"
        for f in (
            "pass_count",
            "pass_cycle",
            "no_points_on_first_trick",
            "queen_breaks_hearts",
            "jack_of_diamonds",
            "moon",
            "target_score",
        )
        if getattr(rules, f) != getattr(default, f)
    ]
    return ",".join([f"P{rules.num_players}", *([f"decks={rules.decks}"] if rules.decks > 1 else []), *knobs])


def steps_for_hands(rules: HeartsRules, hands: int) -> int:
    return hands * (rules.num_players * rules.pass_count + len(cards.deck(rules.num_players)))


def reference_legal(state: State) -> np.ndarray:
    """(B,) uint64: the legal cards of the seat to act, written from docs/rules.md (plain Python)."""
    rules = state.rules
    low = cards.lowest_club(rules.num_players)
    out = np.zeros(state.batch_size, np.uint64)
    for g in range(state.batch_size):
        if state.phase[g] == GAME_OVER:
            continue
        hand = int(state.hands[g, state.to_play[g]])
        first_trick = state.tricks_played[g] == 0
        if state.phase[g] == PASS:
            legal = hand
        elif state.trick_size[g] == 0:
            if first_trick:
                legal = hand & 1 << low
            elif state.hearts_broken[g] or hand & ~POINT_MASK == 0:
                legal = hand
            else:
                legal = hand & ~HEART_MASK
        else:
            follow = hand & SUIT_MASK[suit(int(state.trick[g, state.leader[g]]))]
            if follow:
                legal = follow
            elif rules.no_points_on_first_trick and first_trick and hand & ~POINT_MASK:
                legal = hand & ~POINT_MASK
            else:
                legal = hand
        out[g] = legal
    return out


def assert_infosets_equal(a: InfoSet, b: InfoSet, what: str) -> None:
    for name in INFO_FIELDS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=f"{what}: InfoSet.{name}")


def layouts_for(state: State) -> list[ObservationLayout]:
    layouts = [ObservationLayout(state.rules)]
    if state.tricks.shape[1]:
        layouts.append(ObservationLayout(state.rules, history=True))
    return layouts


# ---------------------------------------------------------------------------------------------
# No hidden information leaks


def scramble(state: State, observer: np.ndarray, rng: np.random.Generator, attempts: int = 16):
    """A copy of ``state`` with cards swapped among the other seats where ``observer`` cannot tell.

    The pool is every card in another seat's hand (and, during the pass, in another seat's in-flight
    picks), except the cards the observer passed and the lowest club. Two pool cards in different
    places swap places unless that would give a seat a card of a suit it is known void in. The
    swap is applied to every hand and every ``passed`` record, so after the pass the records stay
    true (a card that seat c passed to seat a and that moves to seat b is replaced, in c's record,
    by the card that moved to a). Returns the new state (its ``legal`` recomputed) and which
    games changed.
    """
    P = state.num_players
    info = infoset(state, observer)
    hands, passed = state.hands.copy(), state.passed.copy()
    low = cards.lowest_club(P)
    for g in range(state.batch_size):
        if state.phase[g] == GAME_OVER:
            continue
        o = int(observer[g])
        pinned = set(bits_to_cards(passed[g, o])) | {low}
        place: dict[int, tuple[int, str]] = {}
        for a in range(P):
            if a == o:
                continue
            for c in bits_to_cards(hands[g, a]):
                place[c] = (a, "hand")
            if state.phase[g] == PASS:
                for c in bits_to_cards(passed[g, a]):
                    place[c] = (a, "passed")
        pool = sorted(set(place) - pinned)
        if len(pool) < 2:
            continue

        known_void = [int(info.voids[g, (a - o) % P]) for a in range(P)]
        for _ in range(attempts):
            x, y = (int(c) for c in rng.choice(pool, 2, replace=False))
            (seat_x, _), (seat_y, _) = place[x], place[y]
            if place[x] == place[y] or known_void[seat_y] >> suit(x) & 1 or known_void[seat_x] >> suit(y) & 1:
                continue
            swap = (1 << x) | (1 << y)
            for array in (hands, passed):
                for a in range(P):
                    v = int(array[g, a])
                    if (v >> x ^ v >> y) & 1:
                        array[g, a] = np.uint64(v ^ swap)
            place[x], place[y] = place[y], place[x]
    changed = (hands != state.hands).any(axis=1) | (passed != state.passed).any(axis=1)
    new = state.replace(hands=hands, passed=passed)
    return new.replace(legal=reference_legal(new)), changed


def assert_same_view(state: State, swapped: State, observer: np.ndarray, rng: np.random.Generator) -> None:
    """``observer`` sees the same in ``state`` and in ``swapped`` (other seats' cards scrambled): the
    same info set and encodings, the future deals (the game's key, replaced here) hidden too."""
    swapped = swapped.replace(key=rng.integers(0, 2**63, state.batch_size).astype(np.uint64))
    before, after = infoset(state, observer), infoset(swapped, observer)
    assert_infosets_equal(before, after, f"observer {observer.tolist()}, phases {state.phase.tolist()}")
    for layout in layouts_for(state):
        np.testing.assert_array_equal(encode(before, layout), encode(after, layout))
        np.testing.assert_array_equal(encode_packed(before, layout), encode_packed(after, layout))


LEAK_CASES = [HeartsRules(num_players=p) for p in range(3, 8)] + [
    HeartsRules(num_players=4, pass_count=1, jack_of_diamonds=True),
    HeartsRules(num_players=5, pass_count=0, queen_breaks_hearts=False),
    HeartsRules(num_players=6, no_points_on_first_trick=False, target_score=None),
]


@pytest.mark.parametrize("history", [False, True], ids=["compact", "history"])
@pytest.mark.parametrize("rules", LEAK_CASES, ids=rules_id)
def test_other_seats_cards_do_not_leak(rules: HeartsRules, history: bool) -> None:
    rng = np.random.default_rng(rules.num_players * 10 + history)
    states = random_states(rules, 6, seed=int(rng.integers(1 << 30)), history=history, keep=0.12, steps=260)
    assert len(states) > 15
    changed_total = considered = 0
    phases = set()
    for state in states:
        assert np.array_equal(reference_legal(state), state.legal), "the test's legal-move reference is wrong"
        observer = rng.integers(0, rules.num_players, state.batch_size).astype(np.int8)
        swapped, changed = scramble(state, observer, rng)
        step(swapped, sample_actions(swapped, rng))  # the swapped state is one the engine can play on
        assert np.array_equal(swapped.hands[state.done], state.hands[state.done])
        changed_total += changed.sum()
        considered += (~state.done).sum()
        phases.update(state.phase[changed].tolist())
        assert_same_view(state, swapped, observer, rng)
    assert changed_total > 0.6 * considered, "too few states were changed for the test to mean anything"
    if rules.pass_count:
        assert PASS in phases
    assert PLAY in phases


@pytest.mark.parametrize("num_players", range(3, 8))
def test_in_flight_passes_of_other_seats_do_not_leak(num_players: int) -> None:
    """During the pass, two other seats that have picked as many cards trade their picks whole."""
    rules = HeartsRules(num_players=num_players)
    rng = np.random.default_rng(num_players)
    state = new_games(rules, batch_size=8, seed=num_players)
    layout = ObservationLayout(rules)
    checked = 0
    for _ in range(num_players * rules.pass_count - 1):
        state = step(state, sample_actions(state, rng))
        assert (state.phase == PASS).all()
        counts = np.bitwise_count(state.passed[0])
        for o in range(num_players):
            pickers = [a for a in range(num_players) if a != o and counts[a] == rules.pass_count]
            if len(pickers) < 2:
                continue
            a, b = pickers[:2]
            passed = state.passed.copy()
            passed[:, [a, b]] = passed[:, [b, a]]
            swapped = state.replace(passed=passed)
            assert np.array_equal(reference_legal(swapped), state.legal)
            before, after = infoset(state, o), infoset(swapped, o)
            assert_infosets_equal(before, after, f"observer {o}, seats {a} and {b} trade their picks")
            np.testing.assert_array_equal(encode(before, layout), encode(after, layout))
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("num_players", range(3, 8))
def test_own_hand_changes_the_observation(num_players: int) -> None:
    rules = HeartsRules(num_players=num_players)
    rng = np.random.default_rng(100 + num_players)
    states = random_states(rules, 6, seed=num_players, history=False, keep=0.1, steps=steps_for_hands(rules, 2))
    layout = ObservationLayout(rules)
    checked = 0
    for state in states:
        for g in range(state.batch_size):
            if state.done[g]:
                continue
            one = state[g]
            o = int(rng.integers(num_players))
            others = [a for a in range(num_players) if a != o and int(one.hands[0, a])]
            own = bits_to_cards(one.hands[0, o])
            if not own or not others:
                continue
            a = int(rng.choice(others))
            x, y = int(rng.choice(own)), int(rng.choice(bits_to_cards(one.hands[0, a])))
            hands = one.hands.copy()
            hands[0, o] ^= np.uint64((1 << x) | (1 << y))
            hands[0, a] ^= np.uint64((1 << x) | (1 << y))
            changed = one.replace(hands=hands)
            changed = changed.replace(legal=reference_legal(changed))
            before, after = infoset(one, o), infoset(changed, o)
            assert before.hand[0] != after.hand[0]
            obs_before, obs_after = encode(before, layout), encode(after, layout)
            hand = layout.sections["hand"][0]
            assert not np.array_equal(obs_before[:, hand], obs_after[:, hand])
            checked += 1
    assert checked > 20


# ---------------------------------------------------------------------------------------------
# Relative seats


def rotate(values: np.ndarray, seat: int) -> np.ndarray:
    """(B, P, ...) absolute -> relative to ``seat``: out[:, r] = values[:, (seat + r) % P]."""
    P = values.shape[1]
    return values[:, (seat + np.arange(P)) % P]


def card_bits(trick: np.ndarray) -> np.ndarray:
    out = np.zeros(trick.shape, np.uint64)
    for index in np.ndindex(trick.shape):
        if trick[index] >= 0:
            out[index] = np.uint64(1 << int(trick[index]))
    return out


def current_trick_voids(state: State) -> np.ndarray:
    """(B, P) uint8, absolute seats: suits seats failed to follow in the current trick (plain Python)."""
    out = np.zeros((state.batch_size, state.num_players), np.uint8)
    for g in range(state.batch_size):
        lead = int(state.trick[g, state.leader[g]])
        if lead < 0:
            continue
        for a in range(state.num_players):
            c = int(state.trick[g, a])
            if c >= 0 and suit(c) != suit(lead):
                out[g, a] = 1 << suit(lead)
    return out


@pytest.mark.parametrize("num_players", range(3, 8))
def test_fields_are_rotated_to_the_observer(num_players: int) -> None:
    rules = HeartsRules(num_players=num_players, jack_of_diamonds=num_players % 2 == 0, target_score=40)
    states = random_states(rules, 8, seed=7 * num_players, history=True, keep=0.25, steps=steps_for_hands(rules, 8))
    assert any(s.done.any() for s in states), "no finished game among the states"
    P = num_players
    for state in states:
        voids = state.voids | current_trick_voids(state)
        for s in range(P):
            info = infoset(state, s)
            assert info.num_players == P and info.rules == rules
            np.testing.assert_array_equal(info.seat, s)
            np.testing.assert_array_equal(info.hand, state.hands[:, s])
            np.testing.assert_array_equal(info.passed, state.passed[:, s])
            np.testing.assert_array_equal(info.legal, np.where(state.to_play == s, state.legal, 0))
            for name in ("phase", "hand_number", "tricks_played", "hearts_broken"):
                np.testing.assert_array_equal(getattr(info, name), getattr(state, name), err_msg=name)
            np.testing.assert_array_equal(info.pass_offset, [pass_offset(rules, h) for h in state.hand_number])
            np.testing.assert_array_equal(info.scores, rotate(state.scores, s))
            np.testing.assert_array_equal(info.points, rotate(state.hand_points, s))
            np.testing.assert_array_equal(info.taken, rotate(state.taken, s))
            np.testing.assert_array_equal(info.trick, rotate(state.trick, s))
            np.testing.assert_array_equal(info.played, rotate(state.played | card_bits(state.trick), s))
            np.testing.assert_array_equal(info.voids, rotate(voids, s))
            np.testing.assert_array_equal(info.tricks, state.tricks[:, :, (s + np.arange(P)) % P])
            leaders = np.where(state.trick_leaders >= 0, (state.trick_leaders - s) % P, -1)
            np.testing.assert_array_equal(info.trick_leaders, leaders)
            to_play = np.where(state.done, -1, (state.to_play.astype(int) - s) % P)
            np.testing.assert_array_equal(info.to_play, to_play)
            live = ~state.done
            leader = np.where(state.phase == PASS, -1, (state.leader.astype(int) - s) % P)
            np.testing.assert_array_equal(info.trick_leader[live], leader[live])
        # The default observer is the seat to act.
        acting = infoset(state)
        np.testing.assert_array_equal(acting.seat[~state.done], state.to_play[~state.done])
        np.testing.assert_array_equal(acting.to_play[~state.done], 0)
        np.testing.assert_array_equal(acting.legal, state.legal)


def test_per_game_observer_seats() -> None:
    """A (B,) array of seats observes each game from its own seat."""
    rules = HeartsRules(num_players=5)
    states = random_states(rules, 10, seed=3, history=False, keep=0.2, steps=120)
    rng = np.random.default_rng(0)
    for state in states:
        seats = rng.integers(0, 5, state.batch_size)
        together = infoset(state, seats)
        for g, s in enumerate(seats):
            alone = infoset(state[g], int(s))
            for name in INFO_FIELDS:
                np.testing.assert_array_equal(getattr(together, name)[g], getattr(alone, name)[0], err_msg=name)


# ---------------------------------------------------------------------------------------------
# A plain-Python record of the actions as the reference


class Record:
    """One game's current hand as played: picks per seat, completed tricks, the current trick."""

    def __init__(self, num_players: int) -> None:
        self.P = num_players
        self.picks: list[set[int]] = [set() for _ in range(num_players)]
        self.tricks: list[tuple[int, list[int]]] = []  # (leader, card per seat)
        self.leader = -1
        self.current: dict[int, int] = {}

    def act(self, phase: int, seat: int, card: int) -> None:
        if phase == PASS:
            self.picks[seat].add(card)
            return
        if not self.current:
            self.leader = seat
        self.current[seat] = card
        if len(self.current) == self.P:
            self.tricks.append((self.leader, [self.current[a] for a in range(self.P)]))
            self.current = {}

    def voids(self, current: bool) -> list[int]:
        """Suit bits each seat failed to follow: completed tricks, and the current one if ``current``."""
        out = [0] * self.P
        tricks = [(leader, dict(enumerate(played))) for leader, played in self.tricks]
        if current and self.current:
            tricks.append((self.leader, self.current))
        for leader, played in tricks:
            led = suit(played[leader])
            for a, c in played.items():
                if suit(c) != led:
                    out[a] |= 1 << led
        return out


SEQUENCE_CASES = [HeartsRules(num_players=p) for p in range(3, 8)] + [
    HeartsRules(num_players=4, target_score=30, jack_of_diamonds=True),
    HeartsRules(num_players=5, pass_count=1, target_score=30, pass_cycle=("right", "none", "left")),
    HeartsRules(num_players=3, pass_count=0, no_points_on_first_trick=False),
]


def play_recorded(rules: HeartsRules, batch: int, seed: int, history: bool, steps: int):
    """Yield (state, records) after each step of random games, the records kept in plain Python."""
    rng = np.random.default_rng(seed)
    state = new_games(rules, batch_size=batch, seed=seed, history=history)
    records = [Record(rules.num_players) for _ in range(batch)]
    yield state, records
    for _ in range(steps):
        actions = sample_actions(state, rng)
        after = step(state, actions)
        for g, record in enumerate(records):
            if state.done[g]:
                continue
            record.act(int(state.phase[g]), int(state.to_play[g]), int(actions[g]))
            if after.hand_over[g] and not after.done[g]:
                records[g] = Record(rules.num_players)
        state = after
        yield state, records


@pytest.mark.parametrize("rules", SEQUENCE_CASES, ids=rules_id)
def test_passed_and_received_follow_the_picks(rules: HeartsRules) -> None:
    P = rules.num_players
    seen_received = seen_before = 0
    directions = set()
    for state, records in play_recorded(rules, 6, seed=P, history=False, steps=steps_for_hands(rules, 4) + 20):
        for s in range(P):
            info = infoset(state, s)
            for g, record in enumerate(records):
                picks_done = sum(map(len, record.picks))
                offset = pass_offset(rules, state.hand_number[g])
                assert int(info.passed[g]) == bits(record.picks[s])
                landed = offset != 0 and picks_done == P * rules.pass_count
                if landed:
                    assert state.phase[g] != PASS
                    assert int(info.received[g]) == bits(record.picks[(s - offset) % P])
                    directions.add(offset)
                    seen_received += 1
                else:
                    assert int(info.received[g]) == 0, f"game {g} seat {s}: received before the passes land"
                    seen_before += 1
    assert seen_before > 0
    if rules.pass_count:
        assert seen_received > 0
        # A seat takes at most 26 points a hand: every game plays 2 hands (target 30), or 4 (target 100).
        reached = 3 if rules.target_score == 100 else 2
        assert directions >= {pass_offset(rules, h) for h in range(1, reached + 1)} - {0}


@pytest.mark.parametrize("rules", SEQUENCE_CASES, ids=rules_id)
def test_voids_follow_the_failures_to_follow_suit(rules: HeartsRules) -> None:
    P = rules.num_players
    marked = 0
    for state, records in play_recorded(rules, 6, seed=10 + P, history=False, steps=steps_for_hands(rules, 3)):
        infos = [infoset(state, s) for s in range(P)]
        for g, record in enumerate(records):
            completed, everything = record.voids(current=False), record.voids(current=True)
            assert state.voids[g].tolist() == completed, f"game {g}: State.voids"
            for s, info in enumerate(infos):
                expected = [everything[(s + r) % P] for r in range(P)]
                assert info.voids[g].tolist() == expected, f"game {g} observer {s}: InfoSet.voids"
            marked += sum(map(bool, everything)) - sum(map(bool, completed))
    assert marked > 0, "no seat failed to follow in a current trick: the test never checked that case"


def test_voids_scripted() -> None:
    """Seat 2 holds no clubs: it is void in clubs from its first discard, in the trick and after it."""
    hands = [
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
        "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
        "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
        "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    ]
    rules = HeartsRules(pass_count=0)
    state = new_games(rules, deals=cards.deal_from_hands(hands)[None], seed=0)
    clubs, diamonds = 1 << cards.CLUBS, 1 << cards.DIAMONDS
    expected = [  # relative to seat 0, after each card: voids known
        ("2C", [0, 0, 0, 0]),
        ("2D", [0, clubs, 0, 0]),
        ("2S", [0, clubs, clubs, 0]),
        ("2H", [0, clubs, clubs, clubs]),  # hearts on the first trick: the seat holds only hearts
        ("3C", [0, clubs, clubs, clubs]),
        ("3D", [0, clubs, clubs, clubs]),
    ]
    for name, voids in expected:
        state = step(state, np.array([cards.parse_card(name)]))
        assert infoset(state, 0).voids[0].tolist() == voids, name
        assert infoset(state, 1).voids[0].tolist() == voids[1:] + voids[:1], name
    assert state.voids[0].tolist() == [0, clubs, clubs, clubs]
    state = step(state, np.array([cards.parse_card("3S")]))  # seat 2 fails to follow clubs: no news
    state = step(state, np.array([cards.parse_card("3H")]))
    assert state.voids[0].tolist() == [0, clubs, clubs, clubs]
    assert not any(v & diamonds for v in infoset(state, 0).voids[0].tolist())


@pytest.mark.parametrize("rules", SEQUENCE_CASES, ids=rules_id)
def test_history_matches_the_tricks_played(rules: HeartsRules) -> None:
    P, H = rules.num_players, rules.hand_size
    full = 0
    for state, records in play_recorded(rules, 5, seed=20 + P, history=True, steps=steps_for_hands(rules, 2) + 5):
        assert state.tricks.shape == (5, H, P) and state.trick_leaders.shape == (5, H)
        infos = [infoset(state, s) for s in range(P)]
        for g, record in enumerate(records):
            tricks = np.full((H, P), -1)
            leaders = np.full(H, -1)
            for h, (leader, played) in enumerate(record.tricks):
                tricks[h], leaders[h] = played, leader
            np.testing.assert_array_equal(state.tricks[g], tricks)
            np.testing.assert_array_equal(state.trick_leaders[g], leaders)
            assert state.tricks_played[g] == len(record.tricks) or state.done[g]
            for s, info in enumerate(infos):
                np.testing.assert_array_equal(info.tricks[g], tricks[:, (s + np.arange(P)) % P])
                np.testing.assert_array_equal(info.trick_leaders[g], np.where(leaders >= 0, (leaders - s) % P, -1))
            full += len(record.tricks) == H - 1
    assert full > 0, "no hand was checked up to its last trick"


@pytest.mark.parametrize("num_players", range(3, 8))
def test_no_history_without_recording(num_players: int) -> None:
    rules = HeartsRules(num_players=num_players)
    rng = np.random.default_rng(0)
    state = new_games(rules, batch_size=3, seed=0)
    for _ in range(steps_for_hands(rules, 1) // 2):
        state = step(state, sample_actions(state, rng))
        assert state.tricks.shape == (3, 0, num_players) and state.trick_leaders.shape == (3, 0)
    info = infoset(state, 1)
    assert info.tricks.shape == (3, 0, num_players) and info.trick_leaders.shape == (3, 0)
    assert state.tricks_played.min() > 0


@pytest.mark.parametrize("seat", [-1, 4, np.array([0, 1, 2, 5])])
def test_seats_out_of_range_are_refused(seat) -> None:
    state = new_games(HeartsRules(), batch_size=4, seed=0)
    with pytest.raises(ValueError, match=r"seat must be in 0\.\.3"):
        infoset(state, seat)


# ---------------------------------------------------------------------------------------------
# Two decks: copies, the pot and the kitty


def copies(once: np.ndarray, twice: np.ndarray) -> np.ndarray:
    """(..., 52) int: how many copies of each card a pair of bitboards (...) holds."""
    unpack = lambda b: ((np.asarray(b, np.uint64)[..., None] >> np.arange(52, dtype=np.uint64)) & 1).astype(int)  # noqa: E731
    return unpack(once) + unpack(twice)


def as_pair(count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bitboards (...) of the cards ``count`` (..., 52) holds at least once, and twice."""
    weights = np.uint64(1) << np.arange(52, dtype=np.uint64)
    return (
        np.where(count >= 1, weights, np.uint64(0)).sum(-1).astype(np.uint64),
        np.where(count == 2, weights, np.uint64(0)).sum(-1).astype(np.uint64),
    )


def scramble_copies(state: State, observer: np.ndarray, rng: np.random.Generator, attempts: int = 24):
    """A copy of a two-deck ``state`` with single copies swapped among the places ``observer`` cannot
    see into: the other seats' hands, during the pass their in-flight picks, and the face-down kitty.
    No copy of a card the observer passed moves, and no seat gets a card of a suit it is known void
    in. Returns the new state, which games changed, and how many swaps touched the kitty."""
    P = state.num_players
    info = infoset(state, observer)
    hands, passed = copies(state.hands, state.hands2), copies(state.passed, state.passed2)
    kitty = copies(state.kitty[:, 0], state.kitty[:, 1])
    kitty_swaps = 0
    for g in range(state.batch_size):
        if state.phase[g] == GAME_OVER:
            continue
        o = int(observer[g])
        others = [a for a in range(P) if a != o]
        places = [hands[g, a] for a in others]  # views: the swaps write through
        voids = [int(info.voids[g, (a - o) % P]) for a in others]
        if state.phase[g] == PASS:
            places += [passed[g, a] for a in others]
            voids += [0] * len(others)
        places.append(kitty[g])
        voids.append(0)
        pinned = passed[g, o] > 0
        for _ in range(attempts):
            i, j = (int(k) for k in rng.choice(len(places), 2, replace=False))
            xs = np.flatnonzero((places[i] > 0) & ~pinned)
            ys = np.flatnonzero((places[j] > 0) & ~pinned)
            if not len(xs) or not len(ys):
                continue
            x, y = int(rng.choice(xs)), int(rng.choice(ys))
            if x == y or voids[j] >> suit(x) & 1 or voids[i] >> suit(y) & 1:
                continue
            places[i][x] -= 1
            places[i][y] += 1
            places[j][y] -= 1
            places[j][x] += 1
            kitty_swaps += len(places) - 1 in (i, j)
    (h, h2), (p, p2), (k, k2) = as_pair(hands), as_pair(passed), as_pair(kitty)
    new = recompute_legal(state.replace(hands=h, hands2=h2, passed=p, passed2=p2, kitty=np.stack([k, k2], axis=1)))
    changed = (h != state.hands).any(1) | (h2 != state.hands2).any(1) | (p != state.passed).any(1)
    changed |= (k != state.kitty[:, 0]) | (k2 != state.kitty[:, 1])
    return new, changed, kitty_swaps


TWO_DECK_CASES = [HeartsRules(num_players=p, decks=2) for p in range(6, 12)] + [
    HeartsRules(num_players=7, decks=2, pass_count=1, jack_of_diamonds=True, target_score=None),
    HeartsRules(num_players=9, decks=2, pass_count=0, no_points_on_first_trick=False),
]


@pytest.mark.parametrize("rules", TWO_DECK_CASES, ids=rules_id)
def test_two_deck_cards_do_not_leak(rules: HeartsRules) -> None:
    rng = np.random.default_rng(rules.num_players)
    history = rules.num_players % 2 == 0
    states = random_states(rules, 6, seed=int(rng.integers(1 << 30)), history=history, keep=0.08, steps=400)
    states += cancelling_states(rules, 6, seed=rules.num_players, steps=300, keep=0.05)
    assert len(states) > 20
    changed_total = considered = kitty_total = 0
    phases = set()
    for state in states:
        observer = rng.integers(0, rules.num_players, state.batch_size).astype(np.int8)
        swapped, changed, kitty_swaps = scramble_copies(state, observer, rng)
        step(swapped, sample_actions(swapped, rng))  # the swapped state is one the engine can play on
        changed_total += changed.sum()
        kitty_total += kitty_swaps
        considered += (~state.done).sum()
        phases.update(state.phase[changed].tolist())
        assert_same_view(state, swapped, observer, rng)
    assert changed_total > 0.6 * considered, "too few states were changed for the test to mean anything"
    assert kitty_total > 0 or rules.kitty_size == 0
    assert PLAY in phases and (PASS in phases or not rules.pass_count)


@pytest.mark.parametrize("rules", TWO_DECK_CASES[:6], ids=rules_id)
def test_two_deck_fields_read_back(rules: HeartsRules) -> None:
    """Every field of a two-deck info set, from the state rotated to the observer; ``unseen`` and
    ``unseen2`` count the copies the observer has not seen: 2 less its own, its picks during the
    pass, the taken piles (the kitty among them once taken), the pot and the current trick."""
    P = rules.num_players
    states = random_states(rules, 6, seed=P, history=False, keep=0.05, steps=2 * (P * 3 + 104))
    states += cancelling_states(rules, 6, seed=P, steps=300, keep=0.15)
    seen_pot = seen_cancel = 0
    for state in states:
        B = state.batch_size
        trick = np.zeros((B, P, 52), int)
        for g, a in zip(*np.nonzero(state.trick >= 0), strict=True):
            trick[g, a, state.trick[g, a]] = 1
        table = copies(state.taken, state.taken2).sum(1) + copies(state.pot[:, 0], state.pot[:, 1]) + trick.sum(1)
        offset = np.array([pass_offset(rules, h) for h in state.hand_number])
        landed = (state.phase != PASS) & (offset != 0)
        seen_pot += int(state.pot.any())
        seen_cancel += int(((state.winner == -1) & (state.trick_size > 0)).any())
        for s in range(P):
            info = infoset(state, s)
            np.testing.assert_array_equal(info.hand2, state.hands2[:, s])
            np.testing.assert_array_equal(info.passed2, state.passed2[:, s])
            giver = (s - offset) % P
            np.testing.assert_array_equal(info.received, np.where(landed, state.passed[np.arange(B), giver], 0))
            np.testing.assert_array_equal(info.received2, np.where(landed, state.passed2[np.arange(B), giver], 0))
            played = copies(state.played, state.played2) + trick
            np.testing.assert_array_equal(copies(info.played, info.played2), rotate(played, s))
            np.testing.assert_array_equal(info.taken2, rotate(state.taken2, s))
            np.testing.assert_array_equal(info.points, rotate(state.hand_points, s))
            np.testing.assert_array_equal(info.pot, state.pot[:, 0])
            np.testing.assert_array_equal(info.pot2, state.pot[:, 1])
            np.testing.assert_array_equal(info.kitty_size, np.bitwise_count(state.kitty).sum(1))
            own = copies(state.hands[:, s], state.hands2[:, s])
            own += np.where((state.phase == PASS)[:, None], copies(state.passed[:, s], state.passed2[:, s]), 0)
            np.testing.assert_array_equal(copies(info.unseen, info.unseen2), 2 - own - table)
            playing = state.phase == PLAY
            winner = np.where(state.winner >= 0, (state.winner.astype(int) - s) % P, -1)
            np.testing.assert_array_equal(info.trick_winner[playing], winner[playing])
    assert seen_pot and seen_cancel, "no pot or no trick without a winner among the states"


def test_one_deck_info_sets_hold_no_second_copies() -> None:
    states = random_states(HeartsRules(num_players=5), 4, seed=1, history=False, keep=0.3, steps=100)
    for state in states:
        info = infoset(state, 2)
        for name in ("hand2", "passed2", "received2", "unseen2", "played2", "taken2", "pot", "pot2", "kitty_size"):
            assert not getattr(info, name).any(), name


def test_selecting_no_games_gives_empty_fields():
    """A sub-batch of zero games (every game filtered out) still has every field, with no rows."""
    state = new_games(HeartsRules(), batch_size=3, seed=0)
    empty = state[np.array([], np.int64)]
    assert empty.batch_size == 0 and empty.hands.shape == (0, 4) and empty.scores.shape == (0, 4)
    info = infoset(state)[np.array([], np.int64)]
    assert info.hand.shape == (0,) and info.played.shape == (0, 4)


# ---------------------------------------------------------------------------------------------
# Worlds: info set -> world -> info set


@pytest.mark.parametrize(
    "rules",
    [HeartsRules(), HeartsRules(num_players=3, jack_of_diamonds=True), HeartsRules(num_players=8, decks=2)],
    ids=["4 players", "3 players JD", "8 players, two decks"],
)
def test_a_world_seen_from_the_observer_is_its_info_set_again(rules: HeartsRules) -> None:
    """``world_states`` inverts ``infoset`` on all the observer knows: any world consistent with
    the info set (the true one, and sampled ones) gives back the same info set, field by field."""
    rng = np.random.default_rng(3)
    checked = 0
    for state in random_states(
        rules, batch=24, seed=5, history=False, steps=rules.hand_size * rules.num_players, keep=0.3
    ):
        playing = np.flatnonzero(state.phase == PLAY)
        if not len(playing):
            continue
        state = state[playing]
        info = infoset(state)
        worlds = sample_worlds(info, 3, rng)  # (B, 3, ...) hidden cards consistent with each info set
        built = world_states(info, worlds)  # B * 3 states, game-major
        again = infoset(built, np.repeat(info.seat, 3).astype(np.int64))
        for field in INFO_FIELDS:
            np.testing.assert_array_equal(getattr(again, field), np.repeat(getattr(info, field), 3, axis=0), field)
        checked += len(playing)
    assert checked > 50
