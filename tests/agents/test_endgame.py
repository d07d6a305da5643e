"""Tests of ``hearts_env.agents.search.endgame``: the exact endgame and ``pimc-ppo``'s use of it.

* The solver against brute force: on the last 2 to 3 tricks of random 3- and 4-player deals (JD
  rule on and off, every moon rule, game totals that make ``shooter_choice`` choose), the hand
  score it finds for a random seat equals a plain enumeration of every legal line over the
  core's ``step`` and ``hand_score`` (paranoid and max-n); without its transposition table it
  finds the same; a scripted moon that only the right order of leads makes.
* The agent: ``pimc-ppo`` with an endgame plays legal cards, is reproducible with a seed, decides
  the hand's last tricks by the solver's values, and refuses bad options.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from hearts_env import HeartsRules
from hearts_env.agents import make_agent
from hearts_env.agents.search.endgame import SEARCHES, endgame_scores, solve
from hearts_env.agents.specs import agent_from_spec
from hearts_env.engine.cards import BIT, HEART_BITS, POINT_BITS, deck, parse_cards
from hearts_env.engine.core import (
    GAME_OVER,
    PLAY,
    State,
    hand_score,
    legal_mask,
    new_games,
    recompute_legal,
    sample_actions,
    step,
)
from hearts_env.engine.infoset import infoset
from hearts_env.engine.records import concatenate

HAND = HeartsRules(target_score=None)


def brute_force(state: State, decider: int, rules: HeartsRules, totals: np.ndarray, search: str) -> np.ndarray:
    """(P,) the hand scores of one game (a batch of one, one-hand rules) from every legal line over
    ``step``, scored under ``rules`` with the game ``totals``: paranoid (the decider minimises its
    score, the others maximise it; only the decider's entry is meant) or max-n (each seat
    minimises its own; ties to the card worst for the decider, then the lowest card)."""
    if state.phase[0] == GAME_OVER:
        return hand_score(rules, state.taken, totals)[0]
    mover = int(state.to_play[0])
    best: np.ndarray | None = None
    for card in np.flatnonzero(legal_mask(state)[0]):
        child = brute_force(step(state, np.array([card])), decider, rules, totals, search)
        if best is None:
            best = child
        elif search == "paranoid":
            if (child[decider] < best[decider]) if mover == decider else (child[decider] > best[decider]):
                best = child
        elif child[mover] < best[mover] or (child[mover] == best[mover] and child[decider] > best[decider]):
            best = child
    assert best is not None
    return best


def endgame_positions(rules: HeartsRules, count: int, tricks: int, seed: int) -> State:
    """``count`` games of ``rules`` (one deck, one hand) with ``tricks`` tricks left: random hands
    of the cards left, the cards gone taken at random, in half of the games all the point cards
    gone by one seat (so it may still shoot the moon); then up to a trick's cards played at random."""
    rng = np.random.default_rng(seed)
    P, H = rules.num_players, rules.hand_size
    state = new_games(rules, batch_size=count, seed=seed)
    hands, taken = np.zeros((count, P), np.uint64), np.zeros((count, P), np.uint64)
    broken = np.zeros(count, bool)
    for g in range(count):
        cards = rng.permutation(deck(P))
        for seat in range(P):
            hands[g, seat] = np.bitwise_or.reduce(BIT[cards[seat * tricks : (seat + 1) * tricks]])
        gone = cards[P * tricks :]
        takers = rng.integers(0, P, len(gone))
        if rng.random() < 0.5:
            takers[(BIT[gone] & POINT_BITS) != 0] = rng.integers(P)
        for seat in range(P):
            taken[g, seat] = np.bitwise_or.reduce(BIT[gone[takers == seat]], initial=np.uint64(0))
        broken[g] = np.any(BIT[gone] & HEART_BITS)
    leader = rng.integers(0, P, count)
    state = recompute_legal(
        state.replace(
            phase=PLAY, hands=hands, taken=taken, played=0, passed=0, trick=-1, trick_size=0,
            tricks_played=H - tricks, hearts_broken=broken, leader=leader, winner=leader, to_play=leader,
        )
    )  # fmt: skip
    played = rng.integers(0, P, count)  # cards of the first trick already played
    for n in range(P - 1):
        go = np.flatnonzero(played > n)
        data = state.data.copy()
        data[go] = step(state[go], sample_actions(state[go], rng)).data
        state = state.with_data(data)
    return state


