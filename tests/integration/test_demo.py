"""``hearts-demo``: any variant plays, bad flags are refused with one line before the first hand, and
a closed pipe ends it quietly."""

from __future__ import annotations

import subprocess
import sys

import pytest
from command_errors import refused

from hearts_env.cli.demo import main as demo_main


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--num-players", "9"], "num_players"),
        (["--target-score", "-1"], "target_score"),
        (["--seed", "-1"], "--seed"),
        (["--pass-count", "20"], "pass_count"),
        (["--moon", "maybe"], "moon"),
        (["--pass-cycle", "across", "--num-players", "3"], "pass_cycle"),
    ],
)
def test_demo_refuses_bad_flags(argv, fragment, capsys):
    refused(capsys, lambda: demo_main(argv), "hearts-demo: error:", fragment)
    assert "Hand 1" not in capsys.readouterr().out


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
