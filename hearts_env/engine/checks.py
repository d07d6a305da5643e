"""The checks every entry point shares, so bad input is refused the same way everywhere, before
anything changes: a ``ValueError`` that names the argument, says what is accepted and shows what
was given. (Seeds have their own: ``hearts_env.engine.seeding.check_seed``.)"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np


def flag(name: str, value: object) -> bool:
    """``value`` as a bool, if it is one (Python's or numpy's); ``"no"``, 0 or None are refused,
    not read as truthy."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def integer(name: str, value: object, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int in ``low..high`` (either bound may be open); bools and floats (even
    whole ones: ``1.5`` would be cut silently, ``2.0`` hides a mistake) are refused."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an int{_range(low, high)}, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} must be an int{_range(low, high)}, got {value}")
    return int(value)


def count(name: str, value: object) -> int:
    """``value`` as an int of 1 or more: a number of things (games, deals, tables)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def choice(name: str, value: object, allowed: Sequence[str]) -> str:
    """``value``, one of ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def fits_in_memory(what: str, nbytes: float) -> None:
    """Refuse work whose arrays cannot fit in this machine's memory (``nbytes``, estimated from the
    sizes asked for, such as a deal count with a few digits too many) before anything is allocated,
    instead of a memory error part of the way through."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf here: nothing to check against
        return
    if nbytes > total:
        raise ValueError(
            f"{what} needs about {nbytes / 2**30:,.0f} GiB of memory; this machine has {total / 2**30:,.0f} GiB"
        )


def _range(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f" in {low:,}..{high:,}"
    if low is not None:
        return f" >= {low:,}"
    return f" <= {high:,}" if high is not None else ""
