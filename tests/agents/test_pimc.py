"""Tests of ``hearts_env.agents.search.pimc``: the engine's sampled worlds it searches (``hearts_env.engine.worlds``),
determinized states, and the search agent.

* Worlds: over many random play-phase states for 3..7 players, every sampled deal keeps the
  observer's hand, leaves out every played card, gives each seat its true hand size, respects
  every known void and puts the observer's passed cards (unplayed) with their receiver; both by
  rejection and by the constructive fallback. Without voids the deal is uniform.
* Determinized states: built from the true hands, the state equals the real one in every field
  the rules read, and plays on identically.
* Rollouts: the compiled rollouts (simple and heuristic players, deterministic) give exactly the
  values of the same players stepped from Python over the same worlds; compiled random rollouts
  agree with Python ones within their noise.
* The agent: only legal cards over whole hands (passing included), obvious positions found,
  reproducible with a seed, and far better than random players.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from random_states import assert_world_is_the_state

from hearts_env import HeartsRules
from hearts_env.agents.rule_based.heuristic import HeuristicPolicy, Weights
from hearts_env.agents.rule_based.simple import SimplePolicy
from hearts_env.agents.search.pimc import PIMCPolicy, pass_high_cards, rollout
from hearts_env.engine import cards
from hearts_env.engine.cards import BIT
from hearts_env.engine.core import PLAY, State, hand_score, legal_mask, new_games, sample_actions, step
from hearts_env.engine.infoset import infoset, world_states
from hearts_env.engine.records import concatenate as concatenate_states
from hearts_env.engine.world_kernels import VOID_BITS
from hearts_env.engine.worlds import constraints, deal_constructive, deal_resampled, sample_worlds
from hearts_env.play.policy import RandomPolicy

PLAYERS = [3, 4, 5, 6, 7]
QS = cards.parse_card("QS")


def play_states(rules: HeartsRules, batch: int, seed: int, every: int = 3) -> list[State]:
    """Play-phase states of ``batch`` random games, one every ``every`` steps, to the hand's end."""
    rng = np.random.default_rng(seed)
    state = new_games(rules, batch_size=batch, seed=seed)
    kept = []
    for n in range(rules.num_players * (rules.hand_size + rules.pass_count)):
        if n % every == 0 and np.all(state.phase == PLAY):
            kept.append(state)
        state = step(state, sample_actions(state, rng))
    return kept


def absolute_to_relative(values: np.ndarray, seat: np.ndarray) -> np.ndarray:
    P = values.shape[1]
    return np.take_along_axis(values, (seat[:, None].astype(np.int64) + np.arange(P)) % P, axis=1)


def rules_for(P: int, **knobs) -> HeartsRules:
    return HeartsRules(num_players=P, target_score=None, **knobs)


# ---------------------------------------------------------------------------------------------
# Worlds


def check_worlds(state: State, hands: np.ndarray, observer: np.ndarray) -> None:
    """Every world (B, W, P relative) is a deal the observer cannot rule out."""
    info = infoset(state, observer)
    B, W, P = hands.shape
    true_rel = absolute_to_relative(state.hands, observer)
    np.testing.assert_array_equal(hands[:, :, 0], np.broadcast_to(info.hand[:, None], (B, W)))
    played = np.bitwise_or.reduce(info.played, axis=1)
    held = np.bitwise_or.reduce(hands, axis=2)
    # every card in exactly one place: the hands are disjoint and, with the played cards, make the deck
    assert np.all(np.bitwise_count(hands).sum(axis=2) == np.bitwise_count(held))
    assert np.all(held & played[:, None] == 0)
    deck = int(np.bitwise_or.reduce(BIT[cards.deck(P)]))
    assert np.all(held | played[:, None] == deck)
    np.testing.assert_array_equal(
        np.bitwise_count(hands), np.broadcast_to(np.bitwise_count(true_rel)[:, None], hands.shape)
    )
    assert np.all(hands & VOID_BITS[info.voids][:, None, :] == 0), "a world breaks a known void"
    receiver = info.pass_offset % P
    passed = info.passed & ~played
    at_receiver = hands[np.arange(B), :, receiver]  # (B, W)
    assert np.all(at_receiver & passed[:, None] == passed[:, None]), "a passed card is not with its receiver"
    # the true deal is one of the consistent deals
    assert np.all(true_rel & VOID_BITS[info.voids] == 0)


