"""A family agent measured at every table: each agent spec against a field of one opponent at
every other seat, on the same duplicate single hands per table, with each later spec's
differences from the first paired by deal: of the points per hand, and of the points minus the
field's (the benchmark's headline).

Each match is the one ``hearts-arena SPEC OPPONENT ... --num-players N [--decks 2]
[--jack-of-diamonds] --episode hand --deals D --seed S`` plays (``search_ablation.per_deal_points``),
so its figures are that command's. One markdown row per table and spec:

    python studies/family_strength.py ppo-family --tables 3p 5p 8p-2d --opponent heuristic --deals 2000 --seed 11
"""

from __future__ import annotations

import argparse

from search_ablation import per_deal_points

from hearts_env.agents.learned.family import table_rules
from hearts_env.arena.statistics import Estimate


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", help="agent specs; the first is the baseline of the paired differences")
    parser.add_argument("--tables", nargs="+", required=True, help="table keys: 5p, 4p-jd, 8p-2d")
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error(f"--deals must be at least 2 (an interval needs two deals), got {args.deals}")
    try:
        tables = {key: table_rules(key) for key in args.tables}
    except ValueError as error:
        parser.error(str(error))
    print(
        "| table | agent | deals | points/hand | minus the field | minus the first agent, paired: points/hand "
        "| paired: minus the field | seconds |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for key, rules in tables.items():
        base = None
        for spec in args.specs:
            try:
                m = per_deal_points(spec, args.opponent, args.deals, args.seed, rules)
            except ValueError as error:  # an agent that does not load or cannot play the table
                parser.error(str(error))
            own, field = Estimate.of(m["own"]), Estimate.of(m["own"] - m["field"])
            paired = " | "
            if base is None:
                base = m
            else:
                points = Estimate.of(m["own"] - base["own"])
                adp = Estimate.of((m["own"] - m["field"]) - (base["own"] - base["field"]))
                paired = f"{points.mean:+.2f} ± {points.half_width:.2f} | {adp.mean:+.2f} ± {adp.half_width:.2f}"
            print(
                f"| {key} | `{spec}` | {args.deals:,} | {own.mean:.2f} ± {own.half_width:.2f} | "
                f"{field.mean:+.2f} ± {field.half_width:.2f} | {paired} | {float(m['seconds']):.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
