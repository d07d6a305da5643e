"""Input the core refuses: illegal cards (named game, card and rule; state unchanged), bad actions,
bad deals and batch indexes out of range."""

from __future__ import annotations

import copy as copy_module
import re

import numpy as np
import pytest
from random_states import random_states
from scripted_deals import FIRST_TRICK, LEADS, SUITS

from hearts_env import HeartsRules
from hearts_env.engine import cards, kernels
from hearts_env.engine.core import (
    IllegalMoveError,
    State,
    deal_hands,
    explain_illegal,
    legal_mask,
    new_games,
    recompute_legal,
    step,
)
from hearts_env.engine.infoset import infoset
from hearts_env.engine.kernels import IllegalReason

FIVE = [
    "4C 5C 6C 7C 8C 9C TC JC QC KC",
    "AC 3D 4D 5D 6D 7D 8D 9D TD JD",
    "3C QD KD AD 2S 3S 4S 5S 6S 7S",
    "8S 9S TS JS QS KS AS 2H 3H 4H",
    "5H 6H 7H 8H 9H TH JH QH KH AH",
]


def start(hands: list[str], batch: int = 1, **knobs) -> State:
    knobs.setdefault("pass_count", 0)
    deals = np.repeat(cards.deal_from_hands(hands)[None], batch, axis=0)
    return new_games(HeartsRules(num_players=len(hands), **knobs), deals=deals, seed=0)


def ids(script: str) -> list[int]:
    return cards.parse_cards(script)


def play(state: State, script: str) -> State:
    for card in ids(script):
        state = step(state, np.full(state.batch_size, card))
    return state


def snapshot(state: State) -> dict[str, np.ndarray]:
    return {f: np.array(getattr(state, f), copy=True) for f in State.FIELDS}


def assert_unchanged(state: State, before: dict[str, np.ndarray]) -> None:
    for name, value in before.items():
        now = getattr(state, name)
        assert now.dtype == value.dtype, name
        assert np.array_equal(now, value), name


def refuse(state: State, actions, *fragments: str) -> str:
    """Step ``actions``, expect a ValueError whose message holds every fragment, and check that
    the state is unchanged (and still steps as before)."""
    before = snapshot(state)
    actions = np.asarray(actions)
    with pytest.raises(ValueError) as info:
        step(state, actions)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    assert_unchanged(state, before)
    return message


# ---------------------------------------------------------------------------------------------
# Illegal cards


def test_must_follow_suit():
    state = play(start(FIRST_TRICK), "2C")
    refuse(state, ids("7S"), "game 0", "7S", "must follow suit")
    refuse(state, ids("AS"), "game 0", "AS", "must follow suit")
    assert step(state, ids("3C")).to_play[0] == 2  # a legal card still goes through


def test_must_follow_suit_later_in_the_hand():
    state = play(start(LEADS), "2C AC 5C 9S 2S 8S")
    refuse(state, ids("7H"), "game 0", "7H", "must follow suit")


def test_hearts_not_broken():
    state = play(start(LEADS), "2C AC 5C 9S")
    msg = refuse(state, ids("3H"), "game 0", "3H", "hearts are not broken")
    assert "led" in msg


def test_queen_does_not_break_hearts_when_knob_off():
    state = play(start(LEADS, queen_breaks_hearts=False), "2C AC 5C 9S QS 8S AS 3C")
    refuse(state, ids("AH"), "game 0", "AH", "hearts are not broken")


def test_first_trick_discard_of_heart_or_queen():
    state = play(start(FIRST_TRICK), "2C KC")
    refuse(state, ids("AH"), "game 0", "AH", "first trick")
    state = play(start(SUITS), "2C 2D")
    refuse(state, ids("QS"), "game 0", "QS", "first trick")


def test_first_lead_must_be_the_lowest_club():
    state = start(FIRST_TRICK)
    refuse(state, ids("4C"), "game 0", "4C", "first trick", "2C")
    state = start(FIVE)
    refuse(state, ids("4C"), "game 0", "4C", "does not hold")  # seat 2 is to lead; it holds 3C only
    refuse(state, ids("QD"), "game 0", "QD", "first trick", "3C")


