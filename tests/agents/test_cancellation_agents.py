"""The rule-based and search agents on Cancellation Hearts (``decks=2``, 6 to 11 players).

* Legality: the heuristic (every seat) and PIMC (one seat, with heuristic and random rollouts)
  play only legal cards over random two-deck hands for every player count; ``core.step``
  refuses an illegal card.
* Worlds: every world PIMC samples holds exactly the copies the observer has not seen (both
  copies counted), gives every seat its true number of cards and the kitty its size, breaks no
  known void and leaves the observer's passed copies with their receiver (less what it played).
* Determinized states: built from the true hands and kitty, the state equals the real one in
  every field the rules read, and plays on identically.
* Scripted positions for what cancellation changes in the heuristic: the twin of the winning
  card cancels it (a high card shed safely), the QS goes on an AS only when no AS can come to
  cancel it, and a pot with points makes a trick worth ducking.
* Strength (slow): the two-deck heuristic beats ``simple`` and PIMC beats the heuristic on
  duplicate deals at 8 players.
"""

from __future__ import annotations

import numpy as np
import pytest
from random_states import assert_world_is_the_state

from hearts_env import HeartsRules
from hearts_env.agents.rule_based.heuristic import HeuristicPolicy
from hearts_env.agents.rule_based.simple import SimplePolicy
from hearts_env.agents.search.pimc import PIMCPolicy, pimc_heuristic
from hearts_env.engine import cards
from hearts_env.engine.core import (
    PLAY,
    State,
    bits_to_mask,
    legal_mask,
    new_games,
    sample_actions,
    step,
)
from hearts_env.engine.infoset import infoset, world_states
from hearts_env.engine.kernels import remove_pile
from hearts_env.engine.worlds import sample_worlds

