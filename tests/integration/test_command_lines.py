"""Every command refuses a bad command line in one line on stderr (``prog: error: ...``: no usage,
no traceback), naming what was wrong, before it does anything: one table of bad command lines
across the commands, each with what its line must name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from command_errors import refused

from hearts_env.cli.commands import Parser
from hearts_env.engine.rules import add_rules_arguments, rules_from_args
from hearts_env.train import cli as train_cli


def demo(argv: list[str], tmp_path: Path) -> None:
    from hearts_env.cli.demo import main

    main(argv)


def rules_flags(argv: list[str], tmp_path: Path) -> None:
    """The rules flags every command shares, read by every command's parser."""
    parser = Parser(prog="rules")
    add_rules_arguments(parser)
    rules_from_args(parser.parse_args(argv), parser)


def web(argv: list[str], tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    from hearts_env.agents.human.cli import web as main

    with pytest.MonkeyPatch.context() as patch:  # the default database's folder, made in the user's data folder
        patch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
        main(argv)


def arena(argv: list[str], tmp_path: Path) -> None:
    from hearts_env.agents.cli import main

    main(["random"] * 4 + argv)


def needs(argv: list[str], *modules: str) -> None:
    """Skip where a module the command line needs is not installed (Ray for ``--ray``)."""
    for module in modules + (("ray",) if "--ray" in argv else ()):
        pytest.importorskip(module)


def train(argv: list[str], tmp_path: Path) -> None:
    needs(argv, "torch", "sb3_contrib")

    train_cli.ppo(argv + ["--run-dir", str(tmp_path / "runs")])


def expert_iteration(argv: list[str], tmp_path: Path) -> None:
    needs(argv, "torch")
    from hearts_env.train.cli import expert_iteration as cli

    cli(argv + ["--run-dir", str(tmp_path / "runs")])


def belief(argv: list[str], tmp_path: Path) -> None:
    needs(argv, "torch")
    from hearts_env.train.cli import belief as cli

    cli(argv + ["--run-dir", str(tmp_path / "runs")])


def family(argv: list[str], tmp_path: Path) -> None:
    needs(argv, "torch", "sb3_contrib")

    train_cli.family(argv + ["--run-dir", str(tmp_path / "runs")])


def bench_exploit(argv: list[str], tmp_path: Path) -> None:
    needs(argv, "torch", "sb3_contrib")
    from hearts_env.bench.cli import main

    main(["exploit", "simple", *argv, "--out", str(tmp_path / "runs" / "exploit")])


def ladder(argv: list[str], tmp_path: Path) -> None:
    from hearts_env.bench.ladder.cli import main

    main([argv[0], "--db", str(tmp_path / "ladder.db"), *argv[1:]] if argv[1:2] != ["--db"] else argv)


def bot(argv: list[str], tmp_path: Path) -> None:
    from hearts_env.agents.bridges.cli import bot as main

    main(["random", *argv])


COMMANDS: dict[str, Callable[[list[str], Path], None]] = {
    "hearts-demo": demo,
    "rules": rules_flags,
    "hearts-web": web,
    "hearts-arena": arena,
    "hearts-train": train,
    "python -m hearts_env.train.distill.expert_iteration": expert_iteration,
    "python -m hearts_env.train.distill.belief": belief,
    "python -m hearts_env.train.ppo.family": family,
    "hearts-bench": bench_exploit,
    "hearts-ladder": ladder,
    "hearts-bot": bot,
}
NOBODY = "127.0.0.1:1"
"""An address where no Ray cluster answers."""
CANNOT_JOIN = f"cannot join the Ray cluster at {NOBODY}: nothing answers at {NOBODY}"
CASES = [
    ("hearts-demo", ["--num-players", "9"], "num_players"),
    ("hearts-demo", ["--target-score", "-1"], "target_score"),
    ("hearts-demo", ["--seed", "-1"], "--seed"),
    ("hearts-demo", ["--pass-count", "20"], "pass_count"),
    ("hearts-demo", ["--moon", "maybe"], "moon"),
    ("hearts-demo", ["--pass-cycle", "across", "--num-players", "3"], "pass_cycle"),
    ("rules", ["--num-players", "9"], "num_players"),
    ("rules", ["--num-players", "four"], "--num-players"),
    ("rules", ["--pass-count", "99"], "pass_count"),
    ("rules", ["--pass-cycle", "up"], "pass_cycle"),
    ("rules", ["--pass-cycle", "across", "--num-players", "5"], "pass_cycle"),
    ("rules", ["--moon", "sometimes"], "moon"),
    ("rules", ["--target-score", "-1"], "target_score"),
    ("hearts-web", ["--port", "70000"], "--port must be in 0..65535"),
    ("hearts-web", ["--idle-minutes", "nan"], "--idle-minutes must be a number of minutes > 0, got nan"),
    ("hearts-web", ["--idle-minutes", "0"], "--idle-minutes must be"),
    ("hearts-web", ["--max-games", "0"], "--max-games must be >= 1"),
    ("hearts-web", ["--seed", "-1"], "--seed must be >= 0"),
    ("hearts-web", ["--host", "::1;"], "--host: '::1;' is not an address"),
    ("hearts-web", ["--policy-dir", "/no/such/folder"], "--policy-dir: no folder"),
    ("hearts-web", ["--replay", "/no/such/file.jsonl"], "--replay: /no/such/file.jsonl"),
    ("hearts-web", ["--bogus"], "unrecognized arguments: --bogus"),
    ("hearts-web", ["--max-sessions", "0"], "--max-sessions must be >= 1"),
    ("hearts-web", ["--db", "/no/such/folder/sessions.sqlite"], "--db: no folder /no/such/folder"),
    ("hearts-arena", ["--num-players", "2"], "rules: num_players must be in 3..7, got 2"),
    ("hearts-arena", ["--moon", "sideways"], "rules: moon must be one of"),
    ("hearts-arena", ["--pass-count", "99"], "rules: pass_count must be"),
    ("hearts-arena", ["--decks", "2"], "rules: "),
    ("hearts-arena", ["--episode", "game", "--target-score", "0"], "--episode game needs"),
    ("hearts-arena", ["--json", "/no/such/folder/x.json"], "--json: no folder"),
    ("hearts-train", ["--activation", "bogus"], "activation"),
    ("hearts-train", ["--critic", "oracle"], "critic: unknown 'oracle'; choose from observation, state"),
    ("hearts-train", ["--num-players", "9"], "num_players"),
    ("hearts-train", ["--resume", "MISSING"], "resume: no checkpoint.pt in MISSING"),
    ("hearts-train", ["--exp-name", "../../x"], "exp_name"),
    ("hearts-train", ["--opponents", "ppo", "--num-players", "5"], "agent 'ppo' cannot play"),
    ("hearts-train", ["--eval-opponent", "ppo", "--jack-of-diamonds"], "agent 'ppo' cannot play"),
    ("hearts-train", ["--bc-teacher", "ppo", "--num-players", "3", "--opponents", "random"], "agent 'ppo' cannot play"),
    ("hearts-train", ["--opponents", "random", "random"], "give 1 name or 3"),
    ("hearts-train", ["--total-timesteps", "lots"], "--total-timesteps"),
    ("hearts-train", ["--progress-bar", "maybe"], "--progress-bar"),
    ("hearts-train", ["--seed", "-1"], "seed must be >= 0"),
    ("hearts-train", ["--shards", "0"], "shards must be >= 1"),
    ("hearts-train", ["--shards", "9", "--num-envs", "8"], "shards must be at most num_envs (8), got 9"),
    ("hearts-train", ["--shards", "2", "--opponents", "self"], "opponents: self and league change in this process"),
    ("hearts-train", ["--ray", NOBODY], f"ray: {CANNOT_JOIN}"),
    ("python -m hearts_env.train.distill.expert_iteration", ["--ray", NOBODY], f"ray: {CANNOT_JOIN}"),
    ("python -m hearts_env.train.distill.expert_iteration", ["--workers", "0"], "workers must be >= 1"),
    ("python -m hearts_env.train.distill.expert_iteration", ["--inference", "maybe"], "inference must be one of"),
    ("python -m hearts_env.train.distill.belief", ["--hands", "0"], "hands must be >= 1"),
    ("python -m hearts_env.train.distill.belief", ["--agents", "nobody"], "unknown agent 'nobody'"),
    ("python -m hearts_env.train.distill.belief", ["--agents", "ppo", "--num-players", "5"], "agent 'ppo' cannot play"),
    ("python -m hearts_env.train.ppo.family", ["--tables", "4p-2d"], "table '4p-2d': "),
    ("python -m hearts_env.train.ppo.family", ["--tables", "3p", "3p"], "tables: a table is named twice: 3p 3p"),
    (
        "python -m hearts_env.train.ppo.family",
        ["--tables", "3p", "--opponents", "random", "random", "random"],
        "table 3p: opponents: give 1 name or 2",
    ),
    ("hearts-bench", ["--shards", "9", "--num-envs", "8"], "shards must be at most num_envs (8), got 9"),
    ("hearts-bench", ["--ray", NOBODY], CANNOT_JOIN),
    ("hearts-ladder", ["serve", "--port", "70000"], "--port must be in 0..65535, got 70000"),
    ("hearts-ladder", ["serve", "--time-limit", "nan"], "time_limit must be a positive number of seconds"),
    ("hearts-ladder", ["serve", "--house", "nobody"], "house agents ['nobody'] are not in the benchmark's pool"),
    ("hearts-ladder", ["serve", "--house", "", "--min-bots", "2"], "without house agents a table needs"),
    ("hearts-ladder", ["serve", "--db", "/no/such/folder/ladder.db"], "ladder database /no/such/folder/ladder.db"),
    ("hearts-ladder", ["add-bot", "a b"], "bot name 'a b'"),
    ("hearts-ladder", ["standings", "--db", "postgresql://nobody@127.0.0.1:1/x"], "ladder database postgresql://"),
    ("hearts-ladder", ["work", "--house", ""], "--house: a worker's matches need house agents"),
    ("hearts-bot", ["--connect", "nohost", "--token", "t"], "--connect 'nohost' is not HOST:PORT"),
    ("hearts-bot", ["--connect", "127.0.0.1:1"], "--connect and --token go together"),
]


@pytest.mark.parametrize(("command", "argv", "fragment"), CASES, ids=[f"{c} {' '.join(a)}" for c, a, _ in CASES])
def test_a_bad_command_line_is_refused_in_one_line(command, argv, fragment, capsys, tmp_path) -> None:
    refused(capsys, lambda: COMMANDS[command](argv, tmp_path), f"{command}: error:", fragment)
    assert not (tmp_path / "runs").exists()  # refused before any work: no run folder
