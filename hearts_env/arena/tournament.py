"""Tournaments: duplicate matches (``hearts_env.arena.match``) at several tables drawn from more
agents than seats, all on the same deals, their statistics pooled per agent and the agents rated
with OpenSkill (``round_robin``, ``TournamentResult``)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hearts_env.arena import report
from hearts_env.arena.match import (
    DEAL_BLOCK,
    Executor,
    MatchResult,
    direction_fields,
    match_bytes,
    match_rules,
    plan_match,
    play_matches,
)
from hearts_env.arena.statistics import DealSums, Estimate
from hearts_env.engine import checks, seeding
from hearts_env.engine.rules import HeartsRules
from hearts_env.play.policy import Policy


@dataclass(frozen=True)
class TournamentResult:
    """Matches at several tables of P drawn from K agents, all on the same deals."""

    names: tuple[str, ...]  # (K,) the agents
    tables: tuple[tuple[int, ...], ...]  # name indices seated at each table (rotation 0)
    matches: tuple[MatchResult, ...]  # one per table
    ratings: dict[str, dict[str, float]] | None  # name -> mu, sigma, ordinal (mu - 3 sigma); None: not rated
    rating_model: str | None

    @property
    def seconds(self) -> float:
        return sum(m.seconds for m in self.matches)

    def sums(self, direction: str | None = None) -> DealSums:
        """Per-deal totals of each name, added up over the tables it sat at (with ``direction``,
        of the deals that pass that way alone)."""
        return DealSums.combine(self.names, [m.sums(direction) for m in self.matches])

    def estimate(self, name: str, metric: str = "points_per_hand", direction: str | None = None) -> Estimate:
        return self.sums(direction).estimate(name, metric)

    def difference(
        self, name: str, other: str | None = None, metric: str = "points_per_hand", direction: str | None = None
    ) -> Estimate:
        return self.sums(direction).difference(name, other, metric)

    def summary(self) -> dict[str, Any]:
        first = self.matches[0]
        hands = int(sum(m.hands.sum() for m in self.matches))
        sums = self.sums()
        agents = report.agent_summaries(sums, first.episode)
        for k, name in enumerate(self.names):
            agents[name]["tables"] = sum(k in t for t in self.tables)
            if self.ratings is not None:
                agents[name]["rating"] = dict(self.ratings[name])
        out = {
            "kind": "round_robin",
            **report.settings(first.rules, first.episode, first.deals, first.seed),
            "tables": [[self.names[i] for i in t] for t in self.tables],
            "games_played": int(sum(m.hands.size for m in self.matches)),
            "hands_played": hands,
            "seconds": self.seconds,
            "hands_per_second": hands / self.seconds if self.seconds > 0 else None,
            "rating_model": self.rating_model,
            "agents": agents,
        }
        return out | direction_fields(first.rules, sums, first.directions, first.episode)

    def table(self) -> str:
        return report.format_table(self.summary())

    def plot(self, path: str, **kwargs: Any) -> None:
        report.plot(self.summary(), path, **kwargs)


def round_robin(
    rules: HeartsRules | None,
    agents: Mapping[str, Policy] | Sequence[tuple[str, Policy]],
    deals: int = 100,
    seed: int = 0,
    episode: str = "game",
    tables: int | None = None,
    ratings: bool = True,
    history: bool = False,
    progress: bool = False,
    model: Any = None,
    block: int = DEAL_BLOCK,
    executor: Executor | None = None,
    record: bool = False,
) -> TournamentResult:
    """Play K agents (distinct names) at tables of P: every P-subset of them (``tables=None``;
    with K < P, every multiset of P seats holding at least two names), or ``tables`` tables drawn
    at random from those. Each table plays a duplicate ``play_match`` on the same deals (same
    ``seed``). With ``ratings`` (needs the ``openskill`` package), every game updates OpenSkill
    ratings (``model``, default ``PlackettLuce()``): the game's players ranked by final score
    (lowest first, ties shared; a name at several seats counts once, by its mean score).
    ``block``, ``executor`` and ``record`` as ``play_match``'s (an executor gets every block of every
    table at once).
    """
    items = list(agents.items()) if isinstance(agents, Mapping) else list(agents)
    names = tuple(n for n, _ in items)
    if len(items) < 2 or len(set(names)) != len(names):
        raise ValueError(f"round_robin needs at least two agents with distinct names, got {list(names)}")
    rules = match_rules(rules, episode)
    seed = seeding.check_seed(seed)
    if ratings and model is None:
        model = openskill_model()
    P, K = rules.num_players, len(names)
    if K >= P:
        candidates = list(itertools.combinations(range(K), P))
    else:
        candidates = [t for t in itertools.combinations_with_replacement(range(K), P) if len(set(t)) > 1]
    if tables is not None:
        tables = checks.count("tables", tables)
        per_table = match_bytes(checks.count("deals", deals), checks.count("block", block), P)
        checks.fits_in_memory(f"{tables:,} tables", tables * per_table)
        rng = np.random.default_rng(int(seeding.derive(seed, seeding.TABLES, 0)))
        picks = rng.choice(len(candidates), size=tables, replace=tables > len(candidates))
        candidates = [candidates[i] for i in sorted(picks)]
    setups = [
        plan_match(rules, [items[i] for i in t], deals, seed, episode, history, block, record=record)
        for t in candidates
    ]
    matches = tuple(play_matches(setups, progress, executor))
    rated = _rate(model, names, matches) if ratings else None
    model_name = type(model).__name__ if ratings else None
    return TournamentResult(names, tuple(candidates), matches, rated, model_name)


def openskill_model() -> Any:
    """OpenSkill's ``PlackettLuce`` model, the ratings' default; ``ImportError`` saying how to install it."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        raise ImportError(
            "round_robin ratings need the openskill package: pip install openskill "
            "(or pass ratings=False for the statistics alone)"
        ) from None
    return PlackettLuce()


