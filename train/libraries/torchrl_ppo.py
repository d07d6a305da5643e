"""Masked self-play PPO with TorchRL: one policy at every seat of ``HeartsMultiAgentEnv`` tables.

The recipe of ``docs/clients.md`` as a command. TorchRL's ``Collector`` steps ``num_envs`` tables of
``hearts_env.envs.torchrl.HeartsMultiAgentEnv`` (every seat an agent of the group ``"agents"``) for
``n_steps`` steps a batch with the shared policy: a ``ProbabilisticActor`` drawing from a
``MaskedCategorical`` over the legal cards, its MLP run only at the seat to act (the other seats'
cards are ignored by the env). TorchRL's ``GAE`` computes each seat's advantages along its own
row over every step, so the points a seat takes on other seats' cards (paid to it when its turn
comes again) are credited to its previous decision; TorchRL's ``ClipPPOLoss`` then trains the
actor and the critic on the decisions only (the (table, step, seat) entries where
``("agents", "mask")`` holds). The update is ``hearts_env.train.ppo``'s: clip range 0.2,
advantages normalized per minibatch, value loss coefficient 0.5, gradient norm clipped at 0.5,
separate policy and value MLPs over the scaled observation, and the same flags and defaults
(learning rate, gamma, lambda, entropy coefficient, epochs, minibatch size, network). With
``--critic state`` the value MLP also reads the table's global state (the env's ``"state"`` entry)
and the seat's one-hot: a privileged critic, the policy unchanged.

Every ``eval_every`` timesteps (a timestep is one decision of one seat), and before the first
update, the policy plays ``eval_deals`` duplicate hands in the arena (``hearts_env.arena.play_match``)
against three ``eval_opponent`` agents, without torch: its MLP exported into
``hearts_env.agents.learned.trained.MLPPolicy`` (the legal card with the highest logit).

A run writes ``{run_dir}/{env}__{exp_name}__{seed}__{time}/``: ``config.json``, ``progress.csv``
(a row per batch: ``charts/SPS``, ``collect_SPS``, ``update_SPS``, the evaluations, and
``losses/policy_loss``, ``value_loss``, ``entropy``; CleanRL's names), ``eval.json`` (every evaluation)
and the export ``policy.npz`` + ``policy.json`` that ``make_agent("trained", path=...)`` plays.
The settings are checked before the folder is made; the command line prints one line for a bad one.

    hearts-train-torchrl --total-timesteps 2000000             # python -m hearts_env.train.libraries.torchrl_ppo
    hearts-train-torchrl --num-players 5 --reward zero_sum --episode game
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch
from torch import nn

from hearts_env.agents.learned.trained import MLPPolicy
from hearts_env.agents.specs import agent_from_spec, check_agents
from hearts_env.engine.cards import NUM_CARDS
from hearts_env.engine.global_state import GlobalStateLayout
from hearts_env.engine.observation import ObservationLayout
from hearts_env.play.progress import progress_bar
from hearts_env.train.config import SELF, PPOSettings, StartError, parse_config
from hearts_env.train.run_files import evaluate_policy, make_run_folder, write_policy

try:  # the torchrl extra; the command line says so in one line when it is missing
    from tensordict import TensorDict, TensorDictBase
    from tensordict.nn import TensorDictModule
    from torchrl.collectors import Collector
    from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE

    from hearts_env.envs.torchrl import GROUP, HeartsMultiAgentEnv

    MISSING = ""
except ImportError as error:
    MISSING = f'TorchRL is not installed: pip install -e ".[torchrl]" ({error})'

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


@dataclass
class TorchRLPPOConfig(PPOSettings):
    exp_name: str = "torchrl_ppo"
    opponents: list[str] = field(default_factory=lambda: [SELF])
    """self: the learner at every seat (this trainer's only opponents)"""
    gamma: float = 1.0
    """discount factor (per step of the table, every seat's moves included)"""

    OPPONENTS: ClassVar[tuple[str, ...]] = (SELF,)

    def check(self) -> None:
        """Raise ``ValueError`` naming the first setting out of its range."""
        super().check()
        if self.opponents != [SELF]:
            raise ValueError(f"opponents: this trainer plays self-play only (self), got {self.opponents}")


def parse_args(argv: Sequence[str] | None = None) -> TorchRLPPOConfig:
    return parse_config(TorchRLPPOConfig, argv, "hearts-train-torchrl", __doc__.split("\n\n")[0])


# ---------------------------------------------------------------------------------------------
# The networks


def mlp(sizes: Sequence[int], activation: str) -> nn.Sequential:
    """Linear layers of ``sizes``, ``activation`` after every one but the last."""
    layers: list[nn.Module] = []
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        layers.append(nn.Linear(n_in, n_out))
        if i < len(sizes) - 2:
            layers.append(ACTIVATIONS[activation]())
    return nn.Sequential(*layers)


class ScaledMLP(nn.Module):
    """An MLP over uint8 observations multiplied by ``ObservationLayout.scale()``."""

    def __init__(self, scale: np.ndarray, sizes: Sequence[int], activation: str) -> None:
        super().__init__()
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32))
        self.net = mlp(sizes, activation)

    def forward(self, observation: torch.Tensor) -> torch.Tensor:
        return self.net(observation.float() * self.scale)


