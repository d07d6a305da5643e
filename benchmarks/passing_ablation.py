"""What the shipped agent's learned passing is worth: ``ppo`` against the same network playing
after random passes (``ppo-random-pass``) and after the heuristic's passes (``ppo-heuristic-pass``),
each against three heuristic players on the same duplicate single hands, compared deal by deal.

    python benchmarks/passing_ablation.py --deals 5000 --seed 0
"""

from __future__ import annotations

import argparse

from agents import make_agent
from hearts_env.arena import paired_difference, play_match


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opponent", default="heuristic")
    args = parser.parse_args(argv)
    field = make_agent(args.opponent, seed=args.seed)
    results = {}
    for name in ("ppo", "ppo-random-pass", "ppo-heuristic-pass"):
        entries = [(name, make_agent(name, seed=args.seed))] + [(args.opponent, field)] * 3
        results[name] = play_match(None, entries, deals=args.deals, seed=args.seed, games="hand")
        points, diff = results[name].estimate(name), results[name].difference(name)
        own = f"{points.mean:6.3f} ± {points.half_width:.3f} points/hand"
        print(f"{name:<20} {own}, vs field {diff.mean:+.3f} ± {diff.half_width:.3f}")
    for variant in ("ppo-random-pass", "ppo-heuristic-pass"):
        d = paired_difference(results["ppo"], "ppo", results[variant], variant)
        print(f"ppo minus {variant:<19} {d.mean:+.3f} ± {d.half_width:.3f} points/hand (paired by deal, 95%)")


if __name__ == "__main__":
    main()
