"""Duplicate sessions of the browser table (``agents/human/web/sessions.py``, ``store.py``): a session
played through the API to its end, its figure equal to the arena's paired difference computed
from its exported records, the agent's games equal to the arena's on the same deals, random
opponents seeded alike in both games, the session kept across a restart, the database's schema
and the files it refuses, bad requests and other sites refused; and in Chromium a session played
with the keys to its end (the figure read from the page, and again after a restart), and the
layout measured from a phone to a wide screen."""

from __future__ import annotations

import json
import re
import sqlite3
import urllib.request
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
with warnings.catch_warnings():  # starlette 1.x prefers httpx2 to httpx; either drives the app
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from web_browser import (  # noqa: E402
    browser,
    contrast_problems,
    last_legal_key,
    layout_problems,
    page_width,
    persons_turn,
    press,
    serving,
    text,
    viewport,
    wait,
)

from hearts_env.agents.human.web.app import create_app  # noqa: E402
from hearts_env.agents.human.web.sessions import MAX_DEALS, Settings  # noqa: E402
from hearts_env.agents.human.web.store import SCHEMA_VERSION, Store, StoreError  # noqa: E402
from hearts_env.agents.specs import agent_from_spec  # noqa: E402
from hearts_env.arena import play_match  # noqa: E402
from hearts_env.arena.statistics import Estimate  # noqa: E402
from hearts_env.engine import core  # noqa: E402
from hearts_env.engine.cards import card_name  # noqa: E402
from hearts_env.engine.infoset import infoset  # noqa: E402
from hearts_env.engine.rules import HeartsRules  # noqa: E402
from hearts_env.play import replay  # noqa: E402

BASE = "http://127.0.0.1:8000"
SESSION = {"opponents": ["simple"], "agent": "heuristic", "deals": 3, "seed": 5}


def client_on(db: Path | str = ":memory:", **options) -> TestClient:
    return TestClient(create_app(db=str(db), **options), base_url=BASE)


def refused(response, status: int, words: str) -> None:
    assert response.status_code == status and words in response.json()["error"], response.json()


def start(client: TestClient, **request) -> dict:
    response = client.post("/api/sessions", json={**SESSION, **request})
    assert response.status_code == 200, response.json()
    return response.json()


def move(client: TestClient, answer: dict, pick=None) -> dict:
    """The person's next move: the cards ``pick(table)`` names (default: the first ones held,
    the first legal card)."""
    session, table = answer["session"], answer["table"]
    url = f"/api/sessions/{session['id']}"
    if table["waiting_for"] == "pass":
        cards = pick(table) if pick else table["seats"][table["seat"]]["hand_names"][: table["pass_count"]]
        response = client.post(f"{url}/pass", json={"cards": cards, "turn": table["turn"]})
    else:
        card = pick(table) if pick else table["legal_names"][0]
        response = client.post(f"{url}/play", json={"card": card, "turn": table["turn"]})
    assert response.status_code == 200, response.json()
    return response.json()


def play_deal(client: TestClient, answer: dict, pick=None) -> dict:
    while answer["session"]["state"] == "playing":
        answer = move(client, answer, pick)
    return answer


def play_session(client: TestClient, answer: dict) -> tuple[dict, list[dict]]:
    """Every deal to the end: the last answer and each deal's result as the page showed it."""
    shown = []
    while answer["session"]["state"] != "finished":
        answer = play_deal(client, answer)
        session = answer["session"]
        shown.append(session["last"])
        answer = client.post(f"/api/sessions/{session['id']}/next", json={"deal": session["deal"]}).json()
    return answer, shown


def exported_games(client: TestClient, session_id: str) -> tuple[replay.Replay, replay.Replay]:
    """The two sides' exported games, each read back through ``replay.parse`` (every card
    played again through the core, every total checked)."""
    out = []
    for side in ("you", "agent"):
        response = client.get(f"/api/sessions/{session_id}/export/{side}.jsonl")
        assert response.status_code == 200 and response.headers["content-type"].startswith("application/x-ndjson")
        out.append(replay.parse(response.content.splitlines(keepends=True), f"{side}.jsonl"))
    return out[0], out[1]


