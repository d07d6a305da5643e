"""The learned models' forward pass (the policies, the value heads, the belief model), its first
layer compiled: an observation is mostly zeros (about 110 of the
765 numbers of the 4-player layout are set), so adding up the weight rows of the numbers that are
set does a seventh of the multiplications of the dense product. The forward pass runs about 1.6
times as fast, and ``pimc-ppo``, whose rollouts are mostly forward passes, about 1.5 times
(``speed/speed_forward.py``, docs/speed.md).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0)


class SparseMLP:
    """An MLP whose first layer reads mostly-zero inputs (``sparse_input_layer``): ``layers`` are
    (weight (out, in), bias (out,)) pairs, ``activation`` follows every layer but the last, and
    ``scale`` (inputs,), when given, multiplies the inputs (folded into the first layer's weights)."""

    def __init__(
        self,
        layers: list[tuple[np.ndarray, np.ndarray]],
        activation: Callable[[np.ndarray], np.ndarray] = relu,
        scale: np.ndarray | None = None,
    ) -> None:
        w, b = layers[0]
        w = w if scale is None else w * scale
        self.first = (np.ascontiguousarray(w.T, np.float32), np.asarray(b, np.float32))  # one row per input
        self.rest, self.activation = layers[1:], activation

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """(B, outputs) float32 of (B, inputs) inputs; ``ValueError`` for inputs of another width
        (another table's or another layout's observations would read the wrong weights)."""
        inputs = len(self.first[0])
        if np.ndim(x) != 2 or np.shape(x)[1] != inputs:
            raise ValueError(f"the network reads (B, {inputs}) inputs, got an array of shape {np.shape(x)}")
        h = sparse_input_layer(np.ascontiguousarray(x), *self.first)
        for w, b in self.rest:
            h = self.activation(h) @ w.T + b
        return h


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
