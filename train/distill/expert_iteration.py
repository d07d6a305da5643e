"""Expert iteration, one round: the search's decisions cloned back into its network.

``pimc-ppo`` (``hearts_env.agents.search.pimc_ppo``) searches with a trained network; this script lets it play every
seat of single hands (``hearts_env.train.ppo.imitation.collect``), fits the network to the cards the search chose
(cross-entropy of the masked logits, on the decisions with more than one legal card, starting from
the network's own weights; with ``--temperature``, against soft targets from the search's values
of the cards it searched), exports the result as a weights-only policy folder that
``trained:path=...`` and ``pimc-ppo:path=...`` load, and measures it against copies of the
network it started from in every other seat (duplicate single hands). Run it again on its output
for the next round.

    python -m hearts_env.train.distill.expert_iteration --decisions 30000 --seed 0
    python -m hearts_env.train.distill.expert_iteration --decisions 300000 --workers 32 --ray auto   # on a Ray cluster
    hearts-arena trained:path=runs/hearts_v0__exit__0__1700000000 ppo ppo ppo --episode hand --deals 2000
"""

from __future__ import annotations

import dataclasses
import functools
import json
import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import numpy as np
import torch

from hearts_env.agents.learned.trained import META_FILE, SHIPPED_DIR, WEIGHTS_FILE, TrainedPolicy
from hearts_env.agents.search.pimc_ppo import PIMCPPOPolicy
from hearts_env.arena import play_match
from hearts_env.arena.sharding import RayExecutor, ray_failure
from hearts_env.engine.rules import HeartsRules
from hearts_env.engine.seeding import COLLECTION, derive
from hearts_env.train.config import RunConfig, StartError, check_at_least, check_ray
from hearts_env.train.ppo.imitation import Demonstrations, collect
from hearts_env.train.run_files import make_run_folder, removed_on_failure

T = TypeVar("T")

DEMOS_FILE = "demonstrations.npz"
"""The collected decisions in a round's run folder (``Demonstrations.save``), with the search's
value of each card it searched."""


@dataclass
class ExItConfig(RunConfig):
    exp_name: str = "exit"
    seed: int = 0
    """seeds the collection, the training order and the evaluation"""
    rules: HeartsRules = field(default_factory=HeartsRules)
    """the table (one the network was trained for; single hands are played)"""
    policy: str = ""
    """run folder of the network to improve (empty: the shipped ppo)"""
    decisions: int = 50_000
    """pimc-ppo decisions to collect (every seat of single hands)"""
    worlds: int = 64
    """pimc-ppo's sampled worlds per decision"""
    top_k: int = 4
    """pimc-ppo's most candidate cards searched"""
    rollout_tricks: int = 0
    """pimc-ppo's rollouts stop this many tricks on and its value head judges the rest (0: whole
    rollouts; the head must be in --policy's folder)"""
    endgame: int = 0
    """pimc-ppo's rollouts stop this many tricks before the hand's end and the rest is solved
    exactly in each world (0: none; hearts_env.agents.search.endgame)"""
    inference: str = "none"
    """pimc-ppo's worlds: none (uniform) or belief (drawn with the belief model)"""
    rollout_others: str = "network"
    """who plays the other seats in pimc-ppo's rollouts: network or heuristic (about three times
    as fast at 7 players, level in strength)"""
    play_share: float = 0.0
    """share of the decisions at which --policy's network plays its own card while the search's
    card is still the one recorded (DAgger: the network's own positions, labelled by the search)"""
    epochs: int = 4
    """passes over the collected decisions"""
    learning_rate: float = 1e-4
    """Adam's step size (small: the search mostly agrees with the network)"""
    temperature: float = 0.0
    """soft targets: each searched card's share is softmax(-value / temperature) over the searched
    cards, in points (0: the card the search chose)"""
    batch_size: int = 1024
    """decisions per gradient step"""
    eval_deals: int = 2000
    """duplicate single-hand deals of the new network against the old one in every other seat (0: none)"""
    workers: int = 1
    """processes collecting at once (one core each; the decisions are split evenly)"""
    ray: str | None = None
    """collect the workers' shares as Ray tasks (the decisions those processes would collect)"""
    demos: str = ""
    """a demonstrations.npz of an earlier round to fit instead of collecting (made by --policy's network)"""

    def check(self) -> None:
        """Raise ``ValueError`` naming the first setting out of its range."""
        super().check()
        for name in ("decisions", "worlds", "top_k", "epochs", "batch_size", "workers"):
            check_at_least(name, getattr(self, name), 1)
        check_at_least("eval_deals", self.eval_deals, 0)
        check_at_least("rollout_tricks", self.rollout_tricks, 0)
        check_at_least("endgame", self.endgame, 0)
        if not self.temperature >= 0:
            raise ValueError(f"temperature must be at least 0, got {self.temperature}")
        if not 0 <= self.play_share <= 1:
            raise ValueError(f"play_share must be in [0, 1], got {self.play_share}")
        if not 0 < self.learning_rate < 1:
            raise ValueError(f"learning_rate must be in (0, 1), got {self.learning_rate}")
        check_ray(self.ray)
        # The search it runs: a bad folder, a network of other rules or reading the history, refused here.
        self.teacher().check_rules(self.rules)

    def network(self) -> TrainedPolicy:
        """The network to improve (``--policy``, or the shipped ``ppo``)."""
        return TrainedPolicy(self.policy or SHIPPED_DIR / "ppo")

    def teacher(self, seed: int = 0) -> PIMCPPOPolicy:
        """The search whose decisions are collected."""
        return PIMCPPOPolicy(
            seed=seed,
            worlds=self.worlds,
            top_k=self.top_k,
            rollout_tricks=self.rollout_tricks,
            endgame=self.endgame,
            path=self.policy or None,
            inference=self.inference,
            rollout_others=self.rollout_others,
        )


