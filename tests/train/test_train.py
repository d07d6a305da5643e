"""Training smoke test and the trained-policy export: train a few thousand steps through
``hearts_env.train.ppo.main``, then check the run folder, the numpy loader against the SB3 model, and the
loader's errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from tiny_runs import tiny_run

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402

from hearts_env.agents import make_agent  # noqa: E402
from hearts_env.agents.learned.trained import META_FILE, WEIGHTS_FILE, MLPPolicy, TrainedPolicy  # noqa: E402
from hearts_env.arena import play_match  # noqa: E402
from hearts_env.engine.core import PASS, PLAY, choose_from_bits, legal_mask, new_games, step  # noqa: E402
from hearts_env.engine.infoset import infoset  # noqa: E402
from hearts_env.engine.observation import ObservationLayout  # noqa: E402
from hearts_env.engine.rules import HeartsRules  # noqa: E402
from hearts_env.envs.gym_env import HeartsVectorEnv  # noqa: E402
from hearts_env.envs.sb3 import SB3VecEnv  # noqa: E402
from hearts_env.train.ppo import PPOConfig, build_model, main, make_opponents, parse_args  # noqa: E402
from hearts_env.train.ppo import trainer as ppo_module  # noqa: E402
from hearts_env.train.ppo.checkpoints import CHECKPOINT_FILE, Snapshot, load_checkpoint, policy_arrays  # noqa: E402
from hearts_env.train.ppo.transfer import carried_layers  # noqa: E402


def _config(run_dir: Path, **overrides) -> PPOConfig:
    opponents = ["random", "simple", "heuristic"]
    settings = tiny_run(run_dir, exp_name="smoke", seed=3, opponents=opponents, total_timesteps=2048, n_steps=128)
    settings |= dict(n_epochs=2, eval_every=1024, eval_deals=16, bc_teacher="heuristic", bc_decisions=3000)
    return PPOConfig(**(settings | overrides))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return main(_config(tmp_path_factory.mktemp("runs")))


def test_parse_args_builds_the_config() -> None:
    config = parse_args(
        ["--total-timesteps", "4096", "--opponents", "random", "simple", "heuristic", "--net-arch", "64,64"]
    )
    assert config.total_timesteps == 4096
    assert config.opponents == ["random", "simple", "heuristic"]
    assert config.hidden == [64, 64]
    assert parse_args([]) == PPOConfig()
    assert parse_args(["--progress-bar", "false"]).progress_bar is False


@pytest.mark.parametrize(
    ("settings", "fragment"),
    [({"bc_batch_size": 0}, "bc_batch_size must be >= 1"), ({"bc_learning_rate": 0.0}, "bc_learning_rate")],
)
def test_cloning_settings_are_checked(settings: dict, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        PPOConfig(**settings)


def test_cloning_fit_uses_its_batch_size_and_learning_rate(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen = {}

    def fake_pretrain(policy, demos, **kwargs):
        seen.update(kwargs)
        return {}

    monkeypatch.setattr(ppo_module, "pretrain", fake_pretrain)
    flags = ["--bc-batch-size", "512", "--bc-learning-rate", "0.003", "--bc-decisions", "300"]
    flags += ["--progress-bar", "false"]
    config = parse_args(flags)
    model = build_model(config, SB3VecEnv(HeartsVectorEnv(2, config.rules)))
    model.set_logger(ppo_module.make_logger(tmp_path, verbose=0))
    ppo_module.imitate(model, config)
    assert seen["batch_size"] == 512 and seen["learning_rate"] == 0.003


@pytest.mark.training
def test_smoke_run_writes_the_run_folder(run: Path) -> None:
    assert run.name.startswith("hearts_v0__smoke__3__")
    for name in ("config.json", CHECKPOINT_FILE, WEIGHTS_FILE, META_FILE, "eval.json", "train.json"):
        assert (run / name).is_file(), name
    assert list(run.glob("events.out.tfevents.*"))
    evals = json.loads((run / "eval.json").read_text())
    assert [e["timesteps"] for e in evals] == [0, 1024, 2048]  # 0: the cloned policy before PPO
    assert all(np.isfinite(e["charts/eval_points_per_hand"]) for e in evals)
    meta = json.loads((run / META_FILE).read_text())
    assert meta["num_players"] == 4 and meta["net_arch"] == [32, 32] and meta["activation"] == "relu"
    report = json.loads((run / "train.json").read_text())
    assert report["bc"]["bc/decisions"] >= 2000 and 0 < report["bc"]["bc/holdout_accuracy"] <= 1
    speeds = report["throughput"]
    assert speeds["collect_steps_per_second"] > 0 and speeds["update_steps_per_second"] > 0
    assert speeds["steps_per_second"] < min(speeds["collect_steps_per_second"], speeds["update_steps_per_second"])


@pytest.mark.training
def test_tensorboard_has_eval_and_training_scalars(run: Path) -> None:
    event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    events = event_accumulator.EventAccumulator(str(run))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    assert {"charts/eval_points_per_hand", "charts/eval_points_per_hand_ci", "charts/episodic_return"} <= tags
    assert {"losses/policy_gradient_loss", "losses/value_loss", "losses/approx_kl", "charts/SPS"} <= tags
    assert {"charts/collect_SPS", "charts/update_SPS", "bc/holdout_accuracy"} <= tags
    assert not any(tag.startswith("train/") for tag in tags)


def _load_model(run: Path) -> MaskablePPO:
    config = PPOConfig(**json.loads((run / "config.json").read_text()))
    model = build_model(config, SB3VecEnv(HeartsVectorEnv(config.num_envs, config.rules)))
    load_checkpoint(model, run / CHECKPOINT_FILE)
    return model


@pytest.mark.training
def test_resume_continues_from_the_checkpoint(run: Path, tmp_path: Path) -> None:
    before = _load_model(run)
    assert before.num_timesteps == 2048
    resumed = main(_config(tmp_path, resume=str(run), total_timesteps=3072, eval_every=0, bc_teacher=""))
    report = json.loads((resumed / "train.json").read_text())
    assert report["resumed_from"] == {"run": str(run), "timesteps": 2048}
    assert [e["timesteps"] for e in json.loads((resumed / "eval.json").read_text())] == [3072]
    after = _load_model(resumed)
    assert after.num_timesteps == 3072
    changed = [
        not np.array_equal(a.detach().numpy(), b.detach().numpy())
        for a, b in zip(before.policy.parameters(), after.policy.parameters(), strict=True)
    ]
    assert any(changed), "training went on from the checkpoint"


@pytest.mark.training
def test_resume_at_the_last_timestep_exports_the_checkpoint(run: Path, tmp_path: Path) -> None:
    """Resuming with no steps left trains nothing and exports the checkpoint's policy (how a
    running job's latest checkpoint is exported and measured)."""
    resumed = main(_config(tmp_path, resume=str(run), total_timesteps=2048, eval_every=0, bc_teacher=""))
    report = json.loads((resumed / "train.json").read_text())
    assert report["throughput"] == {
        "collect_steps_per_second": None,
        "update_steps_per_second": None,
        "steps_per_second": None,
    }
    for a, b in zip(_load_model(run).policy.parameters(), _load_model(resumed).policy.parameters(), strict=True):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    exported = np.load(resumed / "policy.npz")
    np.testing.assert_array_equal(exported["pi.0.weight"], np.load(run / "policy.npz")["pi.0.weight"])


