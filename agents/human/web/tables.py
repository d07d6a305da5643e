"""The browser table's games: one person against agents, each game on its own, none sharing state.

A ``WebTable`` is one game: the core state, the person's seat and the agents at the others. The
agents play through the project's runner (``hearts_env.play.runner.play`` with the person's seat left
as None: it returns when the person is to act), one hand at a time, so the end of a hand waits
for the person to see its score (``next_hand``). Every move the person sends carries ``turn``, the
number of cards played in the game so far, as the view it answers showed it: a request for a
game that has moved on is refused, so a repeated click never plays a second card. A refused
request (``WebError``: out of turn, a card not held, an illegal card with the rule it breaks)
changes nothing. ``WebTables`` holds the games by random id and drops those idle longer than
``idle_seconds``. A duplicate session's deal is a ``WebTable`` too (``hearts_env.agents.human.web.sessions``):
its ``key`` deals its cards, ``played`` takes it up where it was left, ``decisions`` holds every
card played, and its opponents are built by ``seat_agents``, as those of the agent's game of the deal.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hearts_env.agents.human.web import hints, request_specs
from hearts_env.agents.specs import check_agents
from hearts_env.engine import cards, core, seeding
from hearts_env.engine.infoset import infoset
from hearts_env.engine.rules import HeartsRules
from hearts_env.play import runner
from hearts_env.play.policy import Policy
from hearts_env.render import describe

MAX_HINT_AGENTS = 4
"""The hint agents a game keeps built (the oldest goes first)."""


class WebError(ValueError):
    """A request the server refuses; ``status`` is its HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def other_seats(num_players: int, seat: int) -> list[int]:
    """The seats other than the person's ``seat``, clockwise from the person's left."""
    return [(seat + i) % num_players for i in range(1, num_players)]


def seat_specs(num_players: int, seat: int, opponents: Sequence[str]) -> dict[int, str]:
    """The agent spec at each other seat: ``opponents`` holds one spec for all, or one per seat
    clockwise from the person's left."""
    if not 0 <= seat < num_players:
        raise WebError(f"seat must be in 0..{num_players - 1}, got {seat}")
    others = other_seats(num_players, seat)
    if len(opponents) not in (1, len(others)):
        raise WebError(f"opponents: give 1 agent for every other seat, or {len(others)} (one per seat)")
    names = list(opponents) * len(others) if len(opponents) == 1 else list(opponents)
    return dict(zip(others, names, strict=True))


def seat_agents(rules: HeartsRules, specs: dict[int, str], seed: int, policy_dirs: Sequence[Path]) -> dict[int, Policy]:
    """The agents of ``specs`` (seat -> spec), checked against ``rules``; the one at the k-th
    seat of ``specs`` seeded with value k of ``seed``'s agents stream, so agents built from the
    same specs and seed are the same agents."""
    seeds = seeding.derive(seed, seeding.AGENTS, np.arange(len(specs))) >> np.uint64(1)
    try:
        agents = {
            s: request_specs.build(n, int(k), policy_dirs) for (s, n), k in zip(specs.items(), seeds, strict=True)
        }
        check_agents(rules, [(n, agents[s]) for s, n in specs.items()])
    except ValueError as error:
        raise WebError(str(error)) from None
    return agents


