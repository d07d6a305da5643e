"""Train one policy for passing and playing with sb3-contrib's MaskablePPO against rule-based opponents.

The learner sits one seat (rotating) of ``HeartsVectorEnv`` tables; the other seats are played by
the ``opponents`` (agents of ``agents/`` by name). The observation holds the phase, so one policy
learns both the pass and the play. Every ``eval_every`` timesteps the current policy plays
``eval_deals`` duplicate hands in the arena against three ``eval_opponent`` agents; its points per
hand and the difference to the field (95% intervals) go to TensorBoard under ``charts/``
(SB3's own scalars are under ``rollout/`` and ``train/``).

A run writes ``{run_dir}/{env}__{exp_name}__{seed}__{time}/``: ``config.json``, TensorBoard event
files, ``checkpoint.zip`` (SB3's ``model.save``, for resuming with ``MaskablePPO.load``), and the
export for ``agents.trained.TrainedPolicy``: ``policy.npz`` (the policy MLP's arrays) and
``policy.json`` (layout version, rules, net shape, activation).

    python -m train.ppo --total-timesteps 200000 --opponents random,simple,heuristic
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.logger import configure
from stable_baselines3.common.vec_env import VecMonitor

from agents import make_agent
from agents.trained import FORMAT, META_FILE, WEIGHTS_FILE
from hearts_env.arena import play_match
from hearts_env.gym_env import HeartsVectorEnv
from hearts_env.infoset import InfoSet
from hearts_env.observation import LAYOUT_VERSION, ObservationLayout, encode
from hearts_env.policy import Policy
from hearts_env.rules import HeartsRules
from hearts_env.sb3 import SB3VecEnv

ENV_ID = "hearts_v0"
ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


@dataclass
class PPOConfig:
    exp_name: str = "ppo"
    """the name of this experiment (part of the run folder's name)"""
    seed: int = 1
    """seed of the environments, the opponents and the network"""
    num_players: int = 4
    """players at the table (3..7)"""
    reward: str = "points"
    """reward mode of HeartsVectorEnv: points, hand, zero_sum or win"""
    episode: str = "hand"
    """episode length: hand (scores carry over to the next hand of the game) or game"""
    opponents: list[str] = field(default_factory=lambda: ["heuristic"])
    """opponent agents by name: one for every other seat, or one per seat from the learner's left"""
    num_envs: int = 64
    """tables played in parallel"""
    total_timesteps: int = 262_144
    """learner decisions to train on"""
    n_steps: int = 128
    """steps per table per rollout (a rollout is num_envs * n_steps decisions)"""
    batch_size: int = 1024
    """minibatch size of the PPO update"""
    n_epochs: int = 10
    """PPO epochs over each rollout"""
    learning_rate: float = 1e-3
    """Adam learning rate"""
    gamma: float = 0.99
    """discount factor"""
    gae_lambda: float = 0.95
    """lambda of generalised advantage estimation"""
    ent_coef: float = 0.01
    """entropy bonus coefficient"""
    net_arch: str = "256,256"
    """hidden layer widths of the policy and value MLPs (separate networks), comma separated"""
    activation: str = "tanh"
    """hidden layer activation: tanh or relu"""
    eval_every: int = 65_536
    """timesteps between arena evaluations (0: only at the end)"""
    eval_deals: int = 200
    """duplicate deals per evaluation (each played once per seat rotation, one hand each)"""
    eval_opponent: str = "heuristic"
    """the agent at the other seats in evaluations"""
    run_dir: str = "runs"
    """folder that holds the run folders"""
    device: str = "cpu"
    """torch device"""
    progress_bar: bool = True
    """show a progress bar over timesteps"""
    verbose: int = 0
    """SB3 verbosity (1 prints the training tables)"""

    def __post_init__(self) -> None:
        if isinstance(self.opponents, str):
            self.opponents = [name for name in self.opponents.split(",") if name]

    @property
    def hidden(self) -> list[int]:
        return [int(width) for width in self.net_arch.split(",") if width.strip()]


def _field_docs() -> dict[str, str]:
    """Each field's one-line doc: the string literal after it in the class body."""
    import ast
    import inspect

    docs, previous = {}, None
    for node in ast.parse(inspect.getsource(PPOConfig)).body[0].body:
        if isinstance(node, ast.AnnAssign):
            previous = node.target.id
        elif previous and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            docs[previous] = node.value.value
            previous = None
    return docs


def _parse_bool(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def parse_args(argv: Sequence[str] | None = None) -> PPOConfig:
    """A ``PPOConfig`` from command-line flags (``--total-timesteps 100000``; lists comma separated)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], prog="python -m train.ppo")
    docs = _field_docs()
    for f in dataclasses.fields(PPOConfig):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        kind = {int: int, float: float, bool: _parse_bool}.get(type(default), str)
        shown = ",".join(default) if isinstance(default, list) else default
        parser.add_argument(
            f"--{f.name.replace('_', '-')}",
            type=kind,
            default=shown,
            help=f"{docs.get(f.name, '')} (default: {shown})",
        )
    return PPOConfig(**vars(parser.parse_args(argv)))


def make_opponents(config: PPOConfig) -> Policy | list[Policy]:
    """One agent for every other seat, or one per seat, built by name with seeds from the config."""
    names, others = config.opponents, config.num_players - 1
    if len(names) == 1:
        return make_agent(names[0], seed=config.seed)
    if len(names) != others:
        raise ValueError(f"opponents: give 1 name or {others} (one per other seat), got {len(names)}: {names}")
    return [make_agent(name, seed=config.seed + j) for j, name in enumerate(names)]


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
    rules = HeartsRules(num_players=config.num_players)
    candidate = ModelPolicy(model, ObservationLayout(rules))
    field = make_agent(config.eval_opponent, seed=seed)
    entries = [("trained", candidate)] + [(config.eval_opponent, field)] * (config.num_players - 1)
    result = play_match(rules, entries, deals=config.eval_deals, seed=seed, games="hand")
    points, diff = result.estimate("trained"), result.difference("trained")
    return {
        "charts/eval_points_per_hand": points.mean,
        "charts/eval_points_per_hand_ci": points.half_width,
        "charts/eval_diff_vs_field": diff.mean,
        "charts/eval_diff_vs_field_ci": diff.half_width,
        "charts/eval_win_rate": result.estimate("trained", "win_rate").mean,
    }


class EvalCallback(BaseCallback):
    """Arena evaluation every ``config.eval_every`` timesteps and at the end, logged under ``charts/``."""

    def __init__(self, config: PPOConfig) -> None:
        super().__init__()
        self.config = config
        self.next_eval = config.eval_every if config.eval_every > 0 else None
        self.history: list[dict[str, float]] = []

    def _on_step(self) -> bool:
        if self.next_eval is not None and self.num_timesteps >= self.next_eval:
            self.run_eval()
            while self.next_eval <= self.num_timesteps:
                self.next_eval += self.config.eval_every
        return True

    def _on_training_end(self) -> None:
        if not self.history or self.history[-1]["timesteps"] != self.num_timesteps:
            self.run_eval()
            self.logger.dump(self.num_timesteps)

    def run_eval(self) -> None:
        start = time.perf_counter()
        scores = evaluate(self.model, self.config, seed=self.config.seed + 10_000)
        scores["charts/eval_seconds"] = time.perf_counter() - start
        for key, value in scores.items():
            self.logger.record(key, value)
        self.history.append({"timesteps": self.num_timesteps, **scores})
        if self.config.verbose:
            print(f"eval @ {self.num_timesteps}: {scores}")


class ProgressCallback(BaseCallback):
    """A tqdm bar over timesteps (SB3's own bar needs rich as well)."""

    def _on_training_start(self) -> None:
        from tqdm.auto import tqdm

        self.bar = tqdm(total=self.locals["total_timesteps"], unit="step", file=sys.stderr)

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        return True

    def _on_training_end(self) -> None:
        self.bar.close()


def run_name(config: PPOConfig) -> str:
    return f"{ENV_ID}__{config.exp_name}__{config.seed}__{int(time.time())}"


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
            "activation_fn": ACTIVATIONS[config.activation],
        },
        seed=config.seed,
        device=config.device,
        verbose=config.verbose,
    )


def export_policy(model: MaskablePPO, folder: Path, rules: HeartsRules, config: PPOConfig) -> None:
    """Write ``policy.npz`` (the policy MLP's and action head's weights, float32) and ``policy.json``."""
    policy = model.policy
    linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    arrays, names = {}, []
    for i, layer in enumerate([*linears, policy.action_net]):
        name = f"pi.{i}" if i < len(linears) else "action"
        arrays[f"{name}.weight"] = layer.weight.detach().cpu().numpy().astype(np.float32)
        arrays[f"{name}.bias"] = layer.bias.detach().cpu().numpy().astype(np.float32)
        names.append(name)
    np.savez(folder / WEIGHTS_FILE, **arrays)
    rules_knobs = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules) if f.init}
    meta = {
        "format": FORMAT,
        "layout_version": LAYOUT_VERSION,
        "num_players": rules.num_players,
        "rules": rules_knobs,
        "history": False,
        "obs_size": ObservationLayout(rules).size,
        "net_arch": config.hidden,
        "layers": names,
        "activation": config.activation,
        "trained_on": {"algorithm": "MaskablePPO", "timesteps": int(model.num_timesteps), "run": folder.name},
    }
    (folder / META_FILE).write_text(json.dumps(meta, indent=2) + "\n")


