"""``ProgramPolicy``: a program outside this project played as an agent, through the bot protocol.

    make_agent("program", command="./mybot --level 3")          # any language: lines on stdin/stdout
    hearts-arena "program:command=./mybot --level 3" heuristic heuristic heuristic
    hearts-arena 'program:command="./mybot --levels 1,2",time_limit=10' heuristic heuristic heuristic

The command is split like a shell line (``shlex``; no shell runs it). The program is started at
its first decision, answers the hello (``docs/bot-protocol.md``), then gets every decision of a
runner step in one write (with the events of its tables since its last one) and answers them all
before the next step; a bot that says ``tables=one`` gets one decision a round trip.

Options: ``time_limit`` (seconds, default 5) a bot may take for each answer; ``startup_limit``
(default 120) for starting and answering the hello; ``seed``, sent to the bot as ``seed N`` (the
arena reseeds agents at every block of deals).

Copies and processes: a copy of the policy (``copy.deepcopy``, pickling for a process pool or
Ray) starts its own process when it first plays, so every block of an arena match that runs
elsewhere has its own; the process is ended (``quit``, then killed with everything it started
if it has not exited a second later) when the policy is closed (``close()``, ``with``), garbage
collected or the interpreter exits. A bot that breaks the protocol (no answer within the time
limit, a card that is not legal or not a card, output it was not asked for, exiting) raises
``BotError`` (a ``ValueError``) naming the bot, the table and the decision, after the process is
killed.
"""

from __future__ import annotations

import os
import selectors
import shlex
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from hearts_env import protocol
from hearts_env.engine.cards import card_name
from hearts_env.engine.core import PASS
from hearts_env.engine.infoset import InfoSet
from hearts_env.play.policy import Turn
from hearts_env.play.runner import Step

TIME_LIMIT = 5.0
"""Seconds a bot may take for each answer, by default."""
STARTUP_LIMIT = 120.0
"""Seconds a bot may take to start and answer the hello, by default (a Python bot may compile)."""
QUIT_GRACE = 1.0
"""Seconds a bot has to exit after ``quit`` before it is killed."""
_STDERR_KEPT = 4096  # bytes of the bot's stderr kept for error messages
LINE_BYTES = 4096  # bytes an answer line may take (an ``error`` message included) before the bot is cut off


class BotError(ValueError):
    """A bot program broke the protocol or stopped; the message names the bot and what it did."""


class Stopped(Exception):
    """The exchange ended early; ``lines``: the complete lines read by then."""

    def __init__(self, lines: list[bytes]) -> None:
        self.lines = lines


class TimedOut(Stopped):
    pass


class Exited(Stopped):
    pass


def _line_lengths(tail: int, chunk: bytes) -> tuple[int, int]:
    """The longest line among ``tail`` bytes already read of an unfinished line then ``chunk`` (a
    line's newline counted), and the length of the line ``chunk`` leaves unfinished."""
    *done, last = chunk.split(b"\n")
    if not done:
        return tail + len(last), tail + len(last)
    return max(tail + len(done[0]) + 1, *(len(line) + 1 for line in done[1:]), len(last)), len(last)


class Flooded(Stopped):
    pass


def _drain(fd: int, tail: bytearray) -> None:
    """Read the bot's stderr until it closes, keeping its last bytes (so it can never block the bot)."""
    while chunk := os.read(fd, 65536):
        tail += chunk
        del tail[:-_STDERR_KEPT]
    os.close(fd)


