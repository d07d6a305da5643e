"""The compiled players: the agents whose card choice is a kernel, named by one enumeration, and
the kernel that plays any of them, for the loops that play card after card in compiled code
(``table.play_games``, the search's rollouts in ``pimc_kernels``). A policy class says which
compiled player it is (``table.CompiledTable.compiled_player``)."""

from __future__ import annotations

import numpy as np

from hearts_env.agents.rule_based.heuristic_kernels import heuristic_card
from hearts_env.agents.rule_based.simple_kernels import simple_card
from hearts_env.engine.compiled import inline_kernel

RANDOM, SIMPLE, HEURISTIC = 0, 1, 2
"""``RANDOM`` plays a uniformly random legal card (in rollouts, from their own random streams: it
reads no info row); ``SIMPLE`` and ``HEURISTIC`` are ``simple_card`` and ``heuristic_card``."""


@inline_kernel
def player_card(
    player: int, knobs: np.ndarray, i64: np.ndarray, i32: np.ndarray, i8: np.ndarray, ioff: np.ndarray, rp: np.ndarray
) -> int:
    """The card of the compiled player ``player`` (``SIMPLE``, or ``HEURISTIC`` with its ``knobs``)
    for the seat to act in one info row (views ``i64``, ``i32``, ``i8``; ``rp``: the rules' params)."""
    if player == HEURISTIC:
        return heuristic_card(i64, i32, i8, ioff, rp, knobs)
    return simple_card(i64, i8, ioff, rp)
