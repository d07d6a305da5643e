"""Scaling out with Ray: the arena's blocks of deals played anywhere give exactly the local numbers
(a thread pool here, Ray tasks on a local Ray), the RLlib vector-env wrapper, and
``hearts_env.train.libraries.rllib_ppo``: one PPO iteration in each mode (self-play, named opponents) whose export
plays through ``make_agent("trained", ...)`` without torch and computes the RLlib module's
logits. Tests that need Ray or RLlib are skipped where they are not installed; each Ray started
here is shut down by its fixture."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import hearts_env
from hearts_env.agents import make_agent
from hearts_env.agents.cli import main as arena_main
from hearts_env.arena import MatchResult, play_match, round_robin
from hearts_env.engine import seeding
from hearts_env.engine.rules import HeartsRules
from hearts_env.envs.gym_env import HeartsVectorEnv
from hearts_env.envs.rllib import TABLE_SEEDS, MaskedFloatObservations, MaskedFloatVectorObservations
from hearts_env.play.policy import RandomPolicy

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be"),
]

OUTCOMES = ("deal_keys", "hands", "scores", "wins", "qs", "moons")


def same_outcomes(a: MatchResult, b: MatchResult) -> bool:
    same = all(np.array_equal(getattr(a, name), getattr(b, name)) for name in OUTCOMES)
    same_directions = (a.directions is None and b.directions is None) or np.array_equal(a.directions, b.directions)
    return same and same_directions and a.names == b.names and a.block == b.block


def numbers(summary: dict) -> dict:
    """A summary without its timings."""
    return {k: v for k, v in summary.items() if k not in ("seconds", "hands_per_second")}


def mixed_table() -> list:
    """Two agents that draw random numbers (one at two seats) and a deterministic one."""
    shared = RandomPolicy()
    return [("random", shared), ("heuristic", make_agent("heuristic")), ("random", shared), ("other", RandomPolicy())]


# ---------------------------------------------------------------------------------------------
# The arena in blocks, without Ray


@pytest.mark.parametrize("episode", ["hand", "game"])
def test_blocks_played_elsewhere_give_the_local_numbers(episode):
    deals = 18 if episode == "hand" else 5
    local = play_match(None, mixed_table(), deals=deals, seed=4, episode=episode, block=4)
    with ThreadPoolExecutor(3) as pool:  # blocks run side by side, each on its own copy of the agents
        pooled = play_match(None, mixed_table(), deals=deals, seed=4, episode=episode, block=4, executor=pool)
    assert same_outcomes(local, pooled)
    assert numbers(local.summary()) == numbers(pooled.summary())


@pytest.mark.processes
def test_blocks_in_other_processes_give_the_local_numbers():
    """The agents travel by pickle: a trained policy and a search agent included."""
    table = [("ppo", make_agent("ppo")), ("pimc", make_agent("pimc-random", worlds=2)), *mixed_table()[:2]]
    local = play_match(None, table, deals=6, seed=8, episode="hand", block=3)
    with ProcessPoolExecutor(2) as pool:
        pooled = play_match(None, table, deals=6, seed=8, episode="hand", block=3, executor=pool)
    assert same_outcomes(local, pooled)


def test_block_size_matters_only_to_agents_that_draw_random_numbers():
    def run(agents, block):
        return play_match(None, agents, deals=12, seed=2, episode="hand", block=block)

    deterministic = [("heuristic", make_agent("heuristic")), ("simple", make_agent("simple"))] * 2
    assert np.array_equal(run(deterministic, 5).scores, run(deterministic, 100).scores)
    assert not np.array_equal(run(mixed_table(), 5).scores, run(mixed_table(), 100).scores)
    assert run(mixed_table(), 5).summary()["block"] == 5


def test_block_zero_is_the_whole_match_up_to_one_block():
    """Agents are reseeded for block b from (seed, b): a match within one block plays as its first
    block does in any longer match."""
    short = play_match(None, mixed_table(), deals=8, seed=9, episode="hand", block=8)
    longer = play_match(None, mixed_table(), deals=20, seed=9, episode="hand", block=8)
    assert np.array_equal(short.scores, longer.scores[:8]) and np.array_equal(short.qs, longer.qs[:8])


def test_round_robin_blocks_elsewhere():
    entries = [("r1", RandomPolicy()), ("r2", RandomPolicy()), ("heuristic", make_agent("heuristic"))]
    entries.append(("simple", make_agent("simple")))
    entries.append(("r3", RandomPolicy()))
    local = round_robin(None, entries, deals=6, seed=1, episode="hand", ratings=False, block=4)
    with ThreadPoolExecutor(2) as pool:
        pooled = round_robin(None, entries, deals=6, seed=1, episode="hand", ratings=False, block=4, executor=pool)
    assert len(local.matches) == 5
    assert all(same_outcomes(a, b) for a, b in zip(local.matches, pooled.matches, strict=True))
    assert numbers(local.summary()) == numbers(pooled.summary())


def test_bad_block_is_refused():
    with pytest.raises(ValueError, match="block must be a positive int, got 0"):
        play_match(None, mixed_table(), deals=4, block=0)


@pytest.mark.processes
def test_scale_out_code_imports_ray_only_when_used():
    code = (
        "import sys, hearts_env.arena.sharding, hearts_env.agents.cli, hearts_env.envs.rllib, "
        "hearts_env.envs.sharded, hearts_env.train.ppo, hearts_env.train.distill.expert_iteration; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'ray'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------------------------------------
# The arena as Ray tasks


def test_sharded_match_and_round_robin_give_the_local_numbers(local_ray):
    from hearts_env.arena.sharding import RayExecutor

    ray_tasks = RayExecutor()  # Ray is running: used as it is, left running
    assert not ray_tasks.started
    local = play_match(None, mixed_table(), deals=22, seed=7, episode="hand", block=5)
    sharded = play_match(None, mixed_table(), deals=22, seed=7, episode="hand", block=5, executor=ray_tasks)
    assert same_outcomes(local, sharded)
    assert numbers(local.summary()) == numbers(sharded.summary())

    entries = [("r1", RandomPolicy()), ("r2", RandomPolicy()), ("heuristic", make_agent("heuristic"))]
    entries.append(("simple", make_agent("simple")))
    rr_local = round_robin(None, entries, deals=3, seed=3, episode="game", tables=2, ratings=False, block=2)
    rr_ray = round_robin(
        None, entries, deals=3, seed=3, episode="game", tables=2, ratings=False, block=2, executor=ray_tasks
    )
    assert all(same_outcomes(a, b) for a, b in zip(rr_local.matches, rr_ray.matches, strict=True))
    assert numbers(rr_local.summary()) == numbers(rr_ray.summary())
    ray_tasks.shutdown()
    assert local_ray.is_initialized()


def test_cli_ray_gives_the_local_numbers(local_ray, tmp_path, capsys):
    argv = ["random", "ppo", "random", "pimc-random:worlds=2", "--deals", "6", "--episode", "hand"]
    argv += ["--block", "2", "--seed", "5"]
    arena_main([*argv, "--json", str(tmp_path / "local.json")])
    arena_main([*argv, "--ray", "--json", str(tmp_path / "ray.json")])
    local, sharded = (json.loads((tmp_path / f"{name}.json").read_text()) for name in ("local", "ray"))
    assert numbers(local) == numbers(sharded) and local["block"] == 2
    assert local_ray.is_initialized()  # --ray used the running Ray and left it alone


def test_cli_ray_without_ray_installed(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    with pytest.raises(SystemExit):
        arena_main(["random", "random", "random", "random", "--deals", "2", "--ray"])
    assert '--ray needs Ray: pip install -e ".[ray]"' in capsys.readouterr().err


@pytest.mark.processes
def test_commands_refuse_an_address_where_nothing_answers(tmp_path):
    """One line naming the problem, at once, before any work (Ray itself would retry for minutes)."""
    pytest.importorskip("ray")
    commands = {
        "hearts_env.agents.cli": ["random", "random", "random", "random", "--deals", "2", "--ray", "127.0.0.1:1"],
        "hearts_env.train.libraries.rllib_ppo": ["--address", "127.0.0.1:1", "--run-dir", str(tmp_path)],
    }
    for module, argv in commands.items():
        out = subprocess.run([sys.executable, "-m", module, *argv], capture_output=True, text=True, timeout=120)
        assert out.returncode != 0
        last = out.stderr.strip().splitlines()[-1]
        assert "cannot join the Ray cluster at 127.0.0.1:1: nothing answers at 127.0.0.1:1" in last, out.stderr
    assert not list(tmp_path.iterdir())


# ---------------------------------------------------------------------------------------------
# The RLlib environments (no Ray needed)


def test_vector_wrapper_observations_masks_and_seeds():
    knobs = dict(autoreset_mode=AutoresetMode.NEXT_STEP, target_score=None, learner_seat="rotate")
    envs = HeartsVectorEnv(6, **knobs)
    wrapped = MaskedFloatVectorObservations(envs)
    assert wrapped.single_observation_space["action_mask"].dtype == np.int8
    obs, info = wrapped.reset(seed=3)
    assert info == {} and wrapped.observation_space.contains(obs)
    # table i is seeded from (3, i), not 3 + i, which another env runner's tables use
    seeds = [int(s) for s in seeding.derive(3, TABLE_SEEDS, np.arange(6)) >> np.uint64(1)]
    raw, _ = HeartsVectorEnv(6, **knobs).reset(seed=seeds)
    assert np.array_equal(obs["observations"], raw * envs.layout.scale())
    assert np.array_equal(obs["action_mask"], envs.action_masks().astype(np.int8))
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(40):
        actions = (rng.random((6, 52)) * np.maximum(obs["action_mask"], 1e-9)).argmax(axis=1)
        obs, rewards, terminations, truncations, info = wrapped.step(actions)
        assert info == {} and not truncations.any()
        assert not obs["action_mask"][terminations].any()  # the final observation: nothing legal
        ended += terminations.sum()
    assert ended >= 6
    with pytest.raises(ValueError, match="autoreset_mode=AutoresetMode.NEXT_STEP"):
        MaskedFloatVectorObservations(HeartsVectorEnv(2))


def test_self_play_tables_of_different_runners_play_different_games():
    """RLlib seeds table i of runner w with s + w + i: (s, w) picks the game, so runner 1's second
    table (seed s + 2) and runner 2's first (seed s + 2) deal different cards."""

    def first_hand(seed, runner):
        table = MaskedFloatObservations(hearts_env.env(), table=runner)
        table.reset(seed=seed)
        return table.unwrapped.core_state.hands.copy()

    assert not np.array_equal(first_hand(12, 1), first_hand(12, 2))
    assert np.array_equal(first_hand(12, 1), first_hand(12, 1))
    plain = MaskedFloatObservations(hearts_env.env())
    plain.reset(seed=12)
    direct = hearts_env.env()
    direct.reset(seed=12)
    assert np.array_equal(plain.unwrapped.core_state.hands, direct.unwrapped.core_state.hands)


