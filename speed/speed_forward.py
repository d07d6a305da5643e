"""The trained network's forward pass: the compiled first layer against the plain numpy product.

``MLPPolicy.logits`` runs the first layer with a compiled kernel that adds up the weight rows of
the observation's nonzero inputs (``hearts_env.agents.learned.mlp_kernels``); the numpy reference below
multiplies the whole scaled observation by the weights, as the policy did before. Both are timed
in one process, in alternating rounds (the best round of each is kept: the machine is shared),
on the network alone, on ``ppo``'s decisions and on ``pimc-ppo``'s searches (whose rollouts are
mostly forward passes), with the positions of ``speed_pimc.py``.

    python speed/speed_forward.py                  # rows, ppo and pimc-ppo, both forwards
    python speed/speed_forward.py --seconds 2 --rounds 1
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from common import save_json
from speed_pimc import positions

from hearts_env.agents.learned.trained import MLPPolicy, TrainedPolicy, shipped_policy
from hearts_env.agents.search.pimc_ppo import PIMCPPOPolicy
from hearts_env.engine.observation import encode


class NumpyForward(MLPPolicy):
    """The shipped network with the dense numpy forward pass: the reference the kernel is timed against."""

    def __init__(self, policy: TrainedPolicy) -> None:
        super().__init__(policy.rules, policy.scale, policy.layers, policy.meta["activation"])

    def logits(self, observations: np.ndarray) -> np.ndarray:
        x = np.asarray(observations, np.float32) * self.scale
        *hidden, (w_out, b_out) = self.layers
        for w, b in hidden:
            x = self.activation(x @ w.T + b)
        return x @ w_out.T + b_out


def per_cpu_second(work: Callable[[int], int], seconds: float) -> float:
    """Units of ``work`` (called with a call counter, returning the units it did) per CPU second."""
    done, calls, start = 0, 0, time.process_time()
    while calls == 0 or time.process_time() - start < seconds:
        done += work(calls)
        calls += 1
    return done / (time.process_time() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="time spent on each measurement")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds of both forwards")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1:
        parser.error("--seconds must be > 0 and --rounds >= 1")
    info, mask = positions(1024, args.seed)
    compiled = shipped_policy()
    networks = {"compiled": compiled, "numpy": NumpyForward(compiled)}
    obs = encode(info, compiled.layout)
    n = len(mask)

    def rows(batch: int, calls: int) -> np.ndarray:
        return np.arange(calls * batch, (calls + 1) * batch) % n

    def measurements(network: MLPPolicy) -> dict[str, Callable[[int], int]]:
        search = PIMCPPOPolicy(seed=args.seed)
        search.network = network

        def forward(batch: int) -> Callable[[int], int]:
            return lambda calls: len(network.logits(obs[rows(batch, calls)]))

        def decide(agent: Callable, batch: int) -> Callable[[int], int]:
            return lambda calls: len(agent(info[rows(batch, calls)], mask[rows(batch, calls)]))

        return {
            "network rows, 1 a call": forward(1),
            "network rows, 1024 a call": forward(1024),
            "ppo decisions, 1 game a call": decide(network, 1),
            "ppo decisions, 1024 games a call": decide(network, 1024),
            "pimc-ppo decisions, 1 game a call": decide(search, 1),
            "pimc-ppo decisions, 64 games a call": decide(search, 64),
        }

    best: dict[str, dict[str, float]] = {}
    for network in networks.values():  # compile, load the positions' worlds, warm the caches
        for work in measurements(network).values():
            work(0)
    for _ in range(args.rounds):
        for name, network in networks.items():
            for what, work in measurements(network).items():
                rate = per_cpu_second(work, args.seconds)
                best.setdefault(what, {})[name] = max(rate, best.get(what, {}).get(name, 0.0))
    print(f"{'per CPU second':<38} {'numpy':>11} {'compiled':>11} {'ratio':>6}")
    for what, rates in best.items():
        ratio = rates["compiled"] / rates["numpy"]
        print(f"{what:<38} {rates['numpy']:>11,.0f} {rates['compiled']:>11,.0f} {ratio:>6.2f}")
    save_json(args.json, best)


if __name__ == "__main__":
    main()
