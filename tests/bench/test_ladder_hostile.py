"""The ladder under hostile clients: wrong tokens, other protocols, a 10 MB line, half-open sockets,
more handshakes at once than it takes and a thousand connects are refused or dropped, while a bot
at a table plays on and nothing stored is lost; and its database refuses what it cannot use."""

from __future__ import annotations

import io
import shutil
import socket
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import pytest

from hearts_env import protocol
from hearts_env.agents.bridges.ladder_client import Refused, play_on_ladder
from hearts_env.bench.ladder.db import LadderDB, LadderDBError
from hearts_env.bench.ladder.server import LadderServer
from hearts_env.bench.ladder.worker import LadderSettings
from hearts_env.play.policy import RandomPolicy

NODE_CLIENT = Path(__file__).resolve().parents[2] / "examples" / "bots" / "ladder_lowest.js"


def connect(address: str, timeout: float = 10) -> socket.socket:
    host, _, port = address.rpartition(":")
    sock = socket.create_connection((host, int(port)), timeout=timeout)
    return sock


def answer(sock: socket.socket) -> bytes:
    """The server's first line (b'' if it closed without one)."""
    data = b""
    try:
        while b"\n" not in data and (chunk := sock.recv(4096)):
            data += chunk
    except (ConnectionResetError, TimeoutError):
        pass
    return data.split(b"\n")[0]


def wait_for(condition, limit: float = 60) -> None:  # noqa: ANN001
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_hostile_clients_are_refused_while_a_table_plays_on(tmp_path: Path, serve_ladder) -> None:  # noqa: ANN001
    db = LadderDB(str(tmp_path / "ladder.db"))
    good, late = db.add_bot("good"), db.add_bot("late")
    settings = LadderSettings(
        deals=2, tables=1, house=("random",), hello_limit=1.0, max_handshakes=16, max_connections=64
    )
    ladder = serve_ladder(LadderServer(db, settings, log=io.StringIO()))
    client = threading.Thread(
        target=play_on_ladder, args=(ladder.address, good, RandomPolicy(0), "good"), kwargs={"reconnect": False}
    )
    client.start()
    wait_for(lambda: db.counts()["deals"] >= 2)
    before = db.counts()["deals"]

    with connect(ladder.address) as sock:  # a token the ladder never gave
        sock.sendall(b"hearts-ladder 1 token=guess\n")
        assert answer(sock) == b"refused unknown token"
    with connect(ladder.address) as sock:  # another protocol
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert answer(sock).startswith(b"refused expected 'hearts-ladder 1 token=TOKEN'")
    with connect(ladder.address) as sock:  # a 10 MB line: refused after its first 4 KB
        start = time.monotonic()
        try:
            sock.sendall(b"x" * 10_000_000)
        except (BrokenPipeError, ConnectionResetError):
            pass
        assert answer(sock) in (b"", b"refused a line of more than 4096 bytes")
        assert time.monotonic() - start < 5

    def welcomed() -> bool:  # the server answers a bot as ever
        with connect(ladder.address) as sock:
            sock.sendall(f"hearts-ladder 1 token={late}\n".encode())
            return answer(sock) == b"welcome late"

    start = time.monotonic()
    half_open = [connect(ladder.address) for _ in range(40)]  # more than max_handshakes at once, silent
    assert welcomed()  # they cannot keep a bot out: the newest handshakes push out the oldest
    replies = {answer(sock) for sock in half_open}  # each pushed out, or out of time
    assert replies == {
        b"refused busy: too many connections, try again later",
        b"refused no complete handshake within 1 s",
    }
    assert time.monotonic() - start < 10
    for sock in half_open:
        sock.close()
    for _ in range(1000):  # a thousand connects, each closed at once
        try:
            connect(ladder.address).close()
        except ConnectionError:
            pass
    wait_for(lambda: db.counts()["deals"] >= before + 4)  # the table played on

    assert welcomed()
    ladder.stop()
    client.join(30)
    assert not client.is_alive()
    rows = db.query(
        "SELECT COUNT(*) FROM deals d WHERE (SELECT COUNT(*) FROM games g WHERE g.match_id = d.match_id "
        "AND g.deal = d.deal) != 4"
    )
    assert rows == [(0,)]


def test_a_refused_token_ends_the_client(tmp_path: Path, serve_ladder) -> None:  # noqa: ANN001
    db = LadderDB(str(tmp_path / "ladder.db"))
    ladder = serve_ladder(LadderServer(db, LadderSettings(), log=io.StringIO()))
    with pytest.raises(Refused, match="refused the bot: 'unknown token'"):
        play_on_ladder(ladder.address, "nope", RandomPolicy(0), "x")


REFUSALS = [f"{protocol.SLOW_HANDSHAKE} 1 s", protocol.BUSY, "unknown token"]


def refusing_server(refusals: list[str]) -> tuple[str, list[bytes]]:
    """A stand-in ladder on a free port that refuses its connections in turn with ``refusals``;
    its address and the first line of each connection, as they come."""
    listener = socket.create_server(("127.0.0.1", 0))
    seen: list[bytes] = []

    def serve() -> None:
        with listener:
            for reason in refusals:
                sock, _ = listener.accept()
                with sock:
                    seen.append(answer(sock))
                    sock.sendall(f"refused {reason}\n".encode())

    threading.Thread(target=serve, daemon=True).start()
    return f"127.0.0.1:{listener.getsockname()[1]}", seen


def test_the_client_tries_again_after_a_late_handshake_or_a_full_server() -> None:
    address, seen = refusing_server(REFUSALS)
    with pytest.raises(Refused, match="refused the bot: 'unknown token'"):
        play_on_ladder(address, "t0k", RandomPolicy(0), "x", retry=0.01)
    assert seen == [b"hearts-ladder 1 token=t0k"] * 3  # the refusal for good ends it, not the two before


def test_the_javascript_client_tries_again_after_a_late_handshake_or_a_full_server() -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed (the JavaScript client)")
    address, seen = refusing_server(REFUSALS)
    client = subprocess.run(["node", str(NODE_CLIENT), address, "t0k"], capture_output=True, text=True, timeout=60)
    assert client.returncode == 1 and "refused unknown token" in client.stderr, client.stderr
    assert seen == [b"hearts-ladder 1 token=t0k"] * 3


def test_the_database_refuses_what_it_cannot_use(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE notes (text TEXT)")
    with pytest.raises(LadderDBError, match="other tables than a ladder's"):
        LadderDB(str(other))
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database" * 100)
    with pytest.raises(LadderDBError, match="garbage.db"):
        LadderDB(str(garbage))
    newer = tmp_path / "newer.db"
    LadderDB(str(newer)).query("UPDATE schema_version SET version = 99")
    with pytest.raises(LadderDBError, match="schema version 99 is newer"):
        LadderDB(str(newer))
    db = LadderDB(str(tmp_path / "ladder.db"))
    token = db.add_bot("mine")
    with pytest.raises(LadderDBError, match="already registered"):
        db.add_bot("mine")
    with pytest.raises(LadderDBError, match="bot name"):
        db.add_bot("house:me")
    assert db.bot_of_token(token) == "mine" and db.bot_of_token("x") is None
    assert token not in (tmp_path / "ladder.db").read_bytes().decode("latin-1")  # only its hash is kept