def rate_deal(model: Any, ratings: dict[str, Any], match: MatchResult, deal: int, duplicate: bool = False) -> None:
    """Update ``ratings`` (name -> the model's rating; a name not in it starts at the model's
    prior) with deal ``deal`` of ``match``: rotation by rotation, each game's players ranked by
    final score (lowest first, ties shared; a name at several seats counts once, by its mean
    score), or with ``duplicate`` the deal as one game, its players ranked by their mean score
    over every seat they held in its rotations (each held every seat's cards, so the cards' luck
    cancels). A game of one name alone rates nobody."""
    games = [match.seat_names] if duplicate else [match.seat_names[r : r + 1] for r in range(match.seating.shape[0])]
    scores = [match.scores[deal]] if duplicate else [match.scores[deal, r : r + 1] for r in range(len(games))]
    for at, points in zip(games, scores, strict=True):  # (rotations, P) name index and score at each seat
        players = np.unique(at).tolist()
        if len(players) < 2:
            continue
        ranks = [float(points[at == k].mean()) for k in players]
        names = [match.names[k] for k in players]
        for name in names:
            if name not in ratings:
                ratings[name] = model.rating(name=name)
        new = model.rate([[ratings[name]] for name in names], ranks=ranks)
        for name, (rating,) in zip(names, new, strict=True):
            ratings[name] = rating


def rating_fields(rating: Any) -> dict[str, float]:
    """A rating as JSON-ready numbers: mu, sigma and the ordinal (mu - 3 sigma) it is ranked by."""
    return {"mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal()}


def _rate(model: Any, names: tuple[str, ...], matches: tuple[MatchResult, ...]) -> dict[str, dict[str, float]]:
    """OpenSkill ratings from every game, deal by deal, table by table, rotation by rotation."""
    ratings = {n: model.rating(name=n) for n in names}
    for d in range(matches[0].deals):
        for match in matches:
            rate_deal(model, ratings, match, d)
    return {n: rating_fields(r) for n, r in ratings.items()}
