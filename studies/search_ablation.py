"""A change to a search agent, measured: each agent spec against three players of a field on the
same duplicate single hands, compared deal by deal with the first spec (the baseline).

Each match is the one ``hearts-arena SPEC OPPONENT OPPONENT OPPONENT --episode hand --deals D
--seed S`` plays (the same agents, seeds and deals), so its figures are that command's; the paired
difference of two specs is free of the deals' luck, which both matches share. With ``--cache``
each match's per-deal points are kept in that folder and a match played before (the same spec,
opponent, seed and deals) is read back instead of played again.

    python studies/search_ablation.py pimc-ppo pimc-ppo:endgame=3 --deals 400 --seed 711 --cache runs/ablation
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import time
from pathlib import Path

import numpy as np

from hearts_env import HeartsRules
from hearts_env.agents.cli import build_agents
from hearts_env.agents.specs import check_agents
from hearts_env.arena import play_match
from hearts_env.arena.statistics import Estimate
from hearts_env.play.policy import Policy


def per_deal_points(
    spec: str, opponent: str, deals: int, seed: int, rules: HeartsRules | None = None
) -> dict[str, np.ndarray]:
    """The match ``hearts-arena SPEC OPPONENT x3 --episode hand`` plays (at the table ``rules``,
    default the standard one, an opponent at every other seat): the deals' keys, and per deal the
    points per hand of ``spec`` and of the field (the opponents pooled)."""
    rules = rules or HeartsRules()
    return match_points(build_agents([spec] + [opponent] * (rules.num_players - 1), seed), deals, seed, rules)


def match_points(entries: list[tuple[str, Policy]], deals: int, seed: int, rules: HeartsRules) -> dict[str, np.ndarray]:
    """``per_deal_points`` of the seated ``entries`` (the first one's points, the others pooled as the
    field), each deal a single hand under ``rules``."""
    rules = dataclasses.replace(rules, target_score=None)
    check_agents(rules, entries)
    name = entries[0][0]
    start = time.perf_counter()
    result = play_match(rules, entries, deals=deals, seed=seed, episode="hand")
    sums = result.sums()
    return {
        "keys": result.deal_keys,
        "own": sums.ratio("points_per_hand", name),
        "field": sums.ratio("points_per_hand", exclude=name),
        "seconds": np.array(time.perf_counter() - start),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", help="agent specs; the first is the baseline")
    parser.add_argument("--opponent", default="pimc")
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", type=Path, help="folder keeping each match's per-deal points")
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error(f"--deals must be at least 2 (an interval needs two deals), got {args.deals}")
    matches = {}
    for spec in args.specs:
        name = re.sub(r"[^\w=.,-]", "_", f"{spec}__vs_{args.opponent}__seed{args.seed}__deals{args.deals}")
        path = args.cache / f"{name}.npz" if args.cache else None
        if path is not None and path.exists():
            with np.load(path) as saved:
                matches[spec] = dict(saved)
        else:
            try:
                matches[spec] = per_deal_points(spec, args.opponent, args.deals, args.seed)
            except ValueError as error:  # an agent that does not load or cannot play the table
                parser.error(str(error))
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                np.savez(path, **matches[spec])
        m = matches[spec]
        own, field = Estimate.of(m["own"]), Estimate.of(m["own"] - m["field"])
        print(
            f"{spec}: {own.mean:.2f} ± {own.half_width:.2f} points/hand, minus the field "
            f"{field.mean:+.2f} ± {field.half_width:.2f} ({float(m['seconds']):.0f} s)",
            flush=True,
        )
    base = matches[args.specs[0]]
    for spec in args.specs[1:]:
        if not np.array_equal(matches[spec]["keys"], base["keys"]):
            raise SystemExit(f"{spec} and {args.specs[0]} were not played on the same deals")
        paired = Estimate.of(matches[spec]["own"] - base["own"])
        print(f"{spec} minus {args.specs[0]}, paired by deal: {paired.mean:+.3f} ± {paired.half_width:.3f} points/hand")


if __name__ == "__main__":
    main()
