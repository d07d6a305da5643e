"""Hostile input, second round: the corners the first round (``test_hostile.py``) did not reach.
Each class of cause has a test: the input is refused with one clear error naming it, and nothing
changes; a command ends with one line, never a traceback.

Classes: checked seats and layouts of ``observe``; indexing a batch; one seed check everywhere;
flags that must be booleans; environments that step wholly or not at all; trained policies that
never choose outside the mask; agent options and sizes; the arena's up-front check with
``--history``; commands' input and output; the expert-iteration and training set-ups; the
imitation collector's counts; and a damaged kernel cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import hearts_env
from hearts_env import HeartsEnv, HeartsRules, HeartsVectorEnv
from hearts_env.agents import make_agent
from hearts_env.agents.specs import agent_from_spec, check_agents
from hearts_env.agents.trained import FORMAT, META_FILE, WEIGHTS_FILE, TrainedPolicy
from hearts_env.arena import play_match
from hearts_env.engine import seeding
from hearts_env.engine.core import legal_mask, new_games, sample_actions, step
from hearts_env.engine.infoset import infoset
from hearts_env.engine.observation import LAYOUT_VERSION, ObservationLayout, observe
from hearts_env.play.policy import RandomPolicy

ROOT = Path(__file__).resolve().parents[1]


def one_line_exit(run, capsys: pytest.CaptureFixture[str], *fragments: str) -> str:
    """Run a command's main: it must exit non-zero with one error line on stderr (no usage, no
    traceback) holding every fragment."""
    with pytest.raises(SystemExit) as exit_:
        run()
    assert exit_.value.code not in (0, None)
    err = capsys.readouterr().err + (exit_.value.code if isinstance(exit_.value.code, str) else "")
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "error:" in lines[0], err
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} not in {lines[0]!r}"
    return lines[0]


def export(folder: Path, rules: HeartsRules, history: bool = False, scale: float = 0.01, seed: int = 0) -> Path:
    """A random one-hidden-layer policy exported in ``train/ppo.py``'s format."""
    folder.mkdir(parents=True, exist_ok=True)
    size = ObservationLayout(rules, history).size
    rng = np.random.default_rng(seed)
    arrays = {
        "input.scale": np.ones(size, np.float32),
        "h.weight": (rng.standard_normal((16, size)) * scale).astype(np.float32),
        "h.bias": np.zeros(16, np.float32),
        "out.weight": (rng.standard_normal((52, 16)) * scale).astype(np.float32),
        "out.bias": np.zeros(52, np.float32),
    }
    np.savez(folder / WEIGHTS_FILE, **arrays)
    meta = {
        "format": FORMAT,
        "layout_version": LAYOUT_VERSION,
        "rules": rules.to_dict(),
        "history": history,
        "obs_size": size,
        "net_arch": [16],
        "layers": ["h", "out"],
        "activation": "relu",
    }
    (folder / META_FILE).write_text(json.dumps(meta))
    return folder


# ---------------------------------------------------------------------------------------------
# 1. observe checks its seats and its layout


def test_observe_refuses_seats_off_the_table_and_layouts_of_other_rules() -> None:
    state = new_games(HeartsRules(), batch_size=3, seed=0)
    layout = ObservationLayout(HeartsRules())
    good = observe(state, state.to_play.astype(np.int64), layout)
    for seat in (4, -1, np.array([0, 4, 1], np.int64), np.array([0, 1, -2], np.int64)):
        with pytest.raises(ValueError, match=r"seat must be in 0\.\.3"):
            observe(state, seat, layout)
    with pytest.raises(ValueError, match="seat must be an int"):
        observe(state, np.array([0.5, 1, 2]), layout)
    for other in (HeartsRules(num_players=5), HeartsRules(num_players=6, decks=2)):
        with pytest.raises(ValueError, match="layout"):
            observe(state, 0, ObservationLayout(other))
    with pytest.raises(ValueError, match="packed must be True or False"):
        observe(state, 0, layout, packed="yes")
    np.testing.assert_array_equal(observe(state, state.to_play.astype(np.int64), layout), good)  # nothing changed


# ---------------------------------------------------------------------------------------------
# 2. an int index keeps one game or raises IndexError


def test_indexing_a_batch_out_of_range_raises() -> None:
    state = new_games(HeartsRules(), batch_size=3, seed=0)
    for i in (-3, -1, 0, 2):
        assert state[i].batch_size == 1
        np.testing.assert_array_equal(state[i].data, state.data[i : i + 1] if i >= 0 else state.data[[i]])
    for i in (3, -4, 10**9):
        with pytest.raises(IndexError, match="out of range for a batch of 3"):
            state[i]
    with pytest.raises(IndexError):
        infoset(state)[5]
    with pytest.raises(IndexError):
        state[True]


