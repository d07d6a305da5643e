"""A trained policy as an agent: the exported MLP of ``train/ppo.py`` run with numpy alone.

``train/ppo.py`` exports a run's policy network to ``policy.npz`` (plain float32 arrays, no
pickle) and ``policy.json`` (what the network expects: observation layout version, rules, net
shape, activation). ``TrainedPolicy(run_dir)`` loads them and plays any seat, batched: it encodes
each info set (``hearts_env.observation.encode``), scales it, runs the MLP forward, masks the illegal cards
and takes the highest logit, so it plays exactly as the SB3 model's deterministic
``predict(obs, action_masks=mask)``. No torch, no stable-baselines3.

```python
from agents.trained import TrainedPolicy
from hearts_env.arena import play_match
from agents import make_agent

trained = TrainedPolicy("runs/hearts_v0__ppo__1__1700000000")
field = make_agent("heuristic")
print(play_match(None, [("trained", trained), ("heuristic", field), ("heuristic", field), ("heuristic", field)],
                 deals=500, games="hand").table())
```
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from hearts_env.infoset import InfoSet
from hearts_env.observation import LAYOUT_VERSION, ObservationLayout, encode
from hearts_env.rules import HeartsRules

WEIGHTS_FILE = "policy.npz"
META_FILE = "policy.json"
FORMAT = "hearts-mlp-v1"
"""The ``format`` entry of ``policy.json`` this loader reads."""

SHIPPED_DIR = Path(__file__).parent / "policies"
"""Trained policies that come with the package, one folder each (``policies/ppo``: the ``ppo`` agent)."""

LAYOUT_KNOBS = ("num_players", "jack_of_diamonds")
"""Rules knobs the observation layout depends on: a saved policy refuses tables that differ in any."""

_ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0),
}
_MASKED = np.float32(-1e8)  # the logit sb3-contrib's MaskableCategorical gives illegal actions


class MLPPolicy:
    """An MLP over the observation vector that plays the legal card with the highest logit, or with
    ``sample=True`` draws one from the masked softmax (seeded). ``scale`` multiplies the
    observation first; ``layers`` are (weight (out, in), bias (out,)) pairs, the last giving the
    52 logits; ``activation`` (``tanh`` or ``relu``) follows every other layer."""

    def __init__(
        self,
        rules: HeartsRules,
        scale: np.ndarray,
        layers: list[tuple[np.ndarray, np.ndarray]],
        activation: str,
        sample: bool = False,
        seed: int | np.random.SeedSequence | None = None,
        history: bool = False,
    ) -> None:
        self.rules, self.layout = rules, ObservationLayout(rules, history)
        self.scale, self.layers, self.activation = scale, layers, _ACTIVATIONS[activation]
        self.sample = sample
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | np.random.SeedSequence | None) -> None:
        self.rng = np.random.default_rng(seed)

    def check_rules(self, rules: HeartsRules) -> None:
        """Raise ``ValueError`` if ``rules`` differ from the training rules in a layout knob."""
        for knob in LAYOUT_KNOBS:
            if getattr(rules, knob) != getattr(self.rules, knob):
                raise ValueError(
                    f"{self!r} was trained with {knob}={getattr(self.rules, knob)!r}, "
                    f"the table has {knob}={getattr(rules, knob)!r}"
                )

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """(B, 52) float32 action logits of (B, obs_size) observations (no mask)."""
        x = np.asarray(observations, np.float32) * self.scale
        *hidden, (w_out, b_out) = self.layers
        for w, b in hidden:
            x = self.activation(x @ w.T + b)
        return x @ w_out.T + b_out

    def act(self, observations: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(B,) int64: a legal card for each observation (the top logit, or a sample)."""
        logits = self.logits(observations)
        if self.sample:  # Gumbel-max: the argmax of logits plus Gumbel noise is a softmax sample
            logits = logits - np.log(-np.log(self.rng.random(logits.shape, np.float32) + 1e-20) + 1e-20)
        return np.where(np.asarray(mask, bool), logits, _MASKED).argmax(axis=1).astype(np.int64)

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        self.check_rules(info.rules)
        return self.act(encode(info, self.layout), mask)

    def __repr__(self) -> str:
        return f"MLPPolicy({[w.shape[0] for w, _ in self.layers]})"


