"""Train one policy for passing and playing with sb3-contrib's MaskablePPO against rule-based opponents.

The learner sits one seat (rotating) of ``HeartsVectorEnv`` tables; the other seats are played by
the ``opponents`` (agent specs of ``agents/``: ``heuristic``, ``pimc:worlds=8``; ``self``, a
snapshot of the learner; ``league``, a seat drawn from ``hearts_env.train.ppo.league``'s league of agents and
snapshots by how well they still do against the learner). The observation holds the phase, so one policy
learns both the pass and the play. By default the run starts with behaviour cloning
(``hearts_env.train.ppo.imitation``): the heuristic plays ``bc_decisions`` decisions at every seat, and the
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

With slow opponents (search agents) collecting a rollout costs more than the update: ``shards``
splits the tables into shards, each with its own copy of the opponents
(``hearts_env.envs.sharded``), and ``ray`` steps them side by side on Ray actors, the learner
staying here; the same ``shards`` and seed give the same training with or without Ray.

Everything is checked before the run folder is made: the settings (a bad one raises
``ValueError`` naming it; the command line prints one line and exits), the opponents against the
rules, and the checkpoint to resume from; a run that cannot start writes nothing.

A run writes ``{run_dir}/{env}__{exp_name}__{seed}__{time}/``: ``config.json``, TensorBoard event
files and ``progress.csv``, ``checkpoint.pt`` (the policy's and optimizer's tensors and the
timestep count, written every ``checkpoint_every`` timesteps and at the end, loaded with
``torch.load(weights_only=True)``; ``--resume RUN_FOLDER`` continues from it into a new folder),
``eval.json`` (every evaluation, written as they come), ``train.json`` (cloning fit, throughput), and the export for
``hearts_env.agents.learned.trained.TrainedPolicy``: ``policy.npz`` (input scale, the policy MLP's arrays) and
``policy.json`` (layout version, rules, net shape, activation).

    python -m hearts_env.train.ppo --total-timesteps 2000000                        # cloning, then PPO vs 3 heuristic
    python -m hearts_env.train.ppo --bc-teacher "" --opponents random simple heuristic   # PPO from scratch
    python -m hearts_env.train.ppo --resume runs/hearts_v0__ppo__1__1700000000 --total-timesteps 4000000
    python -m hearts_env.train.ppo --init-policy agents/policies/ppo --learning-rate 1e-4   # fine-tune an export
    python -m hearts_env.train.ppo --opponents pimc:worlds=4 --shards 32 --ray auto  # the tables on a Ray cluster

This module holds the settings (``PPOConfig``), the network (``build_model``), the opponents and the
run itself (``main``, ``cli``); the rollouts and updates are ``hearts_env.train.ppo.lean_loop``'s
(MaskablePPO's training in fewer copies), what runs during the training is in ``hearts_env.train.ppo.callbacks``,
the checkpoint, the export and the snapshots of the learner in ``hearts_env.train.ppo.checkpoints``.
"""

from __future__ import annotations

import contextlib
import functools
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
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from hearts_env.agents import AGENTS, make_agent
from hearts_env.agents.learned.trained import TrainedPolicy
from hearts_env.agents.specs import agent_from_spec, check_agents, parse_spec
from hearts_env.arena.sharding import ray_failure
from hearts_env.engine import checks
from hearts_env.engine.cards import NUM_CARDS
from hearts_env.engine.global_state import GlobalStateLayout
from hearts_env.engine.observation import ObservationLayout
from hearts_env.envs.gym_env import HeartsVectorEnv
from hearts_env.envs.sb3 import SB3VecEnv
from hearts_env.envs.sharded import ShardedVecEnv
from hearts_env.play.policy import PhaseSplit, Policy
from hearts_env.train.config import (
    SELF,
    PPOSettings,
    StartError,
    check_at_least,
    check_choice,
    check_ray,
    parse_config,
)
from hearts_env.train.ppo.callbacks import (
    CheckpointCallback,
    EvalCallback,
    ProgressCallback,
    SnapshotCallback,
    ThroughputCallback,
)
from hearts_env.train.ppo.checkpoints import (
    CHECKPOINT_FILE,
    Snapshot,
    export_policy,
    load_checkpoint,
    policy_layers,
    save_checkpoint,
)
from hearts_env.train.ppo.imitation import collect, pretrain
from hearts_env.train.ppo.league import LEAGUE, League, LeagueCallback
from hearts_env.train.ppo.lean_loop import LeanMaskablePPO
from hearts_env.train.ppo.masked_policy import MaskedActorCritic
from hearts_env.train.ppo.privileged_critic import ObservationAndState, PrivilegedCriticPolicy
from hearts_env.train.ppo.transfer import carried_layers, same_table
from hearts_env.train.run_files import make_run_folder, removed_on_failure

