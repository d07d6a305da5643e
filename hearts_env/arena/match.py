"""Duplicate matches between agents, played on the batched runner, in blocks of deals that can run
anywhere (``executor=``: a process pool, a Ray cluster); ``hearts_env.arena.tournament`` plays them
at several tables."""

from __future__ import annotations

import copy
import dataclasses
import functools
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from hearts_env.arena import report
from hearts_env.arena.statistics import DealSums, Estimate
from hearts_env.engine import checks, core, records, seeding
from hearts_env.engine.cards import QS_BIT
from hearts_env.engine.rules import HeartsRules
from hearts_env.play import replay, runner
from hearts_env.play.policy import Policy, TablePolicy, close_agents
from hearts_env.play.progress import progress_bar

EPISODES = ("game", "hand")
"""What each deal plays: a whole game to the target score, or one hand."""

DEAL_BLOCK = 1000
"""Deals per block by default: agents are reseeded at the start of every block of deals, and a
block is the unit of work an ``executor`` runs."""

AgentsArg = Mapping[str, Policy] | Sequence[tuple[str, Policy] | Policy]


class Executor(Protocol):
    """Anything with ``concurrent.futures.Executor``'s ``map``: ``map(fn, items)`` calls ``fn`` on
    every item (anywhere, in any order, all submitted at once) and yields the results in the
    order of the items (``hearts_env.arena.sharding.RayExecutor``, a ``ProcessPoolExecutor``)."""

    def map(self, fn: Any, items: Iterable[Any]) -> Iterator[Any]: ...


