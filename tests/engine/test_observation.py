"""Tests of ``hearts_env.engine.observation``: the layout and what each section of the vector holds.

The expected sections are written from the module docstring's table. Each section is read back
through ``ObservationLayout.split`` and compared with a reference computed here straight from the
absolute ``State`` (seats rotated by hand), for scripted and random states.
"""

from __future__ import annotations

import numpy as np
import pytest
from random_states import cancelling_states, pass_offset, random_states

from hearts_env import HeartsRules
from hearts_env.engine import cards
from hearts_env.engine.core import GAME_OVER, PASS, PLAY, State, bits_to_mask, new_games, sample_actions, step
from hearts_env.engine.infoset import infoset
from hearts_env.engine.observation import LAYOUT_VERSION, ObservationLayout, encode, encode_packed, observe, unpack

QS, JD = cards.parse_card("QS"), cards.parse_card("JD")
HEARTS = np.arange(cards.card_id(cards.HEARTS, 2), cards.NUM_CARDS)


def documented_sections(num_players: int, jd: bool, history: bool, decks: int = 1) -> dict[str, tuple[int, ...]]:
    """Section shapes from the module docstring, in the table's order. Two decks add each
    second-copy row after its one-deck row, and the pot and the kitty's size after ``higher_unseen``."""
    P, H = num_players, cards.hand_size(num_players, decks)
    copied = ("hand", "played", "passed", "received", "unseen") if decks == 2 else ()
    shapes: dict[str, tuple[int, ...]] = {}
    for name, shape in [
        ("hand", (52,)),
        ("played", (P, 52)),
        ("trick", (P, 52)),
        ("passed", (52,)),
        ("received", (52,)),
        ("legal", (52,)),
        ("unseen", (52,)),
        ("higher_unseen", (52,)),
    ]:
        shapes[name] = shape
        if name in copied:
            shapes[f"{name}2"] = shape
    if decks == 2:
        shapes |= {"pot": (52,), "pot2": (52,), "kitty_size": (1,)}
    shapes |= {
        "trick_leader": (P,),
        "voids": (P, 4),
        "points": (P,),
    }
    if jd:
        shapes["jd_taken"] = (P,)
    shapes |= {
        "scores": (P,),
        "to_target": (1,),
        "hearts_broken": (1,),
        "phase": (2,),
        "pass_direction": (P,),
        "tricks_played": (1,),
    }
    if history:
        shapes |= {"history": (H, P, 52), "history_leaders": (H, P)}
    return shapes


def one_hot(index: np.ndarray, n: int) -> np.ndarray:
    """(..., n) uint8, all zero where index < 0."""
    index = np.asarray(index)
    return ((index[..., None] == np.arange(n)) & (index[..., None] >= 0)).astype(np.uint8)


# ---------------------------------------------------------------------------------------------
# Layout


@pytest.mark.parametrize("history", [False, True])
@pytest.mark.parametrize("jd", [False, True])
@pytest.mark.parametrize("num_players", range(3, 8))
def test_layout_sections_and_size(num_players: int, jd: bool, history: bool) -> None:
    P = num_players
    layout = ObservationLayout(HeartsRules(num_players=P, jack_of_diamonds=jd), history=history)
    expected = documented_sections(P, jd, history)
    assert list(layout.sections) == list(expected), "sections (in the documented order)"
    for name, (where, shape) in layout.sections.items():
        assert shape == expected[name], name
        assert where.stop - where.start == int(np.prod(shape)), name
    # The size, counted by hand: 6 x 52 card rows, 2 x P x 52, 8 per-seat rows of P (trick leader,
    # 4 voids, points, scores, pass direction) and 5 singles; P more for the JD; H x P x 53 for history.
    size = 6 * 52 + 2 * P * 52 + 8 * P + 5 + (P if jd else 0)
    if history:
        size += cards.hand_size(P) * P * 53
    assert layout.size == size
    if P == 4:
        assert (
            layout.size
            == {(False, False): 765, (True, False): 769, (False, True): 3521, (True, True): 3525}[(jd, history)]
        )


