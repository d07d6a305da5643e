"""Training settings as typed dataclasses parsed into command lines (CleanRL's pattern): each field
is a flag (``--total-timesteps 100000``; a list takes several values, ``--opponents heuristic
pimc:worlds=8``, as the agents of ``hearts-arena``; a ``HeartsRules`` field becomes the rules flags
of ``hearts_env.engine.rules.add_rules_arguments``; a ``ray`` field, None by default, the ``--ray
[ADDRESS]`` flag of ``hearts_env.arena.sharding.add_ray_argument``) whose help is the field's
docstring, and each value is checked against the type of the field's default.

``RunConfig`` holds what every training run has (its name, seed, rules, runs folder, progress
bar); ``PPOSettings`` adds the PPO settings that ``hearts_env.train.ppo`` (MaskablePPO) and
``hearts_env.train.libraries.rllib_ppo`` (RLlib) share, flag for flag; each trainer's config extends one of
them (``expert_iteration.ExItConfig`` the first)."""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from hearts_env.agents import AGENTS
from hearts_env.agents.learned.trained import ACTIVATIONS
from hearts_env.agents.specs import parse_spec
from hearts_env.arena.sharding import RAY_MISSING, add_ray_argument, check_address, ray_failure
from hearts_env.cli.commands import Parser
from hearts_env.engine import seeding
from hearts_env.engine.rewards import REWARD_MODES
from hearts_env.engine.rules import HeartsRules, add_rules_arguments, field_docs, rules_from_args
from hearts_env.envs.learner_tables import EPISODES

C = TypeVar("C")

TRAINING_SEEDS = 2**32
"""Training seeds are below this: they seed stable-baselines3 and torch, which take 32-bit seeds."""

SELF = "self"
"""The opponent name of the learner itself: a frozen snapshot of it at a seat (``hearts-train``),
or self-play with the learner at every seat (``hearts-train-rllib``)."""


class StartError(ValueError):
    """The run cannot start (an opponent that cannot play the rules, a checkpoint that does not
    load, no Ray to join, a run folder that cannot be made, ...); raised before anything is written."""


