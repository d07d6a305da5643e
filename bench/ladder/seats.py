"""The bots connected to a ladder and their seats at its matches.

A bot's connection (``Connection``) is a ``LineChannel`` over its socket: a session of the bot
protocol that lasts as long as the connection, its table ids never reused. The ``Lobby`` holds
each bot's live connection (a new connection with the same token replaces the old one) and which
bots are at a table. A bot's seat at a match (``LadderSeat``) is the ``program`` agent talking to
the bot's live connection, so every answer is checked exactly as the arena checks a program's.

The fault rule: a bot that breaks the protocol at its seat (it disconnects, does not answer within
the time limit, answers garbage or an illegal card) is dropped (``dropped REASON``, then the
connection is closed) and a stand-in, the seeded ``random`` agent, plays its seat from that
decision on; every deal in which the stand-in decided is marked with the bot's name. A bot
that connects again (the same token) takes its seat back at the match's next deal. The deal's
results count as the bot's own: a fault never pays.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
import time

import numpy as np

from hearts_env.agents.bridges.program import BotError, LineChannel, ProgramPolicy
from hearts_env.play.policy import RandomPolicy, Turn
from hearts_env.play.runner import Step

SEND_LIMIT = 5.0
"""Seconds a bot's socket may take to take in what the server writes outside an exchange."""


class Connection(LineChannel):
    """A bot's connection: its socket, the name its token belongs to and its hello's answers."""

    def __init__(self, sock: socket.socket, name: str, pending: bytes, many: bool, history: bool) -> None:
        sock.setblocking(False)
        super().__init__(sock.fileno(), sock.fileno())
        self.sock, self.name, self.pending, self.many, self.history = sock, name, pending, many, history
        self.next_table = 0  # table ids are never reused in a session
        self.in_use = False  # a match's thread is exchanging lines on it
        self.closed = False
        self.reason = ""  # why it was dropped
        self.lock = threading.Lock()

    def alive(self) -> bool:
        return not self.closed

    def exit_status(self) -> str:
        return f"was dropped ({self.reason})" if self.reason else "closed its connection"

    def send(self, data: bytes, limit: float = SEND_LIMIT) -> bool:
        """Write ``data`` within ``limit`` seconds; False if the bot is gone or too slow to read it."""
        view, sent, deadline = memoryview(data), 0, time.monotonic() + limit
        with selectors.DefaultSelector() as selector:
            selector.register(self.sock, selectors.EVENT_WRITE)
            while sent < len(data):
                wait = deadline - time.monotonic()
                if wait <= 0 or not selector.select(wait):
                    return False
                try:
                    sent += self.sock.send(view[sent:])
                except BlockingIOError:
                    continue
                except OSError:
                    return False
        return True

    def close(self, goodbye: bytes = b"", kill: bool = False) -> None:
        """The end of a match's use: the match's last lines (``goodbye``), or, with ``kill``, the
        connection dropped."""
        if not kill and goodbye and not self.closed and not self.send(goodbye):
            kill = True
        if kill:
            self.drop("it broke the protocol at its table")
        self.in_use = False
        self._release()

    def drop(self, reason: str) -> None:
        """Tell the bot why (``dropped REASON``, if it is listening) and close the connection; a
        match using it sees it closed at its next exchange."""
        with self.lock:
            if self.closed:
                return
            self.closed, self.reason = True, reason
        with contextlib.suppress(OSError):
            self.sock.send(f"dropped {reason}\n".encode())
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self._release()

    def _release(self) -> None:
        """Close the socket once it is dropped and no match is using it."""
        if self.closed and not self.in_use and self.sock.fileno() >= 0:
            self.selector.close()
            self.sock.close()

    def probe(self) -> bool:
        """Whether an idle connection is still open; one that closed or printed unasked is dropped."""
        if self.closed:
            return False
        try:
            data = self.sock.recv(1, socket.MSG_PEEK)
        except BlockingIOError:
            return True
        except OSError:
            data = b""
        self.drop("it printed without being asked" if data else "it closed its connection")
        return False


