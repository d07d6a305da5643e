"""Train one network at every table at once: the ``ppo-one`` agent's recipe
(``hearts_env.agents.learned.shared``).

The tables of every rule set in ``tables`` (keys: ``5p``, ``4p-jd``, ``8p-2d``) are stepped together
as one SB3 vector env (``EveryTableEnv``): ``num_envs`` tables of each, the learner at a seat drawn
each game, the ``opponents`` at the others (their list repeated over the seats after the
learner's; ``self`` is the learner's own network at that table, sampling, refreshed every
``snapshot_every`` steps). Each table's observation is placed into the shared one
(``SharedInput``: the largest table's layout, then the rules as features) and scaled as that
table's own layout scales it, so one MaskablePPO policy, the shared network, learns every table
from the same rollouts; a rollout holds ``num_envs * n_steps`` decisions of each table.

The run starts from a shared network (``init_policy``, default the shipped ``ppo-one``): its
layers are copied into the policy net, and the value net is fitted first to the returns of
``value_decisions`` decisions of its own sampled play at every seat of each table (as
``hearts-train --init-policy`` does at one table). At the end each table's network plays
``eval_deals`` duplicate hands against ``eval_opponent`` at every other seat.

A run writes ``{run_dir}/hearts_v0__{exp_name}__{seed}__{time}/``: ``config.json``, ``train.json``
(the value fit, throughput, the evaluation by table) and the export, ``policy.npz`` +
``policy.json``, which ``make_agent("ppo-one", path=RUN)`` plays and ``pimc-ppo-one:path=RUN``
searches with. The same settings and seed give the same network.

    python -m hearts_env.train.ppo.every_table --total-timesteps 4000000 --seed 1
    python -m hearts_env.train.ppo.every_table --tables 5p 7p --opponents pimc:worlds=8 heuristic self
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.callbacks import CallbackList
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from hearts_env.agents import AGENTS
from hearts_env.agents.learned.family import table_rules
from hearts_env.agents.learned.hashing import weights_hash
from hearts_env.agents.learned.shared import (
    SHIPPED_ONE,
    SharedInput,
    SharedLayout,
    export,
    load_shared,
    read_shared,
    table_network,
)
from hearts_env.agents.specs import agent_from_spec, check_agents, parse_spec
from hearts_env.arena import play_match
from hearts_env.engine import checks
from hearts_env.engine.cards import NUM_CARDS
from hearts_env.engine.rewards import REWARD_MODES
from hearts_env.engine.rules import HeartsRules
from hearts_env.envs.gym_env import HeartsVectorEnv
from hearts_env.envs.sb3 import SB3VecEnv
from hearts_env.train.config import SELF, RunConfig, StartError, check_at_least, check_choice
from hearts_env.train.ppo.callbacks import PeriodicCallback, ProgressCallback
from hearts_env.train.ppo.checkpoints import policy_layers
from hearts_env.train.ppo.family import DEFAULT_TABLES
from hearts_env.train.ppo.imitation import Demonstrations, collect, pretrain
from hearts_env.train.ppo.lean_loop import LeanMaskablePPO
from hearts_env.train.ppo.masked_policy import MaskedActorCritic
from hearts_env.train.ppo.trainer import ScaledObservation, make_logger, ppo_model
from hearts_env.train.run_files import make_run_folder, removed_on_failure

Layer = tuple[np.ndarray, np.ndarray]


@dataclass
class EveryTableConfig(RunConfig):
    exp_name: str = "every-table"
    tables: list[str] = field(default_factory=lambda: list(DEFAULT_TABLES))
    """the tables trained at once, as keys: 5p (five players), 4p-jd (the JD rule), 8p-2d (two decks)"""
    init_policy: str = ""
    """the shared network the run starts from (a folder of policy.npz + policy.json; empty: the
    shipped ppo-one); it must play every table of --tables"""
    opponents: list[str] = field(default_factory=lambda: ["heuristic", SELF])
    """opponent specs for the seats after the learner's, the list repeated over them (self: the
    learner's own network, sampling)"""
    snapshot_every: int = 500_000
    """timesteps between refreshes of the self seats with the learner's weights"""
    reward: str = "zero_sum"
    """reward mode: points, hand, zero_sum or win (hearts_env.engine.rewards)"""
    num_envs: int = 32
    """tables of each rule set played at once"""
    total_timesteps: int = 2_000_000
    """learner decisions to train on, every table's together"""
    n_steps: int = 64
    """steps per table per rollout"""
    batch_size: int = 1024
    """minibatch size of the PPO update"""
    n_epochs: int = 2
    """PPO epochs over each rollout"""
    learning_rate: float = 1e-4
    """Adam learning rate"""
    gamma: float = 1.0
    """discount factor"""
    gae_lambda: float = 0.95
    """lambda of generalised advantage estimation"""
    ent_coef: float = 0.001
    """entropy bonus coefficient"""
    value_decisions: int = 50_000
    """decisions of the starting network's sampled play, per table, that the value net is fitted to first"""
    value_epochs: int = 3
    """passes of that fit over them"""
    eval_deals: int = 200
    """duplicate deals per table in the final evaluation"""
    eval_opponent: str = "heuristic"
    """the agent at the other seats in the evaluation, as a spec"""

    def check(self) -> None:
        super().check()
        if not self.tables:
            raise ValueError("tables: name at least one table")
        for key in self.tables:
            table_rules(key, self.rules)  # a well-formed key of a table the rules allow
        if len(set(self.tables)) != len(self.tables):
            raise ValueError(f"tables: a table is named twice: {' '.join(self.tables)}")
        for name in ("num_envs", "n_steps", "n_epochs", "value_decisions", "value_epochs", "eval_deals"):
            check_at_least(name, getattr(self, name), 1)
        check_at_least("total_timesteps", self.total_timesteps, 0)
        check_at_least("batch_size", self.batch_size, 2)  # advantages are normalized over each minibatch
        if not 0 < self.learning_rate < math.inf:
            raise ValueError(f"learning_rate must be > 0, got {self.learning_rate}")
        if not 0 <= self.ent_coef < math.inf:
            raise ValueError(f"ent_coef must be >= 0, got {self.ent_coef}")
        for name in ("gamma", "gae_lambda"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} must be in 0..1, got {getattr(self, name)}")
        check_choice("reward", self.reward, REWARD_MODES)
        if not self.opponents:
            raise ValueError("opponents: name at least one agent")
        for spec in self.opponents:
            check_choice("opponents", parse_spec(spec)[0], (*AGENTS, SELF))
        check_choice("eval_opponent", parse_spec(self.eval_opponent)[0], tuple(AGENTS))
        check_at_least("snapshot_every", self.snapshot_every, 1)
        steps = self.num_envs * len(self.tables) * self.n_steps
        size = SharedLayout(self.tables).size  # at least the starting network's inputs
        checks.fits_in_memory(f"a rollout of {steps:,} steps", steps * (4 * size + NUM_CARDS + 64))
        decisions = self.value_decisions * len(self.tables)
        checks.fits_in_memory(f"{decisions:,} decisions for the value fit", decisions * (4 * size + NUM_CARDS + 64))

    def table(self, key: str) -> HeartsRules:
        """The rules of table ``key``: the run's knobs with the table's player count, decks and JD rule."""
        return table_rules(key, self.rules)

    def seat_specs(self, key: str) -> list[str]:
        """The opponents' specs at table ``key``, one per seat after the learner's."""
        others = self.table(key).num_players - 1
        return [self.opponents[seat % len(self.opponents)] for seat in range(others)]


