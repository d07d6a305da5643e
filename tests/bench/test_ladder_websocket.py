"""Bots over the ladder's WebSocket (``hearts-ladder serve --ws-port``): a bot plays as over TCP,
and what is no WebSocket bot is refused."""

from __future__ import annotations

import io
import json
import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from hearts_env.bench.ladder.db import LadderDB
from hearts_env.bench.ladder.server import LadderServer
from hearts_env.bench.ladder.worker import LadderSettings

wsproto = pytest.importorskip("wsproto")
from wsproto import ConnectionType, WSConnection  # noqa: E402
from wsproto.events import (  # noqa: E402
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Message,
    RejectConnection,
    Request,
    TextMessage,
)


class Client:
    """A WebSocket client over a plain socket: what a browser's ``WebSocket`` does, by hand."""

    def __init__(self, address: tuple[str, int], path: str = "/bot") -> None:
        self.sock = socket.create_connection(address, timeout=10)
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.sock.sendall(self.ws.send(Request(host=f"{address[0]}:{address[1]}", target=path)))
        self.text, self.answer, self.closed = "", None, None
        while self.answer is None:
            self.pump()

    def pump(self) -> None:
        """Read what came and sort its events: the upgrade's answer, text, the close."""
        data = self.sock.recv(65536)
        if not data:
            self.closed = self.closed or CloseConnection(code=1006)
            return
        self.ws.receive_data(data)
        for event in self.ws.events():
            if isinstance(event, (AcceptConnection, RejectConnection)):
                self.answer = event
            elif isinstance(event, TextMessage):
                self.text += event.data
            elif isinstance(event, CloseConnection):
                self.closed = event

    def line(self) -> str | None:
        """The next line the server sent, or None once the connection has closed."""
        while "\n" not in self.text:
            if self.closed is not None:
                return None
            self.pump()
        line, _, self.text = self.text.partition("\n")
        return line

    def send(self, text: str) -> None:
        self.sock.sendall(self.ws.send(Message(data=text)))


def test_a_bot_plays_over_a_websocket(tmp_path: Path, serve_ladder) -> None:  # noqa: ANN001
    db = LadderDB(str(tmp_path / "ladder.db"))
    token = db.add_bot("browser")
    server = LadderServer(db, LadderSettings(deals=2, tables=1, house=("random",)), log=io.StringIO(), ws_port=0)
    serve_ladder(server)
    bot = Client(server.ws_address)
    assert isinstance(bot.answer, AcceptConnection)
    bot.send(f"hearts-ladder 1 token={token}")  # a message's last newline may be left out
    assert bot.line() == "welcome browser" and bot.line() == "hearts-bot-protocol 1"
    bot.send("hearts-bot-protocol 1 name=browser tables=many\n")
    answers: list[str] = []
    deadline = time.monotonic() + 60
    while db.counts()["deals"] < 2:
        assert time.monotonic() < deadline
        words = bot.line().split()
        if words[0] in ("pass", "play"):
            legal = next(w for w in words if w.startswith("legal="))
            answers.append(f"{words[1]} {legal[len('legal=') :].split(',')[0]}")
        elif words[0] == "go":
            bot.send("\n".join(answers))  # a batch's answers in one message
            answers = []
    marks = [json.loads(m) for (m,) in db.query("SELECT stand_in FROM deals WHERE match_id = 1 ORDER BY deal")]
    assert marks[:2] == [[], []]  # every decision was the bot's
    assert db.query("SELECT entries FROM matches WHERE id = 1")[0][0].startswith('["browser"')


def test_what_is_no_websocket_bot_is_refused(tmp_path: Path, serve_ladder) -> None:  # noqa: ANN001
    db = LadderDB(str(tmp_path / "ladder.db"))
    server = LadderServer(db, LadderSettings(hello_limit=1.0), log=io.StringIO(), ws_port=0)
    serve_ladder(server)
    other = Client(server.ws_address, path="/elsewhere")
    assert isinstance(other.answer, RejectConnection) and other.answer.status_code == 404
    with socket.create_connection(server.ws_address, timeout=10) as sock:  # a request of 20 KB
        try:
            sock.sendall(b"GET /bot HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"x" * 20_000 + b"\r\n\r\n")
            assert sock.recv(100) == b""  # closed, unanswered
        except ConnectionResetError:  # closed with the request unread
            pass
    binary = Client(server.ws_address)
    binary.sock.sendall(binary.ws.send(BytesMessage(data=b"\x00\x01")))
    assert binary.line() is None and binary.closed.code == 1003
    bad = Client(server.ws_address)
    bad.send("hearts-ladder 1 token=guess")
    assert bad.line() == "refused unknown token"


@pytest.mark.processes
def test_the_pages_browser_bot_plays(tmp_path: Path, serve_ladder) -> None:  # noqa: ANN001
    """docs/ladder.md's bot for a browser, run by Node.js's WebSocket (the browsers' API)."""
    node = shutil.which("node")
    has_websocket = "process.exit(typeof WebSocket === 'function' ? 0 : 1)"
    if node is None or subprocess.run([node, "--experimental-websocket", "-e", has_websocket]).returncode:
        pytest.skip("no Node.js with a WebSocket (Node 20.10 or later)")
    page = (Path(__file__).resolve().parents[2] / "docs" / "ladder.md").read_text(encoding="utf-8")
    script = re.search(r"### A bot in a browser.*?```javascript\n(.*?)```", page, re.S).group(1)
    db = LadderDB(str(tmp_path / "ladder.db"))
    token = db.add_bot("mybot")
    server = LadderServer(db, LadderSettings(deals=2, tables=1, house=("random",)), log=io.StringIO(), ws_port=0)
    serve_ladder(server)
    host, port = server.ws_address
    script = script.replace("127.0.0.1:7475", f"{host}:{port}").replace("TOKEN_OF_MYBOT", token)
    (tmp_path / "page.js").write_text(script)
    bot = subprocess.Popen([node, "--experimental-websocket", str(tmp_path / "page.js")], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while db.counts()["deals"] < 2:
            assert time.monotonic() < deadline and bot.poll() is None, bot.stderr.read().decode()[-2000:]
            time.sleep(0.05)
    finally:
        bot.kill()
        bot.wait()
    marks = [json.loads(m) for (m,) in db.query("SELECT stand_in FROM deals WHERE match_id = 1 ORDER BY deal")]
    assert marks[:2] == [[], []]  # the page decided every card of its seat
