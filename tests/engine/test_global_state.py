"""The global state (``hearts_env.engine.global_state``): every section against the core's own
fields, the observation of the seat it is seen from, and the conservation of the deck."""

import numpy as np
import pytest
from random_states import random_states

from hearts_env import HeartsRules
from hearts_env.engine.cards import NUM_CARDS
from hearts_env.engine.core import PASS, bits_to_mask, new_games
from hearts_env.engine.global_state import GlobalStateLayout, global_state
from hearts_env.engine.observation import ObservationLayout, observe

RULES = [
    HeartsRules(),
    HeartsRules(num_players=3, jack_of_diamonds=True, target_score=50),
    HeartsRules(num_players=5, target_score=None),
    HeartsRules(num_players=7, jack_of_diamonds=True, pass_count=2),
    HeartsRules(num_players=6, decks=2),
    HeartsRules(num_players=9, decks=2, jack_of_diamonds=True),
]
SHARED = ("trick_leader", "points", "scores", "to_target", "hearts_broken", "phase", "pass_direction", "tricks_played")
"""Sections the observation has under the same name and meaning, seen from the same seat."""


def _states(rules: HeartsRules, seed: int):
    steps = rules.hand_size * rules.num_players * 3
    return random_states(rules, batch=6, seed=seed, history=False, steps=steps, keep=0.3)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.num_players}p{r.decks}d")
def test_each_seat_sees_its_own_observation_and_every_other_hand(rules):
    """From seat s, row r is seat s + r: its hand is that seat's own observed hand, its passes and
    plays are what that seat's observation says it passed and played, and the sections the two
    vectors share are equal."""
    P, glayout, olayout = rules.num_players, GlobalStateLayout(rules), ObservationLayout(rules)
    for state in _states(rules, seed=3):
        B = state.batch_size
        own = [olayout.split(observe(state, seat, olayout)) for seat in range(P)]
        for seat in range(P):
            g = glayout.split(global_state(state, glayout, seat))
            for r in range(P):
                other = own[(seat + r) % P]
                np.testing.assert_array_equal(g["hands"][:, r], other["hand"])
                np.testing.assert_array_equal(g["passed"][:, r], other["passed"])
                np.testing.assert_array_equal(g["played"][:, r], own[seat]["played"][:, r])
                np.testing.assert_array_equal(g["trick"][:, r], own[seat]["trick"][:, r])
                if rules.decks == 2:
                    np.testing.assert_array_equal(g["hands2"][:, r], other["hand2"])
                    np.testing.assert_array_equal(g["passed2"][:, r], other["passed2"])
                    np.testing.assert_array_equal(g["played2"][:, r], own[seat]["played2"][:, r])
            for name in SHARED + (("jd_taken",) if rules.jack_of_diamonds else ()):
                np.testing.assert_array_equal(g[name], own[seat][name], err_msg=name)
            if rules.decks == 2:
                np.testing.assert_array_equal(g["pot"], own[seat]["pot"])
                np.testing.assert_array_equal(g["pot2"], own[seat]["pot2"])
                kitty = g["kitty"].sum(axis=1) + g["kitty2"].sum(axis=1)
                np.testing.assert_array_equal(kitty, own[seat]["kitty_size"][:, 0])
            to_play = np.where(state.to_play >= 0, (state.to_play - seat) % P, -1)
            expected = (np.arange(P) == to_play[:, None]) & (to_play[:, None] >= 0)
            np.testing.assert_array_equal(g["to_play"], expected)
            assert g["to_play"].sum() == np.count_nonzero(~state.done) and B > 0


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.num_players}p{r.decks}d")
def test_every_copy_of_the_deck_is_in_exactly_one_place(rules):
    """Hands, passes in flight, cards played this hand (taken or in the pot or the trick), the
    kitty, and the cards taken in earlier tricks are disjoint and make the deck, copies counted."""
    layout = GlobalStateLayout(rules)
    deck = np.zeros(NUM_CARDS, np.int64)
    dealt = new_games(rules, batch_size=1, seed=0)
    deck += bits_to_mask(dealt.hands).sum(axis=(0, 1)) + bits_to_mask(dealt.kitty[:, :1]).sum(axis=(0, 1))
    if rules.decks == 2:
        deck += bits_to_mask(dealt.hands2).sum(axis=(0, 1)) + bits_to_mask(dealt.kitty[:, 1:]).sum(axis=(0, 1))
    for state in _states(rules, seed=5):
        g = layout.split(global_state(state, layout)).copy()
        in_flight = (state.phase == PASS)[:, None, None]
        count = g["hands"].sum(axis=1) + g["played"].sum(axis=1) + (g["passed"] * in_flight).sum(axis=1)
        if rules.decks == 2:
            count += g["hands2"].sum(axis=1) + g["played2"].sum(axis=1) + (g["passed2"] * in_flight).sum(axis=1)
            count += g["kitty"] + g["kitty2"]
        live = ~state.done
        if rules.kitty_size:  # a taken kitty shows only as points
            live &= state.kitty[:, 0] != 0
        np.testing.assert_array_equal(count[live], np.broadcast_to(deck, count[live].shape))


def test_seats_count_from_the_seat_given():
    """The state seen from seat s is the table-order state with its seat rows turned by s."""
    rules = HeartsRules(num_players=5, jack_of_diamonds=True)
    layout = GlobalStateLayout(rules)
    for state in _states(rules, seed=7):
        table = layout.split(global_state(state, layout))
        seats = np.arange(state.batch_size) % 5
        turned = layout.split(global_state(state, layout, seats))
        for name, (_, shape) in layout.sections.items():
            rolled = np.stack([np.roll(table[name][g], -int(seats[g]), axis=0) for g in range(state.batch_size)])
            expected = rolled if shape[0] == 5 and name != "pass_direction" else table[name]
            np.testing.assert_array_equal(turned[name], expected, err_msg=name)


def test_the_layouts_sizes_and_scale():
    """The 4-player table is 857 bytes; the two-deck one adds the second copies, the kitty and the pot."""
    assert GlobalStateLayout(HeartsRules()).size == 4 * 4 * 52 + 4 * 5 + 1 + 1 + 2 + 1
    two = GlobalStateLayout(HeartsRules(num_players=6, decks=2))
    assert two.size == 7 * 6 * 52 + 4 * 52 + 6 * 5 + 5
    one_hand = GlobalStateLayout(HeartsRules(num_players=6, decks=2, target_score=None))
    scale = one_hand.split(one_hand.scale())
    assert scale["points"][0] == 1 / 52 and scale["scores"][0] == 1 / 100 and scale["hands"].max() == 1


def test_refusals_name_what_was_wrong():
    rules = HeartsRules()
    state = new_games(rules, batch_size=2, seed=0)
    layout = GlobalStateLayout(rules)
    with pytest.raises(ValueError, match="seat must be in 0..3, got 4"):
        global_state(state, layout, np.array([0, 4]))
    with pytest.raises(ValueError, match="layout of 5 players"):
        global_state(state, GlobalStateLayout(HeartsRules(num_players=5)))
    with pytest.raises(ValueError, match="must be a GlobalStateLayout"):
        global_state(state, ObservationLayout(rules))
    with pytest.raises(ValueError, match="out must be a C-contiguous uint8 array of shape"):
        global_state(state, layout, out=np.zeros((2, 10), np.uint8))
    with pytest.raises(ValueError, match="rules must be a HeartsRules"):
        GlobalStateLayout("standard")