def paired_difference(you: replay.Replay, agent: replay.Replay, seat: int) -> dict:
    """The arena's paired difference, from the records alone: per deal, the person's points per
    hand minus the agent's in the same seat (``Estimate.of``, as ``MatchResult.paired_difference``),
    overall and for the deals passing each way."""
    assert [g.deal for g in you.games] == [g.deal for g in agent.games]
    assert [g.key for g in you.games] == [g.key for g in agent.games]
    diff = np.array([y.scores[seat] - a.scores[seat] for y, a in zip(you.games, agent.games, strict=True)], float)
    directions = np.array([g.pass_cycle[0] for g in you.games])
    out = {"all": Estimate.of(diff).to_dict()}
    for direction in dict.fromkeys(directions):
        out[direction] = Estimate.of(diff[directions == direction]).to_dict()
    return out


# ---------------------------------------------------------------------------------------------
# Through the API


def test_a_session_measures_the_person_against_the_agent_on_the_same_deals() -> None:
    client = client_on()
    answer = start(client)
    session = answer["session"]
    assert session["state"] == "playing" and session["deal"] == 0 and answer["table"]["waiting_for"] == "pass"
    hint = client.post(f"/api/sessions/{session['id']}/hint", json={"agent": "ppo", "turn": 0})
    assert hint.status_code == 404  # a session measures the person alone: no hints on offer
    answer, shown = play_session(client, answer)
    session = answer["session"]
    figures = session["figures"]
    assert session["state"] == "finished" and answer["table"] is None and figures["deals"] == 3
    assert [s["direction"] for s in shown] == ["left", "right", "across"]

    you, agent = exported_games(client, session["id"])
    assert [g.seats for g in you.games] == [("you", "simple", "simple", "simple")] * 3
    assert [g.seats for g in agent.games] == [("heuristic in your seat", "simple", "simple", "simple")] * 3
    assert [g.hands[0].deal for g in you.games] == [g.hands[0].deal for g in agent.games]  # the same cards
    assert [[g.scores[0] for g in side.games] for side in (you, agent)] == [
        [s["you"] for s in shown],
        [s["agent"] for s in shown],
    ]
    expected = paired_difference(you, agent, seat=0)
    assert figures["difference"] == expected["all"]
    assert {d: f["difference"] for d, f in figures["by_direction"].items()} == {
        d: e for d, e in expected.items() if d != "all"
    }
    gaps = [abs(s["you"] - s["agent"]) for s in shown]
    assert [abs(m["you"] - m["agent"]) for m in figures["most_different"]] == sorted(g for g in gaps if g)[::-1]

    arena = client.get(f"/api/sessions/{session['id']}/export/arena.json").json()
    assert arena["kind"] == "duplicate_session" and arena["figures"] == figures
    assert arena["you"]["agents"]["you"]["points_per_hand"] == figures["you"]
    assert arena["agent"]["agents"]["heuristic in your seat"]["points_per_hand"] == figures["agent"]
    assert arena["you"]["episode"] == "hand" and arena["you"]["deals"] == 3

    # The agent's games are the arena's: the same deals, heuristic in seat 0 (rotation 0).
    agents = [("heuristic", agent_from_spec("heuristic", 0)), *[("simple", agent_from_spec("simple", 0))] * 3]
    keys = np.array([g.key for g in agent.games], np.uint64)
    arena_games = play_match(None, agents, keys=keys, episode="hand", record=True).games
    assert [g.hands for g in arena_games if g.rotation == 0] == [g.hands for g in agent.games]


def test_random_opponents_are_seeded_alike_in_both_games() -> None:
    """A person who plays the agent's cards plays the agent's game, card for card: the random
    opponents drew the same numbers in both games."""
    client = client_on()
    answer = start(client, opponents=["random"], deals=1, seed=11)
    live = client.app.state.sessions.live[answer["session"]["id"]]
    heuristic = agent_from_spec("heuristic", 0)

    def heuristic_cards(table: dict) -> list[str] | str:
        state, picks = live.table.state, []
        for _ in range(table["pass_count"] if table["waiting_for"] == "pass" else 1):
            card = int(heuristic(infoset(state, table["seat"]), core.legal_mask(state))[0])
            picks.append(card_name(card))
            state = core.step(state, np.array([card]))
        return picks if table["waiting_for"] == "pass" else picks[0]

    answer = play_deal(client, answer, heuristic_cards)
    assert answer["session"]["last"]["you"] == answer["session"]["last"]["agent"]
    you, agent = exported_games(client, answer["session"]["id"])
    assert you.games[0].hands == agent.games[0].hands


