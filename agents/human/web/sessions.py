"""Duplicate sessions: how a person plays against an agent, measured on the same deals.

A session is N single-hand deals (at most ``MAX_DEALS``) at one table. The person plays one seat
against chosen agents; the server plays every deal a second time with a chosen agent in the
person's seat against the same opponents, the arena's duplicate idea: the same cards (the deal's
key), the same pass direction (deal d passes entry d mod L of the rules' cycle, as in the arena's
single-hand matches: ``hearts_env.arena.match.hand_rules``) and the same opponents, built for each
deal from the same specs with the same seeds (``Settings.deal_seed``) in both games, so an
opponent that draws random numbers draws the same ones for as long as the two games go alike.
The deals are the arena's deals of a seed (deal d of seed s has the key ``seeding.game_keys(s,
d)``) or the benchmark's dev deals (``DEV_DEALS``: its standard table's, deal for deal).

The agent's game of a deal is played in a worker thread from the moment the person's deal is
dealt, so the person's thinking hides it; the request that ends the person's deal waits for it,
and the two results are stored together (``hearts_env.agents.human.web.store``). The person's cards are
stored as they are played: a session taken up after a restart goes on from its last card.

The figure: the person's points per hand minus the agent's, paired by deal, with its 95%
interval: ``MatchResult.paired_difference`` of two one-seating matches made of the results
(``matches``), overall and per pass direction, and the deals where the two differed most, each
replayable side by side (``side_by_side``). A session exports as the arena's JSON (each side's
``MatchResult.summary()``) and as two replay files (``hearts_env.play.replay``).
"""

from __future__ import annotations

import dataclasses
import json
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from hearts_env.agents.human.web import request_specs
from hearts_env.agents.human.web.replays import step_view
from hearts_env.agents.human.web.store import RESULT_FIELDS, DamagedSession, Result, Store, Stored, StoreError
from hearts_env.agents.human.web.tables import WebError, WebTable, seat_agents, seat_specs
from hearts_env.arena.match import MatchResult, direction_cycle, hand_outcomes, hand_rules, match_rules
from hearts_env.engine import cards, core, seeding
from hearts_env.engine.rules import HeartsRules
from hearts_env.play import replay, runner

MAX_DEALS = 200
DEAL_SETS = ("seed", "dev")
DEV_DEALS = (1, seeding.BENCH_DEV)
"""The benchmark's dev deals: the ``deal_seed`` of its standard table (``bench/suites/v1.json``)
and the dev split's seeding stream (``hearts_env.bench.deals.split_keys``)."""
YOU, AGENT = "you", "agent"
"""The two games of a deal: the person's, and the agent's in the person's seat."""
IN_YOUR_SEAT = " in your seat"
"""Added to the agent's spec to name it in the results (it may also sit among the opponents)."""
MOST_DIFFERENT = 5
"""The deals listed where the two games' points differed most."""
REQUEST_FIELDS = ("seat", "opponents", "agent", "rules", "deals", "deal_set", "seed")


