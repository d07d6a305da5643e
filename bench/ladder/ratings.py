"""The ladder's standings, recomputed from the database every time: OpenSkill ratings over every
deal of every table, a deal one game whose players are ranked by their mean points over its seat
rotations (``hearts_env.arena.tournament.rate_deal``'s duplicate ranking: the cards' luck
cancels), match by match in the order they began; points per hand with their 95% intervals and,
for every pair of players who met, the duplicate difference of their points per hand on the deals
they shared (the arena's ``DealSums``), and each player's rating after each of its matches.

``standings(db)`` reads each game's stored points; ``standings(db, replay=True)`` plays every
stored card again through the core instead (every game of a pass direction as one batch) and
takes the points from there, so the two agree exactly when the stored decisions are the games
that were scored.
"""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from hearts_env.arena.match import MatchResult
from hearts_env.arena.statistics import DealSums, Estimate
from hearts_env.arena.tournament import openskill_model, rate_deal, rating_fields
from hearts_env.bench.ladder.db import LadderDB
from hearts_env.engine import core
from hearts_env.engine.cards import parse_card
from hearts_env.engine.rules import HeartsRules


@dataclass(frozen=True)
class Standings:
    """Every player's rating and points, the pairs' differences and the ratings' history."""

    ratings: dict[str, dict[str, float]]  # name -> mu, sigma, ordinal, by ordinal (best first)
    points: dict[str, Estimate]  # name -> points per hand over its deals (lower is better)
    pairs: dict[tuple[str, str], Estimate]  # (a, b) -> a's points per hand minus b's on their shared deals
    history: dict[str, list[dict[str, Any]]]  # name -> after each of its matches: match id, mu, sigma, ordinal
    deals: int  # deals counted
    stand_ins: dict[str, int]  # name -> deals in which a stand-in played its seat

    def table(self) -> str:
        """The standings as aligned text, best first."""
        rows = [["rank", "player", "rating", "mu", "sigma", "deals", "points/hand", "stand-in deals"]]
        for rank, (name, r) in enumerate(self.ratings.items(), 1):
            p = self.points[name]
            shown = f"{p.mean:.2f} ± {p.half_width:.2f}" if p.n > 1 else f"{p.mean:.2f}"
            rows.append(
                [str(rank), name, f"{r['ordinal']:.2f}", f"{r['mu']:.2f}", f"{r['sigma']:.2f}", str(p.n), shown]
                + [str(self.stand_ins.get(name, 0))]
            )
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows)

    def to_json(self) -> dict[str, Any]:
        return {
            "deals": self.deals,
            "players": [
                {
                    "name": name,
                    "rating": rating,
                    "points_per_hand": self.points[name].to_dict(),
                    "stand_in_deals": self.stand_ins.get(name, 0),
                }
                for name, rating in self.ratings.items()
            ],
            "pairs": [{"a": a, "b": b, "difference": e.to_dict()} for (a, b), e in self.pairs.items()],
        }


def standings(db: LadderDB, replay: bool = False) -> Standings:
    """The standings of every deal stored (``replay``: points from the stored cards played again)."""
    matches = load_matches(db, replay)
    model = openskill_model()
    ratings: dict[str, Any] = {}
    history: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for match_id, result, _ in matches:
        for name in result.names:  # rated from the model's prior, even before a game rates it
            ratings.setdefault(name, model.rating(name=name))
        for d in range(result.deals):
            rate_deal(model, ratings, result, d, duplicate=True)
        for name in result.names:
            history[name].append({"match": match_id} | rating_fields(ratings[name]))
    names = sorted(ratings)
    sums = _stack(names, [m[1].sums() for m in matches])
    order = sorted(names, key=lambda n: -ratings[n].ordinal())
    pairs = {}
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            estimate = sums.difference(a, b)
            if estimate.n:
                pairs[(a, b)] = estimate
    stand_ins: dict[str, int] = defaultdict(int)
    for _, _, marked in matches:
        for names_marked in marked:
            for name in names_marked:
                stand_ins[name] += 1
    return Standings(
        ratings={n: rating_fields(ratings[n]) for n in order},
        points={n: sums.estimate(n) for n in order},
        pairs=pairs,
        history=dict(history),
        deals=sum(m[1].deals for m in matches),
        stand_ins=dict(stand_ins),
    )


