"""Differential test: the batched numpy engine against OpenSpiel's ``hearts`` (pyspiel).

Both engines play the same deals with the same moves. At every decision of every hand the seat to
act and its legal set must agree, and so must hearts broken and each seat's points so far; when
the passes land the four hands must agree; at the end of the hand the hand's points must agree.
Our engine steps all the games of a batch together (one ``step`` call per decision for the whole
batch); OpenSpiel's states are stepped one by one in Python.

Two drivers:

* ``hand by hand``: explicit random deals (``new_games(deals=...)``) for each pass direction,
  none / left / across / right in equal shares. ``new_games`` always starts at hand 1 and the
  direction comes from the hand number, and the rules (so the pass cycle) are shared by a batch,
  so each direction is one batch of one-hand games under ``HeartsRules(pass_cycle=(direction,),
  target_score=None)``.
* ``whole games``: ONE batch of games under the standard cycle (left, right, across, no pass),
  each played for four hands, so the batch covers all four directions in equal shares. Hand 1 is
  dealt explicitly; hands 2-4 are dealt by the engine itself (its counter-based hash), read from
  ``state.hands`` and given to OpenSpiel. This also checks the pass cycle, the deal of later
  hands and that ``scores`` accumulate ``last_hand_points``.

Half the deals are uniform and played with uniformly random legal moves. The rest of the first
hands' deals are stacked so that rare rules come up often: a quarter are "moon hunts" (one seat is
dealt cards drawn towards the high ranks, passes its lowest and plays its highest, while the others
pass high, play low and feed it their point cards when void), so that moons are scored and
compared; an eighth deal one seat mostly hearts and the QS (a void hand of only points on the first
trick); an eighth deal one seat the AC with 12 hearts, or with the QS and 11 hearts (it wins the
first trick, then must lead from only hearts, or hearts and the QS, before hearts are broken).
Every move, biased or not, is chosen from the legal set both engines agreed on.

What is mapped (docs/rules.md, "Against OpenSpiel's hearts"):

* Parameters. OpenSpiel ``pass_cards=True``, ``no_pts_on_first_trick`` = our
  ``no_points_on_first_trick``, ``must_break_hearts=True``, ``qs_breaks_hearts`` = our
  ``queen_breaks_hearts``, ``jd_bonus`` = our ``jack_of_diamonds``, ``can_lead_any_club=False``,
  ``avoid_all_tricks_bonus=False``, ``can_lead_hearts_instead_of_qs=True``.
* Card ids. OpenSpiel's is ``rank * 4 + suit`` with suits C D H S (rank 0 = deuce); ours is
  ``suit * 13 + rank - 2`` with suits C D S H. Both name cards alike ("QS", "TH").
* Seats: the same numbers, play goes to seat + 1 in both.
* Pass direction. OpenSpiel's first chance action picks it: 0 none, 1 left, 2 across, 3 right,
  receiver = seat + direction. That is exactly our pass offset (left +1, across +2, right -1 = +3).
* Deal. OpenSpiel's 52 deal chance actions give the k-th dealt card to seat k mod 4; we deal each
  seat's cards in turn so that every card lands where our ``deals`` row (or ``state.hands``) puts it.
* Passing. Both have seats 0..3 pick three cards in order, one card per action, and move the
  cards only once every seat has picked.
* Points. OpenSpiel's returns are ``26 - points``; its points are hearts 1, QS 13, JD -10 when
  ``jd_bonus``, and a moon adds 26 to the others and -26 to the shooter (JD ignored in detecting the
  moon, its -10 kept on top). Ours are ``state.last_hand_points`` (the same numbers) and
  ``state.scores`` (their running total).

Where the engines differ by design (not tested, or mapped above):

* OpenSpiel plays one 4-player hand and stops; ours plays a game of hands up to ``target_score``
  (or one hand with ``target_score=None``), cycles the pass direction by hand number and deals
  later hands itself. OpenSpiel draws the direction by chance, so any cycle must be imposed outside.
* OpenSpiel is 4 players with a 3-card pass only; ours has ``num_players`` 3..7, ``pass_count``
  and custom ``pass_cycle``.
* Moon: OpenSpiel only adds 26 to the others (our default ``moon="add_to_others"``); our
  ``subtract_from_self`` and ``shooter_choice`` have no OpenSpiel counterpart.
* OpenSpiel's rewards are returns to maximise (26 - points); ours are points to minimise.
* OpenSpiel's ``can_lead_any_club``, ``avoid_all_tricks_bonus`` (-5 for taking no trick) and
  ``must_break_hearts=False`` have no counterpart in ours. Its default
  ``can_lead_hearts_instead_of_qs=False`` (a leader holding only hearts and the QS, hearts unbroken,
  must lead the QS) is not our rule, hence ``True`` here.
* Illegal actions: OpenSpiel's ``apply_action`` does not check the rules (it accepts a held but
  illegal card; ``apply_action_with_legality_check`` raises); ours raises a ``ValueError`` naming
  the rule and leaves the state unchanged. Only legal moves are played here.
* Observations (OpenSpiel's information state, ours in the environment wrappers) are not compared.
"""

