"""Train a masked PPO policy with RLlib, on this machine or on a Ray cluster.

Two modes, picked by ``opponents``:

- ``self`` (self-play): the PettingZoo env (``hearts_env.env()``) through RLlib's multi-agent API
  (``hearts_env.envs.rllib``): one shared module plays and learns at every seat. A timestep is one
  decision of any seat; episodes are whole games (``episode="game"``; ``--target-score 0`` plays
  one-hand games).
- agent names (``heuristic``; ``random,simple,heuristic`` one per other seat): the learner sits one
  seat (rotating) of ``HeartsVectorEnv`` tables, the other seats are played by those agents inside
  the env, as in ``hearts_env.train.ppo``; each env runner steps its ``num_envs`` tables together through
  RLlib's single-agent API (``hearts_env.envs.rllib.MaskedFloatVectorObservations``). A timestep is one
  learner decision.

``num_env_runners`` Ray actors (one CPU each) sample the games, each ``num_envs`` tables for
``n_steps`` steps a rollout (0: sample in this process); the PPO update runs here, in the driver
(RLlib's local learner), and the new weights go back to the runners after every update. Without
``address`` Ray starts on this machine; ``--address auto`` (or ``HOST:PORT``) joins a running
cluster. The update is ``hearts_env.train.ppo``'s (sb3-contrib's MaskablePPO): clip range 0.2 and no KL
penalty, value loss coefficient 0.5 without clipping, gradient norm clipped at 0.5, and the same
network (separate policy and value MLPs over the scaled observation), learning rate, gamma,
lambda, entropy coefficient, epochs and minibatch size.

The settings mean what they mean in ``hearts_env.train.ppo`` (the same flags); every rules knob is a flag.
Everything is checked before the run folder is made (settings, opponents against the rules,
joining Ray, building the algorithm): a run that cannot start writes nothing.

A run writes ``{run_dir}/{env}__{exp_name}__{seed}__{time}/``: ``config.json``, TensorBoard event
files and ``progress.csv`` in CleanRL's layout (``charts/``: ``episodic_return`` (a seat's, in
self-play), ``episodic_length``, ``SPS``, ``collect_SPS`` and ``update_SPS`` (an iteration's
timesteps over its sampling time and over its update time), ``learning_rate``, the evaluations;
``losses/``: ``policy_loss``, ``value_loss``, ``entropy``, ``explained_variance``,
``total_loss``), ``eval.json`` (every arena evaluation against ``eval_opponent``), ``train.json``
(throughput), and the export ``policy.npz`` + ``policy.json`` in ``hearts_env.train.ppo``'s format:
``make_agent("trained", path=...)`` (``hearts_env.agents.learned.trained.TrainedPolicy``) plays it without torch,
no RLlib checkpoint needed. (RLlib also makes an empty folder in ``~/ray_results`` per run.)

    hearts-train-rllib --total-timesteps 2000000 --num-env-runners 2               # vs 3 heuristic
    hearts-train-rllib --opponents self --num-envs 16 --address auto --num-env-runners 32   # self-play
"""

from __future__ import annotations

import csv
import json
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from hearts_env.agents.learned.trained import MLPPolicy
from hearts_env.agents.specs import agent_from_spec, check_agents
from hearts_env.arena.sharding import init_ray, ray_failure
from hearts_env.engine.observation import ObservationLayout
from hearts_env.engine.rules import HeartsRules
from hearts_env.envs import rllib
from hearts_env.envs.gym_env import HeartsVectorEnv
from hearts_env.play.progress import progress_bar
from hearts_env.train.config import SELF, PPOSettings, StartError, check_at_least, parse_config
from hearts_env.train.run_files import evaluate_policy, make_run_folder, write_policy

TABLES_ENV = "hearts_tables_v0"
"""The name ``table_env_creator`` is registered under with Ray Tune."""


