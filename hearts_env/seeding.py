"""One seeding scheme: every random stream of a run is a counter-based hash of the user's seed.

A run seeded ``s`` gives game ``i`` the 64-bit key ``game_keys(s, i)``; a game's deals depend only
on its key, so game ``i`` of seed ``s`` is the same game in any batch, whatever the batch size
and whichever games come before it (the arena's deal ``d`` of a match seeded ``s`` is game ``d``).
Other things a run seeds (agents, drawn tournament tables) take their own *stream* of the same
seed through ``derive``, so they never reuse a game's key.

    from hearts_env import core
    from hearts_env.seeding import game_keys

    state = core.new_games(rules, keys=game_keys(0, np.arange(1024)))  # games 0..1023 of seed 0
    assert game_keys(0, 5) == game_keys(0, np.arange(8))[5]

The hash is SplitMix64's: ``mix64`` is its finaliser (elementwise on uint64 arrays, wrapping), and
the ``i``-th key of a stream is the ``i``-th output of a SplitMix64 generator started from a hash
of (seed, stream).
"""

from __future__ import annotations

import numpy as np

_U64 = np.uint64
_GAMMA = _U64(0x9E3779B97F4A7C15)  # SplitMix64's increment (2**64 / golden ratio, odd)

GAMES = 0
"""The stream of game keys (``game_keys``)."""
AGENTS = 1
"""The stream the arena reseeds agents from."""
TABLES = 2
"""The stream the arena draws random round-robin tables from."""
SEATS = 3
"""The stream of the learner's seat in the Gymnasium environments (``learner_seat="rotate"``)."""
CARDS = 4
"""The stream of each game's random cards (the environments' default random opponents)."""
COLLECTION = 5
"""The stream of the seeds of a parallel collection's workers (``hearts_env.train.expert_iteration``)."""
BENCH_DEV = 6
"""The stream of the benchmark's ``dev`` deal keys (``hearts_env.agents.bench``), for tuning."""
BENCH_TEST = 7
"""The stream of the benchmark's ``test`` deal keys, for reporting: nothing that trains draws from it."""
BENCH_POSITIONS = 8
"""The stream of the positions on which the benchmark fingerprints an agent's decisions."""


def fresh_seed() -> int:
    """A seed from the operating system's entropy, for runs the user did not seed."""
    return int(np.random.SeedSequence().entropy % 2**63)


def mix64(x: np.ndarray) -> np.ndarray:
    """A counter-based hash (SplitMix64's finaliser): well-mixed uint64 from uint64, elementwise.
    Hashing a key with a counter gives reproducible random streams per game."""
    x = x + _GAMMA
    for shift, multiplier in ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB)):
        x ^= x >> _U64(shift)
        x *= _U64(multiplier)
    x ^= x >> _U64(31)
    return x


def derive(seed: int | np.ndarray, stream: int, indices: np.ndarray | int) -> np.ndarray:
    """uint64: the ``indices``-th values of ``stream`` of ``seed``. Equal (seed, stream, index)
    give equal values; anything else gives unrelated ones. ``seed`` is an int, or a uint64 array
    (one seed per game) that broadcasts with ``indices``."""
    stream = _check_int("stream", stream)
    indices = np.asarray(indices)
    if indices.dtype.kind not in "iu" or (indices.size and indices.min() < 0):
        raise ValueError(f"indices must be non-negative integers, got {indices!r}")
    if isinstance(seed, np.ndarray):
        seeds = seed.astype(_U64)
    else:
        seeds = np.array(_check_int("seed", seed) % 2**64, _U64)
    shape = np.broadcast_shapes(seeds.shape, indices.shape)
    # (n,) arrays, never 0-d ones: numpy warns of wrapping in scalar arithmetic only
    seeds = np.broadcast_to(seeds, shape).reshape(-1)
    base = mix64(mix64(seeds) ^ _U64(stream))
    return mix64(base + np.broadcast_to(indices, shape).astype(_U64).reshape(-1) * _GAMMA).reshape(shape)


def game_keys(seed: int, indices: np.ndarray | int) -> np.ndarray:
    """uint64 of the shape of ``indices``: the key of game ``i`` of a run seeded ``seed``, for each
    ``i`` of ``indices`` (give them to ``core.new_games(keys=...)``)."""
    return derive(seed, GAMES, indices)


def _check_int(what: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be an int, got {value!r}")
    return int(value)
