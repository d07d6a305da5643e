"""Training throughput of ``hearts_env.train.ppo`` on this machine: environment steps per second while
collecting rollouts and while updating, apart, for the default configuration (cloning skipped,
evaluation only at the end), and where the collection time goes; with ``--against``, the same
configuration with other opponents at every other seat in the same run, and its ratio to the default.

    python speed/speed_train.py --total-timesteps 1000000
    python speed/speed_train.py --total-timesteps 500000 --against ppo   # hearts-bench exploit ppo's training
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

from hearts_env.envs.sb3 import SB3VecEnv
from hearts_env.train.ppo import PPOConfig, main


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


def main_cli(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--total-timesteps", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--against", metavar="SPEC", default=None, help="also train against this agent at every seat")
    args = parser.parse_args(argv)
    result = run(args.total_timesteps, args.seed)
    _print("default opponents", result)
    if args.against:
        other = run(args.total_timesteps, args.seed, [args.against])
        _print(f"against {args.against} x3", other)
        print(f"ratio: {other['steps_per_second'] / result['steps_per_second']:.2f} of the default's steps per second")


def _print(title: str, result: dict[str, float]) -> None:
    print(f"{title}:")
    print(
        f"  collection: {result['collect_steps_per_second']:,.0f} steps/s "
        f"({result['env_share_of_collection']:.0%} of it in the env: opponents, core, observations)"
    )
    print(f"  update:     {result['update_steps_per_second']:,.0f} steps/s")
    print(f"  overall:    {result['steps_per_second']:,.0f} steps/s")


if __name__ == "__main__":
    main_cli()