@pytest.mark.parametrize("P", PLAYERS)
@pytest.mark.parametrize(("rejection_rounds", "with_belief"), [(4, False), (0, False), (4, True)])
def test_worlds_are_consistent(P, rejection_rounds, with_belief):
    """By rejection, by the constructive fallback alone, and drawn towards a (random) belief."""
    rng = np.random.default_rng(P)
    for seed in range(2):
        for state in play_states(rules_for(P), batch=24, seed=100 * P + seed):
            for observer in (state.to_play, (state.to_play + 1) % P):  # the seat to act, and another
                info = infoset(state, observer)
                belief = rng.uniform(0.01, 1, (state.batch_size, P, 52)) if with_belief else None
                hands = sample_worlds(info, 8, rng, rejection_rounds=rejection_rounds, proposals=2, belief=belief)
                check_worlds(state, hands, observer)


def test_worlds_use_the_pass_and_hands_sizes():
    rules = rules_for(4)
    state = play_states(rules, batch=16, seed=5)[0]  # the first trick of hand 1: passed left
    info = infoset(state)
    known, need, unseen = constraints(info)
    assert np.all(info.pass_offset == 1)
    assert np.all(np.bitwise_count(known[:, 1]) == 3) and np.all(known[:, 1] == info.passed)
    assert np.all(need[:, 0] == 0) and np.all(need[:, 1] == 10)
    assert np.all(need.sum(axis=1) == np.bitwise_count(unseen))


def test_worlds_without_voids_are_uniform():
    """At the first lead no seat is known void: each unseen card goes to each seat with
    probability (seat's unseen places) / (unseen cards)."""
    rules = rules_for(4, pass_count=0)
    state = new_games(rules, batch_size=1, seed=11)
    info = infoset(state)
    _, need, unseen = constraints(info)
    hands = sample_worlds(info, 6000, np.random.default_rng(0))[0]  # (W, P)
    cards_unseen = np.flatnonzero((int(unseen[0]) >> np.arange(52)) & 1)
    freq = ((hands[:, :, None] >> cards_unseen.astype(np.uint64)) & np.uint64(1)).mean(axis=0)  # (P, cards)
    expected = need[0] / np.bitwise_count(unseen[0])
    assert np.abs(freq - expected[:, None]).max() < 0.03


def test_worlds_drawn_with_a_belief_follow_it():
    """At the first lead (no voids, no passes) a belief that weights one card w times at one seat
    makes the card's chance at seat r proportional to need[r] x weight[r]; the other cards stay
    near uniform. A belief of equal weights gives the uniform deal."""
    rules = rules_for(4, pass_count=0)
    state = new_games(rules, batch_size=1, seed=11)
    info = infoset(state)
    _, need, unseen = constraints(info)
    cards_unseen = np.flatnonzero((int(unseen[0]) >> np.arange(52)) & 1)
    card, other = cards_unseen[0], cards_unseen[1:]
    belief = np.ones((1, 4, 52))
    belief[0, 2, card] = 4.0
    hands = sample_worlds(info, 6000, np.random.default_rng(0), proposals=32, belief=belief)[0]  # (W, P)
    freq = ((hands[:, :, None] >> cards_unseen.astype(np.uint64)) & np.uint64(1)).mean(axis=0)  # (P, cards)
    weighted = need[0] * np.array([1, 1, 4, 1])
    assert np.abs(freq[:, 0] - weighted / weighted.sum()).max() < 0.03
    assert np.abs(freq[1:, 1:].mean(axis=1) - need[0, 1:] / len(cards_unseen)).max() < 0.03
    hands = sample_worlds(info, 6000, np.random.default_rng(0), belief=np.full((1, 4, 52), 0.3))[0]
    freq = ((hands[:, :, None] >> other.astype(np.uint64)) & np.uint64(1)).mean(axis=0)
    assert np.abs(freq - (need[0] / len(cards_unseen))[:, None]).max() < 0.03


