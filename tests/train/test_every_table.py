"""One network trained at every table at once (``hearts_env.train.ppo.every_table``): the tables of
several rule sets stepped as one vector env, each table's observation placed into the shared one;
the run starts from the shared network it is given, exports one ``ppo-one`` plays, and the same
seed gives the same network; bad settings are refused before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from hearts_env.agents import make_agent  # noqa: E402
from hearts_env.agents.learned.family import table_rules  # noqa: E402
from hearts_env.agents.learned.hashing import weights_hash  # noqa: E402
from hearts_env.agents.learned.shared import SharedLayout, export, load_shared, table_network  # noqa: E402
from hearts_env.agents.learned.trained import META_FILE  # noqa: E402
from hearts_env.engine.core import new_games  # noqa: E402
from hearts_env.engine.infoset import infoset  # noqa: E402
from hearts_env.engine.observation import encode  # noqa: E402
from hearts_env.envs.gym_env import HeartsVectorEnv  # noqa: E402
from hearts_env.envs.sb3 import SB3VecEnv  # noqa: E402
from hearts_env.train.ppo.checkpoints import policy_layers  # noqa: E402
from hearts_env.train.ppo.every_table import (  # noqa: E402
    EveryTableConfig,
    EveryTableEnv,
    SelfSeats,
    build_model,
    main,
    starting_network,
    training_env,
)

TABLES = ["3p", "6p-2d"]


def write_start(folder: Path, tables: list[str] = TABLES) -> Path:
    rng = np.random.default_rng(0)
    sizes = [SharedLayout(tables).size, 32, 52]
    layers = [
        (rng.normal(0, 0.1, (sizes[i + 1], sizes[i])).astype(np.float32), np.zeros(sizes[i + 1], np.float32))
        for i in range(len(sizes) - 1)
    ]
    return export(folder, tables, layers)


def config(tmp_path: Path, **overrides) -> EveryTableConfig:
    settings = {
        "tables": TABLES,
        "init_policy": str(tmp_path / "init"),
        "num_envs": 4,
        "n_steps": 16,
        "batch_size": 32,
        "total_timesteps": 128,
        "value_decisions": 300,
        "value_epochs": 1,
        "eval_deals": 2,
        "run_dir": str(tmp_path / "runs"),
        "progress_bar": False,
    }
    return EveryTableConfig(**(settings | overrides))


def test_the_tables_step_as_one_env_each_in_its_own_place() -> None:
    shared = SharedLayout(TABLES)
    envs = {
        key: SB3VecEnv(
            HeartsVectorEnv(
                3, table_rules(key), opponents=make_agent("heuristic"), learner_seat="rotate", trick_outcomes=True
            )
        )
        for key in TABLES
    }
    env = EveryTableEnv(envs, shared)
    env.seed(7)
    observations = env.reset()
    assert observations.shape == (6, shared.size) and observations.dtype == np.float32
    for i, key in enumerate(TABLES):
        alone = SB3VecEnv(
            HeartsVectorEnv(
                3, table_rules(key), opponents=make_agent("heuristic"), learner_seat="rotate", trick_outcomes=True
            )
        )
        alone.seed(7 + 3 * i)
        into = env.inputs[key]
        assert np.array_equal(observations[3 * i : 3 * i + 3], into.counts(alone.reset()) * into.scale)
        assert np.array_equal(env.action_masks()[3 * i : 3 * i + 3], alone.action_masks())
    # the rules among the inputs (the player count, 3 or 6; the JD; two decks) tell the tables apart
    assert (observations[:3, -4:] == [1, 0, 0, 0]).all() and (observations[3:, -4:] == [0, 1, 0, 1]).all()
    for _ in range(40):  # whole hands, every game reset in the step its hand ends
        masks = env.action_masks()
        actions = masks.argmax(axis=1)
        env.step_async(actions)
        observations, rewards, dones, infos = env.step_wait()
        assert observations.shape == (6, shared.size) and rewards.shape == dones.shape == (6,)
        for game in np.flatnonzero(dones):
            assert infos[game]["terminal_observation"].shape == (shared.size,)
    env.close()


@pytest.mark.training
def test_a_run_starts_from_the_network_and_exports_one_reproducibly(tmp_path: Path) -> None:
    start = write_start(tmp_path / "init")
    untrained = main(config(tmp_path, total_timesteps=0, run_dir=str(tmp_path / "untrained")))
    begin = weights_hash(load_shared(start, "init"))
    assert weights_hash(load_shared(untrained, "trained")) == begin  # the value fit leaves the policy as it was
    runs = [main(config(tmp_path, run_dir=str(tmp_path / name))) for name in ("a", "b")]
    hashes = [json.loads((run / META_FILE).read_text())["weights_hash"] for run in runs]
    assert hashes[0] == hashes[1] != json.loads((start / META_FILE).read_text())["weights_hash"]
    report = json.loads((runs[0] / "train.json").read_text())
    assert report["init_policy"]["weights_sha256"] == begin and set(report["evaluation"]) == set(TABLES)
    played = make_agent("ppo-one", path=runs[0], seed=0)
    assert sorted(played.members) == sorted(TABLES)


def test_the_self_seats_play_the_learner_s_latest_weights(tmp_path: Path) -> None:
    write_start(tmp_path / "init")
    settings = config(tmp_path, opponents=["heuristic", "self"], snapshot_every=64)
    assert settings.seat_specs("6p-2d") == ["heuristic", "self", "heuristic", "self", "heuristic"]
    _, meta, shared, layers = starting_network(settings)
    selves = SelfSeats(shared, meta["activation"], layers, settings.snapshot_every, settings.seed)
    env = training_env(settings, shared, selves)
    model = build_model(settings, env, meta["activation"], layers)
    state = new_games(table_rules("6p-2d"), batch_size=8, seed=1)
    observations = encode(infoset(state), selves.players["6p-2d"].layout)
    before = selves.players["6p-2d"].logits(observations)
    with torch.no_grad():
        for layer in policy_layers(model):
            layer.weight.mul_(2.0)
    selves.init_callback(model)
    selves.fire()
    doubled = [(2 * w, b) for w, b in layers]
    expected = table_network("6p-2d", shared, doubled, meta["activation"]).logits(observations)
    after = selves.players["6p-2d"].logits(observations)
    assert not np.allclose(after, before) and np.allclose(after, expected, atol=1e-4)
    env.close()


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"tables": ["3p", "5p"]}, "does not play the table 5p"),
        ({"tables": ["3p", "3p"]}, "a table is named twice"),
        ({"tables": ["12p"]}, "table '12p'"),
        ({"opponents": ["nobody"]}, "opponents"),
        ({"eval_opponent": "self"}, "eval_opponent"),
        ({"num_envs": 10**9}, "a rollout of"),
        ({"value_decisions": 10**9}, "decisions for the value fit"),
        ({"learning_rate": float("nan")}, "learning_rate must be > 0"),
        ({"init_policy": "missing-folder"}, "init_policy: trained policy: missing file"),
    ],
)
def test_bad_settings_are_refused_before_anything_is_written(tmp_path: Path, overrides: dict, fragment: str) -> None:
    write_start(tmp_path / "init")
    with pytest.raises(ValueError, match=fragment):
        main(config(tmp_path, **overrides))
    assert not (tmp_path / "runs").exists()  # nothing written


def test_a_bad_setting_is_one_line_from_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hearts_env.train.cli import every_table

    write_start(tmp_path / "init")
    with pytest.raises(SystemExit) as exited:
        every_table(["--tables", "3p", "9p-2d", "--init-policy", str(tmp_path / "init"), "--run-dir", str(tmp_path)])
    assert "does not play the table 9p-2d" in str(exited.value) and "\n" not in str(exited.value)
