"""The command lines of the bridges: ``hearts-bot`` serves any agent of the registry over the bot
protocol (``hearts_env.agents.bridges.protocol_bot``), on stdin/stdout or, with ``--connect``, on a
ladder (``hearts_env.agents.bridges.ladder_client``)."""

from __future__ import annotations

import signal
import sys

from hearts_env import protocol
from hearts_env.agents import AGENTS
from hearts_env.agents.bridges.ladder_client import Refused, parse_address, play_on_ladder
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
    parser.add_argument(
        "--connect", metavar="HOST:PORT", help="play on the ladder at HOST:PORT (hearts-ladder serve), not stdin/stdout"
    )
    parser.add_argument("--token", help="the bot's ladder token (hearts-ladder add-bot); with --connect")
    parser.add_argument("--once", action="store_true", help="with --connect: end when the connection ends")
    args = parser.parse_args(argv)
    if (args.connect is None) != (args.token is None):
        parser.error("--connect and --token go together")
    name = args.name
    if name is None:  # a spec is a name unless it is long or holds spaces (a path): then its agent's name
        name = args.agent if protocol.is_bot_name(args.agent) else args.agent.split(":", 1)[0].strip()
    try:
        agent = agent_from_spec(args.agent, args.seed)
        protocol.hello_reply(name, True)
        if args.connect is not None:
            parse_address(args.connect)
    except ValueError as error:
        parser.error(str(error))
    warm_up(agent)
    if args.connect is not None:
        # a client stopped like a service (SIGTERM) still ends the program it runs (program:)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        try:
            play_on_ladder(args.connect, args.token, agent, name, sys.stderr, reconnect=not args.once)
        except Refused as error:
            print(f"{PROG}: error: {error}", file=sys.stderr)
            sys.exit(1)
        except KeyboardInterrupt:
            sys.exit(130)
        return
    try:
        Bot(agent, name, sys.stderr).serve(sys.stdin.buffer, sys.stdout.buffer)
    except (ValueError, BrokenPipeError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:  # the manager's terminal was interrupted
        sys.exit(130)