ACTIVATION_MODULES = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
RAY_INIT = {"include_dashboard": False, "log_to_driver": False}
"""``ray.init``'s arguments when a run starts Ray for its shards."""


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
    cloning bc_teacher, carried over if it was trained for another table (train/ppo/transfer.py):
    only the value net is fitted then, to the returns of bc_decisions of its own sampled play at
    every seat (and the policy too with bc_play)"""
    bc_play: str = ""
    """with init_policy: an agent whose card play the policy is fitted to before PPO, its passes
    staying its own (the value net fitted to the returns of that mixed play); empty: none"""
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
    shards: int = 1
    """shards of the tables, each with its own copy of the opponents, their cards from its own
    seeds (hearts_env.envs.sharded): stepped here in turn, or side by side with --ray"""
    ray: str | None = None
    """step the shards on Ray actors, one CPU each (the learner stays here)"""
    trick_outcomes: bool = False
    """the observation adds what each legal card does to the current trick (which cards take it; with
    two decks, also if a twin still out cancels the winner): ObservationLayout's trick_outcomes"""

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
        if self.bc_play:
            if not self.init_policy:
                raise ValueError("bc_play needs init_policy: the passes it keeps are that network's")
            check_choice("bc_play", parse_spec(self.bc_play)[0], tuple(AGENTS))
        if self.init_policy and self.resume:
            raise ValueError("init_policy and resume both given: a run starts from one of them")
        check_at_least("shards", self.shards, 1)
        if self.shards > self.num_envs:
            raise ValueError(f"shards must be at most num_envs ({self.num_envs}), got {self.shards}")
        if self.sharded and {SELF, LEAGUE} & set(self.opponents):
            raise ValueError("opponents: self and league change in this process as it trains: they cannot play shards")
        check_ray(self.ray)
        try:
            device = torch.device(self.device)
        except RuntimeError:
            raise ValueError(f"device: torch knows no device {self.device!r}") from None
        if device.type == "cuda" and (device.index or 0) >= torch.cuda.device_count():
            # SB3 would fall back to the CPU without a word
            raise ValueError(f"device: {self.device} is not here (CUDA devices: {torch.cuda.device_count()})")
        obs_bytes = self.layout.size
        if self.critic == "state":
            obs_bytes += GlobalStateLayout(self.rules).size
        checks.fits_in_memory(
            f"a rollout of {self.num_envs:,} tables x {self.n_steps:,} steps",
            self.num_envs * self.n_steps * (obs_bytes + 4 * NUM_CARDS + 64),  # observations, masks, the rest
        )

    @property
    def layout(self) -> ObservationLayout:
        """The learner's observation layout."""
        return ObservationLayout(self.rules, trick_outcomes=self.trick_outcomes)

    @property
    def sharded(self) -> bool:
        """Whether the tables are ``hearts_env.envs.sharded``'s (in shards, or on Ray)."""
        return self.shards > 1 or self.ray is not None


def parse_args(argv: Sequence[str] | None = None) -> PPOConfig:
    """A ``PPOConfig`` from command-line flags."""
    return parse_config(PPOConfig, argv, "hearts-train", __doc__.split("\n\n")[0])


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
    snapshot = (
        Snapshot(config.rules, config.activation, config.seed, True, config.trick_outcomes) if SELF in names else None
    )
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
    snapshot = Snapshot(config.rules, config.activation, seed, True, config.trick_outcomes)
    snapshot.load(model)
    return snapshot


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


