"""How a command line refuses: it exits non-zero with one error line, never a traceback."""

from __future__ import annotations

import pytest


def refused(capsys: pytest.CaptureFixture[str], run, *fragments: str) -> str:
    """Run a command line's main, expect it to exit non-zero with one line on stderr, an error
    holding every fragment (no usage, no traceback); returns that line."""
    with pytest.raises(SystemExit) as exit_:
        run()
    assert exit_.value.code not in (0, None)
    err = capsys.readouterr().err
    if isinstance(exit_.value.code, str):  # sys.exit("prog: error: ...") prints nothing itself
        err += exit_.value.code
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "error:" in lines[0], err
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} not in {lines[0]!r}"
    return lines[0]
