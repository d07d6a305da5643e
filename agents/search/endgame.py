"""The exact endgame: the rest of a hand solved with every seat's cards known (a sampled world's
state), for search agents that stop their rollouts a few tricks before the hand's end.

Two searches, ``SEARCHES``:

* ``"paranoid"`` (the default): the deciding seat minimises its own hand score and every other
  seat maximises it, as if they played as one side. That makes the search two-sided, so
  alpha-beta cut-offs and a table of bounds apply: it is the faster of the two, and a card it
  rates well is safe against any defence. Its cost is pessimism: real opponents do not take
  points themselves to hurt the decider, nor hand one of them a moon to do it.
* ``"maxn"``: each seat minimises its own hand score, as players do; among cards equal for the
  mover it takes the one worst for the decider (then the lowest card). No alpha-beta: every
  distinct line of a trick is searched, with the transposition table between tricks.

Both score the hand with the core's scoring (``hearts_env.engine.kernels.hand_score2``): the moon,
the JD rule and, under ``shooter_choice``, the game totals. The kernels, and what keeps the search
small (equivalent cards, the transposition table), are in ``hearts_env.agents.search.endgame_kernels``.
In ``pimc-ppo`` (``endgame=3``, against three ``pimc`` players) neither search changed the agent's
strength measurably, and paranoid is the faster (docs/results.md, docs/speed.md).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from hearts_env.agents.search.endgame_kernels import MAXN, PARANOID, solve_rows
from hearts_env.engine import checks
from hearts_env.engine.core import PLAY, State
from hearts_env.engine.kernels import rule_params
from hearts_env.engine.rules import HeartsRules

SEARCHES = {"paranoid": PARANOID, "maxn": MAXN}
TABLE_BITS = 16  # 65,536 entries (1 MiB, cleared once a call): the table's default size


def tricks_left(state: State) -> np.ndarray:
    """(B,) int: tricks of the hand not yet complete (the current one included)."""
    return state.rules.hand_size - state.tricks_played.astype(np.int64)


def endgame_scores(
    state: State,
    seats: int | np.ndarray,
    rules: HeartsRules | None = None,
    search: str = "paranoid",
    table_bits: int = TABLE_BITS,
) -> np.ndarray:
    """(B,) int32: the hand score of ``seats[g]`` (one seat for all, or (B,) seats) in each game of
    ``state`` when the rest of the hand is played out perfectly under ``search`` (module
    docstring), every hand known.

    ``state``: one deck, play phase; the search ends with the hand, scored under ``rules``
    (default: the state's) with the state's game totals, so the states of a search that plays
    single hands (``target_score=None``) still score ``shooter_choice`` moons as the real game
    would. ``table_bits``: the transposition table holds 2^table_bits entries (0: none; the
    values are the same either way). The cost grows about tenfold a trick: a 4-player paranoid
    solve takes some 12 us of CPU with 3 tricks left, 0.1 ms with 4, 1 ms with 5 and 12 ms with 6;
    max-n 2 to 10 times as long (docs/speed.md)."""
    return solve(state, seats, rules, search, table_bits)[0]


def solve(
    state: State,
    seats: int | np.ndarray,
    rules: HeartsRules | None = None,
    search: str = "paranoid",
    table_bits: int = TABLE_BITS,
) -> tuple[np.ndarray, int]:
    """``endgame_scores``, and the number of positions it searched (what the equivalent cards and
    the table save: tests and docs/speed.md count them)."""
    rules = state.rules if rules is None else rules
    checks.choice("search", search, list(SEARCHES))
    table_bits = checks.integer("table_bits", table_bits, 0, 24)
    if state.rules.decks != 1 or rules.decks != 1 or rules.num_players != state.rules.num_players:
        raise ValueError("the endgame solver plays one deck, the state's table and the scoring rules' alike")
    seats = np.broadcast_to(np.asarray(seats, np.int64), (state.batch_size,))
    if np.any((seats < 0) | (seats >= state.num_players)):
        raise ValueError(f"seats must be in 0..{state.num_players - 1}, got {seats}")
    if np.any(state.phase != PLAY):
        raise ValueError("the endgame solver takes play-phase states")
    one_hand = dataclasses.replace(state.rules, target_score=None)  # the search ends with the hand
    out = np.empty(state.batch_size, np.int32)
    nodes = np.zeros(1, np.int64)
    solve_rows(
        np.ascontiguousarray(state.data),
        state.layout.offsets,
        rule_params(one_hand, state.history),
        rule_params(rules),
        state.deck,
        np.ascontiguousarray(seats),
        SEARCHES[search],
        table_bits,
        out,
        nodes,
    )
    return out, int(nodes[0])
