"""The runner: the right policy plays each seat, one call per distinct policy per step, the same
games as stepping one game at a time, stopping at game end, hand end, a seat without a policy or
when the caller asks, and errors that name the policy, seat, game and card."""

from __future__ import annotations

import copy as copy_module
import sys

import numpy as np
import pytest
from scripted_policies import Highest, Lowest

from hearts_env.engine import core
from hearts_env.engine.infoset import INFO_FIELDS, infoset
from hearts_env.engine.rules import HeartsRules
from hearts_env.engine.seeding import game_keys
from hearts_env.play import runner
from hearts_env.play.policy import RandomPolicy


class Recording:
    """Wraps a policy; records the seats and batch size of every call."""

    def __init__(self, policy) -> None:
        self.policy, self.calls = policy, []

    def __call__(self, info, mask):
        assert (info.to_play == 0).all() and np.array_equal(core.bits_to_mask(info.legal), mask)
        self.calls.append(info.seat.copy())
        return self.policy(info, mask)


def games(batch_size: int, seed: int = 0, rules: HeartsRules | None = None) -> core.State:
    return core.new_games(rules or HeartsRules(target_score=60), keys=game_keys(seed, np.arange(batch_size)))


def one_at_a_time(state: core.State, choose) -> core.State:
    """Every game alone (a batch of one), stepped to its end with ``choose(game, seat, mask)``."""
    finals = []
    for g in range(state.batch_size):
        game = state[g]
        while not game.done[0]:
            card = choose(g, int(game.to_play[0]), core.legal_mask(game)[0])
            game = core.step(game, np.array([card]))
        finals.append(game)
    return core.concatenate(finals)


def test_seating_per_game_plays_the_same_games_as_one_at_a_time():
    state = games(12)
    seating = (np.arange(12)[:, None] + np.arange(4)) % 2  # game g, seat s: Lowest if g + s is even
    low, high = Recording(Lowest()), Recording(Highest())
    final = runner.play(state, [low, high], seating)

    def choose(g, seat, mask):
        return int(np.flatnonzero(mask)[0 if seating[g, seat] == 0 else -1])

    expected = one_at_a_time(state, choose)
    assert final.done.all() and np.array_equal(final.data, expected.data)
    assert np.array_equal(final.scores, expected.scores) and (final.hand_number > 1).any()


def test_a_policy_at_several_seats_is_called_once_per_step():
    state = games(16)
    field, me = Recording(Highest()), Recording(Lowest())
    steps = []
    final = runner.play(state, [me, field, field, field], on_step=steps.append)
    assert final.done.all()
    assert len(field.calls) <= len(steps) and len(me.calls) <= len(steps)
    assert all(set(seats.tolist()) <= {1, 2, 3} for seats in field.calls)
    assert all((seats == 0).all() for seats in me.calls)
    assert max(len(seats) for seats in field.calls) > 1
    assert sum(map(len, field.calls)) + sum(map(len, me.calls)) == sum(len(s.games) for s in steps)


def test_steps_hold_the_games_still_playing():
    state = games(32, seed=1)
    steps = []
    runner.play(state, [RandomPolicy(seed=0)] * 4, on_step=steps.append)
    sizes = [len(s.games) for s in steps]
    assert sizes[0] == 32 and sizes[-1] < 32 and sizes == sorted(sizes, reverse=True)  # finished games leave
    for s in steps[::37]:
        assert not s.state.done.any()
        assert np.array_equal(s.seats, s.state.to_play) and np.array_equal(s.info.seat, s.state.to_play)
        info = infoset(s.state)
        assert all(np.array_equal(getattr(s.info, f), getattr(info, f)) for f in INFO_FIELDS)
        assert np.array_equal(s.mask, core.legal_mask(s.state))
        assert np.array_equal(s.after.data, core.step(s.state, s.actions).data)
        assert np.array_equal(s.state.key, state.key[s.games])


