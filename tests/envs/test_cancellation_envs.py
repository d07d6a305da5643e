"""Cancellation Hearts (``decks=2``) through everything that plays games: the AEC environment
(PettingZoo's checkers, rewards), the Gymnasium environments (check_env, episodes, the vector
env), the random policy and the arena."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test
from scripted_deals import TWINS6, TWINS6_KITTY
from test_aec import expected_totals, play
from test_gym_env import play_episode, random_legal

from hearts_env.agents.cli import main as arena_main
from hearts_env.arena import play_match
from hearts_env.arena.match import hand_outcomes
from hearts_env.engine import cards
from hearts_env.engine.cards import POINT_BITS
from hearts_env.engine.core import new_games, sample_actions, step
from hearts_env.engine.rewards import REWARD_MODES, step_rewards
from hearts_env.engine.rules import HeartsRules
from hearts_env.envs import aec
from hearts_env.envs.gym_env import HeartsEnv, HeartsVectorEnv
from hearts_env.play.policy import RandomPolicy

pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be"),
]


@pytest.mark.parametrize("num_players", [6, 11])
def test_aec_api_test(num_players: int) -> None:
    api_test(aec.env(num_players=num_players, decks=2), num_cycles=2000)


def test_aec_seed_test() -> None:
    seed_test(lambda: aec.env(num_players=8, decks=2))


@pytest.mark.parametrize("reward", REWARD_MODES)
def test_aec_rewards_sum_to_what_the_mode_says(reward: str) -> None:
    for seed, knobs in enumerate(
        [{"num_players": 7, "target_score": 60}, {"num_players": 10, "jack_of_diamonds": True}]
    ):
        table = aec.env(reward=reward, decks=2, **knobs)
        table.reset(seed=seed)
        totals, hands = play(table, np.random.default_rng(seed))
        state = table.unwrapped.core_state
        np.testing.assert_array_equal(hands.sum(axis=0), state.scores[0])
        expected = expected_totals(reward, hands, state)
        np.testing.assert_allclose([totals[a] for a in table.possible_agents], expected, atol=1e-4)


def test_points_rewards_pay_each_trick_with_both_copies() -> None:
    """In "points" mode a step pays minus the points it brought each seat, second copies included."""
    rules = HeartsRules(num_players=7, decks=2, jack_of_diamonds=True, target_score=None)
    state = new_games(rules, batch_size=32, seed=2)
    rng = np.random.default_rng(2)
    doubled = 0
    while not state.done.all():
        after = step(state, sample_actions(state, rng))
        paid = step_rewards(state, after, "points")
        live = ~state.done & ~after.hand_over
        np.testing.assert_array_equal(paid[live], -(after.hand_points - state.hand_points)[live])
        doubled += int((paid[live] <= -2).sum() and (after.taken2 != state.taken2)[live].any())
        state = after
    assert doubled, "no step paid for a second copy"


def test_aec_moon_of_52_from_a_given_deal() -> None:
    """The twins deal, given through ``reset(options=...)``: with every twin playing its twin's
    card the tricks all cancel and seat 0, leading the last, takes every card."""
    table = aec.env(reward="hand", num_players=6, decks=2, pass_count=0, target_score=None)
    table.reset(seed=0, options={"deals": cards.deal_from_hands(TWINS6, TWINS6_KITTY, decks=2)})
    totals = dict.fromkeys(table.possible_agents, 0.0)
    for agent in table.agent_iter():
        observation, reward, termination, truncation, _ = table.last()
        totals[agent] += reward
        if termination or truncation:
            table.step(None)
            continue
        state = table.unwrapped.core_state
        seat = int(state.to_play[0])
        twin_card = int(state.trick[0, seat ^ 1])
        mask = observation["action_mask"]
        table.step(twin_card if twin_card >= 0 and mask[twin_card] else int(np.flatnonzero(mask)[0]))
    assert list(totals.values()) == [0, -52, -52, -52, -52, -52]
    assert aec.default_illegal_reward(HeartsRules(num_players=6, decks=2), "points") == -152


def test_gymnasium_check_env_and_episodes() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(HeartsEnv(num_players=8, decks=2, illegal_action="random", render_mode="ansi"))
    env = HeartsEnv(reward="points", num_players=9, decks=2, target_score=60, learner_seat="rotate")
    rng = np.random.default_rng(0)
    for seed in range(2):
        total, info, _ = play_episode(env, rng, seed)
        assert env.state.done[0] and total == -env.state.scores[0, env.learner_seat]
    shown = HeartsEnv(num_players=6, decks=2, render_mode="ansi")
    shown.reset(seed=0)
    assert "kitty: 2 cards face down" in shown.render()


def test_vector_env_plays_two_decks() -> None:
    envs = HeartsVectorEnv(16, num_players=11, decks=2, episode="hand", opponents=RandomPolicy(0))
    observations, _ = envs.reset(seed=3)
    assert observations.shape == (16, envs.single_observation_space.shape[0])
    rng = np.random.default_rng(3)
    finished = 0
    for _ in range(60):
        observations, rewards, terminated, truncated, _ = envs.step(random_legal(envs.action_masks(), rng))
        finished += int(terminated.sum())
    assert finished >= 16  # a hand of 11 players takes the learner 9 plays and its passes


def test_arena_plays_random_players_on_two_decks(capsys: pytest.CaptureFixture[str]) -> None:
    rules = HeartsRules(num_players=8, decks=2, target_score=40)
    result = play_match(rules, [("random", RandomPolicy(1))] * 8, deals=3, seed=0)
    assert result.scores.shape == (3, 8, 8) and (result.scores.max(axis=-1) >= 40).all()
    arena_main(["random"] * 8 + ["--decks", "2", "--num-players", "8", "--deals", "3", "--episode", "hand"])
    assert "random" in capsys.readouterr().out
    table = ["heuristic", "pimc:worlds=2", "pimc-random:worlds=2", "simple"] + ["random"] * 4
    arena_main(table + ["--decks", "2", "--num-players", "8", "--deals", "1", "--episode", "hand"])
    assert "pimc-random" in capsys.readouterr().out
    with pytest.raises(SystemExit):  # the shipped policy was trained for 4 players and one deck
        arena_main(["ppo"] + ["random"] * 7 + ["--decks", "2", "--num-players", "8", "--deals", "3"])
    assert "'ppo' cannot play these rules" in capsys.readouterr().err


def test_arena_counts_a_moon_only_with_every_copy() -> None:
    state = new_games(HeartsRules(num_players=6, decks=2), batch_size=2, seed=0)
    once = np.zeros((2, 6), np.uint64)
    once[:, 0] = POINT_BITS
    twice = once.copy()
    twice[1, 0] = 0  # game 1: seat 0 took one copy of each point card only
    after = state.replace(last_hand_taken=once, last_hand_taken2=twice)
    _, moon = hand_outcomes(after, np.array([0, 1]))
    assert moon[:, 0].tolist() == [True, False] and not moon[:, 1:].any()
