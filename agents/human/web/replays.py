"""Recorded games for the browser table to play back (``hearts_env.play.replay``): files given to
``hearts-web --replay`` and files uploaded from the page, each checked card by card on arrival.

Uploads are bounded: each at most ``MAX_UPLOAD_BYTES``, ``MAX_UPLOADS_AT_ONCE`` read at a time
(more are refused with 503), and those kept at most ``MAX_REPLAYS`` and ``MAX_KEPT_BYTES`` together
(the oldest go first). An upload's name is a plain file name.

The page asks for one step of one game at a time: ``view(replay, game, step)`` gives the table
at that step with every hand face up, and the steps where each hand starts (to jump to a hand).
"""

from __future__ import annotations

import contextlib
import io
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from hearts_env.agents.human.web.tables import WebError
from hearts_env.engine import core
from hearts_env.engine.cards import card_name
from hearts_env.play import replay
from hearts_env.render import describe

MAX_UPLOAD_BYTES = 20_000_000
MAX_UPLOADS_AT_ONCE = 2
MAX_REPLAYS = 32
MAX_KEPT_BYTES = 100_000_000
"""The replays kept, by the size of their files (the oldest go first past it)."""
NAME = re.compile(r"[\w.\- ]{1,100}")
"""An upload's name: a plain file name (letters, digits, ``_ . -`` and spaces)."""
_CACHED_GAMES = 16  # games whose states are kept, most recently viewed first


class Replays:
    """Replays by id, at most ``MAX_REPLAYS`` (the oldest upload goes first)."""

    def __init__(self) -> None:
        self.replays: OrderedDict[str, replay.Replay] = OrderedDict()
        self.sizes: dict[str, int] = {}  # bytes of each replay's file
        self.states: OrderedDict[tuple[str, int], list[core.State]] = OrderedDict()
        self.lock = threading.Lock()
        self.uploads = 0  # uploads being read now

    def add_file(self, path: str) -> str:
        """Load a file given on the command line (``ReplayError`` if it is refused)."""
        loaded = replay.load(path)
        return self._keep(loaded, Path(path).stat().st_size)

    @contextlib.asynccontextmanager
    async def uploading(self) -> AsyncIterator[None]:
        """A place for one upload while it is read and checked (``WebError`` 503 if all are taken)."""
        with self.lock:
            if self.uploads >= MAX_UPLOADS_AT_ONCE:
                raise WebError(f"{self.uploads} uploads are being read: try again later", 503)
            self.uploads += 1
        try:
            yield
        finally:
            with self.lock:
                self.uploads -= 1

    def upload(self, body: bytes, name: str) -> str:
        if not NAME.fullmatch(name):
            raise WebError("name: an upload's name must be a file name of 1 to 100 letters, digits, _ . - or spaces")
        if len(body) > MAX_UPLOAD_BYTES:
            raise WebError(f"{name}: {len(body)} bytes, more than an upload may hold ({MAX_UPLOAD_BYTES})", 413)
        try:
            loaded = replay.parse(io.BytesIO(body), name)
        except replay.ReplayError as error:
            raise WebError(str(error)) from None
        return self._keep(loaded, len(body))

    def _keep(self, loaded: replay.Replay, size: int) -> str:
        replay_id = secrets.token_urlsafe(6)
        with self.lock:
            self.replays[replay_id], self.sizes[replay_id] = loaded, size
            while len(self.replays) > 1 and (
                len(self.replays) > MAX_REPLAYS or sum(self.sizes.values()) > MAX_KEPT_BYTES
            ):
                oldest, _ = self.replays.popitem(last=False)
                del self.sizes[oldest]
                for key in [k for k in self.states if k[0] == oldest]:
                    del self.states[key]
        return replay_id

    def listing(self) -> list[dict[str, Any]]:
        with self.lock:
            return [self.summary(i, r) for i, r in self.replays.items()]

    def summary(self, replay_id: str, loaded: replay.Replay | None = None) -> dict[str, Any]:
        loaded = loaded or self._get(replay_id)
        return {
            "id": replay_id,
            "name": loaded.path,
            "rules": loaded.rules.to_dict(),
            "episode": loaded.header["episode"],
            "games": [
                {"deal": g.deal, "rotation": g.rotation, "seats": list(g.seats), "scores": list(g.scores)}
                for g in loaded.games
            ],
        }

    def view(self, replay_id: str, game: object, step: object) -> dict[str, Any]:
        """The table at ``step`` of game ``game``, all hands face up, and where each hand starts."""
        loaded = self._get(replay_id)
        if isinstance(game, bool) or not isinstance(game, int) or not 0 <= game < len(loaded.games):
            raise WebError(f"game must be in 0..{len(loaded.games) - 1}, got {game!r:.20}")
        states = self._states(replay_id, loaded, game)
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step < len(states):
            raise WebError(f"step must be in 0..{len(states) - 1}, got {step!r:.20}")
        view = step_view(loaded.games[game], states, step)
        view.update(replay=replay_id, game=game)
        return view

    def _get(self, replay_id: str) -> replay.Replay:
        with self.lock:
            loaded = self.replays.get(replay_id)
        if loaded is None:
            raise WebError(f"no replay {replay_id!r:.40} here", 404)
        return loaded

    def _states(self, replay_id: str, loaded: replay.Replay, game: int) -> list[core.State]:
        key = (replay_id, game)
        with self.lock:
            if key in self.states:
                self.states.move_to_end(key)
                return self.states[key]
        states = loaded.states(game)
        with self.lock:
            self.states[key] = states
            while len(self.states) > _CACHED_GAMES:
                self.states.popitem(last=False)
        return states


def step_view(record: replay.GameRecord, states: list[core.State], step: int, viewer: int = 0) -> dict[str, Any]:
    """The table at ``step`` (0..len(states) - 1) of the game ``record`` whose states are
    ``states``, every hand face up, ``viewer``'s seat at the bottom, with where each hand starts
    and the card that led here."""
    names = [f"seat {s}: {agent}" for s, agent in enumerate(record.seats)]
    starts = [0]
    for hand in record.hands[:-1]:
        starts.append(starts[-1] + len(hand.cards))
    view = describe(states[step], names=names, viewer=viewer).to_dict()
    view.update(step=step, steps=len(states), hand_starts=starts)
    if step:
        view["played"] = {"seat": int(states[step - 1].to_play[0]), "card": _played(record, step - 1)}
    return view


def _played(record: replay.GameRecord, index: int) -> str:
    for hand in record.hands:
        if index < len(hand.cards):
            return card_name(hand.cards[index])
        index -= len(hand.cards)
    raise IndexError(index)
