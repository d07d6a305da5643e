"""Fixtures of the benchmark's tests: a PostgreSQL server of the test's own (the ladder's
databases), and a ladder served in this process."""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    return free_port()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A PostgreSQL server started with ``initdb`` and ``pg_ctl`` in a temporary folder on a free
    port (run as the ``postgres`` user when the tests run as root, which PostgreSQL refuses: its
    folder is then made directly in the system's temporary folder, which that user can reach);
    its URL without a database name. Skipped where PostgreSQL or psycopg is not installed."""
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'psycopg[binary]')")
    pg_ctl = shutil.which("pg_ctl") or next(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), None)
    if pg_ctl is None:
        pytest.skip("PostgreSQL's pg_ctl is not installed (Debian: apt-get install postgresql)")
    initdb = Path(pg_ctl).resolve().with_name("initdb")
    as_user: list[str] = []
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("the tests run as root and there is no postgres user to run PostgreSQL as")
        as_user = ["runuser", "-u", "postgres", "--"]
    folder = Path(tempfile.mkdtemp(prefix="hearts-ladder-postgres-"))
    if as_user:
        shutil.chown(folder, "postgres")
    data, port = folder / "data", free_port()
    subprocess.run(
        [*as_user, str(initdb), "-D", str(data), "-U", "postgres", "--auth=trust"], check=True, capture_output=True
    )
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    start = [*as_user, str(pg_ctl), "-D", str(data), "-l", str(folder / "log"), "-o", options, "-w", "start"]
    subprocess.run(start, check=True, capture_output=True)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run([*as_user, str(pg_ctl), "-D", str(data), "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: str, request: pytest.FixtureRequest) -> str:
    """A fresh database on the test session's PostgreSQL server."""
    import psycopg

    name = "ladder_" + "".join(c if c.isalnum() else "_" for c in request.node.name.lower())[:50]
    with psycopg.connect(f"{postgres_server}/postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        connection.execute(f'CREATE DATABASE "{name}"')
    return f"{postgres_server}/{name}"


class ServedLadder:
    """A ladder server on a thread of this process (its own asyncio loop)."""

    def __init__(self, server) -> None:  # noqa: ANN001  (a LadderServer)
        self.server, self.address = server, None
        self.loop = asyncio.new_event_loop()
        found: list[tuple[str, int]] = []
        self.thread = threading.Thread(target=lambda: self.loop.run_until_complete(server.serve(found.append)))
        self.thread.start()
        deadline = time.monotonic() + 30
        while not found and time.monotonic() < deadline:
            time.sleep(0.02)
        host, port = found[0]
        self.address = f"{host}:{port}"

    def stop(self) -> None:
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.server.stop)
        self.thread.join(60)
        self.loop.close()


@pytest.fixture
def serve_ladder() -> Iterator:
    """``serve_ladder(server)``: serve a ``LadderServer`` on a thread until the test ends."""
    served: list[ServedLadder] = []

    def serve(server) -> ServedLadder:  # noqa: ANN001
        served.append(ServedLadder(server))
        return served[-1]

    yield serve
    for ladder in served:
        ladder.stop()
