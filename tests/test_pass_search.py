"""The pass search of ``pimc-ppo:pass_worlds=W``: its sampled worlds, the pass phase played out in
them, and the pick it makes from their scores."""

from __future__ import annotations

import numpy as np
import pytest

from hearts_env import HeartsRules
from hearts_env.agents import make_agent
from hearts_env.agents.pass_worlds import absolute_scores, play_passes, sample_pass_worlds
from hearts_env.agents.trained import shipped_policy
from hearts_env.core import BIT, PASS, PLAY, deck_bits, legal_mask, new_games, sample_actions, step
from hearts_env.infoset import infoset
from hearts_env.records import concatenate

HAND = HeartsRules(target_score=None)
P = HAND.num_players


def pass_positions(per_pick: int, seed: int, hand_number: int = 1):
    """Games at every pick of the pass (``per_pick`` at each of the 12: 0 to 11 picks made), the
    hand numbered ``hand_number`` (its pass direction), with random game totals."""
    rng = np.random.default_rng(seed)
    state = new_games(HAND, batch_size=per_pick, seed=seed)
    state.layout.view(state.data, "hand_number")[:] = hand_number
    state.layout.view(state.data, "scores")[:] = rng.integers(0, 90, (per_pick, P))
    picks = []
    for _ in range(P * HAND.pass_count):
        picks.append(state)
        state = step(state, sample_actions(state, rng))
    return concatenate(picks)


@pytest.mark.parametrize("hand_number", [1, 2, 3])
def test_pass_worlds_deal_the_other_cards_around_the_observers_hand(hand_number):
    start = pass_positions(4, seed=hand_number, hand_number=hand_number)
    info, W = infoset(start), 16
    worlds = sample_pass_worlds(info, W, np.random.default_rng(0), HAND)
    assert worlds.batch_size == start.batch_size * W and np.all(worlds.phase == PASS) and np.all(worlds.to_play == 0)
    game = np.repeat(np.arange(start.batch_size), W)
    seat = info.seat.astype(np.int64)[game]
    hands = worlds.hands
    np.testing.assert_array_equal(hands[np.arange(len(game)), seat], (info.hand | info.passed)[game])
    assert np.all(np.bitwise_count(hands) == HAND.hand_size)
    assert np.all(np.bitwise_or.reduce(hands, axis=1) == deck_bits(P))
    np.testing.assert_array_equal(worlds.hand_number, info.hand_number[game])
    np.testing.assert_array_equal(worlds.scores, start.scores[game])
    # the other seats' cards vary from world to world, and the same seed deals the same worlds
    assert len(np.unique(hands[:W, (seat[0] + 1) % P])) > W // 2
    again = sample_pass_worlds(info, W, np.random.default_rng(0), HAND)
    np.testing.assert_array_equal(again.data, worlds.data)


def test_absolute_scores_undo_the_observers_rotation():
    start = pass_positions(2, seed=7)
    np.testing.assert_array_equal(absolute_scores(infoset(start)), start.scores)


@pytest.mark.parametrize("hand_number, offset", [(1, 1), (2, -1), (3, 2)])
def test_played_passes_move_the_observers_planned_cards_in_the_hands_direction(hand_number, offset):
    ppo = shipped_policy()
    start = pass_positions(3, seed=10 + hand_number, hand_number=hand_number)
    info, W = infoset(start), 8
    worlds = sample_pass_worlds(info, W, np.random.default_rng(1), HAND)
    seat = np.repeat(info.seat.astype(np.int64), W)
    # plan the picks made so far and then the observer's three lowest cards not picked yet
    own = np.repeat(info.hand, W)
    planned = np.repeat(info.passed, W)
    for _ in range(HAND.pass_count):
        short = np.bitwise_count(planned) < HAND.pass_count
        lowest = own & (~own + np.uint64(1))
        planned = np.where(short, planned | lowest, planned)
        own = np.where(short, own & ~lowest, own)
    before = worlds.hands.copy()
    play_passes(worlds, ppo, seat, planned)
    rows = np.arange(worlds.batch_size)
    assert np.all(worlds.phase == PLAY)
    receiver = (seat + offset) % P
    np.testing.assert_array_equal(worlds.hands[rows, receiver] & planned, planned)
    np.testing.assert_array_equal(worlds.hands[rows, seat] & before[rows, seat], before[rows, seat] & ~planned)


def test_pass_search_plays_its_best_scored_candidate_and_only_when_asked():
    start = pass_positions(4, seed=20)
    info, mask = infoset(start), legal_mask(start)
    network = make_agent("ppo")(info, mask)
    np.testing.assert_array_equal(make_agent("pimc-ppo", seed=0, worlds=2)(info, mask), network)
    agent = make_agent("pimc-ppo", seed=0, worlds=0, pass_worlds=16)
    cards, values = agent.decide_with_values(info, mask)
    assert np.all(mask[np.arange(len(cards)), cards])
    searched = ~np.isnan(values)
    rows = np.flatnonzero(searched.any(axis=1))
    assert len(rows) and np.all(searched[rows].sum(axis=1) > 1) and np.all(mask[searched])
    np.testing.assert_array_equal(cards[searched.sum(axis=1) == 0], network[searched.sum(axis=1) == 0])
    # the network's card unless another scores lower: the chosen card's value is the lowest
    np.testing.assert_array_equal(values[rows, cards[rows]], np.nanmin(values[rows], axis=1))
    assert np.any(cards != network)
    assert np.all((values >= 0)[searched]) and np.all((values <= 26)[searched])
    again = make_agent("pimc-ppo", seed=0, worlds=0, pass_worlds=16)(info, mask)
    np.testing.assert_array_equal(again, cards)


def test_worlds_0_plays_the_networks_card():
    rng = np.random.default_rng(3)
    state = new_games(HAND, batch_size=32, seed=3)
    for _ in range(30):
        state = step(state, sample_actions(state, rng))
    info, mask = infoset(state), legal_mask(state)
    np.testing.assert_array_equal(make_agent("pimc-ppo", worlds=0)(info, mask), make_agent("ppo")(info, mask))


@pytest.mark.parametrize("options", [{"pass_worlds": -1}, {"pass_worlds": 1.5}, {"worlds": -2}])
def test_bad_pass_search_settings_are_refused(options):
    name = next(iter(options))
    with pytest.raises(ValueError, match=name):
        make_agent("pimc-ppo", **options)


def test_a_planned_card_is_picked_before_the_networks():
    start = pass_positions(1, seed=30)[0]
    info = infoset(start)
    worlds = sample_pass_worlds(info, 4, np.random.default_rng(2), HAND)
    card = int(np.flatnonzero(legal_mask(start)[0])[-1])
    planned = np.repeat(info.passed | BIT[card], 4)
    play_passes(worlds, shipped_policy(), np.repeat(info.seat.astype(np.int64), 4), planned)
    receiver = (int(info.seat[0]) + 1) % P
    assert np.all(worlds.hands[:, receiver] & BIT[card])