class EveryTableEnv(VecEnv):
    """The training tables of several rule sets as one SB3 ``VecEnv``: ``envs`` (table key ->
    ``SB3VecEnv``) in their order, each table's observations placed into ``shared``'s and scaled
    (float32), the actions and masks split and joined in the same order."""

    def __init__(self, envs: dict[str, SB3VecEnv], shared: SharedLayout) -> None:
        self.envs, self.shared = envs, shared
        self.inputs = {key: SharedInput(env.env.rules, shared) for key, env in envs.items()}
        self.bounds = np.cumsum([0] + [env.num_envs for env in envs.values()])
        space = spaces.Box(0.0, np.inf, (shared.size,), np.float32)
        first = next(iter(envs.values()))
        self.render_mode = None  # the tables draw nothing (SB3 asks every env for it)
        super().__init__(int(self.bounds[-1]), space, first.action_space)

    def _placed(self, key: str, observations: np.ndarray) -> np.ndarray:
        into = self.inputs[key]
        return into.counts(observations).astype(np.float32) * into.scale

    def reset(self) -> VecEnvObs:
        for i, env in enumerate(self.envs.values()):
            seed = self._seeds[self.bounds[i]]
            if seed is not None:
                env.seed(seed)
        self._reset_seeds()
        return np.concatenate([self._placed(key, np.asarray(env.reset())) for key, env in self.envs.items()])

    def step_async(self, actions: np.ndarray) -> None:
        for i, env in enumerate(self.envs.values()):
            env.step_async(actions[self.bounds[i] : self.bounds[i + 1]])

    def step_wait(self) -> VecEnvStepReturn:
        observations, rewards, dones, infos = [], [], [], []
        for key, env in self.envs.items():
            obs, reward, done, info = env.step_wait()
            for game in np.flatnonzero(done):
                info[game]["terminal_observation"] = self._placed(key, info[game]["terminal_observation"][None])[0]
            observations.append(self._placed(key, np.asarray(obs)))
            rewards.append(reward)
            dones.append(done)
            infos += info
        return np.concatenate(observations), np.concatenate(rewards), np.concatenate(dones), infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, 52) bool: each learner's legal cards."""
        return np.concatenate([env.action_masks() for env in self.envs.values()])

    def close(self) -> None:
        for env in self.envs.values():
            env.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        """``action_masks`` gives one (52,) mask per index (what MaskablePPO asks for)."""
        if method_name != "action_masks":
            raise NotImplementedError(f"EveryTableEnv has no method {method_name!r} for its games")
        return list(self.action_masks()[list(self._get_indices(indices))])

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]


