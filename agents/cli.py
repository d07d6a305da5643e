"""``hearts-arena``: duplicate matches and round robins between agents picked by name; and
``hearts-compile``, which compiles every kernel a first game and the agents need, once per install.

    hearts-arena heuristic simple simple simple --deals 2000 --seed 0 --episode hand --json out.json --plot out.png
    hearts-arena --round-robin random simple heuristic --deals 500
    hearts-arena "pimc:worlds=20" random random random --deals 100 --num-players 4 --moon shooter_choice
    hearts-arena heuristic simple simple simple --deals 20000 --episode hand --block 500 --ray   # blocks as Ray tasks
    hearts-arena heuristic ppo ppo ppo --deals 10 --record games.jsonl   # every card, for hearts-web --replay
    hearts-arena --list

An agent is a spec (``hearts_env.agents.specs``): a name of ``hearts_env.agents.AGENTS``, optionally with options for
its factory, ``name:key=value,key=value`` (values read as Python literals, else as strings).
Repeating an agent spec seats one shared agent object at several seats; each spec is one agent in
the results. A match takes one agent per seat (``--num-players``, default 4) and rotates them
through the seats on every deal; ``--round-robin`` takes any number of distinct agents and plays
every table of ``--num-players`` of them (or ``--tables`` random ones), with OpenSkill ratings.
Every rules knob is a flag (``hearts_env.engine.rules.add_rules_arguments``). Everything is checked
before the first deal: the flags, the agents against the rules (``hearts_env.agents.specs.check_agents``),
and the output paths. See ``hearts_env.arena`` for the statistics.

The deals are played in blocks of ``--block`` (agents reseeded at the start of each); ``--ray``
plays the blocks as Ray tasks (``hearts_env.arena.sharding``), on this machine or on the cluster
at ``--ray ADDRESS``, with the same results as without it (docs/scaling.md).

``--record PATH`` writes every game of the match (its deals, every card, who sat where, the
rules; ``hearts_env.play.replay``) as JSON lines, which ``hearts-web --replay PATH`` plays back step by
step (docs/viewing.md). Recording plays every game on the runner: agents with their own compiled
loop (random, simple, heuristic) play the same cards a little slower; without ``--record``
nothing changes.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from hearts_env.agents import AGENTS, make_agent
from hearts_env.agents.bridges.protocol_bot import warm_up
from hearts_env.agents.specs import agent_from_spec, check_agents, parse_spec
from hearts_env.arena import DEAL_BLOCK, EPISODES, play_match, round_robin
from hearts_env.arena.sharding import RAY_MISSING, add_ray_argument, ray_failure
from hearts_env.cli.commands import Parser, add_progress_argument, command, output_problem, positive_int
from hearts_env.engine import compiled
from hearts_env.engine.rules import HeartsRules, add_rules_arguments, rules_from_args
from hearts_env.engine.seeding import parse_seed
from hearts_env.envs.aec import env
from hearts_env.play import replay
from hearts_env.play.policy import Policy, close_agents

if TYPE_CHECKING:
    from hearts_env.arena.sharding import RayExecutor

__all__ = ["build_agents", "main", "make_parser", "parse_spec"]


def build_agents(specs: list[str], seed: int) -> list[tuple[str, Policy]]:
    """One (spec, agent) per spec; equal specs share one agent object. Each agent is built with
    ``seed=`` (the run's seed plus its order) unless its options give one."""
    built: dict[str, Policy] = {}
    for spec in specs:
        if spec not in built:
            built[spec] = agent_from_spec(spec, seed + len(built))
    return [(spec, built[spec]) for spec in specs]


def make_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="hearts-arena",
        description="Duplicate matches and round robins between Hearts agents picked by name.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example: hearts-arena heuristic simple simple simple --deals 2000 --episode hand --json out.json",
    )
    parser.add_argument("agents", nargs="*", metavar="AGENT", help="agent names (name or name:key=value,...)")
    parser.add_argument("--list", action="store_true", help="list the known agents and exit")
    parser.add_argument("--round-robin", action="store_true", help="rate any number of distinct agents at tables")
    parser.add_argument(
        "--tables", type=positive_int, default=None, help="round robin: this many random tables (default: all)"
    )
    parser.add_argument("--no-ratings", action="store_true", help="round robin: statistics only, no OpenSkill")
    parser.add_argument("--deals", type=positive_int, default=1000, help="deals, each played once per seat rotation")
    parser.add_argument("--seed", type=parse_seed, default=0, help="seed of the deals and the agents")
    parser.add_argument(
        "--block",
        type=positive_int,
        default=DEAL_BLOCK,
        help=f"deals per block: agents are reseeded at each block, the unit of work of --ray (default: {DEAL_BLOCK})",
    )
    add_ray_argument(parser)
    parser.add_argument(
        "--episode",
        choices=EPISODES,
        default="game",
        help="what each deal plays: a whole game or a single hand",
    )
    parser.add_argument("--history", action="store_true", help="record tricks for agents that read them")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON ('-': stdout, instead of the table)")
    parser.add_argument("--plot", metavar="PATH", help="write a PNG of the comparison (needs matplotlib)")
    parser.add_argument(
        "--record", metavar="PATH", help="write every game (deals, cards, seats) as JSON lines, for hearts-web --replay"
    )
    add_progress_argument(parser)
    add_rules_arguments(parser)
    return parser


