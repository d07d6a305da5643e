"""The ladder's read-only pages over a ladder that played a few deals: the JSON behind them is the
standings recomputed from the database, a match's replay file plays back, and hearts-web's
same-origin rules hold."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path

import pytest

from hearts_env.agents.bridges.ladder_client import play_on_ladder
from hearts_env.bench.ladder.db import LadderDB
from hearts_env.bench.ladder.ratings import standings
from hearts_env.bench.ladder.server import LadderServer
from hearts_env.bench.ladder.worker import LadderSettings
from hearts_env.play import replay
from hearts_env.play.policy import RandomPolicy

pytest.importorskip("starlette")
pytest.importorskip("httpx")


@pytest.fixture
def played(tmp_path: Path, serve_ladder) -> LadderDB:  # noqa: ANN001
    """A ladder on which one bot ('mine', random) played at least 4 deals against house agents."""
    db = LadderDB(str(tmp_path / "ladder.db"))
    token = db.add_bot("mine")
    ladder = serve_ladder(LadderServer(db, LadderSettings(deals=2, tables=1), log=io.StringIO()))
    client = threading.Thread(
        target=play_on_ladder, args=(ladder.address, token, RandomPolicy(0), "mine"), kwargs={"reconnect": False}
    )
    client.start()
    deadline = time.monotonic() + 60
    while db.counts()["deals"] < 4:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    ladder.stop()
    client.join(30)
    return db


def test_the_pages_show_what_the_database_holds(played: LadderDB) -> None:
    from starlette.testclient import TestClient

    from hearts_env.bench.ladder.web import create_app

    client = TestClient(create_app(played), base_url="http://127.0.0.1:8080")
    page = client.get("/")
    assert page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
    assert client.get("/bots/mine").text == page.text == client.get("/matches/1").text  # one page, drawn by script
    data = client.get("/api/standings").json()
    assert data == standings(played).to_json() | {"pairs": data["pairs"]}
    assert {p["name"] for p in data["players"]} >= {"mine"}
    bot = client.get("/api/bots/mine").json()
    assert bot["history"] and bot["history"][0]["match"] == 1
    assert {p["other"] for p in bot["pairs"]} <= {p["name"] for p in data["players"]} - {"mine"}
    match = client.get("/api/matches/1").json()
    assert match["status"] == "done" and len(match["deals"]) == 2 and len(match["deals"][0]["games"]) == 4
    first = client.get("/api/matches/1/games/5/steps/0").json()  # deal 1, rotation 1
    assert first["steps"] == 4 * 16 + 1 and [len(seat["hand_names"]) for seat in first["seats"]] == [13] * 4
    last = client.get("/api/matches/1/games/5/steps/64").json()
    assert last["played"]["card"] and sum(seat["points"] for seat in last["seats"]) == 26
    beyond = client.get("/api/matches/1/games/5/steps/65")
    assert beyond.status_code == 400 and "step must be in 0..64" in beyond.json()["error"]
    assert client.get("/api/matches/1/games/8/steps/0").status_code == 400  # 2 deals of 4 games
    text = client.get("/matches/1/replay.jsonl").text
    loaded = replay.parse([line.encode() for line in text.splitlines(keepends=True)], "match 1")
    assert len(loaded.games) == 8 and all("mine" in g.seats for g in loaded.games)


def test_the_pages_refuse_what_they_must(played: LadderDB) -> None:
    from starlette.testclient import TestClient

    from hearts_env.bench.ladder.web import create_app

    client = TestClient(create_app(played), base_url="http://127.0.0.1:8080")
    assert client.get("/api/standings", headers={"host": "evil.example"}).status_code == 403  # DNS rebinding
    assert client.post("/api/standings").status_code == 405  # nothing to change
    missing = client.get("/api/bots/%3Cb%3Ehi")
    assert missing.status_code == 404 and missing.json() == {"error": "no player '<b>hi' here"}
    assert client.get("/api/matches/999").status_code == 404
    assert client.get("/matches/999/replay.jsonl").status_code == 404
    assert client.get("/api/matches/999/games/0/steps/0").status_code == 404