class Network(torch.nn.Module):
    """A trained policy's MLP in torch, starting from its arrays: scale, hidden layers, logits."""

    def __init__(self, policy: TrainedPolicy) -> None:
        super().__init__()
        self.register_buffer("scale", torch.as_tensor(policy.scale))
        self.linears = torch.nn.ModuleList()
        for w, b in policy.layers:
            layer = torch.nn.Linear(w.shape[1], w.shape[0])
            layer.weight.data.copy_(torch.as_tensor(w))
            layer.bias.data.copy_(torch.as_tensor(b))
            self.linears.append(layer)
        self.activation = {"relu": torch.relu, "tanh": torch.tanh}[policy.meta["activation"]]

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        x = observations.float() * self.scale
        for layer in self.linears[:-1]:
            x = self.activation(layer(x))
        return self.linears[-1](x)

    def arrays(self, names: list[str]) -> dict[str, np.ndarray]:
        """The weights as ``policy.npz`` holds them (float32, one weight and bias per named layer)."""
        out = {"input.scale": self.scale.numpy()}
        for name, layer in zip(names, self.linears, strict=True):
            out[f"{name}.weight"] = layer.weight.detach().numpy().astype(np.float32)
            out[f"{name}.bias"] = layer.bias.detach().numpy().astype(np.float32)
        return out


def search_targets(actions: np.ndarray, values: np.ndarray | None, temperature: float) -> np.ndarray:
    """(N, 52) the share of each card in the fit's target: all on the search's card, or with a
    ``temperature`` and the search's values, softmax(-value / temperature) over the cards it
    searched (a decision it did not search keeps its card)."""
    targets = np.zeros((len(actions), 52), np.float32)
    targets[np.arange(len(actions)), actions] = 1
    if temperature > 0 and values is not None:
        searched = np.flatnonzero((~np.isnan(values)).sum(axis=1) > 1)
        v = values[searched]
        weights = np.exp(-(v - np.nanmin(v, axis=1, keepdims=True)) / temperature)
        weights = np.where(np.isnan(weights), 0, weights)
        targets[searched] = weights / weights.sum(axis=1, keepdims=True)
    return targets


