"""Progress bars that suit where they print.

On a terminal, a tqdm bar (the ``tqdm`` package, which the extras bring). Anywhere else (a log
file, CI, ``make run > log``, a notebook's captured output) a bar's carriage-return updates pile up
into thousands of lines, so there a plain line is printed instead at every ``LOG_STEP`` of the way
and at least every ``LOG_SECONDS``, and a last one at the end.

    bar = progress_bar(total=10_000, desc="collect", unit="decision")
    bar.update(250)
    bar.close()
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

LOG_STEP = 0.05
"""A line every 5% of the total in a log."""
LOG_SECONDS = 60.0
"""And at least one a minute while there is progress."""


class LogProgress:
    """A progress report for logs: ``desc: 35% (3,500 / 10,000 games) 12 s``, one line at a time."""

    def __init__(self, total: int, desc: str, unit: str, file: TextIO, initial: int = 0) -> None:
        self.total, self.desc, self.unit, self.file = max(int(total), 1), desc, unit, file
        self.n, self.start, self.closed = int(initial), time.monotonic(), False
        self.shown, self.shown_at = self.n / self.total, self.start
        self.postfix = ""

    def update(self, n: int = 1) -> None:
        self.n += int(n)
        now = time.monotonic()
        if self.n / self.total - self.shown >= LOG_STEP or (now - self.shown_at >= LOG_SECONDS and n):
            self._line(now)

    def set_postfix_str(self, text: str) -> None:
        """What is being done now, said at the end of the next line (tqdm's name)."""
        self.postfix = text

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            if self.n / self.total != self.shown:  # the last count, unless its line is out already
                self._line(time.monotonic())

    def _line(self, now: float) -> None:
        self.shown, self.shown_at = self.n / self.total, now
        label = f"{self.desc}: " if self.desc else ""
        share, seconds = 100 * self.n / self.total, now - self.start
        print(
            f"{label}{share:.0f}% ({self.n:,} / {self.total:,} {_plural(self.unit)}) {seconds:.0f} s"
            + (f", {self.postfix}" if self.postfix else ""),
            file=self.file,
            flush=True,
        )


def _plural(unit: str) -> str:
    return unit + ("es" if unit.endswith(("s", "x", "ch", "sh")) else "s")


class NoProgress:
    """No bar at all (``enabled=False``)."""

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(
    total: int, desc: str = "", unit: str = "it", enabled: bool = True, initial: int = 0, file: TextIO | None = None
) -> Any:
    """A bar with ``update(n)`` and ``close()`` over ``total`` units: tqdm on a terminal (when tqdm
    is installed), lines in a log, nothing when not ``enabled``."""
    file = sys.stderr if file is None else file
    if not enabled:
        return NoProgress()
    if getattr(file, "isatty", lambda: False)():
        try:
            from tqdm import tqdm
        except ImportError:
            return LogProgress(total, desc, unit, file, initial)
        return tqdm(total=total, desc=desc or None, unit=unit, initial=initial, file=file, dynamic_ncols=True)
    return LogProgress(total, desc, unit, file, initial)
