"""The PettingZoo AEC environment: PettingZoo's API and seed checkers, reward accounting over whole
games, illegal moves (raw and wrapped), masks, rendering, seeding and a focused leak check."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from hearts_env.engine import cards, core
from hearts_env.engine.observation import ObservationLayout
from hearts_env.engine.rewards import REWARD_MODES
from hearts_env.engine.rules import HeartsRules
from hearts_env.envs import aec

# api_test warns about every dict observation of an env missing from its own list of classic envs.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be"),
]


def play(table, rng: np.random.Generator) -> tuple[dict[str, float], np.ndarray]:
    """Play a whole game with uniformly random legal cards. Returns each agent's rewards summed
    over its ``last()`` calls (its final one included) and the scores of the hands, (hands, P)."""
    totals = dict.fromkeys(table.possible_agents, 0.0)
    hands = []
    for agent in table.agent_iter():
        observation, reward, termination, truncation, _ = table.last()
        totals[agent] += reward
        action = None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"])))
        table.step(action)
        state = table.unwrapped.core_state
        if action is not None and state.hand_over[0]:
            hands.append(state.last_hand_points[0].copy())
    assert not table.agents
    return totals, np.array(hands)


def expected_totals(mode: str, hands: np.ndarray, state: core.State) -> np.ndarray:
    """What the reward mode says each seat's rewards sum to over the game."""
    P = hands.shape[1]
    if mode in ("points", "hand"):
        return -hands.sum(axis=0)
    if mode == "zero_sum":
        others = (hands.sum(axis=1, keepdims=True) - hands) / (P - 1)
        return (others - hands).sum(axis=0)
    winners = state.winners[0]
    return winners / winners.sum()


def moon_deal() -> np.ndarray:
    """A 4-player deal where seat 0 shoots the moon whatever anyone plays (with no pass): it holds
    the AC, which takes the first trick, and every spade but the 2S, so it wins every lead."""
    seat0 = ["AC"] + [rank + "S" for rank in "3456789TJQKA"]
    rest = [c for c in range(cards.NUM_CARDS) if cards.card_name(c) not in seat0]
    return cards.deal_from_hands([seat0, rest[0::3], rest[1::3], rest[2::3]])


# ---------------------------------------------------------------------------------------------
# PettingZoo's checkers


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_api_test_player_counts(num_players: int) -> None:
    api_test(aec.env(num_players=num_players), num_cycles=1000)  # plays a whole game


@pytest.mark.parametrize("reward", REWARD_MODES)
def test_api_test_reward_modes(reward: str) -> None:
    api_test(aec.env(reward=reward, jack_of_diamonds=True, moon="shooter_choice"), num_cycles=1000)


def test_api_test_raw_env_and_history() -> None:
    api_test(aec.raw_env(num_players=3, history=True), num_cycles=1000)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_seed_test(num_players: int) -> None:
    seed_test(lambda: aec.env(num_players=num_players))


@pytest.mark.parametrize("reward", REWARD_MODES)
def test_seed_test_reward_modes(reward: str) -> None:
    seed_test(lambda: aec.env(reward=reward, target_score=50))


def test_metadata_agents_and_spaces() -> None:
    table = aec.env(num_players=5, jack_of_diamonds=True)
    table.reset(seed=0)
    assert table.metadata == {
        "name": "hearts_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 4,
    }
    assert table.possible_agents == [f"player_{s}" for s in range(5)] == table.agents
    size = ObservationLayout(HeartsRules(num_players=5, jack_of_diamonds=True)).size
    for agent in table.agents:
        space = table.observation_space(agent)
        assert space["observation"].shape == (size,) and space["observation"].dtype == np.uint8
        assert space["action_mask"].shape == (52,) and space["action_mask"].dtype == np.int8
        assert table.action_space(agent).n == 52
        assert space.contains(table.observe(agent))


# ---------------------------------------------------------------------------------------------
# Rewards


@pytest.mark.parametrize("reward", REWARD_MODES)
def test_rewards_sum_to_what_the_mode_says(reward: str) -> None:
    rng = np.random.default_rng(1)
    setups = [
        {"num_players": 3},
        {"num_players": 4, "jack_of_diamonds": True, "moon": "shooter_choice"},
        {"num_players": 5, "moon": "subtract_from_self", "target_score": 60},
    ]
    for seed, knobs in enumerate(setups):
        table = aec.env(reward=reward, **knobs)
        table.reset(seed=seed)
        totals, hands = play(table, rng)
        state = table.unwrapped.core_state
        np.testing.assert_array_equal(hands.sum(axis=0), state.scores[0])
        expected = expected_totals(reward, hands, state)
        np.testing.assert_allclose([totals[a] for a in table.possible_agents], expected, atol=1e-4)


