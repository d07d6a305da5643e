"""Tests of the rule-based agents (``hearts_env.agents.rule_based``: ``simple``, ``heuristic``) and the
random policy.

* Legality: whole games, the agent at every seat, for 3 to 7 players and several rule knobs;
  ``core.step`` refuses an illegal card, and every seat passes exactly ``pass_count`` cards.
* Batches: an agent's choices for a batch mixing games in every phase equal its choices for
  each game alone (the batch kernels do not mix games up).
* Scripted deals (card strings, ``cards.deal_from_hands``) for the heuristic's named behaviours:
  the QS dump when void, its passes (no low spades; QS/KS/AS when short), ducking under the
  winner of a trick with points, taking a heart trick to stop a moon.
* Recorded decisions (``agent_decisions.npz``): the compiled agents choose, at every step of
  hand 1 of 26 rule/knob configurations (3 to 7 players, every heuristic knob, odd and flat
  weights, moon-prone deals), the cards the original vectorised numpy agents chose.
* Strength sanity check (not the official measurement): on duplicate deals, heuristic beats
  simple and simple beats random in mean points per hand, by more than 3 standard errors.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from agent_decisions import load, make_heuristic, positions

from hearts_env import HeartsRules
from hearts_env.agents.rule_based.heuristic import HeuristicPolicy, Weights
from hearts_env.agents.rule_based.simple import SimplePolicy
from hearts_env.engine import cards
from hearts_env.engine.core import PASS, PLAY, State, bits_to_cards, legal_mask, new_games, step
from hearts_env.engine.infoset import InfoSet, infoset
from hearts_env.engine.records import concatenate
from hearts_env.play.policy import RandomPolicy

AGENTS = {"random": RandomPolicy, "simple": SimplePolicy, "heuristic": HeuristicPolicy}
QS = cards.parse_card("QS")

# ---------------------------------------------------------------------------------------------
# Helpers


def names(bits) -> set[str]:
    return {cards.card_name(c) for c in bits_to_cards(int(bits))}


def act(policy, state: State) -> np.ndarray:
    """The policy's cards for the seat to act in every game."""
    return np.asarray(policy(infoset(state), legal_mask(state)))


def start(hands: list[str], **knobs) -> State:
    """One game dealt ``hands``; passing off unless a knob turns it on."""
    if "pass_cycle" not in knobs:
        knobs.setdefault("pass_count", 0)
    return new_games(HeartsRules(num_players=len(hands), **knobs), deals=cards.deal_from_hands(hands)[None])


def play(state: State, script: str) -> State:
    """Play each card of ``script`` ("2C" or "seat:2C", the seat checked before the card) in game 0."""
    for item in script.split():
        seat, _, name = item.rpartition(":")
        if seat:
            assert int(state.to_play[0]) == int(seat), f"{name}: seat {state.to_play[0]} is to act, not {seat}"
        state = step(state, np.array([cards.parse_card(name)]))
    return state


def choose(policy, state: State) -> str:
    return cards.card_name(int(act(policy, state)[0]))


def passes(policy, state: State, seat: int) -> set[str]:
    """The cards ``seat`` passes when every seat passes with ``policy``."""
    while state.phase[0] == PASS:
        state = step(state, act(policy, state))
    return names(state.passed[0, seat])


def concat_infos(infos: list[InfoSet]) -> InfoSet:
    return concatenate(infos)


def one_game(info: InfoSet, g: int) -> InfoSet:
    return info[g]


# ---------------------------------------------------------------------------------------------
# Legality over whole games

KNOBS = {  # a different set of rule knobs for each player count
    3: dict(jack_of_diamonds=True),
    4: dict(),
    5: dict(pass_count=2, queen_breaks_hearts=False),
    6: dict(no_points_on_first_trick=False, moon="subtract_from_self"),
    7: dict(jack_of_diamonds=True, moon="shooter_choice", pass_count=1),
}


