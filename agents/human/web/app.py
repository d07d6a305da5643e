"""``hearts-web``: the browser table, a small Starlette app served by uvicorn.

    hearts-web                       # http://127.0.0.1:8000, the agents as opponents
    hearts-web --port 8080 --seed 7 --replay games.jsonl --policy-dir runs --db sessions.sqlite

A person plays one seat against agents by spec (``ppo``, ``pimc-ppo``, ``heuristic``,
``trained:path=runs/...`` under a ``--policy-dir``), with any rules; asks any agent for a hint;
measures themself against an agent in duplicate sessions (``hearts_env.agents.human.web.sessions``,
kept in a SQLite database: ``--db``); and plays back recorded games (``hearts-arena --record``)
step by step. The page is plain HTML, CSS and JavaScript (``static/``); the API it calls is JSON:

| request | does |
|---|---|
| ``GET /api/options`` | the agents a request can build here, the default rules, the replays loaded |
| ``POST /api/games`` ``{"seat", "opponents", "rules", "seed", "replaces"}`` | a new game; its view (*) |
| ``GET /api/games/{id}`` | the game's view (``TableView.to_dict``, the person's hand only; ``illegal``) |
| ``POST /api/games/{id}/pass`` ``{"cards": [...], "turn"}`` | pass the cards |
| ``POST /api/games/{id}/play`` ``{"card": "QS", "turn"}`` | play a card |
| ``POST /api/games/{id}/next`` ``{"turn"}`` | on to the next hand after a hand's score |
| ``POST /api/games/{id}/hint`` ``{"agent": "ppo", "turn"}`` | what that agent would play, and its scores |
| ``DELETE /api/games/{id}`` | leave the game |
| ``POST /api/replays?name=...`` (the file as an ``application/x-ndjson`` body) | check and keep an uploaded replay |
| ``GET /api/replays/{id}/games/{g}/steps/{i}`` | the table at step ``i`` of game ``g`` |
| ``POST /api/sessions`` ``{"seat", "opponents", "agent", "rules", "deals", "deal_set", "seed"}`` | a new session |
| ``GET /api/sessions`` | the latest sessions with their figures (a damaged one as its id and ``error``) |
| ``GET /api/sessions/{id}`` | the session (taken up from the database after a restart) |
| ``POST /api/sessions/{id}/pass``, ``/play`` (as a game's), ``/next`` ``{"deal"}`` | a move; the next deal |
| ``GET /api/sessions/{id}/deals/{d}/steps/{i}`` | both games of deal ``d`` at step ``i``, side by side |
| ``GET /api/sessions/{id}/export/{name}`` | ``arena.json`` (the arena's JSON), ``you.jsonl``, ``agent.jsonl`` |
| ``DELETE /api/sessions/{id}`` | delete the session from the database |

(*) The game ``replaces`` names (the one the page leaves) is dropped only once the new one is dealt, so a
refused new game leaves it in play; on a server holding its most games, the new game takes its place.
A view's ``illegal`` says why each card held cannot be played now.
A session's requests answer ``{"session": {...settings, deal, state, figures}, "table": view}``.

Bodies are JSON sent as ``application/json``. A refused request gets ``{"error": "..."}`` with
status 400 (malformed, illegal card), 403 (another site's page, or a host not the server's), 404
(unknown game), 409 (out of turn), 413 (too large), 415 (not JSON) or 503 (too many games or
sessions, a database error), and changes nothing; a session whose stored rows are damaged answers
500. The server binds to 127.0.0.1 unless ``--host`` says otherwise, lets no other
site's page act for the person (``hearts_env.agents.human.web.guard``), loads no pickle and runs no code
from a request, bounds what a request's agents may search (``hearts_env.agents.human.web.request_specs``), and
drops a game idle for ``--idle-minutes``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from hearts_env.agents.human.web import request_specs
from hearts_env.agents.human.web.guard import Guard, allowed_hosts
from hearts_env.agents.human.web.replays import MAX_UPLOAD_BYTES, Replays
from hearts_env.agents.human.web.sessions import DEAL_SETS, MAX_DEALS, Sessions
from hearts_env.agents.human.web.store import Store, StoreError
from hearts_env.agents.human.web.tables import WebError, WebTables
from hearts_env.engine.rules import HeartsRules

STATIC = Path(__file__).parent / "static"
MAX_BODY_BYTES = 64_000  # a move or a new game; replay uploads have their own limit
MOVES = ("pass", "play", "next", "hint")
SESSION_MOVES = ("pass", "play", "next")


def create_app(
    seed: int = 0,
    idle_seconds: float = 1800,
    max_games: int = 64,
    replays: Sequence[str] = (),
    policy_dirs: Sequence[str] = (),
    host: str = "127.0.0.1",
    db: str = ":memory:",
    max_sessions: int = 16,
) -> Any:
    """The ASGI app for a server listening on ``host``, its sessions in the SQLite database ``db``
    (``ReplayError`` if a replay file is refused, ``StoreError`` if the database is)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    tables = WebTables(seed, idle_seconds, max_games, [Path(d) for d in policy_dirs])
    store = Replays()
    for path in replays:
        store.add_file(path)
    sessions = Sessions(Store(db), [Path(d) for d in policy_dirs], max_live=max_sessions, idle_seconds=idle_seconds)

    async def read(request: Request, limit: int, media_type: str) -> bytes:
        """The body, which must be of ``media_type`` (a type no other site's page can send without a
        preflight), refused once it passes ``limit`` bytes (never read whole first)."""
        sent = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if sent != media_type:
            raise WebError(f"the request body must be sent as {media_type}, not {sent or 'no type'!r:.60}", 415)
        parts, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise WebError(f"the request body holds more than {limit} bytes", 413)
            parts.append(chunk)
        return b"".join(parts)

    async def body(request: Request) -> Any:
        raw = await read(request, MAX_BODY_BYTES, "application/json")
        try:
            data = json.loads(raw or b"{}")
        except (ValueError, RecursionError):
            raise WebError("the request body must be a JSON object") from None
        if not isinstance(data, dict):
            raise WebError("the request body must be a JSON object")
        return data

    def refused(error: WebError | StoreError) -> JSONResponse:
        status = getattr(error, "status", 503)  # the database's own errors: this server's fault
        return JSONResponse({"error": str(error)}, status_code=status)

    def route(handler: Any) -> Any:
        async def endpoint(request: Request) -> Response:
            try:
                return JSONResponse(await handler(request))
            except (WebError, StoreError) as error:
                return refused(error)

        return endpoint

    async def options(request: Request) -> dict[str, Any]:
        return {
            "agents": request_specs.offered(tables.policy_dirs),
            "rules": HeartsRules().to_dict(),
            "replays": store.listing(),
            "max_deals": MAX_DEALS,
            "deal_sets": list(DEAL_SETS),
        }

    # The games' work (agents thinking, replays checked) runs in worker threads, so one game's
    # search never holds up another's requests.
    async def new_game(request: Request) -> dict[str, Any]:
        data = await body(request)
        return await run_in_threadpool(lambda: _locked_view(tables.new(data)))

    async def game(request: Request) -> dict[str, Any]:
        return await run_in_threadpool(_locked_view, tables.get(request.path_params["id"]))

    def move(kind: str) -> Any:
        def act(table: Any, data: dict[str, Any]) -> dict[str, Any]:
            with table.lock:  # one move at a time per game
                if kind == "pass":
                    table.pass_cards(data.get("cards"), data.get("turn"))
                elif kind == "play":
                    table.play(data.get("card"), data.get("turn"))
                elif kind == "next":
                    table.next_hand(data.get("turn"))
                else:
                    return table.hint(data.get("agent"), data.get("turn"))
                return table.view()

        async def handler(request: Request) -> dict[str, Any]:
            data = await body(request)
            return await run_in_threadpool(act, tables.get(request.path_params["id"]), data)

        return handler

    async def leave(request: Request) -> dict[str, Any]:
        tables.close(request.path_params["id"])
        return {"closed": request.path_params["id"]}

    async def upload(request: Request) -> dict[str, Any]:
        name = request.query_params.get("name", "upload.jsonl")
        async with store.uploading():
            raw = await read(request, MAX_UPLOAD_BYTES, "application/x-ndjson")
            return await run_in_threadpool(lambda: store.summary(store.upload(raw, name)))

    async def replay_list(request: Request) -> dict[str, Any]:
        return {"replays": store.listing()}

    async def replay_step(request: Request) -> dict[str, Any]:
        p = request.path_params
        return await run_in_threadpool(store.view, p["id"], p["game"], p["step"])

    # Sessions: the same bounds as games (a body of MAX_BODY_BYTES, one move at a time per
    # session, agents from request_specs), their work in worker threads.
    async def new_session(request: Request) -> dict[str, Any]:
        data = await body(request)
        return await run_in_threadpool(lambda: sessions.new(data).view())

    async def session_list(request: Request) -> dict[str, Any]:
        return {"sessions": await run_in_threadpool(sessions.listing)}

    async def session(request: Request) -> dict[str, Any]:
        return await run_in_threadpool(lambda: sessions.get(request.path_params["id"]).view())

    def session_move(kind: str) -> Any:
        async def handler(request: Request) -> dict[str, Any]:
            data = await body(request)

            def act() -> dict[str, Any]:
                played = sessions.get(request.path_params["id"])
                return played.next_deal(data.get("deal")) if kind == "next" else played.move(kind, data)

            return await run_in_threadpool(act)

        return handler

    async def delete_session(request: Request) -> dict[str, Any]:
        await run_in_threadpool(sessions.delete, request.path_params["id"])
        return {"deleted": request.path_params["id"]}

    async def side_by_side(request: Request) -> dict[str, Any]:
        p = request.path_params
        return await run_in_threadpool(sessions.side_by_side, p["id"], p["deal"], p["step"])

    async def export(request: Request) -> Response:
        session_id, name = request.path_params["id"], request.path_params["name"]
        try:
            text, media_type = await run_in_threadpool(sessions.export, session_id, name)
        except (WebError, StoreError) as error:
            return refused(error)
        filename = f"hearts-session-{session_id}-{name}"  # an id the store knows: letters, digits, - and _
        headers = {"content-disposition": f'attachment; filename="{filename}"'}
        return PlainTextResponse(text, media_type=media_type, headers=headers)

    async def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        yield
        sessions.close()

    routes = [
        Route("/", index),
        Route("/api/options", route(options)),
        Route("/api/games", route(new_game), methods=["POST"]),
        Route("/api/games/{id}", route(game), methods=["GET"]),
        Route("/api/games/{id}", route(leave), methods=["DELETE"]),
        *(Route(f"/api/games/{{id}}/{kind}", route(move(kind)), methods=["POST"]) for kind in MOVES),
        Route("/api/replays", route(upload), methods=["POST"]),
        Route("/api/replays", route(replay_list), methods=["GET"]),
        Route("/api/replays/{id}/games/{game:int}/steps/{step:int}", route(replay_step)),
        Route("/api/sessions", route(new_session), methods=["POST"]),
        Route("/api/sessions", route(session_list), methods=["GET"]),
        Route("/api/sessions/{id}", route(session), methods=["GET"]),
        Route("/api/sessions/{id}", route(delete_session), methods=["DELETE"]),
        *(Route(f"/api/sessions/{{id}}/{kind}", route(session_move(kind)), methods=["POST"]) for kind in SESSION_MOVES),
        Route("/api/sessions/{id}/deals/{deal:int}/steps/{step:int}", route(side_by_side)),
        Route("/api/sessions/{id}/export/{name}", export),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(Guard, hosts=allowed_hosts(host))]
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.tables, app.state.replays, app.state.sessions = tables, store, sessions
    return app


def _locked_view(table: Any) -> dict[str, Any]:
    with table.lock:
        return table.view()


if __name__ == "__main__":
    from hearts_env.agents.human.cli import web

    web()
