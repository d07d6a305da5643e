"""Scaling out, measured in one run on this machine (docs/scaling.md):

(a) RLlib PPO training (``hearts_env.train.libraries.rllib_ppo``) with 1 and 2 env runners, in both modes: timesteps per
    second over whole training iterations (sampling, then the update here), after one warm-up
    iteration, and apart: the learner's update (timed here) and the rest (the runners' sampling).
    Each runner plays the same tables, so 2 runners sample twice the steps per iteration.
(b) The arena (``play_match``) played here and as Ray tasks (``RayExecutor``) on the same deals and
    blocks, in hands per second: a fast rule-based table and a slow search agent. The results are
    checked to be equal.

Ray is started here with ``--num-cpus`` CPUs; the machine's load average is printed before and after.

    python speed/speed_ray.py --json ray.json
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
import ray
from common import save_json

from hearts_env.agents.cli import build_agents
from hearts_env.arena import play_match
from hearts_env.arena.sharding import RayExecutor
from hearts_env.engine.rules import HeartsRules
from hearts_env.train.libraries.rllib_ppo import RLlibPPOConfig, UpdateClock, algorithm_config

TRAINING = {
    "opponents (3 heuristic)": dict(opponents=["heuristic"], episode="hand", num_envs=256, n_steps=64),
    "self-play": dict(opponents=["self"], num_envs=32, n_steps=64, batch_size=2048),
}
"""Settings of each training mode (the rest: hearts-train-rllib's defaults)."""
ARENA = {
    "heuristic vs 3 simple": (["heuristic", "simple", "simple", "simple"], 4000, 500),
    "pimc-random:worlds=8 vs 3 random": (["pimc-random:worlds=8", "random", "random", "random"], 48, 6),
}
"""Arena tables: (agents, deals, block), single hands."""


def measure_training(mode: str, runners: int, iterations: int) -> dict[str, float]:
    config = RLlibPPOConfig(num_env_runners=runners, progress_bar=False, **TRAINING[mode])
    algo = algorithm_config(config).build_algo()
    clock = UpdateClock(algo)
    try:
        result = algo.train()  # warm-up: the runners' first episodes, torch's first update
        steps, seconds, updating = 0, 0.0, clock.seconds
        for _ in range(iterations):
            before = result["env_runners"]["num_env_steps_sampled_lifetime"]
            start = time.perf_counter()
            result = algo.train()
            seconds += time.perf_counter() - start
            steps += int(result["env_runners"]["num_env_steps_sampled_lifetime"] - before)
        update = clock.seconds - updating
    finally:
        algo.stop()
    return {
        "steps_per_iteration": steps / iterations,
        "steps_per_second": steps / seconds,
        "collect_steps_per_second": steps / (seconds - update),
        "update_steps_per_second": steps / update,
        "update_share": update / seconds,
    }


def measure_arena(name: str, executor: RayExecutor | None) -> tuple[float, object]:
    specs, deals, block = ARENA[name]
    agents = build_agents(specs, 0)
    result = play_match(HeartsRules(), agents, deals=deals, seed=0, episode="hand", block=block, executor=executor)
    return result.hands.sum() / result.seconds, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num-cpus", type=int, default=os.cpu_count(), help="CPUs Ray may use")
    parser.add_argument("--iterations", type=int, default=2, help="measured training iterations per setting")
    parser.add_argument("--json", help="write the figures here as JSON")
    args = parser.parse_args()
    figures: dict[str, object] = {"cpus": os.cpu_count(), "load_before": os.getloadavg()}
    ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False)
    try:
        arena = {}
        ray_tasks = RayExecutor()
        for name in ARENA:
            measure_arena(name, ray_tasks)  # warm-up: the workers' imports and compiled kernels
            local, local_result = measure_arena(name, None)
            sharded, ray_result = measure_arena(name, ray_tasks)
            assert np.array_equal(local_result.scores, ray_result.scores), name
            arena[name] = {"local_hands_per_second": local, "ray_hands_per_second": sharded}
            print(f"arena {name}: local {local:,.0f} hands/s, Ray tasks {sharded:,.0f} hands/s", flush=True)
        figures["arena"] = arena
        training = {}
        for mode in TRAINING:
            for runners in (1, 2):
                figure = measure_training(mode, runners, args.iterations)
                training[f"{mode}, {runners} env runner{'s' * (runners > 1)}"] = figure
                print(f"training {mode}, {runners} runners: {figure}", flush=True)
        figures["training"] = training
    finally:
        ray.shutdown()
    figures["load_after"] = os.getloadavg()
    print(json.dumps(figures, indent=2))
    save_json(args.json, figures)


if __name__ == "__main__":
    main()