@pytest.mark.parametrize("history", [False, True])
@pytest.mark.parametrize("num_players", range(3, 8))
def test_sections_tile_the_vector(num_players: int, history: bool) -> None:
    layout = ObservationLayout(HeartsRules(num_players=num_players, jack_of_diamonds=True), history=history)
    starts = sorted((where.start, where.stop) for where, _ in layout.sections.values())
    assert starts[0][0] == 0 and starts[-1][1] == layout.size
    for (_, stop), (start, _) in zip(starts[:-1], starts[1:], strict=True):
        assert stop == start, "a gap or an overlap between sections"
    # split of the positions 0..size-1: every position read exactly once, each section in place.
    positions = np.arange(layout.size)
    parts = layout.split(positions)
    assert set(parts) == set(layout.sections)
    seen = np.concatenate([part.ravel() for part in parts.values()])
    assert sorted(seen.tolist()) == positions.tolist()
    for name, (where, shape) in layout.sections.items():
        assert parts[name].shape == shape
        np.testing.assert_array_equal(parts[name].ravel(), positions[where])
    # Leading axes are kept.
    batch = np.arange(6 * layout.size).reshape(2, 3, layout.size)
    for name, part in layout.split(batch).items():
        shape = layout.sections[name][1]
        assert part.shape == (2, 3, *shape)
        np.testing.assert_array_equal(part[1, 2].ravel(), batch[1, 2, layout.sections[name][0]])


def test_scale_brings_counts_to_unit_range() -> None:
    rules = HeartsRules(target_score=50)
    layout = ObservationLayout(rules)
    scale = layout.split(layout.scale())
    assert layout.scale().dtype == np.float32 and layout.scale().shape == (layout.size,)
    assert np.all(scale["hand"] == 1) and np.all(scale["voids"] == 1) and np.all(scale["legal"] == 1)
    np.testing.assert_allclose(scale["points"], 1 / 26)
    np.testing.assert_allclose(scale["scores"], 1 / 50)
    np.testing.assert_allclose(scale["to_target"], 1 / 50)
    np.testing.assert_allclose(scale["tricks_played"], 1 / 13)
    np.testing.assert_allclose(scale["higher_unseen"], 1 / 12)
    one_hand = ObservationLayout(HeartsRules(target_score=None))
    np.testing.assert_allclose(one_hand.split(one_hand.scale())["scores"], 1 / 100)


def test_layout_depends_only_on_players_jd_and_history() -> None:
    base = ObservationLayout(HeartsRules())
    for knobs in (
        dict(pass_count=0),
        dict(pass_count=1, pass_cycle=("none", "left")),
        dict(moon="shooter_choice"),
        dict(target_score=None),
        dict(target_score=500),
        dict(queen_breaks_hearts=False, no_points_on_first_trick=False),
    ):
        layout = ObservationLayout(HeartsRules(**knobs))
        assert layout.sections == base.sections, knobs
        assert layout.size == base.size
    assert ObservationLayout(HeartsRules(jack_of_diamonds=True)).size == base.size + 4
    assert ObservationLayout(HeartsRules(num_players=5)).size != base.size
    assert ObservationLayout(HeartsRules(), history=True).size > base.size


# ---------------------------------------------------------------------------------------------
# What each section holds


def card_rows(trick: np.ndarray) -> np.ndarray:
    """(..., 52) uint8 one-hot rows of card ids (-1 gives a zero row)."""
    return one_hot(trick, 52)


def trick_voids(state: State) -> np.ndarray:
    """(B, P) uint8 by absolute seat: suits seats failed to follow in the current trick."""
    out = np.zeros((state.batch_size, state.num_players), np.uint8)
    for g in range(state.batch_size):
        lead = int(state.trick[g, state.leader[g]])
        for a in range(state.num_players):
            c = int(state.trick[g, a])
            if lead >= 0 and c >= 0 and c // 13 != lead // 13:
                out[g, a] = 1 << lead // 13
    return out


