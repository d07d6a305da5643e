"""A belief model: where the cards a seat cannot see probably lie, read from its information set.

Uniform worlds plan as if the opponents had played and passed at random. The belief model is an
MLP trained by supervision on recorded games (``hearts_env.train.distill.belief``: the true
hands are the labels) among a mix of agents: from the observer's observation vector
(``hearts_env.engine.observation.encode``, the compact layout: every seat's played cards, the
current trick, the observer's passed and received cards, the known voids, ...) it gives for every
card the probability that each other seat holds it (a softmax over the seats, per card). A search
passes these marginals to the engine's world sampler (``hearts_env.engine.worlds.sample_worlds``,
``belief=``), which draws worlds weighted by them while keeping every hard fact.

It is saved in a policy folder (``belief.npz``: float32 arrays, no pickle; ``belief.json``: the
rules, the layers and how it was trained), read as untrusted files; the shipped one is
``agents/policies/belief``. It runs with numpy (its first layer with the compiled sparse kernel of
the trained policies), no torch.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hearts_env.agents.learned.mlp_kernels import SparseMLP
from hearts_env.agents.learned.trained import SHIPPED_DIR, check_knobs, read_arrays, read_model_meta
from hearts_env.engine.cards import NUM_CARDS
from hearts_env.engine.infoset import InfoSet
from hearts_env.engine.observation import LAYOUT_VERSION, ObservationLayout, encode
from hearts_env.engine.rules import HeartsRules

WEIGHTS_FILE = "belief.npz"
META_FILE = "belief.json"
FORMAT = "hearts-belief-v1"
"""The ``format`` entry of ``belief.json`` this loader reads."""
SHIPPED = SHIPPED_DIR / "belief"
"""The shipped belief model (trained at the standard 4-player table)."""
RULE_KNOBS = ("num_players", "decks", "jack_of_diamonds")
"""Rules knobs the observation layout depends on: a belief model refuses tables that differ in any."""
FLOOR = 1e-3
"""The least weight the sampler is given for a card at a seat that may hold it: the model is never
allowed to rule a consistent world out."""


class BeliefModel:
    """An MLP (ReLU hidden layers) from the observation vector (times ``scale``) to (P - 1) x 52
    logits: for each card, which other seat (relative 1 .. P - 1) holds it. ``layers`` are
    (weight (out, in), bias (out,)) pairs."""

    def __init__(self, rules: HeartsRules, scale: np.ndarray, layers: list[tuple[np.ndarray, np.ndarray]]) -> None:
        self.rules, self.layout, self.layers = rules, ObservationLayout(rules), layers
        self._mlp = SparseMLP(layers, scale=scale)

    @classmethod
    def load(cls, folder: str | Path = SHIPPED) -> BeliefModel:
        """The model saved in ``folder`` (``belief.json``, ``belief.npz``), read as untrusted files:
        ``ValueError`` naming the file and what is wrong."""
        folder = Path(folder)
        where = folder / META_FILE
        meta, rules, layers = read_model_meta("belief model", where, FORMAT)
        if meta.get("layout_version") != LAYOUT_VERSION:
            raise ValueError(
                f"belief model: {where}: observation layout {meta.get('layout_version')!r}, not {LAYOUT_VERSION}"
            )
        names = ["scale"] + [f"{layer}.{part}" for layer in layers for part in ("weight", "bias")]
        path = folder / WEIGHTS_FILE
        inputs = ObservationLayout(rules).size

        def check(shapes: dict[str, tuple[int, ...]]) -> None:
            if shapes["scale"] != (inputs,):
                raise ValueError(f"belief model: {path}: scale has shape {shapes['scale']}, not ({inputs},)")
            width = inputs
            for layer in layers:
                w, b = shapes[f"{layer}.weight"], shapes[f"{layer}.bias"]
                if len(w) != 2 or w[0] < 1 or w[1] != width or b != (w[0],):
                    raise ValueError(
                        f"belief model: {path}: layer {layer!r} has weight {w} and bias {b} after width {width}"
                    )
                width = w[0]
            if width != (rules.num_players - 1) * NUM_CARDS:
                raise ValueError(f"belief model: {path}: the last layer gives {width} numbers, not (P - 1) x 52")

        arrays = read_arrays(path, names, check)
        return cls(rules, arrays["scale"], [(arrays[f"{layer}.weight"], arrays[f"{layer}.bias"]) for layer in layers])

    def check_rules(self, rules: HeartsRules) -> None:
        """``ValueError`` unless ``rules`` agree with the training table in every ``RULE_KNOBS``."""
        check_knobs("the belief model", self.rules, rules, RULE_KNOBS)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """(B, P - 1, 52) float32: for each card, the logit of each other seat holding it."""
        return self._mlp(observations).reshape(len(observations), self.rules.num_players - 1, NUM_CARDS)

    def marginals(self, info: InfoSet) -> np.ndarray:
        """(B, P, 52) float64: the probability that each relative seat holds each card (column 0,
        the observer, all zeros), a softmax over the other seats per card. Only the cards the
        observer cannot place are meaningful."""
        self.check_rules(info.rules)
        z = self.logits(encode(info, self.layout)).astype(np.float64)
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        return np.concatenate([np.zeros((len(p), 1, NUM_CARDS)), p], axis=1)

    def weights(self, info: InfoSet) -> np.ndarray:
        """(B, P, 52): the world sampler's ``belief`` for ``info``: the marginals, at least
        ``FLOOR`` (the observer's own column 1: the sampler does not read it)."""
        w = np.maximum(self.marginals(info), FLOOR)
        w[:, 0] = 1.0
        return w

    def __repr__(self) -> str:
        return f"BeliefModel({[w.shape[0] for w, _ in self.layers]})"


INFERENCE = ("none", "belief")
"""What a search's ``inference=`` option takes: uniform worlds, or worlds drawn with the belief model."""


def belief_for(inference: str, path: str | Path | None = None) -> BeliefModel | None:
    """The belief model a search's ``inference`` option asks for (None for ``"none"``); ``path``:
    a folder holding one (default: the shipped one). ``ValueError`` for an unknown option."""
    if inference not in INFERENCE:
        raise ValueError(f"inference must be one of {', '.join(INFERENCE)}, got {inference!r}")
    return None if inference == "none" else BeliefModel.load(SHIPPED if path is None else path)
