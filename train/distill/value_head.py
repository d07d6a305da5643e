"""Train a value head for a policy network (``hearts_env.agents.search.value_head``), so ``pimc-ppo`` can
stop its rollouts after a trick (``pimc-ppo:rollout_tricks=1``).

The network plays every seat of single hands. At a share of its play decisions the search's own
rollouts are run and recorded (``--worlds`` sampled worlds, the search's candidate cards, the
network playing on for every seat): every trick-boundary state of every rollout whose score is
not yet settled becomes one example, labelled with the points each seat had taken by the end of
its rollout. The rollouts are greedy, so that label is the exact value the search would have
rolled out from the state. The head is fitted (mean squared error of the expected points, plus
the moon's cross-entropy) and saved with a copy of the network into a run folder, a policy folder
that ``pimc-ppo:path=RUN,rollout_tricks=1`` reads; copy its ``value.npz`` and ``value.json`` into
``agents/policies/ppo`` to ship it with ``ppo``.

    python -m hearts_env.train.distill.value_head --hands 16384 --workers 2 --seed 0
    python -m hearts_env.train.distill.value_head --hands 65536 --workers 32 --ray auto   # on a Ray cluster
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from hearts_env.agents.learned.hashing import weights_hash
from hearts_env.agents.learned.trained import (
    META_FILE,
    SHIPPED_DIR,
    WEIGHTS_FILE,
    TrainedPolicy,
    masked_argmax,
    masked_softmax,
)
from hearts_env.agents.search.pimc_ppo import PIMCPPOPolicy, network_play, settled
from hearts_env.agents.search.value_head import FORMAT, ValueHead, feature_size, features, from_leader
from hearts_env.agents.search.value_head import META_FILE as VALUE_META
from hearts_env.agents.search.value_head import WEIGHTS_FILE as VALUE_WEIGHTS
from hearts_env.engine.core import PLAY, new_games, raw_points, step
from hearts_env.engine.infoset import InfoSet
from hearts_env.engine.observation import encode
from hearts_env.engine.rules import HeartsRules
from hearts_env.engine.seeding import game_keys
from hearts_env.play.progress import progress_bar
from hearts_env.play.runner import play
from hearts_env.train.config import RunConfig, check_at_least, check_ray, net_arch_widths
from hearts_env.train.distill.expert_iteration import map_over_workers
from hearts_env.train.run_files import make_run_folder, removed_on_failure

HANDS_A_BATCH = 256
"""Hands dealt and played together by a collecting process."""


@dataclass
class ValueConfig(RunConfig):
    exp_name: str = "value"
    seed: int = 0
    """seeds the deals, the search's worlds and the fit"""
    rules: HeartsRules = field(default_factory=HeartsRules)
    """the table (one the network was trained for; single hands are played)"""
    policy: str = ""
    """run folder of the network (empty: the shipped ppo)"""
    hands: int = 16384
    """single hands of self-play to collect from"""
    share: float = 0.05
    """share of the play decisions whose search rollouts are recorded"""
    worlds: int = 16
    """sampled worlds of each recorded search"""
    net_arch: str = "256,256"
    """the head's hidden layer widths, comma separated"""
    epochs: int = 4
    batch_size: int = 2048
    """examples per gradient step"""
    learning_rate: float = 2e-3
    """Adam's peak step size (a one-cycle schedule)"""
    workers: int = 1
    """processes collecting at once (one core each; the hands are split evenly)"""
    ray: str | None = None
    """collect the workers' shares as Ray tasks (the hands those processes would collect)"""

    def check(self) -> None:
        super().check()
        for name in ("hands", "worlds", "epochs", "batch_size", "workers"):
            check_at_least(name, getattr(self, name), 1)
        net_arch_widths(self.net_arch)
        if not 0 < self.share <= 1:
            raise ValueError(f"share must be in (0, 1], got {self.share}")
        if not 0 < self.learning_rate < 1:
            raise ValueError(f"learning_rate must be in (0, 1), got {self.learning_rate}")
        check_ray(self.ray)
        PIMCPPOPolicy(worlds=self.worlds, path=self.policy or None).check_rules(self.rules)


@dataclass
class Examples:
    """Trick-boundary states of rollouts: their ``features`` (N, F) uint8, and (N, P) int8 the raw
    points each seat (counted from the seat to lead) had taken then (``taken``) and at the end of
    the rollout (``final``); ``held`` (N,) bool marks those kept out of the fit to measure it
    (the last batch of hands of each collecting process that played more than one)."""

    features: np.ndarray
    taken: np.ndarray
    final: np.ndarray
    held: np.ndarray

    @staticmethod
    def concatenate(parts: Sequence[Examples]) -> Examples:
        return Examples(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in dataclasses.fields(Examples)))