from __future__ import annotations

import random
import time

import numpy as np
import pytest
from openspiel_cards import DIRECTION_NAME, OS_DIRECTION, OS_TO_OURS, OURS_TO_OS

from hearts_env.engine import cards
from hearts_env.engine.core import PASS, bits_to_mask, legal_mask, new_games, step
from hearts_env.engine.rules import HeartsRules

pyspiel = pytest.importorskip("pyspiel")

# ---------------------------------------------------------------------------------------------
# Mapping

_OS_QS = int(OURS_TO_OS[cards.parse_card("QS")])
_OS_POINTS = np.array([13 if o == _OS_QS else int(o % 4 == 2) for o in range(52)])  # hearts and QS
_OURS_POINTS = _OS_POINTS[OURS_TO_OS]
_JD, _QS, _AC = cards.parse_cards("JD QS AC")


def openspiel_game(rules: HeartsRules):
    """OpenSpiel's hearts with the parameters that match ``rules``."""
    return pyspiel.load_game(
        "hearts",
        {
            "pass_cards": True,
            "no_pts_on_first_trick": bool(rules.no_points_on_first_trick),
            "must_break_hearts": True,
            "qs_breaks_hearts": bool(rules.queen_breaks_hearts),
            "jd_bonus": bool(rules.jack_of_diamonds),
            "can_lead_any_club": False,
            "avoid_all_tricks_bonus": False,
            "can_lead_hearts_instead_of_qs": True,
        },
    )


