"""The batched table engine under the Gymnasium environments (``hearts_env.envs.gym_env``:
``HeartsEnv`` is one table, ``HeartsVectorEnv`` many, and TorchRL's ``HeartsLearnerEnv`` wraps the
latter): B games on one core state, one learner seat in each, the opponents' moves played in
between (``hearts_env.play.runner``) until every learner is to act again. It keeps each game's
seeds and random stream, the learner's rewards since its last move and whether its episode is over,
and gives the learners' observations, masks, info arrays and the table views the renderers draw.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from hearts_env.engine import checks, core, seeding
from hearts_env.engine.cards import NUM_CARDS
from hearts_env.engine.core import BIT, State, bits_to_mask, new_games
from hearts_env.engine.global_state import GlobalStateLayout, global_state
from hearts_env.engine.observation import ObservationLayout, observe
from hearts_env.engine.rewards import check_reward_mode, step_rewards
from hearts_env.engine.rules import HeartsRules
from hearts_env.play import runner
from hearts_env.play.policy import Policy, Seats, TablePolicy, Turn
from hearts_env.render import TableView, describe

EPISODES = ("game", "hand")
ILLEGAL_ACTIONS = ("raise", "random")

_U64 = np.uint64
_GAMMA = _U64(seeding.GAMMA)  # the i-th draw of a game's stream hashes stream + i * _GAMMA
ALL = slice(None)
"""The index of every game: keeps arrays as views and states unsplit."""

Index = slice | np.ndarray  # games of the batch: ALL or an int array


class LearnerTables:
    """B games, one learner seat in each; the opponents' moves are played in between.

    Invariant after ``start``, ``next_episode`` and ``learner_step``: in every game either the
    learner is to act or the episode is over (``ended``). All work is array operations over the
    games; loops run over turns (until every learner is to act again) and over opponent seats.
    """

    def __init__(
        self,
        num_games: int,
        rules: HeartsRules,
        opponents: Policy | Sequence[Policy] | None,
        reward: str,
        episode: str,
        learner_seat: int | str,
        history: bool,
        illegal_action: str,
        with_state: bool = False,
        trick_outcomes: bool = False,
    ) -> None:
        P = rules.num_players
        self.rules = rules
        self.num_games = num_games
        self.reward = check_reward_mode(reward)
        self.episode = checks.choice("episode", episode, EPISODES)
        self.illegal_action = checks.choice("illegal_action", illegal_action, ILLEGAL_ACTIONS)
        if learner_seat != "rotate" and (
            isinstance(learner_seat, bool)
            or not isinstance(learner_seat, (int, np.integer))
            or not 0 <= learner_seat < P
        ):
            raise ValueError(f"learner_seat must be a seat 0..{P - 1} or 'rotate', got {learner_seat!r}")
        self.learner_seat = learner_seat
        self.history = checks.flag("history", history)
        self.layout = ObservationLayout(rules, self.history, trick_outcomes)
        # The global state for asymmetric critics, in the info only: the observations never change.
        self.state_layout = GlobalStateLayout(rules) if checks.flag("global_state", with_state) else None
        self.policies = _opponent_policies(opponents, P)
        # The runner's view of the opponents: the policies, and the one at each seat counted from
        # the learner's left (the default random opponents draw from each game's own stream).
        self.players = runner.Players(
            [_GameStreams(self)] if self.policies is None else list(self.policies),
            ["the random opponents"] if self.policies is None else [repr(policy) for policy in self.policies],
        )
        # The opponents' compiled loop, if every one offers it and none watches the steps.
        table = self.policies[0] if self.policies else None
        compiled = all(isinstance(p, TablePolicy) for p in self.policies or ()) and not self.players.observers
        self._table = table if compiled and isinstance(table, TablePolicy) else None
        self.player_at = np.array([-1, *([0] * (P - 1) if self.policies is None else range(P - 1))], np.int64)
        self.state: State | None = None
        # A state, its copies while stepping, and the observations and masks of every table.
        per_table = 4 * core.state_layout(P, rules.hand_size if self.history else 0, rules.decks).width
        per_table += 2 * (self.layout.size + NUM_CARDS + (self.state_layout.size if self.state_layout else 0))
        checks.fits_in_memory(f"{num_games:,} tables", num_games * per_table)
        self.seat = np.full(num_games, 0 if learner_seat == "rotate" else learner_seat, np.int8)
        self.game_seed = np.zeros(num_games, _U64)  # the seed the game's episodes derive from
        self.games_started = np.zeros(num_games, _U64)  # games started since that seed
        self.stream = np.zeros(num_games, _U64)  # key of the current game's random stream
        self.draws = np.zeros(num_games, _U64)  # numbers drawn from that stream so far
        self.pending = np.zeros(num_games, np.float32)  # learner's reward since its last move
        self.ended = np.zeros(num_games, bool)  # the episode is over

    # -- starting episodes

    def start(self, idx: Index, seeds: np.ndarray) -> None:
        """Seed the games ``idx`` (uint64 seeds) and start a fresh game in each."""
        self.game_seed[idx] = seeds
        self.games_started[idx] = 0
        self._new_games(ALL if len(self.seat[idx]) == self.num_games else idx)
        self._play_opponents()

    @property
    def current(self) -> State:
        """The games' state, once ``start`` has dealt them."""
        if self.state is None:
            raise RuntimeError("the tables are not started: reset the environment first")
        return self.state

    def seed_policies(self, seed: int) -> None:
        """Reseed every distinct opponent policy that has a ``seed`` method."""
        distinct = {id(p): p for p in self.policies or ()}.values()
        for j, policy in enumerate(distinct):
            if callable(reseed := getattr(policy, "seed", None)):
                reseed(int(seeding.derive(seed, seeding.AGENTS, j) >> _U64(1)))

    def next_episode(self, idx: Index) -> None:
        """Start the next episode of the games ``idx``: in ``"hand"`` episodes that ended with the
        game still on, its next hand (already dealt); otherwise a fresh game."""
        rows = np.arange(self.num_games)[idx]
        if self.episode == "hand":
            going_on = self.ended[rows] & ~self.current.done[rows]
            self.ended[rows[going_on]] = False
            rows = rows[~going_on]
        if len(rows):
            self._new_games(ALL if len(rows) == self.num_games else rows)
        self._play_opponents()

    def _new_games(self, idx: Index) -> None:
        # The k-th game of a table seeded s: game k of seed s (hearts_env.engine.seeding), its learner's
        # seat and its random cards from the seed's other streams.
        seeds, k = self.game_seed[idx], self.games_started[idx].copy()
        self.games_started[idx] += _U64(1)
        keys = seeding.derive(seeds, seeding.GAMES, k)
        if self.learner_seat == "rotate":
            self.seat[idx] = (seeding.derive(seeds, seeding.SEATS, k) % _U64(self.rules.num_players)).astype(np.int8)
        self.stream[idx] = seeding.derive(seeds, seeding.CARDS, k)
        self.draws[idx] = 0
        self.pending[idx] = 0
        self.ended[idx] = False
        fresh = new_games(self.rules, keys=keys, history=self.history)
        self.state = fresh if self.state is None or _is_all(idx) else _splice(self.state, idx, fresh)

    # -- stepping

    _SAVED = ("seat", "game_seed", "games_started", "stream", "draws", "pending", "ended")

    @contextlib.contextmanager
    def all_or_nothing(self, *more: np.ndarray) -> Iterator[None]:
        """What happens inside happens wholly, or (on any exception: an illegal card, an opponent
        that fails, Ctrl-C during a slow search) not at all: the tables, and the arrays ``more``,
        are put back as they were. (The core state is never modified, so a reference keeps it.)"""
        state, saved, kept = self.state, [getattr(self, name).copy() for name in self._SAVED], [a.copy() for a in more]
        try:
            yield
        except BaseException:
            self.state = state
            for name, value in zip(self._SAVED, saved, strict=True):
                setattr(self, name, value)
            for array, value in zip(more, kept, strict=True):
                array[...] = value
            raise

    def check_actions(self, actions: np.ndarray, idx: Index = ALL, first_game: int = 0) -> None:
        """Raise, before anything changes, the ``core.IllegalMoveError`` (a ``ValueError``) that
        ``learner_step(actions, idx)`` would raise for a learner's card: one that is no card id, or
        (``illegal_action="raise"``) one its learner may not play. It names the game counted from
        ``first_game`` (a shard's first game), the seat, the card and the rule."""
        state = self.current if _is_all(idx) else self.current[idx]
        cards = np.asarray(actions)[idx]
        outside = (cards < 0) | (cards >= NUM_CARDS)
        bad = outside
        if self.illegal_action == "raise":
            bad = outside | ((state.legal & BIT.take(np.where(outside, 0, cards))) == 0)
        if bad.any():
            g = int(np.argmax(bad))
            error = core.illegal_move(state, g, int(cards[g]))
            game = first_game + int(np.arange(self.num_games)[idx][g])
            raise core.IllegalMoveError(game, error.seat, error.card, error.reason, error.lead_suit, error.first_lead)

    def learner_step(self, actions: np.ndarray, idx: Index = ALL) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play the learner's card (``actions``, one per game) in the games ``idx`` (all are to
        act; the other games keep still), then the opponents until every learner is to act again
        or its episode is over. Returns (rewards, terminated, replaced) for every game, zeros
        outside ``idx``: the learner's rewards since its last move, episodes over, illegal cards
        replaced."""
        state = self.current if _is_all(idx) else self.current[idx]
        actions = np.asarray(actions)[idx]
        replaced = np.zeros(state.batch_size, bool)
        if self.illegal_action == "random":
            in_range = (actions >= 0) & (actions < NUM_CARDS)
            replaced = in_range & ((state.legal & BIT.take(np.where(in_range, actions, 0))) == 0)
            if replaced.any():
                random = self._random_cards(idx, state.legal, advance=False).astype(actions.dtype)  # uint64 stays so
                actions = np.where(replaced, random, actions)
        self._step(idx, actions, state)  # raises before anything changes if a card is illegal
        rows = np.arange(self.num_games)[idx]
        self.draws[rows[replaced]] += _U64(1)
        self._play_opponents()
        rewards, terminated, all_replaced = (np.zeros(self.num_games, dtype) for dtype in (np.float32, bool, bool))
        rewards[idx], terminated[idx], all_replaced[idx] = self.pending[idx], self.ended[idx], replaced
        self.pending[idx] = 0
        return rewards, terminated, all_replaced

    def _play_opponents(self) -> None:
        """Play the opponents (``hearts_env.play.runner``) in every game whose episode goes on, until
        its learner is to act again or its episode is over."""
        live = np.flatnonzero(~self.ended)
        if not len(live):
            return
        idx = ALL if len(live) == self.num_games else live
        P = self.rules.num_players
        relative = (np.arange(P) - self.seat[idx][:, None]) % P  # each seat counted from the learner
        sub = self.current if _is_all(idx) else self.current[idx]
        if self._table is not None:  # every opponent compiled: the cards in one compiled loop, no Python between them
            to = Seats(self.seat[idx], self.episode, self.reward, self.pending[idx])
            played = self._table.play_to_seat(sub, self.player_at[relative], self.policies or (), to)
            if played is not None:
                final, self.pending[idx], ended = played
                self.ended[idx] |= ended
                self.state = final if _is_all(idx) else _splice(self.current, idx, final)
                return

        def account(step: runner.Step) -> None:
            self._account(step.games, step.state, step.after)

        try:
            final = runner.play(sub, self.players, self.player_at[relative], self.episode, account, ids=live)
        except runner.PolicyError as error:  # an illegal card, or an answer that is no cards: name the opponent
            relative_seat = (error.seat - int(self.seat[error.game])) % P
            raise ValueError(
                f"game {error.game}: the opponent at seat {error.seat} ({relative_seat} left of the learner), "
                f"{error.policy}, {error.fault}; nothing changed"
            ) from None
        self.state = final if _is_all(idx) else _splice(self.current, idx, final)

    def _random_cards(self, idx: Index, legal: np.ndarray, advance: bool = True) -> np.ndarray:
        """A uniformly random card of each bitboard, from each game's own stream (counter-based)."""
        words = seeding.mix64(self.stream[idx] + self.draws[idx] * _GAMMA)
        if advance:
            self.draws[idx] += _U64(1)
        uniform = (words >> _U64(11)).astype(np.float64) * 2.0**-53
        return core.choose_from_bits(legal, uniform)

    def _step(self, idx: Index, actions: np.ndarray, before: State) -> None:
        after = core.step(before, actions)
        self._account(idx, before, after)
        self.state = after if _is_all(idx) else _splice(self.current, idx, after)

    def _account(self, idx: Index, before: State, after: State) -> None:
        """The learners' rewards and episode ends of one step of the games ``idx``."""
        rewards = step_rewards(before, after, self.reward)
        self.pending[idx] += rewards[np.arange(before.batch_size), self.seat[idx]]
        self.ended[idx] |= after.hand_over if self.episode == "hand" else after.done

    # -- views

    def observe(self, idx: Index = ALL) -> np.ndarray:
        """(n, layout.size) uint8: the learners' observations."""
        sub = self.current if _is_all(idx) else self.current[idx]
        return observe(sub, self.seat[idx], self.layout)

    def masks(self, idx: Index = ALL) -> np.ndarray:
        """(n, 52) bool: the learners' legal cards; none once the episode is over."""
        return bits_to_mask(np.where(self.ended[idx], _U64(0), self.current.legal[idx]))

    def info(self, masks: np.ndarray, replaced: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """Per-game info arrays: action_mask, seat, scores (relative seats), illegal_action, and
        the global state seen from the learner's seat with ``global_state``."""
        P = self.rules.num_players
        order = (self.seat[:, None] + np.arange(P)) % P
        info = {
            "action_mask": masks,
            "seat": self.seat.copy(),
            "scores": np.take_along_axis(self.current.scores, order, axis=1),
        }
        if self.illegal_action == "random":
            info["illegal_action"] = np.zeros(self.num_games, bool) if replaced is None else replaced
        if self.state_layout is not None:
            info["state"] = global_state(self.current, self.state_layout, self.seat.astype(np.int64))
        return info

    def view(self, game: int, hands: str) -> TableView:
        """What the table shows of game ``game``: every hand, or (``hands="learner"``) the learner's."""
        learner = int(self.seat[game])
        names = [f"seat {s}" + (" (learner)" if s == learner else "") for s in range(self.rules.num_players)]
        return describe(self.current, game, None if hands == "all" else [learner], names, viewer=learner)


class _GameStreams:
    """The default random opponents (a ``GamePolicy``): a uniformly random legal card from each
    game's own random stream."""

    def __init__(self, tables: LearnerTables) -> None:
        self.tables = tables

    def decide(self, turn: Turn) -> np.ndarray:
        return self.tables._random_cards(turn.games, turn.legal)  # no info set is built


def _splice(state: State, idx: Index, sub: State) -> State:
    """``state`` with the games ``idx`` replaced by ``sub``."""
    data = state.data.copy()
    data[idx] = sub.data
    return state.with_data(data)


def _is_all(idx: Index) -> bool:
    return isinstance(idx, slice)


def _opponent_policies(opponents: Policy | Sequence[Policy] | None, num_players: int) -> tuple[Policy, ...] | None:
    if opponents is None:
        return None
    if callable(opponents):
        return (opponents,) * (num_players - 1)
    # At most one too many read (an endless iterator is refused too); 5 or an object: refused below
    policies = tuple(itertools.islice(opponents, num_players)) if isinstance(opponents, Iterable) else ()
    if len(policies) != num_players - 1 or not all(callable(p) for p in policies):
        raise ValueError(
            f"opponents must be a Policy or a list of {num_players - 1} policies "
            f"(one per other seat, from the learner's left), got {opponents!r}"
        )
    return policies