@pytest.mark.parametrize("num_players", [3, 4, 5, 6, 7])
@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_agent_plays_only_legal_cards_and_passes_exactly_pass_count(agent: str, num_players: int) -> None:
    rules = HeartsRules(num_players=num_players, **KNOBS[num_players])
    policy = AGENTS[agent](seed=0)
    state = new_games(rules, batch_size=48, seed=num_players)
    decisions = 0
    while not state.done.all():
        cards_ = act(policy, state)
        assert cards_.shape == (state.batch_size,) and cards_.dtype.kind in "iu"
        live = ~state.done
        assert np.all((state.legal[live] >> cards_[live].astype(np.uint64)) & np.uint64(1) == 1)
        decisions += int(live.sum())
        before = state
        state = step(state, cards_)  # raises on an illegal card
        # The passes just landed: every seat picked exactly pass_count cards.
        landed = (before.phase == PASS) & (state.phase == PLAY) & (state.hand_number == before.hand_number)
        if landed.any():
            assert np.all(np.bitwise_count(state.passed[landed]) == rules.pass_count)
    assert decisions > 2000


@pytest.mark.parametrize("agent", ["simple", "heuristic"])
def test_mixed_batch_gives_the_same_cards_as_single_games(agent: str) -> None:
    """Games caught in the pass, leading, following, void and game-over situations, in one batch."""
    policy = AGENTS[agent]()
    rules = HeartsRules(target_score=30, jack_of_diamonds=True)
    rng = np.random.default_rng(1)
    state = new_games(rules, batch_size=8, seed=3)
    infos, masks = [], []
    for step_number in range(600):
        if step_number % 7 == 0 or state.done.any():
            infos.append(infoset(state))
            masks.append(legal_mask(state))
        if state.done.all():
            break
        mixed = np.where(rng.random(state.batch_size) < 0.5, act(policy, state), act(RandomPolicy(step_number), state))
        state = step(state, mixed)
    info, mask = concat_infos(infos), np.concatenate(masks)
    assert len(np.unique(info.phase)) == 3  # pass, play and game over all present
    batch = np.asarray(policy(info, mask))
    single = [int(policy(one_game(info, g), mask[g : g + 1])[0]) for g in range(len(mask))]
    live = mask.any(axis=1)
    assert np.all(mask[live, batch[live]])
    assert np.array_equal(batch[live], np.array(single)[live])


# ---------------------------------------------------------------------------------------------
# Recorded decisions


@functools.cache
def recorded() -> dict:
    return load()


@pytest.mark.parametrize("name", sorted(load()))
def test_agents_make_the_recorded_decisions(name: str) -> None:
    case = recorded()[name]
    agents = {"heuristic": make_heuristic(case["knobs"]), "simple": SimplePolicy()}
    steps = case["moves"].shape[1]
    for t, state, info, mask in positions(case["rules"], case["deals"], case["scores"], case["moves"], case["history"]):
        assert mask.any(axis=1).all() and (t < steps - 1 or state.phase[0] == PLAY)
        for agent, policy in agents.items():
            chosen, expected = np.asarray(policy(info, mask)), case[agent][:, t]
            wrong = np.flatnonzero(chosen != expected)
            if len(wrong):
                g = wrong[0]
                pytest.fail(
                    f"{name}: {agent}, step {t}, game {g} (phase {state.phase[g]}): chose "
                    f"{cards.card_name(chosen[g])}, recorded {cards.card_name(expected[g])}; {len(wrong)} games differ"
                )


def test_heuristic_refuses_bad_knobs_by_name() -> None:
    with pytest.raises(ValueError, match="keep_top_hearts"):
        HeuristicPolicy(keep_top_hearts=-1)
    with pytest.raises(ValueError, match="weights.lead_share"):
        HeuristicPolicy(weights=Weights(lead_share=float("nan")))
    with pytest.raises(ValueError, match="safe_ratio"):
        HeuristicPolicy(safe_ratio="high")
    with pytest.raises(ValueError, match="weights must be a Weights"):
        HeuristicPolicy(weights={"lead_share": 1.0})


