"""A saved stable-baselines3 ``MaskablePPO`` (or ``PPO``) model as an agent, loaded without unpickling.

SB3's ``model.save("model.zip")`` writes a zip whose ``policy.pth`` holds the policy's tensors and
whose ``data`` is JSON in which every object JSON cannot hold is a cloudpickle blob. Loading such
a file with SB3 (``MaskablePPO.load``) unpickles those blobs, which runs whatever code they name,
so ``SB3Policy`` never does: it reads

* ``policy.pth`` with ``torch.load(..., weights_only=True)`` (tensors and plain containers only),
  from which the MLP is inferred: the ``mlp_extractor.policy_net`` linear layers in index order,
  then ``action_net`` (52 logits); and, for this project's models (``hearts_env.train.ppo``),
  ``features_extractor.scale``, the input scale;
* from ``data``, only fields stored as plain JSON: the observation space's shape and dtype, the
  action space's size, and ``policy_kwargs``'s activation (``ReLU`` or ``Tanh``, SB3's default)
  and feature-extractor class names (SB3's ``FlattenExtractor`` or this project's ``ScaledObservation``).

The observation size must be the size of one of this project's layouts
(``hearts_env.engine.observation.ObservationLayout``; each (players, JD rule, decks, history) has its
own size), which gives the tables the model can play; any other table, or a model of another
environment, is refused with a ``ValueError`` naming the file. The model then plays with numpy
alone, as ``hearts_env.agents.learned.trained.MLPPolicy`` (its masked argmax is the SB3 model's
deterministic ``predict(obs, action_masks=mask)``); torch is needed to read the file only.

    hearts-arena sb3:path=model.zip heuristic heuristic heuristic --episode hand
    hearts-bench run model.zip --split test
"""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from hearts_env.agents.learned.trained import _ARCHIVE_ERRORS, MAX_PARAMETERS, MLPPolicy, as_path
from hearts_env.engine import cards
from hearts_env.engine.cards import NUM_CARDS
from hearts_env.engine.observation import LAYOUT_VERSION, ObservationLayout
from hearts_env.engine.rules import HeartsRules

MAX_DATA_BYTES = 256 * 2**20
"""The largest ``data`` member read (it holds the last observations and episode buffers too)."""
_ACTIVATIONS = {"ReLU": "relu", "Tanh": "tanh"}
_EXTRACTORS = ("FlattenExtractor", "ScaledObservation")
_POLICY_LAYER = re.compile(r"mlp_extractor\.policy_net\.(\d+)\.weight")


class SB3Policy(MLPPolicy):
    """An SB3 model file (``path``, a ``.zip``) played with numpy (see the module docstring)."""

    def __init__(self, path: str | os.PathLike, seed: int | None = None, sample: bool = False) -> None:
        self.path = as_path("sb3 model", path, "a .zip file")
        data, tensors = _read(self.path)
        obs_size = _observation_size(self.path, data)
        rules, history = _layout_of(self.path, obs_size)
        scale, layers = _network(self.path, data, tensors, obs_size)
        super().__init__(rules, scale, layers, _activation(self.path, data), sample, seed, history)

    def check_rules(self, rules: HeartsRules) -> None:
        """``ValueError`` unless the table's observations have this model's layout."""
        if rules.decks != self.rules.decks:
            raise ValueError(f"{self!r} was trained with decks={self.rules.decks}, the table has decks={rules.decks}")
        super().check_rules(rules)

    def __repr__(self) -> str:
        return f"SB3Policy({str(self.path)!r})"


def _refuse(path: Path, problem: str) -> ValueError:
    return ValueError(f"sb3 model: {path}: {problem}")