class ActingSeatPolicy(nn.Module):
    """The shared policy's logits, computed only where ``mask`` marks the seat to act (zeros
    elsewhere: the env ignores those seats' cards, their masks allow every card)."""

    def __init__(self, scale: np.ndarray, sizes: Sequence[int], activation: str) -> None:
        super().__init__()
        self.mlp = ScaledMLP(scale, sizes, activation)

    def forward(self, observation: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        logits = torch.zeros((*mask.shape, NUM_CARDS), dtype=torch.float32)
        logits[mask] = self.mlp(observation[mask])
        return logits


class StateCritic(nn.Module):
    """The privileged critic (``critic="state"``): an MLP over a seat's scaled observation, the
    table's scaled global state (in table order) and the seat's one-hot, which says whose value it is."""

    def __init__(self, scale: np.ndarray, state_scale: np.ndarray, sizes: Sequence[int], activation: str) -> None:
        super().__init__()
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32))
        self.register_buffer("state_scale", torch.as_tensor(state_scale, dtype=torch.float32))
        self.net = mlp(sizes, activation)

    def forward(self, observation: torch.Tensor, state: torch.Tensor, seat: torch.Tensor) -> torch.Tensor:
        inputs = [observation.float() * self.scale, state.float() * self.state_scale, seat.float()]
        return self.net(torch.cat(inputs, -1))