@pytest.mark.parametrize(
    ("players", "jd", "moon", "totals"),
    [
        (4, False, "add_to_others", None),
        (4, True, "subtract_from_self", None),
        (3, False, "add_to_others", None),
        (3, True, "shooter_choice", (80, 99)),
        (4, False, "shooter_choice", (70, 99)),
    ],
)
def test_the_solver_agrees_with_brute_force(players, jd, moon, totals):
    """Every search, on the last 2 and 3 tricks; game totals near the target make ``shooter_choice``
    subtract for some moons. Some lines end with a moon (half the positions have every point card
    gone with one seat)."""
    rules = HeartsRules(num_players=players, jack_of_diamonds=jd, moon=moon, target_score=100 if totals else None)
    one_hand = dataclasses.replace(rules, target_score=None)
    rng = np.random.default_rng(players)
    moons = 0
    for tricks, count in ((2, 24), (3, 8)):
        state = endgame_positions(one_hand, count, tricks, seed=players * 10 + tricks)
        if totals:
            state = state.replace(scores=rng.integers(*totals, size=(state.batch_size, players)))
        seats = rng.integers(0, players, state.batch_size)
        for search in SEARCHES:
            found = endgame_scores(state, seats, rules, search)
            for g in range(state.batch_size):
                expected = brute_force(state[g : g + 1], seats[g], rules, state.scores[g : g + 1], search)
                assert found[g] == expected[seats[g]], (search, g)
                moons += search == "maxn" and np.ptp(expected) >= 26
    assert moons > 0  # some line ends with a moon


def test_the_table_changes_no_value():
    """On 4-trick endgames, with the table, without it, and with a tiny one whose entries keep
    replacing each other; the table saves positions."""
    state = endgame_positions(HAND, 24, 4, seed=7)
    seats = state.to_play
    for search in SEARCHES:
        (full, searched), (none, unaided), (tiny, _) = (solve(state, seats, None, search, b) for b in (16, 0, 2))
        np.testing.assert_array_equal(full, none)
        np.testing.assert_array_equal(tiny, none)
        assert searched < unaided


def scripted(hands: list[str]) -> State:
    """A 4-player state with ``hands`` left (two tricks: 11 played, each seat's 11 cards of them
    in ``played``), seat 0 to lead, every card played so far taken by seat 0."""
    held = [sum(int(BIT[c]) for c in parse_cards(hand)) for hand in hands]
    gone = [c for c in range(52) if not any(h >> c & 1 for h in held)]
    state = new_games(HAND, batch_size=1, seed=0).replace(
        phase=PLAY, to_play=0, leader=0, winner=0, trick=-1, trick_size=0, tricks_played=11, hearts_broken=True,
        passed=0, voids=0, hands=np.array([held], np.uint64),
        played=np.array([[sum(int(BIT[c]) for c in gone[s * 11 : s * 11 + 11]) for s in range(4)]], np.uint64),
        taken=np.array([[sum(int(BIT[c]) for c in gone), 0, 0, 0]], np.uint64),
    )  # fmt: skip
    return recompute_legal(state)


@pytest.mark.parametrize("search", list(SEARCHES))
def test_a_moon_made_by_the_order_of_the_leads(search):
    """Seat 0 has taken every point card but the AH, 3H and 4H; seat 3 holds the 4H and a club.
    Leading the AH first draws the 4H under it and the 3H then takes the last trick: the moon;
    the 3H first loses to the 4H. Seat 0 finds the moon; the others cannot stop it."""
    state = scripted(["AH 3H", "2C 3C", "2D 3D", "4H 6C"])
    others = state[[0, 0, 0]]
    assert endgame_scores(state, 0, HAND, search)[0] == 0
    assert list(endgame_scores(others, [1, 2, 3], HAND, search)) == [26, 26, 26]
    subtract = dataclasses.replace(HAND, moon="subtract_from_self")
    assert endgame_scores(state, 0, subtract, search)[0] == -26
    # A moon now costs the others nothing: max-n's seat 0 still shoots; paranoid's seat 0 leads the
    # 3H instead, to hand seat 3 the hearts (3 points).
    assert list(endgame_scores(others, [1, 2, 3], subtract, search)) == ([0, 0, 0] if search == "maxn" else [0, 0, 3])
    # shooter_choice: adding 26 would end the game (to 100) with seat 0 above the lowest: it subtracts.
    game = HeartsRules(moon="shooter_choice", target_score=100)
    assert endgame_scores(state.replace(scores=[[70, 80, 40, 60]]), 0, game, search)[0] == -26
    assert endgame_scores(state.replace(scores=[[10, 20, 30, 40]]), 0, game, search)[0] == 0
    lost = scripted(["AH 3H", "2C 3C", "2D 3D", "KH 4H"])  # seat 3 keeps a heart above the 3H: no moon
    assert endgame_scores(lost, 0, HAND, search)[0] == 24


