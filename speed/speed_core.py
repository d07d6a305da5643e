"""Engine speed: card plays per second of random legal play over whole hands, against OpenSpiel.

Each measured hand is dealt, passed (3 cards left) and played to the end by uniformly random
legal moves; a "card play" is one of the cards played to tricks (52 with four players; passing
and dealing are timed but not counted). OpenSpiel's ``hearts`` is driven from Python the usual
way (``legal_actions`` then ``apply_action``, chance outcomes sampled) in the same run. Each batch
size is measured with the pure ``step`` (a new state each step) and with ``step_in_place`` (the
caller owns the state, as the environments and search do). ``--num-players`` and ``--decks`` pick
another table, e.g. Cancellation Hearts (two decks, 104 card plays a hand with eight players).

    python speed/speed_core.py                      # all batch sizes, 3 s each
    python speed/speed_core.py --batch-sizes 4096 --seconds 10
    python speed/speed_core.py --batch-sizes 4096 --num-players 8 --decks 2
    python speed/speed_core.py --batch-sizes 4096 16384 --threads 2   # steps on two threads
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from common import save_json
from openspiel_reference import random_play_rate

from hearts_env import HeartsRules
from hearts_env.engine.core import new_games, sample_actions, step, step_in_place, use_threads

PLAYS_PER_HAND = 52  # OpenSpiel's four-player hand


def measure_engine(
    batch_size: int, seconds: float, seed: int, in_place: bool = False, rules: HeartsRules | None = None
) -> dict:
    rules = rules or HeartsRules(target_score=None)  # one hand per game: deal, pass left, play
    rng = np.random.default_rng(seed)
    hands = actions = 0
    # A one-hand game takes P x 3 passes and P x hand size plays: the batch moves in lockstep.
    plays_per_hand = rules.num_players * rules.hand_size
    steps_per_hand = rules.num_players * rules.pass_count + plays_per_hand
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
        "num_players": rules.num_players,
        "decks": rules.decks,
        "hands": hands,
        "seconds": elapsed,
        "plays_per_s": hands * plays_per_hand / elapsed,
        "actions_per_s": actions / elapsed,
    }


def measure_openspiel(seconds: float, seed: int) -> dict | None:
    rates = random_play_rate(seconds, seed)
    return None if rates is None else {"plays_per_s": rates[0] * PLAYS_PER_HAND}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 64, 1024, 4096, 16384])
    parser.add_argument("--seconds", type=float, default=3.0, help="time spent on each measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--num-players", type=int, default=4, help="players at the table (6..11 with --decks 2)")
    parser.add_argument("--decks", type=int, default=1, help="2: Cancellation Hearts")
    parser.add_argument(
        "--threads", type=int, default=1, help="threads that step batches of 1,024 games or more (core.use_threads)"
    )
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)
    try:
        rules = HeartsRules(num_players=args.num_players, decks=args.decks, target_score=None)
    except ValueError as error:
        parser.error(f"rules: {error}")

    use_threads(args.threads)
    new_games(rules, batch_size=8, seed=0)  # warm up lookup tables
    reference = measure_openspiel(args.seconds, args.seed)
    results = [
        measure_engine(b, args.seconds, args.seed, in_place, rules)
        for b in args.batch_sizes
        for in_place in (False, True)
    ]
    deck = ", two decks (Cancellation Hearts)" if rules.decks == 2 else ", one deck"
    print(f"{rules.num_players} players{deck}, {args.threads} thread(s) for batches of 1,024 games or more")
    print(f"{'engine':>24} {'card plays/s':>14} {'x OpenSpiel':>12}")
    if reference:
        print(f"{'OpenSpiel hearts':>24} {reference['plays_per_s']:>14,.0f} {1.0:>12.1f}")
    for r in results:
        ratio = r["plays_per_s"] / reference["plays_per_s"] if reference else float("nan")
        r["x_openspiel"] = ratio
        name = f"B = {r['batch_size']}" + (", in place" if r["in_place"] else "")
        print(f"{name:>24} {r['plays_per_s']:>14,.0f} {ratio:>12.1f}")
    save_json(args.json, {"openspiel": reference, "threads": args.threads, "engine": results})


if __name__ == "__main__":
    main()
