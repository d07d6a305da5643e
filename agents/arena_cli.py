"""``hearts-arena``: duplicate matches and round robins between agents picked by name.

    hearts-arena heuristic simple simple simple --deals 2000 --seed 0 --games hand --json out.json --plot out.png
    hearts-arena --round-robin random simple heuristic --deals 500
    hearts-arena "pimc:samples=20" random random random --deals 100
    hearts-arena --list

An agent is a name of ``agents.AGENTS``, optionally with options for its factory:
``name:key=value,key=value`` (values read as Python literals, else as strings). Repeating an
agent spec seats one shared agent object at several seats; each spec is one agent in the results.
A match takes one agent per seat (``--num-players``, default 4) and rotates them through the seats
on every deal; ``--round-robin`` takes any number of distinct agents and plays every table of
``--num-players`` of them (or ``--tables`` random ones), with OpenSkill ratings. See
``hearts_env.arena`` for the statistics.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from typing import Any

from agents import AGENTS, make_agent
from hearts_env.arena import GAME_MODES, play_match, round_robin
from hearts_env.policy import Policy
from hearts_env.rules import MOON_RULES, HeartsRules


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"name:key=value,key=value"`` -> (name, options); values are Python literals or strings."""
    name, _, rest = spec.partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"agent option {item!r} of {spec!r} is not key=value")
        try:
            options[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            options[key.strip()] = value.strip()
    return name.strip(), options


def build_agents(specs: list[str], seed: int) -> list[tuple[str, Policy]]:
    """One (spec, agent) per spec; equal specs share one agent object. Each agent is built with
    ``seed=`` (the run's seed plus its order) unless its options give one."""
    built: dict[str, Policy] = {}
    for spec in specs:
        if spec not in built:
            name, options = parse_spec(spec)
            options.setdefault("seed", seed + len(built))
            built[spec] = make_agent(name, **options)
    return [(spec, built[spec]) for spec in specs]


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive int, got {value}")
    return value


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hearts-arena",
        description="Duplicate matches and round robins between Hearts agents picked by name.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example: hearts-arena heuristic simple simple simple --deals 2000 --games hand --json out.json",
    )
    parser.add_argument("agents", nargs="*", metavar="AGENT", help="agent names (name or name:key=value,...)")
    parser.add_argument("--list", action="store_true", help="list the known agents and exit")
    parser.add_argument("--round-robin", action="store_true", help="rate any number of distinct agents at tables")
    parser.add_argument(
        "--tables", type=_positive_int, default=None, help="round robin: this many random tables (default: all)"
    )
    parser.add_argument("--no-ratings", action="store_true", help="round robin: statistics only, no OpenSkill")
    parser.add_argument("--deals", type=_positive_int, default=1000, help="deals, each played once per seat rotation")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents")
    parser.add_argument("--games", choices=GAME_MODES, default="game", help="whole games or single hands")
    parser.add_argument("--num-players", type=int, default=4, help="players at a table, 3..7")
    parser.add_argument("--target-score", type=int, default=100, help="a game ends when a total reaches this")
    parser.add_argument("--moon", choices=MOON_RULES, default="add_to_others", help="shooting the moon")
    parser.add_argument("--jack-of-diamonds", action="store_true", help="taking the JD scores -10")
    parser.add_argument("--pass-count", type=int, default=3, help="cards passed before a hand (0: no passing)")
    parser.add_argument("--history", action="store_true", help="record tricks for agents that read them")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON ('-': stdout, instead of the table)")
    parser.add_argument("--plot", metavar="PATH", help="write a PNG of the comparison (needs matplotlib)")
    parser.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None, help="progress bar (default: on a terminal)"
    )
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(sorted(AGENTS)))
        return
    if not args.agents:
        parser.error(f"name the agents to play; known agents: {', '.join(sorted(AGENTS))}")
    try:
        rules = HeartsRules(
            num_players=args.num_players,
            target_score=args.target_score if args.games == "game" else None,
            moon=args.moon,
            jack_of_diamonds=args.jack_of_diamonds,
            pass_count=args.pass_count,
        )
        agents = build_agents(args.agents, args.seed)
    except (ValueError, TypeError) as error:
        parser.error(str(error))
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    common = dict(deals=args.deals, seed=args.seed, games=args.games, history=args.history, progress=progress)
    if args.round_robin:
        if len(set(args.agents)) != len(args.agents) or len(args.agents) < 2:
            parser.error("--round-robin needs at least two distinct agents")
        try:
            result = round_robin(rules, agents, tables=args.tables, ratings=not args.no_ratings, **common)
        except ImportError as error:
            parser.error(str(error))
    else:
        if len(agents) != rules.num_players:
            parser.error(
                f"a match needs {rules.num_players} agents, one per seat (got {len(agents)}): repeat agents "
                "to fill the seats, or use --round-robin"
            )
        result = play_match(rules, agents, **common)
    summary = result.summary()
    if args.json == "-":
        json.dump(summary, sys.stdout, indent=2)
        print()
    else:
        print(result.table())
        if args.json:
            with open(args.json, "w") as f:
                json.dump(summary, f, indent=2)
    if args.plot:
        result.plot(args.plot)


if __name__ == "__main__":
    main()
