"""One batched loop that plays policies at the seats of a batch of games.

``play(state, policies)`` steps every game of ``state`` (a ``core.State`` batch) with the card the
policy at the seat to act chooses, until each game stops, and returns the games' final state.
Every place that plays games with policies uses it: the arena's matches, imitation collection,
search rollouts with a policy from Python, and (one seat left to a learner or a person) the
Gymnasium environments' opponents and the terminal game.

    import numpy as np
    from hearts_env import core
    from hearts_env.play import runner
    from hearts_env.policy import RandomPolicy
    from hearts_env.rules import HeartsRules

    field = RandomPolicy(seed=1)  # one object at three seats: one batched call per step
    state = core.new_games(HeartsRules(), batch_size=1024, seed=0)
    final = runner.play(state, [RandomPolicy(seed=0), field, field, field])
    final.scores  # (1024, 4) game totals

    points = np.zeros((1024, 4))
    def count(step: runner.Step) -> None:  # called after every step
        ended = step.after.hand_over
        points[step.games[ended]] += step.after.last_hand_points[ended]
    runner.play(state, [field] * 4, until="hand", on_step=count)  # one hand of each game

Seats
-----
``policies`` holds ``hearts_env.play.policy.Policy`` objects (``policy(info, mask) -> (n,) int`` card
ids) or ``None``. Without ``seating``, ``policies[s]`` plays seat ``s`` of every game (P entries).
With ``seating``, an int array (P,) or (B, P), ``policies[seating[g, s]]`` plays seat ``s`` of
game ``g`` (the arena rotates its agents through the seats this way); -1 is a seat without a policy.
At each step every distinct policy *object* is called once, on every game where a seat it holds
is to act, with the information sets of those seats and their legal masks; its cards are checked
(an illegal one raises ``IllegalCardError``, a ``ValueError`` naming the policy, seat, game and
card, and the rule; an answer that is not one integer card id per game, ``PolicyOutputError``,
naming the policy, what it returned and the first game it was asked about: both ``PolicyError``;
an exception a policy raises goes on as it is, with a note naming the policy and the game from
Python 3.11 on).
A ``hearts_env.play.policy.GamePolicy`` is asked through ``decide(turn)`` instead (a ``Turn``: its
games' ids and legal cards, their information sets built only if it reads them).

Stopping
--------
A game stops when it is over (``until="game"``), or also when a hand of it ends (``until="hand"``:
the returned state holds the next deal with ``hand_over`` set and the hand's score in
``last_hand_points``), or when a seat without a policy is to act (a learner's or a person's seat:
``play`` returns with that seat to act). Games over, or waiting for a seat without a policy, when
``play`` is called are not stepped.
Stopped games leave the batch at once, so each step holds only the games still playing.

Games are named by ``ids`` (default: their index in ``state``), in steps and to the policies
that follow their games (``hearts_env.play.policy.GamePolicy``: asked with ``decide(turn)``, a
``Turn``, and shown every step by ``observe(step)`` if they have it, before ``on_step``): a caller
that plays some of its games passes their own numbers.

Steps
-----
``on_step(step)`` is called after every step with a ``Step``: the games that acted (their ids),
their state before and after, the information sets and masks of the seats to act (built when
first read, if no policy needed them) and the cards chosen. It returns nothing to go on, or True
to stop every game there (``play`` then returns each game as it stands).
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import cast

import numpy as np

from hearts_env.engine import core
from hearts_env.engine.cards import BIT, NUM_CARDS, card_name
from hearts_env.engine.infoset import InfoSet, infoset
from hearts_env.play.policy import GamePolicy, Policy, SeatToAct, Turn

UNTIL = ("game", "hand")


class PolicyError(ValueError):
    """A policy's answer that cannot be played: ``policy`` (its name), ``seat`` and ``game`` (the
    seat to act and the game's id, of the first game at fault), ``fault`` (what it did, in words,
    for callers that name the policy their own way: the environments name the opponent), and the
    arena's ``deal`` and ``rotation`` once it has named them (``in_deal``)."""

    policy: str
    seat: int
    game: int
    fault: str
    deal: int | None = None
    rotation: int = 0

    def __str__(self) -> str:
        said = super().__str__()
        return said if self.deal is None else f"{said}; in deal {self.deal} of the match, rotation {self.rotation}"

    def in_deal(self, deal: int, rotation: int) -> PolicyError:
        """The same error, naming the match's deal and rotation."""
        named = copy.copy(self)
        named.deal, named.rotation = deal, rotation
        return named

    def _state(self) -> dict[str, int | None]:
        return {"deal": self.deal, "rotation": self.rotation}


