"""Agent specs that arrive in requests, checked before anything is built.

A request names agents as specs (``hearts_env.agents.specs``: ``name:key=value,...``). The server
builds only what the registry offers: the name must be one of ``hearts_env.agents.AGENTS``; every
option must be one of ``OPTIONS`` with a literal value (a number at most ``MAX_NUMBER``, a bool or
a plain string: ``parse_spec`` reads values with ``ast.literal_eval`` and never runs code); and a
``path=`` (``trained``, ``pimc-ppo``) must lie inside a folder the server was started with
(``hearts-web --policy-dir DIR``): a request cannot make the server read files elsewhere. The
weights there load as plain arrays, no pickle (``hearts_env.agents.trained``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hearts_env.agents import AGENTS
from hearts_env.agents.specs import agent_from_spec, parse_spec
from hearts_env.policy import Policy

OPTIONS = ("worlds", "rollouts", "objective", "top_k", "min_prob", "margin", "sample", "path", "proposals")
"""Options a request may give an agent (its seed comes from the game's)."""
MAX_NUMBER = 4096
"""The largest number a request may give an option (bounds a search's cost)."""
MAX_SPEC = 300


def check_spec(spec: object, policy_dirs: Sequence[Path]) -> str:
    """``spec`` itself if a request may build it; ``ValueError`` naming what is refused otherwise."""
    if not isinstance(spec, str) or not spec.strip() or len(spec) > MAX_SPEC:
        raise ValueError(f"an agent must be a spec string name:key=value,... of at most {MAX_SPEC} characters")
    name, options = parse_spec(spec)
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(sorted(AGENTS))}")
    for key, value in options.items():
        if key not in OPTIONS:
            raise ValueError(f"agent {spec!r}: option {key!r} is not one a request may set ({', '.join(OPTIONS)})")
        if not isinstance(value, (bool, int, float, str)):
            raise ValueError(f"agent {spec!r}: option {key}= must be a number, true/false or a word")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and not abs(value) <= MAX_NUMBER:
            raise ValueError(f"agent {spec!r}: {key}={value} is beyond this server's limit of {MAX_NUMBER}")
    if "path" in options and not _inside(str(options["path"]), policy_dirs):
        allowed = ", ".join(str(d) for d in policy_dirs) or "none: start hearts-web with --policy-dir DIR"
        raise ValueError(f"agent {spec!r}: path= must lie inside a policy folder of this server ({allowed})")
    return spec


def build(spec: str, seed: int, policy_dirs: Sequence[Path]) -> Policy:
    """The agent of a checked ``spec``; ``ValueError`` if it cannot be built."""
    check_spec(spec, policy_dirs)
    try:
        return agent_from_spec(spec, seed)
    except (TypeError, ValueError, OSError) as error:
        raise ValueError(f"agent {spec!r}: {error}") from None


def _inside(path: str, folders: Sequence[Path]) -> bool:
    target = Path(path).resolve()
    return any(target == folder.resolve() or folder.resolve() in target.parents for folder in folders)