def test_resume_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no checkpoint.pt"):
        main(_config(tmp_path / "a", resume=str(tmp_path / "nowhere")))


@pytest.mark.training
def test_init_policy_starts_from_the_export_and_fits_the_value_net(run: Path, tmp_path: Path) -> None:
    """``init_policy`` copies an exported policy into the policy net exactly; the value fit leaves it so."""
    started = main(_config(tmp_path, init_policy=str(run), total_timesteps=0, eval_every=0))
    for name, array in np.load(run / "policy.npz").items():
        np.testing.assert_array_equal(np.load(started / "policy.npz")[name], array, err_msg=name)
    fit = json.loads((started / "train.json").read_text())["bc"]
    assert fit["bc/decisions"] > 0 and fit["bc/holdout_value_loss"] > 0
    fitted = _load_model(started).policy.value_net.weight.detach().numpy()
    untrained = build_model(_config(tmp_path), SB3VecEnv(HeartsVectorEnv(8, HeartsRules()))).policy.value_net
    assert not np.array_equal(fitted, untrained.weight.detach().numpy()), "the value net was fitted"


@pytest.mark.training
@pytest.mark.parametrize("rules", [HeartsRules(num_players=5), HeartsRules(num_players=6, decks=2)])
def test_init_policy_of_another_table_is_carried_over(run: Path, tmp_path: Path, rules: HeartsRules) -> None:
    """A four-player export starts a run at another table through ``carried_layers``."""
    started = main(
        _config(tmp_path, init_policy=str(run), rules=rules, opponents=["heuristic"], total_timesteps=0, eval_every=0)
    )
    exported = TrainedPolicy(started)
    assert exported.rules == rules
    for (weight, bias), (expected_weight, expected_bias) in zip(
        exported.layers, carried_layers(TrainedPolicy(run), ObservationLayout(rules)), strict=True
    ):
        np.testing.assert_array_equal(weight, expected_weight)
        np.testing.assert_array_equal(bias, expected_bias)