class LineChannel:
    """The manager's end of a bot's line stream: the descriptor it reads the bot's lines from and
    the one it writes to (two pipes, or one socket for both), and the exchange of lines with a
    deadline. ``hearts_env.bench.ladder`` plays bots connected over TCP through it."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.read_fd, self.write_fd = read_fd, write_fd
        self.selector = selectors.DefaultSelector()
        self.pending = b""  # output read beyond the lines asked for

    def unasked(self) -> bytes:
        """What the bot printed since the last exchange without being asked."""
        try:  # at most a line's worth: a bot printing without end must not hold the manager reading
            while len(self.pending) <= LINE_BYTES and (chunk := os.read(self.read_fd, 65536)):
                self.pending += chunk
        except BlockingIOError:
            pass
        return self.pending

    def exchange(self, data: bytes, count: int, limit: float) -> bytes:
        """Write ``data`` and read ``count`` lines back (newline-terminated), at most ``limit``
        seconds for each line (writing and reading at once, so neither pipe can fill up and
        block both sides); ``TimedOut`` with the lines read, ``Exited``, or ``Flooded`` past
        ``LINE_BYTES`` a line."""
        view, sent = memoryview(data), 0
        buffer, lines = bytearray(self.pending), self.pending.count(b"\n")
        longest, tail = _line_lengths(0, self.pending)
        if longest > LINE_BYTES:
            raise Flooded(self.pending.split(b"\n")[:lines])
        self.pending = b""
        both = self.read_fd == self.write_fd  # a socket: one registration for both directions
        writing = selectors.EVENT_WRITE if data else 0
        self.selector.register(self.read_fd, selectors.EVENT_READ | (writing if both else 0))
        if data and not both:
            self.selector.register(self.write_fd, selectors.EVENT_WRITE)
        deadline = time.monotonic() + limit
        try:
            while lines < count or sent < len(data):
                wait = deadline - time.monotonic()
                events = self.selector.select(wait) if wait > 0 else []
                if not events:
                    raise TimedOut(bytes(buffer).split(b"\n")[:lines])
                for _key, mask in events:
                    if mask & selectors.EVENT_READ:
                        try:
                            chunk = os.read(self.read_fd, 1 << 20)
                        except BlockingIOError:
                            chunk = None
                        except ConnectionError:
                            chunk = b""
                        if chunk == b"":
                            raise Exited(bytes(buffer).split(b"\n")[:lines])
                        if chunk:
                            buffer += chunk
                            longest, tail = _line_lengths(tail, chunk)
                            if longest > LINE_BYTES:
                                raise Flooded(bytes(buffer).split(b"\n")[:lines])
                            new = chunk.count(b"\n")
                            if new:
                                lines += new
                                deadline = time.monotonic() + limit
                    if mask & selectors.EVENT_WRITE and sent < len(data):
                        try:
                            sent += os.write(self.write_fd, view[sent : sent + (1 << 20)])
                        except BlockingIOError:
                            continue
                        except (BrokenPipeError, ConnectionError):
                            sent = len(data)  # the bot has gone: what it wrote before going is still read
                        if sent == len(data):
                            if both:
                                self.selector.modify(self.read_fd, selectors.EVENT_READ)
                            else:
                                self.selector.unregister(self.write_fd)
        finally:
            for fd in {self.read_fd, self.write_fd}:
                if fd in self.selector.get_map():
                    self.selector.unregister(fd)
        cut = int(np.flatnonzero(np.frombuffer(buffer, np.uint8) == ord("\n"))[count - 1]) + 1
        self.pending = bytes(buffer[cut:])
        return bytes(buffer[:cut])

    def alive(self) -> bool:
        """Whether the bot may still answer (a slow bot, not one that has gone)."""
        return True

    def exit_status(self) -> str:
        """How the bot ended, for messages."""
        return "closed its connection"

    def last_stderr(self) -> str:
        """The bot's last stderr line, quoted, or '' (a bot over a socket has none)."""
        return ""

    def close(self, goodbye: bytes = b"", kill: bool = False) -> None:
        """Done with the bot: ``goodbye`` (the lines still queued) is its last input unless ``kill``."""
        self.selector.close()


