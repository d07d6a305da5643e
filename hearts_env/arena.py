"""Matches and tournaments between agents on duplicate deals: statistics with confidence intervals, and ratings.

Agent strength is measured, not asserted. ``play_match`` seats P agents (any ``Policy`` objects)
at a table of P and plays every deal once per *rotation* of the agents through the seats, so every
agent meets the same cards from every seat (duplicate). This module imports no agent: it takes
agent objects; ``agents/arena_cli.py`` is the ``hearts-arena`` command that builds them by name.

    from hearts_env.arena import play_match
    from hearts_env.policy import RandomPolicy

    field = RandomPolicy()  # one object at three seats: one batched call per step
    result = play_match(None, [("candidate", RandomPolicy()), ("field", field), ("field", field), ("field", field)],
                        deals=500, seed=0, games="hand")
    print(result.table())
    result.difference("candidate")  # points per hand minus the field's, with its 95% interval
    result.difference("candidate").excludes_zero  # better (or worse) than the field at 95%?

Seating
-------
``agents`` lists P entries, one per seat at rotation 0: a mapping ``{name: agent}``, a list of
``(name, agent)`` pairs, or a list of agents (named by their class). The same agent object (or
name) may fill several entries, e.g. ``[("heuristic", h), ("simple", s), ("simple", s), ("simple", s)]``.
In rotation ``r`` (0..P-1) entry ``i`` sits at seat ``(i + r) % P``, i.e. seat ``s`` holds entry
``(s - r) % P`` (``MatchResult.seating``): over the P rotations each entry sits each seat once.

Deals
-----
Deal ``d`` of seed ``s`` is a 64-bit key hashed from ``(s, d)`` (independent of the number of
deals, so deal ``d`` is the same in every match with that seed); the P games of a deal start from
that key (``core.new_games(keys=...)``), so their first deals are equal and, in whole games, the
n-th hand of every rotation is dealt the same cards. All N x P games run in one batch through the
core, stepped together; at each step every distinct agent object is called once, batched, on the
games where it is to act (finished games leave the batch as they end). Agents with a ``seed``
method are reseeded from ``s`` before the match, so a match is reproducible from its seed.

``games="game"`` plays whole games to ``rules.target_score``; ``games="hand"`` plays one hand per
game (the rules' target score is set to None; every deal is then hand 1, passed left).

Statistics
----------
Results are per agent *name* (entries with the same name are pooled). For each deal, a metric is
the ratio of the name's totals over every seat it held in the deal's P games:

| metric | per deal |
|---|---|
| ``points_per_hand`` | hand points taken (moon and JD rules applied) / hands played |
| ``game_score`` | final game totals / games (whole-game matches only) |
| ``win_rate`` | wins / games; k tied winners share a win, 1/k each |
| ``qs_per_hand`` | hands in which it took the QS / hands |
| ``moons_made_per_hand`` | hands in which it shot the moon / hands |
| ``moons_suffered_per_hand`` | hands in which another seat shot the moon / hands |

Each metric is reported as an ``Estimate``: the mean of the N per-deal values with a 95% Student-t
interval, ``mean ± t(0.975, N - 1) * sd / sqrt(N)`` (sd of the per-deal values), and N, the deals
behind it. Deals are independent; the games within a deal are not, which is why the deal is the
unit. ``MatchResult.difference(a, b)`` is the same interval over the per-deal differences of two
names (paired by deal); with ``b=None`` the other side is the *field*, every other name pooled.
A candidate takes fewer points per hand than the field by a margin whose 95% interval excludes
zero when ``result.difference("candidate").high < 0`` (``excludes_zero``: either side).

``round_robin`` plays a match at each table of P drawn from more agents (every P-subset, or
random tables), all on the same deals, pools the statistics per name and rates the agents with
OpenSkill (``openskill`` package, Plackett-Luce), one rating update per game.

Output: ``result.table()`` (plain text), ``result.summary()`` (a JSON-ready dict; ``format_table``
and ``plot`` also take that dict as loaded back from JSON) and ``result.plot(path)`` (PNG, needs
matplotlib).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hearts_env import core
from hearts_env.cards import NUM_CARDS, card_name
from hearts_env.infoset import infoset
from hearts_env.policy import Policy
from hearts_env.rules import HeartsRules

GAME_MODES = ("game", "hand")
CONFIDENCE = 0.95

METRICS: dict[str, tuple[str, str, str]] = {
    # name: (label, numerator total, denominator total) of the per-deal ratio
    "points_per_hand": ("points per hand", "points", "hands"),
    "game_score": ("final game score", "points", "seat_games"),
    "win_rate": ("win rate", "wins", "seat_games"),
    "qs_per_hand": ("QS taken per hand", "qs", "hands"),
    "moons_made_per_hand": ("moons shot per hand", "moons_made", "hands"),
    "moons_suffered_per_hand": ("moons suffered per hand", "moons_suffered", "hands"),
}
"""The metrics of a match, each a per-deal ratio of two of ``DealSums``'s totals."""

