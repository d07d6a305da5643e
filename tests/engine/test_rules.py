"""Scripted deals, one per rule and knob of docs/rules.md (the rules contract).

Every deal is written with card names (``cards.deal_from_hands``), cards are played by name through
``core.step``, and the tests assert the legal cards (as sets of names) and the scores. Seat prefixes
in a script ("1:AC") check that the named seat is the one to act.
"""

from __future__ import annotations

import numpy as np
import pytest
from scripted_deals import FIRST_TRICK, LEADS

from hearts_env import HeartsRules
from hearts_env.engine import cards
from hearts_env.engine.core import (
    GAME_OVER,
    PASS,
    PLAY,
    State,
    bits_to_cards,
    deal_hands,
    hand_score,
    legal_mask,
    new_games,
    step,
)

# ---------------------------------------------------------------------------------------------
# Helpers


def card_set(text: str) -> set[str]:
    """The names in a space-separated string, normalised ("10h" -> "TH")."""
    return {cards.card_name(c) for c in cards.parse_cards(text)}


def names(bits) -> set[str]:
    return {cards.card_name(c) for c in bits_to_cards(int(bits))}


def legal(state: State, game: int = 0) -> set[str]:
    return {cards.card_name(c) for c in np.flatnonzero(legal_mask(state)[game])}


def hand(state: State, seat: int, game: int = 0) -> set[str]:
    return names(state.hands[game, seat])


def start(hands: list[str], scores: list[int] | None = None, **knobs) -> State:
    """One game dealt ``hands`` (seat s gets hands[s]); passing off unless a knob turns it on."""
    if "pass_cycle" not in knobs:
        knobs.setdefault("pass_count", 0)
    state = new_games(HeartsRules(num_players=len(hands), **knobs), deals=cards.deal_from_hands(hands)[None], seed=0)
    if scores is not None:
        state = state.replace(scores=np.array([scores], dtype=np.int32))
    return state


def play(state: State, script: str) -> State:
    """Play each card of ``script`` in game 0 ("2C" or "seat:2C", the seat checked before the card)."""
    for token in script.split():
        seat, _, name = token.rpartition(":")
        if seat:
            assert int(state.to_play[0]) == int(seat), f"{name}: seat {state.to_play[0]} is to act, not {seat}"
        state = step(state, np.array([cards.parse_card(name)]))
    return state


def play_out(state: State) -> State:
    """Play the lowest legal card for every seat until the current hand (or game) is over."""
    for _ in range(2 * cards.NUM_CARDS):  # a hand takes at most 52 cards played and 7 * 7 passed
        state = step(state, legal_mask(state).argmax(axis=1))
        if state.hand_over.all() or state.done.all():
            return state
    raise AssertionError("the hand did not end")


def play_to_last_card(state: State) -> State:
    """Play the lowest legal cards until only the hand's last card is left to play."""
    P, n = state.num_players, state.rules.hand_size
    for _ in range(cards.NUM_CARDS):
        if state.tricks_played[0] == n - 1 and state.trick_size[0] == P - 1:
            return state
        state = step(state, legal_mask(state).argmax(axis=1))
        assert not state.hand_over[0]
    raise AssertionError("the last card was not reached")


def holder(state: State, name: str, game: int = 0) -> int:
    seats = [s for s in range(state.num_players) if name in hand(state, s, game)]
    assert len(seats) == 1, f"{name} held by {seats}"
    return seats[0]


def sort_names(names_: set[str]) -> list[str]:
    return sorted(names_, key=cards.parse_card)


def run_pass_phase(state: State, picks: list[str] | None = None):
    """Play game 0's pass phase, each seat picking ``picks[seat]`` (default: its lowest cards).

    While seats pick, checks that nothing moves: the seat to act may pick exactly its dealt cards
    less those it already picked (never a card it is about to receive), the seats still to act
    hold exactly their deal, and the seats done hold their deal less their picks (in ``passed``).
    Returns the state after the pass, the dealt hands and the picks.
    """
    P, k = state.num_players, state.rules.pass_count
    dealt = [hand(state, s) for s in range(P)]
    chosen: list[set[str]] = [set() for _ in range(P)]
    for seat in range(P):
        pick = cards.parse_cards(picks[seat]) if picks else cards.parse_cards(sort_names(dealt[seat])[:k])
        assert len(pick) == k
        for card in pick:
            name = cards.card_name(card)
            assert state.phase[0] == PASS
            assert state.to_play[0] == seat
            assert legal(state) == dealt[seat] - chosen[seat]
            for other in range(P):
                assert hand(state, other) == dealt[other] - chosen[other]
                assert names(state.passed[0, other]) == chosen[other]
            state = play(state, name)
            chosen[seat].add(name)
    assert state.phase[0] == PLAY
    return state, dealt, chosen