class WebTable:
    """One game: the person at ``seat``, the agents of ``opponents`` (specs) at the other seats.
    ``key``: the game's key (default: game 0 of ``seed``); ``played``: cards already played in
    the game, played again first (a game taken up where it was left)."""

    def __init__(
        self,
        game_id: str,
        rules: HeartsRules,
        seat: int,
        opponents: Sequence[str],
        seed: int,
        policy_dirs: Sequence[Path],
        key: int | None = None,
        played: Sequence[int] = (),
    ) -> None:
        P = rules.num_players
        self.specs = seat_specs(P, seat, opponents)
        self.policy_dirs = list(policy_dirs)
        agents = seat_agents(rules, self.specs, seed, self.policy_dirs)
        self.id, self.rules, self.seat, self.seed = game_id, rules, seat, seed
        self.agents: list[Policy | None] = [agents.get(s) for s in range(P)]
        self.names = [f"you (seat {s})" if s == seat else f"seat {s}: {self.specs[s]}" for s in range(P)]
        if key is None:
            self.state = core.new_games(rules, batch_size=1, seed=seed)
        else:
            self.state = core.new_games(rules, keys=np.array([key], np.uint64))
        self.decisions: list[tuple[int, int]] = []  # (seat, card) of every card played, passes included
        self.turn = 0  # cards played so far in the game
        self.hand_ended = False  # a hand is over and its score is on show until next_hand
        self.hint_agents: dict[str, Policy] = {}
        self.lock = threading.Lock()
        self.used = time.monotonic()
        for card in played:
            seat_to_play = int(self.state.to_play[0])
            self.state = core.step(self.state, np.array([card]))  # IllegalMoveError for a card out of place
            self._record(seat_to_play, card)
        self._advance()

    # -- what the page shows

    def view(self) -> dict[str, Any]:
        """The table as the person sees it (``TableView.to_dict``: only the person's hand face up)."""
        view = describe(self.state, face_up=[self.seat], names=self.names, viewer=self.seat).to_dict()
        view.update(
            id=self.id,
            turn=self.turn,
            seat=self.seat,
            waiting_for=self.waiting_for(),
            rules=self.rules.to_dict(),
            agents={str(s): n for s, n in self.specs.items()},
        )
        view["illegal"] = self.illegal_reasons(view["seats"][self.seat]["hand"])
        return view

    def illegal_reasons(self, hand: Sequence[int]) -> dict[str, str]:
        """Why each card of the person's ``hand`` that may not be played is illegal (``{"2H": "you
        must follow suit (C)"}``), from the rules' own check, so the page can say it without asking."""
        if self.waiting_for() != "play":
            return {}
        legal = core.legal_mask(self.state)[0]
        return {cards.card_name(c): core.illegal_move(self.state, 0, c).rule(you=True) for c in hand if not legal[c]}

    def waiting_for(self) -> str:
        """``"pass"`` or ``"play"`` (the person's move), ``"next hand"`` (a hand's score on show)
        or ``"game over"``."""
        if self.state.done[0]:
            return "game over"
        if self.hand_ended:
            return "next hand"
        return "pass" if self.state.phase[0] == core.PASS else "play"

    # -- the person's moves

    def pass_cards(self, names: object, turn: object) -> None:
        """Pass the cards ``names`` (``pass_count`` card names)."""
        self._expect(turn, "pass")
        count = self.rules.pass_count - int(np.bitwise_count(self.state.passed[0, self.seat]))
        if not isinstance(names, list) or len(names) != count:
            raise WebError(f'cards: pick {count} card names to pass, e.g. ["QS", "AS", "2H"]')
        state, picked = self.state, []
        for name in names:
            card = _card(name)
            try:
                state = core.step(state, np.array([card]))
            except core.IllegalMoveError as error:
                raise WebError(f"you cannot pass {cards.card_name(card)}: {error.rule(you=True)}") from None
            picked.append(card)
        self._moved(state, picked)

    def play(self, name: object, turn: object) -> None:
        """Play the card ``name``."""
        self._expect(turn, "play")
        card = _card(name)
        try:
            state = core.step(self.state, np.array([card]))
        except core.IllegalMoveError as error:
            raise WebError(f"you cannot play {cards.card_name(card)}: {error.rule(you=True)}") from None
        self._moved(state, [card])

    def next_hand(self, turn: object) -> None:
        """Leave the score of the hand that ended and play on."""
        self._expect(turn, "next hand")
        self.hand_ended = False
        self._advance()

    def hint(self, spec: object, turn: object) -> dict[str, Any]:
        """What the agent ``spec`` would play in the person's place (``hints.explain``)."""
        self._expect(turn, "pass", "play")
        try:
            spec = request_specs.check_spec(spec, self.policy_dirs)
            if spec not in self.hint_agents:
                if len(self.hint_agents) >= MAX_HINT_AGENTS:  # a few kept: each may hold a network
                    del self.hint_agents[next(iter(self.hint_agents))]
                self.hint_agents[spec] = request_specs.build(spec, self.seed, self.policy_dirs)
            agent = self.hint_agents[spec]
            info, mask = infoset(self.state, self.seat), core.legal_mask(self.state)
            return {"agent": spec, **hints.explain(agent, info, mask)}
        except ValueError as error:
            raise WebError(f"hint: {error}") from None

    # -- the game's course

    def _expect(self, turn: object, *moves: str) -> None:
        if isinstance(turn, bool) or not isinstance(turn, int):
            raise WebError("turn must be the int 'turn' of the view the move answers")
        waiting = self.waiting_for()
        if turn != self.turn:
            raise WebError(f"out of turn: the game is at turn {self.turn}, the request answers turn {turn}", 409)
        if waiting not in moves:
            raise WebError(f"out of turn: the game waits for {waiting!r}, not {' or '.join(moves)}", 409)

    def _record(self, seat: int, card: int) -> None:
        self.decisions.append((seat, card))
        self.turn += 1

    def _moved(self, state: core.State, played: list[int]) -> None:
        self.state = state
        for card in played:
            self._record(self.seat, card)
        if state.hand_over[0] and not state.done[0]:
            self.hand_ended = True
        else:
            self._advance()

    def _advance(self) -> None:
        """The agents play until the person is to act, the hand ends or the game does."""

        ended = []

        def count(step: runner.Step) -> None:
            self._record(int(step.seats[0]), int(step.actions[0]))
            ended.append(bool(step.after.hand_over[0]))

        self.state = runner.play(self.state, self.agents, until="hand", on_step=count, names=self._policy_names())
        self.hand_ended = any(ended) and not self.state.done[0]  # this call's steps ended a hand

    def _policy_names(self) -> list[str]:
        return ["you" if s == self.seat else self.specs[s] for s in range(self.rules.num_players)]


