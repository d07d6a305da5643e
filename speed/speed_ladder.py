"""The ladder's throughput: deals per second a match worker plays and stores with house agents,
and decisions per second with bots over loopback.

"house": one match of ``--deals`` deals between four house agents (heuristic, simple, random,
random) played by the server's match worker (``LadderServer._play``: the arena's duplicate deal
in every seat rotation, recorded, each deal stored in its own transaction), in this process.
"processes": ``hearts-ladder work --processes 2``'s way, 16 matches of 8 deals of house agents
(drawn from random, simple, heuristic) played by two processes on one database.
"loopback": a ladder served in this process with four ``hearts-bot random --connect`` processes
and no house agent, for ``--seconds`` seconds after its first stored deal: the deals stored and
their decisions (every card played, passes included) per second. Each run uses a fresh SQLite
file in a temporary folder (``--db postgresql://...`` to time a PostgreSQL database instead: it
must be empty).

    python speed/speed_ladder.py
    python speed/speed_ladder.py --deals 200 --seconds 30 --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import io
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import save_json

from hearts_env.bench.ladder.db import LadderDB
from hearts_env.bench.ladder.server import LadderServer
from hearts_env.bench.ladder.worker import LadderSettings, play_house_matches

DECISIONS_PER_DEAL = 4 * 4 * (3 + 13)  # four rotations, four seats, 3 cards passed and 13 played


def house(db: LadderDB, deals: int) -> dict[str, float]:
    server = LadderServer(db, LadderSettings(deals=deals), log=io.StringIO())
    start = time.perf_counter()
    server._play([], ["heuristic", "simple", "random", "random"])
    seconds = time.perf_counter() - start
    stored = db.counts()["deals"]
    return {"deals": stored, "seconds": seconds, "deals_per_second": stored / seconds}


def processes(url: str) -> dict[str, float]:
    settings = LadderSettings(deals=8, house=("random", "simple", "heuristic"))
    start = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(2) as executor:
        play_house_matches(url, settings, 16, "worker", executor)
    seconds = time.perf_counter() - start
    db = LadderDB(url)
    stored = db.counts()["deals"]
    db.close()
    return {"deals": stored, "seconds": seconds, "deals_per_second": stored / seconds}


def loopback(db: LadderDB, seconds: float) -> dict[str, float]:
    tokens = [db.add_bot(f"random{i}") for i in range(4)]
    settings = LadderSettings(deals=8, tables=1, house=(), min_bots=4)
    server = LadderServer(db, settings, log=io.StringIO())
    found: list[tuple[str, int]] = []
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=lambda: loop.run_until_complete(server.serve(found.append)))
    thread.start()
    while not found:
        time.sleep(0.01)
    address = f"{found[0][0]}:{found[0][1]}"
    bot = [sys.executable, "-m", "hearts_env.agents.bridges.protocol_bot", "random", "--connect", address]
    bots = [subprocess.Popen([*bot, "--token", t], stderr=subprocess.DEVNULL) for t in tokens]
    try:
        while db.counts()["deals"] < 1:
            time.sleep(0.05)
        first, start = db.counts()["deals"], time.perf_counter()
        time.sleep(seconds)
        deals, elapsed = db.counts()["deals"] - first, time.perf_counter() - start
    finally:
        loop.call_soon_threadsafe(server.stop)
        thread.join(60)
        for process in bots:
            process.kill()
            process.wait()
    return {
        "deals": deals,
        "seconds": elapsed,
        "deals_per_second": deals / elapsed,
        "decisions_per_second": deals * DECISIONS_PER_DEAL / elapsed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100, help="deals of the house match")
    parser.add_argument("--seconds", type=float, default=20.0, help="time the loopback ladder is measured")
    parser.add_argument("--db", help="a PostgreSQL URL (an empty database) instead of a fresh SQLite file")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, run in (
            ("house", lambda db: house(db, args.deals)),
            ("processes", lambda db: processes(db.url)),
            ("loopback", lambda db: loopback(db, args.seconds)),
        ):
            db = LadderDB(args.db or str(Path(folder) / f"{name}.db"))
            results[name] = run(db)
            db.close()
            print(name, ", ".join(f"{k} {v:,.1f}" for k, v in results[name].items()), flush=True)
            if args.db:
                break  # one run per (empty) PostgreSQL database
    save_json(args.json, results)


if __name__ == "__main__":
    main()