def _plot_format_problem(path: str) -> str | None:
    """Why matplotlib cannot draw to ``path`` (None if it can): its format comes from the suffix,
    checked before the match rather than after it."""
    from matplotlib.figure import Figure

    formats = Figure().canvas.get_supported_filetypes()
    suffix = Path(path).suffix.lstrip(".").lower()
    if suffix not in formats:
        return f"{path}: a plot is one of {', '.join(sorted(formats))} (by the file's suffix), not {suffix!r}"
    return None


def _join_ray(address: str, parser: Parser) -> RayExecutor:
    """Ray started here (``address`` empty) or the cluster at ``address``; one line and exit if neither works."""
    from hearts_env.arena.sharding import RayExecutor

    try:
        return RayExecutor(address or None, include_dashboard=False, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as error:
        parser.error(f"--ray: {ray_failure(address, error)}")


@command("hearts-arena")
def main(argv: list[str] | None = None) -> None:
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(sorted(AGENTS)))
        return
    if not args.agents:
        parser.error(f"name the agents to play; known agents: {', '.join(sorted(AGENTS))}")
    try:
        rules = rules_from_args(args)
    except ValueError as error:
        parser.error(f"rules: {error}")
    if args.episode == "game" and rules.target_score is None:
        parser.error("--episode game needs a --target-score above 0 (or play single hands: --episode hand)")
    if args.episode == "hand":
        rules = dataclasses.replace(rules, target_score=None)
    if args.round_robin and (len(set(args.agents)) != len(args.agents) or len(args.agents) < 2):
        parser.error("--round-robin needs at least two distinct agents")
    if not args.round_robin and len(args.agents) != rules.num_players:
        parser.error(
            f"a match needs {rules.num_players} agents, one per seat (got {len(args.agents)}): repeat agents "
            "to fill the seats, or use --round-robin"
        )
    for flag, path in (("--json", args.json), ("--plot", args.plot), ("--record", args.record)):
        if path not in (None, "-") and (problem := output_problem(path)):
            parser.error(f"{flag}: {problem}")
    if args.plot and importlib.util.find_spec("matplotlib") is None:
        parser.error("--plot needs matplotlib: pip install matplotlib")
    if args.plot and (problem := _plot_format_problem(args.plot)):
        parser.error(f"--plot: {problem}")
    if args.round_robin and not args.no_ratings and importlib.util.find_spec("openskill") is None:
        parser.error("--round-robin ratings need openskill: pip install openskill (or pass --no-ratings)")
    if args.ray is not None and importlib.util.find_spec("ray") is None:
        parser.error(f"--ray {RAY_MISSING}")
    try:
        agents = build_agents(args.agents, args.seed)
        check_agents(rules, agents, history=args.history)
    except ValueError as error:
        parser.error(str(error))
    executor = None if args.ray is None else _join_ray(args.ray, parser)
    if executor is not None and not args.round_robin and args.deals <= args.block:
        print(f"hearts-arena: note: {args.deals} deals fit one block of {args.block}: one Ray task", file=sys.stderr)
    common = dict(
        deals=args.deals,
        seed=args.seed,
        episode=args.episode,
        history=args.history,
        progress=args.progress,
        block=args.block,
        executor=executor,
        record=args.record is not None,
    )
    try:
        if args.round_robin:
            result = round_robin(rules, agents, tables=args.tables, ratings=not args.no_ratings, **common)
        else:
            result = play_match(rules, agents, **common)
    except ValueError as error:  # an agent that broke down mid-match (an illegal card, a bot program that stopped)
        sys.exit(f"hearts-arena: error: {error}")
    finally:
        close_agents(agent for _, agent in agents)  # a bot program gets its tables' last events, then quit
        if executor is not None:
            executor.shutdown()
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
    if args.record:
        written = replay.save(args.record, result.matches if args.round_robin else [result])
        print(f"hearts-arena: recorded {written} games in {args.record}", file=sys.stderr)


if __name__ == "__main__":
    main()


FIRST_MATCH = ["pimc-ppo", "pimc", "ppo", "heuristic"]
"""The agents whose kernels ``hearts-compile`` compiles (the simple player's and the random
player's are reached on the way: the search's rollouts play them)."""


@command("hearts-compile")
def compile_kernels(argv: list[str] | None = None) -> None:
    """``hearts-compile``: compile the kernels once, where a person expects to wait (``make`` runs
    it after installing), so that a first game, ``hearts-web``'s first card and a test run load
    them from the cache instead. numba keeps them in ``~/.cache/hearts_env`` for these sources."""
    parser = Parser(prog="hearts-compile", description="Compile the kernels of a first game and of the agents, once.")
    parser.parse_args(argv)
    if compiled.no_lasting_cache:  # nothing to compile for: the next run would compile afresh
        where = compiled.no_lasting_cache
        raise OSError(f"nowhere to keep the kernels: {where}; set XDG_CACHE_HOME to a writable folder")

    def step(what: str, run: Callable[[], object]) -> None:
        print(f"hearts-compile: {what}...", end=" ", file=sys.stderr, flush=True)
        start = time.perf_counter()
        run()
        print(f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)

    def first_game() -> None:
        table = env()
        table.reset(seed=0)
        for _agent in table.agent_iter():
            observation, _, termination, truncation, _ = table.last()
            table.step(None if termination or truncation else int(observation["action_mask"].argmax()))

    def first_match() -> None:
        play_match(HeartsRules(target_score=None), build_agents(FIRST_MATCH, 0), deals=1, episode="hand")

    step("the engine and the environments (a first game)", first_game)
    step(f"the agents ({', '.join(FIRST_MATCH)})", first_match)
    step("the bot protocol (hearts-bot, the program agent, the ladder)", lambda: warm_up(make_agent("random")))
    print("hearts-compile: done; later runs load the kernels from the cache", file=sys.stderr)
