"""The browser table's database: duplicate sessions kept in SQLite (the standard library's
``sqlite3``), so they outlive the server.

One file holds every session (``hearts-web --db PATH``; ``":memory:"`` keeps them for the
server's life only). Its tables:

| table | a row per | holds |
|---|---|---|
| ``schema_version`` | (one row) | the schema's version |
| ``sessions`` | session | its id, when it began, its settings (JSON) |
| ``deals`` | deal begun | its key and pass direction |
| ``decisions`` | card played | which side's game (``you``, ``agent``), its order, the seat, the card |
| ``results`` | finished game | per seat its points, win share, QS taken, moon shot (JSON lists); its seconds |

The person's cards are written as they are played, so a session taken up after a restart goes
on from its last card; a deal's two results are written together, in one transaction.

The schema is versioned: ``MIGRATIONS[v]`` takes a database from version ``v`` to ``v + 1``, each
in one transaction, when the store opens it. A file that is not a SQLite database, a database
of something else, one of a newer version than this code knows, one whose version row or tables
are damaged (a table missing, or of other columns), one this process cannot write, and one
another program holds are refused
(``StoreError``, one line naming the file) and left as they are. The store holds its file
exclusively while it is open (SQLite's exclusive locking mode), so a second server on the same
file is refused at its start rather than working from a stale view.

A session whose rows do not read back as they were written (settings that are no JSON object,
results that are no lists of numbers) is a ``DamagedSession``, raised for that session alone: the
listing holds it as such among the others, and it can be deleted.

Every error of SQLite after the start (a full disk, a file made read-only or removed) is a
``StoreError`` too, raised after the transaction that met it was rolled back: nothing half
written stays, and the caller, which changes its own memory only after a write, keeps what the
database holds.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE schema_version (version INTEGER NOT NULL);
    INSERT INTO schema_version VALUES (0);
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        created TEXT NOT NULL,
        settings TEXT NOT NULL
    );
    CREATE TABLE deals (
        session TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        deal INTEGER NOT NULL,
        key TEXT NOT NULL,
        direction TEXT NOT NULL,
        PRIMARY KEY (session, deal)
    );
    CREATE TABLE decisions (
        session TEXT NOT NULL,
        deal INTEGER NOT NULL,
        side TEXT NOT NULL CHECK (side IN ('you', 'agent')),
        n INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        card TEXT NOT NULL,
        PRIMARY KEY (session, deal, side, n),
        FOREIGN KEY (session, deal) REFERENCES deals (session, deal) ON DELETE CASCADE
    );
    CREATE TABLE results (
        session TEXT NOT NULL,
        deal INTEGER NOT NULL,
        side TEXT NOT NULL CHECK (side IN ('you', 'agent')),
        points TEXT NOT NULL,
        wins TEXT NOT NULL,
        qs TEXT NOT NULL,
        moons TEXT NOT NULL,
        seconds REAL NOT NULL,
        PRIMARY KEY (session, deal, side),
        FOREIGN KEY (session, deal) REFERENCES deals (session, deal) ON DELETE CASCADE
    );
    """,
)
"""``MIGRATIONS[v]``: the SQL that takes the schema from version ``v`` to ``v + 1``."""
SCHEMA_VERSION = len(MIGRATIONS)
COLUMNS = {
    "schema_version": ("version",),
    "sessions": ("id", "created", "settings"),
    "deals": ("session", "deal", "key", "direction"),
    "decisions": ("session", "deal", "side", "n", "seat", "card"),
    "results": ("session", "deal", "side", "points", "wins", "qs", "moons", "seconds"),
}
"""Each table's columns, in order, as ``MIGRATIONS`` make them (the store's writes name none)."""
RESULT_FIELDS = ("points", "wins", "qs", "moons")
"""A result's per-seat lists, stored as JSON."""


class StoreError(Exception):
    """A database the store cannot use, or a write it refused; the message names the file."""


class DamagedSession(StoreError):
    """A session whose rows do not read back as the store wrote them (edited by hand, or damaged):
    the message names the file, the session and what is damaged. The session can still be deleted."""

    status = 500  # its rows will not mend themselves: not a 503's "try again later"

    def __init__(self, path: str, session_id: str, what: str) -> None:
        super().__init__(f"{path}: session {session_id}: its stored {what} are damaged; delete the session")
        self.session_id = session_id


@dataclass(frozen=True)
class Result:
    """One finished game of a deal: per seat its points, win share, QS taken (0/1) and moon (0/1)."""

    points: tuple[int, ...]
    wins: tuple[float, ...]
    qs: tuple[int, ...]
    moons: tuple[int, ...]
    seconds: float


