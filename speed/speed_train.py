"""Training throughput of ``hearts_env.train.ppo`` on this machine: environment steps per second while
collecting rollouts and while updating, apart, for the default configuration (cloning skipped,
evaluation only at the end), and where the collection time goes; then the arithmetic alone: the same
two MLPs run forward on collection batches and forward and backward on update minibatches, with
nothing else, which bounds what any trainer of this configuration can reach on the machine; with
``--against``, the same configuration with other opponents at every other seat in the same run, and its
ratio to the default.

    python speed/speed_train.py --total-timesteps 1000000
    python speed/speed_train.py --total-timesteps 500000 --against ppo   # hearts-bench exploit ppo's training
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

import torch

from hearts_env.engine.cards import NUM_CARDS
from hearts_env.engine.observation import ObservationLayout
from hearts_env.envs.sb3 import SB3VecEnv
from hearts_env.train.ppo import PPOConfig, main
from hearts_env.train.ppo.trainer import ACTIVATION_MODULES


def run(total_timesteps: int, seed: int, opponents: list[str] | None = None) -> dict[str, float]:
    """Train with the defaults (other ``opponents``, if given); returns the run's throughput and the
    share of collection spent in the env."""
    spent = {"env": 0.0}
    step_wait = SB3VecEnv.step_wait

    def timed(self: SB3VecEnv):  # the env's side of a collection step: opponents, core, observations
        start = time.perf_counter()
        result = step_wait(self)
        spent["env"] += time.perf_counter() - start
        return result

    SB3VecEnv.step_wait = timed
    try:
        with tempfile.TemporaryDirectory() as folder:
            config = PPOConfig(
                total_timesteps=total_timesteps,
                bc_teacher="",
                eval_every=0,
                eval_deals=20,
                seed=seed,
                run_dir=folder,
                progress_bar=False,
                **({"opponents": opponents} if opponents else {}),
            )
            run_folder = main(config)
            report = json.loads((run_folder / "train.json").read_text())["throughput"]
    finally:
        SB3VecEnv.step_wait = step_wait
    collect_seconds = total_timesteps / report["collect_steps_per_second"]
    return report | {"env_share_of_collection": spent["env"] / collect_seconds}


def arithmetic_only(config: PPOConfig, seconds: float = 3.0) -> dict[str, float]:
    """Steps per second of the default networks' arithmetic alone: the policy and value MLPs forward
    on batches of ``num_envs`` observations (collection) and forward and backward on minibatches of
    ``batch_size``, ``n_epochs`` times a step (the update), with random inputs and nothing else."""

    def mlp(outputs: int) -> torch.nn.Sequential:
        widths = [ObservationLayout(config.rules).size, *config.hidden]
        layers: list[torch.nn.Module] = []
        for n_in, n_out in zip(widths, widths[1:], strict=False):
            layers += [torch.nn.Linear(n_in, n_out), ACTIVATION_MODULES[config.activation]()]
        return torch.nn.Sequential(*layers, torch.nn.Linear(widths[-1], outputs))

    policy, value = mlp(NUM_CARDS), mlp(1)
    size = ObservationLayout(config.rules).size

    def rate(rows: int, backward: bool) -> float:
        batch, calls, start = torch.rand(rows, size), 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            with torch.set_grad_enabled(backward):
                loss = policy(batch).sum() + value(batch).sum()
            if backward:
                loss.backward()
            calls += 1
        return calls * rows / (time.perf_counter() - start)

    collect = rate(config.num_envs, backward=False)
    update = rate(config.batch_size, backward=True) / config.n_epochs
    overall = 1 / (1 / collect + 1 / update)
    return {"collect_steps_per_second": collect, "update_steps_per_second": update, "steps_per_second": overall}


def main_cli(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--total-timesteps", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--against", metavar="SPEC", default=None, help="also train against this agent at every seat")
    args = parser.parse_args(argv)
    result = run(args.total_timesteps, args.seed)
    _print("default opponents", result)
    _print(
        "the networks' arithmetic alone (forward to collect; forward and backward, n_epochs times, to update)",
        arithmetic_only(PPOConfig()),
    )
    if args.against:
        other = run(args.total_timesteps, args.seed, [args.against])
        _print(f"against {args.against} x3", other)
        print(f"ratio: {other['steps_per_second'] / result['steps_per_second']:.2f} of the default's steps per second")


def _print(title: str, result: dict[str, float]) -> None:
    share = result.get("env_share_of_collection")
    print(f"{title}:")
    print(f"  collection: {result['collect_steps_per_second']:,.0f} steps/s", end="")
    print(f" ({share:.0%} of it in the env: opponents, core, observations)" if share is not None else "")
    print(f"  update:     {result['update_steps_per_second']:,.0f} steps/s")
    print(f"  overall:    {result['steps_per_second']:,.0f} steps/s")


if __name__ == "__main__":
    main_cli()
