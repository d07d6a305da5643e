"""The learner's weights in and out of ``hearts_env.train.ppo``'s model (sb3-contrib's MaskablePPO).

``checkpoint.pt`` holds the policy's and optimizer's tensors and the timestep count: written by
``save_checkpoint`` (no pickled objects), read back by ``load_checkpoint`` with
``torch.load(weights_only=True)`` and checked whole against the model before anything is loaded.
``export_policy`` writes the export that ``hearts_env.agents.learned.trained.TrainedPolicy`` loads
(``policy.npz`` with the input scale and the policy MLP's arrays of ``policy_arrays``, and
``policy.json``); ``Snapshot`` holds the same arrays in a numpy policy that plays at a table (the
``self`` opponent and the league's snapshots of the learner).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from hearts_env.agents.learned.trained import MLPPolicy
from hearts_env.engine.rules import HeartsRules
from hearts_env.train.config import PPOSettings
from hearts_env.train.run_files import write_policy

CHECKPOINT_FILE = "checkpoint.pt"


def save_checkpoint(model: MaskablePPO, path: Path) -> None:
    """The policy's and optimizer's tensors and the timestep count (no pickled objects)."""
    state = {
        "policy": model.policy.state_dict(),
        "optimizer": model.policy.optimizer.state_dict(),
        "num_timesteps": torch.tensor(model.num_timesteps),
    }
    torch.save(state, path)


def load_checkpoint(model: MaskablePPO, path: Path) -> None:
    """Restore ``save_checkpoint``'s file into a model built with the same network. The file is
    read with ``torch.load(weights_only=True)`` and checked whole (its entries, every tensor's
    shape against the model's) before anything is loaded: anything else raises ``ValueError``
    (``resume: cannot load PATH: why``) and leaves the model as it was."""
    if not path.is_file():
        raise ValueError(f"resume: no {CHECKPOINT_FILE} at {path}")
    try:
        state = torch.load(path, map_location=model.device, weights_only=True)
    except Exception as error:  # the unpickler's errors vary with the damage; all mean "not a checkpoint"
        raise ValueError(f"resume: cannot load {path}: {type(error).__name__}: {error}") from None
    problem = _checkpoint_problem(model, state)
    if problem:
        raise ValueError(f"resume: cannot load {path} into this network: {problem}")
    model.policy.load_state_dict(state["policy"])
    model.policy.optimizer.load_state_dict(state["optimizer"])
    model.num_timesteps = int(state["num_timesteps"])


def _checkpoint_problem(model: MaskablePPO, state: object) -> str | None:
    """What keeps ``state`` from loading into ``model`` whole (None if nothing does)."""
    if not isinstance(state, dict) or set(state) != {"policy", "optimizer", "num_timesteps"}:
        shown = sorted(map(str, state)) if isinstance(state, dict) else type(state).__name__
        return f"expected a dict of policy, optimizer and num_timesteps, got {shown}"
    steps = state["num_timesteps"]
    if not isinstance(steps, torch.Tensor) or steps.numel() != 1 or steps.is_floating_point() or int(steps) < 0:
        return "num_timesteps must be a count"
    own, saved = model.policy.state_dict(), state["policy"]
    if not isinstance(saved, dict) or set(saved) != set(own):
        return "the policy's tensors are not this network's"
    for name, tensor in own.items():
        if not isinstance(saved[name], torch.Tensor) or saved[name].shape != tensor.shape:
            return f"policy tensor {name} has another shape than this network's {tuple(tensor.shape)}"
    return _optimizer_problem(model.policy.optimizer, state["optimizer"])


def _optimizer_problem(optimizer: torch.optim.Optimizer, saved: object) -> str | None:
    """What keeps ``saved`` from being this optimizer's state (its groups, settings, and per
    parameter tensors of the parameter's shape)."""
    own = optimizer.state_dict()
    if not isinstance(saved, dict) or set(saved) != set(own):
        return "the optimizer state is not a dict of state and param_groups"
    groups = saved["param_groups"]
    if not isinstance(groups, list) or len(groups) != len(own["param_groups"]):
        return "the optimizer has other parameter groups"
    params = [p for group in optimizer.param_groups for p in group["params"]]
    for group, own_group in zip(groups, own["param_groups"], strict=True):
        if not isinstance(group, dict) or set(group) != set(own_group) or group["params"] != own_group["params"]:
            return "the optimizer has other parameter groups"
    if not isinstance(saved["state"], dict):
        return "the optimizer state is not a dict"
    for index, entries in saved["state"].items():
        if not isinstance(index, int) or not 0 <= index < len(params) or not isinstance(entries, dict):
            return "the optimizer state names parameters this network does not have"
        for key, value in entries.items():
            if not isinstance(value, torch.Tensor) or (value.dim() > 0 and value.shape != params[index].shape):
                return f"optimizer state {key} of parameter {index} has another shape than the parameter"
    return None


def policy_layers(model: MaskablePPO) -> list[torch.nn.Linear]:
    """The policy MLP's linear layers and the action head, input to output (what an export holds)."""
    policy = model.policy
    return [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)] + [policy.action_net]


def policy_arrays(model: MaskablePPO) -> tuple[dict[str, np.ndarray], list[str]]:
    """The input scale and the policy MLP's and action head's weights (float32), and the layer names."""
    layers = policy_layers(model)
    arrays, names = {"input.scale": model.policy.features_extractor.scale.cpu().numpy()}, []
    for i, layer in enumerate(layers):
        name = f"pi.{i}" if i < len(layers) - 1 else "action"
        arrays[f"{name}.weight"] = layer.weight.detach().cpu().numpy().astype(np.float32)
        arrays[f"{name}.bias"] = layer.bias.detach().cpu().numpy().astype(np.float32)
        names.append(name)
    return arrays, names


def export_policy(model: MaskablePPO, folder: Path, config: PPOSettings) -> None:
    """Write ``policy.npz`` (``policy_arrays``) and ``policy.json``."""
    arrays, names = policy_arrays(model)
    trained_on = {"algorithm": "MaskablePPO", "timesteps": int(model.num_timesteps)}
    write_policy(
        folder, arrays, names, config.rules, config.hidden, config.activation, trained_on, config.trick_outcomes
    )


class Snapshot(MLPPolicy):
    """A frozen copy of the learner's policy net, as the export plays it: sampling its cards, the
    ``self`` opponent; with ``sample=False`` the legal card of the highest logit (the evaluations).
    ``load(model)`` copies the current weights (at the start and every ``snapshot_every`` timesteps)."""

    def __init__(
        self,
        rules: HeartsRules,
        activation: str,
        seed: int | np.random.SeedSequence | None,
        sample: bool = True,
        trick_outcomes: bool = False,
    ) -> None:
        super().__init__(
            rules, np.ones(0, np.float32), [], activation, sample=sample, seed=seed, trick_outcomes=trick_outcomes
        )

    def load(self, model: MaskablePPO) -> None:
        arrays, names = policy_arrays(model)
        self.set_weights(arrays["input.scale"], [(arrays[f"{name}.weight"], arrays[f"{name}.bias"]) for name in names])
