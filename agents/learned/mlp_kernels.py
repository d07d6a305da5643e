"""The trained policies' first layer, compiled: an observation is mostly zeros (about 110 of the
765 numbers of the 4-player layout are set), so adding up the weight rows of the numbers that are
set does a seventh of the multiplications of the dense product. The forward pass runs about 1.6
times as fast, and ``pimc-ppo``, whose rollouts are mostly forward passes, about 1.5 times
(``speed/speed_forward.py``, docs/speed.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def sparse_input_layer(observations: np.ndarray, weights: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """(B, H) float32: ``bias + observations @ weights`` for (B, n) observations and (n, H) float32
    weights, skipping the zero inputs."""
    batch, n = observations.shape
    width = weights.shape[1]
    out = np.empty((batch, width), np.float32)
    for row in range(batch):
        for k in range(width):  # loops, not slices: numba compiles them in a tenth of the time
            out[row, k] = bias[k]
        for j in range(n):
            value = np.float32(observations[row, j])
            if value != 0:
                for k in range(width):
                    out[row, k] += value * weights[j, k]
    return out