class IllegalCardError(PolicyError):
    """A policy chose a card that is not legal for the seat to act: ``policy`` (its name),
    ``seat``, ``game`` (its id), ``card`` (an int, maybe no card id) and ``why`` (the rule)."""

    def __init__(self, policy: str, seat: int, game: int, card: int, why: str) -> None:
        self.policy, self.seat, self.game, self.card, self.why = policy, seat, game, card, why
        what = card_name(card) if 0 <= card < NUM_CARDS else str(card)
        self.fault = f"chose {what}, which is illegal: {why}"
        super().__init__(f"policy {policy!r} chose an illegal card {what} (seat {seat}, game {game}): {why}")

    def __reduce__(self) -> tuple:  # picklable with its fields (process pools, Ray)
        return type(self), (self.policy, self.seat, self.game, self.card, self.why), self._state()


class PolicyOutputError(PolicyError):
    """A policy returned something other than ``expected`` integer card ids, one per game it was
    asked about: ``policy`` (its name), ``got`` (what it returned: dtype and shape, or type), and
    ``seat`` and ``game``: the seat to act and the id of the first of those games."""

    def __init__(self, policy: str, seat: int, game: int, expected: int, got: str) -> None:
        self.policy, self.seat, self.game, self.expected, self.got = policy, seat, game, expected, got
        self.fault = f"returned {got}: it must return ({expected},) integer card ids, one per game where it is to act"
        super().__init__(
            f"policy {policy!r} must return ({expected},) integer card ids, got {got} "
            f"(asked about {expected} game{'s' if expected != 1 else ''}, the first game {game}, seat {seat})"
        )

    def __reduce__(self) -> tuple:
        return type(self), (self.policy, self.seat, self.game, self.expected, self.got), self._state()


@dataclass(frozen=True)
class Step(SeatToAct):
    """One step of the games still playing (n of them)."""

    games: np.ndarray  # (n,) int: each game's id (its index in the batch given to ``play``, or ``ids``)
    state: core.State  # the n games before the step
    actions: np.ndarray  # (n,) int64: the card its policy chose
    after: core.State  # the n games after the step
    built: tuple[InfoSet, np.ndarray] | None = None  # the info sets and masks, if the policies read them

    @property
    def seats(self) -> np.ndarray:
        """(n,) int8: the seat that acted in each game."""
        return self.state.to_play


