"""The benchmark's versions: each a frozen list of tracks, deal sets and opponent pool, kept as data.

A version is one JSON file of ``suites/`` (``suites/v1.json``), read by ``load_suite``:

* ``pool``: the opponents by name, each an agent spec (``hearts_env.agents.specs``) with the
  number of games its fingerprint looks at (``identity.fingerprint``; few for the slow searchers);
* ``tracks``: each a kind of game (``episode``: single hands or whole games), its tables (rules,
  the documented ``deal_seed`` of its deal set and how many deals it holds) and its matches: the
  seats of the table at rotation 0 (``candidate`` once, pool members in the others), how many of
  the table's deals the match plays (a prefix: fewer against the slow searchers) and its block
  size (agents are reseeded at every block, so the block size is part of the protocol);
* ``splits`` (``dev``, ``test``), ``agent_seed`` (the arena's seed of every match: it seeds the
  agents, never the deals), ``quick_fraction`` (the ``quick`` setting plays the first
  1/``quick_fraction`` of every match's deals);
* ``record``: what the version froze, computed by ``make_record`` when it was made: the SHA-256
  of every table's deal set in each split (``deals.deal_hash``) and of every pool member's
  weights and decisions (``identity``).

A run checks the record first (``check_deals``; ``identify`` then ``check_pool``): a deal set that hashes otherwise
is an error naming the track; a pool member whose weights or decisions differ means its results
are not the version's, which the run refuses unless told to go on, and then labels the report
``VERSION+modified``. A new version is made deliberately: a new file (``suites/v2.json``, with its
own ``version`` and ``"record": null``), whose record ``hearts-bench freeze suites/v2.json``
writes; old files stay, so old versions stay runnable for as long as their agents play as recorded.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hearts_env.agents.learned.hashing import weights_hash
from hearts_env.agents.specs import agent_from_spec
from hearts_env.bench import deals as deal_sets
from hearts_env.bench.identity import fingerprint
from hearts_env.bench.schema import BenchError, read_json
from hearts_env.engine.rules import HeartsRules
from hearts_env.play.policy import Policy

SUITES_DIR = Path(__file__).parent / "suites"
"""The versions shipped with the package, one JSON file each."""
CANDIDATE = "candidate"
"""The seat name of the agent under test in a match's ``seats``."""
FULL, QUICK = "full", "quick"
"""The settings of a run: every match's deals, or the first 1/``quick_fraction`` of them."""


def setting(quick: bool) -> str:
    """The setting a run plays in, as reports and run folders name it."""
    return QUICK if quick else FULL


@dataclass(frozen=True)
class Table:
    """A table of a track: its rules and its frozen deal set."""

    name: str
    rules: HeartsRules  # as played (single hands: no target score)
    deal_seed: int
    deals: int


@dataclass(frozen=True)
class MatchSpec:
    """A match of a track: who sits at the table, on how many of its deals, in blocks of what size."""

    id: str
    table: str
    seats: tuple[str, ...]  # rotation 0: "candidate" once, pool member names in the other seats
    deals: int
    block: int

    @property
    def opponents(self) -> tuple[str, ...]:
        """The pool members at the table, each once, in seat order."""
        return tuple(dict.fromkeys(s for s in self.seats if s != CANDIDATE))


@dataclass(frozen=True)
class Track:
    name: str
    description: str
    episode: str  # "hand" or "game"
    tables: dict[str, Table]
    matches: tuple[MatchSpec, ...]


@dataclass(frozen=True)
class Member:
    """A frozen opponent: its agent spec and how many games its fingerprint looks at."""

    name: str
    spec: str
    fingerprint_games: int

    def build(self, seed: int) -> Policy:
        return agent_from_spec(self.spec, seed)


