"""Trained-policy folders written for the tests."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from hearts_env import HeartsRules
from hearts_env.agents.learned.trained import FORMAT, META_FILE, WEIGHTS_FILE
from hearts_env.engine.observation import LAYOUT_VERSION, ObservationLayout


def export(folder: Path, rules: HeartsRules, history: bool = False, scale: float = 0.01, seed: int = 0) -> Path:
    """A random one-hidden-layer policy exported in ``train/ppo/trainer.py``'s format."""
    folder.mkdir(parents=True, exist_ok=True)
    size = ObservationLayout(rules, history).size
    rng = np.random.default_rng(seed)
    arrays = {
        "input.scale": np.ones(size, np.float32),
        "h.weight": (rng.standard_normal((16, size)) * scale).astype(np.float32),
        "h.bias": np.zeros(16, np.float32),
        "out.weight": (rng.standard_normal((52, 16)) * scale).astype(np.float32),
        "out.bias": np.zeros(52, np.float32),
    }
    np.savez(folder / WEIGHTS_FILE, **arrays)
    meta = {
        "format": FORMAT,
        "layout_version": LAYOUT_VERSION,
        "rules": rules.to_dict(),
        "history": history,
        "obs_size": size,
        "net_arch": [16],
        "layers": ["h", "out"],
        "activation": "relu",
    }
    (folder / META_FILE).write_text(json.dumps(meta))
    return folder