class _Process(LineChannel):
    """A running bot program: its pipes and the thread that drains its stderr."""

    def __init__(self, argv: list[str], label: str) -> None:
        try:
            self.popen = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                start_new_session=True,  # its own process group: closing it ends whatever it started
            )
        except OSError as error:
            raise BotError(f"{label}: cannot start {argv[0]!r}: {error.strerror or error}") from None
        super().__init__(self.popen.stdout.fileno(), self.popen.stdin.fileno())
        os.set_blocking(self.write_fd, False)
        os.set_blocking(self.read_fd, False)
        self.stderr = bytearray()
        err = os.dup(self.popen.stderr.fileno())
        self.popen.stderr.close()
        self.drain = threading.Thread(target=_drain, args=(err, self.stderr), daemon=True)
        self.drain.start()
        self.owner = os.getpid()  # a forked child (a process pool's worker) inherits this object: never its bot

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def exit_status(self) -> str:
        """How the bot ended ('exited with code 1', 'was killed by signal 9'), waiting a moment for it."""
        try:
            code = self.popen.wait(QUIT_GRACE)
        except subprocess.TimeoutExpired:
            return "closed its output"
        return f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"

    def last_stderr(self) -> str:
        """The bot's last stderr line, quoted, or ''."""
        self.drain.join(0.2)
        lines = [line for line in bytes(self.stderr).splitlines() if line.strip()]
        return f"; its last stderr line: {protocol.shown(lines[-1], 200)}" if lines else ""

    def close(self, goodbye: bytes = b"", kill: bool = False) -> None:
        """End the bot: ``goodbye`` and ``quit`` (unless ``kill``), a moment to exit, then its
        whole process group killed; its pipes closed and the process reaped."""
        if os.getpid() != self.owner:
            return
        if not kill and self.popen.poll() is None:
            try:
                os.set_blocking(self.write_fd, True)
                os.write(self.write_fd, goodbye + b"quit\n")
            except OSError:
                pass
        try:
            self.popen.stdin.close()
        except OSError:
            pass
        if not kill:
            try:
                self.popen.wait(QUIT_GRACE)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.popen.wait()
        self.popen.stdout.close()
        self.selector.close()
        self.drain.join(1.0)