def play(
    state: core.State,
    policies: Sequence[Policy | GamePolicy | None] | Players,
    seating: np.ndarray | None = None,
    until: str = "game",
    on_step: Callable[[Step], bool | None] | None = None,
    names: Sequence[str] | None = None,
    ids: np.ndarray | None = None,
) -> core.State:
    """Play the games of ``state`` with ``policies`` at their seats until each stops (see the
    module docstring); returns the state of every game, in the order of ``state``. ``names`` (one
    per policy) name the policies in error messages (default: their class or function name);
    ``policies`` may be a ``Players`` made once for many calls (its names then). ``ids`` (B,) int
    name the games (default: 0..B-1)."""
    players = policies if isinstance(policies, Players) else Players(policies, names)
    groups, labels, index, follows, observers = (
        players.groups,
        players.labels,
        players.index,
        players.follows,
        players.observers,
    )
    seat_group = _seat_groups(seating, index, state.batch_size, state.num_players)
    if until not in UNTIL:
        raise ValueError(f"until must be one of {', '.join(UNTIL)}; got {until!r}")
    if on_step is not None and not callable(on_step):
        raise ValueError(f"on_step must be callable or None, got {on_step!r}")
    game_ids = np.arange(state.batch_size) if ids is None else np.asarray(ids)
    if game_ids.shape != (state.batch_size,) or game_ids.dtype.kind not in "iu":
        raise ValueError(f"ids must be ({state.batch_size},) integers, got {game_ids.dtype} {game_ids.shape}")
    unseated = bool((seat_group < 0).any())  # a seat without a policy: games may pause there
    parts: list[tuple[np.ndarray, core.State]] = []  # (games, their final state) as games stop
    live = np.flatnonzero(~(state.done | _paused(state, seat_group, np.arange(state.batch_size))))
    current = state if len(live) == state.batch_size else state[live]
    one = len(groups) == 1  # one policy object at every seated seat: no grouping to do
    while len(live):
        actions = np.empty(len(live), np.int64)
        acting: tuple[int, ...] | np.ndarray
        counts: tuple[int, ...] | np.ndarray
        if one:
            acting, counts, group = (0,), (len(live),), None
        else:
            group = seat_group[live, current.to_play]
            counts = np.bincount(group, minlength=len(groups))
            acting = np.flatnonzero(counts)
        # The info sets and masks, built once if a plain policy reads them (game policies read them lazily).
        built = None if all(follows[j] for j in acting) else (infoset(current), core.legal_mask(current))
        for j in acting:
            rows = slice(None) if counts[j] == len(live) else np.flatnonzero(group == j)
            try:
                if follows[j]:
                    whole = isinstance(rows, slice)
                    prebuilt = None if built is None else (built[0] if whole else built[0][rows], built[1][rows])
                    turn = Turn(game_ids[live[rows]], current if whole else current[rows], prebuilt)
                    answer = cast(GamePolicy, groups[j]).decide(turn)  # follows[j]: a GamePolicy
                else:
                    assert built is not None  # built when a plain policy acts
                    info, mask = built
                    answer = cast(Policy, groups[j])(info if isinstance(rows, slice) else info[rows], mask[rows])
            except Exception as error:  # the policy's own error, kept as it is, says which policy raised it
                first = 0 if isinstance(rows, slice) else int(rows[0])
                game, seat = int(game_ids[live[first]]), int(current.to_play[first])
                name = _group_name(labels, index, j)
                if sys.version_info >= (3, 11):  # Python 3.10 has no notes: the error goes on as it is
                    error.add_note(
                        f"raised by policy {name!r} on {counts[j]} game(s), the first game {game} (seat {seat})"
                    )
                raise
            actions[rows] = _card_ids(answer, rows, current, game_ids[live], partial(_group_name, labels, index, j))
        try:
            after = core.step(current, actions)  # it checks every card, and changes nothing if one is illegal
        except ValueError:  # name the policy that chose it
            for j in acting:
                rows = np.arange(len(live)) if one else np.flatnonzero(group == j)
                _check_cards(actions[rows], current, rows, game_ids[live], _group_name(labels, index, j))
            raise
        if on_step is not None or observers:
            step = Step(game_ids[live], current, actions, after, built)
            for observe in observers:
                observe(step)
            if on_step is not None and on_step(step):
                parts.append((live, after))
                break
        stops = after.phase == core.GAME_OVER
        if unseated:  # a game whose next seat has no policy pauses there
            stops |= seat_group[live, np.maximum(after.to_play, 0)] < 0
        if until == "hand":
            stops |= after.hand_over
        if not stops.any():
            current = after
            continue
        rows = np.flatnonzero(stops)
        parts.append((live[rows], after[rows]))
        rows = np.flatnonzero(~stops)
        live, current = live[rows], after[rows]
    return _assemble(state, parts)


class Players:
    """The policies of ``play`` (one entry per seat, or per ``seating`` index; None for a seat
    without one) sorted once: the distinct objects (``groups``), each entry's name (``labels``),
    the index of each entry's object (``index``, -1 for None), which objects follow their games
    (``follows``) and the ``observe`` methods of those that watch every step (``observers``). A
    caller that plays the same policies again and again (an environment's opponents) makes it
    once and passes it to ``play``."""

    def __init__(self, policies: Sequence[Policy | GamePolicy | None], names: Sequence[str] | None = None) -> None:
        self.groups, self.labels, self.index = _groups(policies, names)
        self.follows = [isinstance(p, GamePolicy) for p in self.groups]  # once: a protocol check is slow
        self.observers: list[Callable[[Step], object]] = [
            observe
            for p, f in zip(self.groups, self.follows, strict=True)
            if f and callable(observe := getattr(p, "observe", None))
        ]


def _groups(
    policies: Sequence[Policy | GamePolicy | None], names: Sequence[str] | None
) -> tuple[list[Policy | GamePolicy], list[str], np.ndarray]:
    """The distinct policy objects, each entry's name (``names``, or its class or function name),
    and the (len(policies),) index of each entry's object (-1 for None)."""
    policies = list(policies)
    if names is not None and len(names) != len(policies):
        raise ValueError(f"names must name each of the {len(policies)} policies, got {len(names)} names")
    for policy in policies:
        if policy is not None and not (callable(policy) or isinstance(policy, GamePolicy)):
            raise ValueError(
                f"policies must be callables policy(info, mask) -> cards, game policies or None; got {policy!r}"
            )
    distinct = list({id(p): p for p in policies if p is not None}.values())
    index = np.array(
        [-1 if p is None else next(j for j, d in enumerate(distinct) if d is p) for p in policies], np.int64
    )
    labels = [_name(p) for p in policies] if names is None else [str(n) for n in names]
    return distinct, labels, index