@pytest.mark.parametrize("reward", REWARD_MODES)
@pytest.mark.parametrize("moon", ["add_to_others", "subtract_from_self"])
def test_rewards_with_a_moon(reward: str, moon: str) -> None:
    rules = {"pass_cycle": ("none", "left", "right", "across"), "moon": moon}
    table = aec.env(reward=reward, **rules)
    table.reset(seed=3, options={"deals": moon_deal()})
    totals, hands = play(table, np.random.default_rng(3))
    assert hands[0].tolist() == ([0, 26, 26, 26] if moon == "add_to_others" else [-26, 0, 0, 0])
    expected = expected_totals(reward, hands, table.unwrapped.core_state)
    np.testing.assert_allclose([totals[a] for a in table.possible_agents], expected, atol=1e-4)


@pytest.mark.parametrize("reward", REWARD_MODES)
def test_one_hand_moon_rewards(reward: str) -> None:
    table = aec.env(reward=reward, pass_count=0, target_score=None)
    table.reset(seed=0, options={"deals": moon_deal()})
    totals, _ = play(table, np.random.default_rng(0))
    expected = {
        "points": [0, -26, -26, -26],
        "hand": [0, -26, -26, -26],
        "zero_sum": [26, -26 / 3, -26 / 3, -26 / 3],  # the shooter: (26 * 3) / 3 - 0; others (0 + 26 + 26) / 3 - 26
        "win": [1, 0, 0, 0],
    }
    np.testing.assert_allclose([totals[a] for a in table.possible_agents], expected[reward], atol=1e-5)


@pytest.mark.parametrize("reward", ["hand", "zero_sum"])
def test_each_agent_gets_what_built_up_since_its_last_move(reward: str) -> None:
    """Hand-end rewards reach each agent at its next ``last()``: the agent whose move ended the hand
    and the others alike, and nothing reaches an agent twice."""
    table = aec.env(reward=reward, num_players=3, target_score=60)
    table.reset(seed=5)
    rng = np.random.default_rng(5)
    P = 3
    completed: list[np.ndarray] = []  # hand scores, in order
    seen = dict.fromkeys(table.possible_agents, 0)  # hands paid to each agent so far
    for agent in table.agent_iter():
        observation, reward_now, termination, truncation, _ = table.last()
        seat = int(agent.split("_")[1])
        due = completed[seen[agent] :]
        seen[agent] = len(completed)
        if reward == "hand":
            expected = -sum(h[seat] for h in due)
        else:
            expected = sum((h.sum() - h[seat]) / (P - 1) - h[seat] for h in due)
        assert reward_now == pytest.approx(expected, abs=1e-5)
        action = None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"])))
        table.step(action)
        state = table.unwrapped.core_state
        if action is not None and state.hand_over[0]:
            completed.append(state.last_hand_points[0].copy())
    assert len(completed) >= 2 and all(n == len(completed) for n in seen.values())


def test_terminations_truncations_and_infos_at_game_end() -> None:
    table = aec.raw_env(num_players=4, target_score=None)
    table.reset(seed=2)
    rng = np.random.default_rng(2)
    while not any(table.terminations.values()):
        table.step(int(rng.choice(np.flatnonzero(table.observe(table.agent_selection)["action_mask"]))))
    state = table.core_state
    assert all(table.terminations.values()) and not any(table.truncations.values())
    for agent in table.agents:
        info = table.infos[agent]
        assert info == {
            "hand_number": 1,
            "scores": tuple(state.scores[0].tolist()),
            "last_hand_points": tuple(state.last_hand_points[0].tolist()),
        }
        assert not table.observe(agent)["action_mask"].any()
    with pytest.raises(ValueError, match="dead"):
        table.step(0)  # a dead agent may only step None
    for _ in range(4):
        table.step(None)
    assert table.agents == []


# ---------------------------------------------------------------------------------------------
# Illegal moves


