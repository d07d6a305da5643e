"""Environment speed: observations included.

(a) PettingZoo AEC env steps per second over whole games (random legal moves, ``last()`` read at
    every decision), ``env()`` and ``raw_env``, against OpenSpiel's ``hearts`` from Python
    requesting ``information_state_tensor()`` at every decision, in the same run; and the loop
    that also observes every agent at every step (what TorchRL's ``PettingZooWrapper`` does)
    against OpenSpiel's info state of all four seats.
(b) The full batched step (legal mask + observation of the seat to act + step) at B games, in
    card plays per second over whole hands: fresh observation arrays, one reused buffer, and the
    packed form; the caller owns the state (``step_in_place``).
(c) Vector env steps per second (learner steps; opponents random, stepped inside).
(d) What the global state costs: the AEC loop of (a) reading ``state()`` at every decision, and
    the vector env of (c) with ``global_state=True``, each against itself without, interleaved.

    python speed/speed_env.py
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from openspiel_reference import interleaved, random_play_rate

from hearts_env import HeartsRules
from hearts_env.engine.core import legal_mask, new_games, sample_actions, step_in_place
from hearts_env.engine.observation import ObservationLayout, observe
from hearts_env.envs.aec import env as aec_env
from hearts_env.envs.aec import raw_env
from hearts_env.envs.gym_env import HeartsVectorEnv


def measure_aec(
    seconds: float, seed: int, make: Callable = aec_env, observe_all: bool = False, read_state: bool = False
) -> float:
    """Decisions per second of whole games; a random legal card is drawn as OpenSpiel's loop
    draws one (an index into the legal actions)."""
    table = make()
    rng = np.random.default_rng(seed)
    steps, games = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        table.reset(seed=seed + games)
        for _agent in table.agent_iter():
            observation, _reward, termination, truncation, _info = table.last()
            if observe_all:
                for agent in table.agents:
                    table.observe(agent)
            if read_state:
                table.state()
            if termination or truncation:
                table.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            table.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        games += 1
    return steps / (time.perf_counter() - start)


def measure_batched_step(batch_size: int, seconds: float, seed: int, form: str = "fresh") -> float:
    """``form``: fresh observation arrays, one ``reused`` buffer, or ``packed`` into a reused buffer."""
    rules = HeartsRules(target_score=None)
    layout = ObservationLayout(rules)
    rng = np.random.default_rng(seed)
    size = layout.packed_size if form == "packed" else layout.size
    out = None if form == "fresh" else np.empty((batch_size, size), np.uint8)
    steps = rules.num_players * rules.pass_count + 52  # a hand's steps: the batch moves in lockstep
    hands = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = new_games(rules, batch_size=batch_size, seed=seed + hands)
        for _ in range(steps):
            legal_mask(state)
            observe(state, state.to_play, layout, out=out, packed=form == "packed")
            step_in_place(state, sample_actions(state, rng))
        hands += batch_size
    return hands * 52 / (time.perf_counter() - start)


def measure_vector(num_envs: int, seconds: float, seed: int, with_state: bool = False) -> float:
    envs = HeartsVectorEnv(num_envs=num_envs, learner_seat="rotate", global_state=with_state)
    rng = np.random.default_rng(seed)
    envs.reset(seed=seed)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        masks = envs.action_masks()
        envs.step((rng.random(masks.shape) * masks).argmax(axis=1))  # a random legal card per game
        steps += num_envs
    return steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time spent on each measurement")
    parser.add_argument("--batch-size", type=int, default=4096, help="games of the batched step (b)")
    parser.add_argument("--num-envs", type=int, default=1024, help="games of the vector env (c)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    def openspiel(all_seats: bool) -> Callable[[float], float]:
        def measure(seconds: float) -> float:
            rates = random_play_rate(seconds, args.seed, infostate=True, all_seats=all_seats)
            return rates[1] if rates else float("nan")

        return measure

    rates = interleaved(
        {
            "OpenSpiel, info state of the seat to act": openspiel(False),
            "OpenSpiel, info state of every seat": openspiel(True),
            "AEC env()": lambda s: measure_aec(s, args.seed),
            "AEC raw_env": lambda s: measure_aec(s, args.seed, make=raw_env),
            "AEC env(), observe() of every agent each step": lambda s: measure_aec(s, args.seed, observe_all=True),
        },
        args.seconds * 3,
    )
    one, every = rates["OpenSpiel, info state of the seat to act"], rates["OpenSpiel, info state of every seat"]
    for name, rate in rates.items():
        reference = every if "every" in name else one
        print(f"(a) {name}: {rate:,.0f} steps/s (x {rate / reference:.2f} OpenSpiel)")
    batched = measure_batched_step(args.batch_size, args.seconds, args.seed)
    print(f"(b) batched step with observations, B = {args.batch_size}: {batched:,.0f} card plays/s")
    reused = measure_batched_step(args.batch_size, args.seconds, args.seed, form="reused")
    print(f"    observations written into one reused buffer (encode out=): {reused:,.0f} card plays/s")
    packed = measure_batched_step(args.batch_size, args.seconds, args.seed, form="packed")
    print(f"    packed observations (encode_packed out=): {packed:,.0f} card plays/s")
    vector = measure_vector(args.num_envs, args.seconds, args.seed)
    print(f"(c) vector env, {args.num_envs} games, random opponents: {vector:,.0f} learner steps/s")
    costs = interleaved(
        {
            "AEC env()": lambda s: measure_aec(s, args.seed),
            "AEC env(), state() at every decision": lambda s: measure_aec(s, args.seed, read_state=True),
            "vector env": lambda s: measure_vector(args.num_envs, s, args.seed),
            "vector env, global_state=True": lambda s: measure_vector(args.num_envs, s, args.seed, with_state=True),
        },
        args.seconds * 4,
    )
    for plain, with_state in (
        ("AEC env()", "AEC env(), state() at every decision"),
        ("vector env", "vector env, global_state=True"),
    ):
        ratio = costs[with_state] / costs[plain]
        print(f"(d) {with_state}: {costs[with_state]:,.0f} steps/s against {costs[plain]:,.0f} without (x {ratio:.2f})")


if __name__ == "__main__":
    main()
