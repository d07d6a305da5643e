"""Tests of the belief model (``hearts_env.agents.search.belief``) and of the searches' inference option.

* The shipped model: per card a distribution over the other seats, next to nothing on a seat
  known void in the card's suit, and better than the uniform spread on its own (log loss) over
  states of games it never saw.
* Its files are untrusted input: missing, of another format, or of the wrong shapes, refused in
  one line.
* ``pimc`` and ``pimc-ppo`` with ``inference=belief``: legal cards, reproducible with a seed, the
  option refused in one line when unknown or on a table the model was not trained for.
* The trainer end to end at a tiny size (``training``).
"""

from __future__ import annotations

import hashlib
import json
import shutil

import numpy as np
import pytest

from hearts_env import HeartsRules
from hearts_env.agents.rule_based.heuristic import HeuristicPolicy
from hearts_env.agents.search.belief import SHIPPED, BeliefModel, belief_for
from hearts_env.agents.specs import agent_from_spec, check_agents
from hearts_env.engine.cards import NUM_CARDS
from hearts_env.engine.core import PLAY, new_games, sample_actions, step
from hearts_env.engine.infoset import infoset
from hearts_env.engine.records import concatenate
from hearts_env.play.runner import play

_U64 = np.uint64
_ALL = np.arange(NUM_CARDS, dtype=_U64)


def play_phase_infosets(batch: int, seed: int, steps: int):
    """Info sets of the seat to act in ``batch`` random 4-player hands after ``steps`` random steps."""
    rules = HeartsRules(target_score=None)
    rng = np.random.default_rng(seed)
    state = new_games(rules, batch_size=batch, seed=seed)
    for _ in range(steps):
        state = step(state, sample_actions(state, rng))
    assert np.all(state.phase == PLAY)
    return state, infoset(state)


def test_the_shipped_model_gives_a_distribution_that_respects_voids():
    state, info = play_phase_infosets(256, seed=4, steps=12 + 30)
    p = BeliefModel.load().marginals(info)
    assert p.shape == (256, 4, NUM_CARDS) and np.all(p[:, 0] == 0)
    np.testing.assert_allclose(p[:, 1:].sum(axis=1), 1.0, rtol=1e-6)
    suit_of = np.arange(NUM_CARDS) // 13
    void = (info.voids[:, 1:, None] >> suit_of) & 1  # (B, 3, 52): the seat is known void in the card's suit
    unseen = ((info.unseen[:, None] >> _ALL) & _U64(1)).astype(bool)[:, None, :]
    assert (void.astype(bool) & unseen).sum() > 100  # random play leaves many known voids
    assert p[:, 1:][void.astype(bool) & unseen].mean() < 0.05