def _agreement(a, b, state) -> float:
    info, mask = infoset(state), legal_mask(state)
    return float(np.mean(np.asarray(a(info, mask)) == np.asarray(b(info, mask))))


@pytest.mark.training
def test_a_run_with_trick_outcomes_trains_exports_and_plays_them(run: Path, tmp_path: Path) -> None:
    """``trick_outcomes``: the network is carried into the wider observation, trains against its
    snapshot on it and exports it; the export reads it back and plays a match."""
    rules = HeartsRules(num_players=6, decks=2, target_score=None)
    settings = dict(init_policy=str(run), rules=rules, trick_outcomes=True, bc_play="heuristic")
    trained = main(_config(tmp_path, **settings, opponents=["heuristic", "self"] * 2 + ["self"], eval_deals=4))
    meta = json.loads((trained / META_FILE).read_text())
    layout = ObservationLayout(rules, trick_outcomes=True)
    assert meta["trick_outcomes"] is True and meta["obs_size"] == layout.size
    policy = TrainedPolicy(trained)
    assert policy.layout == layout and {"takes_now", "takes_if_cancelled"} <= set(policy.layout.sections)
    weight = policy.layers[0][0][:, layout.sections["takes_now"][0]]
    assert np.abs(weight).sum() > 0, "the new sections were trained from their zero start"
    result = play_match(
        rules, [("trained", policy)] + [("heuristic", make_agent("heuristic"))] * 5, deals=2, seed=1, episode="hand"
    )
    assert np.isfinite(result.estimate("trained").mean)


@pytest.mark.training
def test_bc_play_fits_the_play_to_an_agent_and_keeps_the_passes(run: Path, tmp_path: Path) -> None:
    """With ``bc_play`` the exported network's card play moves to that agent's, its passes stay its own."""
    settings = dict(init_policy=str(run), bc_play="simple", total_timesteps=0, eval_every=0)
    refit = main(_config(tmp_path, **settings, bc_decisions=6000, bc_epochs=10, bc_batch_size=256))
    before, after, simple = TrainedPolicy(run), TrainedPolicy(refit), make_agent("simple")
    passing = new_games(HeartsRules(), batch_size=512, seed=2)
    rules = HeartsRules(pass_count=0)
    playing, rng = new_games(rules, batch_size=512, seed=2), np.random.default_rng(0)
    for _ in range(9):  # into the middle of the first tricks, every card drawn at random
        playing = step(playing, choose_from_bits(playing.legal, rng.random(512)))
    assert (passing.phase == PASS).all() and (playing.phase == PLAY).all()
    assert _agreement(after, simple, playing) > _agreement(before, simple, playing) + 0.1
    assert _agreement(after, before, passing) > 0.8 and _agreement(after, simple, passing) < 0.3
    with pytest.raises(ValueError, match="bc_play needs init_policy"):
        _config(tmp_path, bc_play="simple")
    with pytest.raises(ValueError, match="bc_play"):
        _config(tmp_path, init_policy=str(run), bc_play="nobody")