@dataclass(frozen=True)
class Settings:
    """What a session plays, fixed when it begins."""

    rules: HeartsRules  # single hands (no target score); deal d passes entry d mod L of its cycle
    seat: int  # the person's seat
    opponents: tuple[str, ...]  # (P - 1,) the spec at each other seat, clockwise from the person's left
    agent: str  # the spec played in the person's seat
    deals: int
    deal_set: str  # "seed": the arena's deals of ``seed``; "dev": the benchmark's dev deals
    seed: int  # seeds every agent (and, with "seed", the deals)

    @classmethod
    def from_request(cls, request: object, policy_dirs: Sequence[Path]) -> Settings:
        """The settings a request asks for, each field checked (``WebError`` naming the field)."""
        if not isinstance(request, dict):
            raise WebError("the request must be a JSON object")
        unknown = sorted(set(request) - set(REQUEST_FIELDS))
        if unknown:
            raise WebError(f"unknown field {', '.join(unknown)}; a session takes {', '.join(REQUEST_FIELDS)}")
        try:
            rules = match_rules(HeartsRules.from_dict(request.get("rules", {})), "hand")
        except (TypeError, ValueError) as error:
            raise WebError(f"rules: {error}") from None
        seat = _int(request, "seat", 0, 0, rules.num_players - 1)
        opponents = request.get("opponents", ["heuristic"])
        if isinstance(opponents, str):
            opponents = [opponents]
        if not isinstance(opponents, list) or not all(isinstance(o, str) for o in opponents):
            raise WebError("opponents must be a list of agent specs")
        agent = request.get("agent", "ppo")
        for field, spec in [*(("opponents", o) for o in opponents), ("agent", agent)]:
            try:
                request_specs.check_spec(spec, policy_dirs)
            except ValueError as error:
                raise WebError(f"{field}: {error}") from None
        if len(agent) + len(IN_YOUR_SEAT) > replay.MAX_NAME:
            raise WebError(f"agent: a spec of at most {replay.MAX_NAME - len(IN_YOUR_SEAT)} characters")
        specs = seat_specs(rules.num_players, seat, opponents)
        deals = _int(request, "deals", 12, 1, MAX_DEALS)
        deal_set = request.get("deal_set", "seed")
        if deal_set not in DEAL_SETS:
            raise WebError(f"deal_set must be one of {', '.join(DEAL_SETS)}, got {deal_set!r:.40}")
        seed = request.get("seed")
        seed = seeding.fresh_seed() if seed is None else _int(request, "seed", 0, 0, 2**63 - 1)
        settings = cls(rules, seat, tuple(specs.values()), agent, deals, deal_set, seed)
        seat_agents(rules, {**specs, seat: agent}, seed, policy_dirs)  # each can play these rules
        return settings

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)} | {
            "rules": self.rules.to_dict(),
            "opponents": list(self.opponents),
        }

    @classmethod
    def from_dict(cls, data: object) -> Settings:
        """The settings ``to_dict`` wrote (``ValueError`` naming what does not fit)."""
        names = [f.name for f in dataclasses.fields(cls)]
        if not isinstance(data, dict) or sorted(data) != sorted(names):
            raise ValueError(f"settings must be an object of {', '.join(names)}")
        rules = match_rules(HeartsRules.from_dict(data["rules"]), "hand")
        opponents = data["opponents"]
        if not isinstance(opponents, list) or len(opponents) != rules.num_players - 1:
            raise ValueError(f"opponents must be a list of {rules.num_players - 1} agent specs")
        _int(data, "seat", 0, 0, rules.num_players - 1)
        _int(data, "deals", 0, 1, MAX_DEALS)
        _int(data, "seed", 0, 0, 2**63 - 1)
        for field, value in [*(("opponents", o) for o in opponents), ("agent", data["agent"])]:
            if not isinstance(value, str):
                raise ValueError(f"{field} must be agent specs")
        if data["deal_set"] not in DEAL_SETS:
            raise ValueError(f"deal_set must be one of {', '.join(DEAL_SETS)}")
        return cls(**(data | {"rules": rules, "opponents": tuple(opponents)}))

    @property
    def agent_name(self) -> str:
        return self.agent + IN_YOUR_SEAT

    def specs(self) -> dict[int, str]:
        """The opponents' specs by seat."""
        return seat_specs(self.rules.num_players, self.seat, self.opponents)

    def keys(self, deals: Sequence[int]) -> np.ndarray:
        """(n,) uint64: the keys of ``deals``."""
        if self.deal_set == "dev":
            return seeding.derive(DEV_DEALS[0], DEV_DEALS[1], np.asarray(deals, np.int64))
        return seeding.game_keys(self.seed, np.asarray(deals, np.int64))

    def key(self, deal: int) -> int:
        return int(self.keys([deal])[0])

    def deal_rules(self, deal: int) -> HeartsRules:
        return hand_rules(self.rules, deal)

    def direction(self, deal: int) -> str:
        """The way ``deal`` passes: the first of its rules' cycle (``deal_rules``)."""
        return self.deal_rules(deal).pass_cycle[0]

    def deal_seed(self, deal: int) -> int:
        """The seed of the agents of ``deal``, in both of its games."""
        return int(seeding.derive(self.seed, seeding.AGENTS, deal)[()] >> np.uint64(1))

    def seat_names(self, side: str) -> list[str]:
        """The name at each seat in ``side``'s game."""
        mine = YOU if side == YOU else self.agent_name
        specs = self.specs()
        return [mine if s == self.seat else specs[s] for s in range(self.rules.num_players)]

    def start(self, deal: int) -> core.State:
        return core.new_games(self.deal_rules(deal), keys=np.array([self.key(deal)], np.uint64))


