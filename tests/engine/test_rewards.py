"""Tests of ``hearts_env.engine.rewards.step_rewards`` over whole random games.

Every step's rewards in every mode are compared with a reference computed here: the trick that a
step completes (its winner and points worked out in plain Python from the cards), the hand's score
as the change of the game totals, and the winners as the lowest final totals. Summed over a game,
the rewards must give minus the game total ("points", "hand"), the per-hand zero-sum payoffs
("zero_sum") and 1/k for each of k winners ("win"). Moons are forced with a stacked first deal
(seat 0 holds the top cards of every suit and the first hand has no pass, so it takes every
trick), so the moon correction of "points" is exercised in every moon mode.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from hearts_env import HeartsRules
from hearts_env.engine import cards
from hearts_env.engine.core import PLAY, new_games, sample_actions, step
from hearts_env.engine.rewards import REWARD_MODES, step_rewards

MODES = ("points", "hand", "zero_sum", "win")
MOONS = ("add_to_others", "subtract_from_self", "shooter_choice")
QS, JD = cards.parse_card("QS"), cards.parse_card("JD")


def suit(card: int) -> int:
    return card // 13


def trick_points(trick: list[int], jd_rule: bool) -> tuple[int, int]:
    """(hearts + 13 for the QS, the JD bonus) of the cards of one trick."""
    raw = sum(1 for c in trick if suit(c) == cards.HEARTS) + 13 * (QS in trick)
    return raw, (-10 if jd_rule and JD in trick else 0)


@dataclass
class Game:
    """What a batch of games paid, summed per mode, with what the reference expects."""

    start: np.ndarray
    final: np.ndarray
    totals: dict[str, np.ndarray]
    zero_sum: np.ndarray  # sum over hands of (mean of the other seats' hand scores - own)
    hand_scores: list[list[np.ndarray]] = field(default_factory=list)  # per game, per hand
    moons: int = 0
    tricks: int = 0


def play(
    rules: HeartsRules,
    batch: int | None = None,
    seed: int = 0,
    deals: np.ndarray | None = None,
    scores: np.ndarray | None = None,
    max_steps: int = 20_000,
) -> Game:
    """Play random games to the end, checking each step's rewards against the reference."""
    rng = np.random.default_rng(seed)
    state = new_games(rules, batch_size=batch, seed=seed, deals=deals)
    if scores is not None:
        state = state.replace(scores=np.asarray(scores, np.int32))
    B, P = state.batch_size, state.num_players
    game = Game(
        start=state.scores.copy(),
        final=state.scores,
        totals={m: np.zeros((B, P)) for m in MODES},
        zero_sum=np.zeros((B, P)),
        hand_scores=[[] for _ in range(B)],
    )
    raw_tally = np.zeros((B, P), np.int64)  # hearts and QS taken this hand, trick by trick
    jd_tally = np.zeros((B, P), np.int64)
    for _ in range(max_steps):
        if state.done.all():
            break
        actions = sample_actions(state, rng)
        after = step(state, actions)
        paid = {m: step_rewards(state, after, m) for m in MODES}
        expected = {m: np.zeros((B, P)) for m in MODES}
        live = ~state.done
        for g in np.flatnonzero(live & (state.phase == PLAY) & (state.trick_size == P - 1)):
            trick = state.trick[g].astype(int).tolist()
            trick[state.to_play[g]] = int(actions[g])
            led = suit(trick[state.leader[g]])
            winner = max(range(P), key=lambda a: trick[a] if suit(trick[a]) == led else -1)  # noqa: B023
            raw, bonus = trick_points(trick, rules.jack_of_diamonds)
            raw_tally[g, winner] += raw
            jd_tally[g, winner] += bonus
            expected["points"][g, winner] -= raw + bonus
            game.tricks += 1
        for g in np.flatnonzero(live & after.hand_over):
            score = (after.scores[g] - state.scores[g]).astype(np.int64)  # the hand's score
            game.hand_scores[g].append(score)
            correction = score - raw_tally[g] - jd_tally[g]  # the moon, paid at the hand's last step
            if (raw_tally[g] == 26).any():
                game.moons += 1
            else:
                assert not correction.any(), f"game {g}: a correction {correction} without a moon"
            expected["points"][g] -= correction
            expected["hand"][g] = -score
            expected["zero_sum"][g] = (score.sum() - score) / (P - 1) - score
            game.zero_sum[g] += expected["zero_sum"][g]
            raw_tally[g] = jd_tally[g] = 0
        for g in np.flatnonzero(live & after.done):
            winners = after.scores[g] == after.scores[g].min()
            expected["win"][g] = winners / winners.sum()
        for m in MODES:
            assert paid[m].dtype == np.float32 and paid[m].shape == (B, P), m
            assert not paid[m][state.done].any(), f"{m}: a game already over was paid"
            np.testing.assert_allclose(paid[m], expected[m], atol=1e-5, err_msg=m)
            game.totals[m] += paid[m]
        state = after
    assert state.done.all(), "games did not end"
    game.final = state.scores.copy()
    return game