def _group_name(labels: list[str], index: np.ndarray, j: int | np.integer) -> str:
    """The name of policy object ``j`` in errors: the names of its entries, joined."""
    return " / ".join(dict.fromkeys(n for n, k in zip(labels, index, strict=True) if k == j))


def _seat_groups(seating: np.ndarray | None, index: np.ndarray, batch_size: int, num_players: int) -> np.ndarray:
    """(B, P) int (a broadcast view): the distinct policy at each seat of each game, -1 for none."""
    if seating is None:
        if len(index) != num_players:
            raise ValueError(f"policies must hold one policy (or None) per seat: {num_players}, got {len(index)}")
        seating = np.arange(num_players)
    seating = np.asarray(seating)
    if seating.shape not in ((num_players,), (batch_size, num_players)) or seating.dtype.kind not in "iu":
        raise ValueError(
            f"seating must be an int array ({num_players},) or ({batch_size}, {num_players}), "
            f"got {seating.dtype} {seating.shape}"
        )
    if seating.min() < -1 or seating.max() >= len(index):
        raise ValueError(
            f"seating holds policy indices 0..{len(index) - 1} or -1 (no policy), got {seating.min()}..{seating.max()}"
        )
    groups = np.append(index, -1)[seating]  # seating -1 picks the appended -1
    return np.broadcast_to(groups, (batch_size, num_players))


def _paused(state: core.State, seat_group: np.ndarray, games: np.ndarray) -> np.ndarray:
    """(n,) bool: games (not over) whose seat to act has no policy."""
    return (seat_group[games, np.maximum(state.to_play, 0)] < 0) & ~state.done


def _card_ids(
    answer: object, rows: slice | np.ndarray, state: core.State, games: np.ndarray, name: Callable[[], str]
) -> np.ndarray:
    """A policy's ``answer`` for the games at ``rows`` of ``state`` (ids ``games``) as an integer
    array, one card id per game; anything else (a wrong shape or dtype, something numpy cannot
    read as an array) raises ``PolicyOutputError``, naming the policy (``name()``) and the first game."""
    n = state.batch_size if isinstance(rows, slice) else len(rows)

    def refused(got: str) -> PolicyOutputError:  # built only on failure: this check runs every step
        first = 0 if isinstance(rows, slice) else int(rows[0])
        return PolicyOutputError(name(), int(state.to_play[first]), int(games[first]), n, got)

    try:
        chosen = np.asarray(answer)
    except (ValueError, TypeError, RuntimeError) as error:  # a ragged list, a GPU tensor...
        raise refused(f"{type(answer).__name__} ({error})") from None
    if chosen.shape != (n,) or chosen.dtype.kind not in "iu":
        raise refused(f"{chosen.dtype} {chosen.shape}")
    return chosen


def _check_cards(chosen: np.ndarray, state: core.State, rows: np.ndarray, games: np.ndarray, name: str) -> None:
    """Raise ``IllegalCardError`` if ``chosen`` is not a legal card for each game at ``rows`` of ``state``."""
    legal = state.legal[rows]
    in_range = (chosen >= 0) & (chosen < NUM_CARDS)
    illegal = ~in_range | ((legal & BIT.take(np.where(in_range, chosen, 0))) == 0)
    if illegal.any():
        i = int(np.argmax(illegal))
        row, card = int(rows[i]), int(chosen[i])
        why = core.explain_illegal(state, row, card) if in_range[i] else "not a card id (0..51)"
        raise IllegalCardError(name, int(state.to_play[row]), int(games[row]), card, why)


def _assemble(state: core.State, parts: list[tuple[np.ndarray, core.State]]) -> core.State:
    """The games of ``state`` with the rows of ``parts`` (games, their state) put in place."""
    if not parts:
        return state
    if len(parts) == 1 and len(parts[0][0]) == state.batch_size:
        return parts[0][1]  # every game stopped at the same step, in order
    data = state.data.copy()
    for games, part in parts:
        data[games] = part.data
    return state.with_data(data)


def _name(policy: Policy | GamePolicy | None) -> str:
    return "none" if policy is None else getattr(policy, "__name__", type(policy).__name__)