@dataclass
class RLlibPPOConfig(PPOSettings):
    exp_name: str = "rllib_ppo"
    episode: str = "game"
    """episode length: game, or hand (scores carry over to the next hand; named opponents only)"""
    opponents: list[str] = field(default_factory=lambda: ["heuristic"])
    """opponent agents by name, one for every other seat or one per seat; self: self-play (the learner at every seat)"""
    num_env_runners: int = 1
    """Ray actors that sample (one CPU each; 0: sample in this process)"""
    address: str = ""
    """the Ray cluster to join (auto, HOST:PORT); empty: start Ray on this machine"""
    batch_size: int = 4096
    n_epochs: int = 4
    learning_rate: float = 1e-4

    OPPONENTS: ClassVar[tuple[str, ...]] = (SELF,)
    CRITICS: ClassVar[tuple[str, ...]] = ("observation",)  # RLlib's module reads the observation only

    def check(self) -> None:
        """Raise ``ValueError`` naming the first setting out of its range."""
        super().check()
        check_at_least("num_env_runners", self.num_env_runners, 0)
        if self.batch_size > self.rollout:
            raise ValueError(
                f"batch_size must be <= the rollout, num_envs * n_steps * max(1, num_env_runners) = {self.rollout}, "
                f"got {self.batch_size}"
            )
        if self.self_play:
            if self.episode != "game":
                raise ValueError("episode: self-play plays whole games (--episode game; --target-score 0: one hand)")
        elif SELF in self.opponents:
            raise ValueError(f"opponents: self (self-play) fills every seat and takes no other names: {self.opponents}")
        else:
            self.check_opponent_count()

    @property
    def self_play(self) -> bool:
        return self.opponents == [SELF]

    @property
    def rollout(self) -> int:
        """Timesteps sampled per training iteration."""
        return self.num_envs * self.n_steps * max(1, self.num_env_runners)


def parse_args(argv: Sequence[str] | None = None) -> RLlibPPOConfig:
    """An ``RLlibPPOConfig`` from command-line flags."""
    return parse_config(RLlibPPOConfig, argv, "hearts-train-rllib", __doc__.split("\n\n")[0])


# ---------------------------------------------------------------------------------------------
# Environments and the algorithm


def table_env_creator(env_config: Mapping[str, Any]) -> rllib.MaskedFloatVectorObservations:
    """The env of the named-opponents mode, as RLlib's ``VECTOR_ENTRY_POINT`` asks for it:
    ``env_config["num_envs"]`` tables of ``HeartsVectorEnv`` (NEXT_STEP auto-reset, rotating
    learner seat) with the opponents built here, in the env runner, by name."""
    config = dict(env_config)
    rules = HeartsRules.from_dict(config["rules"])
    names, seed = config["opponents"], config["seed"]
    agents = [agent_from_spec(name, seed + j) for j, name in enumerate(names)]
    tables = HeartsVectorEnv(
        config["num_envs"],
        rules,
        opponents=agents[0] if len(agents) == 1 else agents,
        reward=config["reward"],
        episode=config["episode"],
        learner_seat="rotate",
        autoreset_mode="NextStep",
    )
    return rllib.MaskedFloatVectorObservations(tables)


def model_config(config: RLlibPPOConfig) -> dict[str, Any]:
    """RLlib's ``DefaultModelConfig`` of ``hearts_env.train.ppo``'s network: separate policy and value MLPs,
    each head one linear layer."""
    return {
        "fcnet_hiddens": config.hidden,
        "fcnet_activation": config.activation,
        "vf_share_layers": False,
        "head_fcnet_hiddens": [],
    }


