"""Training settings as typed dataclasses parsed into command lines (CleanRL's pattern), shared by
``hearts_env.train.ppo``, ``hearts_env.train.rllib_ppo`` and ``hearts_env.train.main_job``: each field is a flag
(``--total-timesteps 100000``; lists comma separated; a ``HeartsRules`` field becomes the rules
flags of ``hearts_env.rules.add_rules_arguments``) whose help is the field's docstring, and each
value is checked against the type of the field's default."""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
from collections.abc import Sequence
from typing import Any, TypeVar

from hearts_env.agents import AGENTS
from hearts_env.agents.specs import parse_spec
from hearts_env.gym_env import EPISODES
from hearts_env.rewards import REWARD_MODES
from hearts_env.rules import HeartsRules, add_rules_arguments, field_docs, rules_from_args

C = TypeVar("C")


def coerce_fields(config: Any) -> None:
    """Bring a config dataclass's values to its fields' types (comma-separated text to a list of
    names, a rules dict to ``HeartsRules``, an int to a float), then check each type: a wrong one
    raises ``ValueError`` naming the field."""
    for f in dataclasses.fields(config):
        value, default = getattr(config, f.name), _default(f)
        if isinstance(default, list) and isinstance(value, str):  # comma-separated text (the command line)
            value = [name for name in value.split(",") if name]
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


def _default(f: dataclasses.Field) -> Any:
    return f.default if f.default is not dataclasses.MISSING else f.default_factory()


def _check_type(name: str, value: object, default: object) -> None:
    """``value`` has the type of the field's default (no bool for an int; lists of str)."""
    kind = type(default)
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
    """The PPO settings both trainers share (``hearts_env.train.ppo``, ``hearts_env.train.rllib_ppo``): the update's
    hyperparameters, the reward and episode, the network, the opponents' and evaluation names."""
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
    check_choice("eval_opponent", config.eval_opponent, tuple(AGENTS))
    if not all(w.strip().isdigit() and int(w) > 0 for w in config.net_arch.split(",")):
        raise ValueError(f"net_arch must be positive layer widths separated by commas, got {config.net_arch!r}")


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
    """A config dataclass from command-line flags (``--total-timesteps 100000``; lists comma
    separated; a ``HeartsRules`` field as the rules flags of ``add_rules_arguments``). A bad value
    exits through ``parser.error`` naming it."""
    parser = argparse.ArgumentParser(description=description, prog=prog)
    docs = field_docs(cls)
    fields = dataclasses.fields(cls)
    for f in fields:
        default = _default(f)
        if isinstance(default, HeartsRules):
            add_rules_arguments(parser)
            continue
        kind = {int: int, float: float, bool: _parse_bool}.get(type(default), str)
        shown = ",".join(default) if isinstance(default, list) else default
        parser.add_argument(
            f"--{f.name.replace('_', '-')}",
            type=kind,
            default=shown,
            help=f"{docs.get(f.name, '')} (default: {shown})",
        )
    args = parser.parse_args(argv)
    rules = rules_from_args(args, parser)
    values = {f.name: rules if isinstance(_default(f), HeartsRules) else getattr(args, f.name) for f in fields}
    try:
        return cls(**values)
    except ValueError as error:
        parser.error(str(error))