def test_until_hand_plays_one_hand_of_each_game():
    state = games(20)
    points = np.zeros((20, 4), np.int64)

    def add(step: runner.Step) -> None:
        ended = step.after.hand_over
        points[step.games[ended]] += step.after.last_hand_points[ended]

    first = runner.play(state, [RandomPolicy(seed=0)] * 4, until="hand", on_step=add)
    assert (first.hand_number == 2).all() and first.hand_over.all() and not first.done.any()
    assert np.array_equal(first.scores, points) and set(points.sum(axis=1).tolist()) <= {26, 78}
    second = runner.play(first, [RandomPolicy(seed=0)] * 4, until="hand", on_step=add)
    assert (second.hand_number == 3).all() and np.array_equal(second.scores, points)


def test_a_seat_without_a_policy_pauses_its_games():
    state = games(10)
    policy = Highest()
    paused = runner.play(state, [None, policy, policy, policy])
    assert ((paused.to_play == 0) | paused.done).all() and not paused.done.all()
    assert paused is runner.play(paused, [None, policy, policy, policy])  # nothing to step: unchanged
    # the learner's card, then the others until it is to act again: the same as Highest everywhere
    while not paused.done.all():
        mine = np.where(paused.done, 0, 51 - core.legal_mask(paused)[:, ::-1].argmax(axis=1))
        paused = runner.play(core.step(paused, mine), [None, policy, policy, policy])
    alone = runner.play(state, [policy] * 4)
    for field in ("scores", "winners", "hand_number", "last_hand_points"):
        assert np.array_equal(getattr(paused, field), getattr(alone, field))


def test_on_step_can_stop_every_game():
    state = games(8)
    policy = Lowest()
    count = []
    stopped = runner.play(state, [policy] * 4, on_step=lambda step: count.append(1) or len(count) == 5)
    expected = state
    for _ in range(5):
        expected = core.step(expected, core.legal_mask(expected).argmax(axis=1))
    assert len(count) == 5 and np.array_equal(stopped.data, expected.data)


def test_games_already_over_are_left_alone():
    done = runner.play(games(3), [Lowest()] * 4)
    state = core.concatenate([done[:2], games(2, seed=9)])
    final = runner.play(state, [Lowest()] * 4)
    assert np.array_equal(final.data[:2], done.data[:2]) and final.done.all()


class Cheater:
    """Plays the first card of its hand, legal or not."""

    def __call__(self, info, mask):
        return core.bits_to_mask(info.hand).argmax(axis=1)


def test_errors_name_the_policy_seat_game_and_card():
    state = games(6)
    low = Lowest()
    with pytest.raises(ValueError, match=r"policy 'cheat' chose an illegal card \w\w \(seat 2, game \d\): seat 2 "):
        runner.play(state, [low, low, Cheater(), low], names=["low", "low", "cheat", "low"])
    with pytest.raises(ValueError, match=r"policy 'Cheater' chose an illegal card"):
        runner.play(state, [low, low, Cheater(), low])
    with pytest.raises(ValueError, match=r"policy 'a / b' must return \(6,\) integer card ids, got float64"):
        bad = lambda info, mask: mask.astype(float)[:, 0]  # noqa: E731
        runner.play(state, [bad, bad, low, low], names=["a", "b", "c", "c"])
    with pytest.raises(ValueError, match=r"policy 'wide' chose an illegal card 60 .*not a card id"):
        runner.play(state, [lambda info, mask: np.full(len(mask), 60)] * 4, names=["wide"] * 4)
    for kwargs, message in [
        (dict(policies=[low] * 3), "one policy \\(or None\\) per seat: 4, got 3"),
        (dict(policies=[low, 5, low, low]), "policies must be callables"),
        (dict(policies=[low] * 4, names=["x"]), "names must name each of the 4 policies"),
        (dict(policies=[low], seating=np.zeros((5, 4), int)), r"seating must be an int array \(4,\) or \(6, 4\)"),
        (dict(policies=[low], seating=np.array([0, 1, 0, 0])), "seating holds policy indices 0..0 or -1"),
        (dict(policies=[low] * 4, until="trick"), "until must be one of game, hand"),
        (dict(policies=[low] * 4, on_step=3), "on_step must be callable"),
    ]:
        with pytest.raises(ValueError, match=message):
            runner.play(state, **kwargs)