def test_a_session_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "sessions.sqlite"
    first = client_on(db)
    answer = play_deal(first, start(first, deals=2))
    session_id = answer["session"]["id"]
    answer = first.post(f"/api/sessions/{session_id}/next", json={"deal": 0}).json()
    for _ in range(3):  # the pass and two cards of deal 1
        answer = move(first, answer)

    first.app.state.sessions.close()  # the server stops: its database is let go
    second = client_on(db)  # a new server on the same database
    taken_up = second.get(f"/api/sessions/{session_id}").json()
    assert taken_up == answer  # the same deal, at the same card, with the same figures
    assert [s["id"] for s in second.get("/api/sessions").json()["sessions"]] == [session_id]
    answer, shown = play_session(second, taken_up)
    assert answer["session"]["figures"]["deals"] == 2
    you, agent = exported_games(second, session_id)
    assert paired_difference(you, agent, 0)["all"] == answer["session"]["figures"]["difference"]


@pytest.mark.parametrize(
    ("request_", "words"),
    [
        ({"deals": 0}, f"deals must be an int 1..{MAX_DEALS}"),
        ({"deals": MAX_DEALS + 1}, f"deals must be an int 1..{MAX_DEALS}, got {MAX_DEALS + 1}"),
        ({"deals": "3"}, "deals must be an int"),
        ({"deal_set": "test"}, "deal_set must be one of seed, dev"),
        ({"seat": 4}, "seat must be an int 0..3"),
        ({"seat": True}, "seat must be an int"),
        ({"seed": -1}, "seed must be an int"),
        ({"agent": "nobody"}, "agent: unknown agent 'nobody'"),
        ({"agent": "pimc:worlds=100000"}, "agent: agent 'pimc:worlds=100000': worlds=100000 is outside"),
        ({"agent": 7}, "agent: an agent must be a spec string"),
        ({"opponents": ["trained:path=/etc"]}, "opponents: agent 'trained' is not offered by this server"),
        ({"opponents": ["simple", "simple"]}, "give 1 agent for every other seat, or 3"),
        ({"rules": {"moon": "never"}}, "rules: moon must be one of"),
        ({"agent": "ppo", "rules": {"num_players": 5}}, "agent 'ppo' cannot play these rules"),
        ({"cheat": 1}, "unknown field cheat"),
    ],
)
def test_new_sessions_refuse_bad_requests(request_: dict, words: str) -> None:
    client = client_on()
    refused(client.post("/api/sessions", json={**SESSION, **request_}), 400, words)
    assert client.get("/api/sessions").json()["sessions"] == []


def test_refused_moves_change_nothing() -> None:
    client = client_on()
    answer = start(client, deals=2)
    url, table = f"/api/sessions/{answer['session']['id']}", answer["table"]
    hand = table["seats"][0]["hand_names"]
    refused(client.post(f"{url}/play", json={"card": hand[0], "turn": table["turn"]}), 409, "waits for 'pass'")
    refused(client.post(f"{url}/pass", json={"cards": hand[:3], "turn": table["turn"] + 1}), 409, "out of turn")
    refused(client.post(f"{url}/next", json={"deal": 0}), 409, "out of turn: the session is at deal 0, playing")
    refused(client.post(f"{url}/next", json={"deal": "0"}), 400, "deal must be the int")
    refused(client.get(f"{url}/export/you.jsonl"), 409, "no deal of this session is over yet")
    refused(client.get(f"{url}/export/secrets.txt"), 404, "none of arena.json, you.jsonl, agent.jsonl")
    refused(client.get(f"{url}/deals/0/steps/0"), 400, "deal 0 of this session is not over")
    refused(client.get("/api/sessions/nope"), 404, "no session 'nope'")
    refused(client.post("/api/sessions/nope/next", json={"deal": 0}), 404, "no session 'nope'")
    assert client.get(url).json() == answer

    answer = play_deal(client, answer)
    refused(client.post(f"{url}/next", json={"deal": 1}), 409, "out of turn")
    refused(client.post(f"{url}/play", json={"card": "2C", "turn": answer["table"]["turn"]}), 409, "waits for 'next'")
    both = client.get(f"{url}/deals/0/steps/0").json()
    steps = both["you"]["steps"]
    assert steps == both["agent"]["steps"] == 1 + 12 + 52  # the deal, then each pass and card, in both games
    assert all(s["face_up"] for side in ("you", "agent") for s in both[side]["seats"])
    assert both["you"]["seats"][0]["hand"] == both["agent"]["seats"][0]["hand"]  # dealt the same cards
    refused(client.get(f"{url}/deals/0/steps/{steps}"), 400, f"step must be in 0..{steps - 1}")
    assert client.get(url).json() == answer