# ---------------------------------------------------------------------------------------------
# The simple player's rules


def test_simple_player_rules() -> None:
    simple = SimplePolicy()
    assert passes(simple, start(QUEEN_DEAL, pass_cycle=("left",)), 3) == {"AH", "AD", "AC"}  # the highest ranks
    state = play(start(QUEEN_DEAL), "0:2C 1:5C 2:8C 3:AC 3:TD")
    assert choose(simple, state) == "QS"  # void: the QS first
    state = play(state, "0:QS")
    assert choose(simple, state) == "5D"  # the highest card that still loses
    state = play(state, "1:5D 2:7D")
    assert choose(simple, state) == "2S"  # leading: the lowest card by rank


# ---------------------------------------------------------------------------------------------
# The heuristic player's rules, on scripted deals

# Seat 0 is void in diamonds and holds the QS; seat 3 takes the first trick and leads diamonds.
QUEEN_DEAL = [
    "2C 3C 4C 5S 6S 7S QS 2H 3H 4H 5H 6H 7H",
    "5C 6C 7C 2D 5D QD KD 8S 9S TS 8H 9H TH",
    "8C 9C TC 3D 4D 6D 7D JS KS AS JH QH KH",
    "JC QC KC AC 8D 9D TD JD AD 2S 3S 4S AH",
]


def test_heuristic_dumps_the_queen_when_void_in_the_led_suit() -> None:
    state = play(start(QUEEN_DEAL), "0:2C 1:5C 2:8C 3:AC 3:TD")
    assert choose(HeuristicPolicy(), state) == "QS"


def test_heuristic_ducks_under_the_winner_of_a_trick_with_points() -> None:
    state = play(start(QUEEN_DEAL), "0:2C 1:5C 2:8C 3:AC 3:TD 0:QS")
    # Seat 1 holds 2D 5D QD KD under the TD and the QS: the highest diamond that still loses.
    assert choose(HeuristicPolicy(), state) == "5D"


def test_heuristic_dumps_the_queen_on_the_ace_or_king_of_spades() -> None:
    # Seat 0 leads the AS into seat 1, who holds the QS with lower spades too.
    hands = [
        "2C AS 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
        "3C 4C QS 2S 3S 2H 3H 4H 5H 6H 7H 8H 9H",
        "5C 6C 7C 8C 9C 4S 5S 6S 7S TH JH QH KH",
        "TC JC QC KC AC 8S 9S TS JS KS AH AD 2D",
    ]
    state = play(start(hands), "0:2C 1:3C 2:5C 3:AC 3:KS 0:AS")
    # Seat 3 won the first trick, led the KS and seat 0 took it over with the AS: seat 1 drops the QS.
    assert choose(HeuristicPolicy(), state) == "QS"


SPADES_DEAL = [  # seat 0: short spades with the QS and KS; seat 1: long low spades and no honour
    "2C 3C 9C TC JC AD KD QD 6H 9H QS KS 5S",
    "4C 5C 6C 2D 3D 4D 2S 3S 4S 6S 7S 8S 2H",
    "7C 8C QC KC 5D 6D 7D 8D 9D TD 9S TS JS",
    "AC JD 3H 4H 5H 7H 8H TH JH QH KH AH AS",
]


def test_heuristic_passes_the_queen_king_and_ace_of_spades_when_short() -> None:
    heuristic = HeuristicPolicy()
    left = passes(heuristic, start(SPADES_DEAL, pass_cycle=("left",)), 0)
    assert {"QS", "KS"} <= left and "5S" not in left
    # Passing right while keeping a low spade: the QS alone of the honours.
    right = passes(heuristic, start(SPADES_DEAL, pass_cycle=("right",)), 0)
    assert "QS" in right and "KS" not in right and "5S" not in right
    # With four spades or more the honours stay.
    long_spades = passes(HeuristicPolicy(spade_guard=3), start(SPADES_DEAL, pass_cycle=("left",)), 0)
    assert not {"QS", "KS"} & long_spades


