"""The interface of anything that plays a seat, and the uniformly random player.

A policy maps the information sets of a batch of games and their legal-action masks to one card
id per game: ``policy(info, mask) -> (B,) int``. Environments call opponents this way, and the
agents of ``agents/`` implement it. A policy with a ``seed(seed)`` method is reseeded by the
environment's ``reset(seed=...)``, so a seeded run is reproducible.

A ``GamePolicy`` knows which game each of its decisions belongs to: the runner asks it with
``decide(turn)`` (``Turn``: the games' ids and legal cards, and the seats' information
sets and masks, built only when read) and, if it has ``observe(step)``, shows it every step. A
program outside keeping its own view of each table is one (``hearts_env.agents.bridges.program``); the
environments' default random opponents, drawing from a random stream of each game's own and
reading no information set, are another. Called as a plain policy, a program still plays.

A policy whose decisions are compiled may also offer ``play_table`` (``TablePolicy``): whole games
with it and its kind at every seat, played in one compiled loop with the same cards the runner
would get from it. The arena takes that path when every agent of a match offers it, and the
environments play their opponents with ``play_to_seat`` (games played until the learner's seat is
to act) when every opponent offers it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from hearts_env.engine import core, seeding
from hearts_env.engine.core import PASS, State, mask_to_bits, sample_from_bits
from hearts_env.engine.infoset import InfoSet, infoset


@runtime_checkable
class Policy(Protocol):
    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray: ...


class SeatToAct:
    """What the seat to act in each of ``state``'s n games sees, built on first read unless the
    caller already has it (``built``): shared by the runner's ``Turn`` and ``Step``."""

    state: core.State
    built: tuple[InfoSet, np.ndarray] | None

    @functools.cached_property
    def info(self) -> InfoSet:
        """(n,) information set of the seat to act in each game."""
        return self.built[0] if self.built is not None else infoset(self.state)

    @functools.cached_property
    def mask(self) -> np.ndarray:
        """(n, 52) bool: the legal cards of the seat to act."""
        return self.built[1] if self.built is not None else core.legal_mask(self.state)


@dataclass(frozen=True)
class Turn(SeatToAct):
    """The decisions of one game-following policy (``GamePolicy``) at one step:
    n games, each at a seat the policy plays."""

    games: np.ndarray  # (n,) int: each game's id
    state: core.State  # the n games: read through ``legal``, ``info`` and ``mask`` (nothing hidden)
    built: tuple[InfoSet, np.ndarray] | None = None  # the info sets and masks, if built already

    @property
    def legal(self) -> np.ndarray:
        """(n,) uint64: the legal cards of the seat to act."""
        return self.state.legal


@runtime_checkable
class GamePolicy(Protocol):
    def decide(self, turn: Turn) -> np.ndarray:
        """(n,) int card ids, one legal card for each game of ``turn`` (``Turn``). A policy
        may also have ``observe(step)``: the runner then calls it after every step with the
        ``runner.Step`` (all its games: a policy must take from it only what the table shows)."""
        ...


@dataclass(frozen=True)
class Seats:
    """Where ``TablePolicy.play_to_seat`` stops each of B games, and what it counts there."""

    seat: np.ndarray  # (B,) int: the seat whose turn stops the game (it is played by no agent)
    episode: str  # "hand" or "game": an episode's end stops the game too
    reward: str  # the reward mode (``hearts_env.engine.rewards.REWARD_MODES``) paid to ``seat``
    pending: np.ndarray  # (B,) float32: the seat's reward so far, which the cards' rewards add to


@runtime_checkable
class TablePolicy(Policy, Protocol):
    def play_table(
        self, state: State, agent_at: np.ndarray, agents: Sequence[Policy]
    ) -> tuple[State, np.ndarray, np.ndarray] | None:
        """Play every game of ``state`` to its end with ``agents[agent_at[g, s]]`` at seat ``s``
        of game ``g`` (``state`` unchanged): the final state and, (B, P) int64, the hands in which
        each seat took the QS and shot the moon; None if it cannot play these agents together."""
        ...

    def play_to_seat(
        self, state: State, agent_at: np.ndarray, agents: Sequence[Policy], to: Seats
    ) -> tuple[State, np.ndarray, np.ndarray] | None:
        """Play each game of ``state`` as ``play_table`` does until seat ``to.seat[g]`` is to act or its
        episode is over (``state`` unchanged): the state then, (B,) float32 ``to.pending`` plus the
        seat's rewards and (B,) bool the games whose episode ended; None as ``play_table``."""
        ...


def close_agents(agents: Iterable[object]) -> None:
    """Close each distinct agent that can be closed (``close()``: a program agent ends its bot
    process, sending it what is still queued, the last events of its tables, first)."""
    for agent in {id(a): a for a in agents}.values():
        if callable(close := getattr(agent, "close", None)):
            close()


class RandomPolicy:
    """A uniformly random legal card (passing included)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = seeding.generator(seed)

    def seed(self, seed: int | np.random.SeedSequence | None) -> None:
        self.rng = seeding.generator(seed)

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        return sample_from_bits(mask_to_bits(mask), self.rng)


class PhaseSplit:
    """One policy for the pass and another for the play, e.g. a trained player that passes at random
    (to measure what its learned passing is worth). Reseeding reaches both."""

    def __init__(self, pass_policy: Policy, play_policy: Policy) -> None:
        self.pass_policy, self.play_policy = pass_policy, play_policy

    def seed(self, seed: int | np.random.SeedSequence | None) -> None:
        parent = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        for policy, child in zip((self.pass_policy, self.play_policy), parent.spawn(2), strict=True):
            if hasattr(policy, "seed"):
                policy.seed(child)

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        passing = info.phase == PASS
        if passing.all():
            return np.asarray(self.pass_policy(info, mask), np.int64)
        if not passing.any():
            return np.asarray(self.play_policy(info, mask), np.int64)
        cards = np.empty(len(passing), np.int64)
        for rows, policy in ((np.flatnonzero(passing), self.pass_policy), (np.flatnonzero(~passing), self.play_policy)):
            cards[rows] = policy(info[rows], mask[rows])
        return cards

    def __repr__(self) -> str:
        return f"PhaseSplit(pass={self.pass_policy!r}, play={self.play_policy!r})"