def expected_sections(state: State, seat: int, history: bool) -> dict[str, np.ndarray]:
    """The documented content of each section for observer ``seat`` (absolute) in every game."""
    rules, P, B = state.rules, state.num_players, state.batch_size
    order = (seat + np.arange(P)) % P  # absolute seat of relative seat r
    taken = bits_to_mask(state.taken[:, order])  # (B, P, 52)
    offset = np.array([pass_offset(rules, h) for h in state.hand_number])
    giver = (seat - offset) % P
    landed = (state.phase != PASS) & (offset != 0)
    received = np.where(landed, state.passed[np.arange(B), giver], np.uint64(0))
    scores = state.scores[:, order].astype(np.int64)
    deck = np.zeros(52, bool)
    deck[cards.deck(P)] = True
    gone = bits_to_mask(state.played).any(axis=1) | card_rows(state.trick).any(axis=1)
    picked = np.where((state.phase == PASS)[:, None], bits_to_mask(state.passed[:, seat]), 0)
    unseen = deck & ~gone & ~bits_to_mask(state.hands[:, seat]).astype(bool) & ~picked.astype(bool)
    higher = np.zeros((B, 52), np.int64)
    for card in range(52):
        same_suit_above = np.arange(card + 1, (card // 13 + 1) * 13)
        higher[:, card] = unseen[:, same_suit_above].sum(axis=1)
    out = {
        "hand": bits_to_mask(state.hands[:, seat]),
        "played": bits_to_mask(state.played[:, order]) | card_rows(state.trick[:, order]).astype(bool),
        "trick": card_rows(state.trick[:, order]),
        "passed": bits_to_mask(state.passed[:, seat]),
        "received": bits_to_mask(received),
        "legal": bits_to_mask(np.where(state.to_play == seat, state.legal, np.uint64(0))),
        "unseen": unseen,
        "higher_unseen": higher,
        "trick_leader": one_hot(np.where(state.phase == PLAY, (state.leader - seat) % P, -1), P),
        "voids": ((state.voids | trick_voids(state))[:, order, None] >> np.arange(4)) & 1,
        "points": taken[:, :, HEARTS].sum(axis=2) + 13 * taken[:, :, QS],
        "scores": np.minimum(scores - scores.min(axis=1, keepdims=True), 255),
        # A one-hand game reads as hand 1 of a game to 100.
        "to_target": np.clip((rules.target_score or 100) - scores.max(axis=1, keepdims=True), 0, 255),
        "hearts_broken": state.hearts_broken[:, None],
        "phase": np.stack([state.phase == PASS, state.phase == PLAY], axis=1),
        "pass_direction": one_hot(offset, P),
        "tricks_played": state.tricks_played[:, None],
    }
    if rules.jack_of_diamonds:
        out["jd_taken"] = taken[:, :, JD]
    if history:
        out["history"] = card_rows(state.tricks[:, :, order])
        out["history_leaders"] = one_hot(np.where(state.trick_leaders >= 0, (state.trick_leaders - seat) % P, -1), P)
    return out


def check_sections(state: State, seat: int, layout: ObservationLayout) -> None:
    obs = encode(infoset(state, seat), layout)
    assert obs.dtype == np.uint8 and obs.shape == (state.batch_size, layout.size)
    got = layout.split(obs)
    expected = expected_sections(state, seat, layout.history)
    assert set(got) == set(expected)
    live = ~state.done  # the trick leader is not defined once the game is over
    for name, want in expected.items():
        have = got[name] if name != "trick_leader" else got[name][live]
        want = want if name != "trick_leader" else want[live]
        np.testing.assert_array_equal(have, np.asarray(want).astype(np.int64), err_msg=f"seat {seat}: {name}")


RULESETS = [
    HeartsRules(num_players=3, target_score=50),
    HeartsRules(num_players=4, jack_of_diamonds=True, target_score=60),
    HeartsRules(num_players=5, pass_count=1, target_score=None),
    HeartsRules(num_players=6, jack_of_diamonds=True, queen_breaks_hearts=False, target_score=40),
    HeartsRules(num_players=7, target_score=40),
    HeartsRules(num_players=4, pass_count=0, moon="subtract_from_self", target_score=40),
]


@pytest.mark.parametrize("history", [False, True], ids=["compact", "history"])
@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: f"P{r.num_players}-jd{int(r.jack_of_diamonds)}")
def test_sections_read_back_for_random_states(rules: HeartsRules, history: bool) -> None:
    layout = ObservationLayout(rules, history=history)
    hand_steps = rules.num_players * rules.pass_count + len(cards.deck(rules.num_players))
    states = random_states(rules, 6, seed=rules.num_players, history=history, steps=5 * hand_steps, keep=0.2)
    phases, points, jd = set(), 0, 0
    for state in states:
        for seat in range(rules.num_players):
            check_sections(state, seat, layout)
        phases.update(state.phase.tolist())
        points = max(points, int(state.hand_points.max()))
        jd += int((state.taken & np.uint64(1 << JD)).any())
    assert phases >= {PASS, PLAY} if rules.pass_count else phases >= {PLAY}
    assert points > 0
    if rules.jack_of_diamonds:
        assert jd > 0
    if rules.target_score is None:
        assert GAME_OVER in phases


def test_points_stay_within_0_to_26() -> None:
    rules = HeartsRules(jack_of_diamonds=True, target_score=None)
    layout = ObservationLayout(rules)
    rng = np.random.default_rng(5)
    state = new_games(rules, batch_size=64, seed=5)
    while not state.done.all():
        points = layout.split(encode(infoset(state, 0), layout))["points"]
        assert points.max() <= 26 and points.sum(axis=1).max() <= 26
        state = step(state, sample_actions(state, rng))
    final = layout.split(encode(infoset(state, 0), layout))["points"]
    np.testing.assert_array_equal(final.sum(axis=1), 26)  # the last hand's taken piles: all 26 points


def test_scores_and_to_target_are_capped() -> None:
    rules = HeartsRules(target_score=1000)
    state = new_games(rules, batch_size=3, seed=0)
    scores = np.array([[0, 300, 50, 1000], [7, 7, 7, 7], [400, 1400, 999, 655]], np.int32)
    state = state.replace(scores=scores)
    layout = ObservationLayout(rules)
    got = layout.split(encode(infoset(state, 1), layout))
    # Seen from seat 1: seats 1, 2, 3, 0.
    np.testing.assert_array_equal(got["scores"], [[255, 50, 255, 0], [0, 0, 0, 0], [255, 255, 255, 0]])
    np.testing.assert_array_equal(got["to_target"][:, 0], [0, 255, 0])
    state = state.replace(scores=np.array([[900, 960, 800, 810]] * 3, np.int32))
    got = layout.split(encode(infoset(state, 0), layout))
    np.testing.assert_array_equal(got["scores"][0], [100, 160, 0, 10])
    np.testing.assert_array_equal(got["to_target"][:, 0], 40)


def test_one_hand_game_observes_like_hand_one_of_a_standard_game() -> None:
    """A single hand (target None) shows the observation of hand 1 of a game to 100, the setting
    trained agents learn in, at every decision of the hand."""
    rng = np.random.default_rng(3)
    single = new_games(HeartsRules(target_score=None), batch_size=8, seed=5)
    full = new_games(HeartsRules(), keys=single.key)
    one_hand, standard = ObservationLayout(single.rules), ObservationLayout(full.rules)
    while not single.done.any():
        for seat in range(4):
            np.testing.assert_array_equal(
                encode(infoset(single, seat), one_hand), encode(infoset(full, seat), standard)
            )
        actions = sample_actions(single, rng)
        single, full = step(single, actions), step(full, actions)


def test_jd_taken_only_with_the_jd_rule() -> None:
    for jd in (False, True):
        rules = HeartsRules(jack_of_diamonds=jd, target_score=None)
        layout = ObservationLayout(rules)
        assert ("jd_taken" in layout.sections) == jd
        state = new_games(rules, batch_size=16, seed=1)
        rng = np.random.default_rng(1)
        while not state.done.all():
            state = step(state, sample_actions(state, rng))
        obs = layout.split(encode(infoset(state, 2), layout))
        if jd:
            np.testing.assert_array_equal(obs["jd_taken"].sum(axis=1), 1)  # someone took it
            holder = np.argmax((state.taken >> np.uint64(JD)) & np.uint64(1), axis=1)
            np.testing.assert_array_equal(np.argmax(obs["jd_taken"], axis=1), (holder - 2) % 4)


def test_scripted_state() -> None:
    """A scripted 4-player hand with the JD rule, read from seat 3 (and 2) after 2 tricks and 2 cards."""
    hands = [
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
        "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
        "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
        "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    ]
    rules = HeartsRules(jack_of_diamonds=True)
    state = new_games(rules, deals=cards.deal_from_hands(hands)[None], seed=0)
    passes = "AC KC QC  AD KD JD  AS KS QS  AH KH QH"  # to the left
    tricks = "2C QC JD AS  KC AD QS 3C  AC 2S"  # seat 0 leads; seat 1 takes both tricks
    for name in (passes + " " + tricks).split():
        state = step(state, np.array([cards.parse_card(name)]))
    assert state.to_play[0] == 3

    def bits(text: str) -> np.ndarray:
        row = np.zeros(52, np.uint8)
        row[cards.parse_cards(text)] = 1
        return row

    layout = ObservationLayout(rules)
    obs = layout.split(encode(infoset(state, 3), layout)[0])
    # Seat 3 sees: 0 = itself, 1 = seat 0, 2 = seat 1, 3 = seat 2.
    np.testing.assert_array_equal(obs["hand"], bits("2H 3H 4H 5H 6H 7H 8H 9H TH JH KS"))
    np.testing.assert_array_equal(obs["passed"], bits("AH KH QH"))
    np.testing.assert_array_equal(obs["received"], bits("AS KS QS"))
    np.testing.assert_array_equal(obs["played"], [bits("AS QS"), bits("2C 3C"), bits("QC KC AC"), bits("JD AD 2S")])
    np.testing.assert_array_equal(obs["trick"], [bits(""), bits(""), bits("AC"), bits("2S")])
    np.testing.assert_array_equal(obs["trick_leader"], [0, 0, 1, 0])
    np.testing.assert_array_equal(obs["voids"], [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]])
    np.testing.assert_array_equal(obs["points"], [0, 0, 13, 0])  # the QS; the JD's -10 is not in points
    np.testing.assert_array_equal(obs["jd_taken"], [0, 0, 1, 0])
    np.testing.assert_array_equal(obs["scores"], [0, 0, 0, 0])
    np.testing.assert_array_equal(obs["to_target"], [100])
    np.testing.assert_array_equal(obs["hearts_broken"], [1])  # by the QS
    np.testing.assert_array_equal(obs["phase"], [0, 1])
    np.testing.assert_array_equal(obs["pass_direction"], [0, 1, 0, 0])
    np.testing.assert_array_equal(obs["tricks_played"], [2])
    assert infoset(state, 3).points[0].tolist() == [0, 0, 3, 0]  # the info set counts the JD
    seat2 = layout.split(encode(infoset(state, 2), layout)[0])
    np.testing.assert_array_equal(seat2["received"], bits("AD KD JD"))
    np.testing.assert_array_equal(seat2["passed"], bits("AS KS QS"))
    np.testing.assert_array_equal(seat2["trick"], [bits("2S"), bits(""), bits(""), bits("AC")])
    np.testing.assert_array_equal(seat2["trick_leader"], [0, 0, 0, 1])
    np.testing.assert_array_equal(seat2["voids"][0], [1, 0, 0, 0])


def test_pass_phase_sections() -> None:
    """During the pass: phase (1, 0), no trick leader, nothing received yet, this hand's direction."""
    for hand_number, offset in ((1, 1), (2, 3), (3, 2), (4, 0)):
        rules = HeartsRules()
        state = new_games(rules, batch_size=2, seed=hand_number)
        state = state.replace(hand_number=np.full(2, hand_number, np.int32))
        layout = ObservationLayout(rules)
        obs = layout.split(encode(infoset(state, 0), layout))
        np.testing.assert_array_equal(obs["pass_direction"], one_hot(np.full(2, offset), 4))
        if offset:
            np.testing.assert_array_equal(obs["phase"], [[1, 0]] * 2)
            np.testing.assert_array_equal(obs["trick_leader"], 0)
            np.testing.assert_array_equal(obs["received"], 0)


# ---------------------------------------------------------------------------------------------
# Batches and errors


@pytest.mark.parametrize("num_players", [3, 4, 7])
def test_batch_encodes_like_each_game_alone(num_players: int) -> None:
    rules = HeartsRules(num_players=num_players, jack_of_diamonds=True)
    rng = np.random.default_rng(num_players)
    for history in (False, True):
        layout = ObservationLayout(rules, history=history)
        for state in random_states(rules, 7, seed=num_players, history=history, steps=150, keep=0.1):
            seats = rng.integers(0, num_players, state.batch_size)
            together = encode(infoset(state, seats), layout)
            alone = np.concatenate([encode(infoset(state[g], int(seats[g])), layout) for g in range(state.batch_size)])
            np.testing.assert_array_equal(together, alone)
            default = encode(infoset(state), layout)  # the seat to act
            for g in range(state.batch_size):
                np.testing.assert_array_equal(default[g], encode(infoset(state[g], state.to_play[g]), layout)[0])


@pytest.mark.parametrize("history", [False, True])
def test_encode_into_a_reused_buffer(history: bool) -> None:
    """Every entry is written: a buffer full of garbage gives the same vectors as a fresh encode."""
    rules = HeartsRules(num_players=5, jack_of_diamonds=True, target_score=None)
    layout = ObservationLayout(rules, history=history)
    for state in random_states(rules, 6, seed=3, history=history, steps=120, keep=0.2):
        info = infoset(state)
        buffer = np.full((state.batch_size, layout.size), 0xAB, np.uint8)
        result = encode(info, layout, out=buffer)
        assert result is buffer
        np.testing.assert_array_equal(buffer, encode(info, layout))
    with pytest.raises(ValueError, match=r"out must be a C-contiguous uint8 array of shape \(6, "):
        encode(info, layout, out=np.zeros((6, layout.size + 1), np.uint8))
    with pytest.raises(ValueError, match="out must be"):
        encode(info, layout, out=np.zeros((6, layout.size), np.float32))


@pytest.mark.parametrize("num_players", [3, 4, 7])
@pytest.mark.parametrize("history", [False, True])
def test_packed_form_unpacks_to_the_vector(num_players: int, history: bool) -> None:
    rules = HeartsRules(num_players=num_players, jack_of_diamonds=num_players == 4)
    layout = ObservationLayout(rules, history=history)
    P, H = num_players, rules.hand_size
    assert layout.card_rows == 2 * P + 5 + (H * P if history else 0)
    assert layout.packed_size == layout.size - layout.card_rows * 44  # 52 bytes -> 8 per card row
    for state in random_states(rules, 5, seed=num_players, history=history, steps=150, keep=0.1):
        info = infoset(state)
        packed = encode_packed(info, layout)
        assert packed.shape == (5, layout.packed_size) and packed.dtype == np.uint8
        np.testing.assert_array_equal(unpack(packed, layout), encode(info, layout))
        np.testing.assert_array_equal(unpack(packed[None], layout)[0], encode(info, layout))  # any leading axes
        buffer = np.full_like(packed, 0xCD)
        assert encode_packed(info, layout, out=buffer) is buffer
        np.testing.assert_array_equal(buffer, packed)
    with pytest.raises(ValueError, match=f"packed observations must have {layout.packed_size} bytes"):
        unpack(packed[:, :-1], layout)


def test_packed_card_rows_are_little_endian_bitboards() -> None:
    rules = HeartsRules()
    layout = ObservationLayout(rules)
    state = new_games(rules, batch_size=3, seed=4)
    packed = encode_packed(infoset(state), layout)
    hand = packed[:, :8].astype(np.uint64) << (np.arange(8, dtype=np.uint64) * np.uint64(8))
    np.testing.assert_array_equal(np.bitwise_or.reduce(hand, axis=1), state.hands[np.arange(3), state.to_play])
    words = packed[:, : 8 * layout.card_rows].view("<u8")  # the documented way to read the rows back
    np.testing.assert_array_equal(words[:, 0], state.hands[np.arange(3), state.to_play])


def test_history_layout_needs_recorded_history() -> None:
    rules = HeartsRules()
    state = new_games(rules, batch_size=2, seed=0)
    with pytest.raises(ValueError, match=r"history=True"):
        encode(infoset(state), ObservationLayout(rules, history=True))
    recorded = new_games(rules, batch_size=2, seed=0, history=True)
    compact = encode(infoset(recorded), ObservationLayout(rules))
    np.testing.assert_array_equal(compact, encode(infoset(state), ObservationLayout(rules)))


# ---------------------------------------------------------------------------------------------
# Two decks (Cancellation Hearts)


def bits_count(once: np.ndarray, twice: np.ndarray) -> np.ndarray:
    return bits_to_mask(once).astype(np.int64) + bits_to_mask(twice)


@pytest.mark.parametrize("history", [False, True])
@pytest.mark.parametrize("num_players", range(6, 12))
def test_two_deck_layout(num_players: int, history: bool) -> None:
    P = num_players
    rules = HeartsRules(num_players=P, decks=2, jack_of_diamonds=P % 2 == 0)
    layout = ObservationLayout(rules, history=history)
    expected = documented_sections(P, rules.jack_of_diamonds, history, decks=2)
    assert list(layout.sections) == list(expected)
    assert {name: shape for name, (_, shape) in layout.sections.items()} == expected
    # One-deck size plus 6 card rows (hand2, passed2, received2, unseen2, pot, pot2), P (played2)
    # and the kitty's size.
    size = 12 * 52 + 3 * P * 52 + 8 * P + 6 + (P if rules.jack_of_diamonds else 0)
    if history:
        size += rules.hand_size * P * 53
    assert layout.size == size
    assert layout.card_rows == 3 * P + 11 + (rules.hand_size * P if history else 0)
    scale = layout.split(layout.scale())
    np.testing.assert_allclose(scale["points"], 1 / 52)
    np.testing.assert_allclose(scale["higher_unseen"], 1 / 24)
    np.testing.assert_allclose(scale["kitty_size"], 1 / max(1, rules.kitty_size))
    assert LAYOUT_VERSION == 2  # the one-deck layout did not change


def two_deck_expected(state: State, seat: int) -> dict[str, np.ndarray]:
    """The documented two-deck sections for observer ``seat``, straight from the state."""
    P, B = state.num_players, state.batch_size
    order = (seat + np.arange(P)) % P
    trick = card_rows(state.trick[:, order]).astype(np.int64)  # (B, P, 52)
    played = bits_count(state.played[:, order], state.played2[:, order]) + trick
    taken = bits_count(state.taken[:, order], state.taken2[:, order])
    pot = bits_count(state.pot[:, 0], state.pot[:, 1])
    own = bits_count(state.hands[:, seat], state.hands2[:, seat])
    own += np.where((state.phase == PASS)[:, None], bits_count(state.passed[:, seat], state.passed2[:, seat]), 0)
    unseen = 2 - own - taken.sum(1) - pot - trick.sum(1)
    higher = np.zeros((B, 52), np.int64)
    for card in range(52):
        higher[:, card] = unseen[:, card + 1 : (card // 13 + 1) * 13].sum(axis=1)
    offset = np.array([pass_offset(state.rules, h) for h in state.hand_number])
    landed = ((state.phase != PASS) & (offset != 0))[:, None]
    giver = (seat - offset) % P
    out = {
        "hand": bits_to_mask(state.hands[:, seat]),
        "hand2": bits_to_mask(state.hands2[:, seat]),
        "played": played >= 1,
        "played2": played == 2,
        "passed2": bits_to_mask(state.passed2[:, seat]),
        "received": landed & bits_to_mask(state.passed[np.arange(B), giver]),
        "received2": landed & bits_to_mask(state.passed2[np.arange(B), giver]),
        "unseen": unseen >= 1,
        "unseen2": unseen == 2,
        "higher_unseen": higher,
        "pot": pot >= 1,
        "pot2": pot == 2,
        "kitty_size": np.bitwise_count(state.kitty).sum(1, keepdims=True),
        "points": taken[:, :, HEARTS].sum(axis=2) + 13 * taken[:, :, QS],
    }
    if state.rules.jack_of_diamonds:
        out["jd_taken"] = taken[:, :, JD]
    return out


@pytest.mark.parametrize("num_players", range(6, 12))
def test_two_deck_sections_read_back(num_players: int) -> None:
    rules = HeartsRules(num_players=num_players, decks=2, jack_of_diamonds=num_players % 2 == 1, target_score=80)
    layout = ObservationLayout(rules)
    states = random_states(rules, 4, seed=num_players, history=False, steps=300, keep=0.05)
    states += cancelling_states(rules, 6, seed=num_players, steps=400, keep=0.15)
    most = dict.fromkeys(("points", "higher_unseen", "pot", "kitty_size", "jd_taken"), 0)
    for state in states:
        for seat in range(num_players):
            obs = encode(infoset(state, seat), layout)
            np.testing.assert_array_equal(observe(state, seat, layout), obs)
            np.testing.assert_array_equal(unpack(encode_packed(infoset(state, seat), layout), layout), obs)
            got = layout.split(obs)
            for name, want in two_deck_expected(state, seat).items():
                np.testing.assert_array_equal(got[name], np.asarray(want, np.int64), err_msg=f"seat {seat}: {name}")
                most[name] = max(most.get(name, 0), int(np.asarray(want).max()))
    assert most["points"] > 26 and most["higher_unseen"] > 12 and most["pot"] == 1
    assert most["kitty_size"] == rules.kitty_size
    if rules.jack_of_diamonds:
        assert most["jd_taken"] >= 1


def test_observation_of_two_decks_needs_an_info_set_of_two_decks() -> None:
    one = new_games(HeartsRules(num_players=6), batch_size=1, seed=0)
    with pytest.raises(ValueError, match=r"info sets of 1 deck\(s\) for a layout of 2"):
        encode(infoset(one), ObservationLayout(HeartsRules(num_players=6, decks=2)))


# ---------------------------------------------------------------------------------------------
# observe checks its seats and its layout


def test_observe_refuses_seats_off_the_table_and_layouts_of_other_rules() -> None:
    state = new_games(HeartsRules(), batch_size=3, seed=0)
    layout = ObservationLayout(HeartsRules())
    good = observe(state, state.to_play.astype(np.int64), layout)
    for seat in (4, -1, np.array([0, 4, 1], np.int64), np.array([0, 1, -2], np.int64)):
        with pytest.raises(ValueError, match=r"seat must be in 0\.\.3"):
            observe(state, seat, layout)
    with pytest.raises(ValueError, match="seat must be an int"):
        observe(state, np.array([0.5, 1, 2]), layout)
    for other in (HeartsRules(num_players=5), HeartsRules(num_players=6, decks=2)):
        with pytest.raises(ValueError, match="layout"):
            observe(state, 0, ObservationLayout(other))
    with pytest.raises(ValueError, match="packed must be True or False"):
        observe(state, 0, layout, packed="yes")
    np.testing.assert_array_equal(observe(state, state.to_play.astype(np.int64), layout), good)  # nothing changed
