"""The command lines of the tables for people: ``hearts-play`` (the terminal,
``hearts_env.agents.human.terminal``) and ``hearts-web`` (the browser, ``hearts_env.agents.human.web``)."""

from __future__ import annotations

import argparse
import math
import os
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from hearts_env.agents import AGENTS
from hearts_env.agents.human import terminal
from hearts_env.agents.human.terminal import Quit, make_table, play_game
from hearts_env.agents.human.web.app import create_app
from hearts_env.agents.human.web.store import StoreError
from hearts_env.cli.commands import Parser, command
from hearts_env.engine import cards
from hearts_env.engine.core import new_games
from hearts_env.engine.rules import add_rules_arguments, rules_from_args
from hearts_env.engine.seeding import parse_seed
from hearts_env.play import replay


def play_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="hearts-play", description=terminal.__doc__.splitlines()[0])
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0..num_players-1 (default 0)")
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=["random"],
        metavar="AGENT",
        help="one agent for every other seat, or one per seat clockwise from your left: a name or "
        f"name:key=value,... ({', '.join(sorted(AGENTS))}; trained:path=RUN_FOLDER)",
    )
    parser.add_argument(
        "--seed", type=parse_seed, default=None, help="seed of the deals and the agents (default: random)"
    )
    add_rules_arguments(parser)
    return parser


@command("hearts-play")
def play(
    argv: Sequence[str] | None = None, input_fn: Callable[[str], str] = input, output: TextIO | None = None
) -> int:
    """Run ``hearts-play``; returns the exit status (0, also when the person quits)."""
    parser = play_parser()
    args = parser.parse_args(argv)
    rules = rules_from_args(args, parser)
    try:
        table = make_table(rules, args.seat, args.opponents, args.seed, input_fn, output)
    except ValueError as error:
        parser.error(str(error))
    state = new_games(rules, batch_size=1, seed=args.seed)
    _replace_unprintable(table.output)
    if input_fn is input and hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")  # bytes the terminal cannot decode: a word that is no card
    table.say(f"Hearts: you are seat {table.seat}. Type 'help' for how to play, 'quit' to leave.")
    for s in sorted(table.agents):
        table.say(f"  {table.who(s)}")
    try:
        play_game(table, state)
    except Quit:
        table.say("Bye.")
    return 0


def _replace_unprintable(output: TextIO) -> None:
    """On a terminal that cannot show the suit symbols, print '?' for them rather than fail."""
    encoding = getattr(output, "encoding", None)
    try:
        cards.SUIT_SYMBOLS.encode(encoding or "utf-8")
    except (UnicodeEncodeError, LookupError):
        if hasattr(output, "reconfigure"):
            output.reconfigure(errors="replace")


def default_db() -> Path:
    """Where ``hearts-web`` keeps its sessions unless told (``--db``): the user's data folder."""
    data = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data) / "hearts_env" / "hearts-web.sqlite"


def web_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="hearts-web", description="Play Hearts in the browser against any agent.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games' deals and agents (default 0)")
    parser.add_argument("--replay", action="append", default=[], metavar="PATH", help="a recorded match to offer")
    parser.add_argument(
        "--policy-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder whose trained policies requests may name (trained:path=DIR/run); none by default",
    )
    parser.add_argument("--idle-minutes", type=float, default=30, help="drop a game idle this long (default 30)")
    parser.add_argument("--max-games", type=int, default=64, help="most games held at once (default 64)")
    parser.add_argument(
        "--db",
        metavar="PATH",
        help=f"the SQLite database of the duplicate sessions, made if missing (default {default_db()})",
    )
    parser.add_argument("--max-sessions", type=int, default=16, help="most sessions in play at once (default 16)")
    return parser


def web(argv: Sequence[str] | None = None) -> None:
    parser = web_parser()
    args = parser.parse_args(argv)
    if not 0 <= args.port < 65536:
        parser.error(f"--port must be in 0..65535, got {args.port}")
    if args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    if not 0 < args.idle_minutes < math.inf:
        parser.error(f"--idle-minutes must be a number of minutes > 0, got {args.idle_minutes}")
    if args.max_games < 1:
        parser.error(f"--max-games must be >= 1, got {args.max_games}")
    if args.max_sessions < 1:
        parser.error(f"--max-sessions must be >= 1, got {args.max_sessions}")
    try:
        socket.getaddrinfo(args.host, args.port)
    except (OSError, UnicodeError):
        parser.error(f"--host: {args.host!r:.60} is not an address of this machine or a name it can resolve")
    for folder in args.policy_dir:
        if not Path(folder).is_dir():
            parser.error(f"--policy-dir: no folder {folder}")
    db = args.db
    if db is None:
        db = default_db()
        db.parent.mkdir(parents=True, exist_ok=True)
    elif not Path(db).parent.is_dir():
        parser.error(f"--db: no folder {Path(db).parent} for {db}")
    try:
        import uvicorn

        app = create_app(
            args.seed,
            args.idle_minutes * 60,
            args.max_games,
            args.replay,
            args.policy_dir,
            args.host,
            str(db),
            args.max_sessions,
        )
    except ImportError as error:
        parser.error(f'hearts-web needs {error.name}: pip install "hearts_env[web]"')
    except replay.ReplayError as error:
        parser.error(f"--replay: {error}")
    except StoreError as error:
        parser.error(f"--db: {error}")
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"hearts-web: http://{host}:{args.port}/ (sessions in {db})", file=sys.stderr, flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
