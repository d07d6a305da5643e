"""Scripted deals for Cancellation Hearts (``HeartsRules(decks=2)``), one or more per rule of
docs/rules.md, section "Cancellation Hearts".

Deals are written as card strings (``cards.deal_from_hands(hands, kitty, decks=2)``; a card may be
listed twice), cards are played by name through ``core.step`` ("seat:card" checks the seat to
act), and the tests assert legal cards, trick winners, the pot, the kitty and the scores.
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np
import pytest
from scripted_deals import CANCEL6, CANCEL6_KITTY, PAIRS8, TWINS6, TWINS6_KITTY
from test_rules import card_set, legal, play

from hearts_env import HeartsRules
from hearts_env.engine import cards
from hearts_env.engine.core import (
    PLAY,
    State,
    bits_to_cards,
    explain_illegal,
    hand_score,
    legal_mask,
    new_games,
    sample_actions,
    step,
)
from hearts_env.engine.rules import add_rules_arguments, rules_from_args
from hearts_env.render import render_game

TWIN = {0: 1, 1: 0, 2: 3, 3: 2, 4: 5, 5: 4}


def start(hands: list[str], kitty: str = "", scores: list[int] | None = None, **knobs) -> State:
    """One game of two decks dealt ``hands`` and ``kitty``; passing off unless a knob turns it on."""
    knobs.setdefault("pass_count", 0)
    knobs.setdefault("target_score", None)
    rules = HeartsRules(num_players=len(hands), decks=2, **knobs)
    state = new_games(rules, deals=cards.deal_from_hands(hands, kitty, decks=2)[None], seed=0)
    if scores is not None:
        state = state.replace(scores=np.array([scores], dtype=np.int32))
    return state


def pile(once, twice=0) -> Counter:
    """The cards of a (at least once, twice) pair of bitboards, by name, with their copies."""
    return Counter(cards.card_name(c) for c in bits_to_cards(int(once)) + bits_to_cards(int(twice)))


def hand(state: State, seat: int) -> Counter:
    return pile(state.hands[0, seat], state.hands2[0, seat])


def taken(state: State, seat: int) -> Counter:
    return pile(state.taken[0, seat], state.taken2[0, seat])


def last_taken(state: State, seat: int) -> Counter:
    return pile(state.last_hand_taken[0, seat], state.last_hand_taken2[0, seat])


def names(text: str) -> Counter:
    return Counter(cards.card_name(c) for c in cards.parse_cards(text))


def play_mirrored(state: State, until_trick: int | None = None) -> State:
    """Play game 0 on: a seat whose twin (``TWIN``) has played to the trick plays the same card,
    any other seat its lowest legal card; until ``until_trick`` tricks are done, or the hand ends."""
    while not state.done[0] and not state.hand_over[0] and state.tricks_played[0] != until_trick:
        card = int(state.trick[0, TWIN[int(state.to_play[0])]])
        if card < 0 or not legal_mask(state)[0, card]:
            card = int(legal_mask(state)[0].argmax())
        state = step(state, np.array([card]))
    return state


def play_out(state: State) -> State:
    """The lowest legal card for every seat until game 0's hand is over."""
    while not state.done[0] and not state.hand_over[0]:
        state = step(state, legal_mask(state).argmax(axis=1))
    return state


# ---------------------------------------------------------------------------------------------
# Knobs, decks and deals


@pytest.mark.parametrize(
    ("players", "hand_size", "kitty"), [(6, 17, 2), (7, 14, 6), (8, 13, 0), (9, 11, 5), (10, 10, 4), (11, 9, 5)]
)
def test_deal_sizes_and_the_kitty(players: int, hand_size: int, kitty: int) -> None:
    rules = HeartsRules(num_players=players, decks=2)
    assert (rules.hand_size, rules.kitty_size, rules.moon_points) == (hand_size, kitty, 52)
    assert rules.pass_cycle == ("left", "right")
    deck = cards.deck(players, decks=2)
    assert len(deck) == 104 and (np.bincount(deck, minlength=52) == 2).all()
    state = new_games(rules, batch_size=50, seed=players)
    counts = np.bitwise_count(state.hands) + np.bitwise_count(state.hands2)
    assert (counts == hand_size).all()
    assert (np.bitwise_count(state.kitty).sum(axis=1) == kitty).all()
    assert state.hands.shape == state.hands2.shape == (50, players) and state.kitty.shape == (50, 2)


