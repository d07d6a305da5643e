"""Bots in a browser: the ladder over a WebSocket (``hearts-ladder serve --ws-port PORT``).

A page's ``new WebSocket("ws://HOST:PORT/bot")`` gets the session a TCP connection gets: text
messages carry the protocol's lines, the handshake first (``hearts-ladder 1 token=T``). A message
from the server holds whole lines; a bot sends one or more whole lines a message (the newline at
its end may be left out). Each WebSocket is bridged to one end of a socket pair whose other end
the server serves exactly as a TCP connection, so the handshake, the limits and the fault rule are
the same. The upgrade (a GET of ``/bot``, at most ``MAX_REQUEST`` bytes) counts as a handshake
and must come within its time limit; a message over ``MAX_MESSAGE`` bytes, or a binary one,
closes the connection. No origin is refused: a bot's token is what admits it, and a page without
one can do nothing with a connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket

from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Message,
    Ping,
    RejectConnection,
    Request,
    TextMessage,
)
from wsproto.utilities import ProtocolError

PATH = "/bot"
MAX_REQUEST = 8192
"""Bytes the upgrade request may take."""
MAX_MESSAGE = 65536
"""Bytes a message from a bot may take."""
SEND_LIMIT = 30.0
"""Seconds a browser has to take in a message before the bridge closes."""


async def upgrade(sock: socket.socket) -> WSConnection:
    """Read the upgrade request and accept it (``ValueError`` for anything else, after a 4xx)."""
    loop = asyncio.get_running_loop()
    ws, received = WSConnection(ConnectionType.SERVER), 0
    while True:
        data = await loop.sock_recv(sock, 4096)
        if not data:
            raise ConnectionError("closed during the upgrade")
        received += len(data)
        if received > MAX_REQUEST:
            raise ValueError(f"an upgrade request of more than {MAX_REQUEST} bytes")
        try:
            ws.receive_data(data)
            for event in ws.events():
                if isinstance(event, Request) and event.target == PATH:
                    await loop.sock_sendall(sock, ws.send(AcceptConnection()))
                    return ws
                if isinstance(event, Request):
                    await loop.sock_sendall(sock, ws.send(RejectConnection(status_code=404)))
                    raise ValueError(f"no WebSocket at {event.target[:40]!r}; bots connect to {PATH}")
        except ProtocolError as error:
            raise ValueError(f"not a WebSocket upgrade: {error}") from None


async def bridge(ws: WSConnection, sock: socket.socket, near: socket.socket) -> None:
    """Carry lines between the WebSocket on ``sock`` and ``near`` until either side ends."""
    loop = asyncio.get_running_loop()

    async def send(data: bytes) -> None:
        await asyncio.wait_for(loop.sock_sendall(sock, data), SEND_LIMIT)

    async def inbound() -> None:
        parts: list[str] = []
        while data := await loop.sock_recv(sock, 65536):
            ws.receive_data(data)
            for event in ws.events():
                if isinstance(event, TextMessage):
                    parts.append(event.data)
                    if sum(map(len, parts)) > MAX_MESSAGE:
                        await send(ws.send(CloseConnection(code=1009, reason="message too big")))
                        return
                    if event.message_finished:
                        text = "".join(parts)
                        parts.clear()
                        ending = b"" if text.endswith("\n") else b"\n"
                        await loop.sock_sendall(near, text.encode("ascii", "replace") + ending)
                elif isinstance(event, Ping):
                    await send(ws.send(event.response()))
                elif isinstance(event, (BytesMessage, CloseConnection)):
                    if isinstance(event, BytesMessage):
                        await send(ws.send(CloseConnection(code=1003, reason="the protocol's lines are text")))
                    else:
                        await send(ws.send(event.response()))
                    return

    async def outbound() -> None:
        pending = b""
        while chunk := await loop.sock_recv(near, 65536):
            pending += chunk
            cut = pending.rfind(b"\n") + 1
            if cut:  # whole lines a message
                await send(ws.send(Message(data=pending[:cut].decode("ascii", "replace"))))
                pending = pending[cut:]
        await send(ws.send(CloseConnection(code=1000)))

    tasks = [asyncio.ensure_future(inbound()), asyncio.ensure_future(outbound())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:  # their errors (a reset, a protocol error, a browser too slow) end the bridge alike
            with contextlib.suppress(asyncio.CancelledError, OSError, ProtocolError, asyncio.TimeoutError):
                await task
        near.close()
        sock.close()
