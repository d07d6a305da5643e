"""Records' one-game readers: ``scalar_reader`` gives what ``scalars`` gives, in one read."""

from __future__ import annotations

import numpy as np
import pytest
from random_states import random_states

from hearts_env import HeartsRules
from hearts_env.engine import core


@pytest.mark.parametrize("rules", [HeartsRules(), HeartsRules(num_players=8, decks=2)], ids=["4 players", "two decks"])
def test_a_scalar_reader_reads_what_scalars_reads(rules):
    names = ("hand_number", "legal", "to_play", "phase", "hand_over", "trick_size")
    states = random_states(rules, batch=8, seed=0, history=False, steps=120, keep=0.2)
    read, one = states[0].scalar_reader(*names), states[0].scalar_reader("legal")
    for state in states:
        for game in range(state.batch_size):
            row = state.data[game]
            assert [int(v) for v in read(row)] == list(state.scalars(game, *names))
            assert one(row) == (int(state.legal[game]),)
    assert read(states[-1].data[:1]) == read(states[-1].data[0])  # a (1, width) row too


def test_a_scalar_reader_refuses_a_field_of_many_values():
    state = core.new_games(None, batch_size=1, seed=0)
    with pytest.raises(ValueError, match="'hands' is not a field of one value per game"):
        state.scalar_reader("to_play", "hands")
    with pytest.raises(ValueError, match="'nothing' is not a field"):
        state.scalar_reader("nothing")
    assert np.asarray(state.scalar_reader("to_play")(state.data)).shape == (1,)