def test_other_sites_cannot_start_play_or_delete_sessions() -> None:
    client = client_on()
    answer = start(client, deals=1)
    url = f"/api/sessions/{answer['session']['id']}"
    evil = {"origin": "http://evil.example", "content-type": "application/json"}
    for method, path, body in [
        ("POST", "/api/sessions", "{}"),
        ("POST", f"{url}/pass", json.dumps({"cards": [], "turn": 0})),
        ("POST", f"{url}/next", json.dumps({"deal": 0})),
        ("DELETE", url, None),
    ]:
        refused(client.request(method, path, content=body, headers=evil), 403, "another site")
    refused(
        client.post("/api/sessions", content=b"{}", headers={"content-type": "text/plain"}), 415, "application/json"
    )
    assert len(client.get("/api/sessions").json()["sessions"]) == 1 and client.get(url).json() == answer


def test_sessions_are_bounded_and_deleted() -> None:
    client = client_on(max_sessions=2)
    first, _ = start(client, deals=1), start(client, deals=1)
    refused(client.post("/api/sessions", json=SESSION), 503, "2 sessions in play, its most")
    sessions = client.app.state.sessions
    sessions.live.clear()  # let go of them (as after idle minutes): the store keeps them
    sessions.max_stored = 2
    refused(client.post("/api/sessions", json=SESSION), 503, "the database holds 2 sessions, its most")
    session_id = first["session"]["id"]
    assert client.get(f"/api/sessions/{session_id}").json() == first  # taken up from the store
    assert client.delete(f"/api/sessions/{session_id}").json() == {"deleted": session_id}
    refused(client.get(f"/api/sessions/{session_id}"), 404, "no session")
    assert len(client.get("/api/sessions").json()["sessions"]) == 1
    start(client, deals=1)  # room again


def test_dev_deals_are_the_benchmarks() -> None:
    from hearts_env.bench.deals import split_keys
    from hearts_env.bench.suite import load_suite

    table = load_suite("v1").tracks["standard"].tables["standard"]
    settings = Settings(HeartsRules(target_score=None), 0, ("simple",) * 3, "ppo", 5, "dev", 0)
    assert [settings.key(d) for d in range(5)] == split_keys("dev", table.deal_seed, 5).tolist()


def test_the_database_is_made_migrated_and_refused_when_foreign(tmp_path: Path) -> None:
    path = tmp_path / "sessions.sqlite"
    Store(str(path)).close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"sessions", "deals", "decisions", "results"} <= tables
    Store(str(path)).close()  # opened again: nothing to migrate

    text = tmp_path / "notes.txt"
    text.write_text("not a database at all, but long enough to be read as a header " * 4)
    with pytest.raises(StoreError, match="notes.txt: not a hearts-web database"):
        Store(str(text))
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE birds (name TEXT)")
    with pytest.raises(StoreError, match="a database of something else"):
        Store(str(other))
    with sqlite3.connect(path) as db:
        db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError, match=f"schema is version {SCHEMA_VERSION + 1}, newer than this hearts-web's"):
        Store(str(path))
    with pytest.raises(StoreError, match="cannot open it"):
        Store(str(tmp_path / "no" / "such" / "folder.sqlite"))


def test_a_damaged_database_is_refused_at_the_start(tmp_path: Path) -> None:
    path = tmp_path / "sessions.sqlite"
    Store(str(path)).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE schema_version SET version = 'one'")
    with pytest.raises(StoreError, match="schema_version table is damaged"):
        Store(str(path))
    with sqlite3.connect(path) as db:
        db.execute("UPDATE schema_version SET version = 1")
        db.execute("INSERT INTO schema_version VALUES (1)")
    with pytest.raises(StoreError, match="schema_version table is damaged"):
        Store(str(path))
    bare = tmp_path / "bare.sqlite"
    with sqlite3.connect(bare) as db:  # the version, but none of the tables
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
    with pytest.raises(StoreError, match="damaged hearts-web database: no table deals, decisions, results, sessions"):
        Store(str(bare))