@pytest.mark.training
@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"net_arch": "64,64"}, r"init_policy: .* relu MLP \[32, 32\]; this run builds a relu MLP \[64, 64\]"),
        ({"resume": "somewhere"}, "init_policy and resume both given"),
    ],
)
def test_init_policy_errors(run: Path, tmp_path: Path, overrides: dict, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        main(_config(tmp_path, init_policy=str(run), opponents=["random"], **overrides))
    assert not list(tmp_path.iterdir()), "nothing written"


@pytest.mark.training
def test_export_acts_as_the_sb3_model(run: Path) -> None:
    model = _load_model(run)
    trained = TrainedPolicy(run)
    env = HeartsVectorEnv(64, learner_seat="rotate", opponents=None)
    obs, info = env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(20):  # passing and playing positions
        masks = env.action_masks()
        expected, _ = model.predict(obs, action_masks=masks, deterministic=True)
        np.testing.assert_array_equal(trained.act(obs, masks), expected)
        random_cards = (rng.random(masks.shape) * masks).argmax(axis=1)
        obs, *_ = env.step(random_cards)


@pytest.mark.training
def test_trained_policy_plays_in_the_arena(run: Path) -> None:
    trained = TrainedPolicy(run / WEIGHTS_FILE, seed=0)
    result = play_match(None, [("trained", trained)] + [("random", _random())] * 3, deals=8, seed=0, episode="hand")
    assert result.deals == 8


def _random():
    from hearts_env.play.policy import RandomPolicy

    return RandomPolicy(0)


def _copy(run: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "policy"
    folder.mkdir()
    for name in (WEIGHTS_FILE, META_FILE):
        shutil.copy(run / name, folder / name)
    return folder


@pytest.mark.training
def test_loader_missing_file(run: Path, tmp_path: Path) -> None:
    folder = _copy(run, tmp_path)
    (folder / WEIGHTS_FILE).unlink()
    with pytest.raises(ValueError, match="missing file .*policy.npz"):
        TrainedPolicy(folder)
    with pytest.raises(ValueError, match="missing file .*policy.json"):
        TrainedPolicy(tmp_path / "nowhere")


@pytest.mark.training
def test_loader_corrupt_files(run: Path, tmp_path: Path) -> None:
    folder = _copy(run, tmp_path)
    (folder / WEIGHTS_FILE).write_bytes(b"not a zip file at all")
    with pytest.raises(ValueError, match="policy.npz: corrupt file"):
        TrainedPolicy(folder)
    (folder / META_FILE).write_text("{not json")
    with pytest.raises(ValueError, match="policy.json: corrupt file"):
        TrainedPolicy(folder)


def _pickled(arrays: dict[str, np.ndarray]) -> None:
    arrays["pi.0.weight"] = np.array([{"evil": 1}], dtype=object)  # the first layer's (see the meta)


def _without_input_scale(arrays: dict[str, np.ndarray]) -> None:
    del arrays["input.scale"]


@pytest.mark.training
@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (_pickled, "'pi.0.weight' has dtype object, expected float32"),
        (_without_input_scale, "lacks the array 'input.scale'"),
    ],
)
def test_loader_refuses_damaged_arrays(run: Path, tmp_path: Path, damage, message: str) -> None:
    folder = _copy(run, tmp_path)
    assert json.loads((folder / META_FILE).read_text())["layers"][0] == "pi.0"
    arrays = dict(np.load(folder / WEIGHTS_FILE))
    damage(arrays)
    np.savez(folder / WEIGHTS_FILE, **arrays)
    with pytest.raises(ValueError, match=message):
        TrainedPolicy(folder)


@pytest.mark.training
def test_loader_wrong_layout_version(run: Path, tmp_path: Path) -> None:
    folder = _copy(run, tmp_path)
    meta = json.loads((folder / META_FILE).read_text())
    meta["layout_version"] += 1
    (folder / META_FILE).write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="layout version"):
        TrainedPolicy(folder)


@pytest.mark.training
def test_loader_wrong_num_players(run: Path, tmp_path: Path) -> None:
    trained = TrainedPolicy(run)
    with pytest.raises(ValueError, match="num_players=4.*num_players=5"):
        trained.check_rules(HeartsRules(num_players=5))
    five = [("trained", trained)] + [("random", _random())] * 4
    with pytest.raises(ValueError, match="num_players"):
        play_match(HeartsRules(num_players=5), five, deals=2, seed=0, episode="hand")
    # a policy.json whose rules disagree with its weights' shapes
    folder = _copy(run, tmp_path)
    meta = json.loads((folder / META_FILE).read_text())
    meta["num_players"] = 5
    (folder / META_FILE).write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="num_players=5 but its rules have 4"):
        TrainedPolicy(folder)
    meta["rules"] |= {"num_players": 5, "pass_cycle": None}
    (folder / META_FILE).write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="obs_size 765 does not match"):
        TrainedPolicy(folder)
    meta["rules"]["pass_cycle"] = ["across"]
    (folder / META_FILE).write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="invalid rules: pass_cycle"):
        TrainedPolicy(folder)


def test_mlp_policy_samples_from_the_masked_softmax() -> None:
    rules = HeartsRules()
    size = ObservationLayout(rules).size
    bias = np.linspace(-2, 2, 52).astype(np.float32)
    policy = MLPPolicy(rules, np.ones(size, np.float32), [(np.zeros((52, size), np.float32), bias)], "relu", True, 0)
    mask = np.zeros((20_000, 52), bool)
    mask[:, [3, 10, 40, 51]] = True
    cards = policy.act(np.zeros((20_000, size), np.uint8), mask)
    expected = np.exp(bias[[3, 10, 40, 51]]) / np.exp(bias[[3, 10, 40, 51]]).sum()
    counts = np.array([(cards == c).mean() for c in (3, 10, 40, 51)])
    np.testing.assert_allclose(counts, expected, atol=0.015)
    assert set(np.unique(cards)) == {3, 10, 40, 51}
    policy.sample = False
    assert (policy.act(np.zeros((5, size), np.uint8), mask[:5]) == 51).all()