def starting_network(config: EveryTableConfig) -> tuple[Path, dict[str, Any], SharedLayout, list[Layer]]:
    """The folder of the network the run starts from, its ``policy.json``, layout and layers;
    ``ValueError`` if it does not play every table of the run."""
    folder = Path(config.init_policy) if config.init_policy else SHIPPED_ONE
    try:
        meta, shared, layers = read_shared(folder)
    except ValueError as error:
        raise ValueError(f"init_policy: {error}") from None
    missing = [key for key in config.tables if key not in shared.tables]
    if missing:
        raise ValueError(
            f"init_policy: {folder} does not play the table {missing[0]} (it plays {' '.join(shared.tables)})"
        )
    return folder, meta, shared, layers


def learner_layers(model: LeanMaskablePPO) -> list[Layer]:
    """The (weight, bias) arrays of the model's policy net and action head, as the export holds them."""
    return [(layer.weight.detach().numpy(), layer.bias.detach().numpy()) for layer in policy_layers(model)]


class SelfSeats(PeriodicCallback):
    """The ``self`` seats: at each table the learner's network, sampling, its weights refreshed
    from the model's policy net every ``every`` timesteps."""

    def __init__(self, shared: SharedLayout, activation: str, layers: list[Layer], every: int, seed: int) -> None:
        super().__init__(every)
        self.shared, self.activation = shared, activation
        self.players = {
            key: table_network(key, shared, layers, activation, sample=True, seed=seed + i)
            for i, key in enumerate(shared.tables)
        }

    def fire(self) -> None:
        layers = learner_layers(self.model)
        for key, player in self.players.items():
            fresh = table_network(key, self.shared, layers, self.activation)
            player.set_weights(fresh.scale, fresh.layers)


def training_env(config: EveryTableConfig, shared: SharedLayout, selves: SelfSeats) -> EveryTableEnv:
    """``num_envs`` tables of each rule set, their opponents checked against the rules first."""
    envs = {}
    for i, key in enumerate(config.tables):
        seed = config.seed * len(config.tables) + i  # each table's opponents from a seed of their own
        specs = config.seat_specs(key)
        opponents = [selves.players[key] if spec == SELF else agent_from_spec(spec, seed) for spec in specs]
        evaluation = agent_from_spec(config.eval_opponent, seed)
        check_agents(config.table(key), [*zip(specs, opponents, strict=True), (config.eval_opponent, evaluation)])
        vector = HeartsVectorEnv(
            config.num_envs,
            config.table(key),
            opponents=opponents,
            reward=config.reward,
            episode="hand",
            learner_seat="rotate",
            trick_outcomes=True,
        )
        envs[key] = SB3VecEnv(vector)
    env = EveryTableEnv(envs, shared)
    env.seed(config.seed)
    return env


def build_model(config: EveryTableConfig, env: EveryTableEnv, activation: str, layers: list[Layer]) -> LeanMaskablePPO:
    """The model: the starting network as its policy net (the same shape), a value net of that shape."""
    hidden = [weight.shape[0] for weight, _ in layers[:-1]]
    features = {
        "features_extractor_class": ScaledObservation,
        "features_extractor_kwargs": {"scale": [1.0] * env.shared.size},
    }
    model = ppo_model(config, env, MaskedActorCritic, hidden, activation, features)  # the env scales each table
    with torch.no_grad():
        for layer, (weight, bias) in zip(policy_layers(model), layers, strict=True):
            layer.weight.copy_(torch.as_tensor(weight))
            layer.bias.copy_(torch.as_tensor(bias))
    return model