# ---------------------------------------------------------------------------------------------
# hearts_env.train.libraries.rllib_ppo


def tiny(tmp_path, **overrides):
    from hearts_env.train.libraries.rllib_ppo import RLlibPPOConfig

    settings = dict(
        exp_name="tiny",
        rules=HeartsRules(target_score=None),
        num_envs=4,
        n_steps=32,
        batch_size=64,
        n_epochs=1,
        net_arch="32",
        total_timesteps=1,  # one iteration
        eval_deals=4,
        run_dir=str(tmp_path),
        progress_bar=False,
    )
    return RLlibPPOConfig(**(settings | overrides))


def test_settings_errors(tmp_path):
    with pytest.raises(ValueError, match="opponents: self .* takes no other names"):
        tiny(tmp_path, opponents=["self", "heuristic"])
    with pytest.raises(ValueError, match="episode: self-play plays whole games"):
        tiny(tmp_path, opponents=["self"], episode="hand")
    with pytest.raises(ValueError, match=r"batch_size must be <= the rollout.* = 128, got 256"):
        tiny(tmp_path, batch_size=256)
    with pytest.raises(ValueError, match="opponents: give 1 name or 3"):
        tiny(tmp_path, opponents=["random", "simple"])
    from hearts_env.train.cli import rllib as cli

    with pytest.raises(SystemExit):
        cli(["--opponents", "nobody"])
    assert not list(tmp_path.iterdir())