PLAYERS = [6, 7, 8, 9, 10, 11]
VOID_CARDS = np.array([[c // 13 == s for c in range(52)] for s in range(4)])  # (4, 52)


def copies(once: np.ndarray, twice: np.ndarray) -> np.ndarray:
    """(..., 52) int: copies of each card in (once, twice) bitboard pairs."""
    return bits_to_mask(once).astype(int) + bits_to_mask(twice)


def relative(values: np.ndarray, seat: np.ndarray) -> np.ndarray:
    P = values.shape[1]
    return np.take_along_axis(values, (seat[:, None].astype(np.int64) + np.arange(P)) % P, axis=1)


def play_states(rules: HeartsRules, batch: int, seed: int, every: int = 3) -> list[State]:
    """Play-phase states of ``batch`` games played by heuristic and random seats, one every ``every`` steps."""
    rng = np.random.default_rng(seed)
    heuristic = HeuristicPolicy()
    state = new_games(rules, batch_size=batch, seed=seed)
    kept = []
    for n in range(rules.num_players * (rules.hand_size + rules.pass_count)):
        if n % every == 0 and np.all(state.phase == PLAY):
            kept.append(state)
        actions = sample_actions(state, rng)
        smart = np.flatnonzero(state.to_play % 2 == 0)  # even seats play the heuristic: more voids, longer tricks
        if len(smart):
            actions[smart] = heuristic(infoset(state[smart]), legal_mask(state[smart]))
        state = step(state, actions)
    return kept


# ---------------------------------------------------------------------------------------------
# Legality


@pytest.mark.parametrize("num_players", PLAYERS)
def test_heuristic_plays_legal_cards_in_every_seat(num_players: int) -> None:
    rules = HeartsRules(num_players=num_players, decks=2, target_score=None, jack_of_diamonds=num_players % 2 == 1)
    for seed in range(2):
        state = new_games(rules, batch_size=300, seed=seed)
        agent = HeuristicPolicy()
        while not state.done.all():
            state = step(state, agent(infoset(state), legal_mask(state)))  # refuses an illegal card
        points = state.last_hand_points.sum(axis=1)
        assert np.all(
            np.isin(points, [52 - 20 * rules.jack_of_diamonds, 52 * (num_players - 1) - 20 * rules.jack_of_diamonds])
        )


def play_hand(rules: HeartsRules, agent, batch: int, seed: int) -> State:
    """One hand of ``batch`` games: ``agent`` at seat ``game mod P``, the heuristic elsewhere."""
    P = rules.num_players
    seat = np.arange(batch) % P
    state = new_games(rules, batch_size=batch, seed=seed)
    others = HeuristicPolicy()
    while not state.done.all():
        actions = others(infoset(state), legal_mask(state))
        mine = np.flatnonzero((state.to_play == seat) & ~state.done)
        if len(mine):
            actions[mine] = agent(infoset(state[mine]), legal_mask(state[mine]))
        state = step(state, actions)
    return state


@pytest.mark.parametrize("num_players", PLAYERS)
def test_pimc_plays_legal_cards(num_players: int) -> None:
    rules = HeartsRules(num_players=num_players, decks=2, target_score=None, jack_of_diamonds=num_players == 9)
    for agent in (pimc_heuristic(seed=num_players, worlds=2), PIMCPolicy(seed=num_players, worlds=2)):
        state = play_hand(rules, agent, batch=2 * num_players, seed=num_players)
        assert np.all(state.done)


@pytest.mark.parametrize("num_players", PLAYERS)
def test_pimc_plays_legal_cards_in_many_hands(num_players: int) -> None:
    rules = HeartsRules(num_players=num_players, decks=2, target_score=None, moon="shooter_choice")
    state = play_hand(rules, pimc_heuristic(seed=0, worlds=2), batch=500, seed=1)
    assert np.all(state.done)


# ---------------------------------------------------------------------------------------------
# Worlds and determinized states


def check_worlds(state: State, worlds: np.ndarray, observer: np.ndarray) -> None:
    """Every world (B, W, 2, P + 1) is a deal of the copies the observer has not seen that it
    cannot rule out."""
    info = infoset(state, observer)
    B, W, _, Q = worlds.shape
    P = Q - 1
    once, twice = worlds[:, :, 0], worlds[:, :, 1]
    assert np.all(twice & ~once == 0)
    np.testing.assert_array_equal(once[:, :, 0], np.broadcast_to(info.hand[:, None], (B, W)))
    np.testing.assert_array_equal(twice[:, :, 0], np.broadcast_to(info.hand2[:, None], (B, W)))
    # the other places hold exactly the unseen copies, both copies counted
    held = copies(once[:, :, 1:], twice[:, :, 1:]).sum(axis=2)  # (B, W, 52)
    unseen = copies(info.unseen, info.unseen2)[:, None, :]
    np.testing.assert_array_equal(held, np.broadcast_to(unseen, held.shape))
    # each seat its true number of cards, the kitty its size
    true_sizes = relative(np.bitwise_count(state.hands) + np.bitwise_count(state.hands2), observer)
    sizes = np.bitwise_count(once) + np.bitwise_count(twice)
    np.testing.assert_array_equal(sizes[:, :, :P], np.broadcast_to(true_sizes[:, None], (B, W, P)))
    np.testing.assert_array_equal(sizes[:, :, P], np.broadcast_to(info.kitty_size[:, None], (B, W)))
    # no card in a suit its seat is known void in
    void_cards = (info.voids[:, :, None] >> np.arange(4)[None, None, :] & 1).astype(bool) @ VOID_CARDS  # (B, P, 52)
    assert not np.any(bits_to_mask(once[:, :, :P]) & void_cards[:, None]), "a world breaks a known void"
    # the observer's passed copies, less what the receiver played, are with the receiver
    receiver = info.pass_offset % P
    rows = np.arange(B)
    kept = np.array(
        [
            remove_pile(info.passed[g], info.passed2[g], info.played[g, r], info.played2[g, r])
            for g, r in zip(rows, receiver, strict=True)
        ],
        dtype=np.uint64,
    ).reshape(B, 2)
    at_receiver = copies(once[rows, :, receiver], twice[rows, :, receiver])  # (B, W, 52)
    assert np.all(at_receiver >= copies(kept[:, 0], kept[:, 1])[:, None, :])


@pytest.mark.parametrize("num_players", PLAYERS)
@pytest.mark.parametrize("rejection_rounds", [4, 0])
def test_worlds_hold_exactly_the_unseen_copies(num_players: int, rejection_rounds: int) -> None:
    rules = HeartsRules(num_players=num_players, decks=2, target_score=None)
    rng = np.random.default_rng(num_players)
    for state in play_states(rules, batch=12, seed=num_players, every=4):
        for observer in (state.to_play, (state.to_play + 2) % num_players):  # the seat to act, and another
            info = infoset(state, observer)
            worlds = sample_worlds(info, 6, rng, rejection_rounds=rejection_rounds, proposals=2)
            check_worlds(state, worlds, observer)


@pytest.mark.parametrize("num_players", [6, 8, 11])
def test_determinize_rebuilds_the_true_state(num_players: int) -> None:
    rules = HeartsRules(num_players=num_players, decks=2, jack_of_diamonds=True, pass_count=2)
    rng = np.random.default_rng(0)
    for state in play_states(rules, batch=8, seed=num_players, every=5):
        info = infoset(state)
        seat = state.to_play
        world = np.concatenate(
            [
                np.stack([relative(state.hands, seat), relative(state.hands2, seat)], axis=1),
                state.kitty[:, :, None],
            ],
            axis=2,
        )  # (B, 2, P + 1)
        built = world_states(info, world[:, None])
        assert_world_is_the_state(state, built, rng)


# ---------------------------------------------------------------------------------------------
# Scripted positions (8 players: 13 cards each, no kitty; hand 1 is led by seat 0)


def deal8(fixed: dict[int, str], seed: int = 0) -> State:
    """One 8-player two-deck game, no passing: the seats of ``fixed`` hold those cards, the rest
    of the 104 copies are dealt at random to fill every hand to 13."""
    rng = np.random.default_rng(seed)
    hands = {s: cards.parse_cards(fixed.get(s, "")) for s in range(8)}
    pool = [c for c in range(52) for _ in range(2)]
    for held in hands.values():
        for c in held:
            pool.remove(c)
    rng.shuffle(pool)
    for s in range(8):
        while len(hands[s]) < 13:
            hands[s].append(pool.pop())
    rules = HeartsRules(num_players=8, decks=2, pass_count=0, target_score=None)
    return new_games(rules, deals=cards.deal_from_hands([hands[s] for s in range(8)], decks=2)[None], seed=0)


def play(state: State, script: str) -> State:
    for name in script.split():
        state = step(state, np.array([cards.parse_card(name)]))
    return state


def heuristic_choice(state: State) -> str:
    return cards.card_name(int(HeuristicPolicy()(infoset(state), legal_mask(state))[0]))


def test_heuristic_cancels_the_winning_card_with_its_twin() -> None:
    # Seat 0 leads KC, seat 1 follows 2C; seat 2 holds the other KC: playing it cancels both
    # kings, so it sheds a king without taking the trick (a one-deck duck would be the 4C).
    state = play(deal8({0: "KC", 1: "2C 2C", 2: "KC 4C 2S 3S 4S 5S 6S 7S 8S 9S TS 2D 3D"}), "KC 2C")
    assert heuristic_choice(state) == "KC"


def test_heuristic_puts_the_queen_on_an_ace_only_when_no_ace_can_cancel_it() -> None:
    # Seat 0 leads AS; seat 1 holds QS and 5S. With the other AS out, a later AS would cancel the
    # lead and leave the QS winning: keep it. Holding the other AS itself, it dumps the QS.
    others = "2C 3C 4C 5C 6C 7C 8C 9C TC JC 2D"
    out = play(deal8({0: "AS", 1: f"QS 5S {others}", 5: "AS"}), "AS")
    assert heuristic_choice(out) == "5S"
    held = play(deal8({0: "AS", 1: f"QS AS {others}"}), "AS")
    assert heuristic_choice(held) == "QS"


def test_heuristic_ducks_a_trick_that_takes_the_pot() -> None:
    # Last to play to a trick of low spades: with nothing at stake it takes the trick with its KS
    # (shedding it); with points in the pot (the next taker's) it ducks with the 2S.
    fixed = {s: f"{r}S" for s, r in zip(range(7), "7654334", strict=True)}
    fixed[7] = "KS 2S 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC"
    state = play(deal8(fixed), "7S 6S 5S 4S 3S 3S 4S")
    assert heuristic_choice(state) == "KS"
    # The same trick with an AH waiting in the pot (set by hand: the heuristic reads the pot only).
    pot = state.replace(pot=np.array([[1 << cards.parse_card("AH"), 0]], np.uint64))
    assert heuristic_choice(pot) == "2S"


# ---------------------------------------------------------------------------------------------
# Strength (the README's figures come from hearts-arena with more deals)


def duplicate_points(hero, opponent, num_players: int, deals: int, seed: int) -> tuple[float, float]:
    """Mean hand points of ``hero`` (one seat) against ``opponent`` (every other seat) over
    ``deals`` deals each played with the hero in every seat, and the standard error of the
    difference to the opponents' mean."""
    rules = HeartsRules(num_players=num_players, decks=2, target_score=None)
    P = num_players
    state = new_games(rules, keys=np.repeat(np.arange(deals, dtype=np.uint64) * 7919 + seed, P))
    hero_seat = np.tile(np.arange(P), deals)
    while not state.done.all():
        actions = opponent(infoset(state), legal_mask(state))
        mine = np.flatnonzero((state.to_play == hero_seat) & ~state.done)
        if len(mine):
            actions[mine] = hero(infoset(state[mine]), legal_mask(state[mine]))
        state = step(state, actions)
    points = state.last_hand_points.reshape(deals, P, P).astype(float)
    mine = np.einsum("dss->ds", points).mean(axis=1)
    theirs = (points.sum(axis=2).mean(axis=1) - mine) / (P - 1)
    diff = mine - theirs
    return diff.mean(), diff.std(ddof=1) / deals**0.5


@pytest.mark.slow
def test_heuristic_beats_simple_at_eight_players() -> None:
    diff, se = duplicate_points(HeuristicPolicy(), SimplePolicy(), num_players=8, deals=400, seed=0)
    assert diff < -3 * se, (diff, se)


@pytest.mark.slow
def test_pimc_beats_the_heuristic_at_eight_players() -> None:
    diff, se = duplicate_points(pimc_heuristic(seed=0, worlds=16), HeuristicPolicy(), num_players=8, deals=60, seed=0)
    assert diff < -2 * se, (diff, se)