def test_raw_env_refuses_an_illegal_card_and_changes_nothing() -> None:
    table = aec.raw_env(pass_count=0)
    deal = moon_deal()  # seat 1 holds the 2C, which must lead the first trick
    table.reset(seed=0, options={"deals": deal})
    assert table.agent_selection == "player_1"
    state, selection = table.core_state, table.agent_selection
    rewards, cumulative = dict(table.rewards), dict(table._cumulative_rewards)
    card = int(np.flatnonzero(deal == 1)[1])  # another card seat 1 holds
    name = cards.card_name(card)
    with pytest.raises(ValueError, match=f"player_1: {name} is illegal: the first trick must be led with 2C"):
        table.step(card)
    with pytest.raises(ValueError, match="does not hold"):
        table.step(cards.parse_card("AS"))
    for bad in (52, -1, None, 1.5):
        with pytest.raises(ValueError, match="card id"):
            table.step(bad)
    assert table.core_state is state and table.agent_selection == selection
    assert table.rewards == rewards and table._cumulative_rewards == cumulative
    table.step(np.int32(cards.parse_card("2C")))  # the legal card still goes through
    assert table.agent_selection == "player_2"


def test_raw_env_names_the_pass_rule() -> None:
    table = aec.raw_env()
    table.reset(seed=0)
    card = int(np.flatnonzero(table.observe("player_0")["action_mask"])[0])
    table.step(card)
    with pytest.raises(ValueError, match=f"{cards.card_name(card)} is illegal: seat 0 has already picked it"):
        table.step(card)


@pytest.mark.parametrize(("reward", "illegal_reward"), [("points", None), ("win", None), ("hand", -1.0)])
def test_wrapped_env_ends_the_game_on_an_illegal_card(reward: str, illegal_reward: float | None) -> None:
    table = aec.env(reward=reward, illegal_reward=illegal_reward)
    table.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(30):  # into the play phase
        table.step(int(rng.choice(np.flatnonzero(table.last()[0]["action_mask"]))))
    cheater = table.agent_selection
    mask = table.last()[0]["action_mask"]
    table.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(table.terminations.values()) and all(table.truncations.values())
    expected = illegal_reward if illegal_reward is not None else {"points": -126.0, "win": -1.0}[reward]
    assert table.rewards[cheater] == expected
    assert all(r == 0 for a, r in table.rewards.items() if a != cheater)
    got = {}
    for agent in table.agent_iter():
        got[agent] = table.last()[1]
        table.step(None)
    assert got[cheater] == expected and set(got) == set(table.possible_agents)


def test_wrapped_env_asserts_on_actions_outside_the_space() -> None:
    table = aec.env()
    with pytest.raises(Exception, match=r"reset\(\) needs to be called before step"):
        table.step(0)
    table.reset(seed=0)
    with pytest.raises(ValueError, match="action space"):
        table.step(52)


def test_default_illegal_reward() -> None:
    assert aec.default_illegal_reward(HeartsRules(), "points") == -126.0
    assert aec.default_illegal_reward(HeartsRules(target_score=None), "zero_sum") == -26.0
    assert aec.default_illegal_reward(HeartsRules(), "win") == -1.0


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="reward must be one of"):
        aec.raw_env(reward="score")
    with pytest.raises(ValueError, match="render_mode"):
        aec.raw_env(render_mode="video")
    with pytest.raises(ValueError, match="num_players"):
        aec.raw_env(num_players=8)
    with pytest.raises(ValueError, match="not both"):
        aec.raw_env(rules=HeartsRules(), num_players=3)
    with pytest.raises(ValueError, match="deals"):
        aec.raw_env().reset(options={"deals": np.zeros(52, int)})


# ---------------------------------------------------------------------------------------------
# Observations, turn order, seeding, rendering


def test_masks_turn_order_and_observations_through_a_game() -> None:
    table = aec.raw_env(num_players=4, history=True, target_score=40)
    table.reset(seed=6)
    rng = np.random.default_rng(6)
    layout = table.layout
    steps = 0
    while not any(table.terminations.values()):
        state = table.core_state
        assert table.agent_selection == f"player_{state.to_play[0]}"
        for seat, agent in enumerate(table.agents):
            observation = table.observe(agent)
            mask = observation["action_mask"]
            if agent == table.agent_selection:
                np.testing.assert_array_equal(mask, core.legal_mask(state)[0])
                assert mask.any()
            else:
                assert not mask.any()
            sections = layout.split(observation["observation"])
            np.testing.assert_array_equal(sections["hand"], core.bits_to_mask(state.hands[0, seat : seat + 1])[0])
        table.step(int(rng.choice(np.flatnonzero(table.observe(table.agent_selection)["action_mask"]))))
        steps += 1
    assert steps > 64 and table.core_state.hand_number[0] >= 2


