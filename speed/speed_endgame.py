"""The exact endgame's speed: the time to solve one world (``hearts_env.agents.search.endgame``) by the
tricks left and the search, and the positions it searches, with its transposition table and
without.

The positions are 4-player hands (default rules) played at random to the start of a trick with
that many tricks left (random play leaves more points in the endgame than good play does); the
seat to act decides. One call solves them all, as ``pimc-ppo`` solves a decision's worlds.

    python speed/speed_endgame.py                      # 2 to 5 tricks, both searches
    python speed/speed_endgame.py --tricks 4 --searches paranoid --positions 1000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from common import save_json

from hearts_env import HeartsRules
from hearts_env.agents.search.endgame import SEARCHES, TABLE_BITS, solve
from hearts_env.engine.core import PLAY, State, new_games, sample_actions, step

HAND = HeartsRules(target_score=None)


def positions(count: int, tricks: int, seed: int) -> State:
    """``count`` random hands played at random to the start of a trick with ``tricks`` left."""
    rng = np.random.default_rng(seed)
    state = new_games(HAND, batch_size=count, seed=seed)
    while True:
        go = (state.phase != PLAY) | (state.tricks_played < HAND.hand_size - tricks) | (state.trick_size > 0)
        go = np.flatnonzero(go)
        if not len(go):
            return state
        data = state.data.copy()
        data[go] = step(state[go], sample_actions(state[go], rng)).data
        state = state.with_data(data)


def measure(state: State, search: str, table_bits: int) -> dict:
    solve(state[:2], state.to_play[:2], search=search, table_bits=table_bits)  # compile, or load the kernels
    start, start_cpu = time.perf_counter(), time.process_time()
    _, searched = solve(state, state.to_play, search=search, table_bits=table_bits)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    n = state.batch_size
    return {
        "search": search,
        "table": table_bits > 0,
        "positions": n,
        "us_per_solve": elapsed / n * 1e6,
        "cpu_us_per_solve": cpu / n * 1e6,
        "searched_per_solve": searched / n,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tricks", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--searches", nargs="+", default=list(SEARCHES), choices=list(SEARCHES))
    parser.add_argument("--positions", type=int, default=400, help="worlds solved for each measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)
    if min(args.tricks) < 1 or max(args.tricks) > HAND.hand_size or args.positions < 2:
        parser.error(f"--tricks must be in 1..{HAND.hand_size} and --positions at least 2")
    results = []
    print(f"{'tricks':>6} {'search':>9} {'table':>6} {'us/solve':>10} {'CPU us':>10} {'positions searched':>19}")
    for tricks in args.tricks:
        state = positions(args.positions, tricks, args.seed)
        for search in args.searches:
            for table_bits in (TABLE_BITS, 0):
                r = measure(state, search, table_bits) | {"tricks": tricks}
                results.append(r)
                print(
                    f"{tricks:>6} {search:>9} {'yes' if r['table'] else 'no':>6} {r['us_per_solve']:>10,.1f} "
                    f"{r['cpu_us_per_solve']:>10,.1f} {r['searched_per_solve']:>19,.0f}",
                    flush=True,
                )
    save_json(args.json, results)


if __name__ == "__main__":
    main()
