"""The ladder end to end: ``hearts-ladder serve`` and six clients over loopback (this project's
heuristic, simple and random through ``hearts-bot --connect``, the JavaScript client, a bot that
drops its connection mid-match and comes back, one that stalls and answers garbage), the server
killed and started again half-way; on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hearts_env.bench.ladder.db import LadderDB
from hearts_env.bench.ladder.ratings import standings

ROOT = Path(__file__).resolve().parents[2]
ROGUE = Path(__file__).with_name("ladder_rogue.py")
NODE_CLIENT = ROOT / "examples" / "bots" / "ladder_lowest.js"
TIME_LIMIT = 2.0  # generous: a loaded machine must not make the good bots fault
BOTS = {  # name -> the command line that plays it (ADDRESS and TOKEN filled in)
    "heuristic": ["hearts-bot", "heuristic", "--connect", "ADDRESS", "--token", "TOKEN"],
    "simple": ["hearts-bot", "simple", "--connect", "ADDRESS", "--token", "TOKEN"],
    "random": ["hearts-bot", "random", "--connect", "ADDRESS", "--token", "TOKEN"],
    "lowest-js": ["node", str(NODE_CLIENT), "ADDRESS", "TOKEN"],
    "flaky": [sys.executable, str(ROGUE), "flaky", "ADDRESS", "TOKEN", "--every", "200"],
    "staller": [sys.executable, str(ROGUE), "stall-garbage", "ADDRESS", "TOKEN", "--every", "200", "--stall", "3"],
}


def command(name: str) -> list[str]:
    if name == "hearts-bot":
        script = Path(sys.executable).with_name("hearts-bot")
        return [str(script)] if script.exists() else [sys.executable, "-m", "hearts_env.agents.bridges.protocol_bot"]
    if name == "node" and shutil.which("node") is None:
        pytest.skip("node is not installed (the JavaScript client)")
    return [name]


def start_server(db: str, port: int, log: Path) -> subprocess.Popen:
    argv = [sys.executable, "-m", "hearts_env.bench.ladder.cli", "serve", "--db", db, "--port", str(port)]
    argv += ["--deals", "4", "--tables", "2", "--house", "", "--min-bots", "4", "--time-limit", str(TIME_LIMIT)]
    server = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=log.open("a"), text=True)
    line = server.stdout.readline()
    assert "listening on" in line, (line, log.read_text()[-2000:])
    return server


def everyone_played(db: LadderDB) -> bool:
    """Every bot has deals of its own, and each rogue has faulted and played on after: a slow
    machine may start a client late."""
    table = standings(db)
    rogues_back = all(0 < table.stand_ins.get(name, 0) < table.points[name].n for name in ("flaky", "staller"))
    return set(table.ratings) == set(BOTS) and rogues_back


def wait_for_deals(
    db: LadderDB,
    deals: int,
    server: subprocess.Popen,
    clients: dict[str, subprocess.Popen],
    log: Path,
    limit: float,
    everyone: bool = False,
) -> None:
    """Until ``deals`` deals are stored (and, with ``everyone``, ``everyone_played``), at most
    ``limit`` seconds, the server and every client running all along."""
    deadline = time.monotonic() + limit
    while db.counts()["deals"] < deals or (everyone and not everyone_played(db)):
        assert server.poll() is None, log.read_text()[-2000:]
        for name, client in clients.items():
            assert client.poll() is None, (name, (log.parent / f"{name}.log").read_text()[-2000:])
        assert time.monotonic() < deadline, (db.counts(), standings(db).table(), log.read_text()[-3000:])
        time.sleep(0.5)


def whole_deals(db: LadderDB) -> set[tuple[int, int]]:
    """Every stored deal, after checking that each has all its games."""
    rows = db.query(
        "SELECT d.match_id, d.deal, COUNT(g.rotation) FROM deals d LEFT JOIN games g "
        "ON g.match_id = d.match_id AND g.deal = d.deal GROUP BY d.match_id, d.deal"
    )
    assert all(count == 4 for _, _, count in rows), rows
    return {(m, d) for m, d, _ in rows}


def run_ladder(url: str, port: int, tmp_path: Path, deals: int) -> LadderDB:
    """Six clients on a ladder at ``url``, the server killed half-way and started again, until
    ``deals`` deals are stored; the database."""
    db = LadderDB(url)
    tokens = {name: db.add_bot(name) for name in BOTS}
    log = tmp_path / "ladder.log"
    address = f"127.0.0.1:{port}"
    server = start_server(url, port, log)
    clients = {}
    try:
        for name, argv in BOTS.items():
            argv = command(argv[0]) + [
                address if a == "ADDRESS" else tokens[name] if a == "TOKEN" else a for a in argv[1:]
            ]
            clients[name] = subprocess.Popen(
                argv, stdout=subprocess.DEVNULL, stderr=(tmp_path / f"{name}.log").open("w")
            )
        # the limit covers the clients' start-up too, on a loaded machine
        wait_for_deals(db, deals // 2, server, clients, log, limit=120 + 2 * deals)
        server.send_signal(signal.SIGKILL)  # no chance to tidy up
        server.wait()
        before = whole_deals(db)
        server = start_server(url, port, log)
        assert before <= whole_deals(db)  # nothing lost
        wait_for_deals(db, deals, server, clients, log, limit=30 + 2 * deals, everyone=True)
        server.send_signal(signal.SIGTERM)
        assert server.wait(60) == 0, log.read_text()[-2000:]
        assert before <= whole_deals(db)
        statuses = dict(db.query("SELECT status, COUNT(*) FROM matches GROUP BY status"))
        assert statuses.get("interrupted", 0) >= 1 and statuses.get("done", 0) >= 1, statuses
    finally:
        for process in [server, *clients.values()]:
            process.kill()
            process.wait()
    return db


def check_standings(db: LadderDB, order: list[str]) -> None:
    table = standings(db)
    assert table == standings(db, replay=True)  # recomputed from the stored decisions alone
    assert set(table.ratings) == set(BOTS)
    ranked = [name for name in table.ratings if name in order]
    assert ranked == order, table.table()
    assert table.stand_ins.get("flaky", 0) >= 1 and table.stand_ins.get("staller", 0) >= 1, table.table()
    for name in ("flaky", "staller"):  # each came back after its faults: deals of its own, after them
        assert table.points[name].n > table.stand_ins[name], table.table()
    assert table.points["lowest-js"].n > 0
    assert all(e.n > 0 for e in table.pairs.values())
    json.dumps(table.to_json())


@pytest.mark.processes
def test_six_clients_and_a_restart_on_sqlite(tmp_path: Path, port: int) -> None:
    db = run_ladder(str(tmp_path / "ladder.db"), port, tmp_path, deals=24)
    check_standings(db, ["heuristic", "random"])


@pytest.mark.slow
@pytest.mark.processes
def test_three_hundred_deals_on_sqlite(tmp_path: Path, port: int) -> None:
    db = run_ladder(str(tmp_path / "ladder.db"), port, tmp_path, deals=300)
    check_standings(db, ["heuristic", "simple", "random"])


@pytest.mark.slow
@pytest.mark.processes
def test_three_hundred_deals_on_postgresql(postgres_url: str, tmp_path: Path, port: int) -> None:
    db = run_ladder(postgres_url, port, tmp_path, deals=300)
    check_standings(db, ["heuristic", "simple", "random"])
