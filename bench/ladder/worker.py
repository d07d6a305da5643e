"""The ladder's match workers: a match played by the arena, a deal a block (every seat rotation,
recorded), each deal stored in its own transaction as it ends (``play_match``). The server runs
them on threads, its bots' seats over their connections; matches of house agents alone need no
connection, so ``hearts-ladder work`` runs them as processes of their own or as Ray tasks
(``play_house_matches``), beside the server, on the same database: their ratings anchor the
ladder's scale.

Every process that plays matches on a database has a name (``--name``: ``server`` and
``worker`` by default), written with each match it begins; started again, it marks the matches of
its name left running as interrupted. Two processes of one name must not share a database.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hearts_env.arena.match import Executor, match_rules, plan_match
from hearts_env.bench.ladder.db import HOUSE, LadderDB, LadderDBError
from hearts_env.bench.ladder.seats import LadderSeat, Lobby
from hearts_env.bench.suite import load_suite
from hearts_env.engine import seeding
from hearts_env.engine.rules import HeartsRules
from hearts_env.play.policy import Policy, close_agents


@dataclass(frozen=True)
class LadderSettings:
    """What a ladder plays and its limits."""

    rules: HeartsRules = field(default_factory=HeartsRules)  # the tables' rules (single hands)
    deals: int = 8  # deals a match plays, each in every seat rotation
    tables: int = 2  # matches played at once
    house: tuple[str, ...] = ("random", "simple", "heuristic")  # the benchmark pool's members who fill seats
    min_bots: int = 1  # bots a table needs (the house agents fill the other seats)
    time_limit: float = 5.0  # seconds a bot has for each answer
    hello_limit: float = 10.0  # seconds a connection has for its whole handshake
    max_connections: int = 256
    max_handshakes: int = 32
    seed: int = 0  # seeds every match (match m: the ladder stream's m-th value) and the scheduler's draws

    def check(self) -> LadderSettings:
        """These settings, or ``ValueError`` naming the first that is wrong."""
        for name in ("deals", "tables", "min_bots", "max_connections", "max_handshakes"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("time_limit", "hello_limit"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be a positive number of seconds, got {getattr(self, name)}")
        pool = load_suite("v1").pool
        unknown = [h for h in self.house if h not in pool]
        if unknown:
            raise ValueError(f"house agents {unknown} are not in the benchmark's pool: {', '.join(pool)}")
        if not self.house and self.min_bots < self.rules.num_players:
            raise ValueError("without house agents a table needs min_bots = the number of players")
        seeding.check_seed(self.seed)
        return self


def match_seed(seed: int, match: int) -> int:
    """The seed of match ``match`` of a ladder seeded ``seed``."""
    return int(seeding.derive(seed, seeding.LADDER, match)) >> 1


def play_match(
    db: LadderDB,
    settings: LadderSettings,
    bots: Sequence[str],
    house: Sequence[str],
    lobby: Lobby | None,
    worker: str,
    stopping: Callable[[], bool],
    say: Callable[[str], None],
) -> str:
    """Play a match of ``bots`` (their seats over ``lobby``'s connections) and ``house`` agents (the
    benchmark pool's names), storing each deal as it ends, until its last deal or ``stopping()``;
    its status: ``done``, or ``interrupted`` (stopped, or an error: said in one line)."""
    status, match = "done", None
    entries: list[tuple[str, Policy]] = []
    pool = load_suite("v1").pool
    try:
        names = [*bots, *(HOUSE + h for h in house)]
        rules = match_rules(settings.rules, "hand")
        match, seed = db.start_match(
            lambda m: match_seed(settings.seed, m), rules.to_dict(), names, settings.deals, worker
        )
        if bots:
            assert lobby is not None, "bots need the lobby of their connections"
            entries = [(b, LadderSeat(b, lobby, settings.time_limit, seed)) for b in bots]
        entries += [(HOUSE + h, pool[h].build(seed)) for h in house]
        plan = plan_match(rules, entries, settings.deals, seed, "hand", history=True, block=1, record=True)
        seats = [a for _, a in entries if isinstance(a, LadderSeat)]
        assert plan.directions is not None
        for b in range(plan.blocks):
            if stopping():
                status = "interrupted"
                break
            for seat in seats:
                seat.stood_in = False
            start = time.perf_counter()
            outcome = plan.play_block(b)
            games = [
                {
                    "record": game.to_json(),
                    "scores": outcome.scores[0, r].tolist(),
                    "wins": outcome.wins[0, r].tolist(),
                    "qs": outcome.qs[0, r].tolist(),
                    "moons": outcome.moons[0, r].tolist(),
                    "hands": int(outcome.hands[0, r]),
                }
                for r, game in enumerate(outcome.games)
            ]
            stand_in = [s.bot for s in seats if s.stood_in]
            seconds = time.perf_counter() - start
            db.store_deal(match, b, int(plan.keys[b]), str(plan.directions[b]), stand_in, seconds, games)
        for seat in seats:
            for fault in seat.faults:
                say(f"match {match}: {fault}; the stand-in played its seat")
    except Exception as error:  # one line, and the match is marked; the caller goes on
        status = "interrupted"
        say(f"match {match}: stopped: {' '.join(str(error).split())}")
    finally:
        close_agents([a for _, a in entries])
        if match is not None:
            try:
                db.finish_match(match, status)
            except LadderDBError as error:
                say(str(error))
    return status


@dataclass(frozen=True)
class HouseMatch:
    """A match of house agents alone, for a worker anywhere: the database's URL, not a connection."""

    url: str
    settings: LadderSettings
    house: tuple[str, ...]  # the pool's names, one per seat
    worker: str


def play_house_match(task: HouseMatch) -> str:
    """Play ``task`` on a connection of its own (in a process of a pool, or a Ray task); its status."""
    db = LadderDB(task.url)
    try:
        return play_match(db, task.settings, [], task.house, None, task.worker, lambda: False, lambda _: None)
    finally:
        db.close()


def play_house_matches(
    url: str, settings: LadderSettings, matches: int, worker: str, executor: Executor | None = None
) -> list[str]:
    """Play ``matches`` matches of house agents drawn from ``settings.house`` (from its seed), by
    ``executor`` (a ``ProcessPoolExecutor``, ``hearts_env.arena.sharding.RayExecutor``) or here; their statuses."""
    P = settings.check().rules.num_players
    rng, K = seeding.generator(settings.seed), len(settings.house)
    draws = [rng.choice(K, P, replace=K < P).tolist() for _ in range(matches)]  # distinct agents where there are enough
    tasks = [HouseMatch(url, settings, tuple(settings.house[i] for i in row), worker) for row in draws]
    db = LadderDB(url)  # the schema made (or refused) once, before any task; left-over matches marked
    try:
        db.interrupt_running(worker)
    finally:
        db.close()
    run: Any = executor.map if executor is not None else map
    return list(run(play_house_match, tasks))
