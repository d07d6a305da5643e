"""Agents named on a command line, and the check that they can play a table before a match.

A spec is an agent name of ``hearts_env.agents.AGENTS`` with options for its factory:
``name:key=value,key=value`` (values read as Python literals, else as strings), e.g.
``pimc:worlds=20`` or ``trained:path=runs/hearts_v0__ppo__1__1700000000``. Options are split at
commas outside quotes, so a value with commas is quoted (and read as the Python string literal it
then is): ``program:command="./mybot --levels 1,2",time_limit=10``; a value may hold spaces
(``program:command=./mybot --level 3``). ``hearts-arena``,
``hearts-play`` and ``hearts-train`` build their agents from specs; ``check_agents`` lets every
agent decide one position of the table's rules first, so one that cannot play them (the shipped
``ppo`` plays only 4-player tables without the JD rule, as it was trained) is refused before any
game starts.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Sequence
from typing import Any

from hearts_env.agents import AGENTS, make_agent
from hearts_env.engine.core import legal_mask, new_games
from hearts_env.engine.infoset import infoset
from hearts_env.engine.rules import HeartsRules
from hearts_env.play.agent_options import check_options
from hearts_env.play.policy import Policy, close_agents


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"name:key=value,key=value"`` -> (name, options); values are Python literals or strings."""
    name, _, rest = spec.partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, _split_options(spec, rest)):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"agent option {item!r} of {spec!r} is not key=value")
        if key.strip() in options:
            raise ValueError(f"agent option {key.strip()!r} is given twice in {spec!r}")
        try:
            options[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError, RecursionError):
            options[key.strip()] = value.strip()
    return name.strip(), options


def _split_options(spec: str, rest: str) -> list[str]:
    """``rest`` split at the commas that are not inside quotes ('...' or "...")."""
    items, start, quote = [], 0, ""
    for i, char in enumerate(rest):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == ",":
            items.append(rest[start:i])
            start = i + 1
    if quote:
        raise ValueError(f"agent spec {spec!r} has an unclosed {quote} quote")
    return [*items, rest[start:]]


def agent_from_spec(spec: str, seed: int) -> Policy:
    """The agent of ``spec``, built with ``seed=seed`` unless its options give one. ``ValueError``
    naming the spec for an unknown agent, options its factory does not take, or an option's
    value out of its range (each factory checks its own, naming the option and what it takes)."""
    name, options = parse_spec(spec)
    options.setdefault("seed", seed)
    if name not in AGENTS:
        make_agent(name)  # its error names the agent and the known ones
    try:
        check_options(name, AGENTS[name], options)
        return make_agent(name, **options)
    except (TypeError, ValueError) as error:  # an unknown or missing option, or a value it cannot take
        raise ValueError(f"agent {spec!r}: {error}") from None


def check_agents(rules: HeartsRules, agents: Sequence[tuple[str, Policy]], history: bool = False) -> None:
    """Let a copy of each agent decide the first position of a game of ``rules`` (recording its
    tricks with ``history``, as the match will; its own random state stays untouched);
    ``ValueError`` naming the agent if one refuses these rules."""
    state = new_games(rules, batch_size=1, seed=0, history=history)
    info, mask = infoset(state), legal_mask(state)
    for name, agent in dict(agents).items():
        twin = copy.deepcopy(agent)
        try:
            twin(info, mask)
        except ValueError as error:
            raise ValueError(f"agent {name!r} cannot play these rules: {error}") from None
        finally:
            close_agents([twin])
