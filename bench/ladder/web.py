"""``hearts-ladder web``: the ladder's read-only pages, drawn from its database alone (so they run
beside the server, in a process of their own, on the same SQLite file or PostgreSQL database).

| page | shows |
|---|---|
| ``/`` | the standings: ratings, points per hand with 95% intervals, each pair's difference |
| ``/bots/NAME`` | a player's rating after each of its matches, as a plot, and its matches |
| ``/matches/ID`` | its deals: who sat where, points, stand-in marks; a viewer of each game, card by card |

The viewer is the browser table's replay viewer's server side (``hearts_env.agents.human.web.replays``:
a game's states played again through the core, every hand face up, one step a request), over the
match's games as a replay file (``hearts_env.play.replay``), which ``/matches/ID/replay.jsonl``
also sends, checked card by card, for ``hearts-web --replay FILE``. The JSON behind the pages is
at ``/api/...``.

Same origin rules as ``hearts-web`` (``hearts_env.agents.human.web.guard``): requests must name
the server's own host, every response forbids scripts but the server's own; there is nothing to
change (GET only). The page builds its DOM with ``textContent``, never from HTML it was sent.
A request's work is bounded: the standings are recomputed once per change of the database (the
number of stored deals), whatever the number of requests, and a match's page reads one match.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from hearts_env.agents.human.web.guard import Guard, allowed_hosts
from hearts_env.agents.human.web.replays import Replays
from hearts_env.agents.human.web.tables import WebError
from hearts_env.arena.statistics import Estimate
from hearts_env.bench.ladder.db import LadderDB
from hearts_env.bench.ladder.ratings import Standings, standings
from hearts_env.engine.rules import HeartsRules
from hearts_env.play import replay

STATIC = Path(__file__).parent / "static"


class LadderPages:
    """The data of the pages, from ``db``, the standings kept until the database changes."""

    def __init__(self, db: LadderDB) -> None:
        self.db = db
        self.lock = threading.Lock()
        self.cached: tuple[int, Standings] | None = None
        self.replays = Replays()  # the matches being viewed, the oldest dropped past its limits
        self.loaded: dict[int, str] = {}  # match -> its replay's id in ``replays``

    def standings(self) -> Standings:
        with self.lock:
            deals = self.db.counts()["deals"]
            if self.cached is None or self.cached[0] != deals:
                self.cached = (deals, standings(self.db))
            return self.cached[1]

    def bot(self, name: str) -> dict[str, Any] | None:
        table = self.standings()
        if name not in table.ratings:
            return None
        return {
            "name": name,
            "rating": table.ratings[name],
            "points_per_hand": table.points[name].to_dict(),
            "stand_in_deals": table.stand_ins.get(name, 0),
            "history": table.history.get(name, []),
            "pairs": [
                {"other": b if a == name else a, "difference": (e if a == name else _negated(e)).to_dict()}
                for (a, b), e in table.pairs.items()
                if name in (a, b)
            ],
        }

    def match(self, match: int) -> dict[str, Any] | None:
        rows = self.db.query(
            "SELECT id, started, finished, status, seed, rules, entries, deals FROM matches WHERE id = ?", (match,)
        )
        if not rows:
            return None
        _, started, finished, status, seed, rules, entries, planned = rows[0]
        deals = self.db.query(
            "SELECT deal, key, direction, stand_in, seconds FROM deals WHERE match_id = ? ORDER BY deal", (match,)
        )
        games = self.db.query(
            "SELECT deal, rotation, record, scores FROM games WHERE match_id = ? ORDER BY deal, rotation", (match,)
        )
        by_deal: dict[int, list[dict[str, Any]]] = {}
        for deal, rotation, record, scores in games:
            seats = json.loads(record)["seats"]
            by_deal.setdefault(deal, []).append({"rotation": rotation, "seats": seats, "scores": json.loads(scores)})
        return {
            "id": match,
            "started": started,
            "finished": finished,
            "status": status,
            "seed": seed,
            "rules": json.loads(rules),
            "entries": json.loads(entries),
            "deals_planned": planned,
            "deals": [
                {
                    "deal": deal,
                    "key": key,
                    "direction": direction,
                    "stand_in": json.loads(stand_in),
                    "seconds": seconds,
                    "games": by_deal.get(deal, []),
                }
                for deal, key, direction, stand_in, seconds in deals
            ],
        }

    def replay_file(self, match: int) -> str | None:
        """The match's games as a replay file, checked through the core; None if it has none."""
        rows = self.db.query("SELECT seed, rules, entries FROM matches WHERE id = ?", (match,))
        records = self.db.query("SELECT record FROM games WHERE match_id = ? ORDER BY deal, rotation", (match,))
        if not rows or not records:
            return None
        seed, rules, entries = rows[0]
        lines = replay.file_lines(
            HeartsRules.from_dict(json.loads(rules)),
            "hand",
            int(seed),
            list(dict.fromkeys(json.loads(entries))),
            [json.loads(r[0]) for r in records],
        )
        replay.parse([line.encode() for line in lines], f"match {match}")  # what is sent plays back
        return "".join(lines)

    def step(self, match: int, game: object, step: object) -> dict[str, Any] | None:
        """The table at ``step`` of game ``game`` (deal * players + rotation) of the match, every hand
        face up (``Replays.view``); None if the match has no games. ``WebError`` for a game or step
        that is not there."""
        with self.lock:
            replay_id = self.loaded.get(match)
        if replay_id is not None:
            try:
                return self.replays.view(replay_id, game, step)
            except WebError as error:
                if error.status != 404:  # 404: the replay was dropped to make room; read it again
                    raise
        text = self.replay_file(match)
        if text is None:
            return None
        replay_id = self.replays.upload(text.encode(), f"ladder-match-{match}.jsonl")
        with self.lock:
            self.loaded[match] = replay_id
        return self.replays.view(replay_id, game, step)


