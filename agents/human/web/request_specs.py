"""Agent specs that arrive in requests, checked before anything is built.

A request names agents as specs (``hearts_env.agents.specs``: ``name:key=value,...``). The server
builds only what the registry offers: the name must be one of ``hearts_env.agents.AGENTS``; every
option must be one of ``OPTIONS`` with a literal value (a number within ``LIMITS``, a bool or a
plain string: ``parse_spec`` reads values with ``ast.literal_eval`` and never runs code); a search
may sample at most ``MAX_ROLLOUTS`` worlds x rollouts per card, a few times its defaults, so no
request can hold the server for long; and a
``path=`` (``trained``, ``pimc-ppo``) must lie inside a folder the server was started with
(``hearts-web --policy-dir DIR``): a request cannot make the server read files elsewhere. The
weights there load as plain arrays, no pickle (``hearts_env.agents.learned.trained``). So a server
offers only the agents a request can build (``offered``): not ``program`` (a request starts no
program), and ``trained`` or ``sb3`` (which need a ``path=``) only with a policy folder.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hearts_env.agents import AGENTS
from hearts_env.agents.specs import parse_spec
from hearts_env.play.agent_options import factory_options
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


def offered(policy_dirs: Sequence[Path]) -> list[str]:
    """The agents a request can build on a server with ``policy_dirs``, sorted."""
    return sorted(name for name in AGENTS if _unbuildable(name, policy_dirs) is None)


def _unbuildable(name: str, policy_dirs: Sequence[Path]) -> str | None:
    """Why no request can build the agent ``name`` here, or None."""
    needed, _ = factory_options(AGENTS[name])
    outside = [key for key in needed if key not in OPTIONS]
    if outside:  # e.g. program's command=: a request never starts a program
        return f"it needs {', '.join(k + '=' for k in outside)}, which a request may not set"
    if "path" in needed and not policy_dirs:
        return (
            "it needs path= inside a policy folder, and this server has none (start hearts-web with --policy-dir DIR)"
        )
    return None


def check_spec(spec: object, policy_dirs: Sequence[Path]) -> str:
    """``spec`` itself if a request may build it; ``ValueError`` naming what is refused otherwise."""
    if not isinstance(spec, str) or not spec.strip() or len(spec) > MAX_SPEC:
        raise ValueError(f"an agent must be a spec string name:key=value,... of at most {MAX_SPEC} characters")
    name, options = parse_spec(spec)
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; this server offers {', '.join(offered(policy_dirs))}")
    why = _unbuildable(name, policy_dirs)
    if why is not None:
        raise ValueError(f"agent {name!r} is not offered by this server: {why}")
    needed, takes = factory_options(AGENTS[name])
    missing = [key for key in needed if key not in options]
    if missing:
        example = ",".join(f"{key}=..." for key in missing)
        raise ValueError(f"agent {name!r} needs {', '.join(k + '=' for k in missing)} (e.g. {name}:{example})")
    for key, value in options.items():
        if key not in OPTIONS:
            raise ValueError(f"agent {spec!r}: option {key!r} is not one a request may set ({', '.join(OPTIONS)})")
        if takes is not None and key not in takes:
            raise ValueError(f"agent {spec!r}: {name} takes no option {key}=")
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
    """The agent of a checked ``spec``; ``ValueError`` in one line if it cannot be built."""
    check_spec(spec, policy_dirs)
    name, options = parse_spec(spec)
    try:
        return AGENTS[name](**{"seed": seed, **options})
    except TypeError:  # a value its constructor cannot take: no Python words on the page
        raise ValueError(f"agent {spec!r}: {name} cannot be built with {', '.join(options)}=") from None
    except (ValueError, OSError) as error:  # an option out of its range, or a file it cannot read
        raise ValueError(f"agent {spec!r}: {error}") from None


def _inside(path: str, folders: Sequence[Path]) -> bool:
    target = Path(path).resolve()
    return any(target == folder.resolve() or folder.resolve() in target.parents for folder in folders)