def check_first_lead(state: State) -> None:
    """The holder of the lowest club is to act and may only lead it."""
    low = cards.card_name(cards.lowest_club(state.num_players))
    assert state.phase[0] == PLAY
    assert state.tricks_played[0] == 0
    assert state.to_play[0] == holder(state, low)
    assert legal(state) == {low}


# ---------------------------------------------------------------------------------------------
# Scripted deals


LEADS_TRICK_1 = "0:2C 1:AC 2:5C 3:9S"

# Seat 1 takes trick 1 with the AC and is left with nothing but hearts.
ONLY_HEARTS = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC 2D 3D 4D 5D",
    "AC 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
    "JC QC KC 6D 7D 8D 9D TD JD QD KD AD AH",
    "QS 2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS",
]

# Seat 1 takes trick 1 with the AC and is left with nothing but hearts and the QS.
ONLY_HEARTS_AND_QUEEN = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC 2D 3D 4D 5D",
    "AC QS 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
    "JC QC KC 6D 7D 8D 9D TD JD QD KD AD AH",
    "2H 2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS",
]

# One suit per seat: seat 0 (all clubs) wins every trick and shoots the moon, JD included.
MOON = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
]

# Seat 1 takes trick 1 (AC) with one heart; seat 0 takes every other trick (AD on trick 2, then
# its clubs) with 12 hearts, the QS and the JD, whatever the others discard: points [25, 1, 0, 0].
SPLIT = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AD",
    "AC 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
]
SPLIT_TRICKS_1_2 = "0:2C 1:AC 2:2S 3:2H 1:JD 2:QS 3:3H 0:AD"

