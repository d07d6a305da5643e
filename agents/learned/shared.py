"""One network for every table of the family (the ``ppo-one`` agent; ``pimc-ppo-one`` searches
with it): a single MLP that reads every table through one observation, the rules among its inputs.

The observation it reads (``SharedLayout``) is the layout of the largest of its tables with the
trick's outcomes (``hearts_env.engine.observation.ObservationLayout``: the most players, two decks
if a table has them, the JD if one plays it), followed by the rules as features: the player count
(one of its tables'), the JD rule and, where some table has two decks, the number of decks. A
smaller table's observation is written into it seat by seat (``SharedInput``): the observer and
the seats after it in their own places, its right-hand neighbour in the last, the seats and
sections the table lacks left at zero, each table's counts scaled as its own layout scales them.

The first layer is linear and the sections a table lacks are zero, so at one table the network is
an ordinary MLP over that table's own observation: the first layer's columns of the table's
entries, its bias plus the columns of the table's rules (``table_network``). The agent is a
``TableFamily`` of those, one per table it was trained for; every other table is refused in one
line. It plays as fast as a network per table and searches with ``pimc-ppo``'s machinery as they do.

A folder holds ``policy.npz`` (the layers' float32 arrays) and ``policy.json``: ``format``
(``SHARED_FORMAT``), ``layout_version``, ``tables`` (keys: ``5p``, ``4p-jd``, ``8p-2d``),
``layers``, ``activation``, ``weights_hash`` (``hashing.arrays_hash`` of the layers, checked on
load) and how it was made (``trained_on``). Both are read as untrusted files
(``trained.read_meta``, ``trained.read_arrays``): any problem is one ``ValueError`` naming the
file. ``export`` writes one (``studies/one_network.py --save``).

```python
from hearts_env.agents import make_agent
from hearts_env.arena import play_match
from hearts_env.rules import HeartsRules

one, field = make_agent("ppo-one"), make_agent("heuristic")
rules = HeartsRules(num_players=8, decks=2)
print(play_match(rules, [("ppo-one", one)] + [("heuristic", field)] * 7, deals=10, episode="hand").table())
```
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hearts_env.agents.learned.family import TableFamily, table_rules
from hearts_env.agents.learned.hashing import arrays_hash
from hearts_env.agents.learned.trained import (
    ACTIVATIONS,
    META_FILE,
    SHIPPED_DIR,
    WEIGHTS_FILE,
    MLPPolicy,
    as_path,
    check_layer_chain,
    read_arrays,
    read_meta,
)
from hearts_env.engine.observation import LAYOUT_VERSION, ObservationLayout
from hearts_env.engine.rules import HeartsRules
from hearts_env.play.policy import Policy

SHARED_FORMAT = "hearts-mlp-shared-v1"
"""The ``format`` entry of a shared network's ``policy.json``."""
SHIPPED_ONE = SHIPPED_DIR / "ppo-one"
"""The shipped network of the ``ppo-one`` agent."""
_MAX_LAYERS = 16


class SharedLayout:
    """The observation the network of ``tables`` (keys) reads: ``layout``, that of their largest
    table with the trick's outcomes, then the rules as features (``size`` numbers in all)."""

    def __init__(self, tables: Sequence[str]) -> None:
        rules = [table_rules(key) for key in tables]
        self.tables = list(dict.fromkeys(tables))
        self.counts = sorted({r.num_players for r in rules})
        largest = HeartsRules(
            num_players=self.counts[-1],
            decks=max(r.decks for r in rules),
            jack_of_diamonds=any(r.jack_of_diamonds for r in rules),
        )
        self.layout = ObservationLayout(largest, trick_outcomes=True)
        self.size = self.layout.size + len(self.counts) + 1 + (largest.decks == 2)


class SharedInput:
    """Table ``rules``' observations (its ``layout``, with the trick's outcomes) as the network of
    ``shared`` reads them: ``index`` places each entry, ``scale`` scales the whole input and
    ``rules_features`` are the inputs after the observation."""

    def __init__(self, rules: HeartsRules, shared: SharedLayout) -> None:
        self.layout, self.shared = ObservationLayout(rules, trick_outcomes=True), shared
        slot = np.arange(rules.num_players)
        slot[-1] = shared.layout.rules.num_players - 1  # the right-hand neighbour: the last seat
        self.index = np.empty(self.layout.size, np.int64)
        for name, (where, shape) in self.layout.sections.items():
            to, to_shape = shared.layout.sections[name]
            places = np.arange(to.start, to.stop).reshape(to_shape)
            self.index[where] = (places if shape == to_shape else places[slot]).ravel()
        self.scale = np.ones(shared.size, np.float32)
        self.scale[self.index] = self.layout.scale()
        self.rules_features = np.zeros(shared.size - shared.layout.size, np.uint8)
        self.rules_features[shared.counts.index(rules.num_players)] = 1
        self.rules_features[len(shared.counts)] = rules.jack_of_diamonds
        if shared.layout.rules.decks == 2:
            self.rules_features[-1] = rules.decks == 2

    def counts(self, observations: np.ndarray) -> np.ndarray:
        """(B, shared.size) uint8: (B, layout.size) observations of the table, unscaled, placed."""
        x = np.zeros((len(observations), self.shared.size), np.uint8)
        x[:, self.index] = observations
        x[:, self.shared.layout.size :] = self.rules_features
        return x


