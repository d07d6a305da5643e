"""Rewards, one knob shared by every environment.

- ``points`` (default): minus the points of each trick as it is taken, plus a correction at hand
  end for the moon, so that a hand's rewards sum to minus its score;
- ``hand``: minus the hand's score, at hand end;
- ``zero_sum``: at hand end, the mean of the other seats' hand scores minus one's own;
- ``win``: at game end, 1 for a win (1/k each for a k-way tie), else 0.

``step_rewards(before, after, mode)`` gives what one step paid each seat; an environment hands
each agent the sum of what built up since its own last move.
"""

from __future__ import annotations

import numpy as np

from hearts_env.engine import kernels as k
from hearts_env.engine.compiled import inline_kernel, row_kernel
from hearts_env.engine.core import State

REWARD_MODES = ("points", "hand", "zero_sum", "win")


def check_reward_mode(mode: str) -> str:
    if mode not in REWARD_MODES:
        raise ValueError(f"reward must be one of {', '.join(REWARD_MODES)}; got {mode!r}")
    return mode


def step_rewards(before: State, after: State, mode: str) -> np.ndarray:
    """(B, P) float32: what the step from ``before`` to ``after`` paid each seat."""
    out = np.empty((after.batch_size, after.num_players), np.float32)
    _step_rewards(before.data, after.data, after.layout.offsets, after.params, MODE[check_reward_mode(mode)], out)
    return out


MODE = {mode: i for i, mode in enumerate(REWARD_MODES)}
"""Each reward mode's index, as the kernels (``game_rewards``) take it."""
_POINTS, _HAND, _ZERO_SUM, _WIN = range(len(REWARD_MODES))


@row_kernel
def _step_rewards(
    bdata: np.ndarray, adata: np.ndarray, off: np.ndarray, rp: np.ndarray, mode: int, out: np.ndarray
) -> None:
    bd64, bd8 = bdata.view(np.uint64), bdata.view(np.int8)
    ad64, ad32, ad8 = adata.view(np.uint64), adata.view(np.int32), adata.view(np.int8)
    for g in range(adata.shape[0]):
        game_rewards(bd64[g], bd8[g], ad64[g], ad32[g], ad8[g], off, rp, mode, out[g])


@inline_kernel
def game_rewards(
    b64: np.ndarray,
    b8: np.ndarray,
    a64: np.ndarray,
    a32: np.ndarray,
    a8: np.ndarray,
    off: np.ndarray,
    rp: np.ndarray,
    mode: int,
    out: np.ndarray,
) -> None:
    """``out`` (P,): what one game's step from row ``b`` to row ``a`` paid each seat (``mode``: an
    index of ``REWARD_MODES``); compiled loops that step a game call it per card."""
    P = rp[k.R_PLAYERS]
    out[:] = 0
    if b8[off[k.F_PHASE]] == k.GAME_OVER:  # games already over pay nothing
        return
    hand_over = a8[off[k.F_HAND_OVER]] != 0
    points = a32[off[k.F_LAST_HAND_POINTS] : off[k.F_LAST_HAND_POINTS] + P]
    if mode == _POINTS:  # each trick's points as taken, the moon's correction at the hand's end
        for s in range(P):
            paid = k.seat_points(b64, off, rp, s)
            owed = points[s] if hand_over else k.seat_points(a64, off, rp, s)
            out[s] = paid - owed
    elif mode == _HAND and hand_over:
        for s in range(P):
            out[s] = -points[s]
    elif mode == _ZERO_SUM and hand_over:
        total = points.sum()
        for s in range(P):
            out[s] = (total - points[s]) / (P - 1) - points[s]
    elif mode == _WIN and a8[off[k.F_PHASE]] == k.GAME_OVER:
        winners = 0
        for s in range(P):
            winners += a8[off[k.F_WINNERS] + s]
        for s in range(P):
            out[s] = a8[off[k.F_WINNERS] + s] / winners