def test_a_database_held_by_another_server_or_program_is_refused_at_the_start(tmp_path: Path) -> None:
    path = tmp_path / "sessions.sqlite"
    first = Store(str(path))
    with pytest.raises(StoreError, match="in use by another program"):
        Store(str(path))  # a second server on the same file
    first.close()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another program writing
    with pytest.raises(StoreError, match="in use by another program"):
        Store(str(path))
    other.execute("ROLLBACK")
    other.close()
    Store(str(path)).close()


def test_a_database_this_process_cannot_write_is_refused_at_the_start(tmp_path: Path, monkeypatch) -> None:
    """A read-only file (opened read-only here: the tests may run as root, whom file modes do not
    stop) is refused when the server starts, not at its first move."""
    import hearts_env.agents.human.web.store as store_module

    path = tmp_path / "sessions.sqlite"
    Store(str(path)).close()
    connect = sqlite3.connect
    monkeypatch.setattr(
        store_module.sqlite3, "connect", lambda where, **kw: connect(f"file:{where}?mode=ro", uri=True, **kw)
    )
    with pytest.raises(StoreError, match="sessions.sqlite: cannot be written"):
        Store(str(path))


def test_a_move_the_database_refuses_changes_nothing(tmp_path: Path) -> None:
    """The database fails under a move (here its decisions table is gone, as a full disk or a
    removed file fails a write): the answer is a JSON error, the session stays where the
    database has it, and once the database works the move goes through."""
    client = client_on(tmp_path / "sessions.sqlite")
    answer = move(client, start(client, deals=1))  # the pass
    answer = move(client, answer)  # a first card
    url = f"/api/sessions/{answer['session']['id']}"
    store = client.app.state.sessions.store
    with store.lock:
        store.db.execute("ALTER TABLE decisions RENAME TO kept")
    card, turn = answer["table"]["legal_names"][0], answer["table"]["turn"]
    response = client.post(f"{url}/play", json={"card": card, "turn": turn})
    assert response.status_code == 503 and "no such table: decisions" in response.json()["error"], response.text
    assert client.get(f"/api/sessions/{answer['session']['id']}/deals/{2**70}/steps/0").status_code == 400
    with store.lock:
        store.db.execute("ALTER TABLE kept RENAME TO decisions")
    assert client.get(url).json() == answer  # the card is still in the hand, the turn the same
    assert move(client, answer)["table"]["turn"] > turn


def test_a_table_of_other_columns_is_refused_at_the_start(tmp_path: Path) -> None:
    path = tmp_path / "sessions.sqlite"
    Store(str(path)).close()
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE sessions")
        db.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, settings TEXT)")
    with pytest.raises(StoreError, match="table sessions has the columns id, settings, not id, created, settings"):
        Store(str(path))


@pytest.mark.parametrize(
    "column, value",
    [
        ("settings", "not json"),
        ("settings", "[1, 2]"),
        ("settings", "null"),
        ("settings", "{}"),
        ("settings", '{"rules": {"num_players": "x"}}'),
        ("settings", "seat 9"),  # replaced below: settings of a seat the rules have not
        ("points", "[1, "),
        ("points", '["a", 1, 2, 3]'),
        ("points", "[1, 2]"),  # two seats' points at a table of four
        ("card", "ZZ"),
    ],
)
def test_a_damaged_session_is_a_json_error_of_its_own(tmp_path: Path, column: str, value: str) -> None:
    client = client_on(tmp_path / "sessions.sqlite")
    good = start(client, seed=1)["session"]["id"]
    answer = play_deal(client, start(client, deals=2, seed=2))
    damaged = answer["session"]["id"]
    table = {"settings": "sessions", "points": "results", "card": "decisions"}[column]
    where = "id" if table == "sessions" else "session"
    if value == "seat 9":
        settings = answer["session"]["settings"] | {"seat": 9}
        value = json.dumps(settings)
    store = client.app.state.sessions.store
    with store.lock:
        store.db.execute(f"UPDATE {table} SET {column} = ? WHERE {where} = ?", (value, damaged))
    client.app.state.sessions.live.clear()  # as after a restart
    listed = {s["id"]: s for s in client.get("/api/sessions").json()["sessions"]}
    assert listed[good]["deals_done"] == 0  # the others listed as ever
    what = {"sessions": "settings", "results": "results", "decisions": "decisions"}[table]
    if what != "decisions":  # the listing reads no cards
        assert f"session {damaged}: its stored {what} are damaged" in listed[damaged]["error"]
    for url in ("", "/export/arena.json", "/deals/0/steps/0"):
        refused(client.get(f"/api/sessions/{damaged}{url}"), 500, f"its stored {what} are damaged")
    assert client.delete(f"/api/sessions/{damaged}").status_code == 200  # it can be deleted
    assert [s["id"] for s in client.get("/api/sessions").json()["sessions"]] == [good]


