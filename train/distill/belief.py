"""Train the belief model (``hearts_env.agents.search.belief``): where the unseen cards lie, learned
from recorded games whose true hands are the labels.

Single hands are played among a mix of agents (``--agents``: each batch of hands seats a random
draw of them, from the seed). At every play-phase decision the seat to act's observation is kept
with, for each card, the relative seat that holds it (-1: the observer's own, played, or gone).
The model (ReLU MLP, a softmax over the other seats per card) is fitted by cross-entropy over the
cards the observer cannot see, and measured on held-out hands (the last batch of hands) against
the uniform consistent sampler's own marginals (``--eval-worlds`` sampled worlds per decision):
log loss per card by trick and a calibration table. It is saved as a policy folder
(``belief.npz``, ``belief.json`` with the metrics); copy both into ``agents/policies/belief`` to
ship it. ``--evaluate FOLDER`` measures a saved model on fresh hands of other agents instead.

    python -m hearts_env.train.distill.belief --hands 12288 --seed 0
    python -m hearts_env.train.distill.belief --evaluate agents/policies/belief --agents pimc --hands 256 --seed 1
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from hearts_env.agents.search.belief import FORMAT, META_FILE, WEIGHTS_FILE, BeliefModel
from hearts_env.agents.specs import agent_from_spec, check_agents
from hearts_env.engine.cards import NUM_CARDS
from hearts_env.engine.core import PLAY, new_games
from hearts_env.engine.infoset import InfoSet, infoset
from hearts_env.engine.observation import LAYOUT_VERSION, ObservationLayout, encode
from hearts_env.engine.rules import HeartsRules
from hearts_env.engine.seeding import game_keys, generator
from hearts_env.engine.worlds import sample_worlds
from hearts_env.play.progress import progress_bar
from hearts_env.play.runner import Step, play
from hearts_env.train.config import RunConfig, check_at_least, net_arch_widths
from hearts_env.train.run_files import make_run_folder, removed_on_failure

HANDS_A_BATCH = 256
"""Hands dealt and played together, one seating of agents each."""
_U64 = np.uint64
_ALL = np.arange(NUM_CARDS, dtype=_U64)
CALIBRATION_BINS = np.array([0.0, 0.05, 0.15, 0.3, 0.5, 0.7, 0.85, 0.95, 1.0])


@dataclass
class BeliefConfig(RunConfig):
    exp_name: str = "belief"
    seed: int = 0
    """seeds the deals, the seatings, the agents and the fit"""
    rules: HeartsRules = field(default_factory=HeartsRules)
    """the table (single hands are played)"""
    agents: list[str] = field(default_factory=lambda: ["heuristic", "ppo", "pimc:worlds=8", "simple"])
    """agent specs whose play the model learns (each batch seats a random draw of them)"""
    hands: int = 8192
    """single hands to record (the last batch is held out to measure the model)"""
    net_arch: str = "256,256"
    """the model's hidden layer widths, comma separated"""
    epochs: int = 4
    batch_size: int = 1024
    """examples per gradient step"""
    learning_rate: float = 2e-3
    """Adam's peak step size (a one-cycle schedule)"""
    eval_worlds: int = 64
    """uniform worlds per held-out decision whose marginals the model is measured against"""
    evaluate: str = ""
    """a belief model's folder to measure on the hands (every one held out) instead of training one"""

    def check(self) -> None:
        super().check()
        for name in ("hands", "epochs", "batch_size", "eval_worlds"):
            check_at_least(name, getattr(self, name), 1)
        net_arch_widths(self.net_arch)
        if not 0 < self.learning_rate < 1:
            raise ValueError(f"learning_rate must be in (0, 1), got {self.learning_rate}")
        if not self.agents:
            raise ValueError("agents: give at least one agent spec")
        check_agents(self.rules, [(spec, agent_from_spec(spec, 0)) for spec in self.agents])


@dataclass
class Examples:
    """Play decisions: ``obs`` (N, F) uint8 observations of the seat to act, ``owner`` (N, 52) int8
    the relative seat holding each card (-1: none the observer cannot see), ``trick`` (N,) the
    tricks completed, ``held`` (N,) bool those of the held-out hands, and for these (in order)
    ``uniform`` (held, P, 52) float32 the uniform consistent sampler's marginals and ``infos``
    their information sets (a batch per step)."""

    obs: np.ndarray
    owner: np.ndarray
    trick: np.ndarray
    held: np.ndarray
    uniform: np.ndarray
    infos: list[InfoSet]