class Lobby:
    """Each bot's live connection, and the bots at a table."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.connections: dict[str, Connection] = {}
        self.playing: set[str] = set()

    def join(self, connection: Connection) -> None:
        with self.lock:
            old = self.connections.get(connection.name)
            self.connections[connection.name] = connection
        if old is not None:
            old.drop("a new connection with its token replaced it")

    def live(self, name: str) -> Connection | None:
        """The bot's open connection, or None."""
        with self.lock:
            connection = self.connections.get(name)
        return connection if connection is not None and not connection.closed else None

    def idle(self) -> list[str]:
        """The bots connected and at no table (a connection found closed is dropped)."""
        with self.lock:
            waiting = [c for n, c in self.connections.items() if n not in self.playing and not c.in_use]
        return [c.name for c in waiting if c.probe()]

    def seat(self, names: list[str]) -> None:
        with self.lock:
            self.playing.update(names)

    def leave(self, names: list[str]) -> None:
        with self.lock:
            self.playing.difference_update(names)

    def size(self) -> int:
        with self.lock:
            return sum(not c.closed for c in self.connections.values())

    def close_all(self, goodbye: bytes) -> None:
        """Send every idle bot ``goodbye`` (``quit``: a few bytes, so a bot that reads nothing
        holds nobody up) and close every connection."""
        with self.lock:
            connections = list(self.connections.values())
        for connection in connections:
            if not connection.in_use and not connection.closed:
                with contextlib.suppress(OSError):
                    connection.sock.send(goodbye)
            connection.drop("the server is stopping")


class LadderSeat(ProgramPolicy):
    """A bot's seat at a match: the ``program`` agent over the bot's live connection, with the
    fault rule of the module docstring (``fault``: why the stand-in plays the seat now;
    ``stood_in``: the stand-in decided since the server last cleared it, at the start of a deal)."""

    def __init__(self, bot: str, lobby: Lobby, time_limit: float, seed: int) -> None:
        super().__init__(f"ladder:{bot}", time_limit=time_limit)
        self.bot, self.lobby = bot, lobby
        self.stand_in = RandomPolicy(seed)
        self.fault: str | None = None
        self.faults: list[str] = []
        self.stood_in = False

    def _started(self) -> LineChannel:
        if self._process is not None:
            return self._process
        connection = self.lobby.live(self.bot)
        if connection is None or connection.in_use:
            raise BotError(f"bot {self.bot!r} is not connected")
        connection.in_use = True
        self._process, self.name = connection, self.bot
        self.many, self.history = connection.many, connection.history
        self._table_of, self._queued, self._finalizer = np.full(0, -1, np.int64), [], None
        if self._seed is not None:
            self._queued.append(f"seed {self._seed}\n".encode())
        return connection

    def _open(self, info, fresh, tables):  # type: ignore[no-untyped-def]  (ProgramPolicy's, ids the connection's)
        connection = self._started()
        assert isinstance(connection, Connection)
        self._next_table = connection.next_table
        opened = super()._open(info, fresh, tables)
        connection.next_table = self._next_table
        return opened

    def seed(self, seed: int | np.random.SeedSequence | None) -> None:
        """The arena's reseeding at each deal: the bot and the stand-in; a bot that faulted and
        is connected again takes its seat back."""
        super().seed(seed)
        self.stand_in.seed(seed)
        if self.fault is not None and self.lobby.live(self.bot) is not None:
            self.fault = None

    def decide(self, turn: Turn) -> np.ndarray:
        if self.fault is None:
            try:
                return super().decide(turn)
            except (BotError, OSError) as error:
                self.fault = " ".join(str(error).split())
                self.faults.append(self.fault)
                if self._process is not None:  # an OSError: the connection was not closed yet
                    process, self._process = self._process, None
                    process.close(kill=True)
        self.stood_in = True
        return np.asarray(self.stand_in(turn.info, turn.mask), np.int64)

    def observe(self, step: Step) -> None:
        if self.fault is None:
            super().observe(step)
