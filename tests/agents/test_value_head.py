"""Tests of the value head (``hearts_env.agents.search.value_head``) and of ``pimc-ppo``'s rollouts cut
short by it (``rollout_tricks``).

* Features: each seat's hand, its scoring cards taken and hearts broken, seats from the leader.
* Expected points: the shares of what is left go to the seats; a certain moon gives each moon
  rule's hand scores; the shipped head is closer to the network's rollouts than an even split.
* Rollouts cut short: ``network_play`` stops at the end of the trick asked and goes on from there
  to the same hand as an uncut rollout; ``pimc-ppo:rollout_tricks=1`` plays legal cards, refuses
  tables the head was not trained for and a policy folder without a head.
* Loading refuses damaged files with the file's name; the trainer writes a folder that loads.
"""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pytest

from hearts_env import HeartsRules
from hearts_env.agents import make_agent
from hearts_env.agents.learned.trained import SHIPPED_DIR, shipped_policy
from hearts_env.agents.search.pimc_ppo import network_play, settled
from hearts_env.agents.search.value_head import SCORED_CARDS, ValueHead, feature_size, features
from hearts_env.engine.cards import parse_card
from hearts_env.engine.core import GAME_OVER, hand_score, legal_mask, new_games, raw_points, sample_actions, step
from hearts_env.engine.infoset import infoset
from hearts_env.engine.records import concatenate

HAND = HeartsRules(target_score=None)
P = 4


@pytest.fixture(scope="module")
def ppo():
    return shipped_policy()


def boundaries(count: int, seed: int, policy=None) -> tuple:
    """``count`` games of random play (or ``policy``'s at every seat) at a random trick boundary
    after the first trick, their score not settled."""
    rng = np.random.default_rng(seed)
    state = new_games(HAND, batch_size=count, seed=seed)
    when = rng.integers(1, 10, count)
    picked = []
    for _ in range(60):
        rows = np.flatnonzero((state.trick_size == 0) & (state.tricks_played >= when) & ~settled(state, HAND))
        rows = rows[state.phase[rows] != GAME_OVER]
        if len(rows):
            picked.append(state[rows])
            when[rows] = 99
        cards = sample_actions(state, rng) if policy is None else policy(infoset(state), legal_mask(state))
        state = step(state, np.where(state.phase == GAME_OVER, 0, cards))
    return concatenate(picked)


def a_head(bias: np.ndarray) -> ValueHead:
    """A head that answers ``bias`` (2P,) whatever the position."""
    return ValueHead(HAND, [(np.zeros((2 * P, feature_size(P)), np.float32), np.asarray(bias, np.float32))])


def test_features_are_the_hands_scoring_cards_taken_and_hearts_from_the_leader():
    state = boundaries(16, seed=1)
    x = features(state)
    assert x.shape == (16, feature_size(P)) and x.dtype == np.uint8
    for g in range(16):
        leader = int(state.to_play[g])
        for column in range(P):
            seat = (leader + column) % P
            held = [c for c in range(52) if int(state.hands[g, seat]) >> c & 1]
            assert list(np.flatnonzero(x[g, column * 52 : (column + 1) * 52])) == held
            scored = x[g, P * 52 + column * len(SCORED_CARDS) : P * 52 + (column + 1) * len(SCORED_CARDS)]
            taken = [c for c in SCORED_CARDS if int(state.taken[g, seat]) >> c & 1]
            assert list(SCORED_CARDS[scored == 1]) == taken
        assert x[g, -1] == state.hearts_broken[g]


def test_raw_points_count_hearts_and_the_queen():
    qs, ah, kh, ac = (np.uint64(1) << np.uint64(parse_card(c)) for c in ("QS", "AH", "KH", "AC"))
    np.testing.assert_array_equal(raw_points(np.array([qs | ah, kh | ac, ac, 0], np.uint64)), [14, 1, 0, 0])


def test_the_points_left_go_by_the_shares():
    state = boundaries(32, seed=2)
    sure = np.full(2 * P, -50.0)
    sure[1] = 50.0  # the seat after the leader takes every point left; no moon
    expected = a_head(sure).expected_points(state, HAND, state.scores)
    taken = raw_points(state.taken).astype(float)
    second = (state.to_play.astype(int) + 1) % P
    taken[np.arange(32), second] += 26 - taken.sum(axis=1)
    np.testing.assert_allclose(expected, taken, atol=1e-6)
    even = a_head(np.r_[np.zeros(P), np.full(P, -50.0)]).expected_points(state, HAND, state.scores)
    np.testing.assert_allclose(even.sum(axis=1), 26, atol=1e-6)  # shares add up to what is left


@pytest.mark.parametrize("moon", ["add_to_others", "subtract_from_self", "shooter_choice"])
def test_a_certain_moon_scores_as_the_moon_rule(moon):
    rules = dataclasses.replace(HAND, moon=moon, target_score=100)
    state = boundaries(64, seed=3)
    totals = np.random.default_rng(0).integers(0, 99, (64, P)).astype(np.int32)
    leader = state.to_play.astype(int)
    points = raw_points(state.taken)
    can = points.sum(axis=1) == points[np.arange(64), leader]  # the leader may still shoot
    bias = np.r_[np.full(P, -50.0), 50.0, np.full(P - 1, -50.0)]  # the leader shoots for sure
    expected = a_head(bias).expected_points(state[np.flatnonzero(can)], rules, totals[can])
    shot = np.zeros((int(can.sum()), P), np.uint64)
    shot[np.arange(len(shot)), leader[can]] = np.uint64(sum(1 << int(c) for c in SCORED_CARDS))
    assert can.sum() > 5
    np.testing.assert_allclose(expected, hand_score(rules, shot, totals[can]), atol=1e-6)