# ---------------------------------------------------------------------------------------------
# 3. one seed check


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


def core_state(env) -> np.ndarray:
    """The bytes of an environment's core state (the AEC env keeps it under ``_state``)."""
    return (env.unwrapped._state if hasattr(env.unwrapped, "_state") else env.state).data.copy()


@pytest.mark.parametrize("make", [lambda: HeartsEnv(), lambda: HeartsVectorEnv(2), lambda: hearts_env.env()])
def test_a_refused_reset_seed_leaves_the_env_as_it_was(make) -> None:
    env = make()
    env.reset(seed=3)
    before = core_state(env)
    for seed in ("3", 1.5, True, -2):
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=seed)
    np.testing.assert_array_equal(core_state(env), before)
    env.reset()  # a plain reset goes on with the good seed's games
    other = make()
    other.reset(seed=3)
    other.reset()
    np.testing.assert_array_equal(core_state(env), core_state(other))


def test_vector_seeds_name_the_game_and_big_seeds_wrap() -> None:
    env = HeartsVectorEnv(2)
    with pytest.raises(ValueError, match=r"seed\[1\] must be an int >= 0"):
        env.reset(seed=[0, 1.5])
    env.reset(seed=2**64 + 7)
    wrapped = env.state.data.copy()
    env.reset(seed=7)
    np.testing.assert_array_equal(env.state.data, wrapped)  # 2**64 + s is s
    assert seeding.check_seed(2**70 + 1) == 1


def test_training_seeds_are_refused_above_32_bits() -> None:
    from hearts_env.train.expert_iteration import ExItConfig
    from hearts_env.train.ppo import PPOConfig

    for config in (PPOConfig, ExItConfig):
        with pytest.raises(ValueError, match=r"seed must be below 4,294,967,296"):
            config(seed=2**70)


# ---------------------------------------------------------------------------------------------
# 4. flags are booleans


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


# ---------------------------------------------------------------------------------------------
# 5. a step (or reset) happens wholly or not at all


class Failing:
    """An opponent that plays randomly, then raises ``error`` on its ``after``-th call."""

    def __init__(self, error: BaseException, after: int) -> None:
        self.error, self.after, self.random = error, after, RandomPolicy(0)

    def __call__(self, info, mask):
        self.after -= 1
        if self.after < 0:
            raise self.error
        return self.random(info, mask)


@pytest.mark.parametrize("error", [RuntimeError("search crashed"), KeyboardInterrupt()])
@pytest.mark.parametrize("vector", [False, True])
def test_an_opponent_that_raises_mid_step_leaves_the_env_as_it_was(error, vector) -> None:
    failing = Failing(error, after=30)
    env = HeartsVectorEnv(3, opponents=failing) if vector else HeartsEnv(opponents=failing)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    with pytest.raises(type(error)):
        for _ in range(200):
            before = env.state.data.copy(), np.copy(env.action_masks()), env._tables.pending.copy()
            masks = np.atleast_2d(env.action_masks())
            actions = (rng.random(masks.shape) * masks).argmax(axis=1)
            env.step(actions if vector else actions[0])
    np.testing.assert_array_equal(env.state.data, before[0])
    np.testing.assert_array_equal(env.action_masks(), before[1])
    np.testing.assert_array_equal(env._tables.pending, before[2])
    assert (env.state.to_play == env._tables.seat).all()  # the learner is to act, not an opponent
    failing.after = 10**9  # the opponent recovers: the env plays on from where it was
    masks = np.atleast_2d(env.action_masks())
    env.step(masks.argmax(axis=1) if vector else int(masks[0].argmax()))


# ---------------------------------------------------------------------------------------------
# 6. a trained policy never chooses outside the mask


@pytest.mark.parametrize("scale", [1e30, 1e19, -1e30])
def test_extreme_but_finite_weights_still_choose_legal_cards(tmp_path: Path, scale: float) -> None:
    policy = TrainedPolicy(export(tmp_path / "extreme", HeartsRules(), scale=scale))
    rng = np.random.default_rng(0)
    state = new_games(HeartsRules(), batch_size=64, seed=0)
    for _ in range(60):
        info, mask = infoset(state), legal_mask(state)
        with np.errstate(all="ignore"):
            cards = policy(info, mask)
        assert mask[np.arange(64), cards].all()
        state = step(state, sample_actions(state, rng))