def _negated(estimate: Estimate) -> Estimate:
    """B minus A from A minus B."""
    return Estimate(-estimate.mean, -estimate.high, -estimate.low, estimate.sd, estimate.n)


def create_app(db: LadderDB, host: str = "127.0.0.1") -> Any:
    """The ASGI app of the pages for a server listening on ``host``."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    pages = LadderPages(db)

    def not_found(what: str) -> JSONResponse:
        return JSONResponse({"error": f"no {what} here"}, status_code=404)

    async def page(request: Request) -> FileResponse:
        return FileResponse(STATIC / "ladder.html")

    async def api_standings(request: Request) -> Response:
        return JSONResponse((await run_in_threadpool(pages.standings)).to_json())

    async def api_bot(request: Request) -> Response:
        name = request.path_params["name"]
        found = await run_in_threadpool(pages.bot, name)
        return JSONResponse(found) if found is not None else not_found(f"player {name[:40]!r}")

    async def api_match(request: Request) -> Response:
        found = await run_in_threadpool(pages.match, request.path_params["id"])
        return JSONResponse(found) if found is not None else not_found("such match")

    async def api_step(request: Request) -> Response:
        match, game, step = (request.path_params[k] for k in ("id", "game", "step"))
        try:
            found = await run_in_threadpool(pages.step, match, game, step)
        except WebError as error:
            return JSONResponse({"error": str(error)}, status_code=error.status)
        return JSONResponse(found) if found is not None else not_found("match with games")

    async def replay_file(request: Request) -> Response:
        match = request.path_params["id"]
        text = await run_in_threadpool(pages.replay_file, match)
        if text is None:
            return not_found("match with games")
        headers = {"content-disposition": f'attachment; filename="ladder-match-{match}.jsonl"'}
        return PlainTextResponse(text, media_type="application/x-ndjson", headers=headers)

    routes = [
        Route("/", page),
        Route("/bots/{name}", page),
        Route("/matches/{id:int}", page),
        Route("/matches/{id:int}/replay.jsonl", replay_file),
        Route("/api/standings", api_standings),
        Route("/api/bots/{name}", api_bot),
        Route("/api/matches/{id:int}", api_match),
        Route("/api/matches/{id:int}/games/{game:int}/steps/{step:int}", api_step),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, middleware=[Middleware(Guard, hosts=allowed_hosts(host))])


def serve_web(db: LadderDB, host: str, port: int) -> None:
    """Serve the pages until interrupted."""
    import uvicorn

    print(f"hearts-ladder: the ladder's pages at http://{host}:{port}/", flush=True)
    uvicorn.run(create_app(db, host), host=host, port=port, log_level="warning")