def test_the_shipped_head_is_closer_to_the_rollouts_than_an_even_split(ppo):
    head = ValueHead.load(SHIPPED_DIR / "ppo")
    state = boundaries(400, seed=4, policy=ppo)  # the network's own play, as in its rollouts
    exact = hand_score(HAND, network_play(state[np.arange(state.batch_size)], ppo, HAND).taken, state.scores)
    guess = head.expected_points(state, HAND, state.scores)
    assert len(exact) > 300
    taken = raw_points(state.taken)
    even = taken + (26 - taken.sum(axis=1, keepdims=True)) / P
    assert np.mean((guess - exact) ** 2) < 0.7 * np.mean((even - exact) ** 2)


def test_a_rollout_cut_at_a_trick_goes_on_to_the_uncut_rollouts_hand(ppo):
    start = boundaries(48, seed=5)
    start = step(start, ppo(infoset(start), legal_mask(start)))  # into a trick
    until = start.tricks_played.astype(np.int64) + 1
    cut = network_play(start[np.arange(48)], ppo, HAND, until_trick=until)
    going = ~settled(cut, HAND)
    assert going.any() and np.all(cut.trick_size[going] == 0) and np.all(cut.tricks_played[going] == until[going])
    rest = network_play(cut[np.arange(48)], ppo, HAND)
    whole = network_play(start[np.arange(48)], ppo, HAND)
    np.testing.assert_array_equal(rest.taken, whole.taken)


def test_pimc_ppo_with_the_value_head_plays_legal_cards_and_changes_some():
    agent = make_agent("pimc-ppo", seed=0, worlds=8, rollout_tricks=1)
    assert "rollout_tricks=1" in repr(agent)
    start = boundaries(64, seed=6)
    info, mask = infoset(start), legal_mask(start)
    cards = agent(info, mask)
    assert np.all(mask[np.arange(len(cards)), cards])
    assert np.any(cards != make_agent("ppo")(info, mask))


def test_pimc_ppo_refuses_tables_the_head_was_not_trained_for_and_folders_without_one(tmp_path):
    agent = make_agent("pimc-ppo", worlds=2, rollout_tricks=1)
    with pytest.raises(ValueError, match="queen_breaks_hearts=False"):
        agent.check_rules(dataclasses.replace(HAND, queen_breaks_hearts=False))
    for name in ("policy.npz", "policy.json"):
        (tmp_path / name).write_bytes((SHIPPED_DIR / "ppo" / name).read_bytes())
    with pytest.raises(ValueError, match=re.escape(f"missing file {tmp_path / 'value.json'}")):
        make_agent("pimc-ppo", path=str(tmp_path), rollout_tricks=1)
    make_agent("pimc-ppo", path=str(tmp_path))  # no head needed for whole rollouts


def test_damaged_value_files_are_refused_naming_the_file(tmp_path):
    for name in ("value.npz", "value.json"):
        (tmp_path / name).write_bytes((SHIPPED_DIR / "ppo" / name).read_bytes())
    meta = json.loads((tmp_path / "value.json").read_text())
    cases = [
        ("value.json", b"{not json", "value.json: corrupt file"),
        ("value.json", json.dumps(meta | {"format": "other"}).encode(), "value.json: format 'other'"),
        (
            "value.json",
            json.dumps(meta | {"layers": meta["layers"][:2]}).encode(),
            "value.npz: the last layer gives 256",
        ),
        ("value.npz", b"PK\x03\x04 truncated", "value.npz: corrupt file"),
    ]
    for name, data, fragment in cases:
        good = (tmp_path / name).read_bytes()
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ValueError, match=re.escape(fragment)) as error:
            ValueHead.load(tmp_path)
        assert str(tmp_path) in str(error.value)
        (tmp_path / name).write_bytes(good)
    ValueHead.load(tmp_path)


@pytest.mark.training
def test_the_trainer_writes_a_policy_folder_pimc_ppo_reads(tmp_path):
    pytest.importorskip("torch")
    from hearts_env.train.distill.value_head import ValueConfig, main

    folder = main(
        ValueConfig(hands=512, share=0.02, worlds=2, epochs=1, workers=1, run_dir=str(tmp_path), progress_bar=False)
    )
    metrics = json.loads((folder / "value.json").read_text())["trained_on"]["metrics"]
    assert metrics["examples"] > metrics["held_out"] > 0
    assert metrics["held_out_squared_error"] < metrics["held_out_squared_error_of_even_shares"]
    agent = make_agent("pimc-ppo", path=str(folder), worlds=2, rollout_tricks=1)
    start = boundaries(8, seed=7)
    mask = legal_mask(start)
    assert np.all(mask[np.arange(8), agent(infoset(start), mask)])