def networks(config: TorchRLPPOConfig) -> tuple[ProbabilisticActor, ValueOperator]:
    """The actor (masked categorical over the shared policy's logits) and the critic."""
    layout = ObservationLayout(config.rules)
    sizes, scale = [layout.size, *config.hidden], layout.scale()
    policy = TensorDictModule(
        ActingSeatPolicy(scale, [*sizes, NUM_CARDS], config.activation),
        in_keys=[(GROUP, "observation"), (GROUP, "mask")],
        out_keys=[(GROUP, "logits")],
    )
    actor = ProbabilisticActor(
        policy,
        in_keys={"logits": (GROUP, "logits"), "mask": (GROUP, "action_mask")},
        out_keys=[(GROUP, "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=(GROUP, "action_log_prob"),
    )
    if config.critic == "state":
        state_scale = GlobalStateLayout(config.rules).scale()
        inputs = layout.size + len(state_scale) + config.rules.num_players
        critic = ValueOperator(
            StateCritic(scale, state_scale, [inputs, *config.hidden, 1], config.activation),
            in_keys=[(GROUP, "observation"), (GROUP, "state"), (GROUP, "seat")],
            out_keys=[(GROUP, "state_value")],
        )
    else:
        critic = ValueOperator(
            ScaledMLP(scale, [*sizes, 1], config.activation),
            in_keys=[(GROUP, "observation")],
            out_keys=[(GROUP, "state_value")],
        )
    return actor, critic


def give_seats_the_state(data: TensorDictBase, num_players: int) -> None:
    """Every seat's entries get the table's global state and the seat's one-hot (the privileged
    critic's inputs), before and after each step: views, no copies."""
    for root in ((), ("next",)):
        state = data[(*root, "state")]
        lead = state.shape[:-1]
        data[(*root, GROUP, "state")] = state.unsqueeze(-2).expand(*lead, num_players, state.shape[-1])
        data[(*root, GROUP, "seat")] = torch.eye(num_players, dtype=torch.uint8).expand(*lead, num_players, num_players)


def numpy_policy(
    actor: ProbabilisticActor, config: TorchRLPPOConfig
) -> tuple[MLPPolicy, dict[str, np.ndarray], list[str]]:
    """The actor's MLP as a numpy agent (the legal card with the highest logit), and its arrays and
    layer names in ``hearts_env.agents.learned.trained``'s format."""
    net: ActingSeatPolicy = actor.module[0].module
    linears = [layer for layer in net.mlp.net if isinstance(layer, nn.Linear)]
    names = [f"pi.{i}" for i in range(len(linears) - 1)] + ["action"]
    arrays = {"input.scale": net.mlp.scale.numpy().copy()}
    for name, layer in zip(names, linears, strict=True):
        arrays[f"{name}.weight"] = layer.weight.detach().numpy().copy()
        arrays[f"{name}.bias"] = layer.bias.detach().numpy().copy()
    layers = [(arrays[f"{name}.weight"], arrays[f"{name}.bias"]) for name in names]
    return MLPPolicy(config.rules, arrays["input.scale"], layers, config.activation), arrays, names


# ---------------------------------------------------------------------------------------------
# The run


def decisions(data: TensorDictBase) -> TensorDictBase:
    """The (table, step, seat) entries of a batch where the seat acted, as a flat batch."""
    agents = data[GROUP]
    return TensorDict({GROUP: agents[agents["mask"]]}, batch_size=[int(agents["mask"].sum())])


def main(config: TorchRLPPOConfig) -> Path:
    """Train, evaluate and export; returns the run folder."""
    if MISSING:
        raise StartError(MISSING)
    check_agents(config.rules, [(config.eval_opponent, agent_from_spec(config.eval_opponent, 0))])
    folder = make_run_folder(config.run_dir, config.exp_name, config.seed)
    (folder / "config.json").write_text(json.dumps(config.to_dict(), indent=2) + "\n")
    torch.manual_seed(config.seed)
    privileged = config.critic == "state"
    env = HeartsMultiAgentEnv(
        config.num_envs, config.rules, reward=config.reward, episode=config.episode, global_state=privileged
    )
    env.set_seed(config.seed)
    actor, critic = networks(config)
    keys = {k: (GROUP, k) for k in ("reward", "done", "terminated")}
    # shifted: one critic pass over the observations and the batch's last next ones; exact here,
    # since every episode end is a termination, whose next value GAE zeroes
    gae = GAE(gamma=config.gamma, lmbda=config.gae_lambda, value_network=critic, shifted=True)
    gae.set_keys(
        **keys, advantage=(GROUP, "advantage"), value_target=(GROUP, "value_target"), value=(GROUP, "state_value")
    )
    loss = ClipPPOLoss(  # sb3's PPO: advantages normalized per minibatch, squared-error value loss
        actor,
        critic,
        clip_epsilon=0.2,
        entropy_coeff=config.ent_coef,
        critic_coeff=0.5,
        loss_critic_type="l2",
        normalize_advantage=True,
    )
    loss.set_keys(
        **keys,
        action=(GROUP, "action"),
        sample_log_prob=(GROUP, "action_log_prob"),
        value=(GROUP, "state_value"),
        advantage=(GROUP, "advantage"),
        value_target=(GROUP, "value_target"),
    )
    optimizer = torch.optim.Adam(loss.parameters(), lr=config.learning_rate)
    frames = config.num_envs * config.n_steps
    collector = Collector(
        env,
        actor,
        frames_per_batch=frames,
        total_frames=max(1, -(-config.total_timesteps // frames)) * frames,  # whole batches
        auto_register_policy_transforms=False,  # a feed-forward policy needs no InitTracker
    )
    history: list[dict[str, float]] = [evaluation(actor, config, 0)]
    rows: list[dict[str, float]] = []
    bar = _progress_bar(config)
    timesteps, next_eval, start = 0, config.eval_every, time.perf_counter()
    try:
        collect_start = time.perf_counter()
        for data in collector:
            collect_seconds = time.perf_counter() - collect_start
            update_start = time.perf_counter()
            if privileged:
                give_seats_the_state(data, config.rules.num_players)
            with torch.no_grad():
                gae(data)
            samples = decisions(data)
            stats = update(loss, optimizer, samples, config)
            update_seconds = time.perf_counter() - update_start
            collector.update_policy_weights_()
            timesteps += len(samples)
            row = {"global_step": timesteps, "charts/SPS": timesteps / (time.perf_counter() - start)}
            row |= {
                "charts/collect_SPS": len(samples) / collect_seconds,
                "charts/update_SPS": len(samples) / update_seconds,
            }
            row |= stats
            if timesteps >= config.total_timesteps or (config.eval_every and timesteps >= next_eval):
                history.append(evaluation(actor, config, timesteps))
                row |= {k: v for k, v in history[-1].items() if k != "timesteps"}
                while config.eval_every and next_eval <= timesteps:
                    next_eval += config.eval_every
            rows.append(row)
            write_progress(folder / "progress.csv", rows)
            if bar is not None:
                bar.update(len(samples))
            if config.verbose:
                print(", ".join(f"{k.split('/')[-1]}={v:.4g}" for k, v in row.items()), flush=True)
            if timesteps >= config.total_timesteps:
                break
            collect_start = time.perf_counter()
    finally:
        if bar is not None:
            bar.close()
        collector.shutdown()
    _, arrays, names = numpy_policy(actor, config)
    trained_on = {"algorithm": "TorchRL PPO (self-play)", "timesteps": timesteps}
    write_policy(folder, arrays, names, config.rules, config.hidden, config.activation, trained_on)
    (folder / "eval.json").write_text(json.dumps(history, indent=2) + "\n")
    return folder


def update(
    loss: ClipPPOLoss, optimizer: torch.optim.Optimizer, samples: TensorDictBase, config: TorchRLPPOConfig
) -> dict[str, float]:
    """PPO epochs over the decisions; the mean of each loss term over the minibatches."""
    totals: dict[str, float] = {}
    count = 0
    for _ in range(config.n_epochs):
        for index in torch.randperm(len(samples)).split(config.batch_size):
            terms = loss(samples[index])
            total = terms["loss_objective"] + terms["loss_critic"] + terms["loss_entropy"]
            optimizer.zero_grad()
            total.backward()
            nn.utils.clip_grad_norm_(loss.parameters(), 0.5)
            optimizer.step()
            for name, ours in (
                ("loss_objective", "policy_loss"),
                ("loss_critic", "value_loss"),
                ("entropy", "entropy"),
            ):
                totals[f"losses/{ours}"] = totals.get(f"losses/{ours}", 0.0) + float(terms[name].detach().mean())
            count += 1
    return {name: value / count for name, value in totals.items()}


def evaluation(actor: ProbabilisticActor, config: TorchRLPPOConfig, timesteps: int) -> dict[str, float]:
    """The policy in the arena against ``eval_opponent`` at the other seats (``charts/`` scalars)."""
    policy, _, _ = numpy_policy(actor, config)
    result = evaluate_policy(policy, config.rules, config.eval_opponent, config.eval_deals, seed=config.seed + 10_000)
    return {"timesteps": timesteps, **result}


def write_progress(path: Path, rows: list[dict[str, float]]) -> None:
    columns = list(dict.fromkeys(key for row in rows for key in row))
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, columns)
        writer.writeheader()
        writer.writerows(rows)


def _progress_bar(config: TorchRLPPOConfig) -> Any:
    return progress_bar(config.total_timesteps, "train", "step") if config.progress_bar else None


if __name__ == "__main__":
    from hearts_env.train.cli import torchrl

    torchrl()