def owners(hands: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(B, 52) int8: the seat relative to ``seat`` (B,) holding each card in ``hands`` (B, P), -1
    for a card no seat holds or the observer's own."""
    P = hands.shape[1]
    rel = np.take_along_axis(hands, (seat.astype(np.int64)[:, None] + np.arange(P)) % P, axis=1)
    bits = (rel[:, :, None] >> _ALL) & _U64(1)  # (B, P, 52)
    out = np.where(bits.any(axis=1), bits.argmax(axis=1), -1).astype(np.int8)
    out[out == 0] = -1
    return out


def collect(config: BeliefConfig, rules: HeartsRules, held_from: int) -> Examples:
    """Every play decision of ``config.hands`` single hands (hand i is hand i of the seed); those
    of hands ``held_from`` on are held out, their uniform marginals sampled."""
    rng = generator(config.seed)
    agents = [agent_from_spec(spec, int(rng.integers(2**31))) for spec in config.agents]
    layout = ObservationLayout(rules)
    parts: list[tuple[np.ndarray, ...]] = []
    uniform: list[np.ndarray] = []
    infos: list[InfoSet] = []

    def record(step: Step) -> None:
        rows = np.flatnonzero(step.state.phase == PLAY)
        if not len(rows):
            return
        state = step.state[rows]
        info = infoset(state)
        held = step.games[rows] >= held_from
        parts.append((encode(info, layout), owners(state.hands, state.to_play), state.tricks_played.copy(), held))
        if held.any():
            infos.append(info[np.flatnonzero(held)])
            uniform.append(world_marginals(sample_worlds(infos[-1], config.eval_worlds, rng)))

    bar = progress_bar(config.hands, "collect", "hand", enabled=config.progress_bar)
    for first in range(0, config.hands, HANDS_A_BATCH):
        count = min(HANDS_A_BATCH, config.hands - first)
        seating = [agents[i] for i in rng.integers(len(agents), size=rules.num_players)]
        ids = first + np.arange(count)
        play(new_games(rules, keys=game_keys(config.seed, ids)), seating, on_step=record, ids=ids)
        bar.update(count)
    bar.close()
    P = rules.num_players
    marginals = np.concatenate(uniform) if uniform else np.zeros((0, P, NUM_CARDS), np.float32)
    obs, owner, trick, held = (np.concatenate(a) for a in zip(*parts, strict=True))
    return Examples(obs, owner, trick, held, marginals, infos)


def world_marginals(worlds: np.ndarray) -> np.ndarray:
    """(n, P, 52) float32: how often each relative seat holds each card in (n, W, P) sampled worlds."""
    return ((worlds[:, :, :, None] >> _ALL) & _U64(1)).mean(axis=1).astype(np.float32)


def smoothed(frequencies: np.ndarray, worlds: int) -> np.ndarray:
    """Sampled frequencies (n, P, 52) of ``worlds`` worlds as probabilities over the other seats,
    half a world added to each (so a holder none of the worlds showed keeps a chance)."""
    counts = frequencies.astype(np.float64) * worlds
    counts[:, 1:] += 0.5
    return counts / (worlds + 0.5 * (frequencies.shape[1] - 1))


class Net(torch.nn.Module):
    """The belief model in torch: ReLU hidden layers, (P - 1) x 52 logits."""

    def __init__(self, inputs: int, hidden: list[int], players: int) -> None:
        super().__init__()
        widths = [inputs, *hidden, (players - 1) * NUM_CARDS]
        self.linears = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in itertools.pairwise(widths))
        self.players = players

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.linears[:-1]:
            x = torch.relu(layer(x))
        return self.linears[-1](x).view(len(x), self.players - 1, NUM_CARDS)


