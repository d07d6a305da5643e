"""``hearts-ladder serve``: bots connect over TCP, a scheduler seats them at tables with the
benchmark's house agents, and every deal is played in duplicate and stored as it ends.

The connections are served on an asyncio loop (accepting, the handshake: ``hearts-ladder 1
token=T``, then the bot protocol's hello); each match is played on a thread of its own by the
arena (``plan_match``: a deal is a block, played in every seat rotation, recorded), its bots'
seats ``LadderSeat``s over their connections (``hearts_env.bench.ladder.worker``). The server
keeps nothing that matters in memory: the matches, deals and games are in the database
(``LadderDB``) as soon as each deal ends, the bots' tokens too; a server started again on the
same database marks the matches of its name it finds running as interrupted and goes on.

Limits that keep one client from holding the others up: a handshake must be complete within
``hello_limit`` seconds and its lines are at most ``LINE_BYTES`` (a longer one is refused at once,
however it arrives); at most ``max_handshakes`` handshakes at a time (a new connection past them
takes the place of the oldest, which is refused with ``refused busy``: sockets left half-open
cannot keep a bot out) and ``max_connections`` connections (one more is refused with ``refused
busy``); an answer is due within ``time_limit`` seconds (the ``program`` agent's rule, with the
fault rule of ``hearts_env.bench.ladder.seats``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import socket
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TextIO

from hearts_env import protocol
from hearts_env.agents.bridges.program import LINE_BYTES
from hearts_env.bench.ladder.db import LadderDB, LadderDBError
from hearts_env.bench.ladder.seats import Connection, Lobby
from hearts_env.bench.ladder.worker import LadderSettings, play_match
from hearts_env.engine import seeding


class LadderServer:
    """A ladder on ``db`` listening on ``host:port`` (port 0: any free one; ``address`` once started)."""

    def __init__(
        self,
        db: LadderDB,
        settings: LadderSettings,
        host: str = "127.0.0.1",
        port: int = 0,
        log: TextIO | None = None,
        name: str = "server",
        ws_port: int | None = None,
    ) -> None:
        self.db, self.settings, self.host, self.port, self.name = db, settings.check(), host, port, name
        self.ws_port = ws_port  # a WebSocket for bots in browsers (``hearts_env.bench.ladder.websocket``), or None
        self.log = sys.stderr if log is None else log
        self.lobby = Lobby()
        self.rng = seeding.generator(settings.seed)
        self.scheduled: dict[str, int] = {}  # tables each bot was seated at by this server (its turn order)
        self.handshakes: dict[asyncio.Task[None], socket.socket] = {}  # pending handshakes, oldest first
        self.stopping = False
        self.address: tuple[str, int] | None = None
        self.ws_address: tuple[str, int] | None = None
        self.bridges: set[asyncio.Task[None]] = set()  # WebSockets carried to their socket pairs
        self.matches: set[concurrent.futures.Future[None]] = set()
        self.workers = concurrent.futures.ThreadPoolExecutor(settings.tables, thread_name_prefix="ladder-match")
        self._stop: asyncio.Event | None = None

    def say(self, what: str) -> None:
        print(f"hearts-ladder: {what}", file=self.log, flush=True)

    # ------------------------------------------------------------------------- the loop
    async def serve(self, ready: Callable[[tuple[str, int]], None] | None = None) -> None:
        """Accept bots and play matches until ``stop`` (or the loop is cancelled)."""
        loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        interrupted = await asyncio.to_thread(self.db.interrupt_running, self.name)
        if interrupted:
            self.say(f"{interrupted} match(es) a stopped server left running marked interrupted")
        listener = socket.create_server((self.host, self.port), reuse_port=False, backlog=1024)
        listener.setblocking(False)
        self.address = listener.getsockname()[:2]
        listeners, accepting = [listener], [loop.create_task(self._accept(listener, self._handshake))]
        if self.ws_port is not None:
            websocket_module()  # wsproto installed, before anything listens
            listeners.append(socket.create_server((self.host, self.ws_port), backlog=1024))
            listeners[-1].setblocking(False)
            self.ws_address = listeners[-1].getsockname()[:2]
            accepting.append(loop.create_task(self._accept(listeners[-1], self._websocket)))
        if ready is not None:
            ready(self.address)
        scheduling = loop.create_task(self._schedule())
        try:
            await self._stop.wait()
        finally:
            self.stopping = True
            for task in [*accepting, scheduling, *self.bridges]:
                task.cancel()
            for listening in listeners:
                listening.close()
            for task, sock in list(self.handshakes.items()):
                task.cancel()
                loop.call_soon(self._refuse, sock, "the server is stopping")
            await asyncio.to_thread(concurrent.futures.wait, list(self.matches))
            self.workers.shutdown()
            self.lobby.close_all(b"quit\n")

    def stop(self) -> None:
        """End ``serve``: no new match; a match in play stops after its deal (marked interrupted)."""
        self.stopping = True
        if self._stop is not None:
            self._stop.set()

    async def _accept(self, listener: socket.socket, serve: Callable[[socket.socket], Awaitable[None]]) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                sock, _ = await loop.sock_accept(listener)
            except OSError as error:  # out of descriptors: wait for some to close
                self.say(f"cannot accept a connection: {error}")
                await asyncio.sleep(0.1)
                continue
            self._admit(sock, serve)

    def _admit(self, sock: socket.socket, serve: Callable[[socket.socket], Awaitable[None]]) -> None:
        """Start ``serve(sock)`` as a handshake, within the limits."""
        loop = asyncio.get_running_loop()
        sock.setblocking(False)
        if self.lobby.size() + len(self.handshakes) + len(self.bridges) >= self.settings.max_connections:
            self._refuse(sock, protocol.BUSY)
            return
        if len(self.handshakes) >= self.settings.max_handshakes:  # the oldest handshake makes room
            oldest = next(iter(self.handshakes))
            oldest.cancel()  # its reader removed first, then its socket refused (an unstarted task runs nothing)
            loop.call_soon(self._refuse, self.handshakes.pop(oldest), protocol.BUSY)
        task = loop.create_task(serve(sock))
        self.handshakes[task] = sock

    async def _websocket(self, sock: socket.socket) -> None:
        """Upgrade a connection to a WebSocket (a handshake, within its limits), then carry it to
        a socket pair whose other end is served as a TCP connection."""
        websocket, task = websocket_module(), asyncio.current_task()
        try:
            ws = await asyncio.wait_for(websocket.upgrade(sock), self.settings.hello_limit)
        except (asyncio.TimeoutError, ValueError, OSError):
            sock.close()
            return
        except asyncio.CancelledError:  # made room for a newer one, or the server stops: closed by the canceller
            return
        finally:
            self.handshakes.pop(task, None)  # type: ignore[arg-type]
        near, far = socket.socketpair()
        near.setblocking(False)
        self._admit(far, self._handshake)
        self.bridges.add(task)  # type: ignore[arg-type]
        try:
            await websocket.bridge(ws, sock, near)
        finally:
            self.bridges.discard(task)  # type: ignore[arg-type]

    async def _handshake(self, sock: socket.socket) -> None:
        """``hearts-ladder 1 token=T`` -> ``welcome NAME`` and the bot protocol's hello; the bot
        joins the lobby. Anything else is refused in one line and the socket closed."""
        try:
            connection = await asyncio.wait_for(self._greet(sock), self.settings.hello_limit)
        except asyncio.TimeoutError:
            self._refuse(sock, f"{protocol.SLOW_HANDSHAKE} {self.settings.hello_limit:g} s")
        except ValueError as error:
            self._refuse(sock, " ".join(str(error).split()))
        except (OSError, LadderDBError):
            sock.close()
        except asyncio.CancelledError:  # made room for a newer one, or the server stops: refused by the canceller
            pass
        else:
            self.lobby.join(connection)
            self.say(f"bot {connection.name!r} connected")
        finally:
            self.handshakes.pop(asyncio.current_task(), None)  # type: ignore[arg-type]

    async def _greet(self, sock: socket.socket) -> Connection:
        loop = asyncio.get_running_loop()
        line, rest = await _read_line(sock, b"", LINE_BYTES)
        read = protocol.read_line(line)
        if read.kind != protocol.LADDER or read.words[:1] != (str(protocol.LADDER_VERSION),):
            raise ValueError(f"expected '{protocol.LADDER} {protocol.LADDER_VERSION} token=TOKEN'")
        name = await asyncio.to_thread(self.db.bot_of_token, read.fields.get("token", ""))
        if name is None:
            raise ValueError("unknown token")
        await loop.sock_sendall(sock, f"welcome {name}\n{protocol.HELLO}\n".encode())
        line, rest = await _read_line(sock, rest, LINE_BYTES)
        _, many, history = protocol.read_hello_reply(line)
        return Connection(sock, name, rest, many, history)

    @staticmethod
    def _refuse(sock: socket.socket, reason: str) -> None:
        with contextlib.suppress(OSError):
            sock.send(f"refused {reason}\n".encode())
        sock.close()

    # ------------------------------------------------------------------------- matches
    async def _schedule(self) -> None:
        while not self.stopping:
            self.matches = {m for m in self.matches if not m.done()}
            while len(self.matches) < self.settings.tables and (table := self._next_table()) is not None:
                self.matches.add(self.workers.submit(self._play, *table))
            await asyncio.sleep(0.05)

    def _next_table(self) -> tuple[list[str], list[str]] | None:
        """The bots (least often seated first) and house agents of the next table, or None."""
        P = self.settings.rules.num_players
        idle = self.lobby.idle()
        if len(idle) < self.settings.min_bots:
            return None
        draw = self.rng.random(len(idle))
        bots = [idle[i] for i in sorted(range(len(idle)), key=lambda i: (self.scheduled.get(idle[i], 0), draw[i]))]
        bots = bots[:P]
        house = [str(h) for h in self.rng.choice(self.settings.house, P - len(bots))] if len(bots) < P else []
        self.lobby.seat(bots)
        for bot in bots:
            self.scheduled[bot] = self.scheduled.get(bot, 0) + 1
        return bots, house

    def _play(self, bots: list[str], house: list[str]) -> None:
        """Play a match on this thread, its bots' seats over their connections."""
        try:
            play_match(self.db, self.settings, bots, house, self.lobby, self.name, lambda: self.stopping, self.say)
        finally:
            self.lobby.leave(bots)


def websocket_module() -> Any:
    """``hearts_env.bench.ladder.websocket`` (``ImportError`` saying how to install wsproto)."""
    try:
        from hearts_env.bench.ladder import websocket
    except ImportError:
        raise ImportError("the ladder's WebSocket needs wsproto: pip install 'hearts_env[ladder]'") from None
    return websocket


async def _read_line(sock: socket.socket, buffer: bytes, limit: int) -> tuple[bytes, bytes]:
    """The next line (without its newline) of at most ``limit`` bytes, and what came after it."""
    loop = asyncio.get_running_loop()
    while b"\n" not in buffer:
        if len(buffer) > limit:
            raise ValueError(f"a line of more than {limit} bytes")
        chunk = await loop.sock_recv(sock, 4096)
        if not chunk:
            raise ConnectionError("closed")
        buffer += chunk
    line, _, rest = buffer.partition(b"\n")
    if len(line) > limit:
        raise ValueError(f"a line of more than {limit} bytes")
    return line, rest