# A deal per player count (removed cards left out): 17, 13, 10, 8 and 7 cards each.
DEALS = {
    3: [
        "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 3D 4D 5D 6D 7D",
        "2C 8D 9D TD JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S TS",
        "JS QS KS AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    ],
    4: FIRST_TRICK,
    5: [
        "4C 5C 6C 7C 8C 9C TC JC QC KC",
        "AC 3D 4D 5D 6D 7D 8D 9D TD JD",
        "3C QD KD AD 2S 3S 4S 5S 6S 7S",
        "8S 9S TS JS QS KS AS 2H 3H 4H",
        "5H 6H 7H 8H 9H TH JH QH KH AH",
    ],
    6: [
        "5C 6C 7C 8C 9C TC JC QC",
        "KC AC 4D 5D 6D 7D 8D 9D",
        "TD JD QD KD AD 2S 3S 4S",
        "2C 5S 6S 7S 8S 9S TS JS",
        "QS KS AS 2H 3H 4H 5H 6H",
        "7H 8H 9H TH JH QH KH AH",
    ],
    7: [
        "4C 5C 6C 7C 8C 9C TC",
        "JC QC KC AC 4D 5D 6D",
        "7D 8D 9D TD JD QD KD",
        "AD 2S 3S 4S 5S 6S 7S",
        "8S 9S TS JS QS KS AS",
        "2C 2H 3H 4H 5H 6H 7H",
        "8H 9H TH JH QH KH AH",
    ],
}
FIRST_LEADER = {3: (1, "2C"), 4: (0, "2C"), 5: (2, "3C"), 6: (3, "2C"), 7: (5, "2C")}


# ---------------------------------------------------------------------------------------------
# The first lead


@pytest.mark.parametrize("num_players", sorted(DEALS))
def test_lowest_club_is_led_first(num_players):
    state = start(DEALS[num_players])
    seat, card = FIRST_LEADER[num_players]
    assert state.phase[0] == PLAY
    assert state.to_play[0] == seat
    assert state.leader[0] == seat
    assert legal(state) == {card}
    state = play(state, f"{seat}:{card}")
    assert state.trick[0, seat] == cards.parse_card(card)
    assert state.to_play[0] == (seat + 1) % num_players


def test_five_players_lead_the_3c_because_the_2c_is_removed():
    state = start(DEALS[5])
    assert all("2C" not in hand(state, s) and "2D" not in hand(state, s) for s in range(5))
    assert legal(state) == {"3C"}
    # Trick 1 in full: seat 3 is void (no hearts, no QS), seat 4 holds only hearts, seats 0 and 1 follow.
    state = play(state, "2:3C")
    assert legal(state) == card_set("8S 9S TS JS KS AS")
    state = play(state, "3:8S")
    assert legal(state) == card_set("5H 6H 7H 8H 9H TH JH QH KH AH")
    state = play(state, "4:5H")
    assert legal(state) == card_set("4C 5C 6C 7C 8C 9C TC JC QC KC")
    state = play(state, "0:4C")
    assert legal(state) == {"AC"}
    state = play(state, "1:AC")
    assert state.tricks_played[0] == 1
    assert state.to_play[0] == 1 and state.leader[0] == 1
    assert names(state.taken[0, 1]) == card_set("3C 8S 5H 4C AC")
    assert state.hearts_broken[0]


def test_three_and_six_player_first_trick_discards():
    state = play(start(DEALS[3]), "1:2C")
    assert legal(state) == card_set("JS KS AS")  # seat 2: void, no hearts, no QS
    state = play(state, "2:AS")
    assert legal(state) == card_set("3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC")
    state = play(start(DEALS[6]), "3:2C")
    assert legal(state) == card_set("KS AS")
    state = play(state, "4:KS")
    assert legal(state) == card_set("7H 8H 9H TH JH QH KH AH")  # only hearts: may play them


# ---------------------------------------------------------------------------------------------
# Following suit and the first trick


def test_follow_suit_and_first_trick_exception():
    state = start(FIRST_TRICK)
    assert legal(state) == {"2C"}
    state = play(state, "0:2C")
    assert legal(state) == card_set("3C 5C 7C 9C JC KC")  # must follow clubs
    state = play(state, "1:KC")
    # Void in clubs: any card but a heart or the QS on the first trick (so not the AH).
    assert legal(state) == card_set("2D 3D 4D 5D 6D 7D 8D 9D TD JD 2S 3S")
    state = play(state, "2:2S")
    # Nothing but hearts and the QS: may play any of them.
    assert legal(state) == card_set("QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH")
    state = play(state, "3:QS")
    # Highest club wins; the higher QS and the off-suit 2S do not.
    assert state.tricks_played[0] == 1
    assert state.leader[0] == 1 and state.to_play[0] == 1
    assert names(state.taken[0, 1]) == card_set("2C KC 2S QS")
    assert state.hand_points[0].tolist() == [0, 13, 0, 0]


def test_first_trick_only_hearts_hand_may_discard_a_heart():
    state = play(start(MOON), "0:2C 1:2D")
    assert legal(state) == card_set("2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS")  # not the QS
    state = play(state, "2:2S")
    assert legal(state) == card_set("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH")


def test_first_trick_knob_off_allows_points():
    state = play(start(FIRST_TRICK, no_points_on_first_trick=False), "0:2C 1:KC")
    assert legal(state) == card_set("AH 2D 3D 4D 5D 6D 7D 8D 9D TD JD 2S 3S")
    state = play(state, "2:AH")
    assert state.hearts_broken[0]
    state = play(start(MOON, no_points_on_first_trick=False), "0:2C 1:2D")
    assert "QS" in legal(state)


def test_follow_suit_after_first_trick_and_free_discard_when_void():
    state = play(start(LEADS), LEADS_TRICK_1 + " 1:2S")
    assert legal(state) == {"8S"}  # seat 2's only spade
    state = play(state, "2:8S")
    assert legal(state) == card_set("TS JS KS AS")  # seat 3 has hearts but must follow spades
    state = play(state, "3:TS")
    # Seat 0 is void in spades after trick 1: any card, the 2H included.
    assert legal(state) == card_set("3C 4C 2D 3D 4D 5D 6D 7D 8D 9D TD 2H")


# ---------------------------------------------------------------------------------------------
# Trick winner


def test_trick_winner_is_highest_card_of_led_suit():
    state = play(start(LEADS), LEADS_TRICK_1)
    assert state.leader[0] == 1  # AC beats 2C and 5C; the 9S is off-suit
    # Spades led: TS beats 2S and 8S; the 2H is off-suit.
    state = play(state, "1:2S 2:8S 3:TS 0:2H")
    assert state.leader[0] == 3 and state.to_play[0] == 3
    assert names(state.taken[0, 3]) == card_set("2S 8S TS 2H")
    # The leader's card can win: JS led, nobody follows higher.
    state = play(state, "3:JS 0:3C 1:3S 2:6C")
    assert state.leader[0] == 3
    # An off-suit ace does not win: KS led, seat 2 discards the AD.
    state = play(state, "3:KS 0:4C 1:4S 2:AD")
    assert state.leader[0] == 3
    assert state.last_trick_winner[0] == 3
    assert names(state.taken[0, 3]) == card_set("2S 8S TS 2H JS 3C 3S 6C KS 4C 4S AD")


# ---------------------------------------------------------------------------------------------
# Leading hearts


@pytest.mark.parametrize("queen_breaks", [True, False])
def test_no_heart_lead_before_broken_but_queen_may_be_led(queen_breaks):
    state = play(start(LEADS, queen_breaks_hearts=queen_breaks), LEADS_TRICK_1)
    assert not state.hearts_broken[0]
    assert state.to_play[0] == 1
    assert legal(state) == card_set("QS JD 2S 3S 4S 5S 6S 7S")


@pytest.mark.parametrize("queen_breaks", [True, False])
def test_queen_breaks_hearts_knob(queen_breaks):
    state = play(start(LEADS, queen_breaks_hearts=queen_breaks), LEADS_TRICK_1 + " 1:QS 2:8S 3:AS 0:3C")
    assert state.to_play[0] == 3
    assert bool(state.hearts_broken[0]) == queen_breaks
    if queen_breaks:
        assert legal(state) == card_set("7H 8H 9H TH JH QH KH AH TS JS KS")
    else:
        assert legal(state) == card_set("TS JS KS")


@pytest.mark.parametrize("queen_breaks", [True, False])
def test_heart_discard_breaks_hearts(queen_breaks):
    state = play(start(LEADS, queen_breaks_hearts=queen_breaks), LEADS_TRICK_1 + " 1:2S 2:8S 3:TS")
    assert not state.hearts_broken[0]
    state = play(state, "0:2H")
    assert state.hearts_broken[0]
    assert state.to_play[0] == 3
    assert legal(state) == card_set("7H 8H 9H TH JH QH KH AH JS KS AS")
    state = play(state, "3:7H")
    assert state.lead_suit[0] == cards.HEARTS


def test_leader_with_only_hearts_may_lead_a_heart():
    state = play(start(ONLY_HEARTS), "0:2C 1:AC")
    assert legal(state) == card_set("JC QC KC")
    state = play(state, "2:JC")
    assert legal(state) == card_set("2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS")
    state = play(state, "3:2S")
    assert state.to_play[0] == 1
    assert not state.hearts_broken[0]
    assert legal(state) == card_set("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH")
    state = play(state, "1:5H")
    assert state.hearts_broken[0]
    # Seat 2 must follow with its heart.
    assert legal(state) == {"AH"}


def test_leader_with_only_hearts_and_queen_may_lead_a_heart():
    state = play(start(ONLY_HEARTS_AND_QUEEN), "0:2C 1:AC 2:JC")
    assert legal(state) == card_set("2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS")  # not the 2H
    state = play(state, "3:2S")
    assert state.to_play[0] == 1
    assert not state.hearts_broken[0]
    assert legal(state) == card_set("QS 3H 4H 5H 6H 7H 8H 9H TH JH QH KH")
    state = play(state, "1:3H")
    assert state.lead_suit[0] == cards.HEARTS


# ---------------------------------------------------------------------------------------------
# Scoring and the moon


def test_plain_scoring_hearts_one_queen_thirteen():
    state = play(start(SPLIT, pass_cycle=("none", "right")), SPLIT_TRICKS_1_2)
    assert state.hand_points[0].tolist() == [14, 1, 0, 0]
    state = play_to_last_card(state)
    assert state.hand_points[0].tolist() == [24, 1, 0, 0]  # the AH is still to be played
    assert {"JD", "QS", "AD"} <= names(state.taken[0, 0])
    state = play_out(state)
    assert state.hand_over[0]
    assert state.last_hand_points[0].tolist() == [25, 1, 0, 0]
    assert state.scores[0].tolist() == [25, 1, 0, 0]
    assert state.hand_number[0] == 2 and state.phase[0] == PASS  # target 100 not reached


MOON_POINTS = {
    ("add_to_others", False): [0, 26, 26, 26],
    ("subtract_from_self", False): [-26, 0, 0, 0],
    ("shooter_choice", False): [0, 26, 26, 26],
    ("add_to_others", True): [-10, 26, 26, 26],
    ("subtract_from_self", True): [-36, 0, 0, 0],
    ("shooter_choice", True): [-10, 26, 26, 26],
}


@pytest.mark.parametrize(("moon", "jd"), sorted(MOON_POINTS))
def test_moon_played_out(moon, jd):
    state = play(start(MOON, moon=moon, jack_of_diamonds=jd), "0:2C 1:2D 2:2S 3:2H")
    assert state.leader[0] == 0
    state = play_to_last_card(state)
    assert len(names(state.taken[0, 0])) == 48 and not state.taken[0, 1:].any()  # 12 tricks to seat 0
    # The AH is still in seat 3's hand; hand_points counts the JD rule, before the moon.
    assert state.hand_points[0].tolist() == [25 - 10 * jd, 0, 0, 0]
    assert hand(state, 3) == {"AH"}
    state = play_out(state)
    assert state.hand_over[0]
    assert state.last_hand_points[0].tolist() == MOON_POINTS[moon, jd]
    assert state.scores[0].tolist() == MOON_POINTS[moon, jd]


@pytest.mark.parametrize(
    ("totals", "after", "over"),
    [
        # Adding ends the game (seat 2 reaches 116) with the shooter (80) lowest: add.
        ([80, 60, 90, 95], [80, 86, 116, 121], True),
        # Adding ends the game (106) with seat 3 (86) below the shooter (90): subtract instead.
        ([90, 80, 70, 60], [64, 80, 70, 60], False),
        # Adding does not end the game, though the shooter is then not lowest: add.
        ([50, 10, 20, 30], [50, 36, 46, 56], False),
        # Adding ends the game with the shooter tied for lowest (a shared win): add.
        ([86, 60, 90, 86], [86, 86, 116, 112], True),
    ],
)
def test_shooter_choice_near_target(totals, after, over):
    state = start(MOON, scores=totals, moon="shooter_choice")
    state = play_out(play(state, "0:2C 1:2D 2:2S 3:2H"))
    assert state.hand_over[0]
    assert state.scores[0].tolist() == after
    assert (state.last_hand_points[0] == np.array(after) - np.array(totals)).all()
    assert state.done[0] == over
    if over:
        low = min(after)
        assert state.winners[0].tolist() == [t == low for t in after]
    else:
        assert state.hand_number[0] == 2


def test_jack_of_diamonds_without_moon():
    state = play_out(play(start(SPLIT, jack_of_diamonds=True), SPLIT_TRICKS_1_2))
    assert state.last_hand_points[0].tolist() == [15, 1, 0, 0]
    state = play_out(play(start(SPLIT, jack_of_diamonds=False), SPLIT_TRICKS_1_2))
    assert state.last_hand_points[0].tolist() == [25, 1, 0, 0]


def _taken(piles: list[str]) -> np.ndarray:
    bits = [sum(1 << c for c in cards.parse_cards(p)) for p in piles]
    return np.array([bits], dtype=np.uint64)


ALL_POINTS = "QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"


@pytest.mark.parametrize(
    ("moon", "jd", "totals", "expected"),
    [
        ("add_to_others", False, [0, 0, 0, 0], [26, 0, 26, 26]),
        ("subtract_from_self", False, [0, 0, 0, 0], [0, -26, 0, 0]),
        ("add_to_others", True, [0, 0, 0, 0], [26, -10, 26, 26]),
        ("subtract_from_self", True, [0, 0, 0, 0], [0, -36, 0, 0]),
        ("shooter_choice", False, [0, 0, 0, 0], [26, 0, 26, 26]),
        ("shooter_choice", False, [60, 95, 70, 80], [0, -26, 0, 0]),  # add: 86 < 95 and 106 ends it
        ("shooter_choice", False, [80, 70, 90, 99], [26, 0, 26, 26]),  # add: shooter 70 lowest
    ],
)
def test_hand_score_moon(moon, jd, totals, expected):
    rules = HeartsRules(moon=moon, jack_of_diamonds=jd)
    taken = _taken(["2C 3C", ALL_POINTS + " JD", "4C", "5C"])
    points = hand_score(rules, taken, np.array([totals], dtype=np.int32))
    assert points.tolist() == [expected]


def test_hand_score_plain_and_jack_of_diamonds_taken_by_another():
    taken = _taken(["QS 2H", "3H 4H 5H JD", "6H 7H 8H 9H TH JH QH KH", "AH"])
    totals = np.zeros((1, 4), np.int32)
    assert hand_score(HeartsRules(), taken, totals).tolist() == [[14, 3, 8, 1]]
    assert hand_score(HeartsRules(jack_of_diamonds=True), taken, totals).tolist() == [[14, -7, 8, 1]]
    # A moon with the JD taken by someone else: the JD holder gets 26 - 10.
    moon = _taken([ALL_POINTS, "JD", "", ""])
    assert hand_score(HeartsRules(jack_of_diamonds=True), moon, totals).tolist() == [[0, 16, 26, 26]]
    assert hand_score(HeartsRules(moon="subtract_from_self", jack_of_diamonds=True), moon, totals).tolist() == [
        [-26, -10, 0, 0]
    ]


def test_hand_score_three_player_moon():
    rules = HeartsRules(num_players=3)
    taken = _taken(["", ALL_POINTS, ""])
    assert hand_score(rules, taken, np.zeros((1, 3), np.int32)).tolist() == [[26, 0, 26]]


# ---------------------------------------------------------------------------------------------
# The game and target_score


@pytest.mark.parametrize(
    ("totals", "winners"),
    [
        ([75, 50, 60, 70], [False, True, False, False]),  # 75 + 25 = 100: at the target ends it
        ([80, 59, 60, 70], [False, True, True, False]),  # 60, 60: a shared win
        ([0, 99, 99, 99], [True, False, False, False]),  # seat 1 reaches 100; seat 0 (25) wins
    ],
)
def test_game_ends_at_target(totals, winners):
    state = play_out(play(start(SPLIT, scores=totals), SPLIT_TRICKS_1_2))
    after = [t + p for t, p in zip(totals, [25, 1, 0, 0], strict=True)]
    assert state.scores[0].tolist() == after
    assert state.phase[0] == GAME_OVER and state.done[0]
    assert state.to_play[0] == -1
    assert state.winners[0].tolist() == winners
    assert not legal_mask(state).any()


def test_game_continues_below_target():
    state = play_out(play(start(SPLIT, scores=[74, 98, 0, 0], pass_cycle=("none", "left")), SPLIT_TRICKS_1_2))
    assert state.scores[0].tolist() == [99, 99, 0, 0]
    assert not state.done[0]
    assert not state.winners[0].any()
    assert state.hand_number[0] == 2
    assert state.phase[0] == PASS
    assert all(len(hand(state, s)) == 13 for s in range(4))


@pytest.mark.parametrize("target", [None, 0])
def test_no_target_is_a_single_hand(target):
    state = play_out(play(start(SPLIT, target_score=target), SPLIT_TRICKS_1_2))
    assert state.done[0]
    assert state.hand_number[0] == 1
    assert state.scores[0].tolist() == [25, 1, 0, 0]
    assert state.winners[0].tolist() == [False, False, True, True]


def test_single_hand_target_with_a_moon_and_a_low_target():
    state = play_out(play(start(MOON, target_score=None), "0:2C 1:2D 2:2S 3:2H"))
    assert state.done[0] and state.winners[0].tolist() == [True, False, False, False]
    state = play_out(play(start(MOON, target_score=26), "0:2C 1:2D 2:2S 3:2H"))
    assert state.done[0] and state.scores[0].tolist() == [0, 26, 26, 26]
    state = play_out(play(start(MOON, target_score=27), "0:2C 1:2D 2:2S 3:2H"))
    assert not state.done[0] and state.hand_number[0] == 2


def test_full_game_ends_exactly_when_a_total_reaches_target():
    state = new_games(HeartsRules(target_score=60), batch_size=1, seed=11)
    for _ in range(50):
        previous = state.scores[0].copy()
        state = play_out(state)
        assert state.hand_over[0]
        assert (state.scores[0] - previous).tolist() == state.last_hand_points[0].tolist()
        if state.done[0]:
            break
        assert state.scores[0].max() < 60
    assert state.done[0]
    assert state.scores[0].max() >= 60
    assert state.winners[0].tolist() == (state.scores[0] == state.scores[0].min()).tolist()


# ---------------------------------------------------------------------------------------------
# Passing


def test_pass_left_by_name_four_players():
    state = start(MOON, pass_count=3)
    assert state.phase[0] == PASS and state.to_play[0] == 0
    picks = ["2C 3C 4C", "2D 3D 4D", "2S 3S 4S", "2H 3H 4H"]
    state, _, _ = run_pass_phase(state, picks)
    assert hand(state, 0) == card_set("5C 6C 7C 8C 9C TC JC QC KC AC 2H 3H 4H")
    assert hand(state, 1) == card_set("5D 6D 7D 8D 9D TD JD QD KD AD 2C 3C 4C")
    assert hand(state, 2) == card_set("5S 6S 7S 8S 9S TS JS QS KS AS 2D 3D 4D")
    assert hand(state, 3) == card_set("5H 6H 7H 8H 9H TH JH QH KH AH 2S 3S 4S")
    # The 2C moved to seat 1, which now leads it.
    assert state.to_play[0] == 1 and legal(state) == {"2C"}


def test_passing_is_simultaneous():
    state = start(MOON, pass_count=3)
    state = play(state, "0:AC 0:KC")
    assert hand(state, 1) == card_set(MOON[1])  # nothing has moved
    assert names(state.passed[0, 0]) == card_set("AC KC")
    assert legal(state) == card_set("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC")
    state = play(state, "0:QC 1:AD 1:KD 1:QD 2:AS 2:KS 2:QS")
    assert hand(state, 1) == card_set("2D 3D 4D 5D 6D 7D 8D 9D TD JD")  # seat 0's cards not here yet
    # Seat 3 receives seat 2's spades: they are not among the cards it may pass.
    assert legal(state) == card_set(MOON[3])
    state = play(state, "3:AH 3:KH")
    assert state.phase[0] == PASS
    state = play(state, "3:QH")
    assert state.phase[0] == PLAY
    assert hand(state, 3) == card_set("2H 3H 4H 5H 6H 7H 8H 9H TH JH AS KS QS")
    assert hand(state, 0) == card_set("2C 3C 4C 5C 6C 7C 8C 9C TC JC AH KH QH")


def _play_hands_checking_passes(state: State, directions: list[str]) -> None:
    P = state.num_players
    offsets = {"left": 1, "right": P - 1, "across": 2}
    for number, direction in enumerate(directions, start=1):
        assert state.hand_number[0] == number
        assert all(len(hand(state, s)) == state.rules.hand_size for s in range(P))
        if direction == "none":
            assert state.phase[0] == PLAY  # straight to play
            assert not state.passed.any()
        else:
            state, dealt, chosen = run_pass_phase(state)
            giver = {(s + offsets[direction]) % P: s for s in range(P)}
            for s in range(P):
                assert hand(state, s) == (dealt[s] - chosen[s]) | chosen[giver[s]], (number, direction, s)
        check_first_lead(state)
        state = play_out(state)
        assert state.hand_over[0] and not state.done[0]


def test_pass_cycle_four_players():
    state = start(FIRST_TRICK, pass_count=3, target_score=1000)
    _play_hands_checking_passes(state, ["left", "right", "across", "none", "left", "right"])


@pytest.mark.parametrize("num_players", [3, 5, 6, 7])
def test_pass_cycle_other_player_counts(num_players):
    state = start(DEALS[num_players], pass_count=3, target_score=1000)
    _play_hands_checking_passes(state, ["left", "right", "left", "right"])


def test_pass_count_one():
    state = start(MOON, pass_count=1)
    state = play(state, "0:AC 1:AD 2:QS")
    assert state.phase[0] == PASS and state.to_play[0] == 3
    assert hand(state, 3) == card_set(MOON[3])
    state = play(state, "3:AH")
    assert state.phase[0] == PLAY
    assert "QS" in hand(state, 3) and "AH" in hand(state, 0) and "AC" in hand(state, 1) and "AD" in hand(state, 2)
    assert all(len(hand(state, s)) == 13 for s in range(4))


def test_pass_count_zero_never_passes():
    state = start(FIRST_TRICK, pass_count=0, target_score=1000)
    assert [hand(state, s) for s in range(4)] == [card_set(h) for h in FIRST_TRICK]
    _play_hands_checking_passes(state, ["none"] * 5)


@pytest.mark.parametrize(
    ("num_players", "cycle", "directions"),
    [
        (4, ("across", "left"), ["across", "left", "across"]),
        (5, ("none", "right"), ["none", "right", "none", "right"]),
        (3, ("right",), ["right", "right"]),
    ],
)
def test_custom_pass_cycle(num_players, cycle, directions):
    state = start(DEALS[num_players], pass_count=2, pass_cycle=cycle, target_score=1000)
    _play_hands_checking_passes(state, directions)


def test_pass_across_by_name():
    state = start(MOON, pass_count=3, pass_cycle=("across",))
    state, _, _ = run_pass_phase(state, ["2C 3C 4C", "2D 3D 4D", "2S 3S 4S", "2H 3H 4H"])
    assert card_set("2C 3C 4C") <= hand(state, 2)
    assert card_set("2D 3D 4D") <= hand(state, 3)
    assert card_set("2S 3S 4S") <= hand(state, 0)
    assert card_set("2H 3H 4H") <= hand(state, 1)
    assert state.to_play[0] == 2 and legal(state) == {"2C"}


# ---------------------------------------------------------------------------------------------
# Hands dealt by the caller (core.deal_hands)


@pytest.mark.parametrize(
    "rules",
    [HeartsRules(), HeartsRules(num_players=5, pass_cycle=("none",)), HeartsRules(num_players=8, decks=2)],
    ids=["4 players", "5 players, no pass", "8 players, two decks"],
)
def test_the_first_hand_dealt_by_the_caller_is_the_game_started_with_that_deal(rules: HeartsRules) -> None:
    rng = np.random.default_rng(0)
    seated = rules.num_players * rules.hand_size  # the cards dealt to the seats; the rest is the kitty
    shuffles = [rng.permutation(cards.deck(rules.num_players, rules.decks)).tolist() for _ in range(6)]
    deals = np.stack(
        [
            cards.deal_from_hands(np.split(np.array(d[:seated]), rules.num_players), d[seated:], rules.decks)
            for d in shuffles
        ]
    )
    dealt = deal_hands(new_games(rules, batch_size=6, seed=1), deals)
    assert np.array_equal(dealt.data, new_games(rules, deals=deals, seed=1).data)


def test_a_later_hand_dealt_by_the_caller_opens_as_the_core_opens_it() -> None:
    """Hand 2 of the cycle (left, none) has no pass: the holder of the 2C leads it, whoever the
    core's own deal gave it to; the totals and the hand number stay."""
    rules = HeartsRules(pass_cycle=("left", "none"))
    state = play_out(new_games(rules, batch_size=1, seed=0))
    assert state.hand_over[0] and state.hand_number[0] == 2 and state.phase[0] == PLAY
    for seat in range(4):
        deal = cards.deal_from_hands(FIRST_TRICK[seat:] + FIRST_TRICK[:seat])  # the 2C at seat (4 - seat) % 4
        dealt = deal_hands(state, deal[None])
        assert [hand(dealt, s) for s in range(4)] == [card_set(h) for h in FIRST_TRICK[seat:] + FIRST_TRICK[:seat]]
        assert dealt.to_play[0] == dealt.leader[0] == holder(dealt, "2C") and legal(dealt) == {"2C"}
        assert dealt.hand_number[0] == 2 and np.array_equal(dealt.scores, state.scores)