def test_the_shipped_model_beats_the_even_spread_on_fresh_games():
    """Log loss of the true holder of each unseen card over fresh hands of heuristic players (one
    of the agents it learned from): the model's marginals against an even split over the seats
    not known void. (Against players it never saw, random ones, it is no better: it reads how its
    training agents play.)"""
    states = []

    def keep(step) -> None:
        if step.state.phase[0] == PLAY and step.state.tricks_played[0] in (3, 6, 9):
            states.append(step.state)

    play(new_games(HeartsRules(target_score=None), batch_size=64, seed=77), [HeuristicPolicy()] * 4, on_step=keep)
    state = concatenate(states)
    info = infoset(state)
    p = BeliefModel.load().marginals(info)
    P = 4
    rel = np.take_along_axis(state.hands, (state.to_play.astype(np.int64)[:, None] + np.arange(P)) % P, axis=1)
    holds = ((rel[:, :, None] >> _ALL) & _U64(1)).astype(bool)  # (B, P, 52)
    unseen = holds[:, 1:].any(axis=1) & ~((info.passed[:, None] >> _ALL) & _U64(1)).astype(bool)
    b, c = np.nonzero(unseen)
    owner = holds[b, :, c].argmax(axis=1)
    open_ = 1 - ((info.voids[b, :] >> (c // 13)[:, None]) & 1)  # (n, P): seats not known void in the suit
    open_[:, 0] = 0
    even = open_[np.arange(len(b)), owner] / open_.sum(axis=1)
    assert -np.log(p[b, owner, c]).mean() < -np.log(even).mean() - 0.02


def test_the_shipped_weights_are_the_ones_recorded():
    meta = json.loads((SHIPPED / "belief.json").read_text())
    assert hashlib.sha256((SHIPPED / "belief.npz").read_bytes()).hexdigest() == meta["weights_sha256"]


def test_the_model_files_are_untrusted_input(tmp_path):
    with pytest.raises(ValueError, match="missing file"):
        BeliefModel.load(tmp_path)
    folder = tmp_path / "copy"
    shutil.copytree(SHIPPED, folder)
    meta = json.loads((folder / "belief.json").read_text())
    (folder / "belief.json").write_text(json.dumps(meta | {"format": "other"}))
    with pytest.raises(ValueError, match="format 'other'"):
        BeliefModel.load(folder)
    (folder / "belief.json").write_text(json.dumps(meta | {"layers": meta["layers"][1:]}))
    with pytest.raises(ValueError, match="belief model: .*layer"):
        BeliefModel.load(folder)
    (folder / "belief.json").write_text(json.dumps(meta))
    arrays = dict(np.load(folder / "belief.npz"))
    np.savez(folder / "belief.npz", **(arrays | {"scale": arrays["scale"][:-1]}))
    with pytest.raises(ValueError, match="scale has shape"):
        BeliefModel.load(folder)
    np.savez(folder / "belief.npz", **(arrays | {"scale": np.array([object()] * len(arrays["scale"]))}))
    with pytest.raises(ValueError, match="belief.npz"):
        BeliefModel.load(folder)


@pytest.mark.parametrize("spec", ["pimc:worlds=4,inference='belief'", "pimc-ppo:worlds=4,inference=belief"])
def test_searches_with_inference_play_legal_cards_reproducibly(spec):
    rules = HeartsRules(target_score=None)
    finals = []
    for _ in range(2):
        agent = agent_from_spec(spec, seed=5)
        assert "inference='belief'" in repr(agent)
        finals.append(play(new_games(rules, batch_size=4, seed=2), [agent] * 4, until="hand"))
    np.testing.assert_array_equal(finals[0].taken, finals[1].taken)
    assert np.all(finals[0].hand_over | (finals[0].phase != PLAY))


def test_the_inference_option_is_checked():
    with pytest.raises(ValueError, match="inference must be one of none, belief, got 'maybe'"):
        agent_from_spec("pimc:inference=maybe", seed=0)
    assert belief_for("none") is None
    three = HeartsRules(num_players=3)
    with pytest.raises(ValueError, match="cannot play these rules: .*belief model"):
        check_agents(three, [("pimc:inference=belief", agent_from_spec("pimc:inference=belief", seed=0))])


def test_the_default_searches_use_no_belief():
    for spec in ("pimc", "pimc-ppo"):
        assert agent_from_spec(spec, seed=0).belief is None


@pytest.mark.training
def test_the_trainer_end_to_end(tmp_path, capsys):
    from hearts_env.train.distill.belief import BeliefConfig, main

    config = BeliefConfig(
        hands=300, epochs=1, eval_worlds=4, agents=["heuristic", "random"], run_dir=str(tmp_path), progress_bar=False
    )
    folder = main(config)
    model = BeliefModel.load(folder)
    _, info = play_phase_infosets(2, seed=1, steps=20)
    assert model.weights(info).shape == (2, 4, NUM_CARDS)
    metrics = json.loads((folder / "belief.json").read_text())["trained_on"]["metrics"]
    assert metrics["held_out"] > 0 and {"model", "uniform_sampler", "belief_sampler"} <= set(metrics)
    assert metrics["uniform_sampler"]["log_loss"] < np.log(3)  # the hard facts alone beat an even split
    again = BeliefConfig(hands=8, agents=["heuristic"], eval_worlds=4, evaluate=str(folder), progress_bar=False)
    measured = main(again)
    assert measured == folder and "belief_sampler" in capsys.readouterr().out
