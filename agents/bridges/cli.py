"""The command lines of the bridges: ``hearts-bot`` serves any agent of the registry over the bot
protocol (``hearts_env.agents.bridges.protocol_bot``)."""

from __future__ import annotations

import sys

from hearts_env import protocol
from hearts_env.agents import AGENTS
from hearts_env.agents.bridges.protocol_bot import PROG, Bot, warm_up
from hearts_env.agents.specs import agent_from_spec
from hearts_env.cli.commands import Parser
from hearts_env.engine.seeding import parse_seed


def bot(argv: list[str] | None = None) -> None:
    parser = Parser(
        prog=PROG,
        description="Serve one of this project's agents as a Hearts bot on stdin/stdout (docs/bot-protocol.md).",
    )
    parser.add_argument("agent", metavar="AGENT", help=f"agent spec (name or name:key=value,...): {', '.join(AGENTS)}")
    parser.add_argument(
        "--name", help="the bot's name in the hello (default: the agent spec, or its agent's name if it is no name)"
    )
    parser.add_argument("--seed", type=parse_seed, default=0, help="seed of the agent until the manager sends one")
    args = parser.parse_args(argv)
    name = args.name
    if name is None:  # a spec is a name unless it is long or holds spaces (a path): then its agent's name
        name = args.agent if protocol.is_bot_name(args.agent) else args.agent.split(":", 1)[0].strip()
    try:
        agent = agent_from_spec(args.agent, args.seed)
        protocol.hello_reply(name, True)
    except ValueError as error:
        parser.error(str(error))
    warm_up(agent)
    try:
        Bot(agent, name, sys.stderr).serve(sys.stdin.buffer, sys.stdout.buffer)
    except (ValueError, BrokenPipeError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:  # the manager's terminal was interrupted
        sys.exit(130)