def plays_legal_cards(folder) -> None:
    """The export, loaded as an agent, plays a short match (the runner refuses an illegal card)."""
    trained = make_agent("trained", path=str(folder))
    field = RandomPolicy()
    result = play_match(None, [("trained", trained)] + [("random", field)] * 3, deals=8, seed=0, episode="hand")
    assert result.hands.sum() == 8 * 4


def run_files(folder) -> dict:
    files = {path.name for path in folder.iterdir()}
    assert {"config.json", "progress.csv", "eval.json", "train.json", "policy.npz", "policy.json"} <= files
    assert any(name.startswith("events.out.tfevents") for name in files)
    with (folder / "progress.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1 and float(rows[0]["charts/SPS"]) > 0 and float(rows[0]["charts/update_SPS"]) > 0
    assert {"losses/policy_loss", "losses/value_loss", "charts/eval_points_per_hand"} <= set(rows[0])
    (evaluation,) = json.loads((folder / "eval.json").read_text())
    assert 0 <= evaluation["charts/eval_points_per_hand"] <= 26
    return json.loads((folder / "train.json").read_text())["throughput"]


@pytest.mark.training
def test_one_self_play_iteration(local_ray, tmp_path):
    from hearts_env.train.libraries.rllib_ppo import main

    folder = main(tiny(tmp_path, opponents=["self"]))
    throughput = run_files(folder)
    assert throughput["mode"] == "self-play" and throughput["timesteps"] >= 128
    assert json.loads((folder / "policy.json").read_text())["trained_on"]["algorithm"] == "RLlib PPO (self-play)"
    plays_legal_cards(folder)
    assert local_ray.is_initialized()  # main used the running Ray and left it alone


@pytest.mark.training
def test_one_iteration_against_opponents_and_the_export_is_the_module(local_ray, tmp_path):
    import torch
    from ray.rllib.core import DEFAULT_MODULE_ID
    from ray.rllib.core.columns import Columns

    from hearts_env.agents.learned.trained import TrainedPolicy
    from hearts_env.train.libraries.rllib_ppo import algorithm_config, export_policy, policy_arrays

    config = tiny(tmp_path, opponents=["random", "simple", "heuristic"], episode="hand", activation="tanh")
    algo = algorithm_config(config).build_algo()
    try:
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 128
        assert -26 <= result["env_runners"]["episode_return_mean"] <= 0  # a learner's hand: minus its points
        weights = algo.learner_group.get_weights(module_ids=[DEFAULT_MODULE_ID])[DEFAULT_MODULE_ID]
        module = algo.get_module(DEFAULT_MODULE_ID)
        arrays, names = policy_arrays(weights, config.rules)
        folder = tmp_path / "export"
        folder.mkdir()
        export_policy(arrays, names, folder, config, timesteps=128)
        trained = TrainedPolicy(folder)

        envs = HeartsVectorEnv(16, autoreset_mode=AutoresetMode.NEXT_STEP, target_score=None, learner_seat="rotate")
        raw, _ = envs.reset(seed=5)
        obs = MaskedFloatVectorObservations(envs)._observe(raw)
        batch = {Columns.OBS: {key: torch.from_numpy(value) for key, value in obs.items()}}
        with torch.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
        legal = obs["action_mask"] == 1
        assert np.allclose(trained.logits(raw)[legal], logits[legal], atol=1e-5)
        assert np.array_equal(trained.act(raw, legal), logits.argmax(axis=1))
    finally:
        algo.stop()
    plays_legal_cards(folder)