def test_refuses_what_it_cannot_solve():
    state = endgame_positions(HAND, 2, 2, seed=0)
    with pytest.raises(ValueError, match="play-phase"):
        endgame_scores(new_games(HAND, batch_size=1, seed=0), 0)  # passing
    with pytest.raises(ValueError, match="seats must be in 0..3"):
        endgame_scores(state, 4)
    with pytest.raises(ValueError, match="search must be one of paranoid, maxn"):
        endgame_scores(state, 0, search="minimax")
    with pytest.raises(ValueError, match="one deck"):
        endgame_scores(new_games(HeartsRules(num_players=6, decks=2), batch_size=1, seed=0), 0)


# ---------------------------------------------------------------------------------------------
# pimc-ppo with an endgame


def late_positions(count: int, seed: int, tricks: int = 3) -> State:
    """States of ``count`` random games (default rules, one hand) within their last ``tricks``
    tricks, where the seat to act has more than one legal card."""
    rng = np.random.default_rng(seed)
    state = new_games(HAND, batch_size=count, seed=seed)
    picked = []
    for _ in range(52):
        mask = legal_mask(state)
        late = (state.phase == PLAY) & (HAND.hand_size - state.tricks_played <= tricks) & (mask.sum(axis=1) > 1)
        picked.append(state[np.flatnonzero(late & (rng.random(count) < 0.3))])
        state = step(state, sample_actions(state, rng))
    return concatenate(picked)


def test_pimc_ppo_solves_the_last_tricks_and_plays_legal_reproducible_cards():
    """Within ``endgame`` tricks of the end each candidate's value is the mean over the sampled
    worlds of the solver's score after it (the same worlds, drawn from the same seed); the cards
    are legal and the same for the same seed, with and without the value head for earlier tricks."""
    start = late_positions(32, seed=1)
    info, mask = infoset(start), legal_mask(start)
    agent, twin = (make_agent("pimc-ppo", seed=3, worlds=4, endgame=3) for _ in range(2))
    values = agent.evaluate(info, mask)
    game, card, worlds = twin.rollout_starts(info, mask)
    scores = endgame_scores(step(worlds, np.repeat(card, 4)), worlds.to_play, HAND)
    np.testing.assert_allclose(values[game, card], scores.reshape(-1, 4).mean(axis=1))
    for options in ({"endgame": 3}, {"endgame": 2, "rollout_tricks": 1, "endgame_search": "maxn"}):
        played = make_agent("pimc-ppo", seed=5, worlds=4, **options)(info, mask)
        assert np.all(mask[np.arange(len(mask)), played])
        np.testing.assert_array_equal(make_agent("pimc-ppo", seed=5, worlds=4, **options)(info, mask), played)
    early = late_positions(16, seed=2, tricks=HAND.hand_size)  # anywhere in the hand
    info, mask = infoset(early), legal_mask(early)
    played = make_agent("pimc-ppo", seed=5, worlds=4, endgame=2, rollout_tricks=1)(info, mask)
    assert np.all(mask[np.arange(len(mask)), played])


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ("endgame=-1", "endgame must be an int in 0..6"),
        ("endgame=7", "endgame must be an int in 0..6"),
        ("endgame=2.0", "endgame must be an int"),
        ("endgame=True", "endgame must be an int"),
        ("endgame=3,endgame_search=minimax", "endgame_search must be one of paranoid, maxn"),
    ],
)
def test_pimc_ppo_refuses_bad_endgame_options(options, fragment):
    with pytest.raises(ValueError, match=f"agent 'pimc-ppo:{options}': {fragment}"):
        agent_from_spec(f"pimc-ppo:{options}", 0)