def test_mlp_logits_are_the_dense_product_of_its_layers() -> None:
    """The compiled first layer (it skips zero inputs) gives the plain matrix products, for
    observations of any dtype, either activation, any depth, and weights swapped in later."""
    rules = HeartsRules()
    size = ObservationLayout(rules).size
    rng = np.random.default_rng(3)

    def weights(widths: list[int]) -> list[tuple[np.ndarray, np.ndarray]]:
        sizes = [size, *widths, 52]
        return [(rng.normal(size=(o, i)).astype(np.float32), rng.normal(size=o).astype(np.float32))
                for i, o in zip(sizes[:-1], sizes[1:], strict=True)]  # fmt: skip

    def dense(scale: np.ndarray, layers: list, activation, obs: np.ndarray) -> np.ndarray:
        x = obs.astype(np.float64) * scale
        for i, (w, b) in enumerate(layers):
            x = x @ w.T.astype(np.float64) + b
            x = activation(x) if i < len(layers) - 1 else x
        return x

    def relu(x: np.ndarray) -> np.ndarray:
        return np.maximum(x, 0)

    obs = (rng.random((40, size)) < 0.15) * rng.integers(1, 5, (40, size))
    scale = rng.uniform(0.01, 1, size).astype(np.float32)
    for widths, activation, name in (([16, 8], np.tanh, "tanh"), ([], None, "relu"), ([32], relu, "relu")):
        layers = weights(widths)
        policy = MLPPolicy(rules, scale, layers, name)
        for x in (obs.astype(np.uint8), obs.astype(np.float32), obs.astype(np.uint8)[::3], obs[:0].astype(np.uint8)):
            got = policy.logits(x)
            assert got.shape == (len(x), 52) and got.dtype == np.float32
            np.testing.assert_allclose(got, dense(scale, layers, activation, x), rtol=1e-4, atol=1e-3)
    swapped = weights([8])
    policy.set_weights(np.ones(size, np.float32), swapped)
    np.testing.assert_allclose(policy.logits(obs), dense(1.0, swapped, relu, obs), rtol=1e-4, atol=1e-3)


@pytest.mark.training
def test_self_play_against_snapshots(tmp_path: Path) -> None:
    config = _config(tmp_path, opponents=["heuristic", "self", "self"], snapshot_every=1024, bc_teacher="")
    rules = HeartsRules()
    opponents = make_opponents(config)
    snapshot = opponents.snapshot
    assert isinstance(snapshot, Snapshot) and opponents.seats[1] is snapshot and opponents.seats[2] is snapshot
    model = build_model(config, SB3VecEnv(HeartsVectorEnv(8, rules, opponents=opponents.seats)))
    snapshot.load(model)
    arrays, names = policy_arrays(model)
    for (w, b), name in zip(snapshot.layers, names, strict=True):
        np.testing.assert_array_equal(w, arrays[f"{name}.weight"])
        np.testing.assert_array_equal(b, arrays[f"{name}.bias"])
    folder = main(config)  # trains against two snapshots and a heuristic player
    assert json.loads((folder / "eval.json").read_text())[-1]["timesteps"] == 2048


@pytest.mark.training
def test_training_against_the_league(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        exp_name="league",
        seed=2,
        opponents=["heuristic", "league", "league"],
        league_agents=["simple", "random"],
        league_size=2,
        snapshot_every=1024,
        total_timesteps=4096,
        n_steps=64,
        eval_every=0,
        eval_deals=8,
        bc_teacher="",
    )
    folder = main(config)
    table = json.loads((folder / "train.json").read_text())["league"]
    names = [row["name"] for row in table]
    assert names[:2] == ["simple", "random"]
    assert len(names) == 4 and all(name.startswith("snapshot@") for name in names[2:])  # the latest 2 kept
    assert sum(row["probability"] for row in table) == pytest.approx(1.0)
    assert sum(row["rollouts"] for row in table) >= 8  # 8 rollouts of 512 steps, one or two members each
    progress = (folder / "progress.csv").read_text().splitlines()[0]
    assert "league/members" in progress and "league/hardest_return" in progress