class ProgramPolicy:
    """A bot program played through the bot protocol (see the module docstring)."""

    def __init__(
        self,
        command: str | Sequence[str],
        seed: int | None = None,
        time_limit: float = TIME_LIMIT,
        startup_limit: float = STARTUP_LIMIT,
    ) -> None:
        try:
            argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
        except ValueError as error:
            raise ValueError(f"program command {command!r}: {error}") from None
        if not argv:
            raise ValueError("program needs a command=..., the bot program to run (e.g. command='./mybot --level 3')")
        for option, value in (("time_limit", time_limit), ("startup_limit", startup_limit)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"program option {option} must be a positive number of seconds, got {value!r}")
        self.argv, self.time_limit, self.startup_limit = argv, float(time_limit), float(startup_limit)
        self.command = command if isinstance(command, str) else shlex.join(argv)  # as the user wrote it
        self._seed = _seed_int(seed)
        self.name: str | None = None  # the bot's name, once it has answered the hello
        self.many = True  # whether it takes many decisions a round trip
        self.history = False  # whether it asked for the completed tricks in every decision
        self.pid: int | None = None  # the process id of the bot last started
        self._process: LineChannel | None = None
        self._finalizer: weakref.finalize | None = None
        self._table_of = np.full(0, -1, np.int64)  # the process's table id at game * P + seat, -1 for none
        self._next_table = 0  # its next table id (ids are never reused)
        self._queued: list[bytes] = []  # lines for its next write: tables, events, seeds

    # A copy (deepcopy, pickle) is the same program with the same options, and no process yet.
    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.command, self._seed, self.time_limit, self.startup_limit))

    def __deepcopy__(self, memo: dict[int, Any]) -> ProgramPolicy:
        return type(self)(self.command, self._seed, self.time_limit, self.startup_limit)

    def __repr__(self) -> str:
        return f"ProgramPolicy({self.command!r})"

    def __enter__(self) -> ProgramPolicy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def label(self) -> str:
        """The bot in messages: its name and command."""
        return f"bot {self.name!r} ({self.command})" if self.name else f"program {self.command!r}"

    # ------------------------------------------------------------------------- the process
    def _started(self) -> LineChannel:
        if self._process is not None:
            return self._process
        process = _Process(self.argv, self.label)
        self._process, self.pid = process, process.pid
        self._table_of, self._next_table, self._queued = np.full(0, -1, np.int64), 0, []  # a new session
        # collected unclosed, the process still gets the lines queued (the last events), then quit
        self._finalizer = weakref.finalize(self, _goodbye, process, self._queued)
        try:
            line = process.exchange(f"{protocol.HELLO}\n".encode(), 1, self.startup_limit)
            self.name, self.many, self.history = protocol.read_hello_reply(line)
        except TimedOut:
            self._fail(f"did not answer the hello within {self.startup_limit:g} s")
        except Exited:
            self._fail(f"{process.exit_status()} before answering the hello")
        except Flooded:
            self._fail(f"printed a line of more than {LINE_BYTES} bytes for its answer to the hello")
        except ValueError as error:
            self._fail(str(error))
        if self._seed is not None:
            self._queued.append(f"seed {self._seed}\n".encode())
        return process

    def close(self) -> None:
        """End the bot's process (the lines still queued, then ``quit``); a later decision starts a new one."""
        if self._process is not None:
            process, self._process = self._process, None
            if self._finalizer is not None:
                self._finalizer.detach()
            process.close(b"".join(self._queued))

    def _fail(self, what: str) -> None:
        """Kill the bot and raise ``BotError``: the bot, what it did, its last stderr line."""
        process, self._process = self._process, None
        tail = process.last_stderr() if process is not None else ""
        if process is not None:
            if self._finalizer is not None:
                self._finalizer.detach()
            process.close(kill=True)
        raise BotError(f"{self.label} {what}{tail}") from None

    # ------------------------------------------------------------------------- the policy
    def seed(self, seed: int | np.random.SeedSequence | None) -> None:
        """Reseed the bot (``seed N``; a bot without randomness may ignore it)."""
        self._seed = _seed_int(seed)
        if self._process is not None and self._seed is not None:
            self._queued.append(f"seed {self._seed}\n".encode())

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        """Each decision as a table of its own (a caller that does not follow games)."""
        self._started()
        tables = self._open(info, np.ones(info.batch_size, bool), np.full(info.batch_size, -1, np.int64))
        cards = self._ask(info, mask, tables)
        self._queued.append("".join(f"end {t}\n" for t in tables.tolist()).encode())
        return cards

    def decide(self, turn: Turn) -> np.ndarray:
        """The runner's call: a game's seat stays one table from its first decision to its end."""
        info, mask, games = turn.info, turn.mask, turn.games
        self._started()
        keys = np.asarray(games, np.int64) * info.num_players + info.seat
        if keys.max(initial=-1) >= len(self._table_of):
            grown = np.full(2 * int(keys.max()) + 2, -1, np.int64)
            grown[: len(self._table_of)] = self._table_of
            self._table_of = grown
        tables = self._table_of[keys]
        fresh = (tables < 0) | _game_start(info)  # a new game where an old one was left unfinished
        if fresh.any():
            self._queued.append("".join(f"end {t}\n" for t in tables[fresh & (tables >= 0)].tolist()).encode())
            tables = self._open(info, fresh, tables)
            self._table_of[keys[fresh]] = tables[fresh]
        return self._ask(info, mask, tables)

    def observe(self, step: Step) -> None:
        """Queue the events of ``step`` at this bot's tables; a table whose game is over is closed."""
        if self._process is None or not len(self._table_of):
            return
        P = step.state.num_players
        keys = step.games[:, None] * P + np.arange(P)
        tables = np.where(keys < len(self._table_of), self._table_of[np.minimum(keys, len(self._table_of) - 1)], -1)
        if not (tables >= 0).any():
            return
        self._queued.append(protocol.step_events(step, tables))  # bytes
        over = keys[step.after.done]
        self._table_of[over[over < len(self._table_of)]] = -1

    def _open(self, info: InfoSet, fresh: np.ndarray, tables: np.ndarray) -> np.ndarray:
        """New table ids for the rows ``fresh`` (their table lines queued); ``tables`` with them."""
        rows = np.flatnonzero(fresh)
        ids = self._next_table + np.arange(len(rows))
        self._next_table += len(rows)
        tables = tables.copy()
        tables[rows] = ids
        history = info.history_length > 0
        seats = info.seat[rows].tolist()
        self._queued.append(protocol.table_lines(ids.tolist(), seats, info.rules, history).encode())
        return tables

    def _ask(self, info: InfoSet, mask: np.ndarray, tables: np.ndarray) -> np.ndarray:
        """Send the decisions (after the queued lines), read one answer a table, check the cards."""
        n = info.batch_size
        if self.history and not info.history_length:
            self._fail(
                "asks for the completed tricks (history=1 in its hello), which these games do not record: "
                "play them with history (hearts-arena --history)"
            )
        text = protocol.decision_lines(info, tables)
        if self.many:
            answers = self._exchange(text, tables, info)
        else:  # one decision a round trip
            bounds = protocol.line_bounds(np.frombuffer(text, np.uint8))
            answers = b"".join(
                self._exchange(text[bounds[i] : bounds[i + 1]], tables[i : i + 1], info[i]) for i in range(n)
            )
        answered, chosen, lines = protocol.read_answers(answers)
        order = np.argsort(tables, kind="stable")
        at = np.minimum(np.searchsorted(tables, answered, sorter=order), n - 1)
        rows = np.where(tables[order[at]] == answered, order[at], -1)  # the decision each line answers
        counted = rows[(rows >= 0) & (chosen >= 0)]
        twice = np.bincount(counted, minlength=n) > 1  # decisions answered twice
        bad = (chosen < 0) | (rows < 0) | twice[np.maximum(rows, 0)]
        if bad.any():
            i = int(np.argmax(bad))
            answer = protocol.read_answer(lines[i])
            if answer is not None and isinstance(answer[1], str) and answer[0] in tables:
                row = int(np.flatnonzero(tables == answer[0])[0])
                self._fail(f"refused {self._decision(info, row, tables)}: {protocol.shown(answer[1], 200)}")
            what = "is not 'TABLE CARD'" if chosen[i] < 0 else "answers no decision it was asked"
            if rows[i] >= 0 and chosen[i] >= 0:
                what = f"answers table {answered[i]} a second time"
            self._fail(f"printed {protocol.shown(lines[i])}, which {what}")
        cards = np.empty(n, np.int64)
        cards[rows] = chosen
        illegal = ~mask[np.arange(n), cards]
        if illegal.any():
            i = int(np.argmax(illegal))
            legal = " ".join(card_name(c) for c in np.flatnonzero(mask[i]))
            self._fail(
                f"answered {card_name(int(cards[i]))} at {self._decision(info, i, tables)}, "
                f"which is not a legal card there (legal: {legal})"
            )
        return cards

    def _exchange(self, text: bytes, tables: np.ndarray, info: InfoSet) -> bytes:
        """One round trip: the queued lines, the decisions and ``go``; the answer lines, each
        newline-terminated."""
        process = self._process
        if unasked := process.unasked():
            self._fail(f"printed {protocol.shown(unasked)} without being asked")
        data = b"".join(self._queued) + text + b"go\n"
        self._queued.clear()
        try:
            return process.exchange(data, len(tables), self.time_limit)
        except Stopped as stop:
            answered = {a[0] for a in map(protocol.read_answer, stop.lines) if a is not None}
            pending = [i for i, t in enumerate(tables.tolist()) if t not in answered]
            what = self._decision(info, pending[0] if pending else 0, tables)
            more = f" (and {len(pending) - 1} more)" if len(pending) > 1 else ""
            if isinstance(stop, TimedOut) and process.alive():
                self._fail(f"did not answer {what}{more} within {self.time_limit:g} s (option time_limit=)")
            if isinstance(stop, Flooded):
                self._fail(f"printed a line of more than {LINE_BYTES} bytes, before answering {what}")
            self._fail(f"{process.exit_status()} before answering {what}{more}")

    @staticmethod
    def _decision(info: InfoSet, row: int, tables: np.ndarray) -> str:
        """'table 7 (seat 2, hand 1, trick 3)' or '(..., pass)'."""
        when = "pass" if info.phase[row] == PASS else f"trick {int(info.tricks_played[row]) + 1}"
        return f"table {int(tables[row])} (seat {int(info.seat[row])}, hand {int(info.hand_number[row])}, {when})"


def _goodbye(process: _Process, queued: list[bytes]) -> None:
    """The finalizer's ``close``: the lines still queued, then ``quit``."""
    process.close(b"".join(queued))


def _game_start(info: InfoSet) -> np.ndarray:
    """(B,) bool: the seat's first decision of a game (nothing passed or played yet, hand 1)."""
    return (info.hand_number == 1) & (info.passed == 0) & (info.played[:, 0] == 0) & (info.tricks_played == 0)


def _seed_int(seed: int | np.random.SeedSequence | None) -> int | None:
    """A seed as the non-negative int the bot is sent."""
    if seed is None:
        return None
    if isinstance(seed, np.random.SeedSequence):
        return int(seed.generate_state(1, np.uint64)[0] >> np.uint64(1))
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"program option seed must be a non-negative int, got {seed!r}")
    return int(seed)
