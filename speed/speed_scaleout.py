"""Scaling out the training collections, measured on a local Ray cluster of 1, then 2 CPUs (docs/scaling.md):

(a) Expert iteration's collection (``hearts_env.train.distill.expert_iteration.collect_parallel``): the
    default teacher, ``pimc-ppo`` (64 worlds, its 4 most probable cards searched), labelling every
    seat of single hands, one worker share per CPU as a Ray task; in decisions per hour, after a
    warm-up collection (the workers' imports and compiled kernels).
(b) Exploit training (``hearts_env.train.ppo`` as ``hearts-bench exploit`` configures it: zero-sum
    rewards, single hands, the learner's seat rotating) against a search target, ``pimc:worlds=4``,
    from scratch: the tables in one shard per CPU on Ray actors (``hearts_env.envs.sharded``), the
    learner here; learner decisions per second over whole rollouts and updates, and collecting
    alone (``train.json``'s throughput).

Each CPU count starts a Ray of its own; the machine's load average is printed before and after.
Beside the wall time, the CPU time the Ray workers were given (sampled every half second: a
shared machine may give two processes no more CPU than one) and the work per CPU-second.

    python speed/speed_scaleout.py --json scaleout.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import tempfile
import threading
import time

import psutil
import ray
from common import save_json

from hearts_env.engine.rules import HeartsRules
from hearts_env.train import ppo
from hearts_env.train.distill.expert_iteration import ExItConfig, collect_parallel

TARGET = "pimc:worlds=4"
TRAINING = dict(
    opponents=[TARGET], reward="zero_sum", episode="hand", bc_teacher="", eval_every=0, eval_deals=1,
    eval_opponent="random", checkpoint_every=0, progress_bar=False,
)  # fmt: skip
"""The exploit trainer's settings that matter to its speed (the evaluation kept out of the way)."""


class WorkerCpu:
    """The CPU seconds this process's Ray workers (its descendants named ``ray::...``) take while
    it is open, sampled every half second (a worker's last half second before it ends is lost)."""

    def __enter__(self) -> WorkerCpu:
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.done = threading.Event()
        self.sampler = threading.Thread(target=self._sample)
        self.sampler.start()
        return self

    def _sample(self) -> None:
        while True:
            for process in psutil.Process().children(recursive=True):
                try:
                    if process.name().startswith("ray::"):
                        times = process.cpu_times()
                        self.last[process.pid] = times.user + times.system
                        self.first.setdefault(process.pid, self.last[process.pid])
                except psutil.Error:  # ended meanwhile
                    pass
            if self.done.wait(0.5):
                return

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.sampler.join()
        self.seconds = sum(self.last[pid] - self.first[pid] for pid in self.last)


def measure_collection(cpus: int, decisions: int) -> dict[str, float]:
    config = ExItConfig(workers=cpus, ray="", decisions=8 * cpus, progress_bar=False)
    collect_parallel(config, HeartsRules(target_score=None))  # warm-up: the workers' imports and kernels
    start = time.perf_counter()
    with WorkerCpu() as cpu:
        demos = collect_parallel(dataclasses.replace(config, decisions=decisions), HeartsRules(target_score=None))
    seconds = time.perf_counter() - start
    return {
        "decisions": len(demos),
        "seconds": seconds,
        "decisions_per_hour": len(demos) / seconds * 3600,
        "worker_cpu_seconds": cpu.seconds,
        "decisions_per_cpu_hour": len(demos) / cpu.seconds * 3600,
    }


def measure_training(cpus: int, num_envs: int, n_steps: int, rollouts: int) -> dict[str, float]:
    steps = rollouts * num_envs * n_steps
    with tempfile.TemporaryDirectory() as runs:
        config = ppo.PPOConfig(
            num_envs=num_envs, n_steps=n_steps, total_timesteps=steps, shards=cpus, ray="", run_dir=runs, **TRAINING
        )
        start, learner = time.perf_counter(), time.process_time()
        with WorkerCpu() as cpu:
            folder = ppo.main(config)
        figures = json.loads((folder / "train.json").read_text())["throughput"]
    return figures | {
        "steps": steps,
        "seconds": time.perf_counter() - start,  # the shards' start and the final evaluation included
        "learner_cpu_seconds": time.process_time() - learner,
        "shards_cpu_seconds": cpu.seconds,
        "steps_per_shard_cpu_second": steps / cpu.seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpus", type=int, nargs="+", default=[1, 2], help="CPU counts of the local Ray")
    parser.add_argument("--decisions", type=int, default=600, help="decisions collected per CPU")
    parser.add_argument("--num-envs", type=int, default=128, help="training tables")
    parser.add_argument("--n-steps", type=int, default=64, help="steps per table per rollout")
    parser.add_argument("--rollouts", type=int, default=2, help="rollouts (and updates) trained")
    parser.add_argument("--json", help="write the figures here as JSON")
    args = parser.parse_args()
    by_cpus: dict[int, object] = {}
    figures: dict[str, object] = {"cores": os.cpu_count(), "load_before": os.getloadavg(), "by_cpus": by_cpus}
    for cpus in args.cpus:
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
        try:
            collection = measure_collection(cpus, args.decisions * cpus)
            print(f"{cpus} CPU: expert-iteration collection {collection}", flush=True)
            training = measure_training(cpus, args.num_envs, args.n_steps, args.rollouts)
            print(f"{cpus} CPU: exploit training vs {TARGET} {training}", flush=True)
        finally:
            ray.shutdown()
        by_cpus[cpus] = {"collection": collection, "training": training}
    figures["load_after"] = os.getloadavg()
    print(json.dumps(figures, indent=2))
    save_json(args.json, figures)


if __name__ == "__main__":
    main()