FIELD_METRICS = ("points_per_hand", "game_score", "win_rate")
"""The metrics whose difference to the field goes in summaries."""

_U64 = np.uint64
_ODD = _U64(0x9E3779B97F4A7C15)
_DEAL_SALT, _AGENT_SALT, _TABLE_SALT = _U64(0xDEA1), _U64(0xA6E7), _U64(0x7AB1E)

AgentsArg = Mapping[str, Policy] | Sequence[tuple[str, Policy] | Policy]


# ---------------------------------------------------------------------------------------------
# Confidence intervals


_T975 = {  # two-sided 95% Student t quantiles by degrees of freedom
    **dict(
        enumerate(
            (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281)
            + (2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860)
            + (2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423),
            start=1,
        )
    ),
    40: 2.0211,
    60: 2.0003,
    120: 1.9799,
}
_Z975 = 1.959964


def t_quantile(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (so ``±`` it holds 95%);
    tabulated to df 30, then linear in 1/df between 30, 40, 60, 120 and the normal 1.96 (error < 1e-3)."""
    if df < 1:
        return math.nan
    if df in _T975:
        return _T975[df]
    anchors = [(30, _T975[30]), (40, _T975[40]), (60, _T975[60]), (120, _T975[120]), (math.inf, _Z975)]
    for (d0, t0), (d1, t1) in itertools.pairwise(anchors):
        if d0 < df < d1:
            w = (1 / d0 - 1 / df) / (1 / d0 - 1 / d1)
            return t0 + w * (t1 - t0)
    raise AssertionError(df)  # unreachable: anchors cover df > 30


@dataclass(frozen=True)
class Estimate:
    """A mean over deals with its 95% confidence interval (Student t over the per-deal values)."""

    mean: float
    low: float  # lower end of the interval (nan with fewer than 2 deals)
    high: float  # upper end
    sd: float  # standard deviation of the per-deal values (ddof 1)
    n: int  # deals behind it

    @classmethod
    def of(cls, values: np.ndarray) -> Estimate:
        """The estimate from per-deal values (nan values, deals without data, are left out)."""
        values = np.asarray(values, dtype=np.float64)
        values = values[~np.isnan(values)]
        n = len(values)
        if n == 0:
            return cls(math.nan, math.nan, math.nan, math.nan, 0)
        mean = float(values.mean())
        sd = float(values.std(ddof=1)) if n > 1 else math.nan
        half = t_quantile(n - 1) * sd / math.sqrt(n) if n > 1 else math.nan
        return cls(mean, mean - half, mean + half, sd, n)

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    @property
    def excludes_zero(self) -> bool:
        """The interval lies wholly above or below zero (False when there is no interval)."""
        return bool(self.low > 0 or self.high < 0)

    def to_dict(self) -> dict[str, float | int | None]:
        """JSON-ready: nan becomes None."""
        return {f: _json_float(getattr(self, f)) for f in ("mean", "low", "high", "sd")} | {"n": self.n}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Estimate:
        return cls(*(math.nan if d[f] is None else float(d[f]) for f in ("mean", "low", "high", "sd")), int(d["n"]))


def _json_float(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


# ---------------------------------------------------------------------------------------------
# Per-deal totals of each agent name


@dataclass(frozen=True)
class DealSums:
    """Totals per deal and agent name over every seat the name held in the deal's games, all (N, K)
    float arrays. Totals of matches played on the same deals add up (a tournament's tables)."""

    names: tuple[str, ...]
    seat_games: np.ndarray  # games played (one per seat held)
    hands: np.ndarray  # hands played, summed over those seats
    points: np.ndarray  # hand points taken (moon and JD applied) = final game totals
    wins: np.ndarray  # win shares (1/k each for k tied winners)
    qs: np.ndarray  # hands in which the seat took the QS
    moons_made: np.ndarray  # hands in which the seat shot the moon
    moons_suffered: np.ndarray  # hands in which another seat shot the moon

    @property
    def totals(self) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(self) if f.name != "names")

    def ratio(self, metric: str, name: str | None = None, exclude: str | None = None) -> np.ndarray:
        """(N,) per-deal value of ``metric`` for ``name``, or for every name but ``exclude`` pooled;
        nan on deals where the denominator is 0."""
        _, numerator, denominator = _metric(metric)
        if name is not None:
            k = self._index(name)
            num, den = getattr(self, numerator)[:, k], getattr(self, denominator)[:, k]
        else:
            keep = np.array([n != exclude for n in self.names])
            num, den = getattr(self, numerator)[:, keep].sum(1), getattr(self, denominator)[:, keep].sum(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)

    def estimate(self, name: str, metric: str = "points_per_hand") -> Estimate:
        return Estimate.of(self.ratio(metric, name))

    def difference(self, name: str, other: str | None = None, metric: str = "points_per_hand") -> Estimate:
        """``name``'s metric minus ``other``'s (or the field's: every other name pooled), per deal."""
        if other == name:
            raise ValueError(f"difference of {name!r} with itself")
        mine = self.ratio(metric, name)
        theirs = self.ratio(metric, other) if other is not None else self.ratio(metric, exclude=name)
        return Estimate.of(mine - theirs)

    @classmethod
    def combine(cls, names: Sequence[str], parts: Sequence[DealSums]) -> DealSums:
        """The totals of ``parts`` (matches on the same deals) added up per name, over ``names``."""
        fields = {}
        for total in parts[0].totals:
            out = np.zeros((getattr(parts[0], total).shape[0], len(names)))
            for sums in parts:
                out[:, [names.index(n) for n in sums.names]] += getattr(sums, total)
            fields[total] = out
        return cls(tuple(names), **fields)

    def _index(self, name: str) -> int:
        if name not in self.names:
            raise ValueError(f"no agent named {name!r}; agents: {', '.join(self.names)}")
        return self.names.index(name)


def _metric(metric: str) -> tuple[str, str, str]:
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; metrics: {', '.join(METRICS)}")
    return METRICS[metric]


# ---------------------------------------------------------------------------------------------
# A match


@dataclass(frozen=True)
class MatchResult:
    """The raw outcome of a duplicate match: N deals x R = P rotations, indexed [deal, rotation, seat]."""

    rules: HeartsRules
    games: str  # "game" or "hand"
    seed: int
    names: tuple[str, ...]  # (K,) distinct agent names, in the order of their first entry
    entries: np.ndarray  # (P,) int: name index of each entry of the agents list
    seating: np.ndarray  # (R, P) int: entry seated at each seat in rotation r: (seat - r) % P
    deal_keys: np.ndarray  # (N,) uint64: the key of each deal (its games' State.key)
    hands: np.ndarray  # (N, R) int: hands played in each game
    scores: np.ndarray  # (N, R, P) int: each seat's final total (the sum of its hand points)
    wins: np.ndarray  # (N, R, P) float: each seat's share of the win (1/k for k tied winners)
    qs: np.ndarray  # (N, R, P) int: hands in which the seat took the QS
    moons: np.ndarray  # (N, R, P) int: hands in which the seat shot the moon
    seconds: float  # time spent playing

    @property
    def deals(self) -> int:
        return len(self.deal_keys)

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def game_keys(self) -> np.ndarray:
        """(N * R,) uint64: the key of every game of the batch, game (d, r) at d * R + r."""
        return np.repeat(self.deal_keys, self.seating.shape[0])

    @property
    def seat_names(self) -> np.ndarray:
        """(R, P) int: name index seated at each seat in each rotation."""
        return self.entries[self.seating]

    def sums(self) -> DealSums:
        """Per-deal totals of each name (see ``DealSums``)."""
        onehot = (self.seat_names[..., None] == np.arange(len(self.names))).astype(np.float64)  # (R, P, K)
        per_seat = {
            "seat_games": np.ones_like(self.scores, dtype=np.float64),
            "hands": np.broadcast_to(self.hands[..., None], self.scores.shape),
            "points": self.scores,
            "wins": self.wins,
            "qs": self.qs,
            "moons_made": self.moons,
            "moons_suffered": self.moons.sum(axis=2, keepdims=True) - self.moons,
        }
        return DealSums(self.names, **{k: np.einsum("nrp,rpk->nk", v, onehot) for k, v in per_seat.items()})

    def estimate(self, name: str, metric: str = "points_per_hand") -> Estimate:
        """``metric`` of the agent ``name``: mean over deals with its 95% interval."""
        return self.sums().estimate(name, metric)

    def difference(self, name: str, other: str | None = None, metric: str = "points_per_hand") -> Estimate:
        """``name``'s ``metric`` minus ``other``'s (default: the field, every other name pooled),
        paired by deal. For points, a negative difference whose interval excludes 0 is better."""
        return self.sums().difference(name, other, metric)

    def summary(self) -> dict[str, Any]:
        """A JSON-ready dict of the match: settings, counts and every name's estimates."""
        hands = int(self.hands.sum())
        out = {
            "kind": "match",
            **_settings(self.rules, self.games, self.deals, self.seed),
            "rotations": int(self.seating.shape[0]),
            "seats": [self.names[i] for i in self.entries],
            "games_played": int(self.hands.size),
            "hands_played": hands,
            "seconds": self.seconds,
            "hands_per_second": hands / self.seconds if self.seconds > 0 else None,
            "agents": _agent_summaries(self.sums(), self.games),
        }
        for name, entry in out["agents"].items():
            entry["seats"] = int(sum(self.names[i] == name for i in self.entries))
        return out

    def table(self) -> str:
        return format_table(self.summary())

    def plot(self, path: str, **kwargs: Any) -> None:
        plot(self.summary(), path, **kwargs)


def paired_difference(
    a: MatchResult, name_a: str, b: MatchResult, name_b: str, metric: str = "points_per_hand"
) -> Estimate:
    """``name_a``'s metric in match ``a`` minus ``name_b``'s in match ``b``, paired by deal: the two
    matches must have been played on the same deals (same seed and deal count). An ablation's
    measure: e.g. an agent and its variant, each against three heuristic players."""
    if not np.array_equal(a.deal_keys, b.deal_keys):
        raise ValueError("paired_difference needs two matches on the same deals (same seed and number of deals)")
    return Estimate.of(a.sums().ratio(metric, name_a) - b.sums().ratio(metric, name_b))


def _settings(rules: HeartsRules, games: str, deals: int, seed: int) -> dict[str, Any]:
    knobs = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules) if f.init}
    knobs["pass_cycle"] = list(knobs["pass_cycle"])
    return {"rules": knobs, "games": games, "deals": deals, "seed": seed, "confidence": CONFIDENCE}