def test_masked_choice_with_nan_and_infinite_logits() -> None:
    from hearts_env.agents.trained import masked_argmax

    mask = np.zeros((4, 52), bool)
    mask[:, [3, 7]] = True
    logits = np.zeros((4, 52), np.float32)
    logits[0] = np.nan
    logits[1, :] = -np.inf
    logits[2, 10] = np.inf  # an illegal card's logit wins nothing
    logits[3, [3, 7]] = [np.nan, -1e9]
    np.testing.assert_array_equal(masked_argmax(logits, mask), [3, 3, 3, 7])


def test_net_arch_must_agree_with_the_arrays(tmp_path: Path) -> None:
    folder = export(tmp_path / "p", HeartsRules())
    meta = json.loads((folder / META_FILE).read_text())
    meta["net_arch"] = [32]
    (folder / META_FILE).write_text(json.dumps(meta))
    with pytest.raises(ValueError, match=r"net_arch \[32\] disagrees with the arrays' hidden widths \[16\]"):
        TrainedPolicy(folder)
    del meta["net_arch"]  # optional: the arrays give the widths
    (folder / META_FILE).write_text(json.dumps(meta))
    assert TrainedPolicy(folder).hidden == [16]


# ---------------------------------------------------------------------------------------------
# 7. agent options name the agent, the option and the range; sizes are checked before allocating


@pytest.mark.parametrize(
    ("spec", "fragments"),
    [
        ("pimc:worlds=abc", ["agent 'pimc:worlds=abc'", "worlds must be an int >= 1, got 'abc'"]),
        ("pimc:worlds=1.5", ["worlds must be an int >= 1, got 1.5"]),
        ("pimc:rollouts=0", ["rollouts must be an int >= 1, got 0"]),
        ("random:seed=-1", ["agent 'random:seed=-1'", "seed must be >= 0, got -1"]),
        ("pimc:worlds=1000000000", ["1,000,000,000 worlds", "GiB of memory"]),
        ("pimc-ppo:top_k=60", ["top_k must be an int in 1..52, got 60"]),
        ("pimc:objective=wins", ["objective must be one of points, margin"]),
        ("heuristic:spade_guard=2.5", ["spade_guard must be an int >= 0"]),
    ],
)
def test_agent_options_are_checked_with_their_names(spec: str, fragments: list[str]) -> None:
    with pytest.raises(ValueError) as error:
        agent_from_spec(spec, 0)
    for fragment in fragments:
        assert fragment in str(error.value)


def test_match_sizes_are_checked_before_allocating() -> None:
    from hearts_env.arena import round_robin

    with pytest.raises(ValueError, match="1,000,000,000,000 deals needs about"):
        play_match(None, [RandomPolicy(0)] * 4, deals=10**12)
    with pytest.raises(ValueError, match="1,000,000,000 tables needs about"):
        round_robin(None, [("a", RandomPolicy(0)), ("b", RandomPolicy(1))], deals=10, tables=10**9, ratings=False)


# ---------------------------------------------------------------------------------------------
# 8. the arena's up-front check plays the table as the match will, --history included


def test_arena_takes_a_history_policy_with_history(tmp_path: Path, capsys) -> None:
    from hearts_env.agents.arena_cli import main

    folder = export(tmp_path / "hist", HeartsRules(), history=True)
    agents = [f"trained:path={folder}", "random", "random", "random"]
    one_line_exit(lambda: main([*agents, "--deals", "2"]), capsys, "history")
    main([*agents, "--deals", "2", "--history", "--episode", "hand", "--no-progress"])
    assert "trained" in capsys.readouterr().out
    history_policy = TrainedPolicy(folder)
    check_agents(HeartsRules(), [("h", history_policy)], history=True)


# ---------------------------------------------------------------------------------------------
# 9. commands: undecodable input, a closed pipe, a full disk


def run_command(args: list[str], stdin: bytes = b"", env: dict | None = None) -> subprocess.CompletedProcess:
    environ = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", **(env or {})}
    return subprocess.run([sys.executable, *args], input=stdin, capture_output=True, env=environ, timeout=300)


def test_play_reads_undecodable_input_as_a_word_that_is_no_card() -> None:
    done = run_command(["-m", "hearts_env.agents.play", "--seed", "0"], stdin=b"\xff\xfe\xfd\nquit\n")
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr and b"Bye." in done.stdout


