"""What the speed scripts share: the options of an agent speed measurement, and ``--json``."""

from __future__ import annotations

import argparse
import json

from hearts_env.agents.learned.family import table_rules


def agent_speed_args(
    doc: str,
    agents: list[str],
    default_agents: list[str],
    batch_sizes: list[int],
    argv: list[str] | None,
    table: bool = False,
) -> argparse.Namespace:
    """The options of a script that times ``agents`` over batch sizes (``doc``: its docstring):
    ``--agents``, ``--batch-sizes``, ``--seconds``, ``--seed`` and ``--json``, and with ``table``
    ``--table`` (a table key, ``args.rules`` its rules), checked."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--agents", nargs="+", default=default_agents, choices=agents)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=batch_sizes)
    parser.add_argument("--seconds", type=float, default=5.0, help="time spent on each measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this file")
    if table:
        parser.add_argument("--table", default="4p", help="the table of the positions: 4p (default), 6p, 8p-2d, ...")
    args = parser.parse_args(argv)
    if min(args.batch_sizes) < 1 or args.seconds <= 0:
        parser.error("--batch-sizes must be >= 1 and --seconds > 0")
    if table:
        try:
            args.rules = table_rules(args.table)
        except ValueError as error:
            parser.error(str(error))
    return args


def save_json(path: str | None, results: object) -> None:
    """Write ``results`` as JSON to ``path`` (a script's ``--json``), if one was given."""
    if path:
        with open(path, "w") as f:
            json.dump(results, f, indent=2)