def play_agent_game(settings: Settings, deal: int, policy_dirs: Sequence[Path]) -> tuple[list[tuple[int, int]], Result]:
    """The agent's game of ``deal``: its decisions (seat, card) and its result. Its opponents are
    those of the person's game: the same specs, seeded alike (``seat_agents``)."""
    began = time.monotonic()
    rules = settings.deal_rules(deal)
    agents = seat_agents(
        rules, {**settings.specs(), settings.seat: settings.agent}, settings.deal_seed(deal), policy_dirs
    )
    decisions: list[tuple[int, int]] = []

    def record(step: runner.Step) -> None:
        decisions.append((int(step.seats[0]), int(step.actions[0])))

    policies = [agents[s] for s in range(rules.num_players)]
    final = runner.play(settings.start(deal), policies, on_step=record, names=settings.seat_names(AGENT))
    return decisions, game_result(final, time.monotonic() - began)


def game_result(final: core.State, seconds: float) -> Result:
    """The result of a finished single-hand game (a batch of one)."""
    took_qs, shot = hand_outcomes(final, np.array([0]))
    winners = final.winners[0]
    return Result(
        points=tuple(final.scores[0].tolist()),
        wins=tuple((winners / winners.sum()).tolist()),
        qs=tuple(took_qs[0].astype(int).tolist()),
        moons=tuple(shot[0].astype(int).tolist()),
        seconds=seconds,
    )


# ---------------------------------------------------------------------------------------------
# The figures


def deals_over(results: dict[tuple[int, str], Result]) -> int:
    """How many deals are over: they end in order, both games at once."""
    return sum(1 for _, side in results if side == YOU)


def paired_deals(results: dict[tuple[int, str], Result]) -> list[int]:
    """The deals whose two games are over, in order."""
    return sorted(d for d, side in results if side == YOU and (d, AGENT) in results)


def matches(
    settings: Settings,
    results: dict[tuple[int, str], Result],
    decisions: dict[tuple[int, str], list[tuple[int, str]]] | None = None,
) -> tuple[MatchResult, MatchResult]:
    """The person's and the agent's games as two arena matches of one seating each, over the
    deals whose two games are over; with ``decisions``, every game recorded in it (to export)."""
    deals = paired_deals(results)
    P, n = settings.rules.num_players, len(deals)
    out = []
    for side in (YOU, AGENT):
        seat_names = settings.seat_names(side)
        names = tuple(dict.fromkeys(seat_names))
        rows = [results[(d, side)] for d in deals]

        def per_seat(field: str, dtype: type, rows: list[Result] = rows) -> np.ndarray:
            return np.array([getattr(r, field) for r in rows], dtype).reshape(n, 1, P)

        games = () if decisions is None else tuple(_record(settings, d, side, decisions, results) for d in deals)
        out.append(
            MatchResult(
                rules=settings.rules,
                episode="hand",
                seed=settings.seed,
                names=names,
                entries=np.array([names.index(name) for name in seat_names]),
                seating=np.arange(P)[None, :],
                deal_keys=settings.keys(deals),
                directions=np.array([settings.direction(d) for d in deals], dtype=str),
                hands=np.ones((n, 1), np.int64),
                scores=per_seat("points", np.int64),
                wins=per_seat("wins", np.float64),
                qs=per_seat("qs", np.int64),
                moons=per_seat("moons", np.int64),
                seconds=float(sum(r.seconds for r in rows)),
                block=1,
                games=games,
            )
        )
    return out[0], out[1]