def _agent_summaries(sums: DealSums, games: str) -> dict[str, dict[str, Any]]:
    out = {}
    for k, name in enumerate(sums.names):
        entry: dict[str, Any] = {
            "seat_games": int(sums.seat_games[:, k].sum()),
            "seat_hands": int(sums.hands[:, k].sum()),
            "qs_taken": int(sums.qs[:, k].sum()),
            "moons_made": int(sums.moons_made[:, k].sum()),
            "moons_suffered": int(sums.moons_suffered[:, k].sum()),
        }
        for metric in METRICS:
            if metric != "game_score" or games == "game":
                entry[metric] = sums.estimate(name, metric).to_dict()
        if len(sums.names) > 1:
            entry["vs_field"] = {
                m: sums.difference(name, None, m).to_dict()
                for m in FIELD_METRICS
                if m != "game_score" or games == "game"
            }
        out[name] = entry
    return out


def deal_keys(seed: int, deals: int) -> np.ndarray:
    """(deals,) uint64: the key of each deal of ``seed``; deal d's key depends only on (seed, d)."""
    return _derive(seed, _DEAL_SALT, deals)


def _derive(seed: int, salt: np.uint64, count: int) -> np.ndarray:
    base = core.mix64(np.array([seed % 2**64], _U64))[0] ^ salt
    return core.mix64(core.mix64(base + np.arange(count, dtype=_U64) * _ODD))


