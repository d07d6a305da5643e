"""The Hearts bot protocol, version 1, as text: the lines a table manager and a bot exchange
(``docs/bot-protocol.md`` is the specification; this module is its reference encoder and decoder).

Both sides use it: ``hearts_env.agents.bridges.program`` (an agent that runs a bot program) writes the
hello, table lines, decisions, events and the batch's ``go`` and reads answers;
``hearts_env.agents.bridges.protocol_bot`` (this project's agents served as a bot) reads decisions back
into the very ``InfoSet`` they were written from and writes answers. A decision line is the whole
information set of the seat to act (``hearts_env.engine.infoset``: nothing hidden), in absolute seats;
events are what the table showed since (``step_events``, from the runner's ``Step``).

Decision lines are written and read by compiled kernels (a batch of thousands in one call), so a
bot that answers at once costs a few microseconds a decision. This package's face holds the
lines' API; the compiled kernels behind it stay in ``writing`` and ``reading``.
"""

from hearts_env.protocol.reading import (
    Decisions,
    Line,
    line_bounds,
    line_tables,
    read_answer,
    read_answers,
    read_decisions,
    read_hello_reply,
    read_int,
    read_line,
    read_table_id,
    read_table_kind,
    read_table_line,
    read_table_seat,
    unusable_table_id,
)
from hearts_env.protocol.words import (
    BUSY,
    FIELD_NAMES,
    HELLO,
    LADDER,
    LADDER_VERSION,
    MAX_NAME,
    MAX_TABLE,
    PIECES,
    PROTOCOL,
    SLOW_HANDSHAKE,
    TRY_AGAIN,
    VERSION,
    is_bot_name,
    shown,
)
from hearts_env.protocol.writing import (
    answer_lines,
    decision_lines,
    hello_reply,
    step_events,
    table_lines,
    table_text,
)

__all__ = [
    "BUSY",
    "Decisions",
    "FIELD_NAMES",
    "HELLO",
    "LADDER",
    "LADDER_VERSION",
    "Line",
    "MAX_NAME",
    "MAX_TABLE",
    "PIECES",
    "PROTOCOL",
    "SLOW_HANDSHAKE",
    "TRY_AGAIN",
    "VERSION",
    "answer_lines",
    "is_bot_name",
    "decision_lines",
    "hello_reply",
    "line_bounds",
    "line_tables",
    "read_answer",
    "read_answers",
    "read_decisions",
    "read_hello_reply",
    "read_int",
    "read_line",
    "read_table_id",
    "read_table_kind",
    "read_table_line",
    "read_table_seat",
    "shown",
    "step_events",
    "table_lines",
    "table_text",
    "unusable_table_id",
]