def _read(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``data`` JSON and the ``policy.pth`` tensors (weights only) of the zip."""
    if not path.is_file():
        raise ValueError(f"sb3 model: missing file {path}")
    try:
        import torch
    except ImportError:
        raise ValueError('sb3 model: reading an SB3 .zip needs torch: pip install -e ".[train]"') from None
    try:
        with zipfile.ZipFile(path) as archive:
            members = set(archive.namelist())
            for needed in ("data", "policy.pth"):
                if needed not in members:
                    raise _refuse(path, f"lacks {needed!r}: not a stable-baselines3 model file")
            limits = {"data": MAX_DATA_BYTES, "policy.pth": 16 * MAX_PARAMETERS}
            for name, limit in limits.items():
                if archive.getinfo(name).file_size > limit:
                    raise _refuse(path, f"{name!r} holds {archive.getinfo(name).file_size} bytes, more than {limit}")
            raw_data, raw_policy = archive.read("data"), archive.read("policy.pth")
    except _ARCHIVE_ERRORS as error:
        raise _refuse(path, f"corrupt file: {error}") from None
    try:
        data = json.loads(raw_data.decode("utf-8"))
    except (ValueError, RecursionError) as error:
        raise _refuse(path, f"its 'data' is not JSON: {str(error)[:80]}") from None
    try:
        tensors = torch.load(io.BytesIO(raw_policy), map_location="cpu", weights_only=True)
    except Exception as error:  # noqa: BLE001  (the restricted unpickler raises many kinds on foreign content)
        raise _refuse(path, f"its 'policy.pth' is not a plain state dict of tensors: {str(error)[:120]}") from None
    if not isinstance(data, dict) or not isinstance(tensors, dict):
        raise _refuse(path, "its 'data' or 'policy.pth' is not a mapping")
    return data, tensors


def _plain(data: dict[str, Any], key: str) -> dict[str, Any]:
    """An entry of ``data`` as a dict of its plain-JSON fields (``{}`` if missing)."""
    entry = data.get(key)
    return entry if isinstance(entry, dict) else {}


def _observation_size(path: Path, data: dict[str, Any]) -> int:
    space, actions = _plain(data, "observation_space"), _plain(data, "action_space")
    shape = space.get("_shape", space.get("shape"))
    if not (isinstance(shape, list) and len(shape) == 1 and isinstance(shape[0], int)) or space.get("dtype") != "uint8":
        found = f"{space.get(':type:', '?')} {shape} {space.get('dtype')}"
        raise _refuse(path, f"its observation space is {found}, not the uint8 vector of hearts_env's environments")
    if str(actions.get("n")) != str(NUM_CARDS):
        raise _refuse(path, f"its action space has {actions.get('n')} actions, not the {NUM_CARDS} cards")
    return shape[0]


def _layout_of(path: Path, size: int) -> tuple[HeartsRules, bool]:
    """The rules knobs (players, JD, decks) and history setting whose observation has ``size`` entries."""
    for decks, (low, high) in cards.PLAYERS_BY_DECKS.items():
        for players in range(low, high + 1):
            for jd in (False, True):
                for history in (False, True):
                    rules = HeartsRules(num_players=players, jack_of_diamonds=jd, decks=decks)
                    if ObservationLayout(rules, history).size == size:
                        return rules, history
    layouts = f"the size of no observation layout of this hearts_env (layout version {LAYOUT_VERSION})"
    raise _refuse(path, f"its observations have {size} entries, {layouts}: a model of another environment or layout")


def _activation(path: Path, data: dict[str, Any]) -> str:
    named = _plain(data, "policy_kwargs").get("activation_fn", "<class 'torch.nn.modules.activation.Tanh'>")
    kind = str(named).rstrip("'>").rpartition(".")[2]
    if kind not in _ACTIVATIONS:
        raise _refuse(path, f"activation {named!r}: this loader plays {', '.join(_ACTIVATIONS)} networks")
    return _ACTIVATIONS[kind]


def _array(path: Path, tensors: dict[str, Any], name: str) -> np.ndarray:
    tensor = tensors.get(name)
    if not hasattr(tensor, "detach"):
        raise _refuse(path, f"its policy lacks the tensor {name!r}")
    array = tensor.detach().cpu().float().numpy().astype(np.float32)
    if not np.isfinite(array).all():
        raise _refuse(path, f"tensor {name!r} holds NaN or infinite numbers")
    return array


def _network(
    path: Path, data: dict[str, Any], tensors: dict[str, Any], size: int
) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """The input scale and the (weight, bias) layers, their shapes chained from ``size`` to 52."""
    kwargs = _plain(data, "policy_kwargs")
    extractor = str(kwargs.get("features_extractor_class", "FlattenExtractor"))
    if not any(extractor.rstrip("'>").endswith(name) for name in _EXTRACTORS):
        raise _refuse(path, f"features extractor {extractor}: this loader reads {', '.join(_EXTRACTORS)}")
    if any(key.startswith("mlp_extractor.shared_net") for key in tensors):
        raise _refuse(path, "its policy has shared layers (an old SB3 net_arch): not read by this loader")
    scale = np.ones(size, np.float32)
    for key in ("features_extractor.scale", "pi_features_extractor.scale"):
        if key in tensors:
            scale = _array(path, tensors, key)
            break
    indices = sorted(int(m.group(1)) for key in tensors if (m := _POLICY_LAYER.fullmatch(key)))
    names = [f"mlp_extractor.policy_net.{i}" for i in indices] + ["action_net"]
    layers = [(_array(path, tensors, f"{n}.weight"), _array(path, tensors, f"{n}.bias")) for n in names]
    if scale.shape != (size,):
        raise _refuse(path, f"its input scale has shape {scale.shape}, its observations {size} entries")
    width, total = size, 0
    for name, (weight, bias) in zip(names, layers, strict=True):
        if weight.ndim != 2 or weight.shape[1] != width or bias.shape != (weight.shape[0],):
            raise _refuse(path, f"layer {name} has weight {weight.shape} and bias {bias.shape} after width {width}")
        width, total = weight.shape[0], total + weight.size + bias.size
    if width != NUM_CARDS or total > MAX_PARAMETERS:
        raise _refuse(
            path, f"its policy gives {width} logits with {total} numbers (expected 52, at most {MAX_PARAMETERS})"
        )
    return scale, layers
