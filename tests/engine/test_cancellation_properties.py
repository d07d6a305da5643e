"""Property tests of Cancellation Hearts (``HeartsRules(decks=2)``) for every player count 6..11.

Random games are checked at every step against the invariants of docs/rules.md (every one of the
104 cards in exactly one place; a hand's points sum to 52, or the moon totals, less 20 with the
JD rule) and against ``RefGame2`` (``cancellation_reference.py``), a plain-Python model of the
two-deck rules that must agree with every field of the engine's state, the legal cards included.
Deals come from the engine's seeds and from "twin" deals, where pairs of seats hold the same
cards, so that cancellations, tricks without a winner and the pot come up often; the players
then favour playing a card whose other copy is already in the trick. Batches must play like
their games one at a time.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from cancellation_reference import (
    HAND_SIZE,
    KITTY_SIZE,
    MOONS,
    PASS,
    PLAYERS,
    POINTS,
    RefGame2,
    knobs_of,
    pair,
    ref_hand_points,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_states import cancelling_actions, twin_deals
from test_properties import assert_unchanged, check_batch_equals_singles, snapshot

from hearts_env.engine.core import GAME_OVER, PLAY, State, hand_score, legal_mask, new_games, step
from hearts_env.engine.rules import HeartsRules

U64 = np.uint64
BITS = U64(1) << np.arange(52, dtype=U64)


def counts(once: np.ndarray, twice: np.ndarray) -> np.ndarray:
    """(..., 52) copies of each card in bitboard pairs (...,)."""
    unpack = lambda b: ((np.asarray(b, U64)[..., None] >> np.arange(52, dtype=U64)) & U64(1)).astype(np.int64)  # noqa: E731
    return unpack(once) + unpack(twice)


def trick_counts(trick: np.ndarray) -> np.ndarray:
    """(B, 52) copies of each card in the current tricks (B, P)."""
    out = np.zeros((trick.shape[0], 52), np.int64)
    for g, s in zip(*np.nonzero(trick >= 0), strict=True):
        out[g, trick[g, s]] += 1
    return out


def engine_deal(state: State, g: int) -> tuple[list[Counter], Counter]:
    """The hands and kitty of game ``g`` as multisets."""

    def pile(once: int, twice: int) -> Counter:
        return Counter({c: (once >> c & 1) + (twice >> c & 1) for c in range(52) if once >> c & 1})

    hands = [pile(int(h), int(h2)) for h, h2 in zip(state.hands[g], state.hands2[g], strict=True)]
    return hands, pile(int(state.kitty[g, 0]), int(state.kitty[g, 1]))


def check_invariants(state: State, knobs: dict) -> None:
    p = knobs["num_players"]
    hs, B = HAND_SIZE[p], state.batch_size
    assert state.hands.shape == state.hands2.shape == state.taken2.shape == (B, p)
    assert state.kitty.shape == state.pot.shape == (B, 2)
    for once, twice in (
        (state.hands, state.hands2),
        (state.passed, state.passed2),
        (state.played, state.played2),
        (state.taken, state.taken2),
        (state.last_hand_taken, state.last_hand_taken2),
        (state.kitty[:, 0], state.kitty[:, 1]),
        (state.pot[:, 0], state.pot[:, 1]),
    ):
        assert (twice & ~once == 0).all(), "a card counted twice is not counted once"
    passing, playing, over = state.phase == PASS, state.phase == PLAY, state.phase == GAME_OVER

    # Every one of the 104 cards in exactly one place.
    held = counts(state.hands, state.hands2)  # (B, P, 52)
    in_flight = np.where(passing[:, None, None], counts(state.passed, state.passed2), 0)
    taken = counts(state.taken, state.taken2)
    kitty, pot = counts(state.kitty[:, 0], state.kitty[:, 1]), counts(state.pot[:, 0], state.pot[:, 1])
    total = held.sum(1) + in_flight.sum(1) + taken.sum(1) + kitty + pot + trick_counts(state.trick)
    bad = np.flatnonzero((total != 2).any(axis=1))
    assert not len(bad), f"games {bad} lose or invent cards"

    # The kitty stays face down, whole, until the first taker takes it with the first pile.
    nothing_taken = taken.sum(axis=(1, 2)) == 0
    assert (kitty.sum(1)[nothing_taken & ~over] == KITTY_SIZE[p]).all()
    assert (kitty.sum(1)[~nothing_taken] == 0).all()
    # Hand sizes as the hand proceeds; the taken piles and the pot hold whole tricks and the kitty.
    in_trick = state.trick >= 0
    assert (in_trick.sum(axis=1) == state.trick_size).all()
    size = held.sum(2)
    expected = hs - state.tricks_played[:, None].astype(np.int64) - in_trick
    assert (size[playing] == expected[playing]).all(), "hand sizes do not match the tricks played"
    on_table = taken.sum(axis=(1, 2)) + pot.sum(1) - np.where(nothing_taken, 0, KITTY_SIZE[p])
    assert (on_table[playing] == p * state.tricks_played[playing]).all()
    picked = counts(state.passed, state.passed2).sum(2)
    assert ((size + picked)[passing] == hs).all()
    assert (size[over] == 0).all() and (state.to_play[over] == -1).all()
    assert ((state.winner[playing] >= -1) & (state.winner[playing] < p)).all()

    # The legal cards: never none while a game runs, inside the hand of the seat to act.
    mask = legal_mask(state)
    assert not mask[over].any() and mask[~over].any(axis=1).all()
    actor = held[np.arange(B), np.clip(state.to_play, 0, p - 1)] > 0
    assert not (mask & ~actor)[~over].any(), "a legal card is not in the hand of the seat to act"
    assert (mask[passing] == actor[passing]).all(), "during the pass the whole hand is not legal"


def check_hand_end(prev: State, new: State, refs: list[RefGame2], knobs: dict) -> None:
    p = knobs["num_players"]
    for g in np.flatnonzero(new.hand_over):
        points = new.last_hand_points[g].astype(np.int64)
        want = {None: 52, "add_to_others": 52 * (p - 1), "subtract_from_self": -52}[refs[g].moon_used]
        want -= 20 if knobs["jack_of_diamonds"] else 0  # both JDs always end in a taken pile
        assert points.sum() == want, f"game {g}: hand points {points} (moon {refs[g].moon_used})"
        assert (new.scores[g] == prev.scores[g] + points).all()
        hands_last = counts(new.last_hand_taken[g], new.last_hand_taken2[g]).sum(0)
        assert (hands_last == 2).all(), "the last hand's taken piles do not hold all 104 cards"


def compare_with_reference(state: State, refs: list[RefGame2], context: str) -> None:
    history = state.history
    wanted = refs[0].expected(history)
    fields = {f: getattr(state, f).tolist() for f in (*wanted, "leader", "winner")}
    for g, ref in enumerate(refs):
        for field, want in ref.expected(history).items():
            got = fields[field][g]
            if got != want:
                pytest.fail(f"{context}, game {g}: {field} is {got}, the rules say {want}")


def play_and_check(
    knobs: dict,
    batch_size: int = 4,
    seed: int = 0,
    deals: np.ndarray | None = None,
    lean: float = 0.0,
    history: bool = False,
    max_steps: int = 100_000,
) -> tuple[State, list[RefGame2]]:
    """Play games to the end, checking everything at every step."""
    rules = HeartsRules(**knobs)
    state = new_games(
        rules, batch_size=None if deals is not None else batch_size, seed=seed, deals=deals, history=history
    )
    refs = [RefGame2(knobs, *engine_deal(state, g)) for g in range(state.batch_size)]
    rng = np.random.default_rng(seed + 1)
    for n in range(max_steps):
        check_invariants(state, knobs)
        compare_with_reference(state, refs, f"{knobs} seed {seed} step {n}")
        if state.done.all():
            return state, refs
        actions = cancelling_actions(state, rng, lean)
        before = snapshot(state)
        new = step(state, actions)
        assert_unchanged(state, before, "step")
        for g, ref in enumerate(refs):
            if ref.step(int(actions[g])):
                check_invariants(new, knobs)  # the new deal is a partition of the 104 cards
                ref.deal(*engine_deal(new, g))
        check_hand_end(state, new, refs, knobs)
        state = new
    pytest.fail(f"games did not end in {max_steps} steps")


@st.composite
def knob_sets(draw: st.DrawFn, players: tuple[int, ...] = PLAYERS) -> dict:
    p = draw(st.sampled_from(players))
    return knobs_of(
        num_players=p,
        pass_count=draw(st.sampled_from([0, 1, 3]) | st.integers(0, HAND_SIZE[p])),
        pass_cycle=draw(
            st.none() | st.lists(st.sampled_from(["left", "right", "none"]), min_size=1, max_size=4).map(tuple)
        ),
        no_points_on_first_trick=draw(st.booleans()),
        queen_breaks_hearts=draw(st.booleans()),
        jack_of_diamonds=draw(st.booleans()),
        moon=draw(st.sampled_from(MOONS)),
        target_score=draw(st.sampled_from([None, 0, 60, 120])),
    )


# ---------------------------------------------------------------------------------------------
# The engine against the reference


@pytest.mark.parametrize("players", PLAYERS)
def test_random_hands_follow_the_rules(players: int) -> None:
    """Random one-hand games and twin deals at every player count, the knobs varied."""
    for i in range(3):
        knobs = knobs_of(
            num_players=players,
            pass_count=(0, 3, 2)[i],
            no_points_on_first_trick=i != 1,
            queen_breaks_hearts=i != 2,
            jack_of_diamonds=i == 1,
            moon=MOONS[(players + i) % 3],
            target_score=None,
        )
        play_and_check(knobs, batch_size=8, seed=players * 10 + i, history=i == 0)
        rng = np.random.default_rng(players * 10 + i)
        play_and_check(knobs, seed=players + i, deals=twin_deals(players, 8, rng), lean=0.7)


@pytest.mark.parametrize("players", PLAYERS)
def test_whole_games_follow_the_rules(players: int) -> None:
    knobs = knobs_of(num_players=players, moon=MOONS[players % 3], jack_of_diamonds=players % 2 == 0, target_score=100)
    play_and_check(knobs, batch_size=3, seed=players)


def test_every_cancellation_rule_comes_up() -> None:
    """Twin deals reach each rule of the contract that random deals seldom do."""
    rng = np.random.default_rng(7)
    events: Counter[str] = Counter()
    for i, players in enumerate(PLAYERS * 2):
        knobs = knobs_of(num_players=players, pass_count=i % 2, target_score=None, jack_of_diamonds=i % 3 == 0)
        _, refs = play_and_check(knobs, seed=i, deals=twin_deals(players, 16, rng), lean=0.8)
        for ref in refs:
            events += ref.events
    expected = {
        "lead: first trick, no points",
        "two cancelling pairs",
        "trick without a winner",
        "trick without a winner, the last",
        "first trick without a winner, the kitty waits",
        "the pot taken",
    }
    assert expected <= set(events), f"never reached: {expected - set(events)} ({dict(events)})"


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(knobs=knob_sets(), seed=st.integers(0, 2**32 - 1), twins=st.booleans())
def test_random_knobs_follow_the_rules(knobs: dict, seed: int, twins: bool) -> None:
    rng = np.random.default_rng(seed)
    deals = twin_deals(knobs["num_players"], 4, rng) if twins else None
    play_and_check(knobs, batch_size=4, seed=seed, deals=deals, lean=0.5 * twins)


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYERS)
def test_thousands_of_hands_follow_the_rules(players: int) -> None:
    """About 700 hands per player count (4,000 in all) against the reference."""
    rng = np.random.default_rng(players)
    for i in range(6):
        knobs = knobs_of(
            num_players=players,
            pass_count=i % 4,
            no_points_on_first_trick=i % 3 != 2,
            queen_breaks_hearts=i % 2 == 0,
            jack_of_diamonds=i % 2 == 1,
            moon=MOONS[i % 3],
            target_score=None,
        )
        play_and_check(knobs, batch_size=64, seed=100 * players + i)
        play_and_check(knobs, seed=100 * players + i, deals=twin_deals(players, 64, rng), lean=0.6)


# ---------------------------------------------------------------------------------------------
# Scoring


@settings(max_examples=30, deadline=None)
@given(knobs=knob_sets(), seed=st.integers(0, 2**32 - 1))
def test_hand_score_matches_the_rules(knobs: dict, seed: int) -> None:
    """``core.hand_score`` with ``taken2`` on random piles of the 104 cards, half of them moons."""
    p = knobs["num_players"]
    rng = np.random.default_rng(seed)
    n = 32
    owner = rng.integers(0, p, size=(n, 104))
    moon = rng.random(n) < 0.5
    shooter = rng.integers(0, p, size=n)
    points = [c + 52 * k for c in POINTS for k in (0, 1)]
    owner[:, points] = np.where(moon[:, None], shooter[:, None], owner[:, points])
    piles = [[Counter(int(c) % 52 for c in np.flatnonzero(owner[i] == s)) for s in range(p)] for i in range(n)]
    pairs = np.array([[pair(pile) for pile in row] for row in piles], dtype=U64)  # (n, P, 2)
    totals = rng.integers(-40, 150, size=(n, p)).astype(np.int32)
    got = hand_score(HeartsRules(**knobs), pairs[..., 0], totals, taken2=pairs[..., 1])
    for i in range(n):
        want, _ = ref_hand_points(knobs, piles[i], totals[i].tolist())
        assert got[i].tolist() == want


# ---------------------------------------------------------------------------------------------
# Batches play like their games one at a time


@pytest.mark.parametrize("players", PLAYERS)
def test_batch_plays_like_single_games(players: int) -> None:
    knobs = knobs_of(
        num_players=players,
        target_score=40,
        moon=MOONS[players % 3],
        jack_of_diamonds=players % 2 == 1,
        pass_count=players % 4,
    )
    check_batch_equals_singles(knobs, batch_size=4, seed=players)