@dataclass
class RunConfig:
    """What every training run has. Subclasses add their settings and extend ``check``."""

    exp_name: str = "run"
    """the name of this experiment (part of the run folder's name)"""
    seed: int = 1
    """seed of the environments, the opponents and the network"""
    rules: HeartsRules = field(default_factory=HeartsRules)
    """the rules of the games (a flag per knob: --num-players, --moon, ...)"""
    run_dir: str = "runs"
    """folder that holds the run folders"""
    progress_bar: bool = True
    """show a progress bar"""

    def __post_init__(self) -> None:
        coerce_fields(self)
        self.check()

    def check(self) -> None:
        """Raise ``ValueError`` naming the first setting out of its range."""
        check_name("exp_name", self.exp_name)
        seeding.check_seed(self.seed, "seed", below=TRAINING_SEEDS)
        if os.path.exists(self.run_dir) and not os.path.isdir(self.run_dir):
            raise ValueError(f"run_dir: cannot make the run folder: {self.run_dir} is not a folder")

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON-ready values (``type(config)(**d)`` reads them back)."""
        return config_dict(self)


@dataclass
class PPOSettings(RunConfig):
    """The PPO settings both trainers share (``hearts_env.train.ppo``, ``hearts_env.train.libraries.rllib_ppo``)."""

    reward: str = "points"
    """reward mode: points, hand, zero_sum or win (hearts_env.engine.rewards)"""
    episode: str = "hand"
    """episode length: hand (scores carry over to the next hand of the game) or game"""
    opponents: list[str] = field(default_factory=lambda: ["heuristic"])
    """opponent agent specs (pimc:worlds=8), one for every other seat or one per seat"""
    num_envs: int = 256
    """tables played at once (by each env runner, with RLlib)"""
    total_timesteps: int = 2_000_000
    """learner decisions to train on (in RLlib's self-play, every seat's)"""
    n_steps: int = 64
    """steps per table per rollout (a rollout is num_envs * n_steps decisions, per env runner with RLlib)"""
    batch_size: int = 1024
    """minibatch size of the PPO update"""
    n_epochs: int = 2
    """PPO epochs over each rollout"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    gamma: float = 1.0
    """discount factor"""
    gae_lambda: float = 0.95
    """lambda of generalised advantage estimation"""
    ent_coef: float = 0.001
    """entropy bonus coefficient"""
    net_arch: str = "256,256"
    """hidden layer widths of the policy and value MLPs (separate networks), comma separated"""
    activation: str = "relu"
    """hidden layer activation: tanh or relu"""
    critic: str = "observation"
    """what the value net reads: observation (the learner's), or state (that and the global state: every
    hand; the policy net still reads only the observation)"""
    eval_every: int = 500_000
    """timesteps between arena evaluations (0: only at the end)"""
    eval_deals: int = 200
    """duplicate deals per evaluation (each played once per seat rotation, one hand each)"""
    eval_opponent: str = "heuristic"
    """the agent at the other seats in evaluations, as a spec (pimc:worlds=8)"""
    verbose: int = 0
    """1 prints the training statistics as they come (SB3's tables; with RLlib a line per iteration)"""

    OPPONENTS: ClassVar[tuple[str, ...]] = ()
    CRITICS: ClassVar[tuple[str, ...]] = ("observation", "state")
    """What the trainer's value net can read (``critic``)."""
    """Opponent names the trainer takes besides the agents (``SELF``, ...)."""

    def check(self) -> None:
        super().check()
        for name in ("num_envs", "n_steps", "n_epochs", "eval_deals"):
            check_at_least(name, getattr(self, name), 1)
        for name in ("total_timesteps", "eval_every", "verbose"):
            check_at_least(name, getattr(self, name), 0)
        check_at_least("batch_size", self.batch_size, 2)  # advantages are normalized over each minibatch
        check_ppo_settings(self, tuple(ACTIVATIONS), (*AGENTS, *self.OPPONENTS))
        check_choice("critic", self.critic, self.CRITICS)

    @property
    def hidden(self) -> list[int]:
        """The hidden layer widths of ``net_arch``."""
        return net_arch_widths(self.net_arch)

    def check_opponent_count(self) -> None:
        """One opponent for every other seat, or one per other seat."""
        others = self.rules.num_players - 1
        if len(self.opponents) not in (1, others):
            raise ValueError(
                f"opponents: give 1 name or {others} (one per other seat), got {len(self.opponents)}: {self.opponents}"
            )


def coerce_fields(config: Any) -> None:
    """Bring a config dataclass's values to its fields' types (a rules dict to ``HeartsRules``, an
    int to a float, a tuple to a list), then check each type: a wrong one raises ``ValueError``
    naming the field."""
    for f in dataclasses.fields(config):
        value, default = getattr(config, f.name), default_of(f)
        if isinstance(default, list) and isinstance(value, tuple):
            value = list(value)
        elif isinstance(default, HeartsRules) and isinstance(value, dict):  # config.json loaded back
            value = HeartsRules.from_dict(value)
        elif isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        setattr(config, f.name, value)
        _check_type(f.name, value, default)


def config_dict(config: Any) -> dict[str, Any]:
    """A config dataclass's settings as JSON-ready values (``type(config)(**d)`` reads them back)."""
    values = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    return {k: v.to_dict() if isinstance(v, HeartsRules) else v for k, v in values.items()}


def default_of(f: dataclasses.Field) -> Any:
    """The default value of a config field."""
    return f.default if f.default is not dataclasses.MISSING else f.default_factory()


def _check_type(name: str, value: object, default: object) -> None:
    """``value`` has the type of the field's default (no bool for an int; lists of str; None or a
    str where the default is None)."""
    if default is None and value is None:
        return
    kind = str if default is None else type(default)
    if isinstance(value, bool) != (kind is bool) or not isinstance(value, kind):
        raise ValueError(f"{name} must be {kind.__name__}, got {value!r:.80}")
    if isinstance(value, list) and not all(isinstance(item, str) for item in value):
        raise ValueError(f"{name} must be a list of names, got {value!r:.80}")


