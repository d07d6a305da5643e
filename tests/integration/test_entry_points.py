"""One check at every entry point: a seed that is no seed, a flag that is not a boolean; and
``hearts-compile``, which compiles the kernels behind every entry point once."""

from __future__ import annotations

import pytest

import hearts_env
from hearts_env import HeartsEnv, HeartsRules, HeartsVectorEnv
from hearts_env.agents import make_agent
from hearts_env.arena import play_match
from hearts_env.engine import seeding
from hearts_env.engine.core import new_games
from hearts_env.engine.observation import ObservationLayout
from hearts_env.play.policy import RandomPolicy

BAD_SEEDS = ["0", 1.0, 2.5, True, -1, None]


@pytest.mark.parametrize("seed", [s for s in BAD_SEEDS if s is not None])
def test_every_entry_point_refuses_a_seed_that_is_no_seed(seed) -> None:
    calls = [
        lambda: new_games(HeartsRules(), batch_size=1, seed=seed),
        lambda: seeding.game_keys(seed, 0),
        lambda: play_match(None, [RandomPolicy(0)] * 4, deals=1, seed=seed),
        lambda: RandomPolicy(seed),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="seed must be"):
            call()


@pytest.mark.parametrize(
    "build",
    [
        lambda v: HeartsEnv(history=v),
        lambda v: HeartsVectorEnv(2, history=v),
        lambda v: hearts_env.env(history=v),
        lambda v: new_games(HeartsRules(), batch_size=1, history=v),
        lambda v: ObservationLayout(HeartsRules(), v),
        lambda v: play_match(None, [RandomPolicy(0)] * 4, deals=1, history=v),
        lambda v: make_agent("heuristic", shoot_moon=v),
        lambda v: make_agent("ppo", sample=v),
    ],
)
def test_flags_must_be_true_or_false(build) -> None:
    for value in ("no", 1, 0, None, "False"):
        with pytest.raises(ValueError, match="must be True or False"):
            build(value)


def test_hearts_compile_says_what_it_compiles(capsys: pytest.CaptureFixture[str]) -> None:
    from hearts_env.agents.cli import FIRST_MATCH, compile_kernels

    compile_kernels([])
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("hearts-compile: the engine and the environments (a first game)... ")
    assert lines[1].startswith(f"hearts-compile: the agents ({', '.join(FIRST_MATCH)})... ")
    assert lines[2].startswith("hearts-compile: the bot protocol (hearts-bot, the program agent, the ladder)... ")
    assert lines[3] == "hearts-compile: done; later runs load the kernels from the cache"


def test_hearts_compile_without_a_cache_folder_says_so_in_one_line(monkeypatch, capsys) -> None:
    from hearts_env.agents.cli import compile_kernels
    from hearts_env.engine import compiled

    monkeypatch.setattr(compiled, "no_lasting_cache", "cannot write /x/hearts_env (Not a directory)")
    with pytest.raises(SystemExit) as end:
        compile_kernels([])
    assert end.value.code == (
        "hearts-compile: error: nowhere to keep the kernels: cannot write /x/hearts_env (Not a directory);"
        " set XDG_CACHE_HOME to a writable folder"
    )
