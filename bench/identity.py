"""What identifies an agent's play beside its network's weights
(``hearts_env.agents.learned.hashing.weights_hash``): a fingerprint of its decisions.

``fingerprint(policy, tables, games)``: the SHA-256 of the cards the policy chooses on a fixed set
of positions of each table (``positions``): ``games`` games per table, each looked at after 0,
1/8, ..., 7/8 of its first hand's actions, reached by uniformly random legal cards drawn from a
counter-based hash of the game's key (``seeding.BENCH_POSITIONS``), so the positions depend on
nothing but the rules and this module. The policy (a copy, seeded with ``FINGERPRINT_SEED``)
decides them all in one batched call per table. A change of an agent's code that changes its
play changes its fingerprint; a refactor that keeps every decision does not. (A decision that is
a near-tie of floating-point values may also flip on a machine whose arithmetic differs: then
the fingerprint differs there too, and the suite says so rather than mislabel the results.)
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping

import numpy as np

from hearts_env.engine import core, seeding
from hearts_env.engine.infoset import InfoSet, infoset
from hearts_env.engine.rules import HeartsRules
from hearts_env.play.policy import Policy

FINGERPRINT_SEED = 0
"""The seed a policy is given before it decides the fingerprint's positions."""
SNAPSHOTS = 8
"""Positions per game: after 0, 1/8, ..., 7/8 of the actions of its first hand."""


def positions(rules: HeartsRules, games: int) -> tuple[InfoSet, np.ndarray]:
    """The fingerprint's positions of a table: ``games`` x ``SNAPSHOTS`` information sets of the
    seat to act, and their (n, 52) legal masks."""
    keys = seeding.derive(0, seeding.BENCH_POSITIONS, np.arange(games))
    state = core.new_games(rules, keys=keys)
    actions = rules.num_players * (rules.pass_count + rules.hand_size)  # the first hand's
    looks = {actions * i // SNAPSHOTS for i in range(SNAPSHOTS)}
    seen = []
    for step in range(max(looks) + 1):
        if step in looks:
            seen.append(state)
        uniform = (seeding.derive(state.key, seeding.BENCH_POSITIONS, step) >> np.uint64(11)) * 2.0**-53
        state = core.step(state, core.choose_from_bits(state.legal, uniform))
    looked = core.concatenate(seen)
    return infoset(looked), core.legal_mask(looked)


def fingerprint(policy: Policy, tables: Mapping[str, HeartsRules], games: int) -> str:
    """The SHA-256 (hex) of ``policy``'s cards on the positions of each table (by name, in name order)."""
    player = copy.deepcopy(policy)
    if callable(getattr(player, "seed", None)):
        player.seed(FINGERPRINT_SEED)
    digest = hashlib.sha256()
    for name in sorted(tables):
        info, mask = positions(tables[name], games)
        cards = np.asarray(player(info, mask))
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(cards, "<i8").tobytes())
    return digest.hexdigest()