def test_card_not_held():
    state = start(FIRST_TRICK)
    refuse(state, ids("AH"), "game 0", "AH", "does not hold")
    state = play(state, "2C")
    refuse(state, ids("2C"), "game 0", "2C", "does not hold")  # already played
    refuse(state, ids("2H"), "game 0", "2H", "does not hold")


def test_pass_errors():
    state = start(SUITS, pass_count=3)
    refuse(state, ids("2D"), "game 0", "2D", "does not hold")
    state = play(state, "AC")
    refuse(state, ids("AC"), "game 0", "AC", "already")
    state = play(state, "KC QC")
    refuse(state, ids("2C"), "game 0", "2C", "does not hold")  # seat 1 now picks


def test_error_names_the_game_of_the_batch():
    state = start(FIRST_TRICK, batch=3)
    msg = refuse(state, ids("2C 2C 3C"), "game 2", "3C")
    assert "game 0" not in msg and "game 1" not in msg
    state = play(state, "2C")
    refuse(state, ids("3C 7S 5C"), "game 1", "7S", "must follow suit")
    after = step(state, ids("3C 7C 5C"))
    assert [int(c) for c in after.trick[:, 1]] == ids("3C 7C 5C")


def test_the_error_carries_game_seat_card_and_reason():
    state = play(start(FIRST_TRICK, batch=2), "2C")
    with pytest.raises(IllegalMoveError) as info:
        step(state, ids("3C 7S"))
    error = info.value
    assert (error.game, error.seat, error.card, error.reason) == (1, 1, ids("7S")[0], IllegalReason.MUST_FOLLOW_SUIT)
    assert str(error) == "game 1: 7S is illegal: seat 1 must follow suit (C)"
    assert error.describe(you=True) == "7S is illegal: you must follow suit (C)"
    copy = copy_module.deepcopy(error)  # rebuilt by its __reduce__, as pickle does across the arena's shards
    assert (str(copy), copy.game, copy.reason) == (str(error), 1, IllegalReason.MUST_FOLLOW_SUIT)
    with pytest.raises(IllegalMoveError, match="game 0: action 52 is not a card id") as info:
        step(state, np.array([52, 3]))
    assert info.value.reason == IllegalReason.NOT_A_CARD


RULES_TO_EXPLAIN = [
    HeartsRules(target_score=None),
    HeartsRules(pass_count=0),
    HeartsRules(num_players=5, queen_breaks_hearts=False, no_points_on_first_trick=False, jack_of_diamonds=True),
    HeartsRules(num_players=6, decks=2, target_score=None),
    HeartsRules(num_players=7, decks=2, no_points_on_first_trick=False),
]


def scrambled(state: State, rng: np.random.Generator) -> State:
    """``state`` with random hands of a few suits (voids, hands of only points) and hearts broken at
    random: the rare turns of the cascade."""
    B, P = state.hands.shape
    kept = rng.random((B, P, 4)) < 0.4
    suits = np.bitwise_or.reduce(np.where(kept, cards.SUIT_BITS, np.uint64(0)), axis=2)
    noise = rng.integers(0, 1 << 52, (B, P), dtype=np.uint64)
    hands = noise & (suits | np.where(rng.random((B, P)) < 0.5, cards.QS_BIT, np.uint64(0)))
    twice = {"hands2": state.hands2 & hands} if state.decks == 2 else {}
    return recompute_legal(state.replace(hands=hands, hearts_broken=rng.random(B) < 0.3, **twice))


