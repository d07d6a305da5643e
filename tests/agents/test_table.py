"""Compiled tables (``hearts_env.agents.rule_based.table``): whole games of heuristic and simple players in one compiled
loop play exactly the games the runner plays with the same agents, so the arena's results do not
depend on the path it takes."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from hearts_env.agents import HeuristicPolicy, SimplePolicy
from hearts_env.agents.rule_based import table
from hearts_env.arena import play_match
from hearts_env.engine import cards, core
from hearts_env.engine.rules import HeartsRules
from hearts_env.play import runner
from hearts_env.play.policy import RandomPolicy, TablePolicy


class Plain:
    """The same agent without ``play_table``: the arena then plays it on the runner."""

    def __init__(self, policy) -> None:
        self.policy = policy

    def __call__(self, info, mask):
        return self.policy(info, mask)


def outcomes(result) -> dict[str, np.ndarray]:
    return {name: getattr(result, name) for name in ("hands", "scores", "wins", "qs", "moons")}


TABLES = [
    (HeartsRules(), "game"),
    (HeartsRules(), "hand"),
    (HeartsRules(num_players=3, jack_of_diamonds=True), "game"),
    (HeartsRules(num_players=5, moon="add_to_others"), "hand"),
    (HeartsRules(num_players=7, target_score=50), "game"),
    (HeartsRules(num_players=6, decks=2), "hand"),
    (HeartsRules(num_players=8, decks=2, target_score=50), "game"),
]


@pytest.mark.parametrize(("rules", "episode"), TABLES)
def test_matches_on_compiled_tables_equal_the_runners(rules: HeartsRules, episode: str) -> None:
    strong, weak = HeuristicPolicy(), HeuristicPolicy(shoot_moon=False, spade_guard=2)
    field = [("heuristic", strong), ("cautious", weak), ("simple", SimplePolicy())]
    field += [("heuristic", strong)] * (rules.num_players - 3)
    compiled = play_match(rules, field, deals=24, seed=5, episode=episode, block=10)
    plain = play_match(rules, [(n, Plain(a)) for n, a in field], deals=24, seed=5, episode=episode, block=10)
    for name, value in outcomes(compiled).items():
        assert np.array_equal(value, getattr(plain, name)), name
    assert compiled.qs.sum() > 0  # the outcomes were counted, not left at zero


def test_the_same_final_states_and_counts_as_the_runner() -> None:
    rules = HeartsRules()
    state = core.new_games(rules, batch_size=300, seed=2, history=True)
    agents = [HeuristicPolicy(), SimplePolicy()]
    seating = np.random.default_rng(0).integers(0, 2, (300, 4))
    final, qs, moons = agents[1].play_table(state, seating, agents)
    counted = np.zeros((2, 300, 4), np.int64)

    def count(step: runner.Step) -> None:
        ended = np.flatnonzero(step.after.hand_over)
        taken = step.after.last_hand_taken[ended]
        counted[0, step.games[ended]] += (taken & cards.QS_BIT) != 0
        counted[1, step.games[ended]] += (taken & cards.POINT_BITS) == cards.POINT_BITS

    expected = runner.play(state, agents, seating, on_step=count)
    assert np.array_equal(final.data, expected.data)
    assert np.array_equal(qs, counted[0]) and np.array_equal(moons, counted[1])
    assert moons.sum() > 0 and state.phase.max() == core.PASS  # the input is left as it was


def test_only_compiled_agents_play_tables() -> None:
    state = core.new_games(HeartsRules(), batch_size=4, seed=0)
    assert isinstance(HeuristicPolicy(), TablePolicy) and isinstance(SimplePolicy(), TablePolicy)
    assert not isinstance(RandomPolicy(0), TablePolicy)
    assert table.play_table(state, np.zeros(4, np.int64), [RandomPolicy(0)]) is None
    mixed = [HeuristicPolicy(), Plain(SimplePolicy())]
    assert mixed[0].play_table(state, np.array([0, 1, 0, 1]), mixed) is None


def test_an_illegal_card_names_the_agent_seat_game_card_and_rule(monkeypatch) -> None:
    rules = dataclasses.replace(HeartsRules(), pass_cycle=("none",))
    state = core.new_games(rules, batch_size=3, seed=0)
    seat = int(state.to_play[1])
    heart = int(np.flatnonzero(core.bits_to_mask(state.hands[1:2, seat])[0])[-1])  # its highest card, not the 2C
    kernel = table.play_games

    def bad_card(sdata, *args):  # game 1 leads another card than the 2C
        kernel(sdata[:1], *args)
        args[-1][0] = heart
        return 1

    monkeypatch.setattr(table, "play_games", bad_card)
    name = cards.card_name(heart)
    with pytest.raises(ValueError, match=rf"SimplePolicy chose an illegal card {name} \(seat {seat}, game 1\): .*2C"):
        SimplePolicy().play_table(state, np.zeros(4, np.int64), [SimplePolicy()])