def test_heuristic_does_not_pass_low_spades_nor_the_lowest_cards() -> None:
    heuristic = HeuristicPolicy()
    passed = passes(heuristic, start(SPADES_DEAL, pass_cycle=("left",)), 1)  # spades 2..8 and low cards only
    assert not {"2S", "3S", "4S", "6S", "7S", "8S", "2D", "3D", "2H"} & passed
    # Over random deals: never a spade below the queen (the moon aside), never the three highest
    # hearts together, never a lone AH.
    rules = HeartsRules(num_players=4)
    state = new_games(rules, batch_size=512, seed=7)
    dealt = state.hands.copy()
    no_moon = HeuristicPolicy(shoot_moon=False)
    while (state.phase == PASS).all():
        state = step(state, act(no_moon, state))
    low_spades = sum(1 << c for c in range(26, QS))
    assert not np.any(state.passed & np.uint64(low_spades))
    hearts = dealt >> np.uint64(39)
    for game, seat in np.ndindex(dealt.shape):
        held = [c for c in range(13) if int(hearts[game, seat]) >> c & 1]
        passed = [c for c in held if int(state.passed[game, seat]) >> (39 + c) & 1]
        assert not (len(held) >= 2 and set(held[-3:]) <= set(passed))
        assert not (held == [12] and passed)


# Seat 1 takes the QS and hearts trick after trick; seat 0 holds the JH over seat 1's TH.
MOON_DEAL = [
    "2C 3C 4C 2S 3S 4S JH 4H 3H 2H 2D 3D 4D",
    "AC KC QC JC QS AS KS AH KH QH TH 9H AD",
    "5C 6C 7C 8C 5S 6S 7S 8H 7H 6H 5D 6D 7D",
    "9C TC 8S 9S TS JS 5H 8D 9D TD JD QD KD",
]
MOON_SCRIPT = "0:2C 1:AC 2:5C 3:9C 1:QS 2:5S 3:8S 0:2S 1:AH 2:6H 3:5H 0:3H 1:KH 2:7H 3:8D 0:4H 1:TH 2:8H 3:9D"


def test_heuristic_takes_a_heart_trick_to_stop_a_moon() -> None:
    state = play(start(MOON_DEAL), MOON_SCRIPT)
    assert state.to_play[0] == 0 and np.all(state.hand_points[0] == [0, 20, 0, 0])
    assert choose(HeuristicPolicy(), state) == "JH"  # takes the trick: seat 1 cannot shoot any more
    assert choose(HeuristicPolicy(moon_alarm=14), state) == "2H"  # no alarm: it ducks


def test_heuristic_leads_a_master_heart_to_stop_a_moon() -> None:
    # As above, but seat 0 holds the QH and the AD: it takes a diamond trick, then leads.
    hands = [
        "2C 3C 4C 2S 3S 4S QH 4H 3H 2H 2D 3D AD",
        "AC KC QC JC QS AS KS AH KH JH TH 9H 4D",
        *MOON_DEAL[2:],
    ]
    script = "0:2C 1:AC 2:5C 3:9C 1:QS 2:5S 3:8S 0:2S 1:AH 2:6H 3:5H 0:3H 1:KH 2:7H 3:8D 0:4H 1:4D 2:5D 3:9D 0:AD"
    state = play(start(hands), script)
    assert state.to_play[0] == 0 and np.all(state.hand_points[0] == [0, 20, 0, 0])
    assert choose(HeuristicPolicy(), state) == "QH"  # the master heart: seat 0 takes a point
    assert choose(HeuristicPolicy(moon_alarm=14), state) == "2H"  # no alarm: a low heart, an exit