@dataclass(frozen=True)
class Stored:
    """A session as stored: its settings (JSON-ready), its decisions and results by (deal, side)."""

    id: str
    created: str
    settings: dict[str, Any]
    decisions: dict[tuple[int, str], list[tuple[int, str]]]  # (seat, card name), in order
    results: dict[tuple[int, str], Result]


class Store:
    """The sessions of one database file, safe to share between threads (one connection, a lock)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.lock = threading.Lock()
        try:
            self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as error:
            raise StoreError(f"{path}: cannot open it as a database ({error})") from None
        try:
            self.db.execute("PRAGMA foreign_keys = ON")
            self.db.execute("PRAGMA locking_mode = EXCLUSIVE")  # held from the first write to close
            self._migrate()
            self._check_tables()
            with self._transaction():  # a write, so a file this process cannot write is refused now
                self.db.execute("UPDATE schema_version SET version = version")
        except sqlite3.OperationalError as error:
            self.db.close()
            raise StoreError(f"{path}: {_reason(error)}") from None
        except sqlite3.DatabaseError as error:
            self.db.close()
            raise StoreError(f"{path}: not a hearts-web database ({error})") from None
        except StoreError:
            self.db.close()
            raise

    def _migrate(self) -> None:
        tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "schema_version" in tables:
            rows = self.db.execute("SELECT version FROM schema_version").fetchall()
            if len(rows) != 1 or isinstance(rows[0][0], bool) or not isinstance(rows[0][0], int) or rows[0][0] < 0:
                raise StoreError(f"{self.path}: its schema_version table is damaged (rows {rows!r:.60})")
            version = rows[0][0]
        elif tables:
            raise StoreError(f"{self.path}: a database of something else (no schema_version table), not hearts-web's")
        else:
            version = 0
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: its schema is version {version}, newer than this hearts-web's {SCHEMA_VERSION}: "
                "use a newer hearts_env, or another --db"
            )
        for v in range(version, SCHEMA_VERSION):
            with self._transaction():
                for statement in MIGRATIONS[v].split(";"):
                    if statement.strip():
                        self.db.execute(statement)
                self.db.execute("UPDATE schema_version SET version = ?", (v + 1,))

    def _check_tables(self) -> None:
        tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing = set(COLUMNS) - tables
        if missing:
            raise StoreError(f"{self.path}: a damaged hearts-web database: no table {', '.join(sorted(missing))}")
        for table, columns in COLUMNS.items():  # the writes name no columns: each table's, in order
            found = tuple(row[1] for row in self.db.execute(f"PRAGMA table_info({table})"))
            if found != columns:
                raise StoreError(
                    f"{self.path}: a damaged hearts-web database: table {table} has the columns "
                    f"{', '.join(found):.200}, not {', '.join(columns)}"
                )

    @contextlib.contextmanager
    def _using(self) -> Iterator[sqlite3.Connection]:
        """The connection, under the lock; an error of SQLite (or a number it cannot hold) raised
        as a ``StoreError`` naming the file."""
        with self.lock:
            try:
                yield self.db
            except (sqlite3.Error, OverflowError) as error:
                raise StoreError(f"{self.path}: {_reason(error)}") from None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """The connection inside one transaction: committed at the end of the block, rolled back
        if it raises."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
            self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        with self.lock:
            self.db.close()

    # -- writing

    def create(self, session_id: str, created: str, settings: dict[str, Any], most: int) -> bool:
        """Add a session, unless the database holds ``most`` already (False then)."""
        with self._using(), self._transaction() as db:
            if db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] >= most:
                return False
            db.execute("INSERT INTO sessions VALUES (?, ?, ?)", (session_id, created, json.dumps(settings)))
            return True

    def begin_deal(self, session_id: str, deal: int, key: int, direction: str) -> None:
        with self._using(), self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO deals VALUES (?, ?, ?, ?)", (session_id, deal, str(key), direction))

    def add_decisions(
        self, session_id: str, deal: int, side: str, first: int, decisions: Sequence[tuple[int, str]]
    ) -> None:
        """Decisions ``first``, ``first + 1``, ... of one side's game of a deal."""
        with self._using(), self._transaction() as db:
            _insert_decisions(db, session_id, deal, side, first, decisions)

    def finish_deal(
        self,
        session_id: str,
        deal: int,
        games: dict[str, tuple[int, Sequence[tuple[int, str]], Result]],
    ) -> None:
        """A deal's games at their ends, in one transaction: for each side, its decisions from the
        first not yet stored (``first``, decisions) and its result."""
        with self._using(), self._transaction() as db:
            for side, (first, decisions, result) in games.items():
                _insert_decisions(db, session_id, deal, side, first, decisions)
                fields = [json.dumps(list(getattr(result, f))) for f in RESULT_FIELDS]
                db.execute(
                    "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (session_id, deal, side, *fields, result.seconds),
                )

    def delete(self, session_id: str) -> bool:
        with self._using(), self._transaction() as db:
            return db.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount > 0

    # -- reading

    def load(self, session_id: str, deal: int | None = None) -> Stored | None:
        """The session ``session_id`` (None if there is none), with the decisions of every deal or
        of ``deal`` alone (``DamagedSession`` if its rows do not read back)."""
        with self._using():
            row = self.db.execute("SELECT id, created, settings FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                return None
            decisions: dict[tuple[int, str], list[tuple[int, str]]] = {}
            query = "SELECT deal, side, seat, card FROM decisions WHERE session = ? AND (? IS NULL OR deal = ?)"
            rows = self.db.execute(query + " ORDER BY deal, side, n", (session_id, deal, deal))
            for d, side, seat, card in rows:
                if not (_is_int(d) and _is_int(seat) and isinstance(card, str)):
                    raise DamagedSession(self.path, session_id, "decisions")
                decisions.setdefault((d, side), []).append((seat, card))
            results = self._results([session_id]).get(session_id, {})
        if isinstance(results, DamagedSession):
            raise results
        return Stored(row[0], row[1], self._settings(row[0], row[2]), decisions, results)

    def listing(self, most: int) -> list[Stored | DamagedSession]:
        """The ``most`` latest sessions, latest first, with their settings and results but no
        decisions; a session whose rows do not read back as its ``DamagedSession``, in its place."""
        with self._using():
            rows = self.db.execute(
                "SELECT id, created, settings FROM sessions ORDER BY created DESC, rowid DESC LIMIT ?", (most,)
            ).fetchall()
            results = self._results([r[0] for r in rows])
        out: list[Stored | DamagedSession] = []
        for session_id, created, settings in rows:
            found = results.get(session_id, {})
            try:
                if isinstance(found, DamagedSession):
                    raise found
                out.append(Stored(session_id, created, self._settings(session_id, settings), {}, found))
            except DamagedSession as damage:
                out.append(damage)
        return out

    def _settings(self, session_id: str, text: object) -> dict[str, Any]:
        settings = _json(text)
        if not isinstance(settings, dict):
            raise DamagedSession(self.path, session_id, "settings")
        return settings

    def _results(self, ids: list[str]) -> dict[str, dict[tuple[int, str], Result] | DamagedSession]:
        """The results of each session of ``ids`` that has any, or the ``DamagedSession`` of one
        whose results do not read back as lists of numbers."""
        out: dict[str, dict[tuple[int, str], Result] | DamagedSession] = {}
        if not ids:
            return out
        marks = ",".join("?" * len(ids))
        query = f"SELECT session, deal, side, points, wins, qs, moons, seconds FROM results WHERE session IN ({marks})"
        for session, deal, side, *fields, seconds in self.db.execute(query, ids):
            found = out.setdefault(session, {})
            if isinstance(found, DamagedSession):
                continue
            lists = [_json(f) for f in fields]
            if not (_is_int(deal) and _is_number(seconds) and all(_numbers(values) for values in lists)):
                out[session] = DamagedSession(self.path, session, "results")
                continue
            points, wins, qs, moons = (tuple(values) for values in lists)
            found[(deal, side)] = Result(points, wins, qs, moons, seconds)
        return out


def _insert_decisions(
    db: sqlite3.Connection, session_id: str, deal: int, side: str, first: int, decisions: Sequence[tuple[int, str]]
) -> None:
    db.executemany(
        "INSERT INTO decisions VALUES (?, ?, ?, ?, ?, ?)",
        [(session_id, deal, side, first + i, seat, card) for i, (seat, card) in enumerate(decisions)],
    )


def _json(text: object) -> Any:
    """A JSON column's value, or None where it holds no JSON."""
    try:
        return json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        return None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _numbers(values: object) -> bool:
    return isinstance(values, list) and all(_is_number(v) for v in values)


def _reason(error: Exception) -> str:
    """What an error of SQLite means for the person who runs the server."""
    text = str(error)
    if "locked" in text or "busy" in text:
        return "in use by another program (another hearts-web on the same --db?)"
    if "readonly" in text:
        return "cannot be written (a read-only file or folder)"
    if isinstance(error, OverflowError):
        return "a number too large for the database"
    return f"the database failed: {text}"
