"""Inference over a search's worlds (hearts_env.agents.inference): the hand replayed in each world
reaches the real position, the likelihood of the others' plays finds the true world and rules out
impossible ones, and resampling by it locates the hidden cards better than uniform worlds."""

from __future__ import annotations

import numpy as np
import pytest

from hearts_env import HeartsRules
from hearts_env.agents import inference
from hearts_env.agents.inference import first_lead, play_log_likelihoods, play_order, resample_worlds
from hearts_env.agents.pimc import sample_worlds
from hearts_env.agents.specs import agent_from_spec, check_agents
from hearts_env.agents.trained import masked_argmax, shipped_policy
from hearts_env.cards import NUM_RANKS
from hearts_env.core import PLAY, legal_mask, new_games, step
from hearts_env.infoset import infoset
from hearts_env.observation import observe

HAND = HeartsRules(target_score=None)


@pytest.fixture(scope="module")
def ppo():
    return shipped_policy()


def network_positions(network, count: int, seed: int, cards: int):
    """``count`` one-hand games (tricks recorded) after ``cards`` passes and plays, every seat
    playing ``network``'s greedy card: the state, the info set of the seat to act and the true
    world (each relative seat's hand)."""
    state = new_games(HAND, batch_size=count, seed=seed, history=True)
    for _ in range(cards):
        obs = observe(state, state.to_play.astype(np.int64), network.layout)
        state = step(state, masked_argmax(network.logits(obs), legal_mask(state)))
    info = infoset(state)
    assert np.all(info.phase == PLAY)
    seat, P = state.to_play.astype(np.int64), HAND.num_players
    true = np.stack([state.hands[np.arange(count), (seat + r) % P] for r in range(P)], axis=1)
    return state, info, true


def located(worlds: np.ndarray, true: np.ndarray, info) -> float:
    """The share of the hidden cards the worlds (B, W, P) place in their true hand."""
    right = sum(np.bitwise_count(worlds[:, :, r] & true[:, None, r]) for r in range(1, worlds.shape[2]))
    return float((right / np.bitwise_count(info.unseen)[:, None]).mean())


@pytest.mark.parametrize("cards", [12 + 1, 12 + 4 * 5 + 2, 12 + 4 * 11 + 3], ids=["first trick", "trick 6", "trick 12"])
def test_the_hand_replayed_in_the_true_world_reaches_the_position(ppo, cards):
    state, info, true = network_positions(ppo, 16, seed=cards, cards=cards)
    replay = first_lead(info, true[:, None, :])
    assert np.all(np.bitwise_count(replay.hands).sum(axis=1) == 52)  # every card back in a hand
    actor, card, count = play_order(info)
    assert np.all(count == cards - 12)
    for i in range(int(count.max())):
        np.testing.assert_array_equal(replay.to_play, (info.seat + actor[:, i]) % 4)  # the hand's turn order
        replay = step(replay, card[:, i])
    for field in ("hands", "played", "trick", "taken", "voids", "hearts_broken", "tricks_played", "to_play", "legal"):
        np.testing.assert_array_equal(getattr(replay, field), getattr(state, field), err_msg=field)


def test_the_true_world_is_likelier_than_sampled_ones_when_the_others_play_the_network(ppo):
    _, info, true = network_positions(ppo, 32, seed=3, cards=12 + 4 * 6 + 1)
    worlds = sample_worlds(info, 64, np.random.default_rng(0))
    likelihood = play_log_likelihoods(info, np.concatenate([true[:, None], worlds], axis=1), ppo)
    assert np.isfinite(likelihood[:, 0]).all()
    above = (likelihood[:, 1:] >= likelihood[:, :1]).mean()
    assert above < 0.1, above  # a uniform world is as likely as the true one half the time


def test_a_world_in_which_a_played_card_was_illegal_is_impossible(ppo):
    _, info, true = network_positions(ppo, 64, seed=4, cards=12 + 4 * 6 + 1)
    games, broken = [], []
    for g in range(len(true)):  # a seat known void in a suit swaps a card for one of that suit
        swaps = [
            (r, q, suit_cards & -suit_cards)
            for r in range(1, 4)
            for q in range(1, 4)
            for s in range(4)
            if q != r and info.voids[g, r] >> s & 1 and true[g, r]
            and (suit_cards := int(true[g, q]) & (((1 << NUM_RANKS) - 1) << (s * NUM_RANKS)))
        ]
        if swaps:
            (r, q, c), world = swaps[0], [int(h) for h in true[g]]
            x = world[r] & -world[r]
            world[r], world[q] = world[r] ^ x | c, world[q] ^ c | x
            games.append(g)
            broken.append(world)
    assert len(games) >= 8
    worlds = np.stack([true[games], np.asarray(broken, np.uint64)], axis=1)
    likelihood = play_log_likelihoods(info[games], worlds, ppo)
    assert np.isfinite(likelihood[:, 0]).all() and np.all(likelihood[:, 1] == -np.inf)


def test_resampled_worlds_locate_the_hidden_cards_better_and_are_seeded(ppo):
    _, info, true = network_positions(ppo, 32, seed=5, cards=12 + 4 * 6 + 1)
    uniform = sample_worlds(info, 32, np.random.default_rng(1))
    resampled = resample_worlds(info, 32, ppo, 0.5, 4, np.random.default_rng(1))
    assert resampled.shape == uniform.shape
    assert located(resampled, true, info) > located(uniform, true, info) + 0.05
    np.testing.assert_array_equal(resample_worlds(info, 32, ppo, 0.5, 4, np.random.default_rng(1)), resampled)


def test_when_no_proposed_world_explains_the_plays_they_are_kept_alike(ppo, monkeypatch):
    _, info, _ = network_positions(ppo, 4, seed=6, cards=12 + 4 * 3 + 1)
    pool = sample_worlds(info, 8, np.random.default_rng(2))
    monkeypatch.setattr(inference, "sample_worlds", lambda *args: pool)
    monkeypatch.setattr(inference, "play_log_likelihoods", lambda *args: np.full((4, 8), -np.inf))
    kept = resample_worlds(info, 4, ppo, 1.0, 2, np.random.default_rng(3))
    drawn = [[int(np.flatnonzero((pool[g] == w).all(axis=1))[0]) for w in kept[g]] for g in range(4)]
    assert all(len(set(row)) == 4 for row in drawn)  # systematic resampling of equal weights: one of each quarter


def test_pimc_ppo_with_inference_needs_the_tricks_recorded():
    agent = agent_from_spec("pimc-ppo:infer=0.5", 0)
    with pytest.raises(ValueError, match="infer.*record.*--history"):
        check_agents(HAND, [("pimc-ppo:infer=0.5", agent)])
    check_agents(HAND, [("pimc-ppo:infer=0.5", agent)], history=True)


def test_pimc_ppo_with_inference_is_reproducible_and_changes_the_search(ppo):
    state, info, _ = network_positions(ppo, 24, seed=7, cards=12 + 4 * 5 + 1)
    mask = legal_mask(state)
    inferring = agent_from_spec("pimc-ppo:infer=1,worlds=16,rollout_tricks=1", 3)
    first, values = inferring.decide_with_values(info, mask)
    again = agent_from_spec("pimc-ppo:infer=1,worlds=16,rollout_tricks=1", 3)
    np.testing.assert_array_equal(again(info, mask), first)
    _, uniform = agent_from_spec("pimc-ppo:worlds=16,rollout_tricks=1", 3).decide_with_values(info, mask)
    assert not np.allclose(np.nan_to_num(values), np.nan_to_num(uniform))
