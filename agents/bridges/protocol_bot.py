"""``hearts-bot AGENT``: any of this project's agents served as a bot over the bot protocol, on
stdin and stdout, for this project's ``program`` agent or any other table manager
(``docs/bot-protocol.md``).

    hearts-bot heuristic                      # or: python -m hearts_env.agents.bridges.protocol_bot heuristic
    hearts-bot "pimc:worlds=20" --name pimc20
    hearts-arena "program:command=hearts-bot heuristic" heuristic heuristic heuristic

The agent is a spec as ``hearts-arena`` takes (``hearts_env.agents.specs``). The bot plays many
tables at once: it reads every line up to ``go``, reads the decision lines back into the
information sets they were written from (``hearts_env.protocol``) and decides them in one batched
call of the agent per table kind (rules and history), in the order they came, so a seeded agent
plays exactly the cards it plays in-process; ``seed N`` reseeds it. Events are not needed (every
decision carries the seat's whole view) and are read past. A decision the agent cannot make (it
refuses the table's rules, a line it cannot read) is answered ``error T MESSAGE``. Before the
hello it decides a position of the standard game once, so its kernels are compiled before any
time limit runs.
"""

from __future__ import annotations

import copy
from typing import BinaryIO, TextIO

import numpy as np

from hearts_env import protocol
from hearts_env.engine.core import bits_to_mask, legal_mask, new_games
from hearts_env.engine.infoset import infoset
from hearts_env.engine.rules import HeartsRules
from hearts_env.play.policy import Policy

PROG = "hearts-bot"


