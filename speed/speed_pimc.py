"""PIMC's speed: search decisions per second, one game per call and batches of games.

The positions are play-phase decisions of random games (``--table``: the standard 4-player
table by default, or any table key such as ``8p-2d``), spread over whole hands, where the seat to
act has more than one legal card, so every decision searches.
Each agent is measured at its default budget: ``pimc-random`` (``PIMCPolicy()``: 64 worlds,
random rollouts), ``pimc`` (``pimc_heuristic()``: 32 worlds, heuristic rollouts and passes) and
``pimc-ppo`` (``PIMCPPOPolicy()``: the shipped network's candidates and rollouts), and
``pimc-ppo:rollout_tricks=1`` (the same, its rollouts stopped at the end of the searched trick
and the rest judged by the network's value head); on request also ``pimc-ppo`` with the exact
endgame (``pimc-ppo:endgame=n``, n = 2 to 4, each with ``endgame_search=maxn`` and with
``rollout_tricks=1``), ``pimc`` and ``pimc-ppo`` with ``inference=belief``, and
``pimc-ppo-family`` (``pimc-ppo`` guided by the network of the table, for the other tables), and
both with ``rollout_others=heuristic`` (the heuristic plays the other seats in the rollouts).
``pimc-ppo`` leaves positions where the network keeps a single candidate unsearched, as in play;
its batches step the rollouts of all their games together, so it gains most from batching.

    python speed/speed_pimc.py                                # the four above, batches of 1 and 64
    python speed/speed_pimc.py --agents pimc --batch-sizes 1 --seconds 10
    python speed/speed_pimc.py --agents pimc-ppo pimc-ppo:endgame=3 pimc-ppo:endgame=4 --batch-sizes 1
    python speed/speed_pimc.py --agents pimc pimc-ppo-family --table 8p-2d --batch-sizes 1

Rates are given per second of wall-clock time and per second of the process's CPU time (steadier
on a shared machine; the search runs on one thread).
"""

from __future__ import annotations

import functools
import time

import numpy as np
from common import agent_speed_args, save_json

from hearts_env import HeartsRules
from hearts_env.agents.search.pimc import PIMCPolicy, pimc_heuristic
from hearts_env.agents.search.pimc_ppo import PIMCPPOPolicy, pimc_ppo_family
from hearts_env.engine.core import PLAY, legal_mask, new_games, sample_actions, step
from hearts_env.engine.infoset import InfoSet, infoset
from hearts_env.engine.records import concatenate

AGENTS = {
    "pimc-random": PIMCPolicy,
    "pimc": pimc_heuristic,
    "pimc-ppo": PIMCPPOPolicy,
    "pimc-ppo:rollout_tricks=1": functools.partial(PIMCPPOPolicy, rollout_tricks=1),
}
DEFAULT_AGENTS = list(AGENTS)
for n in (2, 3, 4):  # the exact endgame's last n tricks (``hearts_env.agents.search.endgame``), measured on request
    AGENTS[f"pimc-ppo:endgame={n}"] = functools.partial(PIMCPPOPolicy, endgame=n)
    AGENTS[f"pimc-ppo:endgame={n},endgame_search=maxn"] = functools.partial(
        PIMCPPOPolicy, endgame=n, endgame_search="maxn"
    )
    AGENTS[f"pimc-ppo:rollout_tricks=1,endgame={n}"] = functools.partial(PIMCPPOPolicy, rollout_tricks=1, endgame=n)
for name, factory in (("pimc", pimc_heuristic), ("pimc-ppo", PIMCPPOPolicy)):  # worlds drawn with the belief model
    AGENTS[f"{name}:inference=belief"] = functools.partial(factory, inference="belief")
AGENTS["pimc-ppo-family"] = pimc_ppo_family
for name, factory in (("pimc-ppo", PIMCPPOPolicy), ("pimc-ppo-family", pimc_ppo_family)):  # the others' rollouts
    AGENTS[f"{name}:rollout_others=heuristic"] = functools.partial(factory, rollout_others="heuristic")


def positions(count: int, seed: int, rules: HeartsRules | None = None) -> tuple[InfoSet, np.ndarray]:
    """``count`` searched decisions, spread over whole games of ``rules`` (default: the standard
    rules): info sets of the seat to act and their legal masks."""
    rng = np.random.default_rng(seed)
    state = new_games(HeartsRules() if rules is None else rules, batch_size=256, seed=seed)
    infos, masks, found = [], [], 0
    while found < count:
        mask = legal_mask(state)
        pick = np.flatnonzero((state.phase == PLAY) & (mask.sum(axis=1) > 1) & (rng.random(256) < 0.02))
        if len(pick):
            infos.append(infoset(state[pick]))
            masks.append(mask[pick])
            found += len(pick)
        state = step(state, sample_actions(state, rng))
    order = rng.permutation(found)[:count]
    return concatenate(infos)[order], np.concatenate(masks)[order]  # type: ignore[return-value]


def measure_agent(name: str, batch_size: int, seconds: float, seed: int, info: InfoSet, mask: np.ndarray) -> dict:
    agent = AGENTS[name](seed=seed)
    decisions, n = 0, len(mask)
    start, start_cpu = time.perf_counter(), time.process_time()
    while decisions == 0 or time.perf_counter() - start < seconds:
        rows = np.arange(decisions, decisions + batch_size) % n
        cards = agent(info[rows], mask[rows])
        assert np.all(mask[rows, cards])
        decisions += batch_size
    elapsed, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    return {
        "agent": name,
        "batch_size": batch_size,
        "decisions": decisions,
        "seconds": elapsed,
        "cpu_seconds": cpu,
        "decisions_per_s": decisions / elapsed,
        "decisions_per_cpu_s": decisions / cpu,
    }


def main(argv: list[str] | None = None) -> None:
    args = agent_speed_args(__doc__, list(AGENTS), DEFAULT_AGENTS, [1, 64], argv, table=True)
    info, mask = positions(1024, args.seed, args.rules)
    for name in args.agents:  # compile (or load the compiled kernels) before timing
        measure_agent(name, 2, 0.0, args.seed, info, mask)
    results = [
        measure_agent(name, b, args.seconds, args.seed, info, mask) for name in args.agents for b in args.batch_sizes
    ]
    print(f"{'agent':>40} {'batch':>6} {'decisions/s':>12} {'per CPU s':>10}")
    for r in results:
        print(
            f"{r['agent']:>40} {r['batch_size']:>6} {r['decisions_per_s']:>12,.1f} {r['decisions_per_cpu_s']:>10,.1f}"
        )
    save_json(args.json, results)


if __name__ == "__main__":
    main()
