"""One seeding scheme: game i of seed s has one key, whatever is asked alongside it; streams and
seeds do not collide; the hash is SplitMix64's."""

from __future__ import annotations

import numpy as np
import pytest

from hearts_env import HeartsRules
from hearts_env.engine import core
from hearts_env.engine.seeding import AGENTS, GAMES, derive, game_keys, mix64
from hearts_env.envs.aec import raw_env
from hearts_env.envs.gym_env import HeartsEnv, HeartsVectorEnv


def test_the_key_of_game_i_depends_only_on_seed_and_i():
    keys = game_keys(7, np.arange(1000))
    assert keys.dtype == np.uint64 and keys.shape == (1000,)
    assert game_keys(7, 123) == keys[123] and game_keys(7, 123).shape == ()
    assert np.array_equal(game_keys(7, np.array([[5, 999], [0, 5]])), keys[[[5, 999], [0, 5]]])
    assert np.array_equal(game_keys(np.int64(7), [3, 4]), keys[3:5])
    assert np.array_equal(game_keys(7, np.arange(1000)), keys)  # again: the same keys


def test_seeds_and_streams_give_unrelated_keys():
    n = 20_000
    everything = np.concatenate(
        [
            game_keys(0, np.arange(n)),
            game_keys(1, np.arange(n)),
            derive(0, AGENTS, np.arange(n)),
            game_keys(2**64 - 1, 0)[None],
        ]
    )
    assert len(np.unique(everything)) == len(everything)
    bits = core.bits_to_mask(game_keys(0, np.arange(n)))[:, :52]  # every bit about half the time
    assert np.abs(bits.mean(axis=0) - 0.5).max() < 0.02
    assert np.array_equal(derive(3, GAMES, np.arange(4)), game_keys(3, np.arange(4)))


def test_mix64_is_splitmix64():
    # the first outputs of SplitMix64 seeded 0 (its reference implementation's published values)
    assert mix64(np.array([0], np.uint64))[0] == np.uint64(0xE220A8397B1DCDAF)
    state = np.array([0], np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    assert mix64(state)[0] == np.uint64(0x6E789E6AA1B965F4)


def test_pinned_keys():
    """Deals come from these keys: a change here changes every seeded game and measured figure."""
    assert [int(k) for k in game_keys(0, np.arange(2))] == [0x238275BC38FCBE91, 0xF89A2566B5822C54]


def test_bad_arguments():
    for seed in (1.5, None, True):
        with pytest.raises(ValueError, match="seed must be an int"):
            game_keys(seed, 0)
    with pytest.raises(ValueError, match="indices must be non-negative integers"):
        game_keys(0, -1)
    with pytest.raises(ValueError, match="indices must be non-negative integers"):
        game_keys(0, np.array([0.5]))


def test_the_core_and_the_environments_share_the_scheme() -> None:
    """Game i of seed s is the same game in the core, the AEC env and the Gymnasium envs."""
    rules = HeartsRules(target_score=None)
    np.testing.assert_array_equal(core.new_games(rules, batch_size=6, seed=9).key, game_keys(9, np.arange(6)))
    table = raw_env(target_score=None)
    table.reset(seed=9)
    assert table.core_state.key[0] == game_keys(9, 0)
    table.reset()
    assert table.core_state.key[0] == game_keys(9, 1)
    env = HeartsEnv(rules)
    env.reset(seed=9)
    assert env.state.key[0] == game_keys(9, 0)
    vec = HeartsVectorEnv(3, rules)
    vec.reset(seed=9)  # table i is seeded 9 + i
    np.testing.assert_array_equal(vec.state.key, [game_keys(9 + i, 0) for i in range(3)])
