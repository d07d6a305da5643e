"""How every command-line program of the project ends: with its output, or one line.

``@command("hearts-arena")`` on a ``main(argv)`` turns what can go wrong once the flags have been
read into one line on stderr and an exit status, never a traceback: a refused input or a failed
run (``ValueError``, naming what was wrong), a file that cannot be read or written (``OSError``:
a full disk, a missing folder), Ctrl-C (``prog: interrupted``, status 130). A closed output pipe
(``hearts-demo | head -1``) ends the program quietly, as ``head`` expects. On a terminal, a
first run says in one line that it is compiling the kernels. ``Parser`` is the argument parser
every command uses: a flag it refuses is one line too (``prog: error: ...``), not the usage first.
``positive_int`` is the flag type they share for counts.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, ParamSpec, TypeVar

from hearts_env.engine import compiled

P = ParamSpec("P")
R = TypeVar("R")


def command(prog: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a command's ``main``: see the module docstring."""

    def wrap(main: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(main)
        def run(*args: P.args, **kwargs: P.kwargs) -> R:
            if sys.stderr is None:  # started with stderr closed (2>&-): its lines go nowhere, not to stdout
                sys.stderr = open(os.devnull, "w")  # noqa: SIM115  (open for the rest of the run)
            if sys.stderr.isatty():
                compiled.announce_compiling()  # a first run's wait, explained in one line
            try:
                result = main(*args, **kwargs)
                sys.stdout.flush()  # a closed pipe shows here, inside the handler
                return result
            except BrokenPipeError:
                # The reader has gone: send what is left nowhere, so the exit flush does not fail again.
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                sys.exit(0)
            except KeyboardInterrupt:
                print(f"{prog}: interrupted", file=sys.stderr)
                sys.exit(130)  # 128 + SIGINT, as shells report it
            except (ValueError, OSError) as error:
                sys.exit(f"{prog}: error: {_one_line(error)}")

        return run

    return wrap


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose refusals are one line on stderr and exit status 2, pointing at
    ``--help`` instead of printing the usage first."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {' '.join(message.split())} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


def positive_int(text: str) -> int:
    """A count flag's value (an ``argparse`` type): an int of 1 or more."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive int, got {value}")
    return value


def add_progress_argument(parser: argparse.ArgumentParser) -> None:
    """``--progress`` / ``--no-progress``: a progress bar, on by default when stderr is a terminal."""
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=sys.stderr.isatty(),
        help="progress bar (default: on a terminal)",
    )


def output_problem(path: str) -> str | None:
    """Why a result file cannot be written at ``path`` (None if it can), checked before a long run."""
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        return f"{path} is a folder"
    if not folder.is_dir():
        return f"no folder {folder} to write {target.name} in"
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        return f"cannot write {path}"
    return None


def _one_line(error: BaseException) -> str:
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.strerror or error}: {error.filename}"
    return " ".join(str(error).split()) or type(error).__name__
