"""The OpenSpiel game ``hearts_env`` (``hearts_env.openspiel``): OpenSpiel's own random-simulation
test over player counts and two decks; move for move against OpenSpiel's ``hearts`` with its
default parameters on the same deals; the parameters, the deal's chance nodes, rewards and
returns (a game stopped at its most hands included), the tensors and strings against the core's
observations, ``resample_from_infostate`` in every phase, illegal actions refused with nothing
changed; OpenSpiel's ISMCTS playing whole games of 5-player Hearts, and ``evaluate_bots`` matches of
this project's agents wrapped as OpenSpiel bots (``hearts_env.agents.bridges.openspiel_bots``)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402
from openspiel_cards import DIRECTION_NAME, OS_TO_OURS, OURS_TO_OS  # noqa: E402

import hearts_env.envs.openspiel as hos_module  # noqa: E402
import hearts_env.openspiel as hos  # noqa: E402
from hearts_env import HeartsRules  # noqa: E402
from hearts_env.agents.bridges.openspiel_bots import AgentBot  # noqa: E402
from hearts_env.agents.specs import agent_from_spec  # noqa: E402
from hearts_env.engine import cards  # noqa: E402
from hearts_env.engine.core import bits_to_cards  # noqa: E402
from hearts_env.engine.observation import ObservationLayout, observe  # noqa: E402
from hearts_env.play.policy import RandomPolicy  # noqa: E402

QS, AC = cards.parse_cards("QS AC")
HEARTS = [cards.card_id(cards.HEARTS, rank) for rank in range(2, 15)]


def load(**params) -> pyspiel.Game:
    return pyspiel.load_game(hos.GAME_NAME, params)


def chance(state: pyspiel.State, rng: np.random.Generator) -> int:
    outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
    return int(rng.choice(outcomes, p=probabilities))


def random_step(state: pyspiel.State, rng: np.random.Generator) -> pyspiel.State:
    """One random chance outcome or legal card, applied (the state itself returned)."""
    state.apply_action(chance(state, rng) if state.is_chance_node() else int(rng.choice(state.legal_actions())))
    return state


def random_play(state: pyspiel.State, rng: np.random.Generator, stop=lambda state: False) -> pyspiel.State:
    """Random chance outcomes and legal cards until the end of the game (or ``stop(state)``)."""
    while not state.is_terminal() and not stop(state):
        random_step(state, rng)
    return state


def random_states(game: pyspiel.Game, seed: int, every: int = 7) -> list[pyspiel.State]:
    """Copies of the states of one random game, one every ``every`` actions, the last one too."""
    rng, state, kept = np.random.default_rng(seed), game.new_initial_state(), []
    while not state.is_terminal():
        if len(state.history()) % every == 0:
            kept.append(state.clone())
        random_step(state, rng)
    return [*kept, state]


# ---------------------------------------------------------------------------------------------
# OpenSpiel's own checks


@pytest.mark.parametrize(
    "params",
    [
        {"num_players": 3},
        {"num_players": 4},
        {"num_players": 5},
        {"num_players": 7},
        {"num_players": 8, "decks": 2},
    ],
    ids=lambda p: f"{p['num_players']} players" + (", two decks" if "decks" in p else ""),
)
def test_openspiels_random_simulation_test(params):
    """A whole game to 30 (a few hands): clones, serialization, legal sets, chance outcomes,
    observations of every seat, rewards summing to the returns within the utility bounds."""
    pyspiel.random_sim_test(load(target_score=30, **params), num_sims=1, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize(
    "params",
    [
        {"num_players": 3},
        {"num_players": 4, "jack_of_diamonds": True, "moon": "shooter_choice"},
        {"num_players": 5, "pass_cycle": "left/none", "queen_breaks_hearts": False},
        {"num_players": 7, "no_points_on_first_trick": False, "moon": "subtract_from_self"},
        {"num_players": 8, "decks": 2},
        {"num_players": 11, "decks": 2, "jack_of_diamonds": True},
    ],
)
def test_openspiels_random_simulation_test_on_whole_games_to_100(params):
    pyspiel.random_sim_test(load(**params), num_sims=2, serialize=True, verbose=False)


# ---------------------------------------------------------------------------------------------
# Against OpenSpiel's hearts

# OpenSpiel's hearts with its default parameters is our game with these knobs: pass_cards=True
# (pass_count=3), no_pts_on_first_trick=True (no_points_on_first_trick), must_break_hearts=True,
# can_lead_any_club=False (the 2C leads) and avoid_all_tricks_bonus=False are our rules,
# qs_breaks_hearts=True (queen_breaks_hearts), jd_bonus=False (jack_of_diamonds), its moon is our
# moon="add_to_others", it plays one 4-player hand (target_score=0) after drawing the pass direction
# by chance (our pass_cycle is set to the direction it drew). One default has no counterpart:
# can_lead_hearts_instead_of_qs=False makes a leader holding only hearts and the QS, hearts not
# broken, lead the QS, where our rules let it lead a heart too: the one place the legal sets differ.
OURS_FOR_OPENSPIEL_DEFAULTS = {
    "num_players": 4,
    "pass_count": 3,
    "no_points_on_first_trick": True,
    "queen_breaks_hearts": True,
    "jack_of_diamonds": False,
    "moon": "add_to_others",
    "target_score": 0,
    "decks": 1,
}


def deals(rng: np.random.Generator, n: int, stacked: bool) -> list[list[int]]:
    """Deals as chance actions in our card ids (the k-th card to seat k mod 4, as both deal).
    ``stacked``: a seat gets the AC, the QS and 11 hearts, so that without a pass it takes the
    first trick and then leads from only hearts and the QS before hearts are broken."""
    out = []
    for _ in range(n):
        order = rng.permutation(52)
        if stacked:
            seat = int(rng.integers(4))
            mine = [AC, QS, *rng.choice(HEARTS, 11, replace=False)]
            rest = rng.permutation(np.setdiff1d(np.arange(52), mine))
            hands = [list(rest[13 * i : 13 * i + 13]) for i in range(3)]
            hands.insert(seat, list(rng.permutation(mine)))
            order = np.array([hands[k % 4][k // 4] for k in range(52)])
        out.append([int(c) for c in order])
    return out


def only_hearts_and_the_queen_lead(state: hos.HeartsState) -> bool:
    table = state.core_state
    hand = set(bits_to_cards(table.hands[0, table.to_play[0]]))
    return table.trick_size[0] == 0 and not table.hearts_broken[0] and QS in hand and hand <= {QS, *HEARTS}


def test_move_for_move_against_openspiels_hearts_with_its_defaults():
    theirs = pyspiel.load_game("hearts")
    assert theirs.get_parameters() == {
        "avoid_all_tricks_bonus": False,
        "can_lead_any_club": False,
        "can_lead_hearts_instead_of_qs": False,
        "jd_bonus": False,
        "must_break_hearts": True,
        "no_pts_on_first_trick": True,
        "pass_cards": True,
        "qs_breaks_hearts": True,
    }
    ours = {d: load(**OURS_FOR_OPENSPIEL_DEFAULTS, pass_cycle=name) for d, name in DIRECTION_NAME.items()}
    rng = np.random.default_rng(0)
    games = [(d, deal) for d in range(4) for deal in deals(rng, 40, stacked=False)]
    games += [(0, deal) for deal in deals(rng, 10, stacked=True)]  # no pass: the QS lead comes up
    moves = queen_leads = 0
    for direction, deal in games:
        their, our = theirs.new_initial_state(), ours[direction].new_initial_state()
        their.apply_action(direction)
        for card in deal:
            their.apply_action(int(OURS_TO_OS[card]))
            our.apply_action(card)
        while not their.is_terminal():
            assert our.current_player() == their.current_player()
            mine, other = set(OURS_TO_OS[our.legal_actions()].tolist()), set(their.legal_actions())
            if mine != other:  # the default without a counterpart, and nothing else
                assert only_hearts_and_the_queen_lead(our) and other == {int(OURS_TO_OS[QS])} < mine, str(our)
                queen_leads += 1
            card = int(rng.choice(sorted(mine & other)))
            their.apply_action(card)
            our.apply_action(int(OS_TO_OURS[card]))
            moves += 1
        assert our.is_terminal()
        assert our.returns() == [r - 26 for r in their.returns()]  # minus points; theirs 26 - points
    assert moves == len(games) * 52 + 3 * 40 * 12 and queen_leads >= 10


# ---------------------------------------------------------------------------------------------
# Parameters, chance, rewards


def test_every_knob_is_a_parameter_with_its_default():
    assert hos.PARAMETERS == {**HeartsRules().to_dict(), "pass_cycle": "standard"}
    assert load().rules == HeartsRules()
    game = load(num_players=5, pass_cycle="left/none", target_score=0, moon="shooter_choice", jack_of_diamonds=True)
    assert game.rules == HeartsRules(
        num_players=5, pass_cycle=("left", "none"), target_score=None, moon="shooter_choice", jack_of_diamonds=True
    )
    for rules in (game.rules, HeartsRules(num_players=11, decks=2, pass_count=0), HeartsRules(target_score=42)):
        assert load(**hos.parameters(rules)).rules == rules
        again = pyspiel.load_game(str(load(**hos.parameters(rules))))  # the game string reads back
        assert again.rules == rules


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"num_players": 9}, "num_players"),
        ({"num_players": 5, "decks": 2}, "num_players"),
        ({"moon": "both"}, "moon"),
        ({"pass_cycle": "left/up"}, "pass_cycle"),
        ({"pass_count": 20}, "pass_count"),
        ({"target_score": -1}, "target_score"),
    ],
)
def test_a_bad_parameter_is_refused_naming_its_knob(params, named):
    with pytest.raises(ValueError, match=named):
        load(**params)


def test_a_target_score_beyond_the_games_length_is_refused_naming_the_bound():
    with pytest.raises(ValueError, match=r"target_score must be at most 1,000,000 .*got 1000000000"):
        load(target_score=10**9)
    longest = load(num_players=11, decks=2, pass_count=9, target_score=hos.MAX_TARGET_SCORE)
    assert longest.max_game_length() + longest.max_chance_nodes_in_history() < 2**31
    assert longest.max_history_length() > 0


@pytest.mark.parametrize("cycle", ["left,right,none", " left / right / none ", "left/right/none"])
def test_every_accepted_pass_cycle_reads_back_from_the_game_string_and_serialization(cycle):
    game = load(pass_cycle=cycle, num_players=5, target_score=0)
    assert game.rules.pass_cycle == ("left", "right", "none")
    assert game.get_parameters()["pass_cycle"] == "left/right/none"
    assert pyspiel.load_game(str(game)).rules == game.rules
    state = random_play(game.new_initial_state(), np.random.default_rng(12), stop=lambda s: len(s.history()) > 60)
    game_again, state_again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert game_again.rules == game.rules and str(state_again) == str(state)
    assert state_again.history() == state.history()


def test_unknown_and_mistyped_parameters_are_openspiels_errors():
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'players'"):
        load(players=4)
    with pytest.raises(pyspiel.SpielError, match="num_players"):
        load(num_players="5")


def test_sizes_and_bounds():
    game = load()
    assert (game.num_distinct_actions(), game.max_chance_outcomes(), game.num_players()) == (52, 52, 4)
    assert hos.max_hands(game.rules) == 16  # 4 x 100 / 26, rounded up
    assert game.max_game_length() == 16 * 4 * (3 + 13) and game.max_chance_nodes_in_history() == 16 * 52
    assert (game.min_utility(), game.max_utility()) == (-(99 + 26), 0)
    jd = load(jack_of_diamonds=True, moon="subtract_from_self", num_players=8, decks=2, target_score=50)
    assert hos.max_hands(jd.rules) == 13  # 8 x 50 / (52 - 20)
    assert (jd.min_utility(), jd.max_utility()) == (-(49 + 52), 13 * (20 + 52))
    assert game.information_state_tensor_shape() == [ObservationLayout(game.rules, history=True).size]
    assert game.observation_tensor_shape() == [ObservationLayout(game.rules).size]


@pytest.mark.parametrize("params", [{"num_players": 5}, {"num_players": 7, "decks": 2}])
def test_the_deal_is_card_by_card_with_the_copies_left(params):
    game = load(pass_cycle="none", **params)
    rules, state = game.rules, game.new_initial_state()
    deck = cards.deck(rules.num_players, rules.decks)
    rng, dealt = np.random.default_rng(1), []
    while state.is_chance_node():
        left = np.bincount(deck, minlength=52) - np.bincount(dealt, minlength=52)
        assert state.chance_outcomes() == [(int(c), left[c] / left.sum()) for c in np.flatnonzero(left)]
        dealt.append(chance(state, rng))
        state.apply_action(dealt[-1])
    assert len(dealt) == len(deck) and state.history() == dealt
    table, P = state.core_state, rules.num_players
    seated = P * rules.hand_size
    for seat in range(P):
        twice = bits_to_cards(table.hands2[0, seat]) if rules.decks == 2 else []
        assert sorted(bits_to_cards(table.hands[0, seat]) + twice) == sorted(dealt[seat:seated:P])
    kitty = sorted(bits_to_cards(table.kitty[0, 0]) + bits_to_cards(table.kitty[0, 1])) if rules.decks == 2 else []
    assert kitty == sorted(dealt[seated:])
    if rules.decks == 1:  # no pass: the holder of the lowest club leads it
        assert state.current_player() == dealt.index(cards.lowest_club(P)) % P
        assert state.legal_actions() == [cards.lowest_club(P)]


def test_rewards_at_hand_ends_sum_to_the_returns():
    game = load(num_players=4, jack_of_diamonds=True)
    rng, state = np.random.default_rng(2), game.new_initial_state()
    total, paid, hands = np.zeros(4), 0, 0
    while not state.is_terminal():
        if not state.is_chance_node():
            rewards = np.array(state.rewards())
            total += rewards
            paid += rewards.any()
            assert np.array_equal(total, state.returns())
        before = state.core_state
        random_step(state, rng)
        if state.is_chance_node() and not before.hand_over[0] and state.core_state.hand_over[0]:
            hands += 1
            assert np.array_equal(state.rewards(), -state.core_state.last_hand_points[0])
    total += state.rewards()
    assert np.array_equal(total, state.returns()) and np.array_equal(state.returns(), -state.core_state.scores[0])
    assert state.core_state.done[0] and hands >= 2 and paid == hands


def test_a_game_stops_after_its_most_hands():
    """A moon under subtract_from_self keeps every total below a target of 1: the core would deal
    a second hand, the game stops after its one (``max_hands``)."""
    game = load(moon="subtract_from_self", target_score=1, pass_cycle="none")
    assert hos.max_hands(game.rules) == 1
    state, rng = game.new_initial_state(), np.random.default_rng(0)
    clubs = [cards.card_id(cards.CLUBS, rank) for rank in range(2, 15)]
    rest = iter(rng.permutation(np.setdiff1d(np.arange(52), clubs)).tolist())
    for k in range(52):  # seat 0 holds every club: it leads the 2C and takes every trick
        state.apply_action(clubs[k // 4] if k % 4 == 0 else next(rest))
    random_play(state, rng)
    assert state.is_terminal() and state.returns() == [26.0, 0.0, 0.0, 0.0]
    assert not state.core_state.done[0] and state.between_hands()
    assert "stopped after 1 hands" in state.information_state_string(0)
    assert not np.any(state.information_state_tensor(0)) and not np.any(state.observation_tensor(1))


# ---------------------------------------------------------------------------------------------
# Observations


@pytest.mark.parametrize("params", [{"num_players": 4}, {"num_players": 8, "decks": 2}])
def test_tensors_are_the_cores_observations(params):
    game = load(target_score=30, **params)
    layouts = {history: ObservationLayout(game.rules, history=history) for history in (False, True)}
    observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    assert list(observer.dict) == list(layouts[True].sections)
    checked = 0
    for state in random_states(game, seed=3):
        for player in range(game.num_players()):
            info, obs = state.information_state_tensor(player), state.observation_tensor(player)
            if state.between_hands():
                assert not np.any(info) and not np.any(obs)
                continue
            assert np.array_equal(info, observe(state.core_state, player, layouts[True])[0])
            assert np.array_equal(obs, observe(state.core_state, player, layouts[False])[0])
            observer.set_from(state, player)
            assert np.array_equal(observer.tensor, info)
            checked += 1
    assert checked > 50


def test_an_information_state_string_changes_with_every_action_and_holds_the_tricks():
    game = load(num_players=4, target_score=0)
    state, rng = game.new_initial_state(), np.random.default_rng(4)
    random_play(state, rng, stop=lambda s: not s.is_chance_node())
    seen: list[set[str]] = [set() for _ in range(4)]
    while not state.is_terminal():
        for player in range(4):
            text = state.information_state_string(player)
            assert text not in seen[player]
            seen[player].add(text)
        last = state
        state = random_step(state.clone(), rng)
    table = last.core_state
    first = table.tricks[0, 0]
    order = [(int(table.trick_leaders[0, 0]) + i) % 4 for i in range(4)]
    trick = "trick 1: " + " ".join(f"{s}:{cards.card_name(first[s])}" for s in order)
    assert all(trick in last.information_state_string(p) for p in range(4))
    assert "trick 1:" not in last.observation_string(0)


def test_only_one_seats_view_is_observed():
    game = load()
    for kind in (
        pyspiel.IIGObservationType(public_info=False, perfect_recall=False),
        pyspiel.IIGObservationType(perfect_recall=True, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS),
    ):
        with pytest.raises(ValueError, match="one seat's view"):
            make_observation(game, kind)


# ---------------------------------------------------------------------------------------------
# Resampling


@pytest.mark.parametrize(
    "params", [{"num_players": 4}, {"num_players": 5, "target_score": 0}, {"num_players": 8, "decks": 2}]
)
def test_a_resampled_state_looks_the_same_to_the_player(params):
    game = load(**{"target_score": 30, **params})
    P = game.num_players()
    values = iter(np.random.default_rng(5).random(100_000))
    phases, changed, resampled = set(), 0, 0
    for state in random_states(game, seed=6, every=13)[:-1]:
        phases.add("deal" if state.is_chance_node() else "pass" if state.core_state.phase[0] == 0 else "play")
        for player in range(P):
            other = state.resample_from_infostate(player, lambda: next(values))
            assert other.information_state_string(player) == state.information_state_string(player)
            assert other.information_state_tensor(player) == state.information_state_tensor(player)
            assert other.observation_tensor(player) == state.observation_tensor(player)
            assert other.current_player() == state.current_player()
            assert len(other.history()) == len(state.history())
            if player == state.current_player():
                assert other.legal_actions() == state.legal_actions()
            changed += str(other) != str(state)  # str: every seat's cards (during a deal, so far)
            resampled += 1
            again = state.resample_from_infostate(player, lambda: 0.5)
            assert str(again) == str(state.resample_from_infostate(player, lambda: 0.5))
            rng = np.random.default_rng(player)
            for _ in range(2 * P * game.rules.hand_size):  # the world plays on by the rules
                if not other.is_terminal():
                    random_step(other, rng)
    print(f"{changed} of {resampled} resampled states differ")
    assert phases == {"deal", "pass", "play"} and changed > 0.8 * resampled


def test_a_game_with_a_belief_resamples_with_it():
    """Inference as an option: the play-phase worlds drawn with the game's ``belief`` (here the
    shipped belief model), each still one the player cannot tell from the state."""
    from hearts_env.agents.search.belief import BeliefModel

    game = load(target_score=30)
    model, asked = BeliefModel.load(), []

    def belief(info):
        asked.append(info.batch_size)
        return model.weights(info)

    game.belief = belief
    values = iter(np.random.default_rng(7).random(10_000))
    for state in random_states(game, seed=8, every=13)[:-1]:
        if state.is_chance_node() or state.core_state.phase[0] != 1:
            continue
        for player in range(4):
            other = state.resample_from_infostate(player, lambda: next(values))
            assert other.information_state_string(player) == state.information_state_string(player)
            assert other.observation_tensor(player) == state.observation_tensor(player)
    assert len(asked) > 8


@pytest.mark.parametrize("number", [float("nan"), -1.0, 1.5, "0.5", None, True])
def test_a_sampler_that_gives_no_probability_is_refused_naming_it(number) -> None:
    state = random_play(
        load(target_score=0).new_initial_state(), np.random.default_rng(1), stop=lambda s: len(s.history()) > 60
    )
    with pytest.raises(ValueError, match=r"probability_sampler must give a number in \[0, 1\)"):
        state.resample_from_infostate(0, lambda: number)


def test_numpy_parameters_make_a_game() -> None:
    assert hos.HeartsGame({"pass_count": np.int64(2), "num_players": np.int32(5)}).rules.pass_count == 2


def test_a_resampled_pass_keeps_each_seats_cards_and_picks_counted():
    game = load(num_players=8, decks=2)
    state, rng = game.new_initial_state(), np.random.default_rng(7)
    random_play(state, rng, stop=lambda s: not s.is_chance_node() and s.current_player() == 3)
    table = state.core_state
    assert table.phase[0] == 0 and table.to_play[0] == 3
    other = state.resample_from_infostate(5, lambda: 0.25).core_state

    def count(t, field):
        return np.bitwise_count(getattr(t, field)[0]) + np.bitwise_count(getattr(t, field + "2")[0])

    for field in ("hands", "passed"):
        assert np.array_equal(count(other, field), count(table, field))
    assert np.bitwise_count(other.kitty[0]).sum() == np.bitwise_count(table.kitty[0]).sum()
    for field in ("hands", "hands2", "passed", "passed2"):
        assert getattr(other, field)[0, 5] == getattr(table, field)[0, 5]  # the player's own
    every = [
        bits_to_cards(getattr(t, f)[0, s])
        for t in (other,)
        for f in ("hands", "hands2", "passed", "passed2")
        for s in range(8)
    ]
    assert sorted(sum(every, []) + bits_to_cards(other.kitty[0, 0]) + bits_to_cards(other.kitty[0, 1])) == sorted(
        cards.deck(8, 2).tolist()
    )


def replayed(game: pyspiel.Game, history: list[int]) -> pyspiel.State:
    state = game.new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


@pytest.mark.parametrize(
    "params",
    [
        {"num_players": 4, "target_score": 30},
        {"num_players": 3, "pass_cycle": "right", "target_score": 0},
        {"num_players": 8, "decks": 2, "target_score": 0},
    ],
    ids=["4 players, hands to 30", "3 players, one hand", "8 players, two decks"],
)
def test_a_resampled_states_history_replays_to_it(params):
    """OpenSpiel's hearts makes a resampled state from a history: here too, the resampled state's
    history played from the start gives that state, every seat's hand, pass and view, and the
    resampled seat's view is the original's (the deal, the other seats' passes differ)."""
    game = load(**params)
    P = game.num_players()
    values = iter(np.random.default_rng(10).random(100_000))
    checked, passes_differ = 0, 0
    for state in random_states(game, seed=11, every=9)[1:-1]:
        player = len(state.history()) % P
        other = state.resample_from_infostate(player, lambda: next(values))
        again = replayed(game, other.history())
        assert again.history() == other.history() and again.current_player() == other.current_player()
        assert np.array_equal(again.core_state.data, other.core_state.data)  # hands, passes, tricks, totals
        assert str(again) == str(other)
        for seat in range(P):
            assert again.information_state_string(seat) == other.information_state_string(seat)
            assert again.observation_string(seat) == other.observation_string(seat)
        assert again.rewards() == other.rewards() and again.returns() == other.returns()
        assert other.information_state_string(player) == state.information_state_string(player)
        if not state.is_chance_node():
            passes_differ += not np.array_equal(other.core_state.passed, state.core_state.passed)
        checked += 1
    assert checked >= 10 and passes_differ >= 1


# ---------------------------------------------------------------------------------------------
# Bad input


def test_an_illegal_action_is_refused_and_changes_nothing():
    game = load(pass_cycle="none")
    state, rng = game.new_initial_state(), np.random.default_rng(8)
    random_play(state, rng, stop=lambda s: not s.is_chance_node())
    leader = state.current_player()
    held = bits_to_cards(state.core_state.hands[0, leader])
    other_seat = bits_to_cards(state.core_state.hands[0, (leader + 1) % 4])
    before = (str(state), state.history(), state.legal_actions(), state.information_state_string(leader))
    for card, why in ((held[-1], "must be led with 2C"), (other_seat[0], f"seat {leader} does not hold it")):
        with pytest.raises(ValueError, match=f"{cards.card_name(card)} is illegal: .*{why}"):
            state.apply_action(card)
        assert (str(state), state.history(), state.legal_actions(), state.information_state_string(leader)) == before
    with pytest.raises(ValueError, match="not a card id"):
        state.apply_action(60)
    assert all(state.legal_actions(p) == [] for p in range(4) if p != leader)
    dealing = game.new_initial_state()
    dealing.apply_action(QS)
    with pytest.raises(ValueError, match="deal: QS is dealt already"):
        dealing.apply_action(QS)
    assert dealing.history() == [QS]
    three = load(num_players=3).new_initial_state()
    missing = int(np.setdiff1d(np.arange(52), cards.deck(3))[0])
    with pytest.raises(ValueError, match=f"deal: {cards.card_name(missing)} is not in this table's deck"):
        three.apply_action(missing)
    assert three.history() == [] and len(three.chance_outcomes()) == 51
    over = random_play(game.new_initial_state(), rng)
    with pytest.raises(ValueError, match="the game is over"):
        over.apply_action(0)


@pytest.mark.parametrize("params", [{"target_score": 0}, {"num_players": 8, "decks": 2, "target_score": 0}])
def test_python_callers_get_pyspiels_legal_actions_and_chance_node(params):
    """The state answers ``legal_actions`` and ``is_chance_node`` itself for Python callers (no round
    trip through C++): what pyspiel's own methods give, for every player, at every node."""

    def pyspiels(state, *player):
        try:
            return pyspiel.State.legal_actions(state, *player)
        except pyspiel.SpielError:
            return "refused"

    def ours(state, *player):
        try:
            return state.legal_actions(*player)
        except pyspiel.SpielError:
            return "refused"

    game = load(**params)
    for state in random_states(game, seed=14, every=3):
        assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
        for player in [(), *[(p,) for p in range(-4, game.num_players())]]:
            assert ours(state, *player) == pyspiels(state, *player), (player, str(state))


def test_the_module_needs_openspiel_and_says_which_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    spec = importlib.util.spec_from_file_location("fresh_openspiel", hos_module.__file__)
    assert spec is not None and spec.loader is not None
    with pytest.raises(
        ImportError, match=r"^hearts_env.openspiel needs OpenSpiel: pip install 'hearts_env\[openspiel\]'$"
    ):
        spec.loader.exec_module(importlib.util.module_from_spec(spec))


@pytest.mark.processes
def test_importing_hearts_env_leaves_pyspiel_out():
    code = "import sys, hearts_env, hearts_env.envs.aec, hearts_env.envs.gym_env; print('pyspiel' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


# ---------------------------------------------------------------------------------------------
# OpenSpiel's algorithms and bots


def play_ismcts(game: pyspiel.Game, simulations: int, seed: int) -> pyspiel.State:
    """One game: OpenSpiel's (Python) ISMCTS at seat 0, uniformly random cards elsewhere."""
    random_state = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(1, random_state)
    bot = ismcts.ISMCTSBot(game, evaluator, 2.0, simulations, random_state=random_state)
    state, rng = game.new_initial_state(), np.random.default_rng(seed)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(chance(state, rng))
        elif state.current_player() == 0:
            state.apply_action(bot.step(state))  # its searches assert each sampled root looks the same
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_openspiels_mcts_and_ismcts_play_a_whole_hand():
    """A one-hand game declares terminal rewards, as OpenSpiel's hearts does, so its MCTSBot (which
    refuses any other) plays it; ISMCTS plays it beside it, random cards at the other seats."""
    game = load(target_score=0)
    assert game.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert load().get_type().reward_model == pyspiel.GameType.RewardModel.REWARDS  # a reward every hand
    random_state = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(1, random_state)
    bots = {
        0: mcts.MCTSBot(game, 2.0, 6, evaluator, random_state=random_state),
        1: ismcts.ISMCTSBot(game, evaluator, 2.0, 6, random_state=random_state),
    }
    state, rng = game.new_initial_state(), np.random.default_rng(13)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(chance(state, rng))
        elif state.current_player() in bots:
            state.apply_action(bots[state.current_player()].step(state))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert state.core_state.done[0] and len(state.history()) == 52 + 4 * (3 + 13)
    assert state.returns() == state.rewards() == [float(-t) for t in state.core_state.scores[0]]
    assert sum(state.returns()) in (-26, -78)  # 26 points, or a moon


def test_ismcts_plays_whole_games_of_five_player_hearts():
    game = load(num_players=5, target_score=0)
    for seed in range(3):
        state = play_ismcts(game, simulations=12, seed=seed)
        assert state.is_terminal() and state.core_state.done[0]
        assert state.returns() == [float(-t) for t in state.core_state.scores[0]]
        assert len(state.history()) == 50 + 5 * (3 + 10)


@pytest.mark.slow
def test_ismcts_plays_a_whole_game_to_100():
    state = play_ismcts(load(num_players=5), simulations=4, seed=0)
    assert state.core_state.done[0] and max(state.core_state.scores[0]) >= 100


def test_evaluate_bots_plays_a_match_of_the_agents():
    """Four one-hand games on each deal, the agents rotated through the seats: the heuristic takes
    fewer points than random play, every return is minus the game's points."""
    game = load(target_score=0)
    names = ["heuristic", "simple", "random", "pimc:worlds=4"]
    points = dict.fromkeys(names, 0.0)
    for deal in range(6):
        for shift in range(4):
            seats = names[shift:] + names[:shift]
            bots = [AgentBot(agent_from_spec(name, deal)) for name in seats]
            state = game.new_initial_state()
            returns = evaluate_bots(state, bots, np.random.default_rng(deal))
            assert returns == [float(-t) for t in state.core_state.scores[0]]
            for name, value in zip(seats, returns, strict=True):
                points[name] -= value
    assert points["heuristic"] < points["random"] - 60
    assert sum(points.values()) >= 24 * 26


def test_an_agent_bot_plays_the_seat_to_act_of_this_game_only():
    bot = AgentBot(RandomPolicy(seed=0))
    state = load().new_initial_state()
    with pytest.raises(ValueError, match="a seat to act"):
        bot.step(state)
    with pytest.raises(ValueError, match="plays the hearts_env game"):
        bot.step(pyspiel.load_game("hearts").new_initial_state())
    random_play(state, np.random.default_rng(9), stop=lambda s: not s.is_chance_node())
    assert bot.step(state) in state.legal_actions()