def table_network(
    key: str,
    shared: SharedLayout,
    layers: list[tuple[np.ndarray, np.ndarray]],
    activation: str,
    sample: bool = False,
    seed: int | np.random.SeedSequence | None = None,
) -> MLPPolicy:
    """The network of ``layers`` at table ``key`` as an MLP over the table's own observation:
    the same logits as the whole network on the placed input (``SharedInput``)."""
    rules = table_rules(key)
    into = SharedInput(rules, shared)
    weight, bias = layers[0]
    rules_part = weight[:, shared.layout.size :] @ into.rules_features.astype(np.float32)
    first = (np.ascontiguousarray(weight[:, into.index]), (bias + rules_part).astype(np.float32))
    return MLPPolicy(rules, into.layout.scale(), [first, *layers[1:]], activation, sample, seed, trick_outcomes=True)


def read_shared(path: str | Path) -> tuple[dict[str, Any], SharedLayout, list[tuple[np.ndarray, np.ndarray]]]:
    """The shared network of the folder ``path``: its ``policy.json`` entries, the layout it reads
    and its layers, every file checked (``ValueError`` naming the file and what is wrong)."""
    folder = as_path("shared network", path, "a folder")
    meta = read_meta(folder / META_FILE)
    shared, layers = _check_meta(folder / META_FILE, meta), meta["layers"]
    names = [f"{layer}.{part}" for layer in layers for part in ("weight", "bias")]
    check = lambda shapes: check_layer_chain("shared network", folder / WEIGHTS_FILE, layers, shapes, shared.size)  # noqa: E731
    arrays = read_arrays(folder / WEIGHTS_FILE, names, check)
    weights = [(arrays[f"{layer}.weight"], arrays[f"{layer}.bias"]) for layer in layers]
    if arrays_hash(meta["activation"], [a for layer in weights for a in layer]) != meta["weights_hash"]:
        raise ValueError(f"shared network: {folder / WEIGHTS_FILE}: its weights do not match the hash {META_FILE} pins")
    return meta, shared, weights


def load_shared(
    path: str | Path,
    name: str,
    make: Callable[[MLPPolicy], Policy] = lambda network: network,
    seed: int | np.random.SeedSequence | None = None,
    sample: bool = False,
) -> TableFamily:
    """The shared network of the folder ``path`` as a ``TableFamily`` called ``name``: at each of
    its tables ``make(table_network(...))`` (the network itself, or a search guided by it)."""
    meta, shared, weights = read_shared(path)
    members = {key: make(table_network(key, shared, weights, meta["activation"], sample)) for key in shared.tables}
    return TableFamily(name, members, seed)


def _check_meta(path: Path, meta: dict[str, Any]) -> SharedLayout:
    """The layout of ``policy.json``'s tables, after checking every entry the loader uses."""
    if meta.get("format") != SHARED_FORMAT:
        raise ValueError(f"shared network: {path}: format {meta.get('format')!r}, this loader reads {SHARED_FORMAT!r}")
    if meta.get("layout_version") != LAYOUT_VERSION:
        raise ValueError(
            f"shared network: {path}: trained on observation layout version {meta.get('layout_version')!r:.20}, "
            f"this hearts_env encodes version {LAYOUT_VERSION}"
        )
    if meta.get("activation") not in ACTIVATIONS:
        raise ValueError(f"shared network: {path}: unknown activation {meta.get('activation')!r:.40}")
    layers, tables = meta.get("layers"), meta.get("tables")
    if not isinstance(layers, list) or not 0 < len(layers) <= _MAX_LAYERS or len(set(map(str, layers))) != len(layers):
        raise ValueError(f"shared network: {path}: layers must be 1..{_MAX_LAYERS} distinct layer names")
    if not all(isinstance(layer, str) for layer in layers) or not isinstance(meta.get("weights_hash"), str):
        raise ValueError(f"shared network: {path}: layers must be names and weights_hash a string")
    if not isinstance(tables, list) or not tables or not all(isinstance(key, str) for key in tables):
        raise ValueError(f"shared network: {path}: tables must be a non-empty list of table keys")
    try:
        return SharedLayout(tables)
    except ValueError as error:
        raise ValueError(f"shared network: {path}: {error}") from None


def export(
    folder: str | Path,
    tables: Sequence[str],
    layers: list[tuple[np.ndarray, np.ndarray]],
    activation: str = "relu",
    trained_on: dict[str, Any] | None = None,
) -> Path:
    """Write the network of ``layers`` (its first layer reading ``SharedLayout(tables)``) to
    ``folder`` as ``load_shared`` reads it; the folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    weights = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
    if weights[0][0].shape[1] != SharedLayout(tables).size:
        raise ValueError(f"the first layer reads {weights[0][0].shape[1]} inputs, the tables' layout has another size")
    names = [f"layer{i}" for i in range(len(weights))]
    arrays = {f"{name}.weight": w for name, (w, _) in zip(names, weights, strict=True)}
    arrays |= {f"{name}.bias": b for name, (_, b) in zip(names, weights, strict=True)}
    np.savez(folder / WEIGHTS_FILE, **arrays)
    meta = {
        "format": SHARED_FORMAT,
        "layout_version": LAYOUT_VERSION,
        "tables": list(dict.fromkeys(tables)),
        "layers": names,
        "activation": activation,
        "weights_hash": arrays_hash(activation, [a for pair in weights for a in pair]),
        "trained_on": trained_on or {},
    }
    (folder / META_FILE).write_text(json.dumps(meta, indent=2) + "\n")
    return folder


def shipped_one(
    seed: int | np.random.SeedSequence | None = None, sample: bool = False, path: str | Path | None = None
) -> TableFamily:
    """The ``ppo-one`` agent: the shipped shared network (or the one in ``path=``) at every table
    it was trained for, playing its top card (or sampling, ``sample=True``)."""
    return load_shared(SHIPPED_ONE if path is None else path, "ppo-one", seed=seed, sample=sample)
