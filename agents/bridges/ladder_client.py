"""``hearts-bot --connect HOST:PORT --token T AGENT``: any agent of this project (``program:`` any
program) played on a ladder (``hearts-ladder serve``, ``docs/ladder.md``).

The client connects, says ``hearts-ladder 1 token=T`` and, welcomed, serves the bot protocol on the
connection exactly as ``hearts-bot`` serves it on stdin/stdout (``Bot``). When the connection ends
(the server restarts, drops the bot after a fault, the network fails) it connects again after
``retry`` seconds, for as long as it runs (a refusal to try again included: a full server, a
handshake late on a loaded one); a refusal for good (an unknown token) ends it with one line.
"""

from __future__ import annotations

import socket
import time
from typing import TextIO

from hearts_env import protocol
from hearts_env.agents.bridges.protocol_bot import PROG, Bot
from hearts_env.play.policy import Policy

RETRY = 1.0
"""Seconds between a lost connection and the next attempt, by default."""


class Refused(ValueError):
    """The ladder refused the bot for good (its token); the message says why."""


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:7474`` for an IPv6 address); ``ValueError`` saying what is wrong."""
    host, colon, port = text.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--connect {text!r} is not HOST:PORT (a port 1 to 65535)")
    return host.strip("[]"), int(port)


def play_on_ladder(
    address: str,
    token: str,
    agent: Policy,
    name: str,
    log: TextIO | None = None,
    reconnect: bool = True,
    retry: float = RETRY,
) -> None:
    """Serve ``agent`` on the ladder at ``address`` until a refusal (``Refused``), or with
    ``reconnect=False`` until the first connection ends."""
    host, port = parse_address(address)

    def say(what: str) -> None:
        if log is not None:
            print(f"{PROG}: {what}", file=log, flush=True)

    while True:
        try:
            with socket.create_connection((host, port), timeout=30) as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
                source, sink = sock.makefile("rb"), sock.makefile("wb")
                sink.write(f"{protocol.LADDER} {protocol.LADDER_VERSION} token={token}\n".encode())
                sink.flush()
                answer = source.readline(4096).decode("ascii", "replace").strip()
                kind, _, rest = answer.partition(" ")
                if kind == "refused" and not rest.startswith(protocol.TRY_AGAIN):
                    raise Refused(f"the ladder at {address} refused the bot: {protocol.shown(rest, 200)}")
                if kind != "welcome":
                    raise ConnectionError(f"the ladder answered {protocol.shown(answer, 200)}")
                say(f"on the ladder at {address} as {rest}")
                sock.settimeout(None)  # a bot waits between matches as long as it takes
                Bot(agent, name, log).serve(source, sink)
                say("the ladder ended the session")
        except (OSError, ValueError) as error:
            if isinstance(error, Refused):
                raise
            say(f"connection to {address}: {' '.join(str(error).split()) or type(error).__name__}")
        if not reconnect:
            return
        time.sleep(retry)