def test_hearts_web_refuses_a_foreign_database_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from command_errors import refused as refused_line

    from hearts_env.agents.human.cli import web as main

    text = tmp_path / "notes.txt"
    text.write_text("a page of notes, not a database " * 8)
    refused_line(capsys, lambda: main(["--db", str(text)]), "hearts-web: error: --db:", "not a hearts-web database")
    newer = tmp_path / "newer.sqlite"
    Store(str(newer)).close()
    with sqlite3.connect(newer) as db:
        db.execute("UPDATE schema_version SET version = 99")
    refused_line(capsys, lambda: main(["--db", str(newer)]), "--db:", "its schema is version 99, newer than")


# ---------------------------------------------------------------------------------------------
# In Chromium


def fill(driver, field: str, value: str) -> None:
    from selenium.webdriver.common.by import By

    element = driver.find_element(By.ID, field)
    element.clear()
    element.send_keys(value)


def play_deal_with_keys(driver, deal: int, most: int = 99) -> None:
    """The person's deal ``deal``, played with the keys alone, sent to whatever has the focus (the
    page must put it where the keys act on the deal): three letters and Enter to pass (a deal that
    passes), then the letter of a legal card each turn, until the deal's result shows or ``most``
    cards are played. Each view's status says the trick in words, never the move counter."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    def dealt(d) -> bool:
        bar = d.find_element(By.ID, "session-bar")
        return (
            bar.is_displayed()
            and bar.text.startswith(f"Deal {deal + 1} of")
            and d.find_elements(By.CSS_SELECTOR, "#hand .card.legal")
        )

    wait(driver, dealt, f"deal {deal}")
    if driver.find_element(By.ID, "prompt").text.startswith("Pick 3 cards"):
        for key in "abc":
            press(driver, key)
        assert len(driver.find_elements(By.CSS_SELECTOR, "#hand .card.selected")) == 3
        press(driver, Keys.ENTER)
    for _ in range(most):
        legal = persons_turn(driver)
        if legal == "over":
            return
        status = text(driver, "status")
        press(driver, last_legal_key(driver))
        wait(driver, lambda d, s=status: text(d, "status") != s, "the card played")


def figure_on_page(driver) -> dict[str, float]:
    from selenium.webdriver.common.by import By

    text = {f: driver.find_element(By.ID, f"figure-{f}").text for f in ("mean", "low", "high", "deals")}
    return {f: float(v) for f, v in text.items()}


def listed(driver, session_id: str | None = None) -> tuple[str, str]:
    """The id and the text of the session's item in "Your sessions" (the first one without
    ``session_id``), read in one go: the list is redrawn as deals end."""
    mine = f'#session-list li[data-id="{session_id}"]' if session_id else "#session-list li[data-id]"
    script = "const e = document.querySelector(arguments[0]); return e && [e.dataset.id, e.textContent]"
    return wait(driver, lambda d: d.execute_script(script, mine), "the session listed")


def open_listed(driver, session_id: str, key: str | None = None) -> None:
    """Press the session's first button (Continue, or Results): with ``key`` sent to it, else a click."""
    from selenium.webdriver.common.by import By

    def pressed(d) -> bool:  # found and pressed again if the list is redrawn in between
        button = d.find_element(By.CSS_SELECTOR, f'#session-list li[data-id="{session_id}"] button')
        button.send_keys(key) if key else button.click()
        return True

    wait(driver, pressed, "the session's button")