@dataclass(frozen=True)
class MatchResult:
    """The raw outcome of a duplicate match: N deals x R = P rotations, indexed [deal, rotation, seat]."""

    rules: HeartsRules
    episode: str  # "game" or "hand"
    seed: int
    names: tuple[str, ...]  # (K,) distinct agent names, in the order of their first entry
    entries: np.ndarray  # (P,) int: name index of each entry of the agents list
    seating: np.ndarray  # (R, P) int: entry seated at each seat in rotation r: (seat - r) % P
    deal_keys: np.ndarray  # (N,) uint64: the key of each deal (its games' State.key)
    directions: np.ndarray | None  # (N,) str: each deal's pass direction (single hands); None for whole games
    hands: np.ndarray  # (N, R) int: hands played in each game
    scores: np.ndarray  # (N, R, P) int: each seat's final total (the sum of its hand points)
    wins: np.ndarray  # (N, R, P) float: each seat's share of the win (1/k for k tied winners)
    qs: np.ndarray  # (N, R, P) int: hands in which the seat took the QS
    moons: np.ndarray  # (N, R, P) int: hands in which the seat shot the moon
    seconds: float  # time spent playing (wall time, whatever played the blocks)
    block: int = DEAL_BLOCK  # deals per block (agents reseeded at the start of each)
    games: tuple[replay.GameRecord, ...] = ()  # with record=True: every game, by deal then rotation

    @property
    def deals(self) -> int:
        return len(self.deal_keys)

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def game_keys(self) -> np.ndarray:
        """(N * R,) uint64: the key of every game, game (d, r) at d * R + r."""
        return np.repeat(self.deal_keys, self.seating.shape[0])

    @property
    def seat_names(self) -> np.ndarray:
        """(R, P) int: name index seated at each seat in each rotation."""
        return self.entries[self.seating]

    def sums(self, direction: str | None = None) -> DealSums:
        """Per-deal totals of each name (see ``DealSums``); with ``direction``, of the deals that
        pass that way alone (single hands)."""
        onehot = (self.seat_names[..., None] == np.arange(len(self.names))).astype(np.float64)  # (R, P, K)
        per_seat = {
            "seat_games": np.ones_like(self.scores, dtype=np.float64),
            "hands": np.broadcast_to(self.hands[..., None], self.scores.shape),
            "points": self.scores,
            "wins": self.wins,
            "qs": self.qs,
            "moons_made": self.moons,
            "moons_suffered": self.moons.sum(axis=2, keepdims=True) - self.moons,
            # zero-sum: the mean of the other seats' points minus the seat's own
            "payoff": (self.scores.sum(axis=2, keepdims=True) - self.scores) / (self.num_players - 1) - self.scores,
        }
        sums = DealSums(self.names, **{k: np.einsum("nrp,rpk->nk", v, onehot) for k, v in per_seat.items()})
        return sums if direction is None else sums.take(_deals_passing(self.directions, direction))

    def estimate(self, name: str, metric: str = "points_per_hand", direction: str | None = None) -> Estimate:
        """``metric`` of the agent ``name``: mean over deals (those passing ``direction``, if given)
        with its 95% interval."""
        return self.sums(direction).estimate(name, metric)

    def difference(
        self, name: str, other: str | None = None, metric: str = "points_per_hand", direction: str | None = None
    ) -> Estimate:
        """``name``'s ``metric`` minus ``other``'s (default: the field, every other name pooled),
        paired by deal (the deals passing ``direction``, if given). For points, a negative
        difference whose interval excludes 0 is better."""
        return self.sums(direction).difference(name, other, metric)

    def paired_difference(
        self,
        name: str,
        other: MatchResult,
        other_name: str,
        metric: str = "points_per_hand",
        direction: str | None = None,
    ) -> Estimate:
        """``name``'s metric in this match minus ``other_name``'s in match ``other``, paired by deal
        (the deals passing ``direction`` alone, if given): the two matches must have been played on
        the same deals (same seed, deal count and kind of game). An ablation's measure: e.g. an
        agent and its variant, each against three heuristic players."""
        same_directions = (self.directions is None and other.directions is None) or (
            self.directions is not None
            and other.directions is not None
            and np.array_equal(self.directions, other.directions)
        )
        if not np.array_equal(self.deal_keys, other.deal_keys) or not same_directions:
            raise ValueError(
                "paired_difference needs two matches on the same deals (same seed, number of deals and games mode)"
            )
        mine, theirs = self.sums(direction).ratio(metric, name), other.sums(direction).ratio(metric, other_name)
        return Estimate.of(mine - theirs)

    def summary(self) -> dict[str, Any]:
        """A JSON-ready dict of the match: settings, counts, every name's estimates and, for single
        hands, the same by pass direction (``by_direction``)."""
        hands = int(self.hands.sum())
        sums = self.sums()
        out = {
            "kind": "match",
            **report.settings(self.rules, self.episode, self.deals, self.seed),
            "rotations": int(self.seating.shape[0]),
            "seats": [self.names[i] for i in self.entries],
            "games_played": int(self.hands.size),
            "hands_played": hands,
            "seconds": self.seconds,
            "hands_per_second": hands / self.seconds if self.seconds > 0 else None,
            "block": self.block,
            "agents": report.agent_summaries(sums, self.episode),
        }
        for name, entry in out["agents"].items():
            entry["seats"] = int(sum(self.names[i] == name for i in self.entries))
        return out | direction_fields(self.rules, sums, self.directions, self.episode)

    def table(self) -> str:
        return report.format_table(self.summary())

    def plot(self, path: str, **kwargs: Any) -> None:
        report.plot(self.summary(), path, **kwargs)


def deal_keys(seed: int, deals: int) -> np.ndarray:
    """(deals,) uint64: the key of each deal of ``seed``: deal d is game d of the seed
    (``seeding.game_keys(seed, d)``), the same in every match with that seed."""
    return seeding.game_keys(seed, np.arange(deals))


def direction_cycle(rules: HeartsRules) -> tuple[str, ...]:
    """The pass directions single-hand deals cycle through: the rules' cycle (("none",) without passing)."""
    assert rules.pass_cycle is not None  # HeartsRules made None the standard cycle
    return rules.pass_cycle if rules.pass_count else ("none",)


def hand_rules(rules: HeartsRules, deal: int) -> HeartsRules:
    """The rules single-hand deal ``deal`` is played under: the pass cycle rotated to begin at the
    deal's direction (entry ``deal`` mod L of ``direction_cycle``), so it passes that way."""
    cycle = direction_cycle(rules)
    c = deal % len(cycle)
    return dataclasses.replace(rules, pass_cycle=cycle[c:] + cycle[:c])


