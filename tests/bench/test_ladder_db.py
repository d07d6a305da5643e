"""The ladder's database on both engines: the same schema from the same migrations, a deal stored
whole or not at all, interrupted matches marked, and the standings read back alike."""

from __future__ import annotations

import concurrent.futures
import json
import re
import sqlite3
from pathlib import Path

import pytest

from hearts_env.arena import plan_match
from hearts_env.bench.ladder.db import HOUSE, KEYS, MIGRATIONS, TABLES, LadderDB, LadderDBError, _Cursor
from hearts_env.bench.ladder.ratings import standings
from hearts_env.bench.ladder.worker import LadderSettings, match_seed, play_house_matches
from hearts_env.bench.suite import load_suite
from hearts_env.engine.rules import HeartsRules
from hearts_env.play.policy import RandomPolicy


def columns(db: LadderDB) -> dict[str, list[str]]:
    """Each table's columns, in order."""
    if db.engine == "sqlite":
        return {t: [r[1] for r in db.query(f"PRAGMA table_info({t})")] for t in TABLES}
    rows = db.query(
        "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() "
        "ORDER BY table_name, ordinal_position"
    )
    return {t: [c for name, c in rows if name == t] for t in TABLES}


def store_match(db: LadderDB, deals: int = 2, held: list | None = None) -> int:
    """A match of two deals between 'mine' and three house agents, stored as the server stores it;
    with ``held``, the last deal is not stored but appended there, as a function storing it
    through the ``LadderDB`` it is given."""
    rules = HeartsRules(target_score=None)
    names = ["mine", "house:random", "house:random", "house:random"]
    match, seed = db.start_match(lambda m: 1000 + m, rules.to_dict(), names, deals)
    plan = plan_match(rules, [(n, RandomPolicy()) for n in names], deals, seed, "hand", True, 1, record=True)
    for b in range(deals):
        outcome = plan.play_block(b)
        games = [
            {
                "record": g.to_json(),
                **{f: getattr(outcome, f)[0, r].tolist() for f in ("scores", "wins", "qs", "moons")},
                "hands": int(outcome.hands[0, r]),
            }
            for r, g in enumerate(outcome.games)
        ]
        stored = (match, b, int(plan.keys[b]), str(plan.directions[b]), ["mine"] if b else [], 0.1, games)
        if held is not None and b == deals - 1:
            held.append(lambda writer, stored=stored: writer.store_deal(*stored))
        else:
            db.store_deal(*stored)
    db.finish_match(match)
    return match


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.processes)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh SQLite file, or a fresh database on a PostgreSQL server the tests start."""
    if request.param == "sqlite":
        return str(tmp_path / "ladder.db")
    return request.getfixturevalue("postgres_url")


def test_both_engines_hold_the_same_ladder(url: str, tmp_path: Path) -> None:
    db = LadderDB(url)
    token = db.add_bot("mine")
    match = store_match(db)
    db.start_match(lambda m: m, {}, ["mine"] * 4, 1)  # a match a server left running
    again = LadderDB(url)  # opened again: migrated once; a server marks the running match
    assert again.query("SELECT version FROM schema_version") == [(len(MIGRATIONS),)]
    assert again.interrupt_running() == 1 and again.interrupt_running() == 0
    assert again.bot_of_token(token) == "mine" and again.players()["house:random"] == "house"
    assert again.counts() == {"matches": 2, "deals": 2, "games": 8}
    with pytest.raises(LadderDBError):  # a deal stored twice: refused, and nothing of it written
        again.store_deal(match, 0, 1, "left", [], 0.1, [])
    assert again.counts()["deals"] == 2
    table = standings(again)
    assert table == standings(again, replay=True) and table.stand_ins == {"mine": 1} and table.deals == 2
    sqlite = LadderDB(str(tmp_path / "reference.db"))
    assert columns(again) == columns(sqlite)  # the same schema on both engines


def test_a_token_goes_on_a_command_line_as_it_is(tmp_path: Path) -> None:
    """``hearts-bot --token TOKEN`` and any bot's own argument parser read a token that starts
    with '-' as an option: tokens are hex digits."""
    db = LadderDB(str(tmp_path / "ladder.db"))
    tokens = [db.add_bot(f"bot{i}") for i in range(64)]
    assert all(re.fullmatch(r"[0-9a-f]{48}", token) for token in tokens), tokens
    assert len(set(tokens)) == 64 and db.bot_of_token(tokens[7]) == "bot7"


def test_the_standings_read_one_snapshot_while_a_deal_is_stored(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    db = LadderDB(url)
    db.add_bot("mine")
    held: list = []
    store_match(db, held=held)
    writer, execute = LadderDB(url), _Cursor.execute

    def storing_between_the_reads(cursor: _Cursor, sql: str, params=()):  # noqa: ANN001, ANN202
        out = execute(cursor, sql, params)
        if "FROM deals" in sql and held:
            held.pop()(writer)  # the server stores the next deal and its games between two reads
        return out

    monkeypatch.setattr(_Cursor, "execute", storing_between_the_reads)
    assert standings(db).deals == 1  # what was stored when the reading began, whole
    monkeypatch.undo()
    assert not held and standings(db).deals == 2


def test_a_version_1_database_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    connection = sqlite3.connect(path)
    connection.executescript(MIGRATIONS[0].format(id=KEYS["sqlite"]) + "UPDATE schema_version SET version = 1;")
    connection.execute(
        "INSERT INTO matches (started, status, seed, rules, entries, deals) VALUES ('t', 'running', '1', '{}', '[]', 1)"
    )
    connection.commit()
    connection.close()
    db = LadderDB(str(path))
    assert db.query("SELECT version FROM schema_version") == [(2,)]
    assert db.query("SELECT worker FROM matches") == [("server",)]  # a version 1 server's match
    assert db.interrupt_running("worker") == 0 and db.interrupt_running("server") == 1


@pytest.mark.processes
@pytest.mark.parametrize("kind", ["processes", "ray"])
def test_house_matches_in_processes(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Matches of house agents played in two processes (or as Ray tasks, where Ray is installed)
    store what each match's seed and players give when it is played again here: the seed follows
    from the ladder's and the match's id."""
    settings = LadderSettings(deals=2, house=("random", "simple", "heuristic"), seed=3)
    url = str(tmp_path / "ladder.db")
    if kind == "ray":
        request.getfixturevalue("local_ray")
        from hearts_env.arena.sharding import RayExecutor

        assert play_house_matches(url, settings, 4, "worker", RayExecutor()) == ["done"] * 4
    else:
        with concurrent.futures.ProcessPoolExecutor(2) as executor:
            assert play_house_matches(url, settings, 4, "worker", executor) == ["done"] * 4
    db = LadderDB(url)
    assert standings(db) == standings(db, replay=True)
    pool = load_suite("v1").pool
    for match, seed, entries, worker in db.query("SELECT id, seed, entries, worker FROM matches"):
        assert int(seed) == match_seed(3, match) and worker == "worker"
        agents = [(n, pool[n.removeprefix(HOUSE)].build(int(seed))) for n in json.loads(entries)]
        plan = plan_match(HeartsRules(target_score=None), agents, 2, int(seed), "hand", True, 1, record=True)
        again = [plan.play_block(b).scores[0].tolist() for b in range(2)]
        stored = db.query("SELECT deal, scores FROM games WHERE match_id = ? ORDER BY deal, rotation", (match,))
        assert [[json.loads(s) for d, s in stored if d == b] for b in range(2)] == again


def test_a_table_of_one_name_rates_nobody(tmp_path: Path) -> None:
    url = str(tmp_path / "ladder.db")
    assert standings(LadderDB(url)).ratings == {}  # an empty ladder stands empty
    assert play_house_matches(url, LadderSettings(deals=1, house=("random",)), 1, "worker") == ["done"]
    table = standings(LadderDB(url))
    assert table.ratings["house:random"]["mu"] == 25.0 and table.points["house:random"].n == 1
