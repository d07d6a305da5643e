"""A change to a search agent, measured: each agent spec against three players of a field on the
same duplicate single hands, compared deal by deal with the first spec (the baseline).

Each match is the one ``hearts-arena SPEC OPPONENT OPPONENT OPPONENT --episode hand --deals D
--seed S`` plays (the same agents, seeds and deals), so its figures are that command's; the paired
difference of two specs is free of the deals' luck, which both matches share.

    python studies/search_ablation.py pimc-ppo pimc-ppo:endgame=3 --deals 400 --seed 711
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from hearts_env import HeartsRules
from hearts_env.agents.arena_cli import build_agents
from hearts_env.agents.specs import check_agents
from hearts_env.arena import play_match


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", help="agent specs; the first is the baseline")
    parser.add_argument("--opponent", default="pimc")
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error(f"--deals must be at least 2 (an interval needs two deals), got {args.deals}")
    rules = dataclasses.replace(HeartsRules(), target_score=None)
    results = {}
    for spec in args.specs:
        entries = build_agents([spec] + [args.opponent] * 3, args.seed)
        check_agents(rules, entries)
        start = time.perf_counter()
        results[spec] = result = play_match(rules, entries, deals=args.deals, seed=args.seed, episode="hand")
        own, field = result.estimate(spec), result.difference(spec)
        print(
            f"{spec}: {own.mean:.2f} ± {own.half_width:.2f} points/hand, minus the field "
            f"{field.mean:+.2f} ± {field.half_width:.2f} ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
    base = args.specs[0]
    for spec in args.specs[1:]:
        paired = results[spec].paired_difference(spec, results[base], base)
        print(f"{spec} minus {base}, paired by deal: {paired.mean:+.3f} ± {paired.half_width:.3f} points/hand")


if __name__ == "__main__":
    main()
