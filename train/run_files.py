"""What both trainers (``hearts_env.train.ppo``, ``hearts_env.train.libraries.rllib_ppo``) write and
measure the same way: the run folder, the exported policy (``hearts_env.agents.learned.trained``'s
format) and the arena evaluation."""

from __future__ import annotations

import contextlib
import json
import shutil
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from hearts_env.agents.learned.trained import FORMAT, META_FILE, WEIGHTS_FILE
from hearts_env.agents.specs import agent_from_spec
from hearts_env.arena import play_match
from hearts_env.engine.observation import LAYOUT_VERSION, ObservationLayout
from hearts_env.engine.rules import HeartsRules
from hearts_env.play.policy import Policy

ENV_ID = "hearts_v0"


def make_run_folder(run_dir: str, exp_name: str, seed: int) -> Path:
    """A new folder ``{run_dir}/{env}__{exp_name}__{seed}__{time}`` (``exp_name`` is a plain name,
    so it stays inside ``run_dir``); ``ValueError`` if it cannot be made."""
    folder = Path(run_dir) / f"{ENV_ID}__{exp_name}__{seed}__{int(time.time())}"
    try:
        folder.mkdir(parents=True, exist_ok=False)
    except OSError as error:
        raise ValueError(f"run_dir: cannot make the run folder {folder}: {error.strerror or error}") from None
    return folder


@contextlib.contextmanager
def removed_on_failure(folder: Path) -> Iterator[None]:
    """The run folder just made is removed again, with what was written into it, if what runs
    inside fails: a run that stops before its training starts leaves nothing behind."""
    try:
        yield
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def write_policy(
    folder: Path,
    arrays: Mapping[str, np.ndarray],
    names: list[str],
    rules: HeartsRules,
    hidden: list[int],
    activation: str,
    trained_on: dict[str, Any],
    trick_outcomes: bool = False,
) -> None:
    """``policy.npz`` (the input scale and each layer's weight and bias) and ``policy.json``; the
    observation is the compact layout, with ``trick_outcomes`` its sections of that name."""
    np.savez(folder / WEIGHTS_FILE, **arrays)
    meta = {
        "format": FORMAT,
        "layout_version": LAYOUT_VERSION,
        "num_players": rules.num_players,
        "rules": rules.to_dict(),
        "history": False,
        "trick_outcomes": trick_outcomes,
        "obs_size": ObservationLayout(rules, trick_outcomes=trick_outcomes).size,
        "net_arch": hidden,
        "layers": names,
        "activation": activation,
        "trained_on": trained_on | {"run": folder.name},
    }
    (folder / META_FILE).write_text(json.dumps(meta, indent=2) + "\n")


def evaluate_policy(policy: Policy, rules: HeartsRules, opponent: str, deals: int, seed: int) -> dict[str, float]:
    """The policy against ``opponent`` agents (a spec) at the other seats on ``deals`` duplicate
    hands, as ``charts/`` scalars."""
    field = agent_from_spec(opponent, seed)
    entries = [("trained", policy)] + [(opponent, field)] * (rules.num_players - 1)
    result = play_match(rules, entries, deals=deals, seed=seed, episode="hand")
    points, diff = result.estimate("trained"), result.difference("trained")
    return {
        "charts/eval_points_per_hand": points.mean,
        "charts/eval_points_per_hand_ci": points.half_width,
        "charts/eval_diff_vs_field": diff.mean,
        "charts/eval_diff_vs_field_ci": diff.half_width,
        "charts/eval_win_rate": result.estimate("trained", "win_rate").mean,
    }
