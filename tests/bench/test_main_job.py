"""The main job (``hearts_env.bench.main_job``) end to end at a smoke-sized budget, and the shipped agent."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tiny_runs import tiny_run

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

from hearts_env.agents import make_agent  # noqa: E402
from hearts_env.agents.learned.trained import SHIPPED_DIR, TrainedPolicy  # noqa: E402
from hearts_env.arena import play_match  # noqa: E402
from hearts_env.bench import load  # noqa: E402
from hearts_env.bench.bench_report import format_report  # noqa: E402
from hearts_env.bench.main_job import MainJobConfig, format_results, main  # noqa: E402
from hearts_env.engine.core import legal_mask, new_games, sample_actions, step  # noqa: E402
from hearts_env.engine.infoset import infoset  # noqa: E402
from hearts_env.engine.records import concatenate
from hearts_env.engine.rules import HeartsRules  # noqa: E402
from hearts_env.play.policy import PhaseSplit, RandomPolicy  # noqa: E402
from hearts_env.train.config import parse_config  # noqa: E402


@pytest.mark.training
def test_main_job_trains_benchmarks_and_plots(tmp_path: Path, tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = tiny_run(tmp_path, bc_decisions=3000, eval_every=512, baselines=["random", "heuristic"], deals=12)
    config = MainJobConfig(**settings, bench_suite=str(tiny))
    folder = main(config)
    for name in ("benchmark.json", "learning_curve.png", "points_by_opponent.png", "policy.npz", "eval.json"):
        assert (folder / name).is_file(), name
    results = json.loads((folder / "benchmark.json").read_text())
    assert set(results) == {"new", "ppo"} and set(results["new"]) == {"random", "heuristic"}
    assert results["ppo"]["heuristic"]["deals"] == 12
    printed = capsys.readouterr().out
    assert format_results(results) in printed
    assert "steps/s overall" in printed
    report = load(folder / "bench" / "report.json")  # the new agent on the suite's quick tracks, test split
    assert (report["suite"], report["split"], report["setting"]) == ("tiny", "test", "quick")
    assert report["candidate"]["spec"] == f"trained:path={folder}" and report["candidate"]["name"] == "new"
    assert report["tracks"]["standard"]["status"] == "played"
    assert format_report(report) in printed


def test_benchmark_flags_parse() -> None:
    config = parse_config(MainJobConfig, ["--baselines", "random", "simple", "--deals", "50"], "x", "")
    assert config.baselines == ["random", "simple"] and config.deals == 50
    assert config.bc_teacher == "heuristic"


def test_shipped_agent_is_small_and_documented() -> None:
    folder = SHIPPED_DIR / "ppo"
    sizes = sum(p.stat().st_size for p in folder.iterdir())
    assert sizes < 5_000_000
    meta = json.loads((folder / "policy.json").read_text())
    origin = meta["trained_on"]
    while "from" in origin:  # rounds of expert iteration, back to the PPO run they started from
        origin = origin["from"]
    assert origin["algorithm"] == "MaskablePPO" and origin["timesteps"] >= 1_000_000
    assert "python -m hearts_env.train.ppo" in (folder / "README.md").read_text()
    assert isinstance(make_agent("ppo"), TrainedPolicy)


def test_shipped_agent_beats_three_random_players() -> None:
    result = play_match(
        None, [("ppo", make_agent("ppo"))] + [("random", RandomPolicy(1))] * 3, deals=300, seed=11, episode="hand"
    )
    difference = result.difference("ppo")
    assert difference.high < 0, difference  # fewer points per hand than the field, 95% interval clear of 0
    assert result.estimate("ppo").mean < 4


def test_phase_split_passes_with_one_policy_and_plays_with_the_other() -> None:
    ppo, heuristic = make_agent("ppo"), make_agent("heuristic")
    mixed = PhaseSplit(heuristic, ppo)
    rules = HeartsRules()
    rng = np.random.default_rng(0)
    passing = new_games(rules, 32, seed=2)
    playing = passing
    for _ in range(20):  # the 12 passes, then 8 cards of play
        playing = step(playing, sample_actions(playing, rng))
    a, b = infoset(passing), infoset(playing)
    info = concatenate([a, b])
    mask = np.concatenate([legal_mask(passing), legal_mask(playing)])
    cards = mixed(info, mask)
    np.testing.assert_array_equal(cards[:32], heuristic(a, mask[:32]))
    np.testing.assert_array_equal(cards[32:], ppo(b, mask[32:]))
    np.testing.assert_array_equal(mixed(a, mask[:32]), cards[:32])  # all passing: one call


@pytest.mark.parametrize("name", ["ppo", "ppo-random-pass", "ppo-heuristic-pass"])
def test_shipped_agent_plays_whole_games_legally(name: str) -> None:
    agent = make_agent(name, seed=0)
    state = new_games(HeartsRules(), 32, seed=5)
    while not state.done.all():
        live = ~state.done
        cards = np.zeros(32, np.int64)
        rows = np.flatnonzero(live)
        cards[rows] = agent(infoset(state[rows]), legal_mask(state[rows]))
        state = step(state, cards)  # raises on an illegal card
    assert state.hand_number.min() >= 2


def test_shipped_agent_decides_a_batch_as_each_game_alone() -> None:
    agent = make_agent("ppo")
    rng = np.random.default_rng(0)
    state = new_games(HeartsRules(), 16, seed=6)
    for _ in range(30):
        state = step(state, sample_actions(state, rng))
    together = agent(infoset(state), legal_mask(state))
    alone = [int(agent(infoset(state[g]), legal_mask(state[g]))[0]) for g in range(16)]
    np.testing.assert_array_equal(together, alone)