class _Recorder:
    """A policy for every seat: plays the network's card and, at ``share`` of the play decisions,
    runs the search's rollouts for the decision and keeps their trick-boundary states."""

    def __init__(self, search: PIMCPPOPolicy, share: float) -> None:
        self.search, self.share, self.parts = search, share, []

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        mask = np.asarray(mask, bool)
        network = self.search.network
        logits = network.logits(encode(info, network.layout))
        actions = masked_argmax(logits, mask)
        rows = np.flatnonzero((info.phase == PLAY) & (self.search.rng.random(len(actions)) < self.share))
        if len(rows):
            candidates = self.search.candidates(masked_softmax(logits[rows], mask[rows]))
            candidates[np.arange(len(rows)), actions[rows]] |= mask[rows, actions[rows]]
            self.parts.append(self.record(info[rows], candidates))
        return actions

    def record(self, info: InfoSet, candidates: np.ndarray) -> Examples:
        search, rules = self.search, info.rules
        _, card, start = search.rollout_starts(info, candidates)
        state = step(start, np.repeat(card, search.worlds))
        until = start.tricks_played.astype(np.int64) + 1  # the end of the decision's trick, then each next
        ids = np.arange(state.batch_size)
        final = np.empty_like(state.taken)
        boundary: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        while len(ids):
            state = network_play(state, search.network, rules, search.max_batch, until)
            over = settled(state, rules)
            final[ids[over]] = state.taken[over]
            ids, state = ids[~over], state[np.flatnonzero(~over)]
            if len(ids):
                boundary.append((ids, state.to_play.astype(np.int64), features(state), raw_points(state.taken)))
            until = state.tricks_played.astype(np.int64) + 1
        if not boundary:  # every rollout settled within the decision's trick
            P = rules.num_players
            none = np.zeros((0, P), np.int8)
            return Examples(np.zeros((0, feature_size(P)), np.uint8), none, none, np.zeros(0, bool))
        owner, seat, x, taken = (np.concatenate(a) for a in zip(*boundary, strict=True))
        taken = from_leader(taken, seat).astype(np.int8)
        end = from_leader(raw_points(final[owner]), seat).astype(np.int8)
        return Examples(x, taken, end, np.zeros(len(x), bool))


def collect(config: ValueConfig, rules: HeartsRules, seed: int, hands: int, progress: bool) -> Examples:
    """The examples of ``hands`` single hands of the network's self-play (game i is game i of ``seed``)."""
    search = PIMCPPOPolicy(seed=seed, worlds=config.worlds, path=config.policy or None)
    recorder = _Recorder(search, config.share)
    bar = progress_bar(hands, "collect", "hand", enabled=progress)
    last_batch = 0
    for first in range(0, hands, HANDS_A_BATCH):
        count = min(HANDS_A_BATCH, hands - first)
        last_batch = len(recorder.parts) if first else 0
        play(new_games(rules, keys=game_keys(seed, first + np.arange(count))), [recorder] * rules.num_players)
        bar.update(count)
    bar.close()
    examples = Examples.concatenate(recorder.parts)
    held_from = sum(len(part.held) for part in recorder.parts[:last_batch]) if last_batch else len(examples.held)
    examples.held[held_from:] = True
    return examples


def collect_parallel(config: ValueConfig, rules: HeartsRules) -> Examples:
    """``config.hands`` hands split over ``config.workers`` processes or Ray tasks (``map_over_workers``)."""
    return Examples.concatenate(map_over_workers(collect, config, rules, config.hands))


class Head(torch.nn.Module):
    """The value head in torch: ReLU hidden layers, 2P outputs (share logits, moon logits)."""

    def __init__(self, inputs: int, hidden: list[int], players: int) -> None:
        super().__init__()
        widths = [inputs, *hidden, 2 * players]
        self.linears = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in itertools.pairwise(widths))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.linears[:-1]:
            x = torch.relu(layer(x))
        return self.linears[-1](x)


def _losses(head: Head, examples: Examples, rows: torch.Tensor, moon_points: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The squared error of the shares' points where no one shot the moon (mean over seats and
    examples), and the moon's cross-entropy (no moon, or a moon by each seat that still could)."""
    rows = rows.numpy()
    out = head(torch.as_tensor(examples.features[rows]).float())
    taken = torch.as_tensor(examples.taken[rows]).float()
    final = torch.as_tensor(examples.final[rows]).float()
    P = taken.shape[1]
    left = moon_points - taken.sum(dim=1, keepdim=True)
    no_moon = taken + left * torch.softmax(out[:, :P], dim=1)
    shot = final == moon_points
    calm = ~shot.any(dim=1)
    squared = ((no_moon - final) ** 2)[calm].sum() / max(1, int(calm.sum()) * P)
    can = taken.sum(dim=1, keepdim=True) == taken
    logits = torch.cat([torch.zeros_like(left), out[:, P:].masked_fill(~can, -torch.inf)], dim=1)
    target = torch.where(calm, 0, 1 + shot.int().argmax(dim=1))
    return squared, torch.nn.functional.cross_entropy(logits, target)