def test_the_reason_kernel_walks_the_legal_cascade():
    """``kernels.illegal_reason`` finds exactly the cards of ``legal`` legal, and gives every other
    card of random states (each game, each card, out-of-range ids too) a reason; together the
    states meet every reason."""
    seen = set()
    for n, rules in enumerate(RULES_TO_EXPLAIN):
        first_trick = random_states(rules, 64, n, False, rules.num_players * (rules.pass_count + 1), keep=1.0)
        steps = 2 * rules.num_players * (rules.hand_size + rules.pass_count)  # and the game's end
        states = first_trick + random_states(rules, 16, n, False, steps, keep=0.2)
        for state in states + [scrambled(state, np.random.default_rng(i)) for i, state in enumerate(states)]:
            for g in range(state.batch_size):
                legal = int(state.legal[g])
                for card in range(-1, cards.NUM_CARDS + 1):
                    reason = kernels.game_illegal_reason(state.data, state.layout.offsets, state.params, g, card)
                    is_legal = 0 <= card < cards.NUM_CARDS and legal >> card & 1
                    assert (reason == IllegalReason.LEGAL) == bool(is_legal), (rules, g, card, reason)
                    seen.add(IllegalReason(reason))
    assert seen == set(IllegalReason)


def test_explain_illegal_words_the_reason():
    state = start(SUITS, pass_count=3)
    assert explain_illegal(state, 0, ids("2D")[0]) == "seat 0 does not hold it"
    assert explain_illegal(state, 0, ids("AC")[0]) == "it is legal"
    state = play(state, "AC")
    assert explain_illegal(state, 0, ids("AC")[0]) == "seat 0 has already picked it to pass"


def test_finished_games_ignore_actions():
    state = start(SUITS, target_score=None)
    for _ in range(52):
        state = step(state, legal_mask(state).argmax(axis=1))
    assert state.done.all()
    assert not legal_mask(state).any()
    before = snapshot(state)
    after = step(state, np.array([0]))
    # hand_over marks the state that followed the hand's last card; any later step clears it.
    assert not after.hand_over[0]
    del before["hand_over"]
    assert_unchanged(after, before)


# ---------------------------------------------------------------------------------------------
# Bad actions


@pytest.mark.parametrize(
    "actions",
    [
        np.array([0, 0]),
        np.array([[0]]),
        np.array(0),
        np.array([], dtype=np.int64),
        np.array([0.0]),
        np.array([True]),
        np.array(["2C"]),
    ],
)
def test_bad_actions_shape_or_dtype(actions):
    state = start(FIRST_TRICK)
    refuse(state, actions, "actions")


@pytest.mark.parametrize("card", [52, -1, 1000])
def test_action_out_of_range(card):
    state = start(FIRST_TRICK, batch=2)
    refuse(state, np.array([0, card]), "game 1", str(card))


# ---------------------------------------------------------------------------------------------
# Bad deals


def _refuse_deals(deals, *fragments, rules=None, **kwargs) -> None:
    with pytest.raises(ValueError) as info:
        new_games(HeartsRules(pass_count=0) if rules is None else rules, deals=deals, **kwargs)
    message = str(info.value)
    for fragment in fragments:
        assert re.search(fragment, message), f"{fragment!r} not in {message!r}"


GOOD = cards.deal_from_hands(SUITS)


def test_good_deal_is_accepted():
    state = new_games(HeartsRules(pass_count=0), deals=GOOD[None])
    assert state.to_play[0] == 0
    new_games(HeartsRules(pass_count=0), deals=np.stack([GOOD, GOOD]).astype(np.int64), batch_size=2)


@pytest.mark.parametrize("deals", [GOOD, GOOD[None, :51], np.zeros((0, 52), np.int8), GOOD[None, :, None]])
def test_deals_wrong_shape(deals):
    _refuse_deals(deals, "shape")


@pytest.mark.parametrize("dtype", [np.float64, np.bool_])
def test_deals_wrong_dtype(dtype):
    _refuse_deals(GOOD[None].astype(dtype), "dtype|integer")


@pytest.mark.parametrize("seat", [4, -2, 127])
def test_deals_seat_out_of_range(seat):
    deals = np.stack([GOOD, GOOD]).astype(np.int16)
    deals[1, cards.parse_card("QS")] = seat
    _refuse_deals(deals, "game 1", "QS", "seat", str(seat))