def play_match(
    rules: HeartsRules | None,
    agents: AgentsArg,
    deals: int = 100,
    seed: int = 0,
    games: str = "game",
    history: bool = False,
    progress: bool = False,
) -> MatchResult:
    """Play ``deals`` deals in duplicate between the P ``agents`` (see the module docstring).

    ``rules``: the table (None: the standard game); ``games``: "game" (whole games to the target
    score) or "hand" (one hand per game); ``history``: the games record their tricks, for agents
    that read ``InfoSet.tricks``; ``progress``: a tqdm bar over finished games, if tqdm is installed.
    Raises ``ValueError`` naming the agent if one returns a bad or illegal card.
    """
    rules = _match_rules(rules, games)
    deals = _check_count("deals", deals)
    seed = _check_seed(seed)
    P = rules.num_players
    entry_names, entry_agents = _entries(agents, P)
    names = tuple(dict.fromkeys(entry_names))
    entries = np.array([names.index(n) for n in entry_names])
    R = P
    seating = (np.arange(P)[None, :] - np.arange(R)[:, None]) % P  # [r, seat] -> entry

    # Each distinct agent object is called once per step; ``seat_group[r, seat]`` says which.
    distinct = list({id(a): a for a in entry_agents}.values())
    group_of_entry = np.array([next(j for j, a in enumerate(distinct) if a is e) for e in entry_agents])
    group_names = [
        " / ".join(dict.fromkeys(n for n, a in zip(entry_names, entry_agents, strict=True) if a is d)) for d in distinct
    ]
    seat_group = group_of_entry[seating]  # (R, P)
    _seed_agents(distinct, seed)

    keys = deal_keys(seed, deals)
    G = deals * R
    hands = np.zeros(G, np.int64)
    scores = np.zeros((G, P), np.int64)
    wins = np.zeros((G, P))
    qs = np.zeros((G, P), np.int64)
    moons = np.zeros((G, P), np.int64)

    bar = _progress_bar(progress, G, f"{' vs '.join(names)}")
    start = time.perf_counter()
    state = core.new_games(rules, keys=np.repeat(keys, R), history=history)
    live = np.arange(G)  # the game id of each row of ``state``; finished games leave
    rotation = live % R
    while True:
        actions = _actions(state, rotation, seat_group, distinct, group_names)
        before, state = state, core.step(state, actions)
        ended = np.flatnonzero(state.hand_over)
        if len(ended):
            took_qs, shot = _hand_outcomes(before, state, ended)
            qs[live[ended]] += took_qs
            moons[live[ended]] += shot
        done = state.done
        finished = np.count_nonzero(done)
        if finished and (finished == len(live) or 8 * finished >= len(live)):
            rows = np.flatnonzero(done)
            games_over = live[rows]
            hands[games_over] = state.hand_number[rows]
            scores[games_over] = state.scores[rows]
            winners = state.winners[rows]
            wins[games_over] = winners / winners.sum(axis=1, keepdims=True)
            if bar is not None:
                bar.update(len(rows))
            if finished == len(live):
                break
            keep = np.flatnonzero(~done)
            state, live = state[keep], live[keep]
            rotation = live % R
    seconds = time.perf_counter() - start
    if bar is not None:
        bar.close()

    def by_deal(a: np.ndarray) -> np.ndarray:
        return a.reshape(deals, R, *a.shape[1:])

    return MatchResult(
        rules=rules,
        games=games,
        seed=seed,
        names=names,
        entries=entries,
        seating=seating,
        deal_keys=keys,
        hands=by_deal(hands),
        scores=by_deal(scores),
        wins=by_deal(wins),
        qs=by_deal(qs),
        moons=by_deal(moons),
        seconds=seconds,
    )


