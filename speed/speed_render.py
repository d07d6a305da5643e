"""Milliseconds to draw a frame of the table (``hearts_env.render.image.draw_table``), for video.

    python speed/speed_render.py [--frames 200]

Draws the states of random games (4 players, 7 players, 11 players with two decks) at 640x480 and
960x720, and reports the mean and the 95th percentile per frame, the description
(``render.describe``) and the drawing timed apart. The first frame of each size draws its card
pictures (cached after), so it is left out. Absolute times drift with the machine's load.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from hearts_env.engine import core
from hearts_env.engine.rules import HeartsRules
from hearts_env.render import describe
from hearts_env.render.image import draw_table


def game_states(rules: HeartsRules, count: int, seed: int = 0) -> list[core.State]:
    rng, out = np.random.default_rng(seed), []
    state = core.new_games(rules, batch_size=1, seed=seed)
    while len(out) < count:
        out.append(state)
        state = core.step(state, core.sample_actions(state, rng))
        if state.done[0]:
            state = core.new_games(rules, batch_size=1, seed=int(rng.integers(2**31)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    args = parser.parse_args()
    tables = {
        "4 players": HeartsRules(),
        "7 players": HeartsRules(num_players=7),
        "11, two decks": HeartsRules(num_players=11, decks=2),
    }
    print(f"{'table':<14} {'size':>8} {'describe ms':>12} {'draw ms':>8} {'p95 ms':>7}")
    for name, rules in tables.items():
        states = game_states(rules, args.frames)
        for size in ((640, 480), (960, 720)):
            draw_table(describe(states[0]), size)  # builds the card pictures of this size
            describing, drawing = [], []
            for state in states:
                t0 = time.perf_counter()
                view = describe(state)
                t1 = time.perf_counter()
                draw_table(view, size)
                drawing.append(time.perf_counter() - t1)
                describing.append(t1 - t0)
            ms, described = 1000 * np.array(drawing), 1000 * np.mean(describing)
            print(f"{name:<14} {size[0]}x{size[1]:<4} {described:12.2f} {ms.mean():8.2f} {np.percentile(ms, 95):7.2f}")


if __name__ == "__main__":
    main()