@dataclass(frozen=True)
class Suite:
    version: str
    description: str
    splits: tuple[str, ...]
    agent_seed: int
    quick_fraction: int
    pool: dict[str, Member]
    tracks: dict[str, Track]
    record: dict[str, Any] | None
    path: Path

    def match_deals(self, match: MatchSpec, quick: bool) -> int:
        """The deals a match plays: all of them, or with ``quick`` the first 1/``quick_fraction``."""
        return max(1, match.deals // self.quick_fraction) if quick else match.deals

    def check_split(self, split: str) -> None:
        if split not in self.splits:
            raise BenchError(f"suite {self.version} has no split {split!r}; its splits are {', '.join(self.splits)}")

    def select(self, tracks: Iterable[str] | None) -> list[Track]:
        """The tracks named (all, in the suite's order, for None); ``BenchError`` for an unknown one."""
        if tracks is None:
            return list(self.tracks.values())
        names = list(dict.fromkeys(tracks))
        unknown = [t for t in names if t not in self.tracks]
        if unknown or not names:
            raise BenchError(
                f"suite {self.version} has no track {', '.join(map(repr, unknown)) or '(none named)'}; "
                f"its tracks are {', '.join(self.tracks)}"
            )
        return [self.tracks[t] for t in names]

    def member_tables(self, name: str) -> dict[str, HeartsRules]:
        """The tables pool member ``name`` plays at, as ``track/table`` -> rules."""
        return {
            f"{track.name}/{m.table}": track.tables[m.table].rules
            for track in self.tracks.values()
            for m in track.matches
            if name in m.seats
        }

    def check_deals(self, split: str, tracks: Iterable[Track]) -> None:
        """Recompute the hash of every table of ``tracks`` in ``split``; ``BenchError`` naming the
        track and table whose deals differ from the record (or if the version was never frozen)."""
        recorded = self._record()["deals"].get(split, {})
        for track in tracks:
            for table in track.tables.values():
                key = f"{track.name}/{table.name}"
                actual = deal_sets.deal_hash(table.rules, deal_sets.split_keys(split, table.deal_seed, table.deals))
                if recorded.get(key) != actual:
                    raise BenchError(
                        f"track {track.name!r}: the {split} deals of table {table.name!r} hash to {actual[:12]}..., "
                        f"suite {self.version} recorded {str(recorded.get(key))[:12]}...: the dealing code or the "
                        "suite file changed, so these are not the version's deals"
                    )

    def identify(self, members: Mapping[str, Policy]) -> dict[str, dict[str, str | None]]:
        """The weights hash and decisions fingerprint of each of ``members`` (built pool agents),
        as this code computes them: what the record holds for a frozen pool."""
        return {
            name: {
                "weights": weights_hash(agent),
                "fingerprint": fingerprint(agent, self.member_tables(name), self.pool[name].fingerprint_games),
            }
            for name, agent in members.items()
        }

    def check_pool(self, identities: Mapping[str, Mapping[str, str | None]]) -> list[str]:
        """How the members' ``identify`` values differ from the record: one line per difference of
        weights or decisions (empty: the pool is as frozen)."""
        recorded = self._record()["pool"]
        problems = []
        for name, actual in identities.items():
            for key, what in (("weights", "weights"), ("fingerprint", "decisions fingerprint")):
                if actual[key] != recorded.get(name, {}).get(key):
                    problems.append(
                        f"pool member {name!r}: {what} {_short(actual[key])} "
                        f"(recorded {_short(recorded.get(name, {}).get(key))})"
                    )
        return problems

    def _record(self) -> dict[str, Any]:
        if self.record is None:
            raise BenchError(
                f"suite {self.version} ({self.path}) has no record yet: run hearts-bench freeze {self.path}"
            )
        return self.record


def make_record(suite: Suite) -> dict[str, Any]:
    """What ``suite`` freezes, computed by this code: every table's deal hash in each split, and
    every pool member's weights hash and decisions fingerprint."""
    record: dict[str, Any] = {"deals": {}, "pool": {}}
    for split in suite.splits:
        record["deals"][split] = {
            f"{track.name}/{table.name}": deal_sets.deal_hash(
                table.rules, deal_sets.split_keys(split, table.deal_seed, table.deals)
            )
            for track in suite.tracks.values()
            for table in track.tables.values()
        }
    record["pool"] = suite.identify({name: m.build(suite.agent_seed) for name, m in suite.pool.items()})
    return record


def freeze(path: str | Path) -> dict[str, Any]:
    """Write the record of the suite file at ``path`` (one whose ``record`` is null) and return it;
    ``BenchError`` if it has one already (a version, once frozen, stays as it is)."""
    path = Path(path)
    suite = load_suite_file(path)
    if suite.record is not None:
        raise BenchError(f"{path} is frozen already (suite {suite.version}); make a new version instead")
    record = make_record(suite)
    data = read_json(path, "the suite file")
    data["record"] = record
    try:
        path.write_text(json.dumps(data, indent=2) + "\n")
    except OSError as error:
        raise BenchError(f"cannot write the suite file {path}: {error.strerror or error}") from None
    return record


def versions() -> list[str]:
    """The versions shipped with the package."""
    return sorted(p.stem for p in SUITES_DIR.glob("*.json"))


def load_suite(version: str) -> Suite:
    """The shipped suite ``version`` (``v1``), or the suite of a file (a name ending in ``.json``,
    e.g. a new version being made); ``BenchError`` naming the known versions otherwise."""
    if version.endswith(".json"):
        return load_suite_file(version)
    known = versions()
    if version not in known:
        raise BenchError(f"unknown suite version {version!r}; the versions are {', '.join(known)}")
    return load_suite_file(SUITES_DIR / f"{version}.json")


def load_suite_file(path: str | Path) -> Suite:
    """The suite of a JSON file (see the module docstring), checked whole before anything uses it:
    its shape (``schemas/suite.schema.json``: types, ranges, names), then what the shape cannot say
    (rules that make a table, seats that fit it, members that build); ``BenchError`` in one line
    naming the file and the field otherwise."""
    path = Path(path)
    data = read_json(path, "the suite file", "suite")
    try:
        return _parse(data, path)
    except ValueError as error:
        raise BenchError(f"the suite file {path}: {error}") from None


def _parse(data: dict[str, Any], path: Path) -> Suite:
    """The suite of a file whose shape ``read_json`` checked; ``ValueError`` naming the field otherwise."""
    pool = {name: Member(name, m["spec"], m["fingerprint_games"]) for name, m in data["pool"].items()}
    if CANDIDATE in pool:
        raise ValueError(f"pool.{CANDIDATE}: a pool member may not be called {CANDIDATE!r}")
    for name, member in pool.items():
        try:
            member.build(data["agent_seed"])
        except (ValueError, OSError) as error:  # the agents' own one-line refusals
            raise ValueError(f"pool.{name}.spec: {error}") from None
    tracks = {}
    for name, t in data["tracks"].items():
        tables = {}
        for table_name, table in t["tables"].items():
            try:
                rules = HeartsRules.from_dict(table["rules"])
            except (TypeError, ValueError) as error:
                raise ValueError(f"tracks.{name}.tables.{table_name}.rules: {error}") from None
            if t["episode"] == "hand":
                rules = dataclasses.replace(rules, target_score=None)
            tables[table_name] = Table(table_name, rules, table["deal_seed"], table["deals"])
        matches = []
        for i, m in enumerate(t["matches"]):
            where = f"tracks.{name}.matches[{i}]"
            spec = MatchSpec(m["id"], m["table"], tuple(m["seats"]), m["deals"], m["block"])
            table = tables.get(spec.table)
            if table is None:
                raise ValueError(f"{where}.table: no table {spec.table!r}; the track's tables are {', '.join(tables)}")
            if spec.seats.count(CANDIDATE) != 1 or len(spec.seats) != table.rules.num_players:
                raise ValueError(f"{where}.seats: {table.rules.num_players} seats with {CANDIDATE!r} once")
            if unknown := [s for s in spec.opponents if s not in pool]:
                raise ValueError(f"{where}.seats: {unknown[0]!r} is not in the pool")
            if spec.deals > table.deals:
                raise ValueError(f"{where}.deals: {spec.deals} is more than table {table.name!r} holds ({table.deals})")
            matches.append(spec)
        if len({m.id for m in matches}) != len(matches):
            raise ValueError(f"tracks.{name}.matches: match ids must be distinct")
        tracks[name] = Track(name, t.get("description", ""), t["episode"], tables, tuple(matches))
    return Suite(
        version=data["version"],
        description=data.get("description", ""),
        splits=tuple(data["splits"]),
        agent_seed=data["agent_seed"],
        quick_fraction=data["quick_fraction"],
        pool=pool,
        tracks=tracks,
        record=data["record"],
        path=path,
    )


def _short(digest: str | None) -> str:
    return "none" if digest is None else f"{digest[:12]}..."