def fit_value(
    config: EveryTableConfig, model: LeanMaskablePPO, env: EveryTableEnv, activation: str, layers: list[Layer]
) -> dict[str, float]:
    """The value net fitted to the returns of the starting network's sampled play at every seat of
    each table (its policy net left as it is)."""
    parts = []
    for i, key in enumerate(config.tables):
        into, seed = env.inputs[key], config.seed * len(config.tables) + i
        player = table_network(key, into.shared, layers, activation, sample=True, seed=seed)
        demos = collect(
            config.table(key), player, config.value_decisions, seed, reward=config.reward, layout=into.layout
        )
        placed = into.counts(demos.observations).astype(np.float32) * into.scale
        parts.append(dataclasses.replace(demos, observations=placed))
    first_hand = np.cumsum([0] + [int(part.hands.max()) + 1 for part in parts[:-1]])
    joined = {
        name: np.concatenate([getattr(part, name) for part in parts])
        for name in ("observations", "masks", "actions", "returns", "seats")
    }
    hands = np.concatenate([part.hands + first for part, first in zip(parts, first_hand, strict=True)])
    return pretrain(
        model.policy,
        Demonstrations(**joined, hands=hands),
        epochs=config.value_epochs,
        action_coef=0.0,
        seed=config.seed,
    )


def evaluate(config: EveryTableConfig, folder: Path) -> dict[str, dict[str, float]]:
    """Each table's network of the export against ``eval_opponent`` at every other seat: points per
    hand minus the field, with its 95% half-width."""
    network = load_shared(folder, "trained")
    found = {}
    for key in config.tables:
        rules = config.table(key)
        field = [(config.eval_opponent, agent_from_spec(config.eval_opponent, config.seed))] * (rules.num_players - 1)
        match = play_match(rules, [("trained", network.members[key]), *field], config.eval_deals, config.seed, "hand")
        difference = match.difference("trained")
        found[key] = {"minus_field": difference.mean, "half_width": difference.half_width}
    return found


def main(config: EveryTableConfig) -> Path:
    """Fit the value net, train, export and evaluate; returns the run folder. Raises ``StartError``
    before anything is written if the run cannot start."""
    torch.manual_seed(config.seed)
    try:
        init, meta, shared, layers = starting_network(config)
        selves = SelfSeats(shared, meta["activation"], layers, config.snapshot_every, config.seed)
        env = training_env(config, shared, selves)
    except ValueError as error:
        raise StartError(str(error)) from None
    try:
        model = build_model(config, env, meta["activation"], layers)
        folder = make_run_folder(config.run_dir, config.exp_name, config.seed)
    except ValueError as error:
        env.close()
        raise StartError(str(error)) from None
    with contextlib.closing(env), removed_on_failure(folder):
        (folder / "config.json").write_text(json.dumps(config.to_dict(), indent=2) + "\n")
        model.set_logger(make_logger(folder, 0))
        start = weights_hash(load_shared(init, "init_policy"))
        report: dict[str, Any] = {"init_policy": {"path": str(init), "weights_sha256": start}}
        report["value_fit"] = fit_value(config, model, env, meta["activation"], layers)
        began = time.perf_counter()
        callbacks = [selves, *([ProgressCallback()] if config.progress_bar else [])]
        model.learn(total_timesteps=config.total_timesteps, callback=CallbackList(callbacks))
        report["steps_per_second"] = model.num_timesteps / (time.perf_counter() - began)
        trained = learner_layers(model)
        made = {"recipe": "hearts_env.train.ppo.every_table", **config.to_dict(), "init_weights_sha256": start}
        export(folder, shared.tables, trained, meta["activation"], made)
        report["evaluation"] = evaluate(config, folder)
        (folder / "train.json").write_text(json.dumps(report, indent=2) + "\n")
    return folder


def report_lines(folder: Path) -> list[str]:
    """The run folder and each table's evaluation, as the command prints them."""
    report = json.loads((folder / "train.json").read_text())
    rows = [f"{key}: {row['minus_field']:+.2f} ± {row['half_width']:.2f}" for key, row in report["evaluation"].items()]
    return [str(folder), "points a hand minus the field: " + ", ".join(rows)]


if __name__ == "__main__":
    from hearts_env.train.cli import every_table

    every_table()
