"""The observation's ``trick_outcomes`` sections (``ObservationLayout(rules, trick_outcomes=True)``):
what each legal card does to the current trick, checked against a plain count of the trick's
cards (a card played twice is cancelled, the highest card of the led suit played once wins) and
against the core's own winner after the card is played."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from random_states import cancelling_states, random_states

from hearts_env import HeartsRules
from hearts_env.aec import env as aec_env
from hearts_env.engine.core import PLAY, State, sample_actions, step
from hearts_env.engine.observation import ObservationLayout, observe, unpack
from hearts_env.gym_env import HeartsVectorEnv

TABLES = [
    HeartsRules(num_players=4),
    HeartsRules(num_players=5, jack_of_diamonds=True),
    HeartsRules(num_players=7),
    HeartsRules(num_players=6, decks=2),
    HeartsRules(num_players=8, decks=2),
    HeartsRules(num_players=10, decks=2, jack_of_diamonds=True),
]


def states_of(rules: HeartsRules, seed: int) -> list[State]:
    if rules.decks == 2:
        return cancelling_states(rules, 8, seed=seed, steps=400, keep=0.1)
    return random_states(rules, 8, seed=seed, history=False, steps=300, keep=0.1)


def winner(trick: list[int], led: int) -> int:
    """The winning card of a trick's cards: the highest of the led suit played once, -1 if none."""
    once = [card for card, n in Counter(trick).items() if n == 1 and card // 13 == led]
    return max(once, default=-1)


def expected(state: State, game: int, seat: int, legal: np.ndarray, unseen: np.ndarray) -> dict[str, np.ndarray]:
    """The three sections for one game and observer, from the state's trick by counting."""
    P = state.num_players
    takes_now, takes_if = np.zeros(52, np.uint8), np.zeros(52, np.uint8)
    holder = np.zeros(P, np.uint8)
    played = [int(state.trick[game, s]) for s in range(P) if state.trick[game, s] >= 0]
    to_act = state.phase[game] == PLAY and state.to_play[game] == seat
    if state.phase[game] == PLAY and played:
        led = int(state.trick[game, state.leader[game]]) // 13
        best = winner(played, led)
        if best >= 0:
            holder[(int(np.flatnonzero(state.trick[game] == best)[0]) - seat) % P] = 1
    for card in np.flatnonzero(legal) if to_act else []:
        if not played:  # a lead holds the trick; with two decks its unseen twin may cancel it
            takes_now[card] = 1
            takes_if[card] = not (state.rules.decks == 2 and unseen[card])
            continue
        after = [*played, int(card)]
        w = winner(after, led)
        takes_now[card] = w == card
        if state.rules.decks == 2 and len(after) < P and w >= 0 and unseen[w]:
            w = winner([*after, w], led)
        takes_if[card] = w == card
    out = {"takes_now": takes_now, "trick_winner": holder}
    if state.rules.decks == 2:
        out["takes_if_cancelled"] = takes_if
    return out


@pytest.mark.parametrize("rules", TABLES, ids=lambda r: f"{r.num_players}p-{r.decks}d-jd{int(r.jack_of_diamonds)}")
def test_each_legal_card_s_effect_on_the_trick_is_counted_from_its_cards(rules: HeartsRules) -> None:
    layout = ObservationLayout(rules, trick_outcomes=True)
    plain = ObservationLayout(rules)
    seen = Counter()
    for state in states_of(rules, seed=rules.num_players):
        for seat in range(rules.num_players):
            seats = np.full(state.batch_size, seat)
            obs = observe(state, seats, layout)
            np.testing.assert_array_equal(unpack(observe(state, seats, layout, packed=True), layout), obs)
            view, base = layout.split(obs), plain.split(observe(state, seats, plain))
            for name in plain.sections:  # the other sections are the plain layout's
                np.testing.assert_array_equal(view[name], base[name])
            for game in range(state.batch_size):
                want = expected(state, game, seat, view["legal"][game], view["unseen"][game])
                for name, values in want.items():
                    np.testing.assert_array_equal(view[name][game], values, err_msg=f"{name}, game {game}")
                    seen[name] += int(values.any())
                if rules.decks == 2:
                    seen["differ"] += int((want["takes_now"] != want["takes_if_cancelled"]).any())
    assert all(seen[name] > 20 for name in want), seen  # every section was nonzero in many states
    if rules.decks == 2:
        assert seen["differ"] > 5, seen  # a twin still out changed the outcome in some states


@pytest.mark.parametrize("rules", TABLES, ids=lambda r: f"{r.num_players}p-{r.decks}d-jd{int(r.jack_of_diamonds)}")
def test_takes_now_agrees_with_the_core_s_winner_after_the_card(rules: HeartsRules) -> None:
    layout = ObservationLayout(rules, trick_outcomes=True)
    checked = 0
    for state in states_of(rules, seed=rules.num_players + 100):
        playing = state.phase == PLAY
        actions = sample_actions(state, np.random.default_rng(checked))
        obs = layout.split(observe(state, state.to_play.astype(np.int64), layout))
        after = step(state, actions)
        # Where the trick goes on, the core's winner so far is the seat that played, or another.
        going_on = playing & (after.trick_size > 0) & (after.tricks_played == state.tricks_played)
        for game in np.flatnonzero(going_on):
            mine = obs["takes_now"][game, actions[game]] == 1
            assert mine == (after.winner[game] == state.to_play[game]), f"game {game}, card {actions[game]}"
            checked += 1
    assert checked > 100


def test_the_plain_layout_has_none_of_the_sections() -> None:
    for rules in TABLES:
        plain, outcomes = ObservationLayout(rules), ObservationLayout(rules, trick_outcomes=True)
        extra = set(outcomes.sections) - set(plain.sections)
        assert extra == ({"takes_now", "trick_winner"} | ({"takes_if_cancelled"} if rules.decks == 2 else set()))
        assert outcomes.size == plain.size + 52 * (rules.decks == 2) + 52 + rules.num_players
        names = list(outcomes.sections)
        assert names.index("takes_now") == names.index("legal") + 1
        assert names.index("trick_winner") == names.index("trick_leader") + 1
    with pytest.raises(ValueError, match="trick_outcomes"):
        ObservationLayout(TABLES[0], trick_outcomes="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize("rules", [TABLES[0], TABLES[4]], ids=["4p", "8p-2d"])
def test_the_envs_observe_the_sections_when_asked(rules: HeartsRules) -> None:
    """The AEC and Gymnasium envs with ``trick_outcomes=True``: their spaces have the wider layout
    and the AEC env's observations are ``observe``'s for the seat to act."""
    layout = ObservationLayout(rules, trick_outcomes=True)
    vector = HeartsVectorEnv(3, rules, trick_outcomes=True)
    assert vector.single_observation_space.shape == (layout.size,)
    assert vector.reset(seed=4)[0].shape == (3, layout.size)
    table = aec_env(rules=rules, trick_outcomes=True)
    table.reset(seed=4)
    assert table.observation_space(table.agents[0])["observation"].shape == (layout.size,)
    took = 0
    for _ in range(3 * rules.num_players + 2 * rules.num_players):  # the passes, then into the play
        observation = table.last()[0]
        state = table.unwrapped.core_state
        np.testing.assert_array_equal(observation["observation"], observe(state, state.to_play, layout)[0])
        took += int(layout.split(observation["observation"])["takes_now"].any())
        table.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert took > 0
