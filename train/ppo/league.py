"""A league of opponents for training: named agents and frozen snapshots of the learner, drawn
by how well they still do against it (prioritised fictitious self-play).

Every ``league`` seat of the training tables plays one member of the league for a whole rollout;
before each rollout every such seat draws a member again, member ``m`` with probability
proportional to ``exp(-R_m / temperature)``, where ``R_m`` is the learner's mean episode return
in the rollouts ``m`` sat in (an exponential moving average, so that old results fade as the
learner changes). A member the learner still loses to is drawn often, one it beats by far
rarely; a member not yet drawn counts as the hardest so far, so that each is tried. The league
starts with its named agents (``--league-agents heuristic pimc:worlds=8``) and a snapshot of the learner,
and takes a new snapshot every ``snapshot_every`` timesteps, keeping the ``size`` latest.

A result is credited to every member seated in its rollout (two league seats share it), and a
hand that runs across two rollouts counts in the second: both average out over many rollouts.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from hearts_env.engine.infoset import InfoSet
from hearts_env.play.policy import Policy

LEAGUE = "league"
"""The opponent name of a seat played by the league."""

SMOOTHING = 0.3
"""Weight of the newest rollout in a member's moving average of the learner's return."""


@dataclass
class Member:
    name: str
    policy: Policy
    mean_return: float | None = None  # the learner's, in rollouts this member sat in (None: never drawn)
    rollouts: int = 0


class LeagueSeat:
    """A seat of the training tables played by the league member drawn for the current rollout."""

    def __init__(self, league: League) -> None:
        self.league = league
        self.member: Member | None = None

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        if self.member is None:
            raise RuntimeError("no league member drawn yet: League.draw() first")
        return self.member.policy(info, mask)

    def __repr__(self) -> str:
        return f"LeagueSeat({self.member.name if self.member else 'empty'})"


class League:
    """The members, their results against the learner, and the seats they are drawn into."""

    def __init__(self, agents: list[tuple[str, Policy]], size: int, temperature: float, seed: int) -> None:
        if size < 1:
            raise ValueError(f"league_size must be >= 1, got {size}")
        if not 0 < temperature < math.inf:
            raise ValueError(f"league_temperature must be > 0, got {temperature}")
        self.agents = [Member(name, policy) for name, policy in agents]
        self.snapshots: list[Member] = []
        self.size, self.temperature = size, temperature
        self.seats: list[LeagueSeat] = []
        self.rng = np.random.default_rng(seed)

    @property
    def members(self) -> list[Member]:
        return self.agents + self.snapshots

    def seat(self) -> LeagueSeat:
        """A new seat played by this league."""
        seat = LeagueSeat(self)
        self.seats.append(seat)
        return seat

    def add_snapshot(self, name: str, policy: Policy) -> None:
        """A frozen copy of the learner joins; the oldest snapshot leaves beyond ``size``."""
        self.snapshots.append(Member(name, policy))
        del self.snapshots[: -self.size]

    def probabilities(self) -> np.ndarray:
        """Each member's chance to be drawn into a seat (``members`` order)."""
        known = [m.mean_return for m in self.members if m.mean_return is not None]
        hardest = min(known, default=0.0)
        returns = np.array([hardest if m.mean_return is None else m.mean_return for m in self.members])
        weights = np.exp(-(returns - hardest) / self.temperature)
        return weights / weights.sum()

    def draw(self) -> None:
        """A member for every seat, independently."""
        members, p = self.members, self.probabilities()
        for seat in self.seats:
            seat.member = members[self.rng.choice(len(members), p=p)]

    def record(self, mean_return: float) -> None:
        """The learner's mean episode return in the rollout just played, credited to the members seated."""
        for member in {id(s.member): s.member for s in self.seats if s.member is not None}.values():
            old = member.mean_return
            member.mean_return = mean_return if old is None else (1 - SMOOTHING) * old + SMOOTHING * mean_return
            member.rollouts += 1


class LeagueCallback(BaseCallback):
    """Keeps the league during training: a snapshot at the start and every ``every`` timesteps
    (``snapshot()`` makes a frozen copy of the learner), the learner's episode returns of each
    rollout recorded, a new draw before each rollout; ``league/`` scalars in the logs."""

    def __init__(self, league: League, snapshot: Callable[[], Policy], every: int) -> None:
        super().__init__()
        self.league, self.snapshot, self.every = league, snapshot, every
        self.returns: list[float] = []
        self.next = math.inf  # the timestep of the next snapshot (set by ``start``)

    def start(self, timesteps: int) -> None:
        """The first snapshot (the learner as it starts, at ``timesteps``) and the first draw: call
        it before ``learn``, whose first reset already plays the league seats."""
        self._add_snapshot(timesteps)
        self.league.draw()

    def _add_snapshot(self, timesteps: int) -> None:
        self.league.add_snapshot(f"snapshot@{timesteps}", self.snapshot())
        self.next = timesteps + self.every if self.every > 0 else math.inf

    def _record(self) -> None:
        if self.returns:
            self.league.record(float(np.mean(self.returns)))
            self.returns.clear()

    def _on_training_end(self) -> None:
        self._record()

    def _on_rollout_start(self) -> None:
        self._record()
        if self.num_timesteps >= self.next:
            self._add_snapshot(self.num_timesteps)
        self.league.draw()
        p = self.league.probabilities()
        self.logger.record("league/members", len(p))
        self.logger.record("league/largest_probability", float(p.max()))
        known = [m.mean_return for m in self.league.members if m.mean_return is not None]
        if known:
            self.logger.record("league/hardest_return", min(known))

    def _on_step(self) -> bool:
        infos = self.locals["infos"]
        for i in np.flatnonzero(self.locals["dones"]):  # VecMonitor's records of the finished episodes
            self.returns.append(float(infos[i]["episode"]["r"]))
        return True

    def table(self) -> list[dict[str, object]]:
        """The members, their draw probabilities and the learner's mean return against each."""
        p = self.league.probabilities()
        return [
            {"name": m.name, "probability": float(q), "learner_mean_return": m.mean_return, "rollouts": m.rollouts}
            for m, q in zip(self.league.members, p, strict=True)
        ]