def figures(settings: Settings, results: dict[tuple[int, str], Result]) -> dict[str, Any]:
    """The person's points per hand minus the agent's (``difference``, with its 95% interval), each
    side's points per hand, the same per pass direction, and the deals that differed most."""
    you, agent = matches(settings, results)
    name = settings.agent_name

    def compare(direction: str | None = None) -> dict[str, Any]:
        return {
            "difference": you.paired_difference(YOU, agent, name, direction=direction).to_dict(),
            "you": you.estimate(YOU, direction=direction).to_dict(),
            "agent": agent.estimate(name, direction=direction).to_dict(),
        }

    directions = [d for d in direction_cycle(settings.rules) if d in you.directions]
    mine, theirs = you.scores[:, 0, settings.seat], agent.scores[:, 0, settings.seat]
    deals = paired_deals(results)
    order = sorted(range(len(deals)), key=lambda i: (-abs(int(mine[i] - theirs[i])), deals[i]))
    most = [
        {"deal": deals[i], "direction": str(you.directions[i]), "you": int(mine[i]), "agent": int(theirs[i])}
        for i in order[:MOST_DIFFERENT]
        if mine[i] != theirs[i]
    ]
    by_direction = {d: {"deals": int((you.directions == d).sum()), **compare(d)} for d in directions}
    return {"deals": len(deals), **compare(), "by_direction": by_direction, "most_different": most}


def _record(
    settings: Settings,
    deal: int,
    side: str,
    decisions: dict[tuple[int, str], list[tuple[int, str]]],
    results: dict[tuple[int, str], Result],
) -> replay.GameRecord:
    """One finished game of a deal as a replay's record."""
    seats, kitty = replay.dealt(settings.start(deal))
    played = tuple(cards.parse_card(card) for _, card in decisions[(deal, side)])
    return replay.GameRecord(
        deal=deal,
        rotation=0,
        key=settings.key(deal),
        seats=tuple(settings.seat_names(side)),
        pass_cycle=settings.deal_rules(deal).pass_cycle,
        hands=(replay.HandRecord(seats, kitty, played),),
        scores=results[(deal, side)].points,
    )


# ---------------------------------------------------------------------------------------------
# A session in play


