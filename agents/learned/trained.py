"""A trained policy as an agent: the exported MLP of ``train/ppo/trainer.py`` run without torch.

``train/ppo/trainer.py`` exports a run's policy network to ``policy.npz`` (plain float32 arrays, no
pickle) and ``policy.json`` (what the network expects: observation layout version, rules, net
shape, activation). ``TrainedPolicy(run_dir)`` loads them and plays any seat, batched: it encodes
each info set (``hearts_env.engine.observation.encode``), scales it, runs the MLP forward (the first layer
by a compiled kernel that skips the observation's zeros, ``hearts_env.agents.learned.mlp_kernels``; the others
with numpy), masks the illegal cards and takes the highest logit, so it plays as the SB3 model's
deterministic ``predict(obs, action_masks=mask)``. No torch, no stable-baselines3.

```python
from hearts_env.agents.learned.trained import TrainedPolicy
from hearts_env.arena import play_match
from hearts_env.agents import make_agent

trained = TrainedPolicy("runs/hearts_v0__ppo__1__1700000000")
field = make_agent("heuristic")
print(play_match(None, [("trained", trained), ("heuristic", field), ("heuristic", field), ("heuristic", field)],
                 deals=500, episode="hand").table())
```
"""

from __future__ import annotations

import json
import lzma
import os
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from hearts_env.agents.learned.mlp_kernels import SparseMLP, relu
from hearts_env.engine import checks, seeding
from hearts_env.engine.infoset import InfoSet
from hearts_env.engine.observation import LAYOUT_VERSION, ObservationLayout, encode
from hearts_env.engine.rules import HeartsRules

WEIGHTS_FILE = "policy.npz"
META_FILE = "policy.json"
FORMAT = "hearts-mlp-v1"
"""The ``format`` entry of ``policy.json`` this loader reads."""

SHIPPED_DIR = Path(__file__).resolve().parent.parent / "policies"
"""Trained policies that come with the package, one folder each (``agents/policies/ppo``: the ``ppo`` agent)."""

LAYOUT_KNOBS = ("num_players", "jack_of_diamonds", "decks")
"""Rules knobs the observation layout depends on: a saved policy refuses tables that differ in any."""

MAX_META_BYTES = 1_000_000
"""The largest ``policy.json`` read (the exported ones hold about 1 KB)."""
MAX_PARAMETERS = 2**25
"""The most numbers the arrays of one policy may hold (128 MB of float32; the shipped one: 275,000)."""
_MAX_LAYERS = 64
_ARCHIVE_ERRORS = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, OSError, EOFError, RuntimeError, NotImplementedError)
"""What reading a damaged, encrypted or oddly compressed zip member can raise."""
_READERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
_Header = tuple[tuple[int, ...], bool, np.dtype, int]  # shape, Fortran order, dtype, data offset


ACTIVATIONS = {"tanh": np.tanh, "relu": relu}
"""The hidden activations an exported policy may use (module-level functions: a policy pickles, for
process pools and Ray)."""


def masked_argmax(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(B,) int64: the legal card (``mask`` (B, 52)) with the highest score, never a card outside
    the mask, whatever the scores: a NaN counts lowest, and a row whose legal scores are all NaN
    or -inf (weights that overflow) gets its lowest legal card."""
    mask = np.asarray(mask, bool)
    best = np.where(mask & ~np.isnan(scores), scores, -np.inf).argmax(axis=1)
    stuck = ~mask[np.arange(len(best)), best]
    if stuck.any():
        best[stuck] = mask[stuck].argmax(axis=1)
    return best.astype(np.int64)


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(B, 52) softmax of ``logits`` over the legal cards of ``mask``; 0 for the others (and in
    a row without legal cards)."""
    z = np.where(mask, logits, np.float32(-1e30))
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True) * mask


