"""The OpenSpiel game ``hearts_env`` (``hearts_env.openspiel``) against OpenSpiel's C++ ``hearts``:
random games per second through ``pyspiel``, 4 players, in one run.

Both games are played by the same Python loop: chance outcomes drawn uniformly from those offered
(every outcome of both deals, and OpenSpiel's pass direction, is equally likely), uniformly random
legal cards. A game is one hand in both: ``target_score=0`` for ours, OpenSpiel's plays one. Ours
passes in every hand (hand 1 passes left), OpenSpiel's in three hands of four (it draws the
direction): 116 actions a game for ours (52 cards dealt, 12 passed, 52 played), 114 on average for
OpenSpiel's (its direction drawn, then 117, or 105 without a pass). The two take turns in rounds
(``openspiel_reference.interleaved``: medians), so that a shared machine's load weighs on both
alike.

    python speed/speed_openspiel_game.py                 # 6 seconds each
    python speed/speed_openspiel_game.py --seconds 20 --json out.json
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
from common import save_json
from openspiel_reference import interleaved

from hearts_env.openspiel import GAME_NAME


def random_games(game: pyspiel.Game, seconds: float, seed: int) -> float:
    """Games per second of random play for about ``seconds``."""
    rng = np.random.default_rng(seed)
    games, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            options = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
            state.apply_action(options[rng.integers(len(options))])
        games += 1
    return games / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="time spent on each game, in rounds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    args = parser.parse_args()
    games = {"hearts_env": pyspiel.load_game(GAME_NAME, {"target_score": 0}), "hearts": pyspiel.load_game("hearts")}
    for game in games.values():
        random_games(game, 0.5, args.seed)  # compiles the core's kernels, warms both
    measures = {name: lambda seconds, game=game: random_games(game, seconds, args.seed) for name, game in games.items()}
    rates = interleaved(measures, args.seconds)
    ratio = rates["hearts_env"] / rates["hearts"]
    for name, rate in rates.items():
        print(f"{name:<12} {rate:>10,.0f} games/s")
    print(f"hearts_env / OpenSpiel's hearts: {ratio:.3f} ({1 / ratio:.1f}x slower)")
    save_json(args.json, {"games_per_second": rates, "ratio": ratio})


if __name__ == "__main__":
    main()
