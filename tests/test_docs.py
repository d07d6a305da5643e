"""Every Python example in the README and the documentation pages runs as written.

Each fenced block whose info string is exactly ``python`` is one test (its id: file and line),
run in a fresh namespace, in a temporary working directory. An HTML comment on the line just
above the fence changes that:

- ``<!-- slow: why -->`` marks it slow (left out of ``make test``; anything over a few seconds);
- ``<!-- skip: why -->`` skips it, saying why (it needs a cluster, a window, a user's own package).

A block that imports a library this environment lacks (an optional one: Ray, Tianshou) is
skipped, naming it; ``hearts_env`` itself must import.

A fragment that is not meant to run on its own is not a ``python`` block: write it as ``text``
(or ``pycon`` for a session), so that every ``python`` block a reader copies is known to work.
The pages' links are checked by ``make docs`` (``mkdocs build --strict``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), ROOT / "agents/policies/ppo/README.md"]
FENCE = re.compile(r"^(?P<indent> *)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```$", re.M | re.S)
MARK = re.compile(r"<!--\s*(slow|skip)\s*(?::\s*(.*?))?\s*-->\s*$")


def _blocks() -> list[pytest.param]:
    params = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for fence in FENCE.finditer(text):
            if fence.group("info").strip() != "python":
                continue
            line = text.count("\n", 0, fence.start()) + 1
            before = text[: fence.start()].rstrip("\n").rsplit("\n", 1)[-1]
            body = "\n".join(row[len(fence.group("indent")) :] for row in fence.group("body").splitlines())
            where = f"{page.relative_to(ROOT)}:{line}"
            marks = []
            mark = MARK.search(before)
            if mark and mark.group(1) == "slow":
                marks.append(pytest.mark.slow)
            elif mark:
                assert mark.group(2), f"{where}: a skipped block says why (<!-- skip: reason -->)"
                marks.append(pytest.mark.skip(reason=mark.group(2)))
            params.append(pytest.param(where, body, id=where, marks=marks))
    return params


BLOCKS = _blocks()


def test_the_pages_have_examples() -> None:
    assert len(BLOCKS) >= 10


@pytest.mark.parametrize(("where", "code"), BLOCKS)
def test_example_runs(where: str, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    try:
        exec(compile(code, where, "exec"), {"__name__": "__main__"})
    except ModuleNotFoundError as error:
        if not error.name or error.name.split(".")[0] == "hearts_env":
            raise
        pytest.skip(f"needs {error.name}, not installed")
