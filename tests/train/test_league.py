"""The training league: draw probabilities from the learner's results, the moving average, the
snapshots kept, seeded draws, its settings (a run against league seats: tests/train/test_train.py)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from hearts_env.play.policy import RandomPolicy  # noqa: E402
from hearts_env.train.config import StartError  # noqa: E402
from hearts_env.train.ppo import PPOConfig, main, make_opponents  # noqa: E402
from hearts_env.train.ppo.league import SMOOTHING, League  # noqa: E402


def _league(size: int = 8, temperature: float = 1.0, seed: int = 0) -> League:
    return League([("a", RandomPolicy(0)), ("b", RandomPolicy(1))], size, temperature, seed)


def test_members_the_learner_does_worse_against_are_drawn_more() -> None:
    league = _league(temperature=2.0)
    league.agents[0].mean_return, league.agents[1].mean_return = -1.0, 3.0
    p = league.probabilities()
    assert p[0] / p[1] == pytest.approx(math.exp(4.0 / 2.0))
    assert p.sum() == pytest.approx(1.0)


def test_a_member_never_drawn_counts_as_the_hardest() -> None:
    league = _league()
    league.agents[0].mean_return = -2.0
    league.agents[1].mean_return = 1.0
    league.add_snapshot("new", RandomPolicy(2))
    p = league.probabilities()
    assert p[2] == pytest.approx(p[0]) and p[2] > p[1]
    assert np.allclose(_league().probabilities(), 0.5)  # nothing known: uniform


def test_a_result_is_credited_once_to_each_seated_member() -> None:
    league = _league()
    first, second = league.seat(), league.seat()
    first.member = second.member = league.agents[0]
    league.record(2.0)
    league.record(-1.0)
    assert league.agents[0].mean_return == pytest.approx((1 - SMOOTHING) * 2.0 + SMOOTHING * -1.0)
    assert league.agents[0].rollouts == 2
    assert league.agents[1].mean_return is None and league.agents[1].rollouts == 0


def test_the_league_keeps_the_latest_snapshots() -> None:
    league = _league(size=2)
    for k in range(4):
        league.add_snapshot(f"s{k}", RandomPolicy(k))
    assert [m.name for m in league.members] == ["a", "b", "s2", "s3"]


def _draws(seed: int, times: int = 4000) -> tuple[list[str], League]:
    """The members a seat of a two-agent league draws ``times`` times (returns 0 and 1 known)."""
    league = _league(seed=seed)
    league.agents[0].mean_return, league.agents[1].mean_return = 0.0, 1.0
    seat = league.seat()
    names = []
    for _ in range(times):
        league.draw()
        names.append(seat.member.name)
    return names, league


def test_draws_follow_the_probabilities_and_the_seed() -> None:
    names, league = _draws(seed=5)
    assert np.mean(np.array(names) == "a") == pytest.approx(league.probabilities()[0], abs=0.03)
    assert _draws(seed=5)[0] == names


def test_a_seat_plays_only_after_a_draw() -> None:
    seat = _league().seat()
    with pytest.raises(RuntimeError, match="no league member drawn"):
        seat(None, np.ones((1, 52), bool))


@pytest.mark.parametrize(
    ("settings", "fragment"),
    [
        ({"league_agents": ["nobody"]}, "league_agents: unknown 'nobody'"),
        ({"league_size": 0}, "league_size must be >= 1"),
        ({"league_temperature": 0.0}, "league_temperature must be > 0"),
    ],
)
def test_league_settings_are_checked(settings: dict, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        PPOConfig(**settings)


def test_league_agents_are_specs_with_options(tmp_path: Path) -> None:
    config = PPOConfig(opponents=["league"], league_agents=["pimc:worlds=2", "heuristic"], bc_teacher="")
    league = make_opponents(config).league
    assert [m.name for m in league.agents] == ["pimc:worlds=2", "heuristic"]
    assert league.agents[0].policy.worlds == 2
    bad = PPOConfig(opponents=["league"], league_agents=["pimc:wrlds=2"], run_dir=str(tmp_path), bc_teacher="")
    with pytest.raises(StartError, match="pimc:wrlds=2"):
        main(bad)
    assert not any(tmp_path.iterdir())  # refused before the run folder