class Session:
    """One session: its settings, its stored results, and the deal being played."""

    def __init__(
        self,
        session_id: str,
        created: str,
        settings: Settings,
        results: dict[tuple[int, str], Result],
        played: list[tuple[int, str]],
        store: Store,
        executor: ThreadPoolExecutor,
        policy_dirs: Sequence[Path],
    ) -> None:
        self.id, self.created, self.settings = session_id, created, settings
        self.results = results
        self.store, self.executor, self.policy_dirs = store, executor, list(policy_dirs)
        self.deal = deals_over(results)
        self.restored = [cards.parse_card(card) for _, card in played]  # the current deal's cards so far
        self.table: WebTable | None = None
        self.showing = False  # the deal that just ended is on show until ``next_deal``
        self.stored = 0  # the current deal's decisions already in the store
        self.began = 0.0
        self.agent_game: Future[tuple[list[tuple[int, int]], Result]] | None = None
        self.lock = threading.Lock()
        self.used = time.monotonic()

    @property
    def state(self) -> str:
        """``"playing"``, ``"deal over"`` (its score on show) or ``"finished"``."""
        if self.showing:
            return "deal over"
        return "finished" if self.deal >= self.settings.deals else "playing"

    # -- the person's requests (each takes the session's lock: one at a time)

    def view(self) -> dict[str, Any]:
        with self.lock:
            self._deal_in()
            return self._view()

    def move(self, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self._deal_in()
            if self.table is None or self.showing:
                waits = f"deal {self.deal} is over: the session waits for 'next'" if self.showing else "it is over"
                raise WebError(f"out of turn: {waits}", 409)
            if kind == "pass":
                self.table.pass_cards(data.get("cards"), data.get("turn"))
            else:
                self.table.play(data.get("card"), data.get("turn"))
            try:
                if self.table.state.done[0]:
                    self._finish_deal()
                else:
                    self._store_decisions()
            except StoreError:
                self._back_to_the_store()
                raise
            return self._view()

    def next_deal(self, deal: object) -> dict[str, Any]:
        """On to the deal after ``deal``, the one on show (so a repeated click moves on once)."""
        with self.lock:
            if isinstance(deal, bool) or not isinstance(deal, int):
                raise WebError("deal must be the int 'deal' of the session the request answers")
            if not self.showing or deal != self.deal:
                raise WebError(f"out of turn: the session is at deal {self.deal}, {self.state}", 409)
            self.showing, self.table, self.deal = False, None, self.deal + 1
            self._deal_in()
            return self._view()

    # -- the deals

    def _deal_in(self) -> None:
        """Deal the current deal (or take it up where it was left), unless it is dealt or the
        session is over; the agent's game of it starts in a worker thread."""
        if self.table is not None or self.deal >= self.settings.deals:
            return
        d, settings = self.deal, self.settings
        self.store.begin_deal(self.id, d, settings.key(d), settings.direction(d))
        try:
            self.table = WebTable(
                self.id,
                settings.deal_rules(d),
                settings.seat,
                settings.opponents,
                settings.deal_seed(d),
                self.policy_dirs,
                key=settings.key(d),
                played=self.restored,
            )
        except core.IllegalMoveError as error:
            raise WebError(f"session {self.id}: deal {d}: its stored cards do not play again: {error}", 500) from None
        self.stored, self.restored, self.began = len(self.restored), [], time.monotonic()
        self.agent_game = self.executor.submit(play_agent_game, settings, d, self.policy_dirs)
        self._store_decisions()

    def _back_to_the_store(self) -> None:
        """A write failed: the move that was not stored is undone, the deal to be taken up from
        the cards the store holds (the agent's game of it is played again)."""
        assert self.table is not None
        self.restored = [card for _, card in self.table.decisions[: self.stored]]
        self.table, self.showing, self.agent_game = None, False, None

    def _store_decisions(self) -> None:
        assert self.table is not None
        new = self.table.decisions[self.stored :]
        if new:
            self.store.add_decisions(self.id, self.deal, YOU, self.stored, _named(new))
            self.stored += len(new)

    def _finish_deal(self) -> None:
        """The person's deal is over: wait for the agent's game of it, store both."""
        assert self.table is not None and self.agent_game is not None
        mine = game_result(self.table.state, time.monotonic() - self.began)
        try:
            decisions, theirs = self.agent_game.result()
        except Exception as error:  # an agent's own failure, reported as the server's
            raise WebError(f"the agent in your seat failed on deal {self.deal}: {error}", 500) from None
        games = {
            YOU: (self.stored, _named(self.table.decisions[self.stored :]), mine),
            AGENT: (0, _named(decisions), theirs),
        }
        self.store.finish_deal(self.id, self.deal, games)
        self.results[(self.deal, YOU)], self.results[(self.deal, AGENT)] = mine, theirs
        self.stored, self.showing = len(self.table.decisions), True

    # -- what the page shows

    def _view(self) -> dict[str, Any]:
        table = self.table.view() if self.table is not None else None
        return {"session": self.summary(), "table": table}

    def summary(self) -> dict[str, Any]:
        settings = self.settings
        out: dict[str, Any] = {
            "id": self.id,
            "created": self.created,
            "settings": settings.to_dict(),
            "agent_name": settings.agent_name,
            "deal": self.deal,
            "state": self.state,
            "figures": figures(settings, self.results),
        }
        if self.deal < settings.deals:
            out["direction"] = settings.direction(self.deal)
        if self.showing:
            seat = settings.seat
            out["last"] = {
                "deal": self.deal,
                "direction": settings.direction(self.deal),
                "you": self.results[(self.deal, YOU)].points[seat],
                "agent": self.results[(self.deal, AGENT)].points[seat],
            }
        return out


def _named(decisions: Sequence[tuple[int, int]]) -> list[tuple[int, str]]:
    return [(seat, cards.card_name(card)) for seat, card in decisions]


# ---------------------------------------------------------------------------------------------
# The server's sessions


class Sessions:
    """The sessions of a server: every one in ``store``, those in play held here, at most
    ``max_live`` at once (one idle ``idle_seconds`` is let go: the store keeps it), and at most
    ``max_stored`` in the store. The agents' games run on ``workers`` threads, shared."""

    def __init__(
        self,
        store: Store,
        policy_dirs: Sequence[Path] = (),
        max_live: int = 16,
        idle_seconds: float = 1800,
        max_stored: int = 1000,
        workers: int = 2,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store, self.policy_dirs = store, [Path(d) for d in policy_dirs]
        self.max_live, self.idle_seconds, self.max_stored = max_live, idle_seconds, max_stored
        self.clock = clock
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hearts-web-agent")
        self.live: dict[str, Session] = {}
        self.lock = threading.Lock()

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.store.close()

    def new(self, request: object) -> Session:
        settings = Settings.from_request(request, self.policy_dirs)
        session_id = secrets.token_urlsafe(9)
        created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        with self.lock:
            self._room()
            if not self.store.create(session_id, created, settings.to_dict(), self.max_stored):
                raise WebError(f"the database holds {self.max_stored} sessions, its most: delete some", 503)
            session = self._hold(
                Session(session_id, created, settings, {}, [], self.store, self.executor, self.policy_dirs)
            )
        return session

    def get(self, session_id: str) -> Session:
        """The session ``session_id``, taken up from the store if it is not in play."""
        with self.lock:
            session = self.live.get(session_id)
            if session is None:
                stored = self.store.load(session_id)
                if stored is None:
                    raise WebError(f"no session {session_id!r:.40} here", 404)
                self._room()
                settings = self._settings(stored)
                played = stored.decisions.get((deals_over(stored.results), YOU), [])
                session = Session(
                    stored.id,
                    stored.created,
                    settings,
                    stored.results,
                    played,
                    self.store,
                    self.executor,
                    self.policy_dirs,
                )
                self._hold(session)
            session.used = self.clock()
            return session

    def delete(self, session_id: str) -> None:
        with self.lock:
            self.live.pop(session_id, None)
            if not self.store.delete(session_id):
                raise WebError(f"no session {session_id!r:.40} here", 404)

    def listing(self, most: int = 100) -> list[dict[str, Any]]:
        """The ``most`` latest sessions, latest first, with their figures."""
        out = []
        for stored in self.store.listing(most):
            try:
                if isinstance(stored, DamagedSession):
                    raise stored
                settings = self._settings(stored)
            except DamagedSession as damage:  # listed as such, so it can be deleted; the others as ever
                out.append({"id": damage.session_id, "error": str(damage)})
                continue
            figure = figures(settings, stored.results)
            out.append(
                {
                    "id": stored.id,
                    "created": stored.created,
                    "settings": settings.to_dict(),
                    "agent_name": settings.agent_name,
                    "deals_done": deals_over(stored.results),
                    "difference": figure["difference"],
                }
            )
        return out

    def export(self, session_id: str, what: str) -> tuple[str, str]:
        """The session as ``arena.json`` (each side's ``MatchResult.summary()`` and the figures) or
        as the replay file of one side's games (``you.jsonl``, ``agent.jsonl``): the text and its
        media type."""
        stored = self.store.load(session_id)
        if stored is None:
            raise WebError(f"no session {session_id!r:.40} here", 404)
        settings = self._settings(stored)
        if what == "arena.json":
            you, agent = matches(settings, stored.results)
            data = {
                "kind": "duplicate_session",
                "id": stored.id,
                "created": stored.created,
                "settings": settings.to_dict(),
                "you": you.summary(),
                "agent": agent.summary(),
                "figures": figures(settings, stored.results),
            }
            return json.dumps(data, indent=1), "application/json"
        sides = {f"{YOU}.jsonl": 0, f"{AGENT}.jsonl": 1}
        if what not in sides:
            raise WebError(f"export: {what!r:.40} is none of arena.json, you.jsonl, agent.jsonl", 404)
        if not paired_deals(stored.results):
            raise WebError("export: no deal of this session is over yet", 409)
        match = matches(settings, stored.results, stored.decisions)[sides[what]]
        return "".join(replay.lines([match])), "application/x-ndjson"

    def side_by_side(self, session_id: str, deal: object, step: object) -> dict[str, Any]:
        """Both games of a finished ``deal`` at ``step``, every hand face up."""
        if isinstance(deal, bool) or not isinstance(deal, int) or not 0 <= deal < MAX_DEALS:
            raise WebError(f"deal must be an int 0..{MAX_DEALS - 1}, got {deal!r:.20}")
        stored = self.store.load(session_id, deal)
        if stored is None:
            raise WebError(f"no session {session_id!r:.40} here", 404)
        settings = self._settings(stored)
        deals = paired_deals(stored.results)
        if deal not in deals:
            raise WebError(f"deal {deal!r:.20} of this session is not over (deals over: {len(deals)})")
        out: dict[str, Any] = {"deal": deal, "direction": settings.direction(deal)}
        for side in (YOU, AGENT):
            record = _record(settings, deal, side, stored.decisions, stored.results)
            states = replay.Replay("", {}, settings.rules, (record,)).states(0)
            if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step < len(states):
                raise WebError(f"step must be in 0..{len(states) - 1}, got {step!r:.20}")
            out[side] = step_view(record, states, step, viewer=settings.seat)
        return out

    def _settings(self, stored: Stored) -> Settings:
        """The settings of a stored session, its results and cards checked against them
        (``DamagedSession`` naming what does not fit)."""
        try:
            settings = Settings.from_dict(stored.settings)
        except (TypeError, ValueError):
            raise DamagedSession(self.store.path, stored.id, "settings") from None
        P = settings.rules.num_players
        for (deal, side), result in stored.results.items():
            if side not in (YOU, AGENT) or not 0 <= deal < settings.deals:
                raise DamagedSession(self.store.path, stored.id, "results")
            if any(len(getattr(result, field)) != P for field in RESULT_FIELDS):
                raise DamagedSession(self.store.path, stored.id, "results")
        for _, card in (decision for decisions in stored.decisions.values() for decision in decisions):
            try:
                cards.parse_card(card)
            except ValueError:
                raise DamagedSession(self.store.path, stored.id, "decisions") from None
        return settings

    def sweep(self) -> None:
        """Let go of the sessions idle longer than ``idle_seconds`` (the caller holds the lock)."""
        now = self.clock()
        for session_id in [i for i, s in self.live.items() if now - s.used > self.idle_seconds]:
            del self.live[session_id]

    def _room(self) -> None:
        self.sweep()
        if len(self.live) >= self.max_live:
            raise WebError(f"this server has {len(self.live)} sessions in play, its most: try again later", 503)

    def _hold(self, session: Session) -> Session:
        session.used = self.clock()
        self.live[session.id] = session
        return session


def _int(request: dict[str, Any], field: str, default: int, low: int, high: int) -> int:
    value = request.get(field, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise WebError(f"{field} must be an int {low}..{high}, got {value!r:.40}")
    return value