def play_match(
    rules: HeartsRules | None,
    agents: AgentsArg,
    deals: int | None = None,
    seed: int = 0,
    episode: str = "game",
    history: bool = False,
    progress: bool = False,
    block: int = DEAL_BLOCK,
    executor: Executor | None = None,
    record: bool = False,
    keys: np.ndarray | None = None,
) -> MatchResult:
    """Play ``deals`` deals (default 100) in duplicate between the P ``agents`` (see ``hearts_env.arena``).

    ``rules``: the table (None: the standard game); ``episode``: "game" (whole games to the target
    score) or "hand" (one hand per game, deal d passing in direction d mod the pass cycle);
    ``history``: the games record their tricks, for agents that read ``InfoSet.tricks``;
    ``progress``: a bar over finished games (``hearts_env.play.progress``); ``block``: deals per block
    (agents are reseeded at the start of each); ``executor``: plays the blocks (its ``map``; each
    block gets its own copy of the agents), by default one after the other here. The results
    depend on the seed, the deals and the block size, never on the executor.
    ``record``: keep every deal and card of every game in ``MatchResult.games``
    (``hearts_env.play.replay.save`` writes them; the games then run on the runner, never in an
    agent's own compiled loop: the same cards, a little slower).
    ``keys``: (N,) uint64, the deals' keys instead of the seed's (a frozen deal set); ``seed``
    then seeds the agents alone, and ``deals`` defaults to N.
    Raises ``ValueError`` naming the agent if one returns a bad or illegal card
    (``runner.PolicyError``: an illegal card or an answer of the wrong shape, naming the deal).
    The agents given stay open (the caller's to close: ``hearts_env.play.policy.close_agents``);
    the copies an executor plays are closed after their block.
    """
    match = plan_match(rules, agents, deals, seed, episode, history, block, keys, record)
    (result,) = play_matches([match], progress, executor)
    return result


@dataclass(frozen=True)
class BlockOutcome:
    """The outcomes of a block of consecutive deals, indexed [deal, rotation, seat] as ``MatchResult``'s."""

    hands: np.ndarray
    scores: np.ndarray
    wins: np.ndarray
    qs: np.ndarray
    moons: np.ndarray
    games: tuple[replay.GameRecord, ...] = ()  # with record=True: every game of the block