def test_seed_gives_the_core_game_and_reset_continues_the_sequence() -> None:
    rules = HeartsRules(num_players=5)
    a, b = aec.raw_env(rules=rules), aec.raw_env(rules=rules)
    a.reset(seed=11)
    np.testing.assert_array_equal(a.core_state.hands, core.new_games(rules, batch_size=1, seed=11).hands)
    a.reset()
    b.reset(seed=11)
    b.reset()
    np.testing.assert_array_equal(a.core_state.hands, b.core_state.hands)
    assert not np.array_equal(a.core_state.hands, core.new_games(rules, batch_size=1, seed=11).hands)
    b.reset(seed=12)
    assert not np.array_equal(a.core_state.hands, b.core_state.hands)


def test_deals_option() -> None:
    table = aec.raw_env(pass_count=0)
    deal = moon_deal()
    table.reset(seed=0, options={"deals": deal, "ignored": 1})
    for seat, agent in enumerate(table.agents):
        hand = table.layout.split(table.observe(agent)["observation"])["hand"]
        np.testing.assert_array_equal(hand, deal == seat)


def swapped_deals(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A random 4-player deal, and the same deal with one card of each suit swapped between seats
    1 and 2 (never the 2C, whose holder leads the first trick in public)."""
    deal = rng.permutation(np.repeat(np.arange(4), 13)).astype(np.int8)
    swapped = deal.copy()
    for suit in range(cards.NUM_SUITS):
        held = deal[suit * 13 : (suit + 1) * 13].copy()
        held[0] = -1 if suit == cards.CLUBS else held[0]
        if (held == 1).any() and (held == 2).any():
            swapped[suit * 13 + np.flatnonzero(held == 1)[0]] = 2
            swapped[suit * 13 + np.flatnonzero(held == 2)[0]] = 1
    return deal, swapped


@pytest.mark.parametrize("seed", range(4))
def test_observation_hides_how_unseen_cards_are_split(seed: int) -> None:
    """Seats 0 and 3, whose hands and passes agree in two deals that differ only in how cards are
    split between seats 1 and 2, see the same observations while the same cards are played (until
    no card is legal in both games)."""
    rng = np.random.default_rng(seed)
    tables = [aec.raw_env(history=True), aec.raw_env(history=True)]
    for table, deal in zip(tables, swapped_deals(rng), strict=True):
        table.reset(seed=0, options={"deals": deal})
    first = [t.observe("player_1")["observation"] for t in tables]
    assert not np.array_equal(*first)  # the deals differ, and seat 1 sees it
    steps = 0
    while True:
        for agent in ("player_0", "player_3"):
            x, y = (t.observe(agent) for t in tables)
            np.testing.assert_array_equal(x["observation"], y["observation"])
            np.testing.assert_array_equal(x["action_mask"], y["action_mask"])
        assert tables[0].agent_selection == tables[1].agent_selection
        common = tables[0].observe(tables[0].agent_selection)["action_mask"]
        common = common & tables[1].observe(tables[1].agent_selection)["action_mask"]
        if not common.any() or any(tables[0].terminations.values()):
            break
        card = int(rng.choice(np.flatnonzero(common)))
        for table in tables:
            table.step(card)
        steps += 1
    assert steps > 12  # every pass, then some play


def test_render_ansi() -> None:
    table = aec.env(render_mode="ansi", target_score=30)
    table.reset(seed=8)
    assert "2♣" in table.render()  # a hand, in unicode suits
    play(table, np.random.default_rng(8))
    text = table.render()
    assert isinstance(text, str) and "game over" in text
    for seat, total in enumerate(table.unwrapped.core_state.scores[0]):
        assert f"player_{seat}: total {total:4d}" in text

    silent = aec.env()
    silent.reset(seed=8)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert silent.render() is None


def test_docstring_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    example = aec.__doc__.split("### Example")[1].split("``` python")[1].split("```")[0]
    exec(compile(example, "aec example", "exec"), {})
    assert "game over" in capsys.readouterr().out


def test_step_after_every_agent_has_left_names_the_problem() -> None:
    table = aec.raw_env(target_score=None)
    table.reset(seed=0)
    rng = np.random.default_rng(0)
    for _agent in table.agent_iter():
        observation, _, termination, truncation, _ = table.last()
        table.step(None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert table.agents == []
    with pytest.raises(ValueError, match="every agent has left: call reset"):
        table.step(0)


def test_calls_before_reset_are_refused() -> None:
    for make in (aec.env, aec.raw_env):
        table = make()
        for method, args in (("step", (0,)), ("observe", ("player_0",)), ("last", ())):
            with pytest.raises(RuntimeError, match=rf"reset\(\) needs to be called before {method}"):
                getattr(table, method)(*args)
