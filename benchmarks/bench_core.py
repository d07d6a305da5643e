"""Engine speed: card plays per second of random legal play over whole hands, against OpenSpiel.

Each measured hand is dealt, passed (3 cards left) and played to the end by uniformly random
legal moves; a "card play" is one of the 52 cards played to tricks (passing and dealing are
timed but not counted). OpenSpiel's ``hearts`` is driven from Python the usual way
(``legal_actions`` then ``apply_action``, chance outcomes sampled) in the same run. Each batch
size is measured with the pure ``step`` (a new state each step) and with ``step_in_place`` (the
caller owns the state, as the environments and search do).

    python benchmarks/bench_core.py                      # all batch sizes, 3 s each
    python benchmarks/bench_core.py --batch-sizes 4096 --seconds 10
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from openspiel_reference import random_play_rate

from hearts_env import HeartsRules
from hearts_env.core import new_games, sample_actions, step, step_in_place

PLAYS_PER_HAND = 52


def bench_engine(batch_size: int, seconds: float, seed: int, in_place: bool = False) -> dict:
    rules = HeartsRules(target_score=None)  # one hand per game: deal, pass left, play
    rng = np.random.default_rng(seed)
    hands = actions = 0
    # A one-hand game takes 12 passes and 52 plays: the batch moves in lockstep.
    steps_per_hand = rules.num_players * rules.pass_count + PLAYS_PER_HAND
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = new_games(rules, batch_size=batch_size, seed=seed + hands)
        for _ in range(steps_per_hand):
            if in_place:
                step_in_place(state, sample_actions(state, rng))
            else:
                state = step(state, sample_actions(state, rng))
        assert state.done.all()
        actions += batch_size * steps_per_hand
        hands += batch_size
    elapsed = time.perf_counter() - start
    return {
        "batch_size": batch_size,
        "in_place": in_place,
        "hands": hands,
        "seconds": elapsed,
        "plays_per_s": hands * PLAYS_PER_HAND / elapsed,
        "actions_per_s": actions / elapsed,
    }


def bench_openspiel(seconds: float, seed: int) -> dict | None:
    rates = random_play_rate(seconds, seed)
    return None if rates is None else {"plays_per_s": rates[0] * PLAYS_PER_HAND}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 64, 1024, 4096, 16384])
    parser.add_argument("--seconds", type=float, default=3.0, help="time spent on each measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)

    new_games(HeartsRules(), batch_size=8, seed=0)  # warm up lookup tables
    reference = bench_openspiel(args.seconds, args.seed)
    results = [
        bench_engine(b, args.seconds, args.seed, in_place) for b in args.batch_sizes for in_place in (False, True)
    ]
    print(f"{'engine':>24} {'card plays/s':>14} {'x OpenSpiel':>12}")
    if reference:
        print(f"{'OpenSpiel hearts':>24} {reference['plays_per_s']:>14,.0f} {1.0:>12.1f}")
    for r in results:
        ratio = r["plays_per_s"] / reference["plays_per_s"] if reference else float("nan")
        r["x_openspiel"] = ratio
        name = f"B = {r['batch_size']}" + (", in place" if r["in_place"] else "")
        print(f"{name:>24} {r['plays_per_s']:>14,.0f} {ratio:>12.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"openspiel": reference, "engine": results}, f, indent=2)


if __name__ == "__main__":
    main()
