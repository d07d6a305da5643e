"""Tests of ``hearts_env.agents.beliefs``: worlds weighed by the play so far.

* The hand's plays are read back in the order they were made, and the world of the true hands
  replayed from the first lead comes back to the real position.
* The true world's log-likelihood is the sum, over the other seats' decisions with a choice, of
  the network's (floored) probability of the card played, read from the real observations (a
  hand without a pass, where a world's observations are the real ones).
* A world in which a past play breaks a rule weighs nothing; the true world never does.
* Resampling keeps worlds in proportion to their weights; a row of impossible worlds is drawn
  uniformly.
* ``pimc-ppo:belief_worlds=...``: refuses games without trick history and a pool smaller than its
  worlds, plays legal cards, is reproducible with a seed, and the arena records the history for it.
"""

from __future__ import annotations

import numpy as np
import pytest

from hearts_env import HeartsRules
from hearts_env.agents import arena_cli
from hearts_env.agents.beliefs import hand_start, log_likelihoods, play_order, resample
from hearts_env.agents.pimc import sample_worlds
from hearts_env.agents.pimc_ppo import PIMCPPOPolicy
from hearts_env.agents.specs import agent_from_spec, check_agents
from hearts_env.agents.trained import masked_softmax, shipped_policy
from hearts_env.core import PLAY, legal_mask, new_games, sample_actions, step
from hearts_env.infoset import infoset
from hearts_env.observation import observe

NO_PASS = HeartsRules(target_score=None, pass_cycle=("none",))


@pytest.fixture(scope="module")
def ppo():
    return shipped_policy()


def true_worlds(state) -> np.ndarray:
    """(B, 1, P) the real hands of every relative seat of the seat to act."""
    P = state.num_players
    seats = (state.to_play.astype(np.int64)[:, None] + np.arange(P)) % P
    return np.take_along_axis(state.hands, seats, axis=1)[:, None, :]


def test_plays_come_back_in_order_and_the_true_world_replays_to_the_position():
    rng = np.random.default_rng(3)
    state = new_games(HeartsRules(target_score=None), batch_size=16, seed=3, history=True)
    made: list[list[tuple[int, int]]] = [[] for _ in range(16)]
    for _ in range(12 + int(rng.integers(0, 40))):  # the 12 passing actions, then some plays
        cards = sample_actions(state, rng)
        for g in np.flatnonzero(state.phase == PLAY):
            made[g].append((int(state.to_play[g]), int(cards[g])))
        state = step(state, cards)
    info = infoset(state)
    seats, cards, count = play_order(info)
    for g in range(16):
        P, me = 4, int(state.to_play[g])
        want = [((s - me) % P, c) for s, c in made[g]]
        assert count[g] == len(want)
        assert list(zip(seats[g, : count[g]].tolist(), cards[g, : count[g]].tolist(), strict=True)) == want
        assert np.all(cards[g, count[g] :] == -1)
    start, games = hand_start(info, true_worlds(state)), np.arange(16)
    assert np.all(start.tricks_played == 0) and not start.hearts_broken.any() and np.all(start.taken == 0)
    for t in range(int(count.max()) + 1):
        done = count[games] == t  # these games' plays are all replayed: back at the real position
        for field in ("hands", "taken", "played", "voids", "to_play", "legal", "hearts_broken"):
            assert np.array_equal(getattr(start, field)[done], getattr(state, field)[games[done]]), field
        games, start = games[~done], start[~done]
        if not len(games):
            break
        assert np.all(start.to_play == (info.seat[games] + seats[games, t]) % 4)
        start = step(start, cards[games, t])
    assert not len(games)


def test_the_true_worlds_likelihood_is_the_networks_probability_of_every_play(ppo):
    floor, seed = 0.1, 5
    state = new_games(NO_PASS, batch_size=8, seed=seed, history=True)
    opened = np.zeros((8, 4))  # (game, absolute seat): log-probability of its plays so far
    for _ in range(int(np.random.default_rng(seed).integers(20, 45))):
        mask = legal_mask(state)
        seat = state.to_play.astype(np.int64)
        probs = masked_softmax(ppo.logits(observe(state, seat, ppo.layout)), mask)
        cards = ppo.act(observe(state, seat, ppo.layout), mask)
        choice = mask.sum(axis=1)
        p = probs[np.arange(8), cards]
        opened[np.arange(8), seat] += np.where(choice > 1, np.log((1 - floor) * p + floor / choice), 0)
        state = step(state, cards)
    me = state.to_play.astype(np.int64)
    want = opened.sum(axis=1) - opened[np.arange(8), me]  # the other seats' plays only
    got = log_likelihoods(infoset(state), true_worlds(state), ppo, floor=floor)[:, 0]
    assert np.all(want < -1)  # the plays carried information: the test compares real sums
    np.testing.assert_allclose(got, want, rtol=1e-4)