def build_model(config: PPOConfig, env: VecEnv) -> MaskablePPO:
    """The model: separate policy and value MLPs over the scaled observation, or with ``critic="state"``
    a value MLP over the observation and the global state (``hearts_env.train.ppo.privileged_critic``)."""
    hidden = config.hidden
    scale = config.layout.scale().tolist()
    if config.critic == "state":
        policy: type[MaskedActorCritic] = PrivilegedCriticPolicy
        state_scale = GlobalStateLayout(config.rules).scale().tolist()
        features = {
            "features_extractor_class": ObservationAndState,
            "features_extractor_kwargs": {"scale": scale, "state_scale": state_scale},
        }
    else:
        policy = MaskedActorCritic
        features = {"features_extractor_class": ScaledObservation, "features_extractor_kwargs": {"scale": scale}}
    return ppo_model(config, env, policy, hidden, config.activation, features, config.device, config.verbose)


def ppo_model(
    settings: Any,
    env: VecEnv,
    policy: type[MaskedActorCritic],
    hidden: list[int],
    activation: str,
    features: dict[str, Any],
    device: str = "cpu",
    verbose: int = 0,
) -> LeanMaskablePPO:
    """MaskablePPO with the update settings of ``settings`` (``learning_rate``, ``n_steps``,
    ``batch_size``, ``n_epochs``, ``gamma``, ``gae_lambda``, ``ent_coef``, ``seed``): separate policy
    and value MLPs of widths ``hidden`` over the ``features`` extractor's output."""
    return LeanMaskablePPO(
        policy,
        VecMonitor(env),
        learning_rate=settings.learning_rate,
        n_steps=settings.n_steps,
        batch_size=settings.batch_size,
        n_epochs=settings.n_epochs,
        gamma=settings.gamma,
        gae_lambda=settings.gae_lambda,
        ent_coef=settings.ent_coef,
        policy_kwargs={
            "net_arch": {"pi": hidden, "vf": hidden},
            "activation_fn": ACTIVATION_MODULES[activation],
            "optimizer_kwargs": {"eps": 1e-5, "fused": True},  # SB3's Adam for PPO, stepped in one fused kernel
            **features,
        },
        seed=settings.seed,
        device=device,
        verbose=verbose,
    )


def main(config: PPOConfig) -> Path:
    """Train (after behaviour cloning if ``bc_teacher`` is set), evaluate and export; returns the
    run folder. Raises ``StartError`` before anything is written if the run cannot start."""
    torch.manual_seed(config.seed)
    try:
        env, model, opponents = _prepare(config)
    except ValueError as error:
        raise StartError(str(error)) from None
    with contextlib.closing(env):  # the tables end with the run, however it ends (on Ray: its actors)
        return _run(config, env, model, opponents)


def _run(config: PPOConfig, env: VecEnv, model: MaskablePPO, opponents: Opponents) -> Path:
    try:
        folder = make_run_folder(config.run_dir, config.exp_name, config.seed)
    except ValueError as error:
        raise StartError(str(error)) from None
    with removed_on_failure(folder):  # nothing is left of a run that fails before its training starts
        (folder / "config.json").write_text(json.dumps(config.to_dict(), indent=2) + "\n")
        model.set_logger(make_logger(folder, config.verbose))
        candidate = Snapshot(config.rules, config.activation, None, False, config.trick_outcomes)
        evaluation = EvalCallback(config, folder / "eval.json", candidate)
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
    return folder