class Answering:
    """A game policy (``decide``) or a plain one that answers ``answer(n)`` for its n games."""

    def __init__(self, answer, game_policy: bool) -> None:
        self.answer = answer
        if game_policy:
            self.decide = lambda turn: answer(len(turn.games))

    def __call__(self, info, mask):
        return self.answer(len(mask))


BAD_OUTPUTS = {  # what a policy returns instead of one integer card id per game it is asked about
    "too many": (lambda n: np.zeros(n + 1, np.int64), r"int64 \(7,\)"),
    "too few": (lambda n: np.zeros(n - 1, np.int32), r"int32 \(5,\)"),
    "floats": (lambda n: np.zeros(n), r"float64 \(6,\)"),
    "bools": (lambda n: np.zeros(n, bool), r"bool \(6,\)"),
    "column": (lambda n: np.zeros((n, 1), np.int64), r"int64 \(6, 1\)"),
    "scalar": (lambda n: 3, r"int64 \(\)"),
    "None": (lambda n: None, r"object \(\)"),
    "objects": (lambda n: np.array([3] * n, object), r"object \(6,\)"),
    "ragged": (lambda n: [[1], [1, 2]], r"list \(.*inhomogeneous"),
}


def table_with(name: str, policy: object) -> tuple[core.State, list, list[str], int]:
    """Six games, ``policy`` (called ``name``) at the seat to act in the first, ``Lowest`` elsewhere."""
    state = games(6)
    to_play = int(state.to_play[0])
    policies: list = [Lowest()] * 4
    policies[to_play] = policy
    names = ["low"] * 4
    names[to_play] = name
    return state, policies, names, to_play


@pytest.mark.parametrize("bad", list(BAD_OUTPUTS), ids=list(BAD_OUTPUTS))
@pytest.mark.parametrize("game_policy", [False, True], ids=["policy", "game policy"])
def test_an_answer_that_is_no_cards_is_one_error_naming_the_policy_seat_and_game(bad, game_policy):
    """Every answer of the wrong shape or dtype (or none numpy can read) is a ``PolicyOutputError``
    (a ``PolicyError``, as illegal cards are) naming the policy, what it returned, the number of
    games it was asked about and the first one's id and seat to act; it survives pickling."""
    make, got = BAD_OUTPUTS[bad]
    state, policies, names, to_play = table_with("bad", Answering(make, game_policy))
    message = rf"^policy 'bad' must return \(6,\) integer card ids, got {got}.*the first game 10, seat {to_play}\)$"
    with pytest.raises(runner.PolicyOutputError, match=message) as info:
        runner.play(state, policies, names=names, ids=np.arange(10, 16))
    error = info.value
    assert isinstance(error, runner.PolicyError) and isinstance(error, ValueError)
    assert (error.policy, error.seat, error.game, error.expected) == ("bad", to_play, 10, 6)
    assert "it must return (6,) integer card ids" in error.fault
    copy = copy_module.deepcopy(error)  # rebuilt by its __reduce__, as pickle does across processes
    assert type(copy) is runner.PolicyOutputError and str(copy) == str(error)


@pytest.mark.parametrize("kind", [KeyError, RuntimeError, ZeroDivisionError])
@pytest.mark.parametrize("game_policy", [False, True], ids=["policy", "game policy"])
def test_a_policys_own_error_is_kept_and_says_which_policy_raised_it(kind, game_policy):
    """A policy that raises: its exception goes on unchanged (its type, its message), with a note
    naming the policy, how many games it was asked about and the first one's id and seat (Python
    3.11 and later: 3.10 has no notes, and the error goes on as it is)."""
    exception = kind("boom")

    def fail(n):
        raise exception

    state, policies, names, to_play = table_with("failing", Answering(fail, game_policy))
    with pytest.raises(kind, match="boom") as info:
        runner.play(state, policies, names=names, ids=np.arange(10, 16))
    assert info.value is exception
    if sys.version_info < (3, 11):
        return
    assert info.value.__notes__ == [f"raised by policy 'failing' on 6 game(s), the first game 10 (seat {to_play})"]