def test_a_closed_pipe_ends_the_demo_quietly() -> None:
    reader = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.readline()"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL
    )
    demo = subprocess.run(
        [sys.executable, "-m", "hearts_env.cli.demo", "--seed", "0"], stdout=reader.stdin, capture_output=False,
        stderr=subprocess.PIPE, timeout=300,
    )  # fmt: skip
    reader.stdin.close()
    reader.wait()
    assert demo.returncode == 0 and b"Traceback" not in demo.stderr, demo.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_a_full_disk_ends_the_arena_with_one_line(capsys) -> None:
    from hearts_env.agents.arena_cli import main

    line = one_line_exit(
        lambda: main(["random"] * 4 + ["--deals", "2", "--episode", "hand", "--json", "/dev/full", "--no-progress"]),
        capsys,
        "hearts-arena: error:",
    )
    assert "No space left" in line


def test_a_plot_of_an_unknown_format_is_refused_before_the_match(tmp_path: Path, capsys) -> None:
    from hearts_env.agents.arena_cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["random"] * 4 + ["--deals", "2", "--episode", "hand", "--plot", str(tmp_path / "out.txt")])
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    assert "--plot:" in captured.err and "not 'txt'" in captured.err
    assert captured.out == ""  # nothing played


# ---------------------------------------------------------------------------------------------
# 10-11. expert iteration and training set-ups refuse before any work


def test_expert_iteration_refuses_before_collecting(tmp_path: Path) -> None:
    from hearts_env.train.expert_iteration import ExItConfig

    history = export(tmp_path / "hist", HeartsRules(), history=True)
    with pytest.raises(ValueError, match="reads the trick history"):
        ExItConfig(policy=str(history), run_dir=str(tmp_path / "runs"))
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(ValueError, match="run_dir: cannot make the run folder"):
        ExItConfig(run_dir=str(tmp_path / "file"))


def test_init_policy_takes_the_network_shape_from_the_arrays(tmp_path: Path) -> None:
    from hearts_env.envs.gym_env import HeartsVectorEnv
    from hearts_env.envs.sb3 import SB3VecEnv
    from hearts_env.train.ppo import PPOConfig, build_model, load_policy

    folder = export(tmp_path / "p", HeartsRules())
    meta = json.loads((folder / META_FILE).read_text())
    del meta["net_arch"]
    (folder / META_FILE).write_text(json.dumps(meta))
    config = PPOConfig(init_policy=str(folder), net_arch="32", num_envs=2, run_dir=str(tmp_path / "runs"))
    model = build_model(config, SB3VecEnv(HeartsVectorEnv(2, reward=config.reward)))
    with pytest.raises(ValueError, match=r"is a relu MLP \[16\]; this run builds a relu MLP \[32\]"):
        load_policy(model, config)


# ---------------------------------------------------------------------------------------------
# 12. the imitation collector's counts


def test_collect_gives_at_least_what_is_asked() -> None:
    from hearts_env.train.imitation import collect

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


@pytest.mark.slow
def test_a_tiny_behaviour_cloning_run_trains_and_a_failing_one_leaves_no_folder(tmp_path: Path, monkeypatch) -> None:
    from hearts_env.train import ppo

    runs = tmp_path / "runs"
    argv = ["--bc-teacher", "random", "--bc-decisions", "10", "--total-timesteps", "64", "--num-envs", "2"]
    argv += ["--n-steps", "32", "--batch-size", "32", "--eval-deals", "2", "--net-arch", "8", "--run-dir", str(runs)]
    argv += ["--progress-bar", "false"]
    ppo.cli(argv)
    assert len(list(runs.iterdir())) == 1

    def broken(*args, **kwargs):
        raise RuntimeError("the cloning failed")

    monkeypatch.setattr(ppo, "imitate", broken)
    with pytest.raises(RuntimeError):
        ppo.main(ppo.parse_args([*argv, "--exp-name", "broken"]))
    assert len(list(runs.iterdir())) == 1  # the failed run left nothing


# ---------------------------------------------------------------------------------------------
# 13. a damaged kernel cache


def test_a_damaged_kernel_cache_is_compiled_afresh(tmp_path: Path) -> None:
    code = "import numpy as np; from hearts_env.core import bits_to_mask; print(int(bits_to_mask(np.uint64(5)).sum()))"
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    env_without = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, env={**env_without, **env}, timeout=300)
    assert first.stdout.strip() == b"2", first.stderr
    root = tmp_path / "hearts_env"
    assert root.stat().st_mode & 0o777 == 0o700  # private: its files are loaded as code
    files = list(root.rglob("*.nbi")) + list(root.rglob("*.nbc"))
    assert files
    for n, path in enumerate(files):
        path.write_bytes(b"" if n % 2 else b"\x80\x04garbage")
    again = subprocess.run([sys.executable, "-c", code], capture_output=True, env={**env_without, **env}, timeout=300)
    assert again.returncode == 0 and again.stdout.strip() == b"2", again.stderr
