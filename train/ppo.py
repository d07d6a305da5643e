"""Train one policy for passing and playing with sb3-contrib's MaskablePPO against rule-based opponents.

The learner sits one seat (rotating) of ``HeartsVectorEnv`` tables; the other seats are played by
the ``opponents`` (agent specs of ``agents/``: ``heuristic``, ``pimc:worlds=8``; ``self``, a
snapshot of the learner; ``league``, a seat drawn from ``hearts_env.train.league``'s league of agents and
snapshots by how well they still do against the learner). The observation holds the phase, so one policy
learns both the pass and the play. By default the run starts with behaviour cloning
(``hearts_env.train.imitation``): the heuristic plays ``bc_decisions`` decisions at every seat, and the
policy and value networks are fitted to its cards and the returns that followed; PPO then goes on
from there. Every ``eval_every`` timesteps the current policy plays ``eval_deals`` duplicate hands
in the arena against three ``eval_opponent`` agents.

The games follow ``rules`` (a ``HeartsRules``; on the command line every knob is a flag, as in
every command of the project: ``--num-players 5 --moon shooter_choice``), so any variant can be
trained; the opponents, the evaluation opponent and the teacher must be able to play it (the
shipped ``ppo`` agent plays only 4-player tables without the JD rule).

TensorBoard scalars follow CleanRL's layout: ``charts/`` with CleanRL's names
(``episodic_return``, ``episodic_length``, ``learning_rate``, ``SPS``) and ours (apart,
``collect_SPS`` and ``update_SPS``; the arena evaluation ``eval_points_per_hand``,
``eval_diff_vs_field`` with their 95% half-widths), ``losses/`` with SB3's names for its
training statistics (``policy_gradient_loss``, ``value_loss``, ``entropy_loss``, ``approx_kl``,
``clip_fraction``, ``explained_variance``, ...; CleanRL calls some of them ``policy_loss``,
``entropy`` and ``clipfrac``), and ``bc/`` (the cloning fit).

Everything is checked before the run folder is made: the settings (a bad one raises
``ValueError`` naming it; the command line prints one line and exits), the opponents against the
rules, and the checkpoint to resume from; a run that cannot start writes nothing.

A run writes ``{run_dir}/{env}__{exp_name}__{seed}__{time}/``: ``config.json``, TensorBoard event
files and ``progress.csv``, ``checkpoint.pt`` (the policy's and optimizer's tensors and the
timestep count, written every ``checkpoint_every`` timesteps and at the end, loaded with
``torch.load(weights_only=True)``; ``--resume RUN_FOLDER`` continues from it into a new folder),
``eval.json`` (every evaluation, written as they come), ``train.json`` (cloning fit, throughput), and the export for
``hearts_env.agents.trained.TrainedPolicy``: ``policy.npz`` (input scale, the policy MLP's arrays) and
``policy.json`` (layout version, rules, net shape, activation).

    python -m hearts_env.train.ppo --total-timesteps 2000000                        # cloning, then PPO vs 3 heuristic
    python -m hearts_env.train.ppo --bc-teacher "" --opponents random simple heuristic   # PPO from scratch
    python -m hearts_env.train.ppo --resume runs/hearts_v0__ppo__1__1700000000 --total-timesteps 4000000
    python -m hearts_env.train.ppo --init-policy agents/policies/ppo --learning-rate 1e-4   # fine-tune an export
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.logger import KVWriter, Logger, make_output_format
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.vec_env import VecMonitor

from hearts_env.agents import AGENTS, make_agent
from hearts_env.agents.specs import agent_from_spec, check_agents, parse_spec
from hearts_env.agents.trained import MLPPolicy, TrainedPolicy
from hearts_env.cli.commands import command
from hearts_env.engine import checks
from hearts_env.engine.cards import NUM_CARDS
from hearts_env.engine.infoset import InfoSet
from hearts_env.engine.observation import ObservationLayout, encode
from hearts_env.engine.rules import HeartsRules
from hearts_env.envs.gym_env import HeartsVectorEnv
from hearts_env.envs.sb3 import SB3VecEnv
from hearts_env.play.policy import Policy
from hearts_env.play.progress import progress_bar
from hearts_env.train.config import (
    SELF,
    PPOSettings,
    StartError,
    check_at_least,
    check_choice,
    parse_config,
)
from hearts_env.train.imitation import collect, pretrain
from hearts_env.train.league import LEAGUE, League, LeagueCallback
from hearts_env.train.run_files import evaluate_policy, make_run_folder, removed_on_failure, write_policy

ACTIVATION_MODULES = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
CHECKPOINT_FILE = "checkpoint.pt"


@dataclass
class PPOConfig(PPOSettings):
    exp_name: str = "ppo"
    opponents: list[str] = field(default_factory=lambda: ["heuristic"])
    """opponent specs (pimc:worlds=8; self: the learner's snapshot; league: a league member): one, or one per seat"""
    snapshot_every: int = 500_000
    """timesteps between refreshes of the self-play snapshot (opponent self) and new snapshots in the league"""
    league_agents: list[str] = field(default_factory=lambda: ["heuristic"])
    """the agents in the league besides the learner's snapshots (opponent league), as specs: pimc:worlds=8"""
    league_size: int = 8
    """snapshots of the learner the league keeps (the latest)"""
    league_temperature: float = 1.0
    """a league member is drawn with probability proportional to exp(-learner's mean return against it / this)"""
    bc_teacher: str = "heuristic"
    """agent whose choices the policy imitates before PPO starts (behaviour cloning; empty: none)"""
    init_policy: str = ""
    """exported policy (a run folder, or agents/policies/ppo) the policy net starts from instead of
    cloning bc_teacher: only the value net is fitted then, to the returns of bc_decisions of its own
    sampled play at every seat"""
    bc_decisions: int = 1_000_000
    """teacher decisions recorded for behaviour cloning"""
    bc_epochs: int = 3
    """behaviour-cloning passes over the recorded decisions"""
    bc_batch_size: int = 2048
    """minibatch size of the behaviour-cloning fit"""
    bc_learning_rate: float = 1e-3
    """peak Adam learning rate of the behaviour-cloning fit (cosine decay to 0)"""
    checkpoint_every: int = 1_000_000
    """timesteps between checkpoints (checkpoint.pt; 0: only at the end)"""
    resume: str = ""
    """run folder whose checkpoint.pt the training continues from (same network; counts its timesteps)"""
    device: str = "cpu"
    """torch device"""

    OPPONENTS: ClassVar[tuple[str, ...]] = (SELF, LEAGUE)

    def check(self) -> None:
        """Raise ``ValueError`` naming the first setting out of its range."""
        super().check()
        for name in ("bc_epochs", "bc_batch_size", "league_size"):
            check_at_least(name, getattr(self, name), 1)
        for name in ("snapshot_every", "checkpoint_every"):
            check_at_least(name, getattr(self, name), 0)
        check_at_least("bc_decisions", self.bc_decisions, 1 if self.bc_teacher or self.init_policy else 0)
        for spec in self.league_agents:
            check_choice("league_agents", parse_spec(spec)[0], tuple(AGENTS))
        if not 0 < self.league_temperature < math.inf:
            raise ValueError(f"league_temperature must be > 0, got {self.league_temperature}")
        if not 0 < self.bc_learning_rate < math.inf:
            raise ValueError(f"bc_learning_rate must be > 0, got {self.bc_learning_rate}")
        self.check_opponent_count()
        if self.bc_teacher:
            check_choice("bc_teacher", self.bc_teacher, tuple(AGENTS))
        if self.init_policy and self.resume:
            raise ValueError("init_policy and resume both given: a run starts from one of them")
        try:
            device = torch.device(self.device)
        except RuntimeError:
            raise ValueError(f"device: torch knows no device {self.device!r}") from None
        if device.type == "cuda" and (device.index or 0) >= torch.cuda.device_count():
            # SB3 would fall back to the CPU without a word
            raise ValueError(f"device: {self.device} is not here (CUDA devices: {torch.cuda.device_count()})")
        obs_bytes = ObservationLayout(self.rules).size
        checks.fits_in_memory(
            f"a rollout of {self.num_envs:,} tables x {self.n_steps:,} steps",
            self.num_envs * self.n_steps * (obs_bytes + 4 * NUM_CARDS + 64),  # observations, masks, the rest
        )


def parse_args(argv: Sequence[str] | None = None) -> PPOConfig:
    """A ``PPOConfig`` from command-line flags."""
    return parse_config(PPOConfig, argv, "hearts-train", __doc__.split("\n\n")[0])


class Snapshot(MLPPolicy):
    """A frozen copy of the learner's policy that samples its cards: the ``self`` opponent.
    ``load(model)`` copies the current weights (at the start and every ``snapshot_every`` timesteps)."""

    def __init__(self, rules: HeartsRules, activation: str, seed: int | np.random.SeedSequence) -> None:
        super().__init__(rules, np.ones(0, np.float32), [], activation, sample=True, seed=seed)

    def load(self, model: MaskablePPO) -> None:
        arrays, names = policy_arrays(model)
        self.set_weights(arrays["input.scale"], [(arrays[f"{name}.weight"], arrays[f"{name}.bias"]) for name in names])


@dataclass
class Opponents:
    """The training tables' opponents: one policy for every other seat or one per seat, the
    self-play snapshot if a seat is ``self``, the league if a seat is ``league``."""

    seats: Policy | list[Policy]
    snapshot: Snapshot | None
    league: League | None


def make_opponents(config: PPOConfig) -> Opponents:
    """The opponents built from their specs with seeds from the config."""
    names = config.opponents
    snapshot = Snapshot(config.rules, config.activation, config.seed) if SELF in names else None
    league = None
    if LEAGUE in names:
        members = [(spec, agent_from_spec(spec, config.seed + 100 + j)) for j, spec in enumerate(config.league_agents)]
        league = League(members, config.league_size, config.league_temperature, seed=config.seed)
    seats = [
        snapshot if name == SELF else league.seat() if name == LEAGUE else agent_from_spec(name, config.seed + j)
        for j, name in enumerate(names)
    ]
    return Opponents(seats[0] if len(seats) == 1 else seats, snapshot, league)


def frozen_learner(model: MaskablePPO, config: PPOConfig) -> Snapshot:
    """A league snapshot: the learner's current policy, sampling its cards (seeded by the timestep)."""
    seed = np.random.SeedSequence([config.seed, model.num_timesteps])
    snapshot = Snapshot(config.rules, config.activation, seed=seed)
    snapshot.load(model)
    return snapshot


class PeriodicCallback(BaseCallback):
    """Calls ``fire()`` once each time the timesteps pass a multiple of ``every`` (never if 0)."""

    def __init__(self, every: int) -> None:
        super().__init__()
        self.every, self.next = every, every

    def fire(self) -> None:
        raise NotImplementedError

    def _on_training_start(self) -> None:  # a resumed run fires at the same multiples as an uninterrupted one
        self.next = (self.model.num_timesteps // self.every + 1) * self.every if self.every > 0 else self.every

    def _on_step(self) -> bool:
        if self.every > 0 and self.num_timesteps >= self.next:
            self.fire()
            self.next += self.every * ((self.num_timesteps - self.next) // self.every + 1)
        return True


class SnapshotCallback(PeriodicCallback):
    """Refresh the self-play snapshot with the learner's weights every ``every`` timesteps."""

    def __init__(self, snapshot: Snapshot, every: int) -> None:
        super().__init__(every)
        self.snapshot = snapshot

    def fire(self) -> None:
        self.snapshot.load(self.model)


class ModelPolicy:
    """The SB3 model as a ``Policy`` for the arena: deterministic, masked."""

    def __init__(self, model: MaskablePPO, layout: ObservationLayout) -> None:
        self.model, self.layout = model, layout

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        obs = encode(info, self.layout)
        actions, _ = self.model.predict(obs, action_masks=mask, deterministic=True)
        return np.asarray(actions, np.int64)


def evaluate(model: MaskablePPO, config: PPOConfig, seed: int) -> dict[str, float]:
    """The model against three ``eval_opponent`` agents on ``eval_deals`` duplicate hands."""
    candidate = ModelPolicy(model, ObservationLayout(config.rules))
    return evaluate_policy(candidate, config.rules, config.eval_opponent, config.eval_deals, seed)


class EvalCallback(PeriodicCallback):
    """Arena evaluation every ``config.eval_every`` timesteps and at the end, logged under ``charts/``
    and written to ``path`` as they come (an interrupted run keeps its curve)."""

    def __init__(self, config: PPOConfig, path: Path) -> None:
        super().__init__(config.eval_every)
        self.config, self.path = config, path
        self.history: list[dict[str, float]] = []
        self.seconds = 0.0  # spent evaluating, kept out of the throughput figures

    def _on_training_end(self) -> None:
        if not self.history or self.history[-1]["timesteps"] != self.num_timesteps:
            self.run_eval()
            self.logger.dump(self.num_timesteps)

    def fire(self) -> None:
        self.run_eval()

    def run_eval(self) -> None:
        start = time.perf_counter()
        scores = evaluate(self.model, self.config, seed=self.config.seed + 10_000)
        scores["charts/eval_seconds"] = time.perf_counter() - start
        self.seconds += scores["charts/eval_seconds"]
        for key, value in scores.items():
            self.logger.record(key, value)
        self.history.append({"timesteps": self.num_timesteps, **scores})
        self.path.write_text(json.dumps(self.history, indent=2) + "\n")
        if self.config.verbose:
            print(f"eval @ {self.num_timesteps}: {scores}")


class ThroughputCallback(BaseCallback):
    """Collection and update speed, apart: ``charts/collect_SPS`` (environment steps per second
    while the rollout is gathered) and ``charts/update_SPS`` (the same steps per second of the
    PPO update that follows), evaluation time excluded."""

    def __init__(self, evaluation: EvalCallback) -> None:
        super().__init__()
        self.evaluation = evaluation
        self.collect_seconds = self.update_seconds = 0.0
        self.collected = self.updated = 0
        self.mark: float | None = None  # when the last rollout ended (None before the first)

    def _clock(self) -> float:
        return time.perf_counter() - self.evaluation.seconds

    def _on_rollout_start(self) -> None:
        now = self._clock()
        steps = self.model.n_steps * self.training_env.num_envs
        if self.mark is not None:
            self.update_seconds += now - self.mark
            self.updated += steps
            self.logger.record("charts/update_SPS", steps / (now - self.mark))
        self.start = now

    def _on_rollout_end(self) -> None:
        self.mark = self._clock()
        steps = self.model.n_steps * self.training_env.num_envs
        self.collect_seconds += self.mark - self.start
        self.collected += steps
        self.logger.record("charts/collect_SPS", steps / (self.mark - self.start))

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        self._on_rollout_start()  # the last update

    def summary(self) -> dict[str, float | None]:
        """Steps per second collecting, updating and overall; None where no step was taken (a run
        resumed at its last timestep)."""
        if not self.collected or not self.updated:
            return {"collect_steps_per_second": None, "update_steps_per_second": None, "steps_per_second": None}
        collect_sps = self.collected / max(self.collect_seconds, 1e-9)
        update_sps = self.updated / max(self.update_seconds, 1e-9)
        return {
            "collect_steps_per_second": collect_sps,
            "update_steps_per_second": update_sps,
            "steps_per_second": 1 / (1 / collect_sps + 1 / update_sps),
        }


class CheckpointCallback(PeriodicCallback):
    """``checkpoint.pt`` every ``every`` timesteps (weights and optimizer state only)."""

    def __init__(self, folder: Path, every: int) -> None:
        super().__init__(every)
        self.folder = folder

    def fire(self) -> None:
        save_checkpoint(self.model, self.folder / CHECKPOINT_FILE)


class ProgressCallback(BaseCallback):
    """A bar over timesteps (``hearts_env.play.progress``; SB3's own bar needs rich as well)."""

    def _on_training_start(self) -> None:
        self.bar = progress_bar(self.locals["total_timesteps"], "train", "step")

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        return True

    def _on_training_end(self) -> None:
        self.bar.close()


class ScaledObservation(BaseFeaturesExtractor):
    """The uint8 observation as float32 times ``ObservationLayout.scale()`` (counts near 0..1)."""

    def __init__(self, observation_space: gymnasium.spaces.Box, scale: list[float]) -> None:
        super().__init__(observation_space, features_dim=len(scale))
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return observations.float() * self.scale


_CLEANRL_NAMES = {
    "rollout/ep_rew_mean": "charts/episodic_return",
    "rollout/ep_len_mean": "charts/episodic_length",
    "train/learning_rate": "charts/learning_rate",
    "time/fps": "charts/SPS",
}


def scalar_name(key: str) -> str:
    """CleanRL's layout for SB3's scalars: its training statistics under ``losses/`` (SB3's names), the rest
    under ``charts/`` (CleanRL's names where CleanRL has one)."""
    if key in _CLEANRL_NAMES:
        return _CLEANRL_NAMES[key]
    return "losses/" + key.removeprefix("train/") if key.startswith("train/") else key


class _Renamed(KVWriter):
    """An SB3 output format that writes each scalar under ``scalar_name``."""

    def __init__(self, inner: KVWriter) -> None:
        self.inner = inner

    def write(self, key_values: dict[str, Any], key_excluded: dict[str, Any], step: int = 0) -> None:
        rename = lambda d: {scalar_name(k): v for k, v in d.items()}  # noqa: E731
        self.inner.write(rename(key_values), rename(key_excluded), step)

    def close(self) -> None:
        self.inner.close()


def make_logger(folder: Path, verbose: int) -> Logger:
    formats = ["tensorboard", "csv"] + (["stdout"] if verbose else [])
    return Logger(str(folder), [_Renamed(make_output_format(f, str(folder))) for f in formats])


def save_checkpoint(model: MaskablePPO, path: Path) -> None:
    """The policy's and optimizer's tensors and the timestep count (no pickled objects)."""
    state = {
        "policy": model.policy.state_dict(),
        "optimizer": model.policy.optimizer.state_dict(),
        "num_timesteps": torch.tensor(model.num_timesteps),
    }
    torch.save(state, path)


def load_checkpoint(model: MaskablePPO, path: Path) -> None:
    """Restore ``save_checkpoint``'s file into a model built with the same network. The file is
    read with ``torch.load(weights_only=True)`` and checked whole (its entries, every tensor's
    shape against the model's) before anything is loaded: anything else raises ``ValueError``
    (``resume: cannot load PATH: why``) and leaves the model as it was."""
    if not path.is_file():
        raise ValueError(f"resume: no {CHECKPOINT_FILE} at {path}")
    try:
        state = torch.load(path, map_location=model.device, weights_only=True)
    except Exception as error:  # the unpickler's errors vary with the damage; all mean "not a checkpoint"
        raise ValueError(f"resume: cannot load {path}: {type(error).__name__}: {error}") from None
    problem = _checkpoint_problem(model, state)
    if problem:
        raise ValueError(f"resume: cannot load {path} into this network: {problem}")
    model.policy.load_state_dict(state["policy"])
    model.policy.optimizer.load_state_dict(state["optimizer"])
    model.num_timesteps = int(state["num_timesteps"])


def _checkpoint_problem(model: MaskablePPO, state: object) -> str | None:
    """What keeps ``state`` from loading into ``model`` whole (None if nothing does)."""
    if not isinstance(state, dict) or set(state) != {"policy", "optimizer", "num_timesteps"}:
        shown = sorted(map(str, state)) if isinstance(state, dict) else type(state).__name__
        return f"expected a dict of policy, optimizer and num_timesteps, got {shown}"
    steps = state["num_timesteps"]
    if not isinstance(steps, torch.Tensor) or steps.numel() != 1 or steps.is_floating_point() or int(steps) < 0:
        return "num_timesteps must be a count"
    own, saved = model.policy.state_dict(), state["policy"]
    if not isinstance(saved, dict) or set(saved) != set(own):
        return "the policy's tensors are not this network's"
    for name, tensor in own.items():
        if not isinstance(saved[name], torch.Tensor) or saved[name].shape != tensor.shape:
            return f"policy tensor {name} has another shape than this network's {tuple(tensor.shape)}"
    return _optimizer_problem(model.policy.optimizer, state["optimizer"])


def _optimizer_problem(optimizer: torch.optim.Optimizer, saved: object) -> str | None:
    """What keeps ``saved`` from being this optimizer's state (its groups, settings, and per
    parameter tensors of the parameter's shape)."""
    own = optimizer.state_dict()
    if not isinstance(saved, dict) or set(saved) != set(own):
        return "the optimizer state is not a dict of state and param_groups"
    groups = saved["param_groups"]
    if not isinstance(groups, list) or len(groups) != len(own["param_groups"]):
        return "the optimizer has other parameter groups"
    params = [p for group in optimizer.param_groups for p in group["params"]]
    for group, own_group in zip(groups, own["param_groups"], strict=True):
        if not isinstance(group, dict) or set(group) != set(own_group) or group["params"] != own_group["params"]:
            return "the optimizer has other parameter groups"
    if not isinstance(saved["state"], dict):
        return "the optimizer state is not a dict"
    for index, entries in saved["state"].items():
        if not isinstance(index, int) or not 0 <= index < len(params) or not isinstance(entries, dict):
            return "the optimizer state names parameters this network does not have"
        for key, value in entries.items():
            if not isinstance(value, torch.Tensor) or (value.dim() > 0 and value.shape != params[index].shape):
                return f"optimizer state {key} of parameter {index} has another shape than the parameter"
    return None


def build_model(config: PPOConfig, env: SB3VecEnv) -> MaskablePPO:
    hidden = config.hidden
    return MaskablePPO(
        "MlpPolicy",
        VecMonitor(env),
        learning_rate=config.learning_rate,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        ent_coef=config.ent_coef,
        policy_kwargs={
            "net_arch": {"pi": hidden, "vf": hidden},
            "activation_fn": ACTIVATION_MODULES[config.activation],
            "features_extractor_class": ScaledObservation,
            "features_extractor_kwargs": {"scale": ObservationLayout(config.rules).scale().tolist()},
        },
        seed=config.seed,
        device=config.device,
        verbose=config.verbose,
    )


def policy_layers(model: MaskablePPO) -> list[torch.nn.Linear]:
    """The policy MLP's linear layers and the action head, input to output (what an export holds)."""
    policy = model.policy
    return [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)] + [policy.action_net]


def policy_arrays(model: MaskablePPO) -> tuple[dict[str, np.ndarray], list[str]]:
    """The input scale and the policy MLP's and action head's weights (float32), and the layer names."""
    layers = policy_layers(model)
    arrays, names = {"input.scale": model.policy.features_extractor.scale.cpu().numpy()}, []
    for i, layer in enumerate(layers):
        name = f"pi.{i}" if i < len(layers) - 1 else "action"
        arrays[f"{name}.weight"] = layer.weight.detach().cpu().numpy().astype(np.float32)
        arrays[f"{name}.bias"] = layer.bias.detach().cpu().numpy().astype(np.float32)
        names.append(name)
    return arrays, names


def export_policy(model: MaskablePPO, folder: Path, config: PPOConfig) -> None:
    """Write ``policy.npz`` (``policy_arrays``) and ``policy.json``."""
    arrays, names = policy_arrays(model)
    trained_on = {"algorithm": "MaskablePPO", "timesteps": int(model.num_timesteps)}
    write_policy(folder, arrays, names, config.rules, config.hidden, config.activation, trained_on)


def main(config: PPOConfig) -> Path:
    """Train (after behaviour cloning if ``bc_teacher`` is set), evaluate and export; returns the
    run folder. Raises ``StartError`` before anything is written if the run cannot start."""
    torch.manual_seed(config.seed)
    try:
        env, model, opponents = _prepare(config)
        folder = make_run_folder(config.run_dir, config.exp_name, config.seed)
    except ValueError as error:
        raise StartError(str(error)) from None
    with removed_on_failure(folder):  # nothing is left of a run that fails before its training starts
        (folder / "config.json").write_text(json.dumps(config.to_dict(), indent=2) + "\n")
        model.set_logger(make_logger(folder, config.verbose))
        evaluation = EvalCallback(config, folder / "eval.json")
        report: dict[str, Any] = {}
        if config.resume:
            report["resumed_from"] = {"run": config.resume, "timesteps": model.num_timesteps}
        elif config.init_policy or config.bc_teacher:
            report["bc"] = imitate(model, config)
            evaluation.init_callback(model)
            evaluation.run_eval()  # the cloned policy before PPO, at timestep 0
            model.logger.dump(0)

    throughput = ThroughputCallback(evaluation)
    callbacks: list[BaseCallback] = [evaluation, throughput, CheckpointCallback(folder, config.checkpoint_every)]
    if opponents.snapshot is not None:
        opponents.snapshot.load(model)
        callbacks.append(SnapshotCallback(opponents.snapshot, config.snapshot_every))
    league = None
    if opponents.league is not None:
        league = LeagueCallback(opponents.league, lambda: frozen_learner(model, config), config.snapshot_every)
        league.start(model.num_timesteps)
        callbacks.append(league)
    if config.progress_bar:
        callbacks.append(ProgressCallback())
    model.learn(
        total_timesteps=max(config.total_timesteps - model.num_timesteps, 0),
        callback=CallbackList(callbacks),
        reset_num_timesteps=not config.resume,
    )

    save_checkpoint(model, folder / CHECKPOINT_FILE)
    export_policy(model, folder, config)
    report["throughput"] = throughput.summary()
    if league is not None:
        report["league"] = league.table()
    (folder / "train.json").write_text(json.dumps(report, indent=2) + "\n")
    env.close()
    return folder


def _prepare(config: PPOConfig) -> tuple[SB3VecEnv, MaskablePPO, Opponents]:
    """The environments and the model, checked (agents against the rules, the checkpoint to resume
    from loaded), with nothing written yet."""
    if config.resume and not (Path(config.resume) / CHECKPOINT_FILE).is_file():
        raise ValueError(f"resume: no {CHECKPOINT_FILE} in {config.resume}")
    opponents = make_opponents(config)
    named = [
        (name, agent)
        for name, agent in zip(config.opponents, _as_list(opponents.seats), strict=True)
        if name not in (SELF, LEAGUE)
    ]
    if opponents.league is not None:
        named += [(member.name, member.policy) for member in opponents.league.agents]
    others = [(config.eval_opponent, agent_from_spec(config.eval_opponent, config.seed))]
    if config.bc_teacher and not config.resume and not config.init_policy:
        others.append((config.bc_teacher, make_agent(config.bc_teacher)))
    check_agents(config.rules, named + others)
    env = SB3VecEnv(
        HeartsVectorEnv(
            config.num_envs,
            config.rules,
            opponents=opponents.seats,
            reward=config.reward,
            episode=config.episode,
            learner_seat="rotate",
        )
    )
    model = build_model(config, env)
    if config.resume:
        load_checkpoint(model, Path(config.resume) / CHECKPOINT_FILE)
    if config.init_policy:
        load_policy(model, config)
    return env, model, opponents


def _as_list(opponents: Policy | list[Policy]) -> list[Policy]:
    return opponents if isinstance(opponents, list) else [opponents]


def load_policy(model: MaskablePPO, config: PPOConfig) -> None:
    """Copy the exported policy ``init_policy`` into the model's policy net and action head. Raises
    ``ValueError`` (``init_policy: ...``) if its files do not load or its rules, layout or network
    differ from this run's, leaving the model as it was."""
    try:
        policy = TrainedPolicy(config.init_policy)
        policy.check_rules(config.rules)
    except ValueError as error:
        raise ValueError(f"init_policy: {error}") from None
    meta, hidden = policy.meta, policy.hidden
    if meta["history"] or hidden != config.hidden or meta["activation"] != config.activation:
        raise ValueError(
            f"init_policy: {config.init_policy} is a {meta['activation']} MLP {hidden}"
            f"{' with history' if meta['history'] else ''}; this run builds a {config.activation} MLP {config.hidden}"
        )
    with torch.no_grad():
        model.policy.features_extractor.scale.copy_(torch.as_tensor(policy.scale))
        for layer, (weight, bias) in zip(policy_layers(model), policy.layers, strict=True):
            layer.weight.copy_(torch.as_tensor(weight))
            layer.bias.copy_(torch.as_tensor(bias))


def imitate(model: MaskablePPO, config: PPOConfig) -> dict[str, float]:
    """Behaviour cloning of ``bc_teacher`` into the model's policy and value nets, or with
    ``init_policy`` the value net alone fitted to that policy's sampled play; logged under ``bc/``."""
    start = time.perf_counter()
    if config.init_policy:
        teacher: Policy = TrainedPolicy(config.init_policy, seed=config.seed, sample=True)
    else:
        teacher = make_agent(config.bc_teacher, seed=config.seed)
    demos = collect(
        config.rules, teacher, config.bc_decisions, config.seed, reward=config.reward, progress=config.progress_bar
    )
    collected = time.perf_counter()
    metrics = pretrain(
        model.policy,
        demos,
        epochs=config.bc_epochs,
        batch_size=config.bc_batch_size,
        learning_rate=config.bc_learning_rate,
        action_coef=0.0 if config.init_policy else 1.0,
        seed=config.seed,
        progress=config.progress_bar,
    )
    metrics |= {
        "bc/decisions": len(demos),
        "bc/collect_seconds": collected - start,
        "bc/train_seconds": time.perf_counter() - collected,
    }
    for key, value in metrics.items():
        model.logger.record(key, value)
    return metrics


@command("hearts-train")
def cli(argv: Sequence[str] | None = None) -> None:
    print(main(parse_args(argv)))


if __name__ == "__main__":
    cli()