@pytest.mark.parametrize(
    ("belief", "message"),
    [
        (np.ones((2, 4, 52)), "belief must have shape"),
        (np.zeros((1, 4, 52)), "positive finite"),
        (np.full((1, 4, 52), np.nan), "positive finite"),
    ],
)
def test_a_bad_belief_is_refused_before_any_draw(belief, message):
    info = infoset(play_states(rules_for(4), batch=1, seed=3)[0])
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=message):
        sample_worlds(info, 4, rng, belief=belief)
    assert rng.integers(2**63) == np.random.default_rng(0).integers(2**63)  # the generator untouched


def exact_marginals(card_ids: list[int], need: list[int], voids: list[int]) -> np.ndarray:
    """(cards, P): probability of each card at each seat, over every consistent deal (enumerated)."""
    P = len(need)
    counts = np.zeros((len(card_ids), P))
    for seats in itertools.product(range(P), repeat=len(card_ids)):
        if all(seats.count(r) == need[r] for r in range(P)) and not any(
            voids[r] >> (c // 13) & 1 for c, r in zip(card_ids, seats, strict=True)
        ):
            counts[np.arange(len(card_ids)), seats] += 1
    return counts / counts[0].sum()


def marginals(hands: np.ndarray, card_ids: list[int], weights: np.ndarray | None = None) -> np.ndarray:
    held = (hands[:, None, :] >> np.array(card_ids, np.uint64)[None, :, None]) & np.uint64(1)  # (n, cards, P)
    return np.average(held, axis=0, weights=weights)


# 9 unseen cards (3 clubs, 3 spades, 3 hearts) for seats 1..3; seat 1 void in hearts, seat 2 in clubs
SMALL = ([0, 1, 2, 26, 27, 28, 39, 40, 41], [0, 3, 3, 3], [0, 8, 1, 0])


def small_case(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    card_ids, need, voids = SMALL
    unseen = np.uint64(sum(1 << c for c in card_ids))
    return np.tile(need, (n, 1)), np.full(n, unseen), np.tile(np.array(voids, np.int64), (n, 1))


def test_constructive_deals_are_consistent_and_weighted_exactly():
    """The constructive sampler's log-probabilities are its true ones: reweighted by 1 / q its
    deals have the exact uniform marginals; resampling brings them close without weights."""
    card_ids = SMALL[0]
    exact = exact_marginals(*SMALL)
    rng = np.random.default_rng(0)
    hands, log_q = deal_constructive(*small_case(20_000), rng)
    assert np.all(np.bitwise_count(hands) == [0, 3, 3, 3])
    assert np.all(hands & VOID_BITS[np.array(SMALL[2])] == 0)
    assert np.abs(marginals(hands, card_ids, np.exp(-log_q)) - exact).max() < 0.02
    assert np.abs(marginals(hands, card_ids) - exact).max() > 0.05  # the proposal alone is biased
    resampled = deal_resampled(*small_case(5_000), rng, proposals=16)
    assert np.abs(marginals(resampled, card_ids) - exact).max() < 0.045


def test_constructive_fallback_is_forced_correctly():
    """A seat void in three suits must get exactly the cards of the fourth."""
    rules = rules_for(4)
    for state in play_states(rules, batch=64, seed=9, every=1):
        info = infoset(state)
        many = np.bitwise_count(info.voids) >= 2
        if many.any():
            hands = sample_worlds(info, 16, np.random.default_rng(0), rejection_rounds=0, proposals=2)
            check_worlds(state, hands, state.to_play)


# ---------------------------------------------------------------------------------------------
# Determinized states


@pytest.mark.parametrize("P", PLAYERS)
def test_determinize_rebuilds_the_true_state(P):
    rules = HeartsRules(num_players=P, jack_of_diamonds=P == 4, moon="shooter_choice")
    rng = np.random.default_rng(0)
    for state in play_states(rules, batch=16, seed=P):
        info = infoset(state)
        true_rel = absolute_to_relative(state.hands, state.to_play)
        built = world_states(info, true_rel[:, None, :])
        assert_world_is_the_state(state, built, rng)
        np.testing.assert_array_equal(built.voids | state.voids, built.voids)
        np.testing.assert_array_equal(infoset(built).voids, info.voids)
        np.testing.assert_array_equal(built.legal, info.legal)


def test_rollout_ends_every_hand():
    rules = rules_for(5)
    state = play_states(rules, batch=32, seed=3)[2]
    info = infoset(state)
    worlds = world_states(info, sample_worlds(info, 4, np.random.default_rng(0)))
    final = rollout(worlds, np.random.default_rng(1))
    assert final.batch_size == worlds.batch_size
    assert np.all(final.done) and np.all(np.bitwise_count(final.hands) == 0)
    np.testing.assert_array_equal(hand_score(rules, final.taken, worlds.scores).sum(axis=1) % 26, 0)
    final = rollout(worlds, np.random.default_rng(1), policy=RandomPolicy(0))
    assert np.all(final.done)


def from_python(policy):
    """The same player as a plain callable: PIMC steps its rollouts from Python."""
    return lambda info, mask: policy(info, mask)


@pytest.mark.parametrize(
    "P, knobs, objective",
    [
        (4, dict(jack_of_diamonds=True, target_score=60, moon="shooter_choice"), "points"),
        (3, dict(moon="subtract_from_self"), "margin"),
        (6, dict(jack_of_diamonds=True, no_points_on_first_trick=False), "points"),
        (7, dict(decks=2, jack_of_diamonds=True, target_score=80, moon="shooter_choice"), "points"),
    ],
)
@pytest.mark.parametrize("player", ["heuristic", "simple"])
def test_compiled_rollouts_equal_python_rollouts(P, knobs, objective, player):
    make = {"heuristic": lambda: HeuristicPolicy(weights=Weights(lead_heart=1.5)), "simple": SimplePolicy}[player]
    rules = HeartsRules(num_players=P, **knobs)
    states = play_states(rules, batch=6, seed=P)
    state = concatenate_states([states[1], states[len(states) // 2], states[-1]])
    state = state.replace(scores=np.arange(state.batch_size * P).reshape(-1, P) % 50)  # totals matter to moons
    info, mask = infoset(state), legal_mask(state)
    searched = mask.sum(axis=1) > 1
    info, mask = info[np.flatnonzero(searched)], mask[searched]
    compiled = PIMCPolicy(seed=5, worlds=6, rollouts=2, rollout=make(), objective=objective)
    python = PIMCPolicy(seed=5, worlds=6, rollouts=2, rollout=from_python(make()), objective=objective)
    np.testing.assert_array_equal(compiled.evaluate(info, mask), python.evaluate(info, mask))


def test_compiled_random_rollouts_agree_with_python_ones():
    rules = rules_for(4, jack_of_diamonds=True)
    state = play_states(rules, batch=4, seed=8)[6]
    info, mask = infoset(state), legal_mask(state)
    compiled = PIMCPolicy(seed=1, worlds=1500).evaluate(info, mask)
    python = PIMCPolicy(seed=1, worlds=1500, rollout=RandomPolicy(2)).evaluate(info, mask)
    # hand points range over -10..26: a mean over 1500 rollouts has a standard error under 0.3
    assert np.nanmax(np.abs(compiled - python)) < 1.2, (compiled[mask], python[mask])


# ---------------------------------------------------------------------------------------------
# The agent


def play_hand(rules: HeartsRules, agent, batch: int, seed: int, seat=None) -> tuple[State, np.ndarray]:
    """One hand of ``batch`` games: ``agent`` at ``seat`` (default: game index mod P), random elsewhere."""
    P = rules.num_players
    seat = np.arange(batch) % P if seat is None else np.broadcast_to(seat, (batch,))
    rng = np.random.default_rng(seed)
    state = new_games(rules, batch_size=batch, seed=seed)
    while not state.done.all():
        actions = sample_actions(state, rng)
        mine = np.flatnonzero(state.to_play == seat)
        if len(mine):
            sub = state[mine]
            actions[mine] = agent(infoset(sub), legal_mask(sub))
        state = step(state, actions)  # refuses any illegal card
    return state, seat


@pytest.mark.parametrize("P", PLAYERS)
def test_pimc_plays_only_legal_cards(P):
    rules = rules_for(P, jack_of_diamonds=P == 5, moon="shooter_choice" if P == 6 else "add_to_others")
    agent = PIMCPolicy(seed=P, worlds=4)
    for seed in range(2):
        state, _ = play_hand(rules, agent, batch=2 * P, seed=seed)
        assert np.all(state.done)


def test_pimc_with_a_policy_rollout_and_small_batches():
    rules = rules_for(4)
    agent = PIMCPolicy(seed=0, worlds=3, rollout=RandomPolicy(0), rollouts=2, max_batch=10)
    state, _ = play_hand(rules, agent, batch=3, seed=1)
    assert np.all(state.done)


def test_pimc_with_heuristic_rollouts():
    heuristic = pytest.importorskip("hearts_env.agents.rule_based.heuristic")
    agent = PIMCPolicy(seed=0, worlds=4, rollout=heuristic.HeuristicPolicy(seed=0))
    state, _ = play_hand(rules_for(4), agent, batch=4, seed=2)
    assert np.all(state.done)


def test_evaluate_scores_each_legal_card():
    rules = rules_for(4)
    state = play_states(rules, batch=8, seed=4)[5]
    info, mask = infoset(state), legal_mask(state)
    values = PIMCPolicy(seed=0, worlds=8, max_batch=16).evaluate(info, mask)
    np.testing.assert_array_equal(~np.isnan(values), mask)
    assert np.nanmin(values) >= 0 and np.nanmax(values) <= 26


def test_seeded_pimc_is_reproducible():
    rules = rules_for(4)
    state = play_states(rules, batch=16, seed=6)[4]
    info, mask = infoset(state), legal_mask(state)
    first = PIMCPolicy(seed=3, worlds=8)(info, mask)
    agent = PIMCPolicy(seed=99, worlds=8)
    agent.seed(3)
    np.testing.assert_array_equal(agent(info, mask), first)


def test_default_pass_gives_away_the_danger_cards():
    rules = HeartsRules()
    deal = cards.deal_from_hands(
        [
            "2C 3C 4C 5C 6C 2D 3D 4D 5D 2S QS AS 2H",
            "7C 8C 9C TC JC 6D 7D 8D 9D TD 3S 4S 3H",
            "QC KC AC JD QD KD AD 5S 6S 7S 8S 4H 5H",
            "9S TS JS KS 6H 7H 8H 9H TH JH QH KH AH",
        ]
    )
    state = new_games(rules, deals=deal[None], seed=0)
    picks = []
    for _ in range(3):
        card = pass_high_cards(infoset(state), legal_mask(state))
        picks.append(cards.card_name(int(card[0])))
        state = step(state, card)
    assert picks == ["QS", "AS", "6C"]  # then the highest rank; PIMC's pass phase uses it
    agent = PIMCPolicy(seed=0, worlds=2)
    assert cards.card_name(int(agent(infoset(state), legal_mask(state))[0])) == "JC"  # seat 1 picks


def scripted(hands: list[str], moves: list[str]) -> State:
    rules = HeartsRules(pass_count=0, target_score=None)
    state = new_games(rules, deals=cards.deal_from_hands(hands)[None], seed=0)
    for move in moves:
        state = step(state, np.array([cards.parse_card(move)]))
    return state


def test_pimc_dumps_the_queen_when_void():
    """Seat 3 is void in diamonds on a diamond trick it cannot win; it holds the QS with the AS and
    KS, so it throws the QS now rather than a club, a heart or a high spade."""
    state = scripted(
        [
            "2C 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
            "AC 6C 2D 2S 3S 4S 5S 6S 7S 8S 9S TS JS",
            "3C 4C 5C 2H 6H 7H 8H 9H TH JH QH KH AH",
            "7C 8C 9C TC JC QC KC QS KS AS 3H 4H 5H",
        ],
        ["2C", "AC", "3C", "7C", "2D", "2H"],
    )
    assert state.to_play[0] == 3 and state.trick_size[0] == 2
    for seed in range(3):
        card = PIMCPolicy(seed=seed, worlds=32)(infoset(state), legal_mask(state))
        assert cards.card_name(int(card[0])) == "QS"


def test_pimc_ducks_instead_of_winning_with_the_queen():
    """Seat 0 plays last to a spade trick (5S, 4S, a diamond): the QS would take it, 2S or 3S duck."""
    state = scripted(
        [
            "2C 8C 9C TC JC QC KC 2S 3S QS 2H 3H 4H",
            "AC 6C 7C 2D 5S 6S 7S 8S 9S TS JS KS AS",
            "3C 4C 5C 4S 5H 6H 7H 8H 9H TH JH QH KH",
            "3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD AH",
        ],
        ["2C", "AC", "3C", "3D", "5S", "4S", "4D"],
    )
    assert state.to_play[0] == 0 and state.trick_size[0] == 3
    agent = PIMCPolicy(seed=0, worlds=32)
    values = agent.evaluate(infoset(state), legal_mask(state))[0]
    assert values[QS] > max(values[cards.parse_card("2S")], values[cards.parse_card("3S")]) + 2
    for seed in range(3):
        agent.seed(seed)
        assert cards.card_name(int(agent(infoset(state), legal_mask(state))[0])) in ("2S", "3S")


@pytest.mark.parametrize("P", [3, 4, 6])
def test_pimc_beats_random_players(P):
    rules = rules_for(P)
    state, seat = play_hand(rules, PIMCPolicy(seed=0, worlds=16), batch=12 * P, seed=7)
    points = state.last_hand_points
    own = points[np.arange(state.batch_size), seat]
    others = (points.sum(axis=1) - own) / (P - 1)
    assert own.mean() < 0.5 * others.mean(), (own.mean(), others.mean())


def test_constructor_checks_its_knobs():
    with pytest.raises(ValueError, match="worlds"):
        PIMCPolicy(worlds=0)
    with pytest.raises(ValueError, match="objective"):
        PIMCPolicy(objective="win")
    rules = rules_for(4)
    state = play_states(rules, batch=4, seed=1)[3]
    other = infoset(state, (state.to_play + 1) % 4)
    with pytest.raises(ValueError, match="to act"):
        PIMCPolicy(worlds=2).evaluate(other, legal_mask(state))
    margin = PIMCPolicy(seed=0, worlds=4, objective="margin")
    assert np.all(legal_mask(state)[np.arange(4), margin(infoset(state), legal_mask(state))])


def test_pass_phase_states_are_refused_by_the_sampler():
    state = new_games(HeartsRules(), batch_size=2, seed=0)
    with pytest.raises(ValueError, match="play phase"):
        sample_worlds(infoset(state), 2, np.random.default_rng(0))