@pytest.mark.browser
def test_a_duplicate_session_in_chromium(tmp_path: Path) -> None:
    """A session of three deals played with the keys alone through a restart of the server: each
    deal ends as a deal (not a game, no winners crowned), the list counts the deals over as they
    end, Continue (pressed with Enter) takes the session up with its settings in the form and the
    keys acting on the deal, and the figure on the page is the arena's from the exported games."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    db = tmp_path / "sessions.sqlite"
    with browser(tmp_path) as driver:
        with serving(create_app(db=str(db))) as url:
            driver.get(url)
            wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#agent-names option"), "the agents")
            driver.find_element(By.ID, "show-duplicate").click()
            for field, value in (("opponents", "simple"), ("agent", "heuristic"), ("deals", "3"), ("game-seed", "3")):
                fill(driver, field, value)
            driver.find_element(By.ID, "start-session").click()
            play_deal_with_keys(driver, 0)
            assert driver.find_element(By.ID, "hand-result-title").text.startswith("Deal 1 of 3")
            took = re.match(r"You took (\d+) (points?);", driver.find_element(By.ID, "deal-result").text)
            assert took and took[2] == ("point" if took[1] == "1" else "points"), took
            assert text(driver, "status").endswith("Deal 1 over") and "Game over" not in text(driver, "play")
            assert not driver.find_elements(By.CSS_SELECTOR, "#table .seat.winner")  # a deal crowns no one
            session_id = listed(driver)[0]
            wait(driver, lambda d: "1 of 3 deals over" in listed(d, session_id)[1], "deal 1 counted")
            press(driver, Keys.ENTER)  # the next deal
            play_deal_with_keys(driver, 1, most=2)  # the pass (if any) and two cards of deal 1
            assert "1 of 3 deals over" in listed(driver, session_id)[1]

        with serving(create_app(db=str(db))) as url:  # a restart: a new server on the same database
            driver.get(url)
            wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#agent-names option"), "the agents")
            driver.find_element(By.ID, "show-duplicate").click()
            assert "1 of 3 deals over" in listed(driver, session_id)[1]
            open_listed(driver, session_id, Keys.ENTER)  # Continue, with the keys
            wait(driver, lambda d: d.find_element(By.ID, "play").is_displayed(), "the deal taken up")
            form = {f: driver.find_element(By.ID, f).get_attribute("value") for f in ("opponents", "agent", "deals")}
            assert form == {"opponents": "simple simple simple", "agent": "heuristic", "deals": "3"}
            assert driver.find_element(By.ID, "game-seed").get_attribute("value") == "3"
            for deal in (1, 2):
                play_deal_with_keys(driver, deal)
                assert driver.find_element(By.ID, "hand-result-title").text.startswith(f"Deal {deal + 1} of 3")
                press(driver, Keys.ENTER)  # the next deal, then the results: Enter acts on the deal
            wait(driver, lambda d: d.find_element(By.ID, "session-results").is_displayed(), "the results")
            shown = figure_on_page(driver)
            exports = {
                side: urllib.request.urlopen(f"{url}/api/sessions/{session_id}/export/{side}.jsonl").read()
                for side in ("you", "agent")
            }
        you, agent = (replay.parse(exports[s].splitlines(keepends=True), s) for s in ("you", "agent"))
        expected = paired_difference(you, agent, seat=0)["all"]
        assert shown["deals"] == expected["n"] == 3
        for field in ("mean", "low", "high"):
            assert abs(shown[field] - expected[field]) <= 0.005 + 1e-9, (field, shown, expected)

        with serving(create_app(db=str(db))) as url:  # and again: the results, as they were
            driver.get(url)
            wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#agent-names option"), "the agents")
            driver.find_element(By.ID, "show-duplicate").click()
            assert "3 of 3 deals over" in listed(driver, session_id)[1]
            open_listed(driver, session_id)  # its results
            wait(driver, lambda d: d.find_element(By.ID, "session-results").is_displayed(), "the results again")
            assert figure_on_page(driver) == shown


SIZES = [(360, 740), (390, 844), (1300, 900)]


@pytest.mark.browser
def test_the_table_fits_from_a_phone_to_a_wide_screen(tmp_path: Path) -> None:
    """At each size: no sideways scroll, and none of the hand's cards under a label or a panel, no
    label over a card, no seat over another, all text at WCAG's contrast, while passing, in play,
    at a deal's result, on the results page and side by side; at 1300 px the 13 cards of a hand
    in one row."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    def fits(what: str) -> None:
        assert layout_problems(driver) == [], what
        assert contrast_problems(driver) == [], what

    with browser(tmp_path) as driver, serving(create_app()) as url:
        for width, height in SIZES:
            viewport(driver, width, height)
            driver.get(url)
            wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#agent-names option"), "the agents")
            fits(f"the settings at {width}")
            fill(driver, "opponents", "simple")
            driver.find_element(By.ID, "start").click()
            cards = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#hand .card.legal"), "the deal")
            tops = {round(c.rect["y"]) for c in cards}
            assert len(cards) == 13 and len(tops) == 1, f"the hand in more than one row at {width}: {tops}"
            fits(f"the pass at {width}")
            for card in cards[:2]:
                card.click()
            fits(f"two cards picked at {width}")
            cards[2].click()
            driver.find_element(By.ID, "pass-button").click()
            wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".table .slot"), "a card in the trick")
            fits(f"the trick at {width}")

            driver.find_element(By.ID, "show-duplicate").click()
            fits(f"the session settings at {width}")
            if not driver.find_element(By.ID, "deals").is_displayed():  # closed once a game began
                driver.find_element(By.CSS_SELECTOR, "#settings-box summary").click()
            fill(driver, "opponents", "simple")
            fill(driver, "agent", "simple")
            fill(driver, "deals", "1")
            driver.find_element(By.ID, "start-session").click()
            play_deal_with_keys(driver, 0)
            fits(f"a deal's result at {width}")
            driver.find_element(By.ID, "next-hand").click()
            wait(driver, lambda d: d.find_element(By.ID, "session-results").is_displayed(), "the results")
            fits(f"the results at {width}")
            buttons = driver.find_elements(By.CSS_SELECTOR, "#most-different button")
            if buttons:
                buttons[0].click()
                wait(driver, lambda d: d.find_element(By.ID, "side-by-side").is_displayed(), "side by side")
                for _ in range(16):
                    driver.find_element(By.ID, "sbs-next").click()
                wait(driver, lambda d: "step 16 of" in d.find_element(By.ID, "sbs-step").text, "step 16")
                fits(f"side by side at {width}")

        viewport(driver, 390, 844)  # the most seats: eleven, two decks
        driver.get(url)
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#agent-names option"), "the agents")
        fill(driver, "num-players", "11")
        Select(driver.find_element(By.ID, "decks")).select_by_visible_text("2")
        fill(driver, "opponents", "simple")
        driver.find_element(By.ID, "start").click()
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#hand .card.legal"), "the deal")
        fits("eleven seats at 390")