def fit(net: Network, demos: Demonstrations, config: ExItConfig) -> dict[str, float]:
    """Cross-entropy of the masked logits against the search's targets (``search_targets``), on the
    decisions with a choice; returns the agreement with the search's card before and after (share
    of those decisions)."""
    rows = np.flatnonzero(demos.masks.sum(axis=1) > 1)
    obs = torch.as_tensor(demos.observations[rows])
    mask = torch.as_tensor(demos.masks[rows])
    chosen = torch.as_tensor(demos.actions[rows])
    values = None if demos.values is None else demos.values[rows]
    target = torch.as_tensor(search_targets(demos.actions[rows], values, config.temperature))

    def agreement() -> float:
        with torch.no_grad():
            return float((net(obs).masked_fill(~mask, -1e8).argmax(dim=1) == chosen).float().mean())

    before = agreement()
    optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate)
    generator = torch.Generator().manual_seed(config.seed)
    for _ in range(config.epochs):
        for batch in torch.randperm(len(rows), generator=generator).split(config.batch_size):
            logits = net(obs[batch]).masked_fill(~mask[batch], -1e8)
            loss = torch.nn.functional.cross_entropy(logits, target[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return {"decisions_with_a_choice": len(rows), "agreement_before": before, "agreement_after": agreement()}


def worker_seeds(seed: int, workers: int) -> list[int]:
    """The collection seed of each worker: ``seed`` for worker 0 (a one-process run plays the games
    it always did), a derived stream's for the others."""
    return [seed] + [int(s % 2**63) for s in derive(seed, COLLECTION, np.arange(1, workers))]


def _collect_one(config: ExItConfig, rules: HeartsRules, seed: int, decisions: int, progress: bool) -> Demonstrations:
    network = config.network()
    return collect(
        rules,
        config.teacher(seed),
        decisions,
        seed,
        progress=progress,
        values=True,
        player=network if config.play_share else None,
        player_share=config.play_share,
        layout=network.layout,
    )


def map_over_workers(collect_one: Callable[..., T], config: RunConfig, rules: HeartsRules, total: int) -> list[T]:
    """``collect_one(config, rules, seed, n, progress)`` for ``config.workers`` shares of ``total``
    (split evenly, ``worker_seeds``): on as many processes, or as Ray tasks with ``config.ray``
    (the same parts: where a share ran changes nothing); one share without Ray runs here, in this
    process. The parts in worker order; worker 0 shows the progress bar (not on Ray)."""
    shares = np.diff(np.linspace(0, total, config.workers + 1).round().astype(int))
    work = [
        (seed, max(1, int(n)), config.progress_bar and w == 0 and config.ray is None)
        for w, (seed, n) in enumerate(zip(worker_seeds(config.seed, config.workers), shares, strict=True))
    ]
    one = functools.partial(_share, collect_one, config, rules)
    if config.ray is not None:
        try:
            ray_tasks = RayExecutor(config.ray or None, include_dashboard=False, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise StartError(f"ray: {ray_failure(config.ray, error)}") from None
        with ray_tasks:
            return list(ray_tasks.map(one, work))
    if config.workers == 1:
        return [one(work[0])]
    context = multiprocessing.get_context("spawn")  # no forked copies of torch's or numba's threads
    with ProcessPoolExecutor(config.workers, mp_context=context) as pool:
        return list(pool.map(one, work))


def _share(collect_one: Callable[..., T], config: RunConfig, rules: HeartsRules, work: tuple[int, int, bool]) -> T:
    seed, decisions, progress = work
    return collect_one(config, rules, seed, decisions, progress)


def collect_parallel(config: ExItConfig, rules: HeartsRules) -> Demonstrations:
    """``config.decisions`` pimc-ppo decisions, split over ``config.workers`` processes or Ray
    tasks (``map_over_workers``); the workers' hands are numbered apart."""
    parts = map_over_workers(_collect_one, config, rules, config.decisions)
    if len(parts) == 1:
        return parts[0]
    offsets = np.cumsum([0] + [int(p.hands.max(initial=-1)) + 1 for p in parts[:-1]])
    parts = [dataclasses.replace(p, hands=p.hands + o) for p, o in zip(parts, offsets, strict=True)]
    fields = [f.name for f in dataclasses.fields(Demonstrations) if getattr(parts[0], f.name) is not None]
    return Demonstrations(**{name: np.concatenate([getattr(p, name) for p in parts]) for name in fields})


def main(config: ExItConfig) -> Path:
    """One round: collect (or read ``config.demos``), fit, export, evaluate; returns the new run
    folder, which keeps the collected decisions (``DEMOS_FILE``: the costly part, so that another
    fit can start from them)."""
    torch.manual_seed(config.seed)
    source = config.network()
    hand_rules = dataclasses.replace(config.rules, target_score=None)
    demos = Demonstrations.load(config.demos) if config.demos else None
    if demos is not None and config.temperature > 0 and demos.values is None:
        raise ValueError(f"demonstrations {config.demos}: no search values, which --temperature needs")
    if demos is not None and demos.observations.shape[1] != source.layout.size:
        raise ValueError(
            f"demonstrations {config.demos}: observations of {demos.observations.shape[1]} numbers, "
            f"the network reads {source.layout.size}"
        )
    folder = make_run_folder(config.run_dir, config.exp_name, config.seed)  # before minutes of collection
    start = time.perf_counter()
    if demos is None:
        with removed_on_failure(folder):
            demos = collect_parallel(config, hand_rules)
            demos.save(folder / DEMOS_FILE)
    collected = time.perf_counter()
    net = Network(source)
    metrics = fit(net, demos, config) | {
        "collect_seconds": collected - start,
        "fit_seconds": time.perf_counter() - collected,
    }
    np.savez(folder / WEIGHTS_FILE, **net.arrays(source.meta["layers"]))
    meta = dict(source.meta)
    meta["trained_on"] = {
        "algorithm": "expert iteration (pimc-ppo decisions cloned)",
        "decisions": len(demos),
        "config": dataclasses.asdict(config),
        "from": source.meta.get("trained_on", {}) | {"path": str(source.path)},  # the chain back to PPO
    }
    (folder / META_FILE).write_text(json.dumps(meta, indent=2) + "\n")
    apprentice = TrainedPolicy(folder)  # read back as any user would
    if config.eval_deals:
        result = play_match(
            hand_rules,
            [("new", apprentice)] + [("old", source)] * (hand_rules.num_players - 1),
            deals=config.eval_deals,
            seed=config.seed + 1,
            episode="hand",
        )
        estimate = result.difference("new", "old")
        metrics |= {"new_minus_old": estimate.mean, "new_minus_old_95": [estimate.low, estimate.high]}
    (folder / "exit.json").write_text(json.dumps(metrics, indent=2) + "\n")
    print(json.dumps(metrics, indent=2))
    print(f"wrote {folder}")
    return folder


if __name__ == "__main__":
    from hearts_env.train.cli import expert_iteration

    expert_iteration()