def check_at_least(name: str, value: int, low: int) -> None:
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")


def check_choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name}: unknown {value!r}; choose from {', '.join(allowed)}")


def check_ppo_settings(config: Any, activations: Sequence[str], opponents: Sequence[str]) -> None:
    """The PPO settings both trainers share (``hearts_env.train.ppo``,
    ``hearts_env.train.libraries.rllib_ppo``): the update's hyperparameters, the reward and episode,
    the network, the opponents' and evaluation names."""
    if not 0 < config.learning_rate < math.inf:
        raise ValueError(f"learning_rate must be > 0, got {config.learning_rate}")
    for name in ("gamma", "gae_lambda"):
        if not 0 <= getattr(config, name) <= 1:
            raise ValueError(f"{name} must be in 0..1, got {getattr(config, name)}")
    if not 0 <= config.ent_coef < math.inf:
        raise ValueError(f"ent_coef must be >= 0, got {config.ent_coef}")
    check_choice("reward", config.reward, REWARD_MODES)
    check_choice("episode", config.episode, EPISODES)
    check_choice("activation", config.activation, tuple(activations))
    for spec in config.opponents:  # agent specs: name or name:key=value
        check_choice("opponents", parse_spec(spec)[0], tuple(opponents))
    check_choice("eval_opponent", parse_spec(config.eval_opponent)[0], tuple(AGENTS))
    net_arch_widths(config.net_arch)


def net_arch_widths(net_arch: str) -> list[int]:
    """The hidden layer widths of a ``net_arch`` setting ("256,256"); ``ValueError`` if it is not one."""
    if not all(w.strip().isdigit() and int(w) > 0 for w in net_arch.split(",")):
        raise ValueError(f"net_arch must be positive layer widths separated by commas, got {net_arch!r}")
    return [int(width) for width in net_arch.split(",")]


def check_ray(address: str | None) -> None:
    """A ``ray`` setting (None: no Ray; "": Ray started here; else a cluster's address): Ray
    installed, and a ``HOST:PORT`` that answers; ``ValueError`` at once otherwise."""
    if address is None:
        return
    if importlib.util.find_spec("ray") is None:
        raise ValueError(f"ray {RAY_MISSING}")
    try:
        check_address(address)
    except ConnectionError as error:
        raise ValueError(f"ray: {ray_failure(address, error)}") from None


def check_name(name: str, value: str) -> None:
    """A part of a folder name: not empty, not . or .., no path separator."""
    if value in ("", ".", "..") or any(sep in value for sep in ("/", "\\", os.sep)):
        raise ValueError(f"{name} must be a plain name (no / or \\, not . or ..), got {value!r}")


def _parse_bool(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def parse_config(cls: type[C], argv: Sequence[str] | None, prog: str, description: str) -> C:
    """A config dataclass from command-line flags (``--total-timesteps 100000``; a list field takes
    one or more values; a ``HeartsRules`` field as the rules flags of ``add_rules_arguments``). A
    bad value exits through ``parser.error`` naming it."""
    parser = Parser(description=description, prog=prog)
    docs = field_docs(cls)
    fields = dataclasses.fields(cls)
    for f in fields:
        default = default_of(f)
        if isinstance(default, HeartsRules):
            add_rules_arguments(parser)
            continue
        if f.name == "ray":
            add_ray_argument(parser, docs.get(f.name) or "run on Ray")
            continue
        kind = {int: int, float: float, bool: _parse_bool}.get(type(default), str)
        listed = isinstance(default, list)
        shown = " ".join(default) if listed else default
        parser.add_argument(
            f"--{f.name.replace('_', '-')}",
            type=kind,
            default=list(default) if listed else default,
            nargs="+" if listed else None,
            metavar="SPEC" if listed else None,
            help=f"{docs.get(f.name, '')} (default: {shown})",
        )
    args = parser.parse_args(argv)
    rules = rules_from_args(args, parser)
    values = {f.name: rules if isinstance(default_of(f), HeartsRules) else getattr(args, f.name) for f in fields}
    try:
        return cls(**values)
    except ValueError as error:
        parser.error(str(error))