@pytest.mark.browser
def test_no_sideways_scroll_on_a_phone(tmp_path: Path, recorded_match: Path) -> None:
    """At 360 px every page is 360 px wide: the play page, a session's results (its table by pass
    direction with intervals) and the Replays tab (a select of long game names)."""
    from selenium.webdriver.common.by import By

    app = create_app(replays=[str(recorded_match)])
    client = TestClient(app, base_url=BASE)  # the session played through the API, on the served app
    answer, _ = play_session(client, start(client, deals=5, agent="simple"))
    with browser(tmp_path) as driver, serving(app) as url:
        viewport(driver, 360, 740)
        driver.get(url)
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#agent-names option"), "the agents")
        fill(driver, "opponents", "simple")
        driver.find_element(By.ID, "start").click()
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#hand .card.legal"), "the deal")
        assert page_width(driver) == 360, "the play page"
        driver.find_element(By.ID, "show-duplicate").click()
        open_listed(driver, answer["session"]["id"])  # its results
        wait(driver, lambda d: d.find_element(By.ID, "figure-directions").is_displayed(), "the results")
        assert "to" in driver.find_element(By.ID, "figure-directions").text  # the intervals shown
        assert page_width(driver) == 360, "the session's results"
        driver.find_element(By.ID, "show-replay").click()
        wait(driver, lambda d: d.find_element(By.ID, "replay-step").text.startswith("step 0 of"), "the replay")
        assert page_width(driver) == 360, "the Replays tab"