def load_matches(db: LadderDB, replay: bool = False) -> list[tuple[int, MatchResult, list[list[str]]]]:
    """Every match with stored deals, in the order they began: its id, its deals as a
    ``MatchResult`` (indexed by deal, rotation, seat) and each deal's stand-in marks."""
    # One snapshot: a deal the server stores meanwhile is in all three reads or in none.
    with db.transaction(write=False) as cursor:
        rows = cursor.execute("SELECT id, seed, rules, entries FROM matches ORDER BY id").fetchall()
        deals = cursor.execute(
            "SELECT match_id, deal, key, direction, stand_in FROM deals ORDER BY match_id, deal"
        ).fetchall()
        games = cursor.execute(
            "SELECT match_id, deal, rotation, record, scores, wins, qs, moons, hands FROM games "
            "ORDER BY match_id, deal, rotation"
        ).fetchall()
    deals_of: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for row in deals:
        deals_of[int(row[0])].append(row)
    games_of: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for row in games:
        games_of[int(row[0])].append(row)
    out = []
    for match_id, seed, rules_json, entries_json in rows:
        if not deals_of.get(match_id):
            continue
        rules = HeartsRules.from_dict(json.loads(rules_json))
        entry_names = json.loads(entries_json)
        result = _result(rules, int(seed), entry_names, deals_of[match_id], games_of[match_id], replay)
        out.append((int(match_id), result, [json.loads(d[4]) for d in deals_of[match_id]]))
    return out


def _result(
    rules: HeartsRules,
    seed: int,
    entry_names: list[str],
    deals: list[tuple[Any, ...]],
    games: list[tuple[Any, ...]],
    replay: bool,
) -> MatchResult:
    P = R = rules.num_players
    N = len(deals)
    names = tuple(dict.fromkeys(entry_names))
    first_entry = {n: entry_names.index(n) for n in names}
    seating = np.zeros((R, P), np.int64)
    records = [json.loads(g[3]) for g in games]
    for g, record in zip(games, records, strict=True):
        seating[int(g[2])] = [first_entry[n] for n in record["seats"]]

    def field(i: int) -> np.ndarray:
        return np.array([json.loads(g[i]) for g in games], np.float64).reshape(N, R, P)

    scores = _replayed_scores(rules, records).reshape(N, R, P) if replay else field(4)
    return MatchResult(
        rules=rules,
        episode="hand",
        seed=seed,
        names=names,
        entries=np.array([names.index(n) for n in entry_names]),
        seating=seating,
        deal_keys=np.array([int(d[2]) for d in deals], np.uint64),
        directions=np.array([d[3] for d in deals]),
        hands=np.array([g[8] for g in games], np.int64).reshape(N, R),
        scores=scores,
        wins=field(5),
        qs=field(6),
        moons=field(7),
        seconds=0.0,
        block=1,
    )


def _replayed_scores(rules: HeartsRules, records: list[dict[str, Any]]) -> np.ndarray:
    """(G, P): each recorded game's totals, its cards played again through the core, the games of
    each pass cycle as one batch."""
    out = np.zeros((len(records), rules.num_players), np.int64)
    by_cycle: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i, record in enumerate(records):
        by_cycle[tuple(record["pass_cycle"])].append(i)
    for cycle, rows in by_cycle.items():
        keys = np.array([int(records[i]["key"]) for i in rows], np.uint64)
        played = np.array(
            [[parse_card(c) for c in " ".join(h["cards"] for h in records[i]["hands"]).split()] for i in rows], np.int64
        )
        state = core.new_games(dataclasses.replace(rules, pass_cycle=cycle), keys=keys)
        for t in range(played.shape[1]):
            state = core.step(state, played[:, t])
        if not state.done.all():
            raise ValueError("a stored game does not end where its cards end")
        out[rows] = state.scores
    return out


def _stack(names: list[str], parts: list[DealSums]) -> DealSums:
    """The deals of ``parts`` (matches on different deals) one after the other, over ``names``."""
    fields = {}
    for total in parts[0].totals if parts else ():
        blocks = []
        for sums in parts:
            block = np.zeros((getattr(sums, total).shape[0], len(names)))
            block[:, [names.index(n) for n in sums.names]] = getattr(sums, total)
            blocks.append(block)
        fields[total] = np.concatenate(blocks)
    if not parts:
        empty = np.zeros((0, len(names)))
        return DealSums(tuple(names), *(empty for _ in range(8)))
    return DealSums(tuple(names), **fields)