def check_sums(game: Game) -> None:
    total = (game.final - game.start).astype(float)
    np.testing.assert_allclose(game.totals["points"], -total, atol=1e-3, err_msg="points")
    np.testing.assert_allclose(game.totals["hand"], -total, atol=1e-3, err_msg="hand")
    np.testing.assert_allclose(game.totals["zero_sum"], game.zero_sum, atol=1e-3, err_msg="zero_sum")
    np.testing.assert_allclose(game.totals["zero_sum"].sum(axis=1), 0, atol=1e-3)
    winners = game.final == game.final.min(axis=1, keepdims=True)
    np.testing.assert_allclose(game.totals["win"], winners / winners.sum(axis=1, keepdims=True), atol=1e-6)
    for g, hands in enumerate(game.hand_scores):  # the hands add up to the game
        np.testing.assert_array_equal(np.sum(hands, axis=0), game.final[g] - game.start[g])


def moon_deals(num_players: int, batch: int, seed: int) -> np.ndarray:
    """First deals where seat 0 holds the top cards of every suit (the aces, then the kings, ...,
    clubs first): it follows the opening club with a higher club, wins, and then wins every trick
    it leads, so without a pass it takes every card."""
    rng = np.random.default_rng(seed)
    deck = cards.deck(num_players).tolist()
    hand = cards.hand_size(num_players)
    ranked = sorted(deck, key=lambda c: (-cards.rank_of(c), suit(c)))
    top, rest = ranked[:hand], np.array(ranked[hand:])
    deals = np.full((batch, 52), -1, np.int8)
    for g in range(batch):
        deals[g, top] = 0
        deals[g, rng.permutation(rest)] = np.repeat(np.arange(1, num_players), hand)
    return deals


def moon_rules(num_players: int, **knobs) -> HeartsRules:
    """No pass on the first hand (so the stacked deal stays), the usual passes after it."""
    cycle = ("none", "left", "right", "across") if num_players == 4 else ("none", "left", "right")
    return HeartsRules(num_players=num_players, pass_cycle=cycle, **knobs)


# ---------------------------------------------------------------------------------------------
# Random games


RANDOM_CASES = [
    (3, "add_to_others", False),
    (4, "subtract_from_self", True),
    (5, "shooter_choice", False),
    (6, "add_to_others", True),
    (7, "subtract_from_self", False),
    (4, "shooter_choice", True),
]


@pytest.mark.parametrize(("num_players", "moon", "jd"), RANDOM_CASES)
def test_random_games(num_players: int, moon: str, jd: bool) -> None:
    rules = HeartsRules(num_players=num_players, moon=moon, jack_of_diamonds=jd, target_score=60)
    game = play(rules, batch=6, seed=num_players)
    check_sums(game)
    assert min(len(h) for h in game.hand_scores) >= 2, "every game should last a few hands"


@pytest.mark.slow
@pytest.mark.parametrize("jd", [False, True])
@pytest.mark.parametrize("moon", MOONS)
@pytest.mark.parametrize("num_players", range(3, 8))
def test_random_games_sweep(num_players: int, moon: str, jd: bool) -> None:
    rules = HeartsRules(num_players=num_players, moon=moon, jack_of_diamonds=jd)
    check_sums(play(rules, batch=16, seed=100 + num_players))


# ---------------------------------------------------------------------------------------------
# Moons


@pytest.mark.parametrize("jd", [False, True])
@pytest.mark.parametrize("moon", MOONS)
@pytest.mark.parametrize("num_players", [3, 4, 7])
def test_games_with_a_moon(num_players: int, moon: str, jd: bool) -> None:
    rules = moon_rules(num_players, moon=moon, jack_of_diamonds=jd, target_score=60)
    batch = 4
    game = play(rules, seed=num_players, deals=moon_deals(num_players, batch, seed=num_players))
    check_sums(game)
    assert game.moons >= batch
    jd_bonus = -10 if jd else 0
    for hands in game.hand_scores:
        first = hands[0]
        if moon == "subtract_from_self":
            assert first.tolist() == [-26 + jd_bonus] + [0] * (num_players - 1)
        else:  # shooter_choice adds here: nobody reaches the target
            assert first.tolist() == [jd_bonus] + [26] * (num_players - 1)