@pytest.mark.parametrize(
    ("knobs", "message"),
    [
        ({"decks": 2, "num_players": 4}, r"num_players must be in 6\.\.11 with decks=2, got 4"),
        ({"decks": 2, "num_players": 5}, "num_players must be in 6..11"),
        ({"decks": 2, "num_players": 3}, "num_players must be in 6..11"),
        ({"decks": 2, "num_players": 12}, "num_players must be in 6..11"),
        ({"decks": 1, "num_players": 8}, r"3\.\.7, got 8 \(6\.\.11 players play with decks=2\)"),
        ({"decks": 3, "num_players": 8}, "decks must be 1 or 2"),
        ({"decks": 0}, "decks must be 1 or 2"),
        ({"decks": True}, "decks must be 1 or 2"),
        ({"decks": "2"}, "decks must be 1 or 2"),
        ({"decks": 2.0}, "decks must be 1 or 2"),
        ({"decks": 2, "num_players": 6, "pass_cycle": ("left", "across")}, "'across' exists only with 4 players"),
        ({"decks": 2, "num_players": 11, "pass_count": 10}, "pass_count must be 0..9"),
    ],
)
def test_impossible_knob_combinations_are_refused(knobs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        HeartsRules(**knobs)


def test_decks_flag() -> None:
    parser = argparse.ArgumentParser(prog="x")
    add_rules_arguments(parser)
    rules = rules_from_args(parser.parse_args(["--decks", "2", "--num-players", "8"]), parser)
    assert rules == HeartsRules(decks=2, num_players=8)
    assert HeartsRules.from_dict(rules.to_dict()) == rules and HeartsRules.from_dict({}).decks == 1
    with pytest.raises(SystemExit):
        rules_from_args(parser.parse_args(["--decks", "2"]), parser)  # 4 players


def test_deals_with_two_copies_and_a_kitty() -> None:
    row = cards.deal_from_hands(TWINS6, TWINS6_KITTY, decks=2)
    assert row.shape == (104,)
    assert row[cards.parse_card("2C")] == 0 and row[52 + cards.parse_card("2C")] == 1
    ah = cards.parse_card("AH")
    assert row[ah] == row[52 + ah] == cards.KITTY
    state = start(TWINS6, TWINS6_KITTY)
    for seat in range(6):
        assert hand(state, seat) == names(TWINS6[seat])
    assert pile(*state.kitty[0]) == names("AH AH")
    state = start(PAIRS8)
    assert hand(state, 0) == names(PAIRS8[0]) and pile(state.hands2[0, 0]) == names("2C 3C 4C 5C 6C 7C")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: cards.deal_from_hands(["2C 2C", "2C"], decks=2), "2C is given to seat 0 and seat 0 and seat 1"),
        (lambda: cards.deal_from_hands(["QS"], "QS QS", decks=2), "QS is given to seat 0 and the kitty and the kitty"),
        (lambda: cards.deal_from_hands(["QS"], "2C"), "a kitty exists only with two decks"),
        (lambda: cards.deal_from_hands(["QS"], decks=3), "decks must be 1 or 2"),
    ],
)
def test_bad_deal_rows_are_refused(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_bad_deals_are_refused_naming_the_problem() -> None:
    rules = HeartsRules(num_players=6, decks=2)
    row = cards.deal_from_hands(TWINS6, TWINS6_KITTY, decks=2)
    with pytest.raises(ValueError, match=r"shape \(B, 104\)"):
        new_games(rules, deals=row[None, :52])
    missing = row.copy()
    missing[cards.parse_card("AH")] = -1
    with pytest.raises(ValueError, match=r"AH to seat -1; seats are 0\.\.5 and -2 \(the kitty\)"):
        new_games(rules, deals=missing[None])
    short = row.copy()
    short[cards.parse_card("AH")] = 0  # seat 0 gets 18 cards, the kitty 1
    with pytest.raises(ValueError, match="gives seat 0 18 cards; each seat gets 17"):
        new_games(rules, deals=short[None])
    with pytest.raises(ValueError, match="seats are 0..5"):
        new_games(rules, deals=np.where(row == 5, 6, row)[None])


def test_a_random_deal_replays_from_its_hands_and_kitty() -> None:
    rules = HeartsRules(num_players=7, decks=2, target_score=None)
    state = new_games(rules, batch_size=3, seed=5)
    rows = []
    for g in range(3):
        hands = [" ".join(pile(state.hands[g, s], state.hands2[g, s]).elements()) for s in range(7)]
        rows.append(cards.deal_from_hands(hands, " ".join(pile(*state.kitty[g]).elements()), decks=2))
    replay = new_games(rules, deals=np.array(rows), keys=state.key)
    for name in State.FIELDS:
        np.testing.assert_array_equal(getattr(replay, name), getattr(state, name), err_msg=name)


# ---------------------------------------------------------------------------------------------
# The first trick


def test_the_seat_left_of_the_dealer_leads_the_first_trick() -> None:
    """Seat (h - 1) mod P leads hand h, whoever holds the clubs."""
    for players in (6, 7, 11):
        rules = HeartsRules(num_players=players, decks=2, pass_count=0, target_score=10_000)
        state = new_games(rules, batch_size=4, seed=players)
        rng = np.random.default_rng(players)
        for hand_number in range(1, players + 3):
            assert (state.hand_number == hand_number).all() and (state.phase == PLAY).all()
            assert (state.to_play == (hand_number - 1) % players).all()
            assert (state.leader == (hand_number - 1) % players).all()
            state = step(state, sample_actions(state, rng))
            while not state.hand_over.all():
                state = step(state, sample_actions(state, rng))


def test_after_the_pass_the_seat_left_of_the_dealer_leads() -> None:
    state = new_games(HeartsRules(num_players=8, decks=2, pass_count=2), batch_size=2, seed=1)
    rng = np.random.default_rng(0)
    for _ in range(16):
        state = step(state, sample_actions(state, rng))
    assert (state.phase == PLAY).all() and (state.to_play == 0).all()


def test_first_lead_no_hearts_or_queen_unless_nothing_else() -> None:
    state = start(CANCEL6, CANCEL6_KITTY)
    assert legal(state) == card_set("5D 6D 7D 2S 3S 4S")
    with pytest.raises(ValueError, match="QS is illegal: no heart or QS may lead the first trick"):
        play(state, "0:QS")
    # With the knob off the QS may lead the first trick, a heart still not (hearts are not broken).
    state = start(CANCEL6, CANCEL6_KITTY, no_points_on_first_trick=False)
    assert legal(state) == card_set("5D 6D 7D 2S 3S 4S QS")
    with pytest.raises(ValueError, match="2H is illegal: hearts are not broken"):
        play(state, "0:2H")
    # A hand of nothing but hearts and the QS may lead any of them.
    state = start(ONLY_POINTS6, TWINS6_KITTY)
    assert legal(state) == card_set(ONLY_POINTS6[0])


# TWINS6 with seat 0's cards traded for the QS and low hearts of seats 4 and 5.
ONLY_POINTS6 = [
    "QS QS 2H 2H 3H 3H 4H 4H 5H 5H 6H 6H 7H 7H 8H 8H 9H",
    TWINS6[1],
    TWINS6[2],
    TWINS6[3],
    "TS JS KS AS TH JH QH KH 2C 3C 4C 5C 6C 7C 8C 9C TC",
    "TS JS KS AS 9H TH JH QH KH JC QC KC AC 2D 3D 4D 5D",
]


def test_first_trick_discards_no_points_unless_nothing_else() -> None:
    state = play(start(TWINS6, TWINS6_KITTY), "0:2C 1:2C 2:6D 3:6D")
    assert legal(state) == card_set("TS JS KS AS")  # seat 4 is void in clubs: no QS, no hearts
    state = play(start(TWINS6, TWINS6_KITTY, no_points_on_first_trick=False), "0:2C 1:2C 2:6D 3:6D")
    assert legal(state) == card_set(TWINS6[4])


# ---------------------------------------------------------------------------------------------
# Cancellation, the pot and the kitty


def test_two_cancelling_pairs_leave_the_highest_uncancelled_card_winning() -> None:
    state = start(CANCEL6, CANCEL6_KITTY)
    winners = []
    for token in "0:5D 1:QD 2:AD 3:AD 4:KD 5:KD".split():
        state = play(state, token)
        winners.append(int(state.winner[0]) if state.trick_size[0] else int(state.last_trick_winner[0]))
    # 5D, then QD; the AD wins until its copy cancels it; the KD likewise; the QD takes the trick.
    assert winners == [0, 1, 2, 1, 4, 1]
    assert state.leader[0] == state.to_play[0] == 1
    # The first taker takes the kitty (QS 3H) with its points.
    assert taken(state, 1) == names("5D QD AD AD KD KD QS 3H")
    assert state.hand_points[0].tolist() == [0, 14, 0, 0, 0, 0]
    assert not state.kitty.any()


def test_a_trick_without_a_winner_waits_in_the_pot_for_the_next_taker() -> None:
    state = play(start(CANCEL6, CANCEL6_KITTY), "0:5D 1:QD 2:AD 3:AD 4:KD 5:KD")
    state = play(state, "1:9C 2:9C")
    assert state.winner[0] == -1  # every club of the trick is cancelled
    state = play(state, "3:7H 4:7H 5:QH 0:2H")
    assert state.tricks_played[0] == 2 and state.last_trick_winner[0] == -1
    assert pile(*state.pot[0]) == names("9C 9C 7H 7H QH 2H")
    assert state.leader[0] == state.to_play[0] == 1  # the same player leads again
    assert state.hearts_broken[0]
    assert state.hand_points[0].tolist() == [0, 14, 0, 0, 0, 0]  # the pot's points are nobody's yet
    # The next trick has a winner: it takes the pot with it.
    state = play(state, "1:TC 2:2C 3:2D 4:5D 5:TD 0:6D")
    assert state.last_trick_winner[0] == 1 and not state.pot.any()
    assert taken(state, 1) == names("5D QD AD AD KD KD QS 3H 9C 9C 7H 7H QH 2H TC 2C 2D 5D TD 6D")
    assert state.hand_points[0].tolist() == [0, 18, 0, 0, 0, 0]
    state = play_out(state)
    assert state.last_hand_points[0].sum() == 52 and state.done[0]
    assert sum((last_taken(state, s) for s in range(6)), Counter()) == Counter(
        {cards.card_name(c): 2 for c in range(52)}
    )


def test_a_first_trick_without_a_winner_leaves_the_kitty_to_the_next_taker() -> None:
    state = play(start(TWINS6, TWINS6_KITTY), "0:2C 1:2C 2:6D 3:6D 4:TS 5:TS")
    assert state.tricks_played[0] == 1 and state.last_trick_winner[0] == -1
    assert pile(*state.pot[0]) == names("2C 2C 6D 6D TS TS")
    assert pile(*state.kitty[0]) == names("AH AH") and not state.taken.any()
    # The next trick is not the first: a void player may now drop points.
    state = play(state, "0:3C 1:4C 2:7D 3:7D")
    assert legal(state) == card_set(TWINS6[4]) - {"TS"}
    state = play(state, "4:QS 5:2H")
    # Seat 1's 4C wins; it takes the trick, the pot and the kitty.
    assert state.last_trick_winner[0] == 1 and state.leader[0] == 1
    assert taken(state, 1) == names("2C 2C 6D 6D TS TS 3C 4C 7D 7D QS 2H AH AH")
    assert state.hand_points[0].tolist() == [0, 16, 0, 0, 0, 0]
    assert not state.pot.any() and not state.kitty.any()


def test_a_cancelled_card_still_breaks_hearts() -> None:
    for queen_breaks in (True, False):
        state = play_mirrored(start(TWINS6, TWINS6_KITTY, queen_breaks_hearts=queen_breaks), until_trick=1)
        state = play(state, "0:3C 1:3C 2:7D 3:7D 4:QS 5:QS")
        assert state.hearts_broken[0] == queen_breaks
        state = play(state, "0:4C 1:4C 2:8D 3:8D 4:2H 5:2H")
        assert state.hearts_broken[0]
        assert state.last_trick_winner[0] == -1 and state.tricks_played[0] == 3


def test_a_last_trick_without_a_winner_goes_to_its_leader_with_the_pot() -> None:
    state = play(start(TWINS6, TWINS6_KITTY), "0:2C 1:3C 2:6D 3:6D 4:TS 5:TS")  # seat 1's 3C wins
    assert taken(state, 1) == names("2C 3C 6D 6D TS TS AH AH")  # and the kitty
    state = play(state, "1:2C 2:7D 3:7D 4:JS 5:JS 0:3C")  # seat 0's 3C wins: 0 and 1 are twins again
    assert hand(state, 0) == hand(state, 1)
    state = play_mirrored(state, until_trick=16)  # every trick from the third on cancels
    assert state.leader[0] == 0 and len(list(pile(*state.pot[0]).elements())) == 14 * 6
    assert all(sum(hand(state, s).values()) == 1 for s in range(6))
    state = play_mirrored(state)
    assert state.done[0] and state.last_trick_winner[0] == 0
    assert sum(last_taken(state, 0).values()) == 96 and sum(last_taken(state, 1).values()) == 8
    assert state.last_hand_points[0].tolist() == [50, 2, 0, 0, 0, 0]


# ---------------------------------------------------------------------------------------------
# Scoring


MOON_SCORES = {
    ("add_to_others", False): [0, 52, 52, 52, 52, 52],
    ("subtract_from_self", False): [-52, 0, 0, 0, 0, 0],
    ("add_to_others", True): [-20, 52, 52, 52, 52, 52],
    ("subtract_from_self", True): [-72, 0, 0, 0, 0, 0],
    ("shooter_choice", True): [-20, 52, 52, 52, 52, 52],
}


@pytest.mark.parametrize(("moon", "jd"), sorted(MOON_SCORES))
def test_moon_with_all_52_points(moon: str, jd: bool) -> None:
    """Every trick cancels, so the leader of the last takes all 104 cards: every point card."""
    state = play_mirrored(start(TWINS6, TWINS6_KITTY, moon=moon, jack_of_diamonds=jd))
    assert state.done[0] and sum(last_taken(state, 0).values()) == 104
    assert state.last_hand_points[0].tolist() == MOON_SCORES[moon, jd] == state.scores[0].tolist()
    assert state.winners[0].tolist() == [True] + [False] * 5


def test_moon_in_a_game_deals_the_next_hand_led_by_seat_1() -> None:
    state = play_mirrored(start(TWINS6, TWINS6_KITTY, target_score=100))
    assert state.hand_over[0] and state.scores[0].tolist() == [0, 52, 52, 52, 52, 52]
    assert state.hand_number[0] == 2 and state.phase[0] == PLAY and state.to_play[0] == 1


def taken_pairs(piles: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(1, P) bitboards of the cards of each pile at least once, and twice."""
    pairs = [
        (sum(1 << c for c in set(ids)), sum(1 << c for c in set(ids) if ids.count(c) == 2))
        for ids in (cards.parse_cards(p) for p in piles)
    ]
    return np.array([[a for a, _ in pairs]], np.uint64), np.array([[b for _, b in pairs]], np.uint64)


ALL_POINTS = " ".join(f"{r}H {r}H" for r in cards.RANK_CHARS) + " QS QS"


@pytest.mark.parametrize(
    ("knobs", "piles", "totals", "want"),
    [
        # 1 per heart, 13 per QS; the JD rule: -10 per JD.
        ({}, ["QS QS 2H", "2H 3H JD", "JD", "", "", ""], [0] * 6, [27, 2, 0, 0, 0, 0]),
        ({"jack_of_diamonds": True}, ["QS QS 2H", "2H 3H JD", "JD", "", "", ""], [0] * 6, [27, -8, -10, 0, 0, 0]),
        ({"jack_of_diamonds": True}, ["JD JD QS", "QS", "", "", "", ""], [0] * 6, [-7, 13, 0, 0, 0, 0]),
        # A moon is every point card: both QS and all 26 hearts.
        ({}, [ALL_POINTS, "", "", "", "", ""], [0] * 6, [0, 52, 52, 52, 52, 52]),
        ({"jack_of_diamonds": True}, [ALL_POINTS, "JD JD", "", "", "", ""], [0] * 6, [0, 32, 52, 52, 52, 52]),
        ({"moon": "subtract_from_self"}, ["", ALL_POINTS + " JD", "", "", "", "JD"], [0] * 6, [0, -52, 0, 0, 0, 0]),
        # One copy of a point card elsewhere: no moon.
        ({}, [ALL_POINTS.replace("AH AH", "AH"), "AH", "", "", "", ""], [0] * 6, [51, 1, 0, 0, 0, 0]),
        # shooter_choice: adding 52 ends the game (seat 1 reaches 102) with the shooter (60) above
        # seat 2's 55: subtract; with the shooter lowest after adding, add.
        ({"moon": "shooter_choice"}, [ALL_POINTS, "", "", "", "", ""], [60, 50, 3, 30, 30, 30], [-52, 0, 0, 0, 0, 0]),
        ({"moon": "shooter_choice"}, [ALL_POINTS, "", "", "", "", ""], [0, 50, 3, 30, 30, 30], [0, 52, 52, 52, 52, 52]),
    ],
)
def test_hand_score_counts_both_copies(knobs: dict, piles: list[str], totals: list[int], want: list[int]) -> None:
    rules = HeartsRules(num_players=6, decks=2, **knobs)
    once, twice = taken_pairs(piles)
    got = hand_score(rules, once, np.array([totals], np.int32), taken2=twice)
    assert got.tolist() == [want]


# ---------------------------------------------------------------------------------------------
# Passing


def test_a_seat_may_pass_both_copies_of_a_card() -> None:
    state = start(PAIRS8, pass_count=2)
    assert legal(state) == set(names(PAIRS8[0]))
    state = play(state, "0:2C")
    assert legal(state) == set(names(PAIRS8[0]))  # the other 2C is still held
    assert pile(state.passed[0, 0], state.passed2[0, 0]) == names("2C")
    state = play(state, "0:2C")
    assert "2C" not in legal(state) and pile(state.passed[0, 0], state.passed2[0, 0]) == names("2C 2C")
    picks = ["2C", "AC", "2D", "AD", "2S", "AS", "2H", "AH"]
    for seat in range(1, 8):
        state = play(state, f"{seat}:{picks[seat]} {seat}:{picks[seat]}")
    # Passing left: seat s receives both copies seat s - 1 picked.
    assert state.phase[0] == PLAY and state.to_play[0] == 0
    for seat in range(8):
        received = picks[(seat - 1) % 8]
        assert hand(state, seat) == names(PAIRS8[seat]) - names(f"{picks[seat]} {picks[seat]}") + names(
            f"{received} {received}"
        )
    assert pile(state.hands2[0, 1]) >= names("2C")
    assert legal(state) == card_set("3C 4C 5C 6C 7C 8C")  # the AH AH received may not lead trick 1


def test_explain_and_refuse_illegal_cards() -> None:
    state = start(TWINS6, TWINS6_KITTY)
    with pytest.raises(ValueError, match="game 0: 6D is illegal: seat 0 does not hold it"):
        play(state, "6D")
    state = play(state, "0:2C")
    with pytest.raises(ValueError, match=r"game 0: 5D is illegal: seat 1 must follow suit \(C\)"):
        play(state, "1:5D")
    state = play(state, "1:2C")
    assert explain_illegal(state, 0, cards.parse_card("QS")) == "seat 2 does not hold it"
    state = play(state, "2:6D 3:6D")
    with pytest.raises(ValueError, match="QS is illegal: no hearts or QS on the first trick unless the hand holds"):
        play(state, "4:QS")


def test_render_shows_both_copies_the_kitty_and_the_pot() -> None:
    state = play(start(TWINS6, TWINS6_KITTY), "0:2C 1:2C 2:6D 3:6D 4:TS 5:TS")
    text = render_game(state)
    assert "kitty: 2 cards face down" in text and "pot: 2♣ 2♣  6♦ 6♦  10♠ 10♠" in text
    assert "2♣ 2♣ 3♣ 3♣" in render_game(start(PAIRS8))
