"""A network carried to another table (``hearts_env.train.ppo.transfer``): on the new table's
observation it computes what the source network computes on that observation folded back onto
the source's seats, sections the source lacks count for nothing, and the source's own table
gets it back unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from hearts_env.agents.learned.trained import MLPPolicy, shipped_policy
from hearts_env.engine.core import new_games, sample_actions, step
from hearts_env.engine.infoset import infoset
from hearts_env.engine.observation import ObservationLayout, encode
from hearts_env.engine.rules import HeartsRules
from hearts_env.train.ppo.transfer import carried_layers, same_table, seat_map


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        (4, 3, [0, 1, 3]),
        (4, 4, [0, 1, 2, 3]),
        (4, 5, [0, 1, 2, 2, 3]),
        (4, 7, [0, 1, 2, 2, 2, 2, 3]),
        (5, 3, [0, 1, 4]),
    ],
)
def test_seats_keep_the_observer_and_both_neighbours(source: int, target: int, expected: list[int]) -> None:
    assert seat_map(source, target).tolist() == expected


def _fold(x: np.ndarray, source: ObservationLayout, target: ObservationLayout) -> np.ndarray:
    """The source observation whose every seat section sums the target seats mapped to it."""
    folded = np.zeros((len(x), source.size), np.float32)
    seats = seat_map(source.rules.num_players, target.rules.num_players)
    for name, (where, shape) in target.sections.items():
        if name not in source.sections:
            continue
        from_where, from_shape = source.sections[name]
        block = x[:, where].reshape(len(x), *shape)
        if from_shape != shape:
            block = np.stack([block[:, seats == k].sum(axis=1) for k in range(from_shape[0])], axis=1)
        folded[:, from_where] = block.reshape(len(x), -1)
    return folded


@pytest.mark.parametrize(
    "rules",
    [
        HeartsRules(num_players=3),
        HeartsRules(num_players=7),
        HeartsRules(jack_of_diamonds=True),
        HeartsRules(num_players=8, decks=2),
    ],
)
@pytest.mark.parametrize("trick_outcomes", [False, True], ids=["compact", "trick-outcomes"])
def test_the_carried_network_reads_the_sections_it_knows(rules: HeartsRules, trick_outcomes: bool) -> None:
    source = shipped_policy("ppo")
    target = ObservationLayout(rules, trick_outcomes=trick_outcomes)
    carried = MLPPolicy(rules, target.scale(), carried_layers(source, target), "relu", trick_outcomes=trick_outcomes)
    x = np.random.default_rng(0).integers(0, 2, (64, target.size)).astype(np.uint8)
    scaled = _fold(x * target.scale(), source.layout, target)  # the scaled input, folded onto the source seats
    expected = source.logits(scaled / source.layout.scale())
    np.testing.assert_allclose(carried.logits(x), expected, rtol=1e-4, atol=1e-3)
    assert not same_table(source, target)


def test_the_source_table_gets_the_network_back() -> None:
    source = shipped_policy("ppo")
    # the moon rule does not change the layout
    assert same_table(source, ObservationLayout(HeartsRules(moon="shooter_choice")))
    for (weight, bias), (w, b) in zip(carried_layers(source, source.layout), source.layers, strict=True):
        np.testing.assert_array_equal(weight, w)
        np.testing.assert_array_equal(bias, b)


def test_a_network_carried_to_its_own_table_with_trick_outcomes_plays_as_before() -> None:
    """The added sections start at zero weight: the same logits on the same games."""
    source = shipped_policy("ppo")
    target = ObservationLayout(source.rules, trick_outcomes=True)
    assert not same_table(source, target)
    carried = MLPPolicy(source.rules, target.scale(), carried_layers(source, target), "relu", trick_outcomes=True)
    state = new_games(source.rules, batch_size=32, seed=3)
    for _ in range(40):
        state = step(state, sample_actions(state, np.random.default_rng(len(state.data))))
    info = infoset(state)
    from_source = source.logits(encode(info, source.layout))
    np.testing.assert_allclose(carried.logits(encode(info, target)), from_source, rtol=1e-5, atol=1e-4)