class WebTables:
    """The games of the server by id; a game idle longer than ``idle_seconds`` is dropped, and at
    most ``max_games`` are kept at once."""

    def __init__(
        self,
        seed: int = 0,
        idle_seconds: float = 1800,
        max_games: int = 64,
        policy_dirs: Sequence[Path] = (),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.seed, self.idle_seconds, self.max_games = seed, idle_seconds, max_games
        self.policy_dirs = [Path(d) for d in policy_dirs]
        self.clock = clock
        self.games: dict[str, WebTable] = {}
        self.started = 0  # games started: game k is seeded from the server's seed and k
        self.dealing = 0  # games being set up (agents built, first moves played), counted in the cap
        self.replacing: set[str] = set()  # the games being replaced by games being set up
        self.lock = threading.Lock()

    def new(self, request: object) -> WebTable:
        """A new game from a request ``{"seat": 0, "opponents": ["ppo"], "rules": {...}, "seed": 7,
        "replaces": id}`` (every key optional). The game ``replaces`` names is dropped only once the
        new one is dealt: a refused request leaves it in play."""
        if not isinstance(request, dict):
            raise WebError("the request must be a JSON object")
        unknown = set(request) - {"seat", "opponents", "rules", "seed", "replaces"}
        if unknown:
            raise WebError(
                f"unknown field {', '.join(sorted(unknown))}; a new game takes seat, opponents, rules, seed, replaces"
            )
        replaces = request.get("replaces")
        if replaces is not None and not isinstance(replaces, str):
            raise WebError(f"replaces must be the id of a game, got {replaces!r:.40}")
        try:
            rules = HeartsRules.from_dict(request.get("rules", {}))
        except (TypeError, ValueError) as error:
            raise WebError(f"rules: {error}") from None
        seat = request.get("seat", 0)
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise WebError(f"seat must be an int, got {seat!r:.40}")
        opponents = request.get("opponents", ["heuristic"])
        if isinstance(opponents, str):
            opponents = [opponents]
        if not isinstance(opponents, list) or not all(isinstance(o, str) for o in opponents):
            raise WebError("opponents must be a list of agent specs")
        for spec in opponents:
            try:
                request_specs.check_spec(spec, self.policy_dirs)
            except ValueError as error:
                raise WebError(str(error)) from None
        seed = request.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63):
            raise WebError(f"seed must be an int 0..2**63-1, got {seed!r:.40}")
        with self.lock:  # the place is taken under the lock, so concurrent requests cannot pass the cap
            self.sweep()
            held = len(self.games) + self.dealing
            # A game that replaces one held (and not being replaced already) takes that one's place.
            freed = replaces if replaces in self.games and replaces not in self.replacing else None
            if held - (freed is not None) >= self.max_games:
                raise WebError(f"this server holds {held} games, its most: try again later", 503)
            if freed is not None:
                self.replacing.add(freed)
            if seed is None:
                seed = int(seeding.derive(self.seed, seeding.GAMES, self.started)[()] >> np.uint64(1))
            self.started += 1
            self.dealing += 1
            game_id = secrets.token_urlsafe(9)
        try:
            table = WebTable(game_id, rules, seat, opponents, seed, self.policy_dirs)
            table.used = self.clock()
            with self.lock:
                self.games[game_id] = table
                if replaces is not None:
                    self.games.pop(replaces, None)  # gone already (idle, or left): nothing to drop
        finally:
            with self.lock:
                self.dealing -= 1
                if freed is not None:
                    self.replacing.discard(freed)
        return table

    def get(self, game_id: str) -> WebTable:
        with self.lock:
            self.sweep()
            table = self.games.get(game_id)
            if table is None:
                minutes = self.idle_seconds / 60
                raise WebError(
                    f"no game {game_id!r:.40} here (it ended, or was dropped after {minutes:g} idle minutes)", 404
                )
            table.used = self.clock()
            return table

    def close(self, game_id: str) -> None:
        with self.lock:
            if self.games.pop(game_id, None) is None:
                raise WebError(f"no game {game_id!r:.40} here", 404)

    def sweep(self) -> None:
        """Drop the games idle longer than ``idle_seconds`` (the caller holds the lock)."""
        now = self.clock()
        for game_id in [g for g, t in self.games.items() if now - t.used > self.idle_seconds]:
            del self.games[game_id]


def _card(name: object) -> int:
    if not isinstance(name, str):
        raise WebError(f'a card must be a name such as "QS", got {name!r:.40}')
    try:
        return cards.parse_card(name)
    except ValueError as error:
        raise WebError(str(error)) from None
