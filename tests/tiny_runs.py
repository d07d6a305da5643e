"""The settings of the training tests' tiny runs: a few rollouts of 8 tables, a small network,
short cloning, no progress bar. A test overrides what its run needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def tiny_run(run_dir: Path | str, **overrides: Any) -> dict[str, Any]:
    """A tiny PPO run's settings into ``run_dir`` (as keywords of ``PPOConfig`` and its kin)."""
    settings = dict(
        num_envs=8,
        total_timesteps=1024,
        n_steps=64,
        batch_size=256,
        net_arch="32,32",
        eval_deals=8,
        bc_decisions=2000,
        bc_epochs=1,
        run_dir=str(run_dir),
        progress_bar=False,
    )
    return settings | overrides
