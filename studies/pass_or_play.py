"""Where an agent's edge over another lies, its passes or its play: agent A, B's passes with A's
play, and A's passes with B's play, each against a field of one opponent at every other seat on
the same duplicate single hands per table, paired by deal with A (points per hand minus the
field's, the benchmark's headline; lower is better).

    python studies/pass_or_play.py ppo-family heuristic --tables 6p-2d 8p-2d 4p-jd --deals 300 --seed 51
"""

from __future__ import annotations

import argparse

from search_ablation import match_points

from hearts_env.agents.learned.family import table_rules
from hearts_env.agents.specs import agent_from_spec
from hearts_env.arena.statistics import Estimate
from hearts_env.play.policy import PhaseSplit


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="the agent whose passes and play are split (a spec)")
    parser.add_argument("b", help="the agent whose passes or play stand in (a spec)")
    parser.add_argument("--tables", nargs="+", required=True, help="table keys: 5p, 4p-jd, 8p-2d")
    parser.add_argument("--opponent", default="heuristic", help="the field (a spec)")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error(f"--deals must be at least 2 (an interval needs two deals), got {args.deals}")
    try:
        tables = {key: table_rules(key) for key in args.tables}
        a, b, field = (agent_from_spec(spec, args.seed + i) for i, spec in enumerate((args.a, args.b, args.opponent)))
    except ValueError as error:
        parser.error(str(error))
    variants = {
        f"`{args.a}`": a,
        f"`{args.b}`'s passes, `{args.a}`'s play": PhaseSplit(b, a),
        f"`{args.a}`'s passes, `{args.b}`'s play": PhaseSplit(a, b),
    }
    print(f"| table | agent | minus the field | minus `{args.a}`, paired |")
    print("|---|---|---:|---:|")
    for key, rules in tables.items():
        base = None
        for name, agent in variants.items():
            m = match_points(
                [(name, agent)] + [("field", field)] * (rules.num_players - 1), args.deals, args.seed, rules
            )
            diff = m["own"] - m["field"]
            own, paired = Estimate.of(diff), ""
            if base is None:
                base = diff
            else:
                gain = Estimate.of(diff - base)
                paired = f"{gain.mean:+.2f} ± {gain.half_width:.2f}"
            print(f"| {key} | {name} | {own.mean:+.2f} ± {own.half_width:.2f} | {paired} |", flush=True)


if __name__ == "__main__":
    main()