def test_deals_removed_card_given_to_a_seat():
    deals = cards.deal_from_hands(FIVE)[None].copy()
    deals[0, cards.parse_card("2C")] = 0
    deals[0, cards.parse_card("4C")] = -1  # keep the counts right: only the removed card is wrong
    _refuse_deals(deals, "game 0", "2C", "removed", rules=HeartsRules(num_players=5, pass_count=0))
    deals = cards.deal_from_hands(FIVE)[None].copy()
    deals[0, cards.parse_card("2D")] = 3
    _refuse_deals(deals, "game 0", "2D", "removed", rules=HeartsRules(num_players=5, pass_count=0))


def test_deals_deck_card_not_dealt():
    deals = GOOD[None].copy()
    deals[0, cards.parse_card("AH")] = -1
    _refuse_deals(deals, "game 0", "AH", "must be dealt")


def test_deals_wrong_count_per_seat():
    deals = GOOD[None].copy()
    deals[0, cards.parse_card("AH")] = 0  # seat 0: 14 cards, seat 3: 12
    _refuse_deals(deals, "game 0", "seat [03]", "1[42]", "13")


def test_deals_for_the_wrong_player_count():
    _refuse_deals(cards.deal_from_hands(FIVE)[None], rules=HeartsRules(pass_count=0))
    _refuse_deals(GOOD[None], rules=HeartsRules(num_players=5, pass_count=0))


def test_deals_disagree_with_batch_size():
    _refuse_deals(np.stack([GOOD, GOOD]), "batch_size", batch_size=3)


def test_hands_are_dealt_only_at_the_start_of_a_hand():
    state = new_games(HeartsRules(), batch_size=2, seed=0)
    with pytest.raises(ValueError, match="deals of 1 games for a batch of 2"):
        deal_hands(state, GOOD[None])
    with pytest.raises(ValueError, match="game 1: AH must be dealt"):
        deal_hands(state, np.stack([GOOD, np.where(np.arange(52) == cards.parse_card("AH"), -1, GOOD)]))
    picked = step(state, legal_mask(state).argmax(axis=1))
    with pytest.raises(ValueError, match="game 0 is not at the start of a hand"):
        deal_hands(picked, np.stack([GOOD, GOOD]))


@pytest.mark.parametrize("batch_size", [None, 0, -1, True, 2.5, "3", np.float64(4.0)])
def test_bad_batch_size(batch_size):
    with pytest.raises(ValueError, match="batch_size"):
        new_games(HeartsRules(), batch_size=batch_size, seed=0)


# ---------------------------------------------------------------------------------------------
# An int index keeps one game or raises IndexError


def test_indexing_a_batch_out_of_range_raises() -> None:
    state = new_games(HeartsRules(), batch_size=3, seed=0)
    for i in (-3, -1, 0, 2):
        assert state[i].batch_size == 1
        np.testing.assert_array_equal(state[i].data, state.data[i : i + 1] if i >= 0 else state.data[[i]])
    for i in (3, -4, 10**9):
        with pytest.raises(IndexError, match="out of range for a batch of 3"):
            state[i]
    with pytest.raises(IndexError):
        infoset(state)[5]
    with pytest.raises(IndexError):
        state[True]


@pytest.mark.parametrize("action", [2**63, 2**64 - 1, 52])
def test_an_action_that_is_no_card_is_named_as_given(action: int) -> None:
    """An unsigned action past the int64 range is named by its value, not as the negative number
    it would wrap to, by the core and by the environments."""
    from hearts_env.gym_env import HeartsEnv

    state = new_games(HeartsRules(), batch_size=1, seed=0)
    with pytest.raises(IllegalMoveError, match=rf"^game 0: action {action} is not a card id \(0..51\)$"):
        step(state, np.array([action], np.uint64))
    env = HeartsEnv()
    env.reset(seed=0)
    with pytest.raises(IllegalMoveError, match=rf"action {action} is not a card id"):
        env.step(np.uint64(action))
