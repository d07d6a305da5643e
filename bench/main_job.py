"""The main job: train a small agent, then measure it and the shipped agent against the baselines.

1. ``hearts_env.train.trainer.main``: behaviour cloning of the heuristic (2M decisions, 4 epochs), then 4.5M
   steps of MaskablePPO against three heuristic players with the ``zero_sum`` reward (about 8
   minutes on 2 quiet CPU cores);
2. the arena: each candidate (the agent just trained, and the shipped agent ``ppo``) against three
   copies of each baseline on duplicate single hands, 95% intervals over deals;
3. the table on stdout; in the run folder ``benchmark.json``, ``learning_curve.png`` (the periodic
   evaluations) and ``points_by_opponent.png``;
4. ``hearts-bench``: the agent just trained on the quick setting of every track of suite
   ``bench_suite`` it can play (test split), its table on stdout and its report in ``bench/``
   (``hearts-bench compare`` pairs it with any other report of that suite and setting).

    python -m hearts_env.bench.main_job                      # what `make run` runs
    python -m hearts_env.bench.main_job --total-timesteps 100000 --bc-decisions 200000 --deals 100   # a quick look

Every flag of ``hearts_env.train.ppo`` applies (``--help`` lists them with their defaults here), the rules
flags included. The baselines, and the shipped agent unless ``--shipped false``, must be able to
play the rules: that is checked, with every setting, before the training starts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hearts_env.agents import AGENTS, make_agent
from hearts_env.agents.learned.trained import TrainedPolicy
from hearts_env.agents.specs import check_agents
from hearts_env.arena import Estimate, play_match
from hearts_env.bench import run as run_bench
from hearts_env.bench.bench_report import format_report
from hearts_env.bench.suite import load_suite
from hearts_env.train.config import StartError, check_at_least, check_choice, parse_config
from hearts_env.train.ppo import trainer


@dataclass
class MainJobConfig(trainer.PPOConfig):
    exp_name: str = "main"
    """the name of this experiment (part of the run folder's name)"""
    reward: str = "zero_sum"
    """reward mode of HeartsVectorEnv: points, hand, zero_sum or win (zero_sum: the others' mean
    hand score minus one's own, what the benchmark's "minus the field" measures)"""
    total_timesteps: int = 4_500_000
    """learner decisions to train on"""
    bc_decisions: int = 2_000_000
    """teacher decisions recorded for behaviour cloning"""
    bc_epochs: int = 4
    """behaviour-cloning passes over the recorded decisions"""
    eval_deals: int = 300
    """duplicate deals per evaluation (each played once per seat rotation, one hand each)"""
    baselines: list[str] = field(default_factory=lambda: ["random", "simple", "heuristic", "pimc"])
    """the opponents of the final evaluation: each candidate meets three copies of each"""
    deals: int = 1000
    """duplicate deals per evaluation match"""
    pimc_deals: int = 100
    """duplicate deals per evaluation match against PIMC (about 20 hands a second)"""
    shipped: bool = True
    """also evaluate the shipped agent (ppo)"""
    bench_suite: str = "v1"
    """the hearts-bench suite (a version or a suite file) whose quick tracks measure the new agent ('': none)"""

    def check(self) -> None:
        super().check()
        for name in self.baselines:
            check_choice("baselines", name, tuple(AGENTS))
        if not self.baselines:
            raise ValueError("baselines: name at least one agent")
        check_at_least("deals", self.deals, 1)
        check_at_least("pimc_deals", self.pimc_deals, 1)


def evaluate(candidates: dict[str, Any], config: MainJobConfig) -> dict[str, dict[str, Any]]:
    """Each candidate against three of each baseline: ``{candidate: {baseline: match summary}}``."""
    rules = config.rules
    out: dict[str, dict[str, Any]] = {}
    for name, agent in candidates.items():
        out[name] = {}
        for opponent in config.baselines:
            field_agent = make_agent(opponent, seed=config.seed)
            entries = [(name, agent)] + [(opponent, field_agent)] * (rules.num_players - 1)
            deals = config.pimc_deals if opponent.startswith("pimc") else config.deals
            result = play_match(
                rules, entries, deals=deals, seed=config.seed, episode="hand", progress=config.progress_bar
            )
            out[name][opponent] = result.summary()
    return out


def format_results(results: dict[str, dict[str, Any]]) -> str:
    """One row per candidate and baseline: points per hand of each side and the difference, 95% intervals."""
    lines = [f"{'candidate':<10} {'vs 3 x':<10} {'deals':>6}  {'points/hand':>13}  {'field':>13}  {'difference':>15}"]
    for name, matches in results.items():
        for opponent, summary in matches.items():
            agents = summary["agents"]
            mine, theirs = agents[name]["points_per_hand"], agents[opponent]["points_per_hand"]
            diff = agents[name]["vs_field"]["points_per_hand"]
            mark = " *" if diff["high"] < 0 or diff["low"] > 0 else "  "
            row = f"{name:<10} {opponent:<10} {summary['deals']:>6}  {_pm(mine):>13}  {_pm(theirs):>13}"
            lines.append(f"{row}  {_pm(diff)}{mark}")
    lines.append("points per hand, lower is better; * the difference's 95% interval excludes 0")
    return "\n".join(lines)


def _pm(estimate: dict[str, Any]) -> str:
    return f"{estimate['mean']:6.2f} ± {Estimate.from_dict(estimate).half_width:.2f}"


def plot_learning_curve(history: list[dict[str, float]], path: Path) -> None:
    """Evaluation points per hand of the learner and of its opponents over training, with 95% bands."""
    from matplotlib.figure import Figure

    steps = [h["timesteps"] for h in history]
    mine = [h["charts/eval_points_per_hand"] for h in history]
    ci = [h["charts/eval_points_per_hand_ci"] for h in history]
    field_points = [m - h["charts/eval_diff_vs_field"] for m, h in zip(mine, history, strict=True)]
    fig = Figure(figsize=(6.5, 4), layout="constrained")
    ax = fig.subplots()
    ax.plot(steps, mine, "o-", label="learner")
    ax.fill_between(
        steps,
        [m - c for m, c in zip(mine, ci, strict=True)],
        [m + c for m, c in zip(mine, ci, strict=True)],
        alpha=0.25,
    )
    ax.plot(steps, field_points, "s--", label="its opponents (mean)")
    ax.set_xlabel("learner timesteps")
    ax.set_ylabel("points per hand (lower is better)")
    ax.set_title("evaluation on duplicate hands, 95% intervals")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.savefig(path, dpi=120)


def plot_by_opponent(results: dict[str, dict[str, Any]], path: Path) -> None:
    """Each candidate's points per hand against each baseline (95% intervals), the field's beside it."""
    from matplotlib.figure import Figure

    first = next(iter(results))
    opponents = list(results[first])
    # One bar series per candidate, then the opponents' own points in the first candidate's matches.
    series = [
        (name, [matches[o]["agents"][name]["points_per_hand"] for o in opponents], {})
        for name, matches in results.items()
    ]
    field_points = [results[first][o]["agents"][o]["points_per_hand"] for o in opponents]
    series.append((f"the opponents (in {first}'s matches)", field_points, {"color": "lightgray"}))
    fig = Figure(figsize=(1.6 + 1.6 * len(opponents) * len(results), 4), layout="constrained")
    ax = fig.subplots()
    width = 0.8 / len(series)
    for k, (label, est, style) in enumerate(series):
        xs = [i + (k - len(results) / 2) * width for i in range(len(opponents))]
        yerr = [Estimate.from_dict(e).half_width for e in est]
        ax.bar(xs, [e["mean"] for e in est], width, yerr=yerr, capsize=3, label=label, **style)
    ax.set_xticks(range(len(opponents)), [f"vs 3 {o}" for o in opponents])
    ax.set_ylabel("points per hand (lower is better)")
    ax.set_title("single hands on duplicate deals, 95% intervals")
    ax.grid(axis="y", alpha=0.3)
    ax.legend()
    fig.savefig(path, dpi=120)


def main(config: MainJobConfig) -> Path:
    """Train, evaluate, print the table, write the results and plots; returns the run folder.
    Raises ``StartError`` before the training if a baseline or the shipped agent cannot play
    the rules (or the training cannot start)."""
    candidates: dict[str, Any] = {"ppo": make_agent("ppo")} if config.shipped else {}
    try:
        check_agents(config.rules, [*candidates.items(), *((b, make_agent(b)) for b in config.baselines)])
        if config.bench_suite:
            load_suite(config.bench_suite)
    except ValueError as error:
        raise StartError(str(error)) from None
    folder = trainer.main(config)
    candidates = {"new": TrainedPolicy(folder), **candidates}
    results = evaluate(candidates, config)
    (folder / "benchmark.json").write_text(json.dumps(results, indent=2) + "\n")
    plot_learning_curve(json.loads((folder / "eval.json").read_text()), folder / "learning_curve.png")
    plot_by_opponent(results, folder / "points_by_opponent.png")
    throughput = json.loads((folder / "train.json").read_text())["throughput"]
    print(format_results(results))
    if throughput["steps_per_second"] is not None:  # None: resumed at its last timestep, nothing trained
        print(
            f"training: {throughput['steps_per_second']:,.0f} steps/s overall (collection "
            f"{throughput['collect_steps_per_second']:,.0f}, update {throughput['update_steps_per_second']:,.0f})"
        )
    if config.bench_suite:
        spec = f"trained:path={folder}"
        report = run_bench(
            spec,
            version=config.bench_suite,
            split="test",
            quick=True,
            name="new",
            out=folder / "bench",
            progress=config.progress_bar,
            command=f"hearts-bench run {spec} --suite {config.bench_suite} --split test --quick --name new",
        )
        print("\n" + format_report(report) + "\n")
    outputs = "benchmark.json, bench/, learning_curve.png, points_by_opponent.png, TensorBoard logs"
    print(f"run folder: {folder} ({outputs})")
    return folder


def parse_args(argv: Sequence[str] | None = None) -> MainJobConfig:
    """A ``MainJobConfig`` from command-line flags."""
    return parse_config(MainJobConfig, argv, "hearts-main-job", __doc__.split("\n\n")[0])


if __name__ == "__main__":
    from hearts_env.bench.cli import main_job

    main_job()
