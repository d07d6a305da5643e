"""``hearts-ladder``: a ladder of bots that play rated duplicate matches over the network
(``docs/ladder.md``).

    hearts-ladder add-bot mybot --db ladder.db                 # prints mybot's token (once)
    hearts-ladder serve --db ladder.db --port 7474             # bots connect with hearts-bot --connect
    hearts-ladder standings --db ladder.db                     # ratings and points, from the stored games
    hearts-ladder standings --db ladder.db --replay --pairs    # every stored card played again; pairs
    hearts-ladder web --db ladder.db --port 8080               # the standings, bots and matches in a browser
    hearts-ladder work --db ladder.db --matches 20 --processes 2   # house agents' matches, in 2 processes

``--db`` is a SQLite file (made if missing) or a ``postgresql://`` URL. Errors are one line.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import importlib.util
import json
import signal
import sys
import time
from typing import Any

from hearts_env.arena.sharding import RAY_MISSING, RayExecutor, add_ray_argument, ray_failure
from hearts_env.bench.ladder.db import LadderDB
from hearts_env.bench.ladder.ratings import standings
from hearts_env.bench.ladder.server import LadderServer, websocket_module
from hearts_env.bench.ladder.worker import LadderSettings, play_house_matches
from hearts_env.cli.commands import Parser, command, positive_int
from hearts_env.engine.rules import HeartsRules
from hearts_env.engine.seeding import parse_seed

PROG = "hearts-ladder"


@command(PROG)
def main(argv: list[str] | None = None) -> None:
    parser = Parser(prog=PROG, description="A ladder of Hearts bots playing rated duplicate matches over the network.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    add = sub.add_parser("add-bot", help="register a bot and print its token")
    add.add_argument("name", help="the bot's name: 1 to 32 letters, digits, '_', '.' or '-'")
    serve = sub.add_parser("serve", help="accept bots and play matches until interrupted")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=7474, help="port to listen on (default: 7474; 0: any free one)")
    serve.add_argument("--tables", type=positive_int, default=2, help="matches played at once (default: 2)")
    serve.add_argument("--ws-port", type=int, help="also accept bots over a WebSocket on this port (bots in browsers)")
    serve.add_argument("--min-bots", type=positive_int, default=1, help="bots a table needs (default: 1)")
    serve.add_argument("--time-limit", type=float, default=5.0, help="seconds a bot has for each answer (default: 5)")
    work = sub.add_parser("work", help="play matches of house agents alone, in processes or Ray tasks")
    work.add_argument("--matches", type=positive_int, default=10, help="matches to play (default: 10)")
    work.add_argument("--processes", type=positive_int, default=1, help="processes that play them (default: 1)")
    add_ray_argument(work, "play them as Ray tasks")
    for p in (serve, work):
        p.add_argument("--players", type=positive_int, default=4, help="players at a table (default: 4)")
        p.add_argument("--deals", type=positive_int, default=8, help="deals a match plays (default: 8)")
        p.add_argument(
            "--house",
            default="random,simple,heuristic",
            help="benchmark pool members who fill seats, comma-separated ('' for none with serve)",
        )
        p.add_argument("--seed", type=parse_seed, default=0, help="seed of the matches and the draws (default: 0)")
        default = "server" if p is serve else "worker"
        p.add_argument("--name", default=default, help=f"this process's name in the database (default: {default})")
    stand = sub.add_parser("standings", help="print the standings, recomputed from the stored games")
    stand.add_argument("--replay", action="store_true", help="play every stored card again for the points")
    stand.add_argument("--pairs", action="store_true", help="also each pair's difference in points per hand")
    stand.add_argument("--json", action="store_true", help="print JSON instead of a table")
    web = sub.add_parser("web", help="serve the read-only web pages")
    web.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    web.add_argument("--port", type=int, default=8080, help="port to listen on (default: 8080)")
    for p in (add, serve, work, stand, web):
        p.add_argument("--db", default="ladder.db", help="SQLite file or postgresql:// URL (default: ladder.db)")
    args = parser.parse_args(argv)
    if args.command in ("serve", "web") and not 0 <= args.port < 65536:
        parser.error(f"--port must be in 0..65535, got {args.port}")
    if args.command == "serve" and args.ws_port is not None and not 0 <= args.ws_port < 65536:
        parser.error(f"--ws-port must be in 0..65535, got {args.ws_port}")
    settings = _settings(args, parser) if args.command in ("serve", "work") else None
    try:
        _run(args, settings)
    except ImportError as error:  # an optional package this command needs: one line saying which
        raise ValueError(str(error)) from None


def _settings(args: argparse.Namespace, parser: Parser) -> LadderSettings:
    """``serve``'s or ``work``'s settings, checked (``ValueError`` naming the one that is wrong)."""
    house = tuple(h.strip() for h in args.house.split(",") if h.strip())
    serving = {}
    if args.command == "serve":
        serving = {"tables": args.tables, "min_bots": args.min_bots, "time_limit": args.time_limit}
    elif not house:
        parser.error("--house: a worker's matches need house agents")
    elif args.ray is not None and importlib.util.find_spec("ray") is None:
        parser.error(f"--ray {RAY_MISSING}")
    rules = HeartsRules(num_players=args.players)
    return LadderSettings(rules=rules, deals=args.deals, house=house, seed=args.seed, **serving).check()


def _run(args: argparse.Namespace, settings: LadderSettings | None) -> None:
    if args.command == "serve" and args.ws_port is not None:
        websocket_module()  # installed, before anything starts
    db = LadderDB(args.db)
    if args.command == "add-bot":
        token = db.add_bot(args.name)
        print(f"bot {args.name!r} registered; its token (shown only now): {token}")
    elif args.command == "serve":
        assert settings is not None
        _serve(db, settings, args.host, args.port, args.name, args.ws_port)
    elif args.command == "work":
        assert settings is not None
        db.close()
        _work(args.db, settings, args.matches, args.name, args.processes, args.ray)
    elif args.command == "standings":
        table = standings(db, replay=args.replay)
        if args.json:
            print(json.dumps(table.to_json(), indent=1))
            return
        print(table.table())
        if args.pairs:
            print()
            for (a, b), e in table.pairs.items():
                print(f"{a} - {b}: {e.mean:+.2f} ± {e.half_width:.2f} points per hand over {e.n} deals")
    else:
        from hearts_env.bench.ladder.web import serve_web

        serve_web(db, args.host, args.port)


def _work(url: str, settings: LadderSettings, matches: int, name: str, processes: int, ray: str | None) -> None:
    start = time.perf_counter()
    if ray is not None:
        try:
            executor: Any = RayExecutor(ray or None, include_dashboard=False, log_to_driver=False)
        except (ConnectionError, RuntimeError) as error:
            raise ValueError(f"--ray: {ray_failure(ray, error)}") from None
    else:
        executor = concurrent.futures.ProcessPoolExecutor(processes) if processes > 1 else None
    try:
        statuses = play_house_matches(url, settings, matches, name, executor)
    finally:
        if executor is not None:
            executor.shutdown()
    done = statuses.count("done")
    seconds = time.perf_counter() - start
    print(f"{PROG}: {done} of {matches} matches played ({done * settings.deals} deals) in {seconds:.1f} s")


def _serve(db: LadderDB, settings: LadderSettings, host: str, port: int, name: str, ws_port: int | None) -> None:
    server = LadderServer(db, settings, host, port, name=name, ws_port=ws_port)

    def ready(address: tuple[str, int]) -> None:
        print(f"{PROG}: listening on {address[0]}:{address[1]}", flush=True)
        if server.ws_address is not None:
            print(f"{PROG}: WebSocket at ws://{server.ws_address[0]}:{server.ws_address[1]}/bot", flush=True)

    async def run() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, server.stop)
        await server.serve(ready)

    asyncio.run(run())
    print(f"{PROG}: stopped", file=sys.stderr)


if __name__ == "__main__":
    main()