def algorithm_config(config: RLlibPPOConfig) -> Any:
    """RLlib's ``PPOConfig`` for these settings (self-play over the PettingZoo env, or one learner
    seat of the vector env against the named opponents)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.tune.registry import register_env

    if config.self_play:
        env_config = {**config.rules.to_dict(), "reward": config.reward}  # hearts_env.env()'s keywords
        algo = rllib.ppo_config(env_config, model_config(config)).env_runners(gym_env_vectorize_mode="sync")
    else:
        env_config = {
            "rules": config.rules.to_dict(),
            "opponents": config.opponents,
            "seed": config.seed,
            "reward": config.reward,
            "episode": config.episode,
        }
        register_env(TABLES_ENV, table_env_creator)
        algo = (
            PPOConfig()
            .environment(TABLES_ENV, env_config=env_config)
            .env_runners(gym_env_vectorize_mode="vector_entry_point")
            .rl_module(rl_module_spec=rllib.module_spec(model_config(config)))
        )
    return (
        algo.environment(disable_env_checking=True)  # its checker steps unmasked random cards
        .env_runners(
            num_env_runners=config.num_env_runners,
            num_envs_per_env_runner=config.num_envs,
            rollout_fragment_length=config.n_steps,
        )
        .learners(num_learners=0)  # the update runs in this process
        .training(
            train_batch_size_per_learner=config.rollout,
            minibatch_size=config.batch_size,
            num_epochs=config.n_epochs,
            lr=config.learning_rate,
            gamma=config.gamma,
            lambda_=config.gae_lambda,
            entropy_coeff=config.ent_coef,
            clip_param=0.2,
            use_kl_loss=False,
            vf_loss_coeff=0.5,
            vf_clip_param=math.inf,
            grad_clip=0.5,
            grad_clip_by="global_norm",
        )
        .debugging(seed=config.seed)
    )


def module_id(config: RLlibPPOConfig) -> str:
    from ray.rllib.core import DEFAULT_MODULE_ID

    return rllib.MODULE_ID if config.self_play else DEFAULT_MODULE_ID


# ---------------------------------------------------------------------------------------------
# Export and evaluation


def policy_arrays(weights: Mapping[str, np.ndarray], rules: HeartsRules) -> tuple[dict[str, np.ndarray], list[str]]:
    """The input scale and the policy MLP's layers (float32) from the learner's weights of the
    module (``encoder.actor_encoder`` then the ``pi`` head), named as ``hearts_env.train.ppo`` names them."""

    def linears(prefix: str) -> list[tuple[np.ndarray, np.ndarray]]:
        indices = sorted(int(k[len(prefix) :].split(".")[0]) for k in weights if k.startswith(prefix))
        return [(weights[f"{prefix}{i}.weight"], weights[f"{prefix}{i}.bias"]) for i in dict.fromkeys(indices)]

    hidden, head = linears("encoder.actor_encoder.net.mlp."), linears("pi.net.mlp.")
    if not hidden or len(head) != 1:
        raise ValueError(f"expected an actor encoder MLP and a one-layer policy head, got weights {sorted(weights)}")
    arrays = {"input.scale": ObservationLayout(rules).scale().astype(np.float32)}
    names = [f"pi.{i}" for i in range(len(hidden))] + ["action"]
    for name, (weight, bias) in zip(names, [*hidden, *head], strict=True):
        arrays[f"{name}.weight"] = np.asarray(weight, np.float32)
        arrays[f"{name}.bias"] = np.asarray(bias, np.float32)
    return arrays, names


def numpy_policy(arrays: Mapping[str, np.ndarray], names: list[str], config: RLlibPPOConfig) -> MLPPolicy:
    """The exported policy as an agent (numpy, top legal card)."""
    layers = [(arrays[f"{name}.weight"], arrays[f"{name}.bias"]) for name in names]
    return MLPPolicy(config.rules, arrays["input.scale"], layers, config.activation)


def export_policy(
    arrays: Mapping[str, np.ndarray], names: list[str], folder: Path, config: RLlibPPOConfig, timesteps: int
) -> None:
    """Write ``policy.npz`` and ``policy.json`` in ``hearts_env.train.ppo``'s format
    (``hearts_env.agents.learned.trained``)."""
    algorithm = "RLlib PPO (self-play)" if config.self_play else "RLlib PPO"
    trained_on = {"algorithm": algorithm, "timesteps": timesteps}
    write_policy(folder, arrays, names, config.rules, config.hidden, config.activation, trained_on)


# ---------------------------------------------------------------------------------------------
# Logging


_LOSSES = {
    "policy_loss": "policy_loss",
    "vf_loss": "value_loss",
    "entropy": "entropy",
    "vf_explained_var": "explained_variance",
    "total_loss": "total_loss",
}
"""RLlib's learner statistics and their names under ``losses/``."""


