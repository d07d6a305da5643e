"""Progress bars: a bar on a terminal, a few lines in a log."""

from __future__ import annotations

import io

from hearts_env.play.progress import LogProgress, NoProgress, progress_bar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_a_line_every_few_percent_not_every_update() -> None:
    log = io.StringIO()
    bar = progress_bar(10_000, "collect", "decision", file=log)
    assert isinstance(bar, LogProgress)
    for _ in range(10_000):
        bar.update(1)
    bar.close()
    lines = log.getvalue().splitlines()
    assert 20 <= len(lines) <= 22 and "\r" not in log.getvalue()
    assert lines[-1].startswith("collect: 100% (10,000 / 10,000 decisions)")


def test_a_terminal_gets_a_tqdm_bar_and_disabled_bars_print_nothing() -> None:
    terminal = Terminal()
    bar = progress_bar(100, "train", "step", file=terminal)
    assert type(bar).__name__ == "tqdm"
    bar.update(100)
    bar.close()
    assert "100/100" in terminal.getvalue()
    quiet = io.StringIO()
    off = progress_bar(100, enabled=False, file=quiet)
    assert isinstance(off, NoProgress)
    off.update(5)
    off.close()
    assert quiet.getvalue() == ""


def test_a_log_says_the_last_count_once_in_plural_units() -> None:
    log = io.StringIO()
    bar = progress_bar(3_808, "pretrain", "batch", file=log)
    bar.update(3_808)  # the last update's line is the final count: closing adds nothing
    bar.close()
    lines = log.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pretrain: 100% (3,808 / 3,808 batches)")


def test_a_log_line_ends_with_what_is_being_done() -> None:
    log = io.StringIO()
    bar = progress_bar(100, "hearts-bench new", "game", file=log)
    bar.set_postfix_str("standard pimc")
    bar.update(100)
    bar.close()
    assert log.getvalue() == "hearts-bench new: 100% (100 / 100 games) 0 s, standard pimc\n"
    progress_bar(100, enabled=False).set_postfix_str("nothing shown")
