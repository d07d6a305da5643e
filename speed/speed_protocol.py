"""The bot protocol's cost: decisions per second of a protocol bot that answers at once against the
same agent in-process, at batched tables (the runner's loop, many games per round trip).

The bot is ``hearts-bot random`` (``python -m hearts_env.agents.bridges.protocol_bot random``) played as
the ``program`` agent; the in-process agent is ``random``. Each batch is B single hands (3 cards
passed left, every game 64 decisions). "all seats": one program object at every seat, so a round
trip carries the decisions of all B games and every card is an event for the other three tables;
"one seat": the program at seat 0 of each game and in-process random at the others, as a program
sits in an arena match (B / 4 decisions a round trip on average, with the other seats' events).
The overhead is the extra time per decision of the program; the ratio, the in-process rate over
the program's. Absolute rates drift with the machine's load; compare figures of one run.

    python speed/speed_protocol.py                            # B = 256, 4096
    python speed/speed_protocol.py --batch-sizes 64 1024 16384 --repeats 5 --json out.json
"""

from __future__ import annotations

import argparse
import sys
import time

from common import save_json

from hearts_env import HeartsRules
from hearts_env.agents.bridges.program import ProgramPolicy
from hearts_env.engine import core
from hearts_env.play import runner
from hearts_env.play.policy import Policy, RandomPolicy

RULES = HeartsRules(target_score=None, pass_cycle=("left",))  # one hand per game, every hand passes
DECISIONS_PER_GAME = RULES.num_players * (RULES.pass_count + RULES.hand_size)


def best_time(state: core.State, policies: list[Policy], repeats: int) -> float:
    """The fastest of ``repeats`` plays of every game of ``state`` (after one to warm up)."""
    runner.play(state, policies)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        final = runner.play(state, policies)
        times.append(time.perf_counter() - start)
        assert final.done.all()
    return min(times)


def measure(command: str, batch_size: int, repeats: int, seed: int) -> list[dict]:
    state = core.new_games(RULES, batch_size=batch_size, seed=seed)
    inside = RandomPolicy(seed)
    rows = []
    with ProgramPolicy(command, seed=seed, time_limit=60, startup_limit=300) as bot:
        for layout, program_seats in (("all seats", RULES.num_players), ("one seat", 1)):
            policies_in = [inside] * RULES.num_players
            policies_bot = [bot] * program_seats + [inside] * (RULES.num_players - program_seats)
            t_in = best_time(state, policies_in, repeats)
            t_bot = best_time(state, policies_bot, repeats)
            decisions = batch_size * DECISIONS_PER_GAME
            program_decisions = decisions * program_seats // RULES.num_players
            rows.append(
                {
                    "layout": layout,
                    "batch_size": batch_size,
                    "decisions": decisions,
                    "in_process_per_second": decisions / t_in,
                    "with_program_per_second": decisions / t_bot,
                    "ratio": t_bot / t_in,
                    "overhead_us_per_decision": (t_bot - t_in) / program_decisions * 1e6,
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[256, 4096], help="games per batch")
    parser.add_argument("--repeats", type=int, default=3, help="plays per measurement; the fastest counts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--command",
        default=f"{sys.executable} -m hearts_env.agents.bridges.protocol_bot random",
        help="the bot to measure (default: hearts-bot random)",
    )
    parser.add_argument("--json", metavar="PATH", help="write the rows as JSON")
    args = parser.parse_args()
    rows = [row for b in args.batch_sizes for row in measure(args.command, b, args.repeats, args.seed)]
    print(f"{'layout':<10} {'B':>6} {'in-process/s':>14} {'with program/s':>15} {'ratio':>7} {'overhead/decision':>18}")
    for r in rows:
        print(
            f"{r['layout']:<10} {r['batch_size']:>6} {r['in_process_per_second']:>14,.0f} "
            f"{r['with_program_per_second']:>15,.0f} {r['ratio']:>7.1f} {r['overhead_us_per_decision']:>15.2f} us"
        )
    save_json(args.json, rows)


if __name__ == "__main__":
    main()
