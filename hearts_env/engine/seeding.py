"""One seeding scheme: every random stream of a run is a counter-based hash of the user's seed.

A run seeded ``s`` gives game ``i`` the 64-bit key ``game_keys(s, i)``; a game's deals depend only
on its key, so game ``i`` of seed ``s`` is the same game in any batch, whatever the batch size
and whichever games come before it (the arena's deal ``d`` of a match seeded ``s`` is game ``d``).
Other things a run seeds (agents, drawn tournament tables) take their own *stream* of the same
seed through ``derive``, so they never reuse a game's key.

    from hearts_env.engine import core
    from hearts_env.engine.seeding import game_keys

    state = core.new_games(rules, keys=game_keys(0, np.arange(1024)))  # games 0..1023 of seed 0
    assert game_keys(0, 5) == game_keys(0, np.arange(8))[5]

The hash is SplitMix64's: ``mix64_word`` is its finaliser (one uint64 word, wrapping; the kernels
call it), ``mix64`` the same elementwise on uint64 arrays, and the ``i``-th key of a stream is the
``i``-th output of a SplitMix64 generator started from a hash of (seed, stream). Both are compiled:
a game started alone (an environment's reset) costs a few microseconds of hashing, not tens.

Seeds are non-negative ints (``check_seed``, used by every entry point: the core, the environments,
the arena and the commands); a seed of 2**64 or more is the seed modulo 2**64 (the keys hash 64-bit
words), so ``s`` and ``s + 2**64`` give the same run. Training seeds also seed stable-baselines3 and
torch, which take 32-bit seeds, so the trainers take seeds below 2**32.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from hearts_env.engine.compiled import inline_kernel, row_kernel

_U64 = np.uint64
GAMMA = 0x9E3779B97F4A7C15
"""SplitMix64's increment (2**64 / golden ratio, odd): the i-th value of a counter-based stream
hashes ``start + i * GAMMA`` (here, in the core's deals and in the search's random streams)."""
MIX_MULTIPLIERS = (0xBF58476D1CE4E5B9, 0x94D049BB133111EB)
"""The multipliers of SplitMix64's finaliser (``mix64_word``)."""
_GAMMA, _MIX1, _MIX2 = _U64(GAMMA), _U64(MIX_MULTIPLIERS[0]), _U64(MIX_MULTIPLIERS[1])

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
"""The stream of the seeds of a parallel collection's workers (``hearts_env.train.distill.expert_iteration``)."""
BENCH_DEV = 6
"""The stream of the benchmark's ``dev`` deal keys (``hearts_env.bench``), for tuning."""
BENCH_TEST = 7
"""The stream of the benchmark's ``test`` deal keys, for reporting: nothing that trains draws from it."""
BENCH_POSITIONS = 8
"""The stream of the positions on which the benchmark fingerprints an agent's decisions."""
MIXED_PLAY = 9
"""The stream that picks whose card is played in a collection mixing a learner's play into its
teacher's (``hearts_env.train.ppo.imitation.collect``'s ``player_share``)."""
LADDER = 10
"""The stream of the ladder's matches: match ``m`` of a ladder seeded ``s`` is seeded with its
``m``-th value (``hearts_env.bench.ladder``)."""


SEED_LIMIT = 2**64
"""Seeds are taken modulo this."""


def check_seed(seed: object, name: str = "seed", below: int | None = None) -> int:
    """``seed`` modulo ``SEED_LIMIT``, if it is an int >= 0 (a bool, a float, a string or a negative
    number is refused, naming ``name`` and what is accepted); ``below``: refuse seeds from there
    up instead (for libraries that take smaller seeds)."""
    limit = f" below {below:,}" if below else " (seeds of 2**64 and up count modulo 2**64)"
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"{name} must be an int >= 0{limit}, got {seed!r}")
    if seed < 0:
        raise ValueError(f"{name} must be >= 0, got {seed}")
    if below is not None and seed >= below:
        raise ValueError(f"{name} must be{limit}, got {seed:,}")
    return int(seed) % SEED_LIMIT


