"""Rule-based agents' speed: whole hands per second with an agent in every seat, as the arena plays.

Each measured hand is dealt at random, passed (3 cards left) and played to the end. Every seat
has its own agent object, asked once per step for the games where its seat is to act (the
arena's loop: info sets of the batch, legal masks, one call per agent on its games), and the
caller owns the state (``core.step_in_place``). The share of the time spent inside the agents,
and the hands per second the agents alone would allow ("agents only"), are reported too. For
agents with a compiled table loop (``play_table``: the heuristic, simple), "table" is the rate of
the same hands played in that loop, as the arena plays them.

    python speed/speed_agents.py                              # heuristic and simple, B = 4096
    python speed/speed_agents.py --agents heuristic --batch-sizes 1 64 4096 --seconds 10
"""

from __future__ import annotations

import time

import numpy as np
from common import agent_speed_args, save_json

from hearts_env import HeartsRules
from hearts_env.agents.rule_based.heuristic import HeuristicPolicy
from hearts_env.agents.rule_based.simple import SimplePolicy
from hearts_env.engine.core import legal_mask, new_games, step_in_place
from hearts_env.engine.infoset import infoset
from hearts_env.play.policy import RandomPolicy, TablePolicy

AGENTS = {"heuristic": HeuristicPolicy, "simple": SimplePolicy, "random": RandomPolicy}


def measure_agent(name: str, batch_size: int, seconds: float, seed: int) -> dict:
    rules = HeartsRules(target_score=None)  # one hand per game
    P = rules.num_players
    agents = [AGENTS[name](seed=seed + s) for s in range(P)]
    hands = steps = 0
    in_agents = 0.0
    start = time.perf_counter()
    while hands == 0 or time.perf_counter() - start < seconds:  # at least one hand
        state = new_games(rules, batch_size=batch_size, seed=seed + hands)
        while not state.done.all():
            info, mask = infoset(state), legal_mask(state)
            actions = np.zeros(batch_size, np.int64)
            for seat, agent in enumerate(agents):
                rows = np.flatnonzero(state.to_play == seat)
                if len(rows):
                    sub, sub_mask = info[rows], mask[rows]
                    t = time.perf_counter()
                    actions[rows] = agent(sub, sub_mask)
                    in_agents += time.perf_counter() - t
            step_in_place(state, actions)
            steps += 1
        hands += batch_size
    elapsed = time.perf_counter() - start
    return {
        "agent": name,
        "batch_size": batch_size,
        "hands": hands,
        "seconds": elapsed,
        "hands_per_s": hands / elapsed,
        "decisions_per_s": steps * batch_size / elapsed,
        "agent_share": in_agents / elapsed,
        "agent_hands_per_s": hands / in_agents,  # the rate if the agents were the only cost
    }


def measure_table(name: str, batch_size: int, seconds: float, seed: int) -> float | None:
    """Hands per second of the agent's compiled table loop (None if it has none)."""
    rules = HeartsRules(target_score=None)
    agent = AGENTS[name](seed=seed)
    if not isinstance(agent, TablePolicy):
        return None
    seating = np.zeros(rules.num_players, np.int64)
    hands, start = 0, time.perf_counter()
    while hands == 0 or time.perf_counter() - start < seconds:
        agent.play_table(new_games(rules, batch_size=batch_size, seed=seed + hands), seating, [agent])
        hands += batch_size
    return hands / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    args = agent_speed_args(__doc__, list(AGENTS), ["heuristic", "simple"], [4096], argv)
    for name in args.agents:  # compile (or load the compiled kernels) before timing
        measure_agent(name, 8, 0.0, args.seed)
        measure_table(name, 8, 0.0, args.seed)
    results = []
    for name in args.agents:
        for b in args.batch_sizes:
            result = measure_agent(name, b, args.seconds, args.seed)
            result["table_hands_per_s"] = measure_table(name, b, args.seconds, args.seed)
            results.append(result)
    print(
        f"{'agent':>10} {'batch':>6} {'hands/s':>10} {'decisions/s':>12} {'in agents':>10} {'agents only':>12}"
        f" {'table':>10}"
    )
    for r in results:
        table = "-" if r["table_hands_per_s"] is None else f"{r['table_hands_per_s']:,.0f}"
        print(
            f"{r['agent']:>10} {r['batch_size']:>6} {r['hands_per_s']:>10,.0f} {r['decisions_per_s']:>12,.0f}"
            f" {r['agent_share']:>10.0%} {r['agent_hands_per_s']:>12,.0f} {table:>10}"
        )
    save_json(args.json, results)


if __name__ == "__main__":
    main()
