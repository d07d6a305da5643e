"""``hearts-bot AGENT``: any of this project's agents served as a bot over the bot protocol, on
stdin and stdout, for this project's ``program`` agent or any other table manager
(``docs/bot-protocol.md``).

    hearts-bot heuristic                      # or: python -m hearts_env.agents.protocol_bot heuristic
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

import argparse
import copy
import sys
from typing import BinaryIO

import numpy as np

from hearts_env import protocol
from hearts_env.core import bits_to_mask, legal_mask, new_games
from hearts_env.infoset import infoset
from hearts_env.policy import Policy
from hearts_env.rules import HeartsRules
from hearts_env.seeding import parse_seed

PROG = "hearts-bot"


class Bot:
    """The protocol's bot side around one agent: ``serve`` answers a manager until ``quit`` or the
    end of its input."""

    def __init__(self, agent: Policy, name: str) -> None:
        self.agent, self.name = agent, name
        self.kinds: list[tuple[HeartsRules, bool]] = []  # the kinds of table (rules, history) seen
        self.kind_of: dict[bytes, int] = {}  # a table line's text after the seat -> its kind
        self.table_kind = np.full(1024, -1, np.int64)  # the kind of each open table id, -1 for none

    def serve(self, source: BinaryIO, sink: BinaryIO) -> None:
        """Answer the hello, then every batch (the lines up to ``go``) until ``quit`` or the end of input."""
        buffer = bytearray()
        while b"\n" not in buffer:
            chunk = source.read1(1 << 16)
            if not chunk:
                return
            buffer += chunk
        end = buffer.index(b"\n")
        if buffer[:end].strip() != protocol.HELLO.encode():
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
        (for the answers, or for the bot to exit), so only the end of the input is looked at."""
        while True:
            for word, more in ((b"go\n", True), (b"quit\n", False)):
                if buffer.endswith(word) and (len(buffer) == len(word) or buffer[-len(word) - 1] == 10):
                    batch = bytes(buffer[: -len(word)])
                    buffer.clear()
                    return batch, more
            chunk = source.read1(1 << 20)
            if not chunk:
                return bytes(buffer), False
            buffer += chunk.replace(b"\r\n", b"\n") if b"\r" in chunk else chunk

    def lines(self, text: bytes) -> bytes:
        """Read a batch's lines but its decisions (tables opened and closed, seeds; events need
        nothing: they are read past), in order; its decision lines, newline-terminated."""
        buf = np.frombuffer(text, np.uint8)
        bounds = protocol.line_bounds(buf)
        starts, ends = bounds[:-1], bounds[1:]
        if not len(starts):
            return b""
        first, second = buf[starts], buf[np.minimum(starts + 1, len(buf) - 1)]
        rare = ((first == ord("t")) & (second == ord("a"))) | (first == ord("e")) | (first == ord("s"))
        for i in np.flatnonzero(rare).tolist():
            line = text[starts[i] : ends[i]]
            if line.startswith(b"table "):
                self.open(line)
            elif line.startswith(b"end "):
                table = int(line[4:])
                if table < len(self.table_kind):
                    self.table_kind[table] = -1
            elif line.startswith(b"seed ") and callable(getattr(self.agent, "seed", None)):
                self.agent.seed(int(line[5:]))
        decisions = np.flatnonzero(first == ord("p"))
        if not len(decisions):
            return b""
        if decisions[-1] - decisions[0] == len(decisions) - 1:  # one run of lines, as managers write them
            return text[starts[decisions[0]] : ends[decisions[-1]]]
        return b"".join(text[starts[i] : ends[i]] for i in decisions.tolist())

    def open(self, line: bytes) -> None:
        """A table line: the table's kind (rules and history), shared by every table of the same text."""
        head, _, rest = line.partition(b" seat=")
        table = int(head[6:])
        _, _, knobs = rest.partition(b" ")  # the text after the seat: history and the rules
        kind = self.kind_of.get(knobs)
        if kind is None:
            _, _, rules, history = protocol.read_table_line(f"table 0 seat=0 {knobs.decode()}")
            kind = self.kind_of[knobs] = len(self.kinds)
            self.kinds.append((rules, history))
        if table >= len(self.table_kind):
            self.table_kind = np.concatenate([self.table_kind, np.full(table + 1, -1, np.int64)])
        self.table_kind[table] = kind

    def answer(self, batch: bytes) -> bytes:
        """The answer lines of a batch: one agent call per kind of table, in the decisions' order."""
        text = self.lines(batch)
        if not text:
            return b""
        tables = protocol.line_tables(text)
        known = (tables >= 0) & (tables < len(self.table_kind))
        kinds = np.where(known, self.table_kind[np.where(known, tables, 0)], -1)
        out = [f"error {t} no table line opened this table\n".encode() for t in tables[kinds < 0].tolist()]
        if (kinds < 0).any() or len(np.unique(kinds)) > 1:
            lines = text.split(b"\n")
            groups = [
                (kind, b"".join(lines[i] + b"\n" for i in np.flatnonzero(kinds == kind))) for kind in np.unique(kinds)
            ]
        else:
            groups = [(int(kinds[0]), text)]
        for kind, part in groups:
            if kind >= 0:
                out.append(self.decide(part, *self.kinds[kind]))
        return b"".join(out)

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


def warm_up(agent: Policy) -> None:
    """Read a decision of the standard game back and let the agent decide it (if it can), so that
    the kernels are compiled."""
    state = new_games(HeartsRules(), batch_size=1, seed=0)
    info = infoset(state)
    protocol.read_decisions(protocol.decision_lines(info, np.zeros(1, np.int64)), state.rules, False)
    try:
        copy.deepcopy(agent)(info, legal_mask(state))  # a copy: the agent's random state stays
    except ValueError:
        pass


def main(argv: list[str] | None = None) -> None:
    from hearts_env.agents import AGENTS
    from hearts_env.agents.specs import agent_from_spec

    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Serve one of this project's agents as a Hearts bot on stdin/stdout (docs/bot-protocol.md).",
    )
    parser.add_argument("agent", metavar="AGENT", help=f"agent spec (name or name:key=value,...): {', '.join(AGENTS)}")
    parser.add_argument("--name", help="the bot's name in the hello (default: the agent spec)")
    parser.add_argument("--seed", type=parse_seed, default=0, help="seed of the agent until the manager sends one")
    args = parser.parse_args(argv)
    name = args.name or args.agent
    try:
        agent = agent_from_spec(args.agent, args.seed)
        protocol.hello_reply(name, True)
    except ValueError as error:
        parser.error(str(error))
    warm_up(agent)
    try:
        Bot(agent, "".join(name.split())).serve(sys.stdin.buffer, sys.stdout.buffer)
    except (ValueError, BrokenPipeError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:  # the manager's terminal was interrupted
        sys.exit(130)


if __name__ == "__main__":
    main()