def _loss(net: Net, x: torch.Tensor, owner: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of the holder of each card the observer cannot see."""
    logits = net(x)
    seen = owner >= 1
    target = (owner.long() - 1).clamp(min=0)
    ce = torch.nn.functional.cross_entropy(logits, target, reduction="none")  # (N, 52)
    return (ce * seen).sum() / seen.sum().clamp(min=1)


def fit(net: Net, x: np.ndarray, owner: np.ndarray, scale: np.ndarray, config: BeliefConfig) -> None:
    """Adam with a one-cycle schedule over the training examples."""
    steps = config.epochs * max(1, len(x) // config.batch_size)
    optimizer = torch.optim.Adam(net.parameters())
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, config.learning_rate, total_steps=steps)
    generator_ = torch.Generator().manual_seed(config.seed)
    scale_t = torch.as_tensor(scale)
    bar = progress_bar(steps, "fit", "batch", enabled=config.progress_bar)
    for _ in range(config.epochs):
        order = torch.randperm(len(x), generator=generator_)
        for batch in order[: steps // config.epochs * config.batch_size].split(config.batch_size):
            rows = batch.numpy()
            loss = _loss(net, torch.as_tensor(x[rows]).float() * scale_t, torch.as_tensor(owner[rows]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            bar.update(1)
    bar.close()


def measure(p: np.ndarray, owner: np.ndarray, trick: np.ndarray) -> dict[str, object]:
    """Log loss per unseen card (overall and by trick) and a calibration table of the
    probabilities ``p`` (N, P, 52) given to each (seat, card) against how often it held."""
    seen = owner >= 1
    n, c = np.nonzero(seen)
    chance = p[n, owner[n, c], c]
    loss = -np.log(np.maximum(chance, 1e-12))
    by_trick = {int(t): float(loss[trick[n] == t].mean()) for t in np.unique(trick[n])}
    P = p.shape[1]
    probs = p[n, 1:, c].ravel()  # every other seat's probability of every unseen card
    held = (owner[n, c][:, None] == np.arange(1, P)).ravel()
    bins = np.clip(np.digitize(probs, CALIBRATION_BINS[1:-1]), 0, len(CALIBRATION_BINS) - 2)
    calibration = [
        {
            "bin": f"{CALIBRATION_BINS[b]:.2f}-{CALIBRATION_BINS[b + 1]:.2f}",
            "n": int((bins == b).sum()),
            "mean_p": float(probs[bins == b].mean()),
            "held": float(held[bins == b].mean()),
        }
        for b in range(len(CALIBRATION_BINS) - 1)
        if (bins == b).any()
    ]
    return {"log_loss": float(loss.mean()), "log_loss_by_trick": by_trick, "calibration": calibration}


def held_out_metrics(model: BeliefModel, examples: Examples, config: BeliefConfig) -> dict[str, object]:
    """``measure`` of the held-out decisions' card holders by the model's marginals, the uniform
    sampler's and those of the worlds the sampler draws with the model (``config.eval_worlds``)."""
    held = np.flatnonzero(examples.held)
    z = model.logits(examples.obs[held]).astype(np.float64)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p = np.concatenate([np.zeros((len(p), 1, NUM_CARDS)), p / p.sum(axis=1, keepdims=True)], axis=1)
    owner, trick = examples.owner[held], examples.trick[held]
    rng = generator(config.seed + 1)
    weighted = [
        world_marginals(sample_worlds(info, config.eval_worlds, rng, belief=model.weights(info)))
        for info in examples.infos
    ]
    return {
        "held_out": len(held),
        "model": measure(p, owner, trick),
        "uniform_sampler": measure(smoothed(examples.uniform, config.eval_worlds), owner, trick),
        "belief_sampler": measure(smoothed(np.concatenate(weighted), config.eval_worlds), owner, trick),
    }


def main(config: BeliefConfig) -> Path:
    """Collect, fit, measure and save into a new run folder; returns the folder. With
    ``config.evaluate``, measure that model on every hand instead (nothing is written)."""
    rules = dataclasses.replace(config.rules, target_score=None)
    if config.evaluate:
        model = BeliefModel.load(config.evaluate)
        model.check_rules(rules)
        metrics = held_out_metrics(model, collect(config, rules, held_from=0), config)
        print(json.dumps(metrics, indent=2))
        return Path(config.evaluate)
    torch.manual_seed(config.seed)
    folder = make_run_folder(config.run_dir, config.exp_name, config.seed)
    last_batch = (config.hands - 1) // HANDS_A_BATCH * HANDS_A_BATCH
    with removed_on_failure(folder):
        start = time.perf_counter()
        examples = collect(config, rules, held_from=last_batch if last_batch else config.hands)
        collected = time.perf_counter()
        train = np.flatnonzero(~examples.held)
        layout = ObservationLayout(rules)
        scale = (1.0 / np.maximum(examples.obs[train].max(axis=0), 1)).astype(np.float32)
        hidden = net_arch_widths(config.net_arch)
        net = Net(layout.size, hidden, rules.num_players)
        fit(net, examples.obs[train], examples.owner[train], scale, config)
        names = [f"hidden.{i}" for i in range(len(hidden))] + ["output"]
        layers = [
            (layer.weight.detach().numpy().astype(np.float32), layer.bias.detach().numpy().astype(np.float32))
            for layer in net.linears
        ]
        arrays = {"scale": scale} | {
            f"{name}.{part}": array
            for name, pair in zip(names, layers, strict=True)
            for part, array in zip(("weight", "bias"), pair, strict=True)
        }
        np.savez(folder / WEIGHTS_FILE, **arrays)
        metrics: dict[str, object] = {"examples": len(train), "held_out": int(examples.held.sum())}
        if examples.held.any():
            metrics |= held_out_metrics(BeliefModel(rules, scale, layers), examples, config)
        metrics |= {"collect_seconds": collected - start, "fit_seconds": time.perf_counter() - collected}
        meta = {
            "format": FORMAT,
            "layout_version": LAYOUT_VERSION,
            "weights_sha256": hashlib.sha256((folder / WEIGHTS_FILE).read_bytes()).hexdigest(),
            "rules": config.rules.to_dict(),
            "layers": names,
            "trained_on": {"config": config.to_dict(), "metrics": metrics},
        }
        (folder / META_FILE).write_text(json.dumps(meta, indent=2) + "\n")
        BeliefModel.load(folder).check_rules(rules)  # read back as any user would
    print(json.dumps(metrics, indent=2))
    print(f"wrote {folder}")
    return folder


if __name__ == "__main__":
    from hearts_env.train.cli import belief

    belief()