def check_knobs(trained: str, trained_rules: HeartsRules, rules: HeartsRules, knobs: tuple[str, ...]) -> None:
    """``ValueError`` naming the first of ``knobs`` in which the table ``rules`` differ from the
    rules ``trained`` (a network, a value head) was trained with."""
    for knob in knobs:
        if getattr(rules, knob) != getattr(trained_rules, knob):
            raise ValueError(
                f"{trained} was trained with {knob}={getattr(trained_rules, knob)!r}, "
                f"the table has {knob}={getattr(rules, knob)!r}"
            )


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
        trick_outcomes: bool = False,
    ) -> None:
        self.rules, self.layout = rules, ObservationLayout(rules, history, trick_outcomes)
        self.activation = ACTIVATIONS[activation]
        self.set_weights(scale, layers)
        self.sample = checks.flag("sample", sample)
        self.rng = seeding.generator(seed)

    def seed(self, seed: int | np.random.SeedSequence | None) -> None:
        self.rng = seeding.generator(seed)

    def check_rules(self, rules: HeartsRules) -> None:
        """Raise ``ValueError`` if ``rules`` differ from the training rules in a layout knob."""
        check_knobs(repr(self), self.rules, rules, LAYOUT_KNOBS)

    def set_weights(self, scale: np.ndarray, layers: list[tuple[np.ndarray, np.ndarray]]) -> None:
        """Play with these weights (``scale`` and ``layers`` as the class describes)."""
        self.scale, self.layers = scale, layers
        if layers:  # (a Snapshot has none until it loads them)
            self._mlp = SparseMLP(layers, self.activation, scale)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """(B, 52) float32 action logits of (B, obs_size) observations (no mask)."""
        return self._mlp(observations)

    def act(self, observations: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(B,) int64: a legal card for each observation (the top logit, or a sample)."""
        logits = self.logits(observations)
        if self.sample:  # Gumbel-max: the argmax of logits plus Gumbel noise is a softmax sample
            logits = logits - np.log(-np.log(self.rng.random(logits.shape, np.float32) + 1e-20) + 1e-20)
        return masked_argmax(logits, mask)

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        self.check_rules(info.rules)
        return self.act(encode(info, self.layout), mask)

    @property
    def hidden(self) -> list[int]:
        """The hidden layers' widths."""
        return [w.shape[0] for w, _ in self.layers[:-1]]

    def probabilities(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        """(B, 52) float32: the network's probability of each legal card (its softmax over the
        legal cards; 0 for the others), e.g. for a hint of what it would play."""
        self.check_rules(info.rules)
        return masked_softmax(self.logits(encode(info, self.layout)), np.asarray(mask, bool))

    def __repr__(self) -> str:
        return f"MLPPolicy({[w.shape[0] for w, _ in self.layers]})"


class TrainedPolicy(MLPPolicy):
    """A policy exported by ``train/ppo/trainer.py``: ``path`` is the run folder (or the ``policy.npz`` /
    ``policy.json`` file in it). Plays its top card unless ``sample=True``.

    The files are treated as untrusted: ``policy.json`` is read only up to ``MAX_META_BYTES`` and
    checked entry by entry; the names, dtypes and shapes of the arrays are read from the headers
    of ``policy.npz`` and checked against ``policy.json`` (float32, layers chaining from the
    observation size to 52 logits, at most ``MAX_PARAMETERS`` numbers in all) before any array is
    read, and only the arrays it names are read. Any problem raises one ``ValueError`` naming the
    file and what is wrong. Calling it on a table whose rules differ from the training rules in a
    layout knob (``LAYOUT_KNOBS``) raises ``ValueError`` too.
    """

    def __init__(self, path: str | Path, seed: int | None = None, sample: bool = False) -> None:
        folder = as_path("trained policy", path, "a run folder or file")
        if folder.suffix in (".npz", ".json"):
            folder = folder.parent
        self.path = folder
        self.meta = _load_meta(folder / META_FILE)
        rules = HeartsRules.from_dict(self.meta["rules"])  # checked by _load_meta
        scale, layers = _load_arrays(folder / WEIGHTS_FILE, self.meta)
        meta = self.meta
        super().__init__(
            rules, scale, layers, meta["activation"], sample, seed, meta["history"], meta["trick_outcomes"]
        )
        if self.meta.get("net_arch", self.hidden) != self.hidden:  # optional; the arrays' shapes decide
            raise _refuse(
                folder / META_FILE,
                f"net_arch {self.meta['net_arch']!r:.80} disagrees with the arrays' hidden widths {self.hidden}",
            )

    def __repr__(self) -> str:
        return f"TrainedPolicy({str(self.path)!r})"


def as_path(what: str, path: object, kind: str) -> Path:
    """``path`` as a ``Path``; ``ValueError`` naming ``what`` if it is no path (an agent spec's
    ``path=5`` is a number)."""
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"{what}: path must be {kind}, got {path!r:.80}")
    return Path(path)


def shipped_policy(name: str = "ppo", seed: int | None = None, sample: bool = False) -> TrainedPolicy:
    """The shipped policy ``name`` (a folder of ``SHIPPED_DIR``)."""
    return TrainedPolicy(SHIPPED_DIR / name, seed=seed, sample=sample)


def _refuse(path: Path, problem: str) -> ValueError:
    return ValueError(f"trained policy: {path}: {problem}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def read_meta(path: Path) -> dict[str, Any]:
    """The JSON object of a policy folder's file ``path`` (``policy.json``, ``value.json``), read
    only up to ``MAX_META_BYTES``; ``ValueError`` naming the file if it is missing or corrupt."""
    if not path.is_file():
        raise ValueError(f"trained policy: missing file {path}")
    if path.stat().st_size > MAX_META_BYTES:
        raise _refuse(path, f"corrupt file: {path.stat().st_size} bytes, a {path.name} holds at most {MAX_META_BYTES}")
    try:
        meta = json.loads(path.read_bytes().decode("utf-8"))
    except (ValueError, RecursionError) as error:  # bad JSON or UTF-8, a 5,000-digit number, deep nesting
        problem = "nested too deeply" if isinstance(error, RecursionError) else str(error)
        raise _refuse(path, f"corrupt file: {problem}") from None
    if not isinstance(meta, dict):
        raise _refuse(path, "corrupt file: not a JSON object")
    return meta


def read_model_meta(what: str, where: Path, fmt: str) -> tuple[dict[str, Any], HeartsRules, list[str]]:
    """A small model's ``json`` file (a value head's, the belief model's): its entries, its rules and
    its layer names, after checking its ``format`` is ``fmt``; ``ValueError`` naming ``what`` and the file."""
    meta = read_meta(where)
    if meta.get("format") != fmt:
        raise ValueError(f"{what}: {where}: format {meta.get('format')!r}, this loader reads {fmt!r}")
    try:
        rules = HeartsRules.from_dict(meta["rules"])
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{what}: {where}: invalid rules: {error}") from None
    layers = meta.get("layers")
    if not isinstance(layers, list) or not layers or not all(isinstance(name, str) for name in layers):
        raise ValueError(f"{what}: {where}: layers must be a list of layer names, got {layers!r:.80}")
    return meta, rules, layers


def _load_meta(path: Path) -> dict[str, Any]:
    """``policy.json``, every entry the loader uses checked (``history`` and ``trick_outcomes``
    defaulted to False)."""
    meta = read_meta(path)
    missing = [k for k in ("format", "layout_version", "rules", "obs_size", "layers", "activation") if k not in meta]
    if missing:
        raise _refuse(path, f"lacks {', '.join(missing)}")
    if meta["format"] != FORMAT:
        raise _refuse(path, f"format {meta['format']!r}, this loader reads {FORMAT!r}")
    if not _is_int(meta["layout_version"]) or meta["layout_version"] != LAYOUT_VERSION:
        raise _refuse(
            path,
            f"trained on observation layout version {meta['layout_version']!r}, "
            f"this hearts_env encodes version {LAYOUT_VERSION}",
        )
    if not isinstance(meta["activation"], str) or meta["activation"] not in ACTIVATIONS:
        raise _refuse(path, f"unknown activation {meta['activation']!r} (known: {', '.join(ACTIVATIONS)})")
    layers = meta["layers"]
    if (
        not isinstance(layers, list)
        or not 0 < len(layers) <= _MAX_LAYERS
        or not all(isinstance(name, str) for name in layers)
        or len(set(layers)) != len(layers)
    ):
        raise _refuse(path, f"layers must be a list of 1..{_MAX_LAYERS} distinct layer names, got {layers!r:.80}")
    for option in ("history", "trick_outcomes"):  # the observation layout's options
        meta.setdefault(option, False)
        if not isinstance(meta[option], bool):
            raise _refuse(path, f"{option} must be true or false, got {meta[option]!r:.80}")
    try:
        rules = HeartsRules.from_dict(meta["rules"])
    except (TypeError, ValueError) as error:
        raise _refuse(path, f"invalid rules: {error}") from None
    if meta.get("num_players", rules.num_players) != rules.num_players:
        raise _refuse(path, f"num_players={meta['num_players']!r} but its rules have {rules.num_players}")
    size = ObservationLayout(rules, meta["history"], meta["trick_outcomes"]).size
    if not _is_int(meta["obs_size"]) or meta["obs_size"] != size:
        raise _refuse(path, f"obs_size {meta['obs_size']!r:.80} does not match the layout of its rules ({size})")
    return meta


def _load_arrays(path: Path, meta: dict[str, Any]) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """The input scale and the (weight, bias) pairs named in ``meta["layers"]``, their shapes
    chaining from the observation size to 52 logits."""
    names = ["input.scale"] + [f"{layer}.{part}" for layer in meta["layers"] for part in ("weight", "bias")]
    arrays = read_arrays(path, names, lambda shapes: _check_shapes(path, meta, shapes))
    layers = [(arrays[f"{layer}.weight"], arrays[f"{layer}.bias"]) for layer in meta["layers"]]
    return arrays["input.scale"], layers


def read_arrays(
    path: Path, names: list[str], check_shapes: Callable[[dict[str, tuple[int, ...]]], None]
) -> dict[str, np.ndarray]:
    """The float32 arrays ``names`` of the ``.npz`` file ``path``, read without pickle: every
    header is read first (float32, the size cap) and ``check_shapes`` (which raises on shapes it
    refuses) sees their shapes, then only those arrays are read."""
    if not path.is_file():
        raise ValueError(f"trained policy: missing file {path}")
    if path.stat().st_size > 4 * MAX_PARAMETERS + MAX_META_BYTES:
        raise _refuse(path, f"corrupt file: {path.stat().st_size} bytes, more than a policy's arrays can hold")
    try:
        with zipfile.ZipFile(path) as archive:
            headers = {name: _array_header(path, archive, name) for name in names}
            check_shapes({name: header[0] for name, header in headers.items()})
            return {name: _read_array(path, archive, name, header) for name, header in headers.items()}
    except _ARCHIVE_ERRORS as error:
        raise _refuse(path, f"corrupt file: {error}") from None


def _array_header(path: Path, archive: zipfile.ZipFile, name: str) -> _Header:
    """(shape, Fortran order, dtype, byte offset of the data) of the array ``name``, from its
    header; a missing array, a dtype other than float32 or a size that disagrees with the header
    is refused."""
    try:
        info = archive.getinfo(f"{name}.npy")
    except KeyError:
        raise _refuse(path, f"lacks the array {name!r}") from None
    with archive.open(info) as f:
        try:
            version = np.lib.format.read_magic(f)
            if version not in _READERS:
                raise ValueError(f".npy format version {version}, this loader reads 1.0 and 2.0")
            shape, fortran, dtype = _READERS[version](f)
        except ValueError as error:
            raise _refuse(path, f"array {name!r} has a corrupt header: {error}") from None
        offset = f.tell()
    if dtype.kind != "f" or dtype.itemsize != 4:
        raise _refuse(path, f"array {name!r} has dtype {dtype}, expected float32")
    count = int(np.prod(shape, dtype=object))
    if count > MAX_PARAMETERS or info.file_size != offset + 4 * count:
        raise _refuse(
            path, f"array {name!r}: its header says shape {shape}, its data holds {info.file_size - offset} bytes"
        )
    return shape, fortran, dtype, offset


def _check_shapes(path: Path, meta: dict[str, Any], shapes: dict[str, tuple[int, ...]]) -> None:
    """The input scale matches the observation size; the layers chain from it to 52 logits."""
    size = meta["obs_size"]
    if shapes["input.scale"] != (size,):
        raise _refuse(path, f"input.scale must have shape ({size},), got {shapes['input.scale']}")
    check_layer_chain("trained policy", path, meta["layers"], shapes, size, already=size)


def check_layer_chain(
    what: str, path: Path, layers: list[str], shapes: dict[str, tuple[int, ...]], inputs: int, already: int = 0
) -> None:
    """``ValueError`` naming ``what`` and the file unless the (weight, bias) shapes of ``layers``
    chain from ``inputs`` numbers to 52 logits, with at most ``MAX_PARAMETERS`` numbers in all
    (``already`` of them outside the layers)."""
    width, total = inputs, already
    for layer in layers:
        w, b = shapes[f"{layer}.weight"], shapes[f"{layer}.bias"]
        if len(w) != 2 or w[0] < 1 or w[1] != width or b != (w[0],):
            raise ValueError(
                f"{what}: {path}: layer {layer!r} has weight {w} and bias {b}, expected (n, {width}) and (n,)"
            )
        width, total = w[0], total + w[0] * (w[1] + 1)
        if total > MAX_PARAMETERS:
            raise ValueError(f"{what}: {path}: the arrays hold more than {MAX_PARAMETERS} numbers")
    if width != 52:
        raise ValueError(f"{what}: {path}: the last layer must give 52 logits, got {width}")


def _read_array(path: Path, archive: zipfile.ZipFile, name: str, header: _Header) -> np.ndarray:
    """The float32 array ``name`` (its header already checked); non-finite numbers are refused."""
    shape, fortran, dtype, offset = header
    count = int(np.prod(shape))
    with archive.open(f"{name}.npy") as f:
        f.read(offset)
        data = f.read(4 * count)
        if len(data) != 4 * count or f.read(1):  # the last read also checks the member's CRC
            raise _refuse(path, f"array {name!r} is truncated")
    array = np.frombuffer(data, dtype).reshape(shape, order="F" if fortran else "C").astype(np.float32)
    if not np.isfinite(array).all():
        raise _refuse(path, f"array {name!r} holds NaN or infinite numbers")
    return array