def test_heuristic_shoots_the_moon_with_a_hand_of_masters() -> None:
    hands = [
        "AC KC QC AS KS QS AH KH QH JH TH 9H 8H",
        "2C 3C 4C 5C 2D 3D 4D 5D 2S 3S 4S 5S 2H",
        "6C 7C 8C 6D 7D 8D 9D 6S 7S 8S 9S 3H 4H",
        "9C TC JC TD JD QD KD AD TS JS 5H 6H 7H",
    ]
    state = start(hands, target_score=None)  # one hand
    heuristic = HeuristicPolicy()
    while not state.done.all():
        card = act(heuristic, state) if state.to_play[0] == 0 else act(SimplePolicy(), state)
        state = step(state, card)
    assert list(state.scores[0]) == [0, 26, 26, 26]


# ---------------------------------------------------------------------------------------------
# Strength sanity check (the arena makes the official measurements)


def duplicate_match(hero, opponent, num_players: int, deals: int, seed: int) -> tuple[float, float, float]:
    """One hero against P - 1 copies of the opponent on ``deals`` deals per pass direction, the hero
    taking every seat of each deal. Returns the hero's and the opponents' mean points per hand and
    the standard error of their difference (per deal, over the deals)."""
    P = num_players
    directions = ("left", "right", "across", "none") if P == 4 else ("left", "right")
    diffs, hero_points, opponent_points = [], [], []
    for d, direction in enumerate(directions):
        rules = HeartsRules(num_players=P, target_score=None, pass_cycle=(direction,))
        keys = np.repeat(np.random.default_rng([seed, d]).integers(0, 2**63, deals, dtype=np.uint64), P)
        hero_seat = np.tile(np.arange(P), deals)
        state = new_games(rules, keys=keys)
        while not state.done.all():
            heroes = state.to_play == hero_seat
            cards_ = np.zeros(state.batch_size, np.int64)
            for policy, games in ((hero, heroes), (opponent, ~heroes)):
                rows = np.flatnonzero(games & ~state.done)
                if len(rows):
                    cards_[rows] = act(policy, state[rows])
            state = step(state, cards_)
        points = state.scores.reshape(deals, P, P).astype(float)  # deal, hero seat, seat
        mine = np.einsum("dss->ds", points).mean(axis=1)
        theirs = (points.sum(axis=2).mean(axis=1) - mine) / (P - 1)
        diffs.append(mine - theirs)
        hero_points.append(mine)
        opponent_points.append(theirs)
    diff = np.concatenate(diffs)
    return (
        np.concatenate(hero_points).mean(),
        np.concatenate(opponent_points).mean(),
        diff.std(ddof=1) / len(diff) ** 0.5,
    )


@pytest.mark.parametrize(
    "hero, opponent",
    [(HeuristicPolicy, SimplePolicy), (SimplePolicy, RandomPolicy)],
    ids=["heuristic>simple", "simple>random"],
)
def test_strength_order(hero, opponent) -> None:
    mine, theirs, se = duplicate_match(hero(seed=0), opponent(seed=1), num_players=4, deals=200, seed=0)
    assert mine - theirs < -3 * se, f"{mine:.2f} vs {theirs:.2f} points per hand (standard error {se:.2f})"


@pytest.mark.parametrize("num_players", [3, 4, 5, 6, 7])
@pytest.mark.parametrize(
    "hero, opponent",
    [(HeuristicPolicy, SimplePolicy), (SimplePolicy, RandomPolicy)],
    ids=["heuristic>simple", "simple>random"],
)
def test_strength_order_every_table(hero, opponent, num_players: int) -> None:
    mine, theirs, se = duplicate_match(hero(seed=0), opponent(seed=1), num_players, deals=2000, seed=1)
    assert mine - theirs < -3 * se, f"{mine:.2f} vs {theirs:.2f} points per hand (standard error {se:.2f})"
