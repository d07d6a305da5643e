"""OpenSpiel's ``hearts`` played by uniformly random legal moves from Python: the reference rate."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np


def random_play_rate(
    seconds: float, seed: int, infostate: bool = False, all_seats: bool = False
) -> tuple[float, float] | None:
    """(hands per second, decisions per second) of random play, or None without open-spiel.
    ``infostate`` also requests ``information_state_tensor()`` at every decision (of every seat
    with ``all_seats``, as a multi-agent wrapper that observes every agent does)."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("hearts", {"can_lead_hearts_instead_of_qs": True})
    rng = np.random.default_rng(seed)
    hands = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            if infostate:
                for player in range(4) if all_seats else (state.current_player(),):
                    state.information_state_tensor(player)
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            decisions += 1
        hands += 1
    elapsed = time.perf_counter() - start
    return hands / elapsed, decisions / elapsed


def interleaved(measures: dict[str, Callable[[float], float]], seconds: float, rounds: int = 6) -> dict[str, float]:
    """The median rate of each measurement (``measure(seconds) -> rate``) over ``rounds`` rounds
    that take turns, so that a shared machine's changing load weighs on all of them alike."""
    rates: dict[str, list[float]] = {name: [] for name in measures}
    for _ in range(rounds):
        for name, measure in measures.items():
            rates[name].append(measure(seconds / rounds))
    return {name: float(np.median(values)) for name, values in rates.items()}
