"""``hearts-demo``: any variant plays, bad flags are refused with one line before the first hand, and
a closed pipe ends it quietly."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hearts_env.cli.demo import main as demo_main


def test_demo_plays_any_variant(capsys):
    demo_main(["--seed", "3", "--num-players", "5", "--jack-of-diamonds", "--target-score", "0", "--pass-count", "1"])
    out = capsys.readouterr().out
    assert "=== Hand 1 (pass left) ===" in out and "Game over after 1 hands" in out


@pytest.mark.processes
def test_a_closed_pipe_ends_the_demo_quietly() -> None:
    reader = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.readline()"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL
    )
    demo = subprocess.run(
        [sys.executable, "-m", "hearts_env.cli.demo", "--seed", "0"], stdout=reader.stdin, capture_output=False,
        stderr=subprocess.PIPE, timeout=300,
    )  # fmt: skip
    reader.stdin.close()
    reader.wait()
    assert demo.returncode == 0 and b"Traceback" not in demo.stderr, demo.stderr


def test_a_closed_stderr_is_no_crash(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stderr", None)  # what Python makes of a program started with 2>&-
    demo_main(["--seed", "0", "--target-score", "0"])
    assert "Game over after 1 hands" in capsys.readouterr().out