def _prepare(config: PPOConfig) -> tuple[VecEnv, MaskablePPO, Opponents]:
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
    if config.bc_play and not config.resume:
        others.append((config.bc_play, agent_from_spec(config.bc_play, config.seed)))
    check_agents(config.rules, named + others)
    env: VecEnv
    if config.sharded:
        make_tables = functools.partial(training_tables, config, opponents.seats)
        try:
            env = ShardedVecEnv(make_tables, config.num_envs, config.shards, config.ray, **RAY_INIT)
        except (ConnectionError, RuntimeError) as error:
            raise ValueError(f"ray: {ray_failure(config.ray, error)}") from None
        except ValueError as error:  # more shards than Ray's CPUs
            raise ValueError(f"shards: {error}") from None
    else:
        env = SB3VecEnv(training_tables(config, opponents.seats, config.num_envs))
    try:
        model = build_model(config, env)
        if config.resume:
            load_checkpoint(model, Path(config.resume) / CHECKPOINT_FILE)
        if config.init_policy:
            load_policy(model, config)
    except BaseException:
        env.close()  # on Ray: its actors
        raise
    return env, model, opponents


def training_tables(config: PPOConfig, opponents: Policy | list[Policy], num_envs: int) -> HeartsVectorEnv:
    """``num_envs`` training tables: the learner at a seat drawn each game, ``opponents`` at the others."""
    return HeartsVectorEnv(
        num_envs,
        config.rules,
        opponents=opponents,
        reward=config.reward,
        episode=config.episode,
        learner_seat="rotate",
        global_state=config.critic == "state",
        trick_outcomes=config.trick_outcomes,
    )


def _as_list(opponents: Policy | list[Policy]) -> list[Policy]:
    return opponents if isinstance(opponents, list) else [opponents]


def load_policy(model: MaskablePPO, config: PPOConfig) -> None:
    """Copy the exported policy ``init_policy`` into the model's policy net and action head. Raises
    ``ValueError`` (``init_policy: ...``) if its files do not load or its rules, layout or network
    differ from this run's, leaving the model as it was."""
    try:
        policy = TrainedPolicy(config.init_policy)
        layers = policy.layers if same_table(policy, config.layout) else carried_layers(policy, config.layout)
    except ValueError as error:
        raise ValueError(f"init_policy: {error}") from None
    meta, hidden = policy.meta, policy.hidden
    if meta["history"] or hidden != config.hidden or meta["activation"] != config.activation:
        raise ValueError(
            f"init_policy: {config.init_policy} is a {meta['activation']} MLP {hidden}"
            f"{' with history' if meta['history'] else ''}; this run builds a {config.activation} MLP {config.hidden}"
        )
    with torch.no_grad():  # the scale stays the table's own (ObservationLayout.scale), as the policy's at its table
        for layer, (weight, bias) in zip(policy_layers(model), layers, strict=True):
            layer.weight.copy_(torch.as_tensor(weight))
            layer.bias.copy_(torch.as_tensor(bias))


def imitate(model: MaskablePPO, config: PPOConfig) -> dict[str, float]:
    """Behaviour cloning of ``bc_teacher`` into the model's policy and value nets, or with
    ``init_policy`` the value net alone fitted to that policy's sampled play (with ``bc_play``, the
    policy too, to its own passes and that agent's card play); logged under ``bc/``."""
    start = time.perf_counter()
    if config.init_policy:  # the policy just loaded (carried to this table if it was trained for another)
        # with bc_play its passes are the labels: its greedy ones, as the export plays
        teacher: Policy = Snapshot(
            config.rules, config.activation, config.seed, not config.bc_play, config.trick_outcomes
        )
        teacher.load(model)
        if config.bc_play:
            teacher = PhaseSplit(teacher, agent_from_spec(config.bc_play, config.seed))
    else:
        teacher = make_agent(config.bc_teacher, seed=config.seed)
    demos = collect(
        config.rules,
        teacher,
        config.bc_decisions,
        config.seed,
        reward=config.reward,
        progress=config.progress_bar,
        states=config.critic == "state",
        layout=config.layout,
    )
    collected = time.perf_counter()
    metrics = pretrain(
        model.policy,
        demos,
        epochs=config.bc_epochs,
        batch_size=config.bc_batch_size,
        learning_rate=config.bc_learning_rate,
        action_coef=0.0 if config.init_policy and not config.bc_play else 1.0,
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


if __name__ == "__main__":
    from hearts_env.train.cli import ppo

    ppo()
