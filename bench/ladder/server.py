"""``hearts-ladder serve``: bots connect over TCP, a scheduler seats them at tables with the
benchmark's house agents, and every deal is played in duplicate and stored as it ends.

The connections are served on an asyncio loop (accepting, the handshake: ``hearts-ladder 1
token=T``, then the bot protocol's hello); each match is played on a thread of its own by the
arena (``plan_match``: a deal is a block, played in every seat rotation, recorded), its bots'
seats ``LadderSeat``s over their connections. The server keeps nothing that matters in memory:
the matches, deals and games are in the database (``LadderDB``) as soon as each deal ends, the
bots' tokens too; a server started again on the same database marks the matches it finds
running as interrupted and goes on.

Limits that keep one client from holding the others up: a handshake must be complete within
``hello_limit`` seconds and its lines are at most ``LINE_BYTES`` (a longer one is refused at once,
however it arrives); at most ``max_handshakes`` handshakes and ``max_connections`` connections
at a time (one more is refused with ``refused busy``); an answer is due within ``time_limit``
seconds (the ``program`` agent's rule, with the fault rule of ``hearts_env.bench.ladder.seats``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

import numpy as np

from hearts_env import protocol
from hearts_env.agents.bridges.program import LINE_BYTES
from hearts_env.arena.match import match_rules, plan_match
from hearts_env.bench.ladder.db import HOUSE, LadderDB, LadderDBError
from hearts_env.bench.ladder.seats import Connection, LadderSeat, Lobby
from hearts_env.bench.suite import load_suite
from hearts_env.engine import seeding
from hearts_env.engine.rules import HeartsRules
from hearts_env.play.policy import Policy, close_agents


@dataclass(frozen=True)
class LadderSettings:
    """What a ladder plays and its limits."""

    rules: HeartsRules = field(default_factory=HeartsRules)  # the tables' rules (single hands)
    deals: int = 8  # deals a match plays, each in every seat rotation
    tables: int = 2  # matches played at once
    house: tuple[str, ...] = ("random", "simple", "heuristic")  # the benchmark pool's members who fill seats
    min_bots: int = 1  # bots a table needs (the house agents fill the other seats)
    time_limit: float = 5.0  # seconds a bot has for each answer
    hello_limit: float = 10.0  # seconds a connection has for its whole handshake
    max_connections: int = 256
    max_handshakes: int = 32
    seed: int = 0  # seeds every match (match m: the ladder stream's m-th value) and the scheduler's draws

    def check(self) -> LadderSettings:
        """These settings, or ``ValueError`` naming the first that is wrong."""
        for name in ("deals", "tables", "min_bots", "max_connections", "max_handshakes"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("time_limit", "hello_limit"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be a positive number of seconds, got {getattr(self, name)}")
        pool = load_suite("v1").pool
        unknown = [h for h in self.house if h not in pool]
        if unknown:
            raise ValueError(f"house agents {unknown} are not in the benchmark's pool: {', '.join(pool)}")
        if not self.house and self.min_bots < self.rules.num_players:
            raise ValueError("without house agents a table needs min_bots = the number of players")
        seeding.check_seed(self.seed)
        return self


class LadderServer:
    """A ladder on ``db`` listening on ``host:port`` (port 0: any free one; ``address`` once started)."""

    def __init__(
        self, db: LadderDB, settings: LadderSettings, host: str = "127.0.0.1", port: int = 0, log: TextIO | None = None
    ) -> None:
        self.db, self.settings, self.host, self.port = db, settings.check(), host, port
        self.log = sys.stderr if log is None else log
        self.lobby = Lobby()
        self.pool = load_suite("v1").pool
        self.rng = seeding.generator(settings.seed)
        self.scheduled: dict[str, int] = {}  # tables each bot was seated at by this server (its turn order)
        self.handshaking = 0
        self.stopping = False
        self.address: tuple[str, int] | None = None
        self.matches: set[concurrent.futures.Future[None]] = set()
        self.tasks: set[asyncio.Task[None]] = set()
        self.workers = concurrent.futures.ThreadPoolExecutor(settings.tables, thread_name_prefix="ladder-match")
        self._stop: asyncio.Event | None = None

    def say(self, what: str) -> None:
        print(f"hearts-ladder: {what}", file=self.log, flush=True)

    # ------------------------------------------------------------------------- the loop
    async def serve(self, ready: Callable[[tuple[str, int]], None] | None = None) -> None:
        """Accept bots and play matches until ``stop`` (or the loop is cancelled)."""
        loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        interrupted = await asyncio.to_thread(self.db.interrupt_running)
        if interrupted:
            self.say(f"{interrupted} match(es) a stopped server left running marked interrupted")
        listener = socket.create_server((self.host, self.port), reuse_port=False, backlog=1024)
        listener.setblocking(False)
        self.address = listener.getsockname()[:2]
        if ready is not None:
            ready(self.address)
        accepting = loop.create_task(self._accept(listener))
        scheduling = loop.create_task(self._schedule())
        try:
            await self._stop.wait()
        finally:
            self.stopping = True
            accepting.cancel()
            scheduling.cancel()
            listener.close()
            for task in list(self.tasks):
                task.cancel()
            await asyncio.to_thread(concurrent.futures.wait, list(self.matches))
            self.workers.shutdown()
            self.lobby.close_all(b"quit\n")

    def stop(self) -> None:
        """End ``serve``: no new match; a match in play stops after its deal (marked interrupted)."""
        self.stopping = True
        if self._stop is not None:
            self._stop.set()

    async def _accept(self, listener: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                sock, _ = await loop.sock_accept(listener)
            except OSError as error:  # out of descriptors: wait for some to close
                self.say(f"cannot accept a connection: {error}")
                await asyncio.sleep(0.1)
                continue
            sock.setblocking(False)
            busy = self.handshaking >= self.settings.max_handshakes
            if busy or self.lobby.size() + self.handshaking >= self.settings.max_connections:
                with contextlib.suppress(OSError):
                    sock.send(b"refused busy: too many connections, try again later\n")
                sock.close()
                continue
            self.handshaking += 1
            task = loop.create_task(self._handshake(sock))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _handshake(self, sock: socket.socket) -> None:
        """``hearts-ladder 1 token=T`` -> ``welcome NAME`` and the bot protocol's hello; the bot
        joins the lobby. Anything else is refused in one line and the socket closed."""
        try:
            connection = await asyncio.wait_for(self._greet(sock), self.settings.hello_limit)
        except asyncio.TimeoutError:
            self._refuse(sock, f"no complete handshake within {self.settings.hello_limit:g} s")
        except ValueError as error:
            self._refuse(sock, " ".join(str(error).split()))
        except (OSError, LadderDBError):
            sock.close()
        else:
            self.lobby.join(connection)
            self.say(f"bot {connection.name!r} connected")
        finally:
            self.handshaking -= 1

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
        """Play a match on this thread, storing each deal as it ends."""
        settings, status, match = self.settings, "done", None
        entries: list[tuple[str, Policy]] = []
        try:
            names = bots + [HOUSE + h for h in house]
            match, seed = self.db.start_match(
                lambda m: match_seed(settings.seed, m),
                match_rules(settings.rules, "hand").to_dict(),
                names,
                settings.deals,
            )
            entries = [(b, LadderSeat(b, self.lobby, settings.time_limit, seed)) for b in bots]
            entries += [(HOUSE + h, self.pool[h].build(seed)) for h in house]
            plan = plan_match(settings.rules, entries, settings.deals, seed, "hand", history=True, block=1, record=True)
            seats = [a for _, a in entries if isinstance(a, LadderSeat)]
            assert plan.directions is not None
            for b in range(plan.blocks):
                if self.stopping:
                    status = "interrupted"
                    break
                for seat in seats:
                    seat.stood_in = False
                start = time.perf_counter()
                outcome = plan.play_block(b)
                games = [
                    {
                        "record": game.to_json(),
                        "scores": outcome.scores[0, r].tolist(),
                        "wins": outcome.wins[0, r].tolist(),
                        "qs": outcome.qs[0, r].tolist(),
                        "moons": outcome.moons[0, r].tolist(),
                        "hands": int(outcome.hands[0, r]),
                    }
                    for r, game in enumerate(outcome.games)
                ]
                stand_in = [s.bot for s in seats if s.stood_in]
                seconds = time.perf_counter() - start
                self.db.store_deal(match, b, int(plan.keys[b]), str(plan.directions[b]), stand_in, seconds, games)
            for seat in seats:
                for fault in seat.faults:
                    self.say(f"match {match}: {fault}; the stand-in played its seat")
        except Exception as error:  # one line, and the match is marked; the server goes on
            status = "interrupted"
            self.say(f"match {match}: stopped: {' '.join(str(error).split())}")
        finally:
            close_agents([a for _, a in entries])
            self.lobby.leave(bots)
            if match is not None:
                try:
                    self.db.finish_match(match, status)
                except LadderDBError as error:
                    self.say(str(error))


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


def match_seed(seed: int, match: int) -> int:
    """The seed of match ``match`` of a ladder seeded ``seed``."""
    return int(seeding.derive(seed, seeding.LADDER, np.array(match))) >> 1