@dataclass(frozen=True)
class MatchPlan:
    """A match's settings and agents: everything a block of its deals needs (pickled once for
    an executor). ``play_match`` is ``plan.result([plan.play_block(b) for b in range(plan.blocks)])``;
    a caller that keeps the blocks' outcomes (to resume, or to spread several matches over one
    executor) plays them itself."""

    rules: HeartsRules  # the match's rules (single hands: no target score)
    episode: str
    seed: int  # seeds the agents at each block (and the deals, unless ``keys`` were given)
    keys: np.ndarray  # (N,) uint64: the key of each deal
    block: int
    history: bool
    names: tuple[str, ...]  # (K,) distinct agent names
    entry_names: list[str]  # (P,) the name of each entry
    entry_agents: list[Policy]  # (P,) the agent of each entry (one object may fill several)
    seating: np.ndarray  # (R, P) int: entry seated at each seat in rotation r
    record: bool = False  # keep every game's deals and cards

    @property
    def deals(self) -> int:
        return len(self.keys)

    @property
    def blocks(self) -> int:
        return -(-self.deals // self.block)

    def block_deals(self, b: int) -> range:
        """The deals of block ``b``."""
        return range(b * self.block, min((b + 1) * self.block, self.deals))

    def play_block(self, b: int, bar: Any = None) -> BlockOutcome:
        """Play block ``b`` here (see ``_play_block``); ``bar``: a tqdm bar updated per finished game."""
        return _play_block(self, b, bar)

    def result(self, outcomes: Sequence[BlockOutcome], seconds: float) -> MatchResult:
        """The match's result from every block's outcome, in block order; ``seconds``: the time they took."""
        if len(outcomes) != self.blocks:
            raise ValueError(f"a match of {self.blocks} blocks needs every block's outcome, got {len(outcomes)}")
        return _result(self, list(outcomes), seconds)

    @property
    def directions(self) -> np.ndarray | None:
        """(N,) str: each deal's pass direction (single hands); None for whole games."""
        if self.episode == "game":
            return None
        cycle = direction_cycle(self.rules)
        return np.array(cycle)[np.arange(self.deals) % len(cycle)]


def plan_match(
    rules: HeartsRules | None,
    agents: AgentsArg,
    deals: int | None = None,
    seed: int = 0,
    episode: str = "game",
    history: bool = False,
    block: int = DEAL_BLOCK,
    keys: np.ndarray | None = None,
    record: bool = False,
) -> MatchPlan:
    """The plan of ``play_match`` with these arguments, every argument checked; nothing is played."""
    rules = match_rules(rules, episode)
    seed = seeding.check_seed(seed)
    block = checks.count("block", block)
    P = R = rules.num_players
    if keys is None:  # the seed's deals: their count checked before any is made
        n = checks.count("deals", 100 if deals is None else deals)
        checks.fits_in_memory(f"{n:,} deals", match_bytes(n, block, P))
    keys = _match_keys(deals, seed, keys)
    entry_names, entry_agents = _entries(agents, P)
    names = tuple(dict.fromkeys(entry_names))
    seating = (np.arange(P)[None, :] - np.arange(R)[:, None]) % P  # [r, seat] -> entry
    history, record = checks.flag("history", history), checks.flag("record", record)
    return MatchPlan(rules, episode, seed, keys, block, history, names, entry_names, entry_agents, seating, record)


def _match_keys(deals: int | None, seed: int, keys: np.ndarray | None) -> np.ndarray:
    """(N,) uint64: the given deal keys, or the seed's first ``deals`` (default 100)."""
    if keys is None:
        return deal_keys(seed, checks.count("deals", 100 if deals is None else deals))
    array = np.asarray(keys)
    negative = array.dtype.kind == "i" and bool((array < 0).any())
    if array.ndim != 1 or not len(array) or array.dtype.kind not in "iu" or negative:
        raise ValueError(f"keys must be a non-empty (N,) array of uint64 deal keys, got {array.dtype} {array.shape}")
    if deals is not None and checks.count("deals", deals) != len(array):
        raise ValueError(f"deals={deals} disagrees with the {len(array)} keys given (leave deals out)")
    return array.astype(np.uint64)


def play_matches(matches: list[MatchPlan], progress: bool, executor: Executor | None) -> list[MatchResult]:
    """Play every block of every match (all submitted to ``executor`` at once) and assemble each
    match's result; a match's ``seconds`` is the wall time from the previous one's end to its own."""
    mark = time.perf_counter()
    if executor is not None:  # every block of every match submitted at once
        outcomes = [executor.map(functools.partial(_play_copy, m), range(m.blocks)) for m in matches]
    results = []
    for i, match in enumerate(matches):
        bar = _progress_bar(progress, match.deals * match.seating.shape[0], " vs ".join(match.names))
        if executor is None:
            parts = [_play_block(match, b, bar) for b in range(match.blocks)]
        else:
            parts = []
            for part in outcomes[i]:
                parts.append(part)
                if bar is not None:
                    bar.update(part.hands.size)
        if bar is not None:
            bar.close()
        now = time.perf_counter()
        results.append(_result(match, parts, now - mark))
        mark = now
    return results


def _play_copy(match: MatchPlan, b: int) -> BlockOutcome:
    """``_play_block`` with a copy of the agents, which an executor may run beside other blocks;
    the copies are closed after it (a program agent's bot gets its tables' last events)."""
    match = copy.deepcopy(match)
    try:
        return _play_block(match, b)
    finally:
        close_agents(match.entry_agents)


def _play_block(match: MatchPlan, b: int, bar: Any = None) -> BlockOutcome:
    """Play block ``b`` of the match: its deals, every rotation, the agents reseeded first; with
    single hands one batch per pass direction (a batch shares its rules, so its pass cycle)."""
    rules, P, R = match.rules, match.rules.num_players, match.seating.shape[0]
    deals = np.array(match.block_deals(b))
    _seed_agents(list({id(a): a for a in match.entry_agents}.values()), match.seed, b)
    if match.episode == "hand":
        L = len(direction_cycle(rules))
        batches = [(hand_rules(rules, c), deals[deals % L == c]) for c in range(L)]
    else:
        batches = [(rules, deals)]
    G = len(deals) * R  # game (d, r) of the block is (d - first deal) * R + r
    hands = np.zeros(G, np.int64)
    scores = np.zeros((G, P), np.int64)
    wins = np.zeros((G, P))
    qs = np.zeros((G, P), np.int64)
    moons = np.zeros((G, P), np.int64)
    recorded: dict[int, replay.GameRecord] = {}
    for batch_rules, batch_deals in batches:
        if not len(batch_deals):
            continue
        ids = ((batch_deals - deals[0])[:, None] * R + np.arange(R)).ravel()
        keys = match.keys[deals[ids // R]]
        seating = match.seating[ids % R]
        try:
            final, qs[ids], moons[ids], played = _play_games(
                batch_rules, keys, seating, match.entry_agents, match.entry_names, match.history, bar, match.record
            )
        except runner.PolicyError as error:  # name the deal: the game is an index into this batch
            raise error.in_deal(int(deals[ids[error.game] // R]), int(ids[error.game] % R)) from None
        hands[ids], scores[ids] = final.hand_number, final.scores
        wins[ids] = final.winners / final.winners.sum(axis=1, keepdims=True)
        assert batch_rules.pass_cycle is not None  # HeartsRules made None the standard cycle
        for i, game_hands in enumerate(played or ()):
            recorded[int(ids[i])] = replay.GameRecord(
                deal=int(deals[ids[i] // R]),
                rotation=int(ids[i] % R),
                key=int(keys[i]),
                seats=tuple(match.entry_names[e] for e in seating[i]),
                pass_cycle=batch_rules.pass_cycle,
                hands=tuple(game_hands),
                scores=tuple(final.scores[i].tolist()),
            )

    def by_deal(a: np.ndarray) -> np.ndarray:
        return a.reshape(len(deals), R, *a.shape[1:])

    games = tuple(recorded[i] for i in sorted(recorded))
    return BlockOutcome(by_deal(hands), by_deal(scores), by_deal(wins), by_deal(qs), by_deal(moons), games)


def _result(match: MatchPlan, parts: list[BlockOutcome], seconds: float) -> MatchResult:
    """The match's result from its blocks' outcomes, in deal order."""
    arrays = [f.name for f in dataclasses.fields(BlockOutcome) if f.name != "games"]
    joined = {name: np.concatenate([getattr(p, name) for p in parts]) for name in arrays}
    return MatchResult(
        rules=match.rules,
        episode=match.episode,
        seed=match.seed,
        names=match.names,
        entries=np.array([match.names.index(n) for n in match.entry_names]),
        seating=match.seating,
        deal_keys=match.keys,
        directions=match.directions,
        seconds=seconds,
        block=match.block,
        games=tuple(g for p in parts for g in p.games),
        **joined,
    )


def _play_games(
    rules: HeartsRules,
    keys: np.ndarray,
    seating: np.ndarray,
    agents: list[Policy],
    names: list[str],
    history: bool,
    bar: Any,
    record: bool = False,
) -> tuple[core.State, np.ndarray, np.ndarray, list[list[replay.HandRecord]] | None]:
    """Play games with these keys and seatings (G, P) (entries of ``agents`` at each seat) to
    their ends: the final state, (G, P) the hands in which each seat took the QS and shot the
    moon, and with ``record`` every game's hands (else None)."""
    qs = np.zeros(seating.shape, np.int64)
    moons = np.zeros(seating.shape, np.int64)

    def count(step: runner.Step) -> None:
        ended = np.flatnonzero(step.after.hand_over)
        if len(ended):
            took_qs, shot = hand_outcomes(step.after, ended)
            qs[step.games[ended]] += took_qs
            moons[step.games[ended]] += shot
        if bar is not None:
            bar.update(np.count_nonzero(step.after.done))

    state = core.new_games(rules, keys=keys, history=history)
    if not record:  # the agents' own compiled loop, where they have one (a recording needs every step)
        played = _play_tables(state, seating, agents, bar)
        if played is not None:
            return (*played, None)
    recorder = replay.Recorder(state) if record else None

    def on_step(step: runner.Step) -> None:
        count(step)
        if recorder is not None:
            recorder(step)

    final = runner.play(state, agents, seating, on_step=on_step, names=names)
    return final, qs, moons, None if recorder is None else recorder.hands()


TABLE_CHUNK = 1024
"""Games a compiled table loop plays between progress-bar updates."""


def _play_tables(
    state: core.State, seating: np.ndarray, agents: list[Policy], bar: Any
) -> tuple[core.State, np.ndarray, np.ndarray] | None:
    """``_play_games`` in the agents' own compiled loop (``TablePolicy``) when every agent has
    one that can play them all; else None."""
    tables = [agent for agent in agents if isinstance(agent, TablePolicy)]
    if len(tables) < len(agents):
        return None
    parts = []
    for start in range(0, state.batch_size, TABLE_CHUNK):
        rows = slice(start, start + TABLE_CHUNK)
        played = tables[0].play_table(state[rows], seating[rows], agents)
        if played is None:
            return None
        parts.append(played)
        if bar is not None:
            bar.update(played[0].batch_size)
    final = records.concatenate([p[0] for p in parts])
    return final, np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts])


def direction_fields(rules: HeartsRules, sums: DealSums, directions: np.ndarray | None, episode: str) -> dict[str, Any]:
    """Summary entries of single hands: the pass cycle the deals follow and the results by direction."""
    if directions is None:
        return {}
    return {
        "pass_directions": list(direction_cycle(rules)),
        "by_direction": report.direction_summaries(sums, directions, episode),
    }


def _deals_passing(directions: np.ndarray | None, direction: str) -> np.ndarray:
    """(N,) bool: the deals that pass ``direction``."""
    if directions is None:
        raise ValueError("direction= needs a single-hand match (episode='hand'): whole games pass every way")
    if direction not in directions:
        raise ValueError(f"no deal passes {direction!r}; the deals pass {', '.join(dict.fromkeys(directions))}")
    return directions == direction


def hand_outcomes(after: core.State, ended: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n, P) bool: who took the QS and who shot the moon in the hand that just ended in the
    games ``ended`` (``after`` already holds the next deal)."""
    ended_games = after[ended]
    return (ended_games.last_hand_taken & QS_BIT) != 0, ended_games.last_hand_moons


def match_rules(rules: HeartsRules | None, episode: str) -> HeartsRules:
    """The rules the deals of ``episode`` play (single hands: no target score); ``ValueError`` for
    rules that are not a ``HeartsRules``, an unknown episode, or whole games without a target."""
    rules = HeartsRules() if rules is None else rules
    if not isinstance(rules, HeartsRules):
        raise ValueError(f"rules must be a HeartsRules or None, got {rules!r}")
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {', '.join(EPISODES)}; got {episode!r}")
    if episode == "hand":
        return dataclasses.replace(rules, target_score=None)
    if rules.target_score is None:
        raise ValueError("episode='game' needs rules with a target_score (these play one hand: use episode='hand')")
    return rules


def _entries(agents: AgentsArg, num_players: int) -> tuple[list[str], list[Policy]]:
    items = list(agents.items()) if isinstance(agents, Mapping) else list(agents)
    pairs = [item if isinstance(item, tuple) else (type(item).__name__, item) for item in items]
    if len(pairs) != num_players:
        raise ValueError(
            f"a match needs one agent per seat: {num_players} (name, agent) entries, got {len(pairs)} "
            "(repeat an agent to fill seats; use round_robin for more agents than seats)"
        )
    for name, agent in pairs:
        if not isinstance(name, str) or not callable(agent):
            raise ValueError(
                f"agents must be (name, policy) pairs with a str name and a callable policy, got {(name, agent)!r}"
            )
    return [n for n, _ in pairs], [a for _, a in pairs]


def _seed_agents(agents: Sequence[Policy], seed: int, block: int) -> None:
    """Reseed every agent that has a ``seed`` method, from the match seed, the block and its order."""
    n = len(agents)
    seeds = seeding.derive(seed, seeding.AGENTS, block * n + np.arange(n)) >> np.uint64(1)
    for agent, s in zip(agents, seeds, strict=True):
        if callable(reseed := getattr(agent, "seed", None)):
            reseed(int(s))


def match_bytes(deals: int, block: int, num_players: int) -> int:
    """About the memory a match of ``deals`` takes: its results (a few int64 per game and seat,
    every rotation) and the games of one block at a time."""
    games = deals * num_players
    return games * num_players * 64 + min(block, deals) * num_players * 4096


def _progress_bar(enabled: bool, total: int, desc: str) -> Any:
    return progress_bar(total, desc, "game") if enabled else None