def test_a_world_that_breaks_a_past_play_weighs_nothing(ppo):
    """A seat that failed to follow a suit is handed a card of it in its world: the replay finds
    that discard illegal. The true worlds and the sampled ones are all possible."""
    rng = np.random.default_rng(7)
    state = new_games(NO_PASS, batch_size=64, seed=7, history=True)
    for _ in range(30):
        state = step(state, sample_actions(state, rng))
    info = infoset(state)
    truth = true_worlds(state)
    assert np.all(np.isfinite(log_likelihoods(info, truth, ppo)))
    assert np.all(np.isfinite(log_likelihoods(info, sample_worlds(info, 8, rng), ppo)))
    suits = np.uint64(0x1FFF) << (np.uint64(13) * np.arange(4, dtype=np.uint64))
    broken = truth.copy()
    games = []
    for g in range(64):  # find a void seat and another seat holding a card of that suit
        for r in range(1, 4):
            for s in range(4):
                other = [o for o in range(1, 4) if o != r and int(truth[g, 0, o] & suits[s])]
                if info.voids[g, r] >> s & 1 and other and int(truth[g, 0, r] & ~suits[s]):
                    give = int(truth[g, 0, other[0]] & suits[s]) & -int(truth[g, 0, other[0]] & suits[s])
                    take = int(truth[g, 0, r] & ~suits[s]) & -int(truth[g, 0, r] & ~suits[s])
                    broken[g, 0, r] ^= np.uint64(give | take)
                    broken[g, 0, other[0]] ^= np.uint64(give | take)
                    games.append(g)
                    break
            if games and games[-1] == g:
                break
    assert len(games) >= 5
    weights = log_likelihoods(info, broken, ppo)[:, 0]
    assert np.all(np.isneginf(weights[games]))
    assert np.all(np.isfinite(np.delete(weights, games)))


def test_resampling_keeps_worlds_in_proportion_to_their_weights():
    rng = np.random.default_rng(0)
    picks = resample(np.array([[0.0, -np.inf, np.log(3)], [0.0, 0.0, 0.0]]), 4, rng)
    assert sorted(picks[0].tolist()) == [0, 2, 2, 2]
    assert sorted(picks[1].tolist())[0] in (0, 1) and set(picks[1].tolist()) <= {0, 1, 2}
    many = resample(np.log(np.array([[1.0, 2.0, 7.0]])), 1000, rng)[0]
    np.testing.assert_array_equal(np.bincount(many, minlength=3), [100, 200, 700])
    lost = resample(np.full((1, 4), -np.inf), 8, rng)[0]
    np.testing.assert_array_equal(np.bincount(lost, minlength=4), [2, 2, 2, 2])


def test_pimc_ppo_with_beliefs_needs_the_history_and_a_large_enough_pool():
    with pytest.raises(ValueError, match="belief_worlds must be 0 or at least worlds"):
        PIMCPPOPolicy(worlds=16, belief_worlds=8)
    agent = PIMCPPOPolicy(worlds=8, belief_worlds=16, seed=0)
    rules = HeartsRules()
    with pytest.raises(ValueError, match="record their tricks"):
        check_agents(rules, [("pimc-ppo:belief_worlds=16", agent)])
    check_agents(rules, [("pimc-ppo:belief_worlds=16", agent)], history=True)


def test_pimc_ppo_with_beliefs_plays_legal_cards_reproducibly():
    rng = np.random.default_rng(11)
    state = new_games(HeartsRules(target_score=None), batch_size=12, seed=11, history=True)
    for _ in range(12 + 20):
        state = step(state, sample_actions(state, rng))
    info, mask = infoset(state), legal_mask(state)
    cards = [agent_from_spec("pimc-ppo:worlds=8,belief_worlds=32", 4)(info, mask) for _ in range(2)]
    assert np.all(mask[np.arange(12), cards[0]])
    np.testing.assert_array_equal(cards[0], cards[1])


def test_the_arena_records_the_history_for_an_agent_that_reads_it(capsys):
    arena_cli.main(["pimc-ppo:worlds=4,belief_worlds=8", "random", "random", "random", "--deals", "1", "--json", "-"])
    assert '"deals": 1' in capsys.readouterr().out
