"""One network for the family's tables, measured against a network per table: the per-table
networks of ``pimc-ppo-family-3`` at ``--tables`` (default the one-deck ones: 3 to 7 players and
four with the JD) distilled into a single MLP that reads every table through one observation,
then each table's single network paired with its own network on the same deals against a field
of one opponent.

The shared observation (``hearts_env.agents.learned.shared.SharedLayout``) is the layout of the
largest table with the trick's outcomes, followed by the rules as features; a smaller table's
observation is placed into it seat by seat (``SharedInput``). Each table's own network reads its
part of the same observation. ``--save FOLDER`` writes the single network as the ``ppo-one``
agent reads it (``shared.export``): ``agents/policies/ppo-one`` is this command's, with ``--save``.

For each table the network plays every seat of ``--decisions`` decisions (``imitation.collect``);
its card probabilities at each are the targets of the single network (the cross-entropy of the
legal cards' distribution), the last 5% of each table's decisions held out to measure how often
the two agree. Then, per table, the matches ``hearts-arena NET OPPONENT ... --episode hand``
plays, on the same deals for the single network and the table's own (``search_ablation.match_points``):

    python studies/one_network.py --tables 3p 4p 5p 6p 7p 4p-jd 6p-2d 8p-2d 10p-2d --decisions 200000 \
        --epochs 10 --deals 1000 --opponent heuristic --seed 5
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
from search_ablation import match_points

from hearts_env.agents.cli import build_agents
from hearts_env.agents.learned.family import family_folders, table_rules
from hearts_env.agents.learned.shared import SharedInput, SharedLayout, export, table_network
from hearts_env.agents.learned.trained import TrainedPolicy, masked_argmax, masked_softmax
from hearts_env.arena.statistics import Estimate
from hearts_env.engine.observation import ObservationLayout
from hearts_env.train.ppo.imitation import collect

ONE_DECK = ("3p", "4p", "5p", "6p", "7p", "4p-jd")
HELD_OUT = 0.05


def numpy_layers(net: torch.nn.Sequential) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(m.weight.detach().numpy(), m.bias.detach().numpy()) for m in net if isinstance(m, torch.nn.Linear)]


def columns(layout: ObservationLayout, part: ObservationLayout) -> np.ndarray:
    """Where each entry of ``part``'s observation lies in ``layout``'s (``part``'s sections are
    some of ``layout``'s: a network's own layout within the one the single network reads)."""
    return np.concatenate(
        [np.arange(layout.sections[name][0].start, layout.sections[name][0].stop) for name in part.sections]
    )


def distillation_set(key: str, folder: Path, shared: SharedLayout, decisions: int, seed: int) -> dict[str, np.ndarray]:
    """The table's network playing every seat: the shared inputs' counts, the legal cards and its
    probabilities."""
    rules, teacher = table_rules(key), TrainedPolicy(folder)
    into = SharedInput(rules, shared)
    demos = collect(rules, teacher, decisions, seed=seed, layout=into.layout)
    own = demos.observations[:, columns(into.layout, teacher.layout)]
    target = masked_softmax(teacher.logits(own), demos.masks)
    assert (masked_argmax(target, demos.masks) == demos.actions).all(), "the targets are not the network's play"
    return {"x": into.counts(demos.observations), "mask": demos.masks, "target": target}


def fit(
    sets: dict[str, dict[str, np.ndarray]], shared: SharedLayout, hidden: list[int], epochs: int, seed: int
) -> torch.nn.Sequential:
    """The single network fitted to every table's training decisions (cross-entropy of the targets)."""
    torch.manual_seed(seed)
    sizes = [shared.size, *hidden, 52]
    modules: list[torch.nn.Module] = []
    for i in range(len(sizes) - 1):
        modules += [torch.nn.Linear(sizes[i], sizes[i + 1])] + ([torch.nn.ReLU()] if i < len(sizes) - 2 else [])
    net = torch.nn.Sequential(*modules)
    train = {k: {n: a[: int(len(a) * (1 - HELD_OUT))] for n, a in s.items()} for k, s in sets.items()}
    x = torch.from_numpy(np.concatenate([s["x"] for s in train.values()]))
    table = torch.from_numpy(np.concatenate([np.full(len(s["x"]), t) for t, s in enumerate(train.values())]))
    scale = torch.from_numpy(np.stack([SharedInput(table_rules(key), shared).scale for key in train]))
    mask = torch.from_numpy(np.concatenate([s["mask"] for s in train.values()]))
    target = torch.from_numpy(np.concatenate([s["target"] for s in train.values()]))
    steps = epochs * (len(x) // 1024)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=steps)
    generator = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        order, total = torch.randperm(len(x), generator=generator), 0.0
        for b in range(len(x) // 1024):
            i = order[b * 1024 : (b + 1) * 1024]
            logits = net(x[i].float() * scale[table[i]]).masked_fill(~mask[i], -1e9)
            loss = -(target[i] * torch.log_softmax(logits, -1)).sum(-1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            total += loss.item()
        print(f"epoch {epoch + 1}: cross-entropy {total / (len(x) // 1024):.4f}", flush=True)
    return net


def agreement(net: torch.nn.Module, held: dict[str, np.ndarray], into: SharedInput) -> float:
    """How often the single network's top legal card is the table network's, on held-out decisions."""
    with torch.no_grad():
        logits = net(torch.from_numpy(held["x"] * into.scale)).numpy()
    return float(np.mean(masked_argmax(logits, held["mask"]) == masked_argmax(held["target"], held["mask"])))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=200_000, help="decisions recorded per table")
    parser.add_argument(
        "--hidden", default="256,256", help="the single network's hidden widths (the tables' own: 256,256)"
    )
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--tables", nargs="+", default=list(ONE_DECK), help="table keys: 5p, 4p-jd, 8p-2d")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", type=Path, help="a folder to export the single network to (the ppo-one agent's)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    folders = family_folders(Path(__file__).resolve().parents[1] / "agents" / "policies" / "ppo-family-3")
    start = time.perf_counter()
    shared = SharedLayout(args.tables)
    sets = {key: distillation_set(key, folders[key][0], shared, args.decisions, args.seed) for key in args.tables}
    print(f"recorded {sum(len(s['x']) for s in sets.values()):,} decisions in {time.perf_counter() - start:.0f} s")
    start = time.perf_counter()
    net = fit(sets, shared, [int(w) for w in args.hidden.split(",")], args.epochs, args.seed)
    print(f"fitted in {time.perf_counter() - start:.0f} s")
    if args.save:
        options = {name: value for name, value in vars(args).items() if name != "save"}
        export(args.save, args.tables, numpy_layers(net), trained_on={"study": "studies/one_network.py", **options})
    print(
        "| table | held-out agreement | deals | the table's network minus the field "
        "| the single network minus the field | single minus the table's, paired |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for key in args.tables:
        rules = table_rules(key)
        held = {n: a[int(len(a) * (1 - HELD_OUT)) :] for n, a in sets[key].items()}
        field = build_agents([args.opponent] * (rules.num_players - 1), args.seed + 1)
        own = match_points([("table", TrainedPolicy(folders[key][0]))] + field, args.deals, args.seed, rules)
        field = build_agents([args.opponent] * (rules.num_players - 1), args.seed + 1)
        single = table_network(key, shared, numpy_layers(net), "relu")
        one = match_points([("single", single)] + field, args.deals, args.seed, rules)
        a, b = Estimate.of(own["own"] - own["field"]), Estimate.of(one["own"] - one["field"])
        paired = Estimate.of((one["own"] - one["field"]) - (own["own"] - own["field"]))
        agree = agreement(net, held, SharedInput(rules, shared))
        print(
            f"| {key} | {agree:.1%} | {args.deals:,} | {a.mean:+.2f} ± {a.half_width:.2f} | "
            f"{b.mean:+.2f} ± {b.half_width:.2f} | {paired.mean:+.2f} ± {paired.half_width:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