def _actions(
    state: core.State, rotation: np.ndarray, seat_group: np.ndarray, agents: list[Policy], names: list[str]
) -> np.ndarray:
    """One card per game: a batched call of each agent on the games where it is to act."""
    live = state.to_play >= 0
    group = np.where(live, seat_group[rotation, np.maximum(state.to_play, 0)], -1)
    info = infoset(state)
    mask = core.legal_mask(state)
    actions = np.zeros(state.batch_size, np.int64)
    for j, agent in enumerate(agents):
        on_turn = group == j
        count = np.count_nonzero(on_turn)
        if count == 0:
            continue
        rows = slice(None) if count == len(group) else np.flatnonzero(on_turn)
        sub = info if isinstance(rows, slice) else info[rows]
        chosen = np.asarray(agent(sub, mask[rows]))
        _check_actions(chosen, state, rows, names[j])
        actions[rows] = chosen
    return actions


def _check_actions(chosen: np.ndarray, state: core.State, rows: slice | np.ndarray, name: str) -> None:
    n = len(state.legal[rows])
    if chosen.shape != (n,) or chosen.dtype.kind not in "iu":
        raise ValueError(f"agent {name!r} must return ({n},) integer card ids, got {chosen.dtype} {chosen.shape}")
    in_range = (chosen >= 0) & (chosen < NUM_CARDS)
    illegal = ~in_range | ((state.legal[rows] & core.BIT.take(np.where(in_range, chosen, 0))) == 0)
    if np.count_nonzero(illegal):
        i = int(np.argmax(illegal))
        g = i if isinstance(rows, slice) else int(rows[i])
        card = int(chosen[i])
        why = core.explain_illegal(state, g, card) if in_range[i] else "not a card id (0..51)"
        what = card_name(card) if in_range[i] else str(card)
        raise ValueError(f"agent {name!r} chose an illegal card {what} (seat {state.to_play[g]}): {why}")


