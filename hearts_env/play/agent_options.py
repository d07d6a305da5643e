"""The options an agent factory takes, so that ``make_agent`` (and a web request's check) can name a wrong one.

A factory's options are its keyword parameters. A factory that passes the rest of its options on
to a policy class (``**options``) says so with ``passes_options_to``: its signature then lists the
class's options as well, and an unknown option is refused before anything is built.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

Factory = TypeVar("Factory", bound=Callable[..., Any])


def passes_options_to(target: Callable[..., Any], fixed: tuple[str, ...] = ()) -> Callable[[Factory], Factory]:
    """Mark a factory whose ``**options`` go on to ``target``: its signature becomes its own named
    options followed by ``target``'s (keyword-only) but those it sets itself (``fixed``), without
    the ``**options``."""

    def mark(factory: Factory) -> Factory:
        own = inspect.signature(factory)
        kept = [p for p in own.parameters.values() if p.kind is not p.VAR_KEYWORD]
        names = {p.name for p in kept} | set(fixed)
        passed = [
            p.replace(kind=p.KEYWORD_ONLY)
            for p in inspect.signature(target).parameters.values()
            if p.name not in names and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        ]
        factory.__signature__ = own.replace(parameters=[*kept, *passed])  # type: ignore[attr-defined]
        return factory

    return mark


def factory_options(factory: Callable[..., Any]) -> tuple[list[str], list[str] | None]:
    """The options ``factory`` needs (no default), and those it takes (None: any, a ``**options``)."""
    parameters = inspect.signature(factory).parameters.values()
    named = [p for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    needed = [p.name for p in named if p.default is p.empty]
    takes = None if any(p.kind is p.VAR_KEYWORD for p in parameters) else [p.name for p in named]
    return needed, takes


def check_options(name: str, factory: Callable[..., Any], options: Mapping[str, Any]) -> None:
    """``ValueError`` naming the first option of ``options`` that the agent ``name``'s factory does
    not take, and the ones it does, or the first it needs and is not given."""
    needed, takes = factory_options(factory)
    for key in options:
        if takes is not None and key not in takes:
            raise ValueError(f"no option {key!r}; its options: {', '.join(takes)}")
    for key in needed:
        if key not in options:
            raise ValueError(f"the option {key!r} is needed ({name}:{key}=...)")
