"""What the shipped agent's learned passing is worth: ``ppo`` against the same network playing
after random passes (``ppo-random-pass``) and after the heuristic's passes (``ppo-heuristic-pass``),
each against three heuristic players on the same duplicate single hands (deal d passing left,
right, across or none by d mod 4), compared deal by deal, in all and by pass direction.

    python studies/passing_ablation.py --deals 5000 --seed 0
"""

from __future__ import annotations

import argparse

from hearts_env.agents import make_agent
from hearts_env.arena import play_match


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opponent", default="heuristic")
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error(f"--deals must be at least 2 (an interval needs two deals), got {args.deals}")
    field = make_agent(args.opponent, seed=args.seed)
    results = {}
    for name in ("ppo", "ppo-random-pass", "ppo-heuristic-pass"):
        entries = [(name, make_agent(name, seed=args.seed))] + [(args.opponent, field)] * 3
        results[name] = play_match(None, entries, deals=args.deals, seed=args.seed, episode="hand")
        points, diff = results[name].estimate(name), results[name].difference(name)
        own = f"{points.mean:6.3f} ± {points.half_width:.3f} points/hand"
        print(f"{name:<20} {own}, vs field {diff.mean:+.3f} ± {diff.half_width:.3f}")
    directions = list(dict.fromkeys(results["ppo"].directions))
    print(f"\nppo minus the variant, points/hand paired by deal (95%): {', '.join(directions)}, all")
    for variant in ("ppo-random-pass", "ppo-heuristic-pass"):
        cells = [results["ppo"].paired_difference("ppo", results[variant], variant, direction=d) for d in directions]
        cells.append(results["ppo"].paired_difference("ppo", results[variant], variant))
        print(f"{variant:<20} " + "  ".join(f"{d.mean:+.2f} ± {d.half_width:.2f}" for d in cells))


if __name__ == "__main__":
    main()
