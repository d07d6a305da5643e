"""Environment speed: observations included.

(a) PettingZoo AEC env steps per second over whole games (random legal moves, ``last()`` read at
    every decision), against OpenSpiel's ``hearts`` from Python requesting
    ``information_state_tensor()`` at every decision, in the same run.
(b) The full batched step (legal mask + observation of the seat to act + step) at B games, in
    card plays per second over whole hands: fresh observation arrays, one reused buffer, and the
    packed form.
(c) Vector env steps per second (learner steps; opponents random, stepped inside).

    python benchmarks/bench_env.py
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from openspiel_reference import random_play_rate

from hearts_env import HeartsRules
from hearts_env.aec import env as aec_env
from hearts_env.core import legal_mask, new_games, sample_actions, step
from hearts_env.gym_env import HeartsVectorEnv
from hearts_env.infoset import infoset
from hearts_env.observation import ObservationLayout, encode, encode_packed


def bench_aec(seconds: float, seed: int) -> float:
    table = aec_env()
    rng = np.random.default_rng(seed)
    steps, games = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        table.reset(seed=seed + games)
        for _agent in table.agent_iter():
            observation, _reward, termination, truncation, _info = table.last()
            if termination or truncation:
                table.step(None)
                continue
            table.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            steps += 1
        games += 1
    return steps / (time.perf_counter() - start)


def bench_batched_step(batch_size: int, seconds: float, seed: int, form: str = "fresh") -> float:
    """``form``: fresh observation arrays, one ``reused`` buffer, or ``packed`` into a reused buffer."""
    rules = HeartsRules(target_score=None)
    layout = ObservationLayout(rules)
    rng = np.random.default_rng(seed)
    size = layout.packed_size if form == "packed" else layout.size
    out = None if form == "fresh" else np.empty((batch_size, size), np.uint8)
    observe = encode_packed if form == "packed" else encode
    hands = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = new_games(rules, batch_size=batch_size, seed=seed + hands)
        while not state.done[0]:
            legal_mask(state)
            observe(infoset(state), layout, out=out)
            state = step(state, sample_actions(state, rng))
        hands += batch_size
    return hands * 52 / (time.perf_counter() - start)


def bench_vector(num_envs: int, seconds: float, seed: int) -> float:
    envs = HeartsVectorEnv(num_envs=num_envs, learner_seat="rotate")
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

    rates = random_play_rate(args.seconds, args.seed, infostate=True)
    reference = rates[1] if rates else None
    aec = bench_aec(args.seconds, args.seed)
    print(f"(a) AEC env: {aec:,.0f} steps/s", end="")
    print(
        f"; OpenSpiel with information_state_tensor: {reference:,.0f} steps/s; ratio {aec / reference:.2f}"
        if reference
        else ""
    )
    batched = bench_batched_step(args.batch_size, args.seconds, args.seed)
    print(f"(b) batched step with observations, B = {args.batch_size}: {batched:,.0f} card plays/s")
    reused = bench_batched_step(args.batch_size, args.seconds, args.seed, form="reused")
    print(f"    observations written into one reused buffer (encode out=): {reused:,.0f} card plays/s")
    packed = bench_batched_step(args.batch_size, args.seconds, args.seed, form="packed")
    print(f"    packed observations (encode_packed out=): {packed:,.0f} card plays/s")
    vector = bench_vector(args.num_envs, args.seconds, args.seed)
    print(f"(c) vector env, {args.num_envs} games, random opponents: {vector:,.0f} learner steps/s")


if __name__ == "__main__":
    main()