class Bot:
    """The protocol's bot side around one agent: ``serve`` answers a manager until ``quit`` or the
    end of its input. Lines it does not know, and fields it does not know at the ends of lines,
    are ignored (a later version of the protocol adds them); a line it cannot read is named on
    ``log`` (stderr) and, where it names a table, answered ``error T MESSAGE`` at that table's
    decisions."""

    def __init__(self, agent: Policy, name: str, log: TextIO | None = None) -> None:
        self.agent, self.name, self.log = agent, name, log
        self.kinds: list[tuple[HeartsRules, bool]] = []  # the kinds of table (rules, history) seen
        self.kind_of: dict[tuple[tuple[str, str], ...], int] = {}  # a table line's knobs -> its kind
        self.tables: dict[int, int | str] = {}  # each open table id: its kind, or why its table line was refused

    def say(self, what: str) -> None:
        """One line on the log: what was ignored and why."""
        if self.log is not None:
            print(f"{PROG}: {what}", file=self.log, flush=True)

    def serve(self, source: BinaryIO, sink: BinaryIO) -> None:
        """Answer the hello, then every batch (the lines up to ``go``) until ``quit`` or the end of input."""
        buffer = bytearray()
        while b"\n" not in buffer:
            chunk = source.read1(1 << 16)
            if not chunk:
                return
            buffer += chunk
        end = buffer.index(b"\n")
        hello = protocol.read_line(bytes(buffer[:end]))
        if hello.kind != protocol.PROTOCOL or hello.words[:1] != (str(protocol.VERSION),):
            raise ValueError(f"expected the hello {protocol.HELLO!r}, got {protocol.shown(bytes(buffer[:end]))}")
        sink.write((protocol.hello_reply(self.name, many=True) + "\n").encode())
        sink.flush()
        del buffer[: end + 1]
        while True:
            batch, more = self._batch(buffer, source)
            sink.write(self.answer(batch))
            sink.flush()
            if not more:
                return

    def _batch(self, buffer: bytearray, source: BinaryIO) -> tuple[bytes, bool]:
        """Read to the next ``go`` or ``quit`` (the end of input counts as ``quit``): the lines
        before it, and whether to go on. Both are the last lines a manager sends before it waits
        (for the answers, or for the bot to exit), so only the last line read is looked at."""
        while True:
            if buffer.endswith(b"\n"):
                start = buffer.rfind(b"\n", 0, len(buffer) - 1) + 1
                word = buffer[start:].split(None, 1)[:1]
                if word in ([b"go"], [b"quit"]):
                    batch = bytes(buffer[:start])
                    buffer.clear()
                    return batch, word == [b"go"]
            chunk = source.read1(1 << 20)
            if not chunk:
                return bytes(buffer), False
            buffer += chunk.replace(b"\r\n", b"\n") if b"\r" in chunk else chunk

    def lines(self, text: bytes) -> bytes:
        """Read a batch's lines but its decisions (tables opened and closed, seeds; events need
        nothing, unknown kinds of lines are ignored), in order; its decision lines (``pass T`` and
        ``play T``, whole keywords), newline-terminated."""
        buf = np.frombuffer(text, np.uint8)
        bounds = protocol.line_bounds(buf)
        starts, ends = bounds[:-1], bounds[1:]
        if not len(starts):
            return b""
        decision = _starting(buf, starts, ends, b"pass ") | _starting(buf, starts, ends, b"play ")
        event = _starting(buf, starts, ends, b"card ") | _starting(buf, starts, ends, b"trick ")
        for i in np.flatnonzero(~decision & ~event).tolist():
            self.other(text[starts[i] : ends[i]])
        decisions = np.flatnonzero(decision)
        if not len(decisions):
            return b""
        if decisions[-1] - decisions[0] == len(decisions) - 1:  # one run of lines, as managers write them
            return text[starts[decisions[0]] : ends[decisions[-1]]]
        return b"".join(text[starts[i] : ends[i]] for i in decisions.tolist())

    def other(self, text: bytes) -> None:
        """A line that is neither a decision nor a card or trick event: ``table``, ``end`` and
        ``seed`` change what the bot knows; any other kind is read past."""
        try:
            line = protocol.read_line(text)
            if line.kind == "table":
                self.open(line)
            elif line.kind == "end" and line.words:
                self.tables.pop(protocol.read_table_id(line.words[0]), None)
            elif line.kind == "seed" and line.words and callable(getattr(self.agent, "seed", None)):
                self.agent.seed(protocol.read_int(line.words[0], "seed", 0, 2**63 - 1))
        except ValueError as error:
            self.say(f"ignored the line {protocol.shown(text.rstrip())}: {error}")

    def open(self, line: protocol.Line) -> None:
        """A table line: the table's kind (rules and history), shared by every table of the same
        knobs; a table line refused keeps its reason, with which the table's decisions are answered."""
        if not line.words:
            raise ValueError("it names no table")
        table = protocol.read_table_id(line.words[0])
        key = tuple(sorted((k, v) for k, v in line.fields.items() if k != "seat"))
        try:
            kind = self.kind_of.get(key)
            if kind is None:
                self.kinds.append(protocol.read_table_kind(line))
                kind = self.kind_of[key] = len(self.kinds) - 1
            protocol.read_table_seat(line, self.kinds[kind][0])
        except ValueError as error:
            self.tables[table] = f"its table line was refused: {error}"
            raise
        self.tables[table] = kind

    def answer(self, batch: bytes) -> bytes:
        """The answer lines of a batch: one agent call per kind of table, in the decisions' order."""
        text = self.lines(batch)
        if not text:
            return b""
        tables = protocol.line_tables(text)
        kinds = np.array(
            [self.tables.get(t, -1) if isinstance(self.tables.get(t), int) else -1 for t in tables.tolist()], np.int64
        )
        out = []
        lines = text.split(b"\n")
        for i in np.flatnonzero(kinds < 0).tolist():
            out.append(self.refusal(lines[i], int(tables[i])))
        if (kinds < 0).any() or len(np.unique(kinds)) > 1:
            groups = [
                (kind, b"".join(lines[i] + b"\n" for i in np.flatnonzero(kinds == kind))) for kind in np.unique(kinds)
            ]
        else:
            groups = [(int(kinds[0]), text)]
        for kind, part in groups:
            if kind >= 0:
                out.append(self.decide(part, *self.kinds[kind]))
        return b"".join(out)

    def refusal(self, line: bytes, table: int) -> bytes:
        """``error T MESSAGE`` for a decision of no playable table (b'' if it names no table id to answer)."""
        word = line.split(None, 2)[1:2]
        if table < 0:
            if not word or not protocol.unusable_table_id(word[0]):
                self.say(f"ignored the line {protocol.shown(line)}: it names no table")
                return b""
            return b"error %s table ids are 0..%d\n" % (word[0], protocol.MAX_TABLE)
        reason = self.tables.get(table, "no table line opened this table")
        return f"error {table} {reason}\n".encode()

    def decide(self, text: bytes, rules: HeartsRules, history: bool) -> bytes:
        """The answers to decision lines of tables of one kind, in one call of the agent."""
        read = protocol.read_decisions(text, rules, history)
        out = [f"error {read.tables[i]} {read.problem(i)}\n".encode() for i in np.flatnonzero(read.failed)]
        ok = np.flatnonzero(read.failed == 0)
        if not len(ok):
            return b"".join(out)
        info = read.info if len(ok) == len(read.failed) else read.info[ok]
        try:
            cards = np.asarray(self.agent(info, bits_to_mask(info.legal)), np.int64)
        except ValueError as error:
            message = " ".join(str(error).split())
            return b"".join(out) + "".join(f"error {t} {message}\n" for t in read.tables[ok].tolist()).encode()
        return b"".join(out) + protocol.answer_lines(read.tables[ok], cards)


def _starting(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, word: bytes) -> np.ndarray:
    """(n,) bool: which lines (``buf[starts:ends]``, each with its newline) start with ``word``."""
    found = ends - starts > len(word)
    for j, byte in enumerate(word):
        found &= buf[np.minimum(starts + j, len(buf) - 1)] == byte
    return found


def warm_up(agent: Policy) -> None:
    """Read a decision of the standard game back, let the agent decide it (if it can) and read its
    answer back, so that the kernels are compiled."""
    state = new_games(HeartsRules(), batch_size=1, seed=0)
    info = infoset(state)
    protocol.read_decisions(protocol.decision_lines(info, np.zeros(1, np.int64)), state.rules, False)
    protocol.read_answers(protocol.answer_lines(np.zeros(1, np.int64), np.zeros(1, np.int64)))
    try:
        copy.deepcopy(agent)(info, legal_mask(state))  # a copy: the agent's random state stays
    except ValueError:
        pass


if __name__ == "__main__":
    from hearts_env.agents.bridges.cli import bot

    bot()
