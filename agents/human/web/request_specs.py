"""Agent specs that arrive in requests, checked before anything is built.

A request names agents as specs (``hearts_env.agents.specs``: ``name:key=value,...``). The server
builds only what the registry offers: the name must be one of ``hearts_env.agents.AGENTS``; every
option must be one of ``OPTIONS`` with a literal value (a number within ``LIMITS``, a bool or a
plain string: ``parse_spec`` reads values with ``ast.literal_eval`` and never runs code); a search
may sample at most ``MAX_ROLLOUTS`` worlds x rollouts per card, a few times its defaults, so no
request can hold the server for long; and a
``path=`` (``trained``, ``pimc-ppo``) must lie inside a folder the server was started with
(``hearts-web --policy-dir DIR``): a request cannot make the server read files elsewhere. The
weights there load as plain arrays, no pickle (``hearts_env.agents.learned.trained``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hearts_env.agents import AGENTS
from hearts_env.agents.specs import agent_from_spec, parse_spec
from hearts_env.play.policy import Policy

LIMITS: dict[str, tuple[float, float] | None] = {
    "worlds": (1, 256),
    "rollouts": (1, 8),
    "proposals": (1, 64),
    "top_k": (1, 52),
    "min_prob": (0, 1),
    "margin": (-1000, 1000),
    "objective": None,
    "sample": None,
    "path": None,
}
"""The options a request may give an agent (its seed comes from the game's), with the range of a
number (None: a bool or a word)."""
OPTIONS = tuple(LIMITS)
MAX_ROLLOUTS = 512
"""The most worlds x rollouts a request's search may play out per card."""
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
        limits = LIMITS[key]
        if isinstance(value, (int, float)) and not isinstance(value, bool) and limits is not None:
            low, high = limits
            if not low <= value <= high:
                raise ValueError(f"agent {spec!r}: {key}={value} is outside this server's range {low:g}..{high:g}")
    # One option alone stays within MAX_ROLLOUTS with the other's default (64 worlds x 8 rollouts at most).
    rollouts = options.get("worlds", 1) * options.get("rollouts", 1)
    if isinstance(rollouts, (int, float)) and rollouts > MAX_ROLLOUTS:
        raise ValueError(f"agent {spec!r}: worlds x rollouts = {rollouts:g}, more than this server's {MAX_ROLLOUTS}")
    if "path" in options and not _inside(str(options["path"]), policy_dirs):
        allowed = ", ".join(str(d) for d in policy_dirs) or "none: start hearts-web with --policy-dir DIR"
        raise ValueError(f"agent {spec!r}: path= must lie inside a policy folder of this server ({allowed})")
    return spec


def build(spec: str, seed: int, policy_dirs: Sequence[Path]) -> Policy:
    """The agent of a checked ``spec``; ``ValueError`` if it cannot be built."""
    check_spec(spec, policy_dirs)
    try:
        return agent_from_spec(spec, seed)  # its ValueError names the spec already
    except (TypeError, OSError) as error:
        raise ValueError(f"agent {spec!r}: {error}") from None


def _inside(path: str, folders: Sequence[Path]) -> bool:
    target = Path(path).resolve()
    return any(target == folder.resolve() or folder.resolve() in target.parents for folder in folders)