@pytest.mark.parametrize("jd", [False, True])
def test_shooter_choice_subtracts_when_adding_would_lose(jd: bool) -> None:
    """Seat 0 shoots from 80 with seat 1 at 90: adding would end the game with seat 0 above seats
    2 and 3, so it subtracts; from 50 against 80s, adding ends the game with seat 0 the winner."""
    rules = moon_rules(4, moon="shooter_choice", jack_of_diamonds=jd)
    bonus = -10 if jd else 0
    game = play(rules, seed=1, deals=moon_deals(4, 3, seed=1), scores=[[80, 90, 10, 10]] * 3)
    check_sums(game)
    for hands in game.hand_scores:
        assert hands[0].tolist() == [-26 + bonus, 0, 0, 0]
    game = play(rules, seed=2, deals=moon_deals(4, 3, seed=2), scores=[[50, 80, 80, 80]] * 3)
    check_sums(game)
    for hands in game.hand_scores:
        assert len(hands) == 1 and hands[0].tolist() == [bonus, 26, 26, 26]
    np.testing.assert_allclose(game.totals["win"], [[1, 0, 0, 0]] * 3)


@pytest.mark.parametrize("moon", MOONS)
def test_points_moon_correction_comes_at_the_last_step(moon: str) -> None:
    """Seat 0 takes every trick: "points" pays it minus each trick's points as the trick ends, and
    the moon correction only with the hand's last card; the others get nothing before then."""
    rules = moon_rules(4, moon=moon, target_score=None, pass_count=0)
    state = new_games(rules, deals=moon_deals(4, 1, seed=3), seed=3)
    rng = np.random.default_rng(3)
    paid, expected = [], []
    while not state.done.all():
        after = step(state, sample_actions(state, rng))
        paid.append(step_rewards(state, after, "points")[0])
        owed = np.zeros(4)
        if len(paid) % 4 == 0:  # a trick ended
            assert after.last_trick_winner[0] == 0
            owed[0] = -trick_points(after.last_trick[0].tolist(), False)[0]
        expected.append(owed)
        state = after
    paid, expected = np.array(paid), np.array(expected)
    assert len(paid) == 52 and expected.sum() == -26
    np.testing.assert_array_equal(paid[:-1], expected[:-1])
    score = {"add_to_others": [0, 26, 26, 26], "subtract_from_self": [-26, 0, 0, 0]}.get(moon, [0, 26, 26, 26])
    assert state.last_hand_points[0].tolist() == score
    np.testing.assert_array_equal(paid[-1], expected[-1] - (np.array(score) - [26, 0, 0, 0]))
    np.testing.assert_array_equal(paid.sum(axis=0), -np.array(score))


# ---------------------------------------------------------------------------------------------
# Finished games and errors


def test_finished_games_pay_nothing() -> None:
    rules = HeartsRules(target_score=None, jack_of_diamonds=True)
    state = new_games(rules, batch_size=6, seed=4)
    rng = np.random.default_rng(4)
    while not state.done.all():
        state = step(state, sample_actions(state, rng))
    assert state.hand_over.all() and state.last_hand_points.any()
    again = step(state, np.zeros(6, np.int64))
    for mode in MODES:
        np.testing.assert_array_equal(step_rewards(state, state, mode), 0, err_msg=mode)
        np.testing.assert_array_equal(step_rewards(state, again, mode), 0, err_msg=mode)
        np.testing.assert_array_equal(step_rewards(again, again, mode), 0, err_msg=mode)


def test_mixed_batch_pays_only_live_games() -> None:
    """Games ending at different steps: once a game is over its row stays 0 (checked in ``play``)."""
    rules = HeartsRules(num_players=5, target_score=40)
    game = play(rules, batch=10, seed=9)
    check_sums(game)
    assert len({len(h) for h in game.hand_scores}) > 1, "the games should end after different numbers of hands"


@pytest.mark.parametrize("mode", ["bogus", "Points", "", "win "])
def test_unknown_mode_is_refused(mode: str) -> None:
    state = new_games(HeartsRules(), batch_size=2, seed=0)
    after = step(state, sample_actions(state, np.random.default_rng(0)))
    with pytest.raises(ValueError) as error:
        step_rewards(state, after, mode)
    message = str(error.value)
    for allowed in MODES:
        assert allowed in message
    assert repr(mode) in message
    assert tuple(REWARD_MODES) == MODES