def _hand_outcomes(before: core.State, after: core.State, ended: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n, P) bool: who took the QS and who shot the moon, in the games ``ended`` whose hand
    just ended (``after`` already holds the next deal: the last trick is added to ``before``)."""
    taken = before.taken[ended]
    last = np.bitwise_or.reduce(core.BIT.take(after.last_trick[ended]), axis=1)
    taken[np.arange(len(ended)), after.last_trick_winner[ended]] |= last
    took_qs = (taken & core.BIT[core.QS]) != 0
    shot = (taken & core.POINT_BITS) == core.POINT_BITS
    return took_qs, shot


def _match_rules(rules: HeartsRules | None, games: str) -> HeartsRules:
    rules = HeartsRules() if rules is None else rules
    if not isinstance(rules, HeartsRules):
        raise ValueError(f"rules must be a HeartsRules or None, got {rules!r}")
    if games not in GAME_MODES:
        raise ValueError(f"games must be one of {', '.join(GAME_MODES)}; got {games!r}")
    if games == "hand":
        return dataclasses.replace(rules, target_score=None)
    if rules.target_score is None:
        raise ValueError("games='game' needs rules with a target_score (these rules play one hand: use games='hand')")
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


def _seed_agents(agents: Sequence[Policy], seed: int) -> None:
    """Reseed every agent that has a ``seed`` method, from the match seed and its order."""
    seeds = _derive(seed, _AGENT_SALT, len(agents)) >> _U64(1)
    for agent, s in zip(agents, seeds, strict=True):
        if callable(getattr(agent, "seed", None)):
            agent.seed(int(s))


def _check_count(what: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{what} must be a positive int, got {value!r}")
    return int(value)


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    return int(seed)


def _progress_bar(enabled: bool, total: int, desc: str) -> Any:
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=desc, unit="game", leave=False)


# ---------------------------------------------------------------------------------------------
# Tournaments


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

    def sums(self) -> DealSums:
        """Per-deal totals of each name, added up over the tables it sat at."""
        return DealSums.combine(self.names, [m.sums() for m in self.matches])

    def estimate(self, name: str, metric: str = "points_per_hand") -> Estimate:
        return self.sums().estimate(name, metric)

    def difference(self, name: str, other: str | None = None, metric: str = "points_per_hand") -> Estimate:
        return self.sums().difference(name, other, metric)

    def summary(self) -> dict[str, Any]:
        first = self.matches[0]
        hands = int(sum(m.hands.sum() for m in self.matches))
        agents = _agent_summaries(self.sums(), first.games)
        for k, name in enumerate(self.names):
            agents[name]["tables"] = sum(k in t for t in self.tables)
            if self.ratings is not None:
                agents[name]["rating"] = dict(self.ratings[name])
        return {
            "kind": "round_robin",
            **_settings(first.rules, first.games, first.deals, first.seed),
            "tables": [[self.names[i] for i in t] for t in self.tables],
            "games_played": int(sum(m.hands.size for m in self.matches)),
            "hands_played": hands,
            "seconds": self.seconds,
            "hands_per_second": hands / self.seconds if self.seconds > 0 else None,
            "rating_model": self.rating_model,
            "agents": agents,
        }

    def table(self) -> str:
        return format_table(self.summary())

    def plot(self, path: str, **kwargs: Any) -> None:
        plot(self.summary(), path, **kwargs)


def round_robin(
    rules: HeartsRules | None,
    agents: Mapping[str, Policy] | Sequence[tuple[str, Policy]],
    deals: int = 100,
    seed: int = 0,
    games: str = "game",
    tables: int | None = None,
    ratings: bool = True,
    history: bool = False,
    progress: bool = False,
    model: Any = None,
) -> TournamentResult:
    """Play K agents (distinct names) at tables of P: every P-subset of them (``tables=None``;
    with K < P, every multiset of P seats holding at least two names), or ``tables`` tables drawn
    at random from those. Each table plays a duplicate ``play_match`` on the same deals (same
    ``seed``). With ``ratings`` (needs the ``openskill`` package), every game updates OpenSkill
    ratings (``model``, default ``PlackettLuce()``): the game's players ranked by final score
    (lowest first, ties shared; a name at several seats counts once, by its mean score).
    """
    items = list(agents.items()) if isinstance(agents, Mapping) else list(agents)
    names = tuple(n for n, _ in items)
    if len(items) < 2 or len(set(names)) != len(names):
        raise ValueError(f"round_robin needs at least two agents with distinct names, got {list(names)}")
    rules = _match_rules(rules, games)
    seed = _check_seed(seed)
    if ratings and model is None:
        model = _openskill_model()
    P, K = rules.num_players, len(names)
    if K >= P:
        candidates = list(itertools.combinations(range(K), P))
    else:
        candidates = [t for t in itertools.combinations_with_replacement(range(K), P) if len(set(t)) > 1]
    if tables is not None:
        tables = _check_count("tables", tables)
        rng = np.random.default_rng(int(_derive(seed, _TABLE_SALT, 1)[0]))
        picks = rng.choice(len(candidates), size=tables, replace=tables > len(candidates))
        candidates = [candidates[i] for i in sorted(picks)]
    matches = tuple(
        play_match(rules, [items[i] for i in table], deals, seed, games, history, progress) for table in candidates
    )
    rated = _rate(model, names, candidates, matches) if ratings else None
    model_name = type(model).__name__ if ratings else None
    return TournamentResult(names, tuple(candidates), matches, rated, model_name)


def _openskill_model() -> Any:
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        raise ImportError(
            "round_robin ratings need the openskill package: pip install openskill "
            "(or pass ratings=False for the statistics alone)"
        ) from None
    return PlackettLuce()


def _rate(
    model: Any, names: tuple[str, ...], tables: list[tuple[int, ...]], matches: tuple[MatchResult, ...]
) -> dict[str, dict[str, float]]:
    """OpenSkill ratings from every game, deal by deal, table by table, rotation by rotation."""
    ratings = {n: model.rating(name=n) for n in names}
    for d in range(matches[0].deals):
        for table, match in zip(tables, matches, strict=True):
            players = sorted(set(table))
            for r in range(match.seating.shape[0]):
                at = np.array(table)[match.seating[r]]  # (P,) name index at each seat
                ranks = [float(match.scores[d, r][at == k].mean()) for k in players]
                new = model.rate([[ratings[names[k]]] for k in players], ranks=ranks)
                for k, (rating,) in zip(players, new, strict=True):
                    ratings[names[k]] = rating
    return {n: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for n, r in ratings.items()}


# ---------------------------------------------------------------------------------------------
# Output


def format_table(summary: Mapping[str, Any]) -> str:
    """The plain-text table of a match or tournament summary (``summary()`` or its JSON loaded back)."""
    agents = summary["agents"]
    whole = summary["games"] == "game"
    rated = summary.get("kind") == "round_robin" and summary.get("rating_model") is not None
    seats = "tables" if summary.get("kind") == "round_robin" else "seats"
    columns = [
        ("agent", lambda n, a: n),
        (seats, lambda n, a: str(a[seats])),
        ("seat-hands", lambda n, a: f"{a['seat_hands']:,}"),
        ("points/hand", lambda n, a: _pm(a["points_per_hand"], 2)),
    ]
    if whole:
        columns.append(("game score", lambda n, a: _pm(a["game_score"], 1)))
    columns.append(("win %", lambda n, a: _pm(a["win_rate"], 1, 100)))
    columns.append(("QS %hands", lambda n, a: _pm(a["qs_per_hand"], 1, 100)))
    columns.append(("moons made %", lambda n, a: _pm(a["moons_made_per_hand"], 2, 100)))
    columns.append(("suffered %", lambda n, a: _pm(a["moons_suffered_per_hand"], 2, 100)))
    if len(agents) > 1:
        columns.append(("pts/hand vs field", lambda n, a: _pm(a["vs_field"]["points_per_hand"], 2, mark=True)))
        columns.append(("win % vs field", lambda n, a: _pm(a["vs_field"]["win_rate"], 1, 100, mark=True)))
    if rated:
        columns.append(("rating mu ± sigma", lambda n, a: f"{a['rating']['mu']:.2f} ± {a['rating']['sigma']:.2f}"))
    order = list(agents)
    if rated:
        order.sort(key=lambda n: -agents[n]["rating"]["ordinal"])
    rows = [[c[0] for c in columns]] + [[fn(n, agents[n]) for _, fn in columns] for n in order]
    widths = [max(len(r[i]) for r in rows) for i in range(len(columns))]
    lines = [
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths, strict=True)))
        for r in rows
    ]
    lines.insert(1, "-" * len(lines[0]))

    mode = "whole games" if whole else "single hands"
    target = summary["rules"]["target_score"]
    speed = summary.get("hands_per_second")
    if summary.get("kind") == "round_robin":
        head = f"round robin: {len(summary['tables'])} tables x {summary['deals']:,} deals"
    else:
        head = f"match: {summary['deals']:,} deals x {summary['rotations']} seatings"
    head += f" = {summary['games_played']:,} {mode}" + (f" to {target}" if whole else "")
    head += f", {summary['hands_played']:,} hands, seed {summary['seed']}"
    if speed:
        head += f" ({summary['seconds']:.1f} s, {speed:,.0f} hands/s)"
    foot = (
        f"± : {round(summary['confidence'] * 100)}% t-interval over the {summary['deals']:,} deals "
        "(per-deal values pooled over each agent's seats); * : the interval excludes 0"
    )
    if rated:
        foot += f"\nratings: OpenSkill {summary['rating_model']}, one update per game (lowest score ranks first)"
    return "\n".join([head, *lines, foot])


def _pm(est: Mapping[str, Any], digits: int, scale: float = 1.0, mark: bool = False) -> str:
    """'mean ± half-width' of an estimate dict, scaled; '*' when marked and the interval excludes 0."""
    if est["mean"] is None:
        return "-"
    mean = est["mean"] * scale
    if est["low"] is None:
        return f"{mean:.{digits}f}"
    half = (est["high"] - est["low"]) / 2 * scale
    if not mark:
        return f"{mean:.{digits}f} ± {half:.{digits}f}"
    star = "*" if est["low"] > 0 or est["high"] < 0 else " "
    return f"{mean:+.{digits}f} ± {half:.{digits}f} {star}"


def plot(summary: Mapping[str, Any] | MatchResult | TournamentResult, path: str, title: str | None = None) -> None:
    """Write a PNG comparing the agents: points per hand and win rate with their 95% intervals
    (and ratings, for a rated tournament). Needs matplotlib (imported here)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plotting needs matplotlib: pip install matplotlib") from None
    if isinstance(summary, (MatchResult, TournamentResult)):
        summary = summary.summary()
    agents = summary["agents"]
    names = list(agents)
    panels = [("points_per_hand", "(lower is better)", 1.0), ("win_rate", "%", 100.0)]
    rated = all("rating" in agents[n] for n in names)
    fig = Figure(figsize=(4.5 * (len(panels) + rated), 1.2 + 0.45 * len(names)), layout="constrained")
    axes = fig.subplots(1, len(panels) + rated, sharey=True, squeeze=False)[0]
    y = np.arange(len(names))[::-1]
    for ax, (metric, unit, scale) in zip(axes[: len(panels)], panels, strict=True):
        est = [agents[n][metric] for n in names]
        mean = np.array([_nan(e["mean"]) for e in est]) * scale
        low = np.array([_nan(e["low"]) for e in est]) * scale
        high = np.array([_nan(e["high"]) for e in est]) * scale
        err = np.nan_to_num(np.stack([mean - low, high - mean]))
        ax.errorbar(mean, y, xerr=err, fmt="o", capsize=4)
        ax.set_xlabel(f"{METRICS[metric][0]} {unit}")
        ax.grid(axis="x", alpha=0.3)
    if rated:
        ax = axes[-1]
        mu = np.array([agents[n]["rating"]["mu"] for n in names])
        sigma = np.array([agents[n]["rating"]["sigma"] for n in names])
        ax.errorbar(mu, y, xerr=2 * sigma, fmt="s", capsize=4, color="tab:green")
        ax.set_xlabel("OpenSkill rating (mu ± 2 sigma)")
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y, names)
    mode = "whole games" if summary["games"] == "game" else "single hands"
    fig.suptitle(title or f"{summary['deals']:,} duplicate deals, {mode}, 95% intervals over deals")
    fig.savefig(path, dpi=120)


def _nan(x: float | None) -> float:
    return math.nan if x is None else x


__all__ = [
    "CONFIDENCE",
    "METRICS",
    "DealSums",
    "Estimate",
    "MatchResult",
    "TournamentResult",
    "deal_keys",
    "format_table",
    "paired_difference",
    "play_match",
    "plot",
    "round_robin",
    "t_quantile",
]