def generator(seed: int | np.random.SeedSequence | None) -> np.random.Generator:
    """A policy's random generator: from a seed (checked: ``check_seed``), a ``SeedSequence`` (a
    parent's child), or fresh entropy (None)."""
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    return np.random.default_rng(check_seed(seed))


def parse_seed(text: str) -> int:
    """A ``--seed`` flag's value (an ``argparse`` type): ``check_seed`` of the int it spells."""
    import argparse

    try:
        return check_seed(int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-negative int, got {text!r}") from None


def fresh_seed() -> int:
    """A seed from the operating system's entropy, for runs the user did not seed."""
    return cast(int, np.random.SeedSequence().entropy) % 2**63  # a fresh sequence's entropy is an int


@inline_kernel
def mix64_word(x: np.uint64) -> np.uint64:
    """SplitMix64's finaliser: a well-mixed word from a counter (a kernel; wrapping arithmetic)."""
    x = x + _GAMMA
    x = (x ^ (x >> _U64(30))) * _MIX1
    x = (x ^ (x >> _U64(27))) * _MIX2
    return x ^ (x >> _U64(31))


@row_kernel
def _mix_all(words: np.ndarray, out: np.ndarray) -> None:
    for i in range(words.shape[0]):
        out[i] = mix64_word(words[i])


@row_kernel
def _derive_all(seeds: np.ndarray, stream: np.uint64, indices: np.ndarray, out: np.ndarray) -> bool:
    """``out[i]``: value ``indices[i]`` of ``stream`` of ``seeds[i]`` (of ``seeds[0]`` if it is the
    only one); False, with ``out`` unfinished, at a negative index."""
    one_seed = seeds.shape[0] == 1
    for i in range(out.shape[0]):
        if indices[i] < 0:
            return False
        seed = seeds[0] if one_seed else seeds[i]
        out[i] = mix64_word(mix64_word(mix64_word(seed) ^ stream) + _U64(indices[i]) * _GAMMA)
    return True


def mix64(x: np.ndarray) -> np.ndarray:
    """A counter-based hash (SplitMix64's finaliser, ``mix64_word``): well-mixed uint64 from uint64,
    elementwise. Hashing a key with a counter gives reproducible random streams per game."""
    words = np.ascontiguousarray(x, _U64)
    out = np.empty_like(words)
    _mix_all(words.reshape(-1), out.reshape(-1))
    return out


def derive(seed: int | np.ndarray, stream: int, indices: np.ndarray | int) -> np.ndarray:
    """uint64: the ``indices``-th values of ``stream`` of ``seed``. Equal (seed, stream, index)
    give equal values; anything else gives unrelated ones. ``seed`` is an int, or a uint64 array
    (one seed per game) that broadcasts with ``indices``."""
    stream = _check_int("stream", stream)
    indices = np.asarray(indices)
    if indices.dtype.kind not in "iu":
        raise ValueError(f"indices must be non-negative integers, got {indices!r}")
    if isinstance(seed, np.ndarray) and seed.shape != indices.shape:
        seed, indices = np.broadcast_arrays(seed, indices)
    seeds = seed.astype(_U64).reshape(-1) if isinstance(seed, np.ndarray) else np.array([check_seed(seed)], _U64)
    flat = np.ascontiguousarray(indices, np.int64 if indices.dtype.kind == "i" else _U64).reshape(-1)
    out = np.empty(indices.shape, _U64)
    if not _derive_all(seeds, _U64(stream), flat, out.reshape(-1)):
        raise ValueError(f"indices must be non-negative integers, got {indices!r}")
    return out


def game_keys(seed: int, indices: np.ndarray | int) -> np.ndarray:
    """uint64 of the shape of ``indices``: the key of game ``i`` of a run seeded ``seed``, for each
    ``i`` of ``indices`` (give them to ``core.new_games(keys=...)``)."""
    return derive(seed, GAMES, indices)


def _check_int(what: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be an int, got {value!r}")
    return int(value)