def openspiel_hand(game, hands: np.ndarray, direction: int):
    """An OpenSpiel state after the pass-direction and deal chance actions, the cards dealt as in
    ``hands`` (P,) bitboards of our card ids."""
    state = game.new_initial_state()
    state.apply_action(direction)
    held = [OURS_TO_OS[np.flatnonzero(row)] for row in bits_to_mask(hands)]
    for k in range(52):  # OpenSpiel gives its k-th dealt card to seat k mod 4
        state.apply_action(int(held[k % 4][k // 4]))
    return state


def random_deals(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(n, 52) seats and (n,) moon hunters (-1: none). Half the deals are uniform. A quarter are
    moon hunts: the hunter is dealt 13 cards drawn towards the high ranks. An eighth are
    point-heavy: one seat is dealt 13 cards drawn towards the hearts and the QS (hands of only
    points on the first trick). An eighth are point leads: one seat is dealt the AC and 12 hearts,
    or the AC, the QS and 11 hearts, so that unless its AC is passed it takes the first trick and
    must then lead from a hand of only hearts (and the QS) before hearts are broken."""
    deals = np.empty((n, 52), np.int8)
    shooters = np.full(n, -1)
    seats = np.arange(52) % 4
    is_point = _OURS_POINTS > 0
    hearts = np.flatnonzero(_OURS_POINTS == 1)
    for g in range(n):
        deals[g, rng.permutation(52)] = seats
        kind, seat = rng.random(), int(rng.integers(4))
        if kind < 0.5:
            continue
        if kind < 0.75:
            shooters[g] = seat
            top = np.argsort(-(np.arange(52) % 13 + 8 * rng.random(52)))
        elif kind < 0.875:
            top = np.argsort(-(12 * is_point + rng.uniform(1, 13) * rng.random(52)))
        else:
            queen = rng.random() < 0.5
            chosen = [_AC, *([_QS] if queen else []), *rng.choice(hearts, 12 - queen, replace=False)]
            top = np.concatenate([chosen, rng.permutation(np.setdiff1d(np.arange(52), chosen))])
        deals[g, top[:13]] = seat
        deals[g, rng.permutation(top[13:])] = np.tile([s for s in range(4) if s != seat], 13)
    return deals, shooters


# ---------------------------------------------------------------------------------------------
# Moves


def choose(rnd: random.Random, legal: list[int], seat: int, shooter: int, passing: bool, following: bool) -> int:
    """An OpenSpiel card id from ``legal``: uniform, or the moon hunt policy where ``shooter >= 0``."""
    if shooter < 0:
        return rnd.choice(legal)
    void = following and len({o % 4 for o in legal}) > 1
    if seat == shooter:
        if passing:
            return min(legal)  # OpenSpiel ids are rank-major: min = lowest rank
        if void:
            safe = [o for o in legal if not _OS_POINTS[o]]
            return min(safe) if safe else max(legal)
        return max(legal)
    if passing:
        return max(legal)
    feed = [o for o in legal if _OS_POINTS[o]]
    if void and feed:
        return max(feed, key=lambda o: _OS_POINTS[o])
    return min(legal)


# ---------------------------------------------------------------------------------------------
# Checks


def _names(os_ids) -> str:
    return " ".join(cards.card_name(int(OS_TO_OURS[o])) for o in sorted(os_ids, key=lambda o: OS_TO_OURS[o]))


def describe(os_state, state, g: int, rules: HeartsRules) -> str:
    """The deal, the move sequence and both sides' view of the decision at hand, for game ``g``."""
    history = [(pa.player, pa.action) for pa in os_state.full_history()]
    direction = history[0][1]
    dealt = [[a for k, (_, a) in enumerate(history[1:53]) if k % 4 == seat] for seat in range(4)]
    deal_row = np.full(52, -1, int)
    for seat in range(4):
        deal_row[OS_TO_OURS[dealt[seat]]] = seat
    moves = " ".join(f"{p}:{_names([a])}" for p, a in history[53:])
    seat = int(state.to_play[g])
    ours = OURS_TO_OS[np.flatnonzero(legal_mask(state)[g])]
    theirs = os_state.legal_actions() if not os_state.is_terminal() else []
    return (
        f"\n  rules: {rules}\n  game {g}, hand {int(state.hand_number[g])}, pass direction "
        f"{DIRECTION_NAME[direction]} (OpenSpiel {direction})\n"
        + "".join(f"  dealt to seat {s}: {_names(dealt[s])}\n" for s in range(4))
        + f"  deals row (ours): {deal_row.tolist()}\n  moves (seat:card): {moves}\n"
        f"  to act: ours seat {seat} (phase {int(state.phase[g])}), OpenSpiel player {os_state.current_player()}\n"
        f"  ours legal:       {_names(ours)}\n  OpenSpiel legal:  {_names(theirs)}\n"
        f"  ours hand of seat {seat}: {_names(OURS_TO_OS[np.flatnonzero(bits_to_mask(state.hands[g, seat]))])}\n"
        f"  hearts broken: ours {bool(state.hearts_broken[g])}, OpenSpiel {os_state.hearts_broken()}\n"
        f"  ours points so far {_points_so_far(state, rules)[g].tolist()}, "
        f"OpenSpiel {[os_state.points(p) for p in range(4)]}"
    )


def _points_so_far(state, rules: HeartsRules) -> np.ndarray:
    """(B, 4) points taken this hand as OpenSpiel counts them during play (JD included)."""
    return state.hand_points.astype(np.int64)


def check_decision(os_states, state, rules: HeartsRules) -> list[list[int]]:
    """Seat to act, legal sets, hearts broken and points so far agree; returns OpenSpiel's legal ids."""
    B = state.batch_size
    players = np.array([s.current_player() for s in os_states])
    legal = [s.legal_actions() for s in os_states]
    os_mask = np.zeros((B, 52), bool)
    for g, actions in enumerate(legal):
        os_mask[g, actions] = True
    ours_mask = legal_mask(state)[:, OS_TO_OURS]  # column o = our card for OpenSpiel id o
    broken = np.array([s.hearts_broken() for s in os_states])
    points = np.array([[s.points(p) for p in range(4)] for s in os_states])
    bad = (
        (players != state.to_play)
        | (os_mask != ours_mask).any(axis=1)
        | (broken != state.hearts_broken)
        | (points != _points_so_far(state, rules)).any(axis=1)
    )
    if bad.any():
        g = int(np.argmax(bad))
        pytest.fail(f"{int(bad.sum())} game(s) disagree at a decision; first:{describe(os_states[g], state, g, rules)}")
    return legal


def check_hands(os_states, state, rules: HeartsRules) -> None:
    """Every seat's hand agrees (used once the passes have landed)."""
    for g, os_state in enumerate(os_states):
        hands = os_state.to_struct().hands
        ours = [cards.deal_from_hands([hand]) == 0 for hand in hands]
        if not (np.array(ours) == bits_to_mask(state.hands[g])).all():
            pytest.fail(f"hands disagree after the pass: OpenSpiel {hands}{describe(os_state, state, g, rules)}")


def check_hand_end(os_states, state, rules: HeartsRules) -> np.ndarray:
    """Both engines ended the hand together with the same points; returns (B, 4) points."""
    terminal = np.array([s.is_terminal() for s in os_states])
    if not (terminal == state.hand_over).all():
        g = int(np.argmax(terminal != state.hand_over))
        ours, theirs = bool(state.hand_over[g]), bool(terminal[g])
        pytest.fail(f"hand over: ours {ours}, OpenSpiel {theirs}{describe(os_states[g], state, g, rules)}")
    if not terminal.all():
        g = int(np.argmin(terminal))
        pytest.fail(f"games out of step: game {g} has not ended its hand{describe(os_states[g], state, g, rules)}")
    os_points = 26 - np.array([s.returns() for s in os_states])
    assert (os_points == np.array([[s.points(p) for p in range(4)] for s in os_states])).all()
    bad = (os_points != state.last_hand_points).any(axis=1)
    if bad.any():
        g = int(np.argmax(bad))
        pytest.fail(
            f"hand points: ours {state.last_hand_points[g].tolist()}, OpenSpiel {os_points[g].tolist()} "
            f"(returns {os_states[g].returns()}){describe(os_states[g], state, g, rules)}"
        )
    return os_points


# ---------------------------------------------------------------------------------------------
# Drivers


def play_against_openspiel(rules: HeartsRules, deals: np.ndarray, hands: int, shooters: np.ndarray, seed: int):
    """Play ``hands`` hands of every game of one batch in both engines; returns the (hands, B, 4)
    points of each hand."""
    rnd = random.Random(seed)
    game = openspiel_game(rules)
    state = new_games(rules, deals=deals, seed=seed)
    B = state.batch_size
    assert (bits_to_mask(state.hands).argmax(axis=1) == deals).all()
    results = []
    for hand in range(hands):
        direction = int(state.pass_offset[0])
        assert (state.pass_offset == direction).all()
        assert direction == OS_DIRECTION[rules.pass_direction(hand + 1)]
        dealt = bits_to_mask(state.hands)  # (B, 4, 52): a full deal, 13 cards each
        assert (dealt.sum(axis=1) == 1).all() and (dealt.sum(axis=2) == 13).all()
        os_states = [openspiel_hand(game, state.hands[g], direction) for g in range(B)]
        shooter = shooters if hand == 0 else np.where(shooters >= 0, (shooters + hand) % 4, -1)
        while True:
            legal = check_decision(os_states, state, rules)
            passing = state.phase == PASS
            following = state.trick_size > 0
            picks = [
                choose(rnd, legal[g], int(state.to_play[g]), int(shooter[g]), bool(passing[g]), bool(following[g]))
                for g in range(B)
            ]
            for os_state, pick in zip(os_states, picks, strict=True):
                os_state.apply_action(pick)
            state = step(state, OS_TO_OURS[picks])
            if passing.any() and not (state.phase == PASS).any():
                check_hands(os_states, state, rules)
            if state.hand_over.any() or any(s.is_terminal() for s in os_states):
                break
        results.append(check_hand_end(os_states, state, rules))
    return np.array(results), state


def hand_by_hand(n_hands: int, seed: int, **knobs) -> dict[str, int]:
    """``n_hands`` one-hand games on explicit random deals, a quarter for each pass direction."""
    rng = np.random.default_rng(seed)
    moons = 0
    for direction in ("none", "left", "across", "right"):
        deals, shooters = random_deals(rng, n_hands // 4)
        rules = HeartsRules(pass_cycle=(direction,), target_score=None, **knobs)
        points, state = play_against_openspiel(rules, deals, 1, shooters, seed)
        assert state.done.all() and (state.to_play == -1).all()
        assert (state.scores == points[0]).all()
        moons += int(((points[0] >= 16).sum(axis=1) == 3).sum())  # only a moon gives three players >= 16
    return {"hands": 4 * (n_hands // 4), "moons": moons}


def whole_games(n_hands: int, seed: int, **knobs) -> dict[str, int]:
    """One batch of ``n_hands / 4`` games under the standard pass cycle, four hands each."""
    rng = np.random.default_rng(seed)
    deals, shooters = random_deals(rng, n_hands // 4)
    rules = HeartsRules(target_score=10_000, **knobs)
    assert rules.pass_cycle == ("left", "right", "across", "none")
    points, state = play_against_openspiel(rules, deals, 4, shooters, seed)
    assert (state.scores == points.sum(axis=0)).all()
    assert (state.hand_number == 5).all() and not state.done.any()
    moons = int(((points >= 16).sum(axis=2) == 3).sum())
    return {"hands": points.shape[0] * points.shape[1], "moons": moons}


# ---------------------------------------------------------------------------------------------
# Tests

DEFAULT_HANDS = 8_000  # per driver with the default rules (about 3 s each on 2 cores)
VARIANT_HANDS = 2_000  # per variant, hand by hand
SLOW_HANDS = 25_000  # per driver and rule set in the slow test (about 25 s per rule set)


def test_card_and_direction_mapping():
    game = openspiel_game(HeartsRules())
    state = game.new_initial_state()
    assert [state.action_to_string(-1, d) for d in range(4)] == ["No Pass", "Left", "Across", "Right"]
    state.apply_action(0)
    for c in range(52):
        assert state.action_to_string(0, int(OURS_TO_OS[c])) == cards.card_name(c)
    assert sorted(OURS_TO_OS.tolist()) == list(range(52))
    for direction, offset in OS_DIRECTION.items():
        assert HeartsRules(pass_cycle=(direction,)).pass_offsets == (offset,)


def test_hand_by_hand_against_openspiel():
    stats = hand_by_hand(DEFAULT_HANDS, seed=1)
    assert stats["hands"] == DEFAULT_HANDS and stats["moons"] > 0


def test_whole_games_against_openspiel():
    stats = whole_games(DEFAULT_HANDS, seed=2)
    assert stats["hands"] == DEFAULT_HANDS and stats["moons"] > 0


VARIANTS = [
    pytest.param({"queen_breaks_hearts": False}, id="qs-does-not-break"),
    pytest.param({"jack_of_diamonds": True}, id="jack-of-diamonds"),
    pytest.param({"no_points_on_first_trick": False}, id="points-on-first-trick"),
    pytest.param({"queen_breaks_hearts": False, "jack_of_diamonds": True}, id="qs-no-break+jd"),
]


@pytest.mark.parametrize("knobs", VARIANTS)
def test_variants_against_openspiel(knobs):
    stats = hand_by_hand(VARIANT_HANDS, seed=3, **knobs)
    assert stats["hands"] == VARIANT_HANDS and stats["moons"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("knobs", [pytest.param({}, id="defaults"), *VARIANTS])
def test_many_hands_against_openspiel(knobs):
    started = time.perf_counter()
    a = hand_by_hand(SLOW_HANDS, seed=10, **knobs)
    b = whole_games(SLOW_HANDS, seed=11, **knobs)
    hands, moons = a["hands"] + b["hands"], a["moons"] + b["moons"]
    print(f"{knobs}: {hands} hands, {moons} moons, {time.perf_counter() - started:.1f}s")
    assert hands == 2 * SLOW_HANDS and moons > 0