def main(config: PPOConfig) -> Path:
    """Train, evaluate and export; returns the run folder."""
    if config.activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {config.activation!r}")
    folder = Path(config.run_dir) / run_name(config)
    folder.mkdir(parents=True, exist_ok=False)
    (folder / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2) + "\n")

    rules = HeartsRules(num_players=config.num_players)
    env = SB3VecEnv(
        HeartsVectorEnv(
            config.num_envs,
            rules,
            opponents=make_opponents(config),
            reward=config.reward,
            episode=config.episode,
            learner_seat="rotate",
        )
    )
    model = build_model(config, env)
    model.set_logger(configure(str(folder), ["tensorboard", "csv"] + (["stdout"] if config.verbose else [])))

    evaluation = EvalCallback(config)
    callbacks: list[BaseCallback] = [evaluation]
    if config.progress_bar:
        callbacks.append(ProgressCallback())
    model.learn(total_timesteps=config.total_timesteps, callback=CallbackList(callbacks))

    model.save(folder / "checkpoint.zip")
    export_policy(model, folder, rules, config)
    (folder / "eval.json").write_text(json.dumps(evaluation.history, indent=2) + "\n")
    env.close()
    return folder


def cli(argv: Sequence[str] | None = None) -> None:
    folder = main(parse_args(argv))
    print(folder)


if __name__ == "__main__":
    cli()