class TrainedPolicy(MLPPolicy):
    """A policy exported by ``train/ppo.py``: ``path`` is the run folder (or the ``policy.npz`` /
    ``policy.json`` file in it). Plays its top card unless ``sample=True``.

    Raises ``ValueError`` naming the problem: a missing or corrupt file, an unknown format, layout
    version or activation, or layers whose shapes do not chain. Calling it on a table whose rules
    differ from the training rules in a layout knob (``LAYOUT_KNOBS``) raises ``ValueError`` too.
    """

    def __init__(self, path: str | Path, seed: int | None = None, sample: bool = False) -> None:
        folder = Path(path)
        if folder.suffix in (".npz", ".json"):
            folder = folder.parent
        self.path = folder
        self.meta = _load_meta(folder / META_FILE)
        rules = _rules(folder / META_FILE, self.meta)
        history = bool(self.meta.get("history", False))
        size = ObservationLayout(rules, history).size
        if size != self.meta["obs_size"]:
            raise ValueError(
                f"{folder / META_FILE}: obs_size {self.meta['obs_size']} does not match the layout of its rules "
                f"({size})"
            )
        scale, layers = _load_arrays(folder / WEIGHTS_FILE, self.meta)
        super().__init__(rules, scale, layers, self.meta["activation"], sample, seed, history)

    def __repr__(self) -> str:
        return f"TrainedPolicy({str(self.path)!r})"


def shipped_policy(name: str = "ppo", seed: int | None = None, sample: bool = False) -> TrainedPolicy:
    """The shipped policy ``name`` (a folder of ``SHIPPED_DIR``)."""
    return TrainedPolicy(SHIPPED_DIR / name, seed=seed, sample=sample)


def _load_meta(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise ValueError(f"trained policy: missing file {path}")
    try:
        meta = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"trained policy: corrupt file {path}: {error}") from None
    if not isinstance(meta, dict):
        raise ValueError(f"trained policy: corrupt file {path}: not a JSON object")
    missing = [k for k in ("format", "layout_version", "rules", "obs_size", "layers", "activation") if k not in meta]
    if missing:
        raise ValueError(f"trained policy: {path} lacks {', '.join(missing)}")
    if meta["format"] != FORMAT:
        raise ValueError(f"trained policy: {path} has format {meta['format']!r}, this loader reads {FORMAT!r}")
    if meta["layout_version"] != LAYOUT_VERSION:
        raise ValueError(
            f"trained policy: {path} was trained on observation layout version {meta['layout_version']}, "
            f"this hearts_env encodes version {LAYOUT_VERSION}"
        )
    if meta["activation"] not in _ACTIVATIONS:
        raise ValueError(f"trained policy: {path} has unknown activation {meta['activation']!r}")
    if not isinstance(meta["rules"], dict):
        raise ValueError(f"trained policy: {path}: rules must be an object of HeartsRules knobs")
    return meta


def _rules(path: Path, meta: dict[str, Any]) -> HeartsRules:
    knobs = {k: tuple(v) if isinstance(v, list) else v for k, v in meta["rules"].items()}
    try:
        rules = HeartsRules(**knobs)
    except (TypeError, ValueError) as error:
        raise ValueError(f"trained policy: {path} has invalid rules: {error}") from None
    if meta.get("num_players", rules.num_players) != rules.num_players:
        raise ValueError(
            f"trained policy: {path} says num_players={meta['num_players']} but its rules have {rules.num_players}"
        )
    return rules


def _load_arrays(path: Path, meta: dict[str, Any]) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """The input scale and the (weight, bias) pairs named in ``meta["layers"]``, checked to chain
    from the observation size to 52 logits."""
    if not path.is_file():
        raise ValueError(f"trained policy: missing file {path}")
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in npz.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        raise ValueError(f"trained policy: corrupt file {path}: {error}") from None
    scale = arrays.get("input.scale")
    if scale is None or scale.shape != (meta["obs_size"],):
        shape = None if scale is None else scale.shape
        raise ValueError(f"trained policy: {path}: input.scale must have shape ({meta['obs_size']},), got {shape}")
    layers, width = [], meta["obs_size"]
    for name in meta["layers"]:
        w, b = arrays.get(f"{name}.weight"), arrays.get(f"{name}.bias")
        if w is None or b is None:
            raise ValueError(f"trained policy: {path} lacks the arrays of layer {name!r}")
        if w.ndim != 2 or w.shape[1] != width or b.shape != (w.shape[0],):
            raise ValueError(
                f"trained policy: {path}: layer {name!r} has weight {w.shape} and bias {b.shape}, "
                f"expected (n, {width}) and (n,)"
            )
        layers.append((w.astype(np.float32), b.astype(np.float32)))
        width = w.shape[0]
    if not layers or width != 52:
        raise ValueError(f"trained policy: {path}: the last layer must give 52 logits, got {width}")
    return scale.astype(np.float32), layers