def scalars(
    result: Mapping[str, Any], config: RLlibPPOConfig, steps: int, seconds: float, update_seconds: float
) -> dict[str, float]:
    """An iteration's scalars from RLlib's result and its timing (``seconds`` in all, of which
    ``update_seconds`` in the learner's update), in CleanRL's layout (``charts/``, ``losses/``)."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(module_id(config), {})
    out: dict[str, float] = {"charts/SPS": steps / seconds}
    if config.self_play:  # the episode's return summed over the seats: report a seat's
        returns = list(runners.get("agent_episode_returns_mean", {}).values())
        episode_return = float(np.mean(returns)) if returns else math.nan
    else:
        episode_return = runners.get("episode_return_mean", math.nan)
    for name, value in (
        ("charts/episodic_return", episode_return),
        ("charts/episodic_length", runners.get("episode_len_mean", math.nan)),
        ("charts/collect_SPS", steps / max(seconds - update_seconds, 1e-9)),
        ("charts/update_SPS", steps / max(update_seconds, 1e-9)),
        ("charts/learning_rate", learner.get("default_optimizer_learning_rate", math.nan)),
        *((f"losses/{ours}", learner.get(theirs, math.nan)) for theirs, ours in _LOSSES.items()),
    ):
        if value is not None and math.isfinite(value):
            out[name] = float(value)
    return out


class UpdateClock:
    """Times the learner's updates by wrapping ``algo.learner_group.update`` (RLlib's own timers
    are moving averages that the first iteration dominates): ``seconds`` spent updating so far.
    The rest of an iteration is the collection (the env runners' sampling and the weights' sync)."""

    def __init__(self, algo: Any) -> None:
        self.seconds = 0.0
        self._update = algo.learner_group.update
        algo.learner_group.update = self

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return self._update(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start


class RunLog:
    """TensorBoard scalars (tensorboardX, which Ray Tune installs) and ``progress.csv`` (one row
    per iteration, every scalar seen so far as a column)."""

    def __init__(self, folder: Path) -> None:
        from tensorboardX import SummaryWriter

        self.writer = SummaryWriter(str(folder))
        self.path = folder / "progress.csv"
        self.rows: list[dict[str, float]] = []

    def write(self, step: int, values: Mapping[str, float]) -> None:
        for name, value in values.items():
            self.writer.add_scalar(name, value, step)
        self.rows.append({"global_step": step, **values})
        columns = list(dict.fromkeys(key for row in self.rows for key in row))
        with self.path.open("w", newline="") as f:
            writer = csv.DictWriter(f, columns)
            writer.writeheader()
            writer.writerows(self.rows)

    def close(self) -> None:
        self.writer.close()


# ---------------------------------------------------------------------------------------------
# The run


def main(config: RLlibPPOConfig) -> Path:
    """Train, evaluate and export; returns the run folder. Joins Ray (or starts it here) unless
    this process has already initialized it, and shuts down what it started. Raises
    ``StartError`` before anything is written if the run cannot start."""
    import ray

    names = dict.fromkeys(name for name in [*config.opponents, config.eval_opponent] if name != SELF)
    try:
        check_agents(config.rules, [(name, agent_from_spec(name, 0)) for name in names])
    except ValueError as error:
        raise StartError(str(error)) from None
    try:
        started = init_ray(config.address or None)
    except (ConnectionError, RuntimeError, ValueError) as error:
        raise StartError(f"address: {ray_failure(config.address, error)}") from None
    try:
        return _train(config)
    finally:
        if started:
            ray.shutdown()


def _train(config: RLlibPPOConfig) -> Path:
    try:
        algo = algorithm_config(config).build_algo()
    except Exception as error:  # RLlib's own checks and its env runners' start-up failures
        raise StartError(f"RLlib cannot build the algorithm: {type(error).__name__}: {error}") from None
    try:
        folder = make_run_folder(config.run_dir, config.exp_name, config.seed)
    except ValueError as error:
        algo.stop()
        raise StartError(str(error)) from None
    (folder / "config.json").write_text(json.dumps(config.to_dict(), indent=2) + "\n")
    log = RunLog(folder)
    bar = _progress_bar(config)
    history: list[dict[str, float]] = []
    timesteps, train_seconds, next_eval = 0, 0.0, config.eval_every
    mid = module_id(config)
    clock = UpdateClock(algo)
    try:
        while timesteps < config.total_timesteps or not timesteps:
            start, updating = time.perf_counter(), clock.seconds
            result = algo.train()
            seconds, update_seconds = time.perf_counter() - start, clock.seconds - updating
            steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"]) - timesteps
            timesteps += steps
            train_seconds += seconds
            values = scalars(result, config, steps, seconds, update_seconds)
            done = timesteps >= config.total_timesteps
            if done or (config.eval_every and timesteps >= next_eval):
                arrays, names = policy_arrays(algo.learner_group.get_weights(module_ids=[mid])[mid], config.rules)
                policy = numpy_policy(arrays, names, config)
                evaluation = evaluate_policy(
                    policy, config.rules, config.eval_opponent, config.eval_deals, seed=config.seed + 10_000
                )
                history.append({"timesteps": timesteps, **evaluation})
                values |= evaluation
                while config.eval_every and next_eval <= timesteps:
                    next_eval += config.eval_every
            log.write(timesteps, values)
            if bar is not None:
                bar.update(steps)
            if config.verbose:
                shown = ", ".join(f"{k.split('/')[1]}={v:.4g}" for k, v in values.items())
                print(f"{timesteps} steps: {shown}", flush=True)
    finally:
        if bar is not None:
            bar.close()
        log.close()
        algo.stop()
    export_policy(arrays, names, folder, config, timesteps)
    report = {
        "mode": "self-play" if config.self_play else "opponents",
        "num_env_runners": config.num_env_runners,
        "num_envs": config.num_envs,
        "timesteps": timesteps,
        "train_seconds": train_seconds,
        "update_seconds": clock.seconds,
        "steps_per_second": timesteps / train_seconds,
        "collect_steps_per_second": timesteps / max(train_seconds - clock.seconds, 1e-9),
        "update_steps_per_second": timesteps / max(clock.seconds, 1e-9),
    }
    (folder / "eval.json").write_text(json.dumps(history, indent=2) + "\n")
    (folder / "train.json").write_text(json.dumps({"throughput": report}, indent=2) + "\n")
    return folder


def _progress_bar(config: RLlibPPOConfig) -> Any:
    return progress_bar(config.total_timesteps, "train", "step") if config.progress_bar else None


if __name__ == "__main__":
    from hearts_env.train.cli import rllib

    rllib()
