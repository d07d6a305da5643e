"""Helpers shared by the information-set and observation tests."""

from collections import Counter

import numpy as np

from hearts_env import HeartsRules
from hearts_env.engine import cards
from hearts_env.engine.cards import BIT
from hearts_env.engine.core import PLAY, State, new_games, sample_actions, step

OFFSETS = {"left": 1, "across": 2, "none": 0}  # "right" is P - 1


def pass_offset(rules: HeartsRules, hand_number: int) -> int:
    """The receiver offset of a hand's pass, worked out from the directions of docs/rules.md."""
    direction = rules.pass_direction(int(hand_number))
    return rules.num_players - 1 if direction == "right" else OFFSETS[direction]


def random_states(rules: HeartsRules, batch: int, seed: int, history: bool, steps: int, keep: float) -> list[State]:
    """States of ``batch`` random games, kept with probability ``keep`` after each step."""
    rng = np.random.default_rng(seed)
    state = new_games(rules, batch_size=batch, seed=seed, history=history)
    kept = [state]
    for _ in range(steps):
        state = step(state, sample_actions(state, rng))
        if rng.random() < keep:
            kept.append(state)
    return kept


# ---------------------------------------------------------------------------------------------
# Two decks: deals and play that make cards cancel


def twin_deals(players: int, batch_size: int, rng: np.random.Generator) -> np.ndarray:
    """(B, 104) deals where seats 2i and 2i+1 hold the same cards (the rest, and the kitty, random)."""
    rules = HeartsRules(num_players=players, decks=2)
    hs, pairs = rules.hand_size, players // 2
    deals = np.empty((batch_size, 104), np.int8)
    for b in range(batch_size):
        ids = rng.permutation(52)
        copies = [int(c) for c in ids[pairs * hs :]] * 2
        rest = rng.permutation(copies)
        for i in range(pairs):
            for c in ids[i * hs : (i + 1) * hs]:
                deals[b, c], deals[b, 52 + c] = 2 * i, 2 * i + 1
        places = [players - 1] * (hs if players % 2 else 0) + [cards.KITTY] * rules.kitty_size
        seen: Counter[int] = Counter()
        for c, place in zip(rest, places, strict=True):
            deals[b, c + 52 * seen[c]] = place
            seen[c] += 1
    return deals


def cancelling_actions(state: State, rng: np.random.Generator, lean: float) -> np.ndarray:
    """Random legal cards, but with probability ``lean`` a legal card whose other copy is already
    in the trick (so that it cancels), else one that the seat's twin (``twin_deals``: seat s ^ 1)
    also holds, so that the twins stay alike."""
    actions = sample_actions(state, rng)
    in_trick = np.bitwise_or.reduce(np.where(state.trick >= 0, BIT[np.clip(state.trick, 0, 51)], np.uint64(0)), axis=1)
    twin = np.minimum(np.maximum(state.to_play, 0) ^ 1, state.num_players - 1)
    shared = state.legal & state.hands[np.arange(state.batch_size), twin]
    cancel = state.legal & in_trick
    lean_on = (state.phase == PLAY) & (rng.random(state.batch_size) < lean)
    for g in np.flatnonzero(lean_on & ((cancel != 0) | (shared != 0))):
        bits = int(cancel[g] or shared[g])
        options = [c for c in range(52) if bits >> c & 1]
        actions[g] = options[int(rng.integers(len(options)))]
    return actions


def cancelling_states(rules: HeartsRules, batch: int, seed: int, steps: int, keep: float) -> list[State]:
    """``random_states`` of two-deck games dealt ``twin_deals`` and played by ``cancelling_actions``,
    so that the states hold pots and tricks without a winner."""
    rng = np.random.default_rng(seed)
    state = new_games(rules, deals=twin_deals(rules.num_players, batch, rng), seed=seed)
    kept = [state]
    for _ in range(steps):
        state = step(state, cancelling_actions(state, rng, 0.8))
        if rng.random() < keep:
            kept.append(state)
    return kept


# ---------------------------------------------------------------------------------------------
# Worlds (``hearts_env.engine.infoset.world_states``)

WORLD_FIELDS = (
    "hand_number",
    "phase",
    "to_play",
    "hands",
    "hands2",
    "trick",
    "leader",
    "winner",
    "trick_size",
    "tricks_played",
    "played",
    "played2",
    "hearts_broken",
    "taken",
    "taken2",
    "kitty",
    "pot",
    "scores",
    "legal",
)
"""The state fields the true world rebuilds exactly; no info set holds the others (the other
seats' passes, the trick history, the last trick, the last hand's results, the game's key)."""


def assert_world_is_the_state(state: State, built: State, rng: np.random.Generator) -> None:
    """``built``, the world of the true hidden cards of ``state``'s info sets, is ``state`` on
    ``WORLD_FIELDS`` and plays the rest of the hand identically under the same random cards."""
    for field in WORLD_FIELDS:
        np.testing.assert_array_equal(getattr(built, field), getattr(state, field), err_msg=field)
    a, b = state, built
    seed = int(rng.integers(2**32))
    ra, rb = np.random.default_rng(seed), np.random.default_rng(seed)
    for _ in range(state.num_players * state.rules.hand_size):
        a, b = step(a, sample_actions(a, ra)), step(b, sample_actions(b, rb))
        if np.any(a.hand_over):
            assert np.all(a.hand_over) and np.all(b.hand_over)
            np.testing.assert_array_equal(b.last_hand_points, a.last_hand_points)
            return
        for field in ("taken", "taken2", "pot", "legal"):
            np.testing.assert_array_equal(getattr(b, field), getattr(a, field), err_msg=field)
    raise AssertionError("the hand did not end")
