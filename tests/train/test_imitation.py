"""Behaviour cloning (``hearts_env.train.ppo.imitation``): the recorded decisions and their returns, and that
pretraining makes a policy play the teacher's cards."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from hearts_env.agents import make_agent  # noqa: E402
from hearts_env.engine.observation import ObservationLayout  # noqa: E402
from hearts_env.engine.rules import HeartsRules  # noqa: E402
from hearts_env.train import cli as train_cli  # noqa: E402
from hearts_env.train.ppo import PPOConfig, build_model  # noqa: E402
from hearts_env.train.ppo.imitation import collect, pretrain  # noqa: E402

RULES = HeartsRules()


@pytest.fixture(scope="module")
def demos_by_mode():
    teacher = make_agent("heuristic")
    return {
        mode: collect(RULES, teacher, 9000, seed=7, num_games=32, reward=mode)
        for mode in ("points", "hand", "zero_sum")
    }


def _groups(demos):
    """(hand, seat) -> row indices."""
    keys = demos.hands * 16 + demos.seats
    return [np.flatnonzero(keys == k) for k in np.unique(keys)]


def test_every_recorded_decision_is_legal_and_complete(demos_by_mode) -> None:
    demos = demos_by_mode["hand"]
    layout = ObservationLayout(RULES)
    assert len(demos) >= 7000 and demos.observations.shape == (len(demos), layout.size)
    assert demos.masks[np.arange(len(demos)), demos.actions].all(), "the teacher's card is legal"
    np.testing.assert_array_equal(layout.split(demos.observations)["legal"].astype(bool), demos.masks)
    sizes = {len(rows) for rows in _groups(demos)}
    assert sizes <= {13, 16}, "only whole hands: 13 plays, plus 3 passes in passing hands"
    assert 16 in sizes and 13 in sizes


def test_returns_follow_the_reward_mode(demos_by_mode) -> None:
    hand, points, zero_sum = (demos_by_mode[m] for m in ("hand", "points", "zero_sum"))
    np.testing.assert_array_equal(points.actions, hand.actions)  # a deterministic teacher, same deals
    scores = {}
    for rows in _groups(hand):
        assert np.all(hand.returns[rows] == hand.returns[rows[0]]), "hand: minus the hand score, from every decision"
        scores[hand.hands[rows[0]], hand.seats[rows[0]]] = -hand.returns[rows[0]]
        # points: the first decision of the hand sees every trick's points still to come
        assert points.returns[rows[0]] == hand.returns[rows[0]]
        # later decisions are owed only the points still to come (points taken are never negative)
        assert np.all(np.diff(points.returns[rows]) >= 0)
    totals = {}
    for (h, _), score in scores.items():
        totals[h] = totals.get(h, 0) + score
    assert set(totals.values()) <= {26, 78}, "a hand's scores sum to 26 (or 78 after a moon)"
    by_hand = {}
    for rows in _groups(zero_sum):
        by_hand.setdefault(zero_sum.hands[rows[0]], []).append(zero_sum.returns[rows[0]])
    for values in by_hand.values():
        assert abs(sum(values)) < 1e-4, "zero_sum returns of a hand sum to 0"


@pytest.mark.training
def test_pretraining_imitates_the_teacher(demos_by_mode) -> None:
    demos = demos_by_mode["points"]
    config = PPOConfig(net_arch="64,64", num_envs=2, rules=RULES)
    from hearts_env.envs.gym_env import HeartsVectorEnv
    from hearts_env.envs.sb3 import SB3VecEnv

    model = build_model(config, SB3VecEnv(HeartsVectorEnv(2, RULES)))
    before = pretrain(model.policy, demos, epochs=0, seed=0)
    after = pretrain(model.policy, demos, epochs=20, batch_size=256, seed=0)
    assert after["bc/holdout_accuracy"] > before["bc/holdout_accuracy"] + 0.2
    assert after["bc/holdout_action_loss"] < before["bc/holdout_action_loss"]
    assert after["bc/holdout_value_loss"] < before["bc/holdout_value_loss"]


class _LowestCard:
    """A deterministic teacher: the lowest legal card."""

    def __call__(self, info, mask):
        return mask.argmax(axis=1)


def test_a_mixed_in_player_plays_while_the_teachers_card_is_recorded() -> None:
    teacher = _LowestCard()
    own = collect(RULES, teacher, 3000, seed=5, num_games=16)
    runs = {
        share: collect(
            RULES, teacher, 3000, seed=5, num_games=16, player=make_agent("random", seed=0), player_share=share
        )
        for share in (0.5, 1.0)
    }
    for mixed in runs.values():
        # every label is the teacher's card in the position reached ...
        np.testing.assert_array_equal(mixed.actions, mixed.masks.argmax(axis=1))
        # ... but the positions are the ones the player's cards led to
        n = min(len(own), len(mixed))
        assert (mixed.observations[:n] != own.observations[:n]).any(axis=1).mean() > 0.5
    n = min(len(runs[0.5]), len(runs[1.0]))
    assert (runs[0.5].observations[:n] != runs[1.0].observations[:n]).any(axis=1).mean() > 0.5
    again = collect(RULES, teacher, 3000, seed=5, num_games=16, player=make_agent("random", seed=0), player_share=0.5)
    np.testing.assert_array_equal(again.observations, runs[0.5].observations)  # the mix is drawn from the seed


def test_a_mixed_in_player_is_checked() -> None:
    with pytest.raises(ValueError, match="player_share must be in"):
        collect(RULES, _LowestCard(), 10, player=make_agent("random"), player_share=1.5)
    with pytest.raises(ValueError, match="needs a player"):
        collect(RULES, _LowestCard(), 10, player_share=0.5)


# ---------------------------------------------------------------------------------------------
# The collector's counts, and a tiny cloning run


def test_collect_gives_at_least_what_is_asked() -> None:
    for asked in (1, 10, 100):
        demos = collect(HeartsRules(), make_agent("random", seed=0), asked, seed=1)
        assert len(demos) >= asked
        assert np.isfinite(demos.returns).all()
    for bad in (0, -5, 2.5):
        with pytest.raises(ValueError, match="decisions must be an int >= 1"):
            collect(HeartsRules(), make_agent("random"), bad)
    with pytest.raises(ValueError, match="num_games must be an int >= 1"):
        collect(HeartsRules(), make_agent("random"), 10, num_games=0)
    with pytest.raises(ValueError, match="gives no card values"):
        collect(HeartsRules(), make_agent("random"), 10, values=True)


def test_the_collection_s_progress_stops_at_its_target(capsys) -> None:
    demos = collect(HeartsRules(), make_agent("random", seed=0), 100, seed=1, progress=True)
    assert len(demos) > 100  # the last hands carry the count past the target
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("collect: 100% (100 / 100 decisions)"), last


@pytest.mark.training
@pytest.mark.slow
def test_a_tiny_behaviour_cloning_run_trains_and_a_failing_one_leaves_no_folder(tmp_path: Path, monkeypatch) -> None:
    from hearts_env.train.ppo import trainer as ppo

    runs = tmp_path / "runs"
    argv = ["--bc-teacher", "random", "--bc-decisions", "10", "--total-timesteps", "64", "--num-envs", "2"]
    argv += ["--n-steps", "32", "--batch-size", "32", "--eval-deals", "2", "--net-arch", "8", "--run-dir", str(runs)]
    argv += ["--progress-bar", "false"]
    train_cli.ppo(argv)
    assert len(list(runs.iterdir())) == 1

    def broken(*args, **kwargs):
        raise RuntimeError("the cloning failed")

    monkeypatch.setattr(ppo, "imitate", broken)
    with pytest.raises(RuntimeError):
        ppo.main(ppo.parse_args([*argv, "--exp-name", "broken"]))
    assert len(list(runs.iterdir())) == 1  # the failed run left nothing