def fit(head: Head, examples: Examples, config: ValueConfig, moon_points: int) -> None:
    """Adam on the squared error plus the moon's cross-entropy, over the examples not held out."""
    train = torch.as_tensor(np.flatnonzero(~examples.held))
    steps = config.epochs * max(1, len(train) // config.batch_size)
    optimizer = torch.optim.Adam(head.parameters())
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, config.learning_rate, total_steps=steps)
    generator = torch.Generator().manual_seed(config.seed)
    bar = progress_bar(steps, "fit", "batch", enabled=config.progress_bar)
    for _ in range(config.epochs):
        order = torch.randperm(len(train), generator=generator)
        for batch in order[: steps // config.epochs * config.batch_size].split(config.batch_size):
            squared, moon = _losses(head, examples, train[batch], moon_points)
            optimizer.zero_grad()
            (squared + moon).backward()
            optimizer.step()
            schedule.step()
            bar.update(1)
    bar.close()


def held_out_errors(head: ValueHead, examples: Examples, moon_points: int) -> dict[str, float]:
    """The squared error (mean over seats) of the expected raw points at the end of the rollout on
    the held-out examples, the exported head's against splitting what is left evenly."""
    rows = np.flatnonzero(examples.held)
    taken, final = examples.taken[rows].astype(np.float64), examples.final[rows].astype(np.float64)
    errors, even = [], []
    for chunk in np.array_split(np.arange(len(rows)), max(1, len(rows) // 65536)):
        no_moon, moon = head.outcome(examples.features[rows[chunk]], taken[chunk], moon_points)
        expected = (1 - moon.sum(axis=1, keepdims=True)) * no_moon + moon * moon_points  # a moon's raw points
        errors.append(((expected - final[chunk]) ** 2).sum())
        split = taken[chunk] + (moon_points - taken[chunk].sum(axis=1, keepdims=True)) / taken.shape[1]
        even.append(((split - final[chunk]) ** 2).sum())
    size = max(1, final.size)
    return {"held_out_squared_error": sum(errors) / size, "held_out_squared_error_of_even_shares": sum(even) / size}


def main(config: ValueConfig) -> Path:
    """Collect, fit, save into a new run folder with a copy of the network; returns the folder."""
    torch.manual_seed(config.seed)
    source = TrainedPolicy(config.policy or SHIPPED_DIR / "ppo")
    hand_rules = dataclasses.replace(config.rules, target_score=None)
    folder = make_run_folder(config.run_dir, config.exp_name, config.seed)
    with removed_on_failure(folder):
        start = time.perf_counter()
        examples = collect_parallel(config, hand_rules)
        collected = time.perf_counter()
        hidden = net_arch_widths(config.net_arch)
        head = Head(feature_size(hand_rules.num_players), hidden, hand_rules.num_players)
        fit(head, examples, config, hand_rules.moon_points)
        names = [f"hidden.{i}" for i in range(len(hidden))] + ["output"]
        layers = [
            (layer.weight.detach().numpy().astype(np.float32), layer.bias.detach().numpy().astype(np.float32))
            for layer in head.linears
        ]
        metrics = {"examples": len(examples.held), "held_out": int(examples.held.sum())}
        if metrics["held_out"]:
            metrics |= held_out_errors(ValueHead(hand_rules, layers), examples, hand_rules.moon_points)
        metrics |= {"collect_seconds": collected - start, "fit_seconds": time.perf_counter() - collected}
        arrays = {
            f"{name}.{part}": array
            for name, pair in zip(names, layers, strict=True)
            for part, array in zip(("weight", "bias"), pair, strict=True)
        }
        np.savez(folder / VALUE_WEIGHTS, **arrays)
        meta = {
            "format": FORMAT,
            "rules": source.meta["rules"],
            "layers": names,
            "trained_on": {
                "network": {"policy": config.policy or "shipped ppo", "weights_sha256": weights_hash(source)},
                "config": config.to_dict(),
                "metrics": metrics,
            },
        }
        (folder / VALUE_META).write_text(json.dumps(meta, indent=2) + "\n")
        for name in (WEIGHTS_FILE, META_FILE):
            shutil.copyfile(source.path / name, folder / name)
        ValueHead.load(folder).check_rules(hand_rules)  # read back as any user would
    print(json.dumps(metrics, indent=2))
    print(f"wrote {folder}")
    return folder


if __name__ == "__main__":
    from hearts_env.train.cli import value_head

    value_head()
