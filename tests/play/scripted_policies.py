"""Tiny deterministic policies the runner and arena tests seat at tables."""

import numpy as np


class Lowest:
    """Plays (and passes) its lowest legal card."""

    def __call__(self, info, mask: np.ndarray) -> np.ndarray:
        return mask.argmax(axis=1)


class Highest:
    """Plays (and passes) its highest legal card."""

    def __call__(self, info, mask: np.ndarray) -> np.ndarray:
        return 51 - mask[:, ::-1].argmax(axis=1)
