"""Card ids and names, the deck per player count, and HeartsRules knobs (docs/rules.md): bad knobs
and their command-line flags refused naming the knob."""

from __future__ import annotations

import argparse
import dataclasses
import json

import numpy as np
import pytest

from hearts_env import HeartsRules
from hearts_env.cli.commands import Parser
from hearts_env.engine import cards, kernels
from hearts_env.engine.core import bits_to_cards, new_games
from hearts_env.engine.rules import add_rules_arguments, rules_from_args

# ---------------------------------------------------------------------------------------------
# Card ids and names


@pytest.mark.parametrize(
    ("name", "card"),
    [("2C", 0), ("AC", 12), ("2D", 13), ("JD", 22), ("2S", 26), ("QS", 36), ("AS", 38), ("2H", 39), ("AH", 51)],
)
def test_card_ids(name, card):
    assert cards.parse_card(name) == card
    assert cards.card_name(card) == name


def test_card_id_formula():
    for suit, suit_char in enumerate("CDSH"):
        for rank, rank_char in zip(range(2, 15), "23456789TJQKA", strict=True):
            card = suit * 13 + rank - 2
            assert cards.card_id(suit, rank) == card
            assert cards.parse_card(rank_char + suit_char) == card
            assert cards.suit_of(card) == suit
            assert cards.rank_of(card) == rank
    assert sorted(cards.parse_card(cards.card_name(c)) for c in range(52)) == list(range(52))


@pytest.mark.parametrize(
    ("text", "card"),
    [("QS", 36), ("qs", 36), ("Qs", 36), ("10H", 47), ("th", 47), ("10h", 47), ("TH", 47), (" 2c ", 0), ("ad", 25)],
)
def test_parse_variants(text, card):
    assert cards.parse_card(text) == card


def test_parse_cards_lists():
    assert cards.parse_cards("2C QS 10H") == [0, 36, 47]
    assert cards.parse_cards("2c,qs, th") == [0, 36, 47]
    assert cards.parse_cards(["AH", 12, "2d"]) == [51, 12, 13]
    assert cards.parse_cards("") == []


@pytest.mark.parametrize("text", ["", "Q", "QX", "1H", "11H", "ZS", "QSS", "HQ", "10", "2 C", "♠Q"])
def test_bad_names_raise(text):
    with pytest.raises(ValueError, match="not a card"):
        cards.parse_card(text)


@pytest.mark.parametrize("card", [-1, 52, 100])
def test_bad_ids_raise(card):
    with pytest.raises(ValueError, match="out of range"):
        cards.card_name(card)
    with pytest.raises(ValueError):
        cards.parse_cards([card])


def test_card_id_rejects_bad_suit_or_rank():
    for suit, rank in [(4, 2), (-1, 5), (0, 1), (0, 15)]:
        with pytest.raises(ValueError):
            cards.card_id(suit, rank)


def test_card_symbol():
    assert cards.card_symbol(36) == "Q♠"
    assert cards.card_symbol(cards.parse_card("TH")) == "10♥"


def test_deal_from_hands():
    row = cards.deal_from_hands(["2C QS", "AH"])
    assert row.shape == (52,)
    assert row[0] == 0 and row[36] == 0 and row[51] == 1
    assert (np.delete(row, [0, 36, 51]) == -1).all()
    with pytest.raises(ValueError, match="QS"):
        cards.deal_from_hands(["2C QS", "qs"])
    with pytest.raises(ValueError):
        cards.deal_from_hands(["2C XX"])


# ---------------------------------------------------------------------------------------------
# The deck per player count

DECKS = {
    3: ({"2D"}, 17),
    4: (set(), 13),
    5: ({"2D", "2C"}, 10),
    6: ({"2D", "3D", "3C", "4C"}, 8),
    7: ({"2D", "3D", "3C"}, 7),
}
POINT_CARDS = {"QS"} | {r + "H" for r in "23456789TJQKA"}


@pytest.mark.parametrize("num_players", sorted(DECKS))
def test_deck_per_player_count(num_players):
    removed, size = DECKS[num_players]
    assert {cards.card_name(c) for c in cards.removed_cards(num_players)} == removed
    deck = {cards.card_name(c) for c in cards.deck(num_players)}
    assert len(deck) == 52 - len(removed) == size * num_players
    assert deck.isdisjoint(removed)
    assert POINT_CARDS <= deck  # all 26 points always in play
    assert cards.hand_size(num_players) == size
    assert HeartsRules(num_players=num_players).hand_size == size
    assert cards.lowest_club(num_players) == cards.parse_card("3C" if num_players == 5 else "2C")


@pytest.mark.parametrize("num_players", sorted(DECKS))
def test_random_deals_use_the_deck(num_players):
    removed, size = DECKS[num_players]
    state = new_games(HeartsRules(num_players=num_players, pass_count=0), batch_size=20, seed=1)
    for g in range(20):
        held = [bits_to_cards(int(state.hands[g, s])) for s in range(num_players)]
        assert [len(h) for h in held] == [size] * num_players
        everything = sorted(c for h in held for c in h)
        assert everything == cards.deck(num_players).tolist()
        assert not {cards.card_name(c) for c in everything} & removed


@pytest.mark.parametrize("num_players", [2, 8, 0, -4])
def test_deck_rejects_bad_player_count(num_players):
    with pytest.raises(ValueError, match="num_players"):
        cards.deck(num_players)


# ---------------------------------------------------------------------------------------------
# HeartsRules


def test_defaults_are_the_standard_four_player_game():
    rules = HeartsRules()
    assert rules.num_players == 4
    assert rules.pass_count == 3
    assert rules.pass_cycle == ("left", "right", "across", "none")
    assert rules.no_points_on_first_trick is True
    assert rules.queen_breaks_hearts is True
    assert rules.jack_of_diamonds is False
    assert rules.moon == "add_to_others"
    assert rules.target_score == 100
    assert rules.hand_size == 13
    assert [rules.pass_direction(n) for n in range(1, 9)] == ["left", "right", "across", "none"] * 2


@pytest.mark.parametrize("num_players", [3, 5, 6, 7])
def test_default_pass_cycle_other_counts(num_players):
    rules = HeartsRules(num_players=num_players)
    assert rules.pass_cycle == ("left", "right")
    assert [rules.pass_direction(n) for n in range(1, 5)] == ["left", "right", "left", "right"]


def test_pass_count_zero_means_no_pass():
    rules = HeartsRules(pass_count=0)
    assert [rules.pass_direction(n) for n in range(1, 5)] == ["none"] * 4


def test_custom_pass_cycle_is_kept():
    rules = HeartsRules(pass_cycle=["right", "none"])
    assert rules.pass_cycle == ("right", "none")
    assert [rules.pass_direction(n) for n in range(1, 5)] == ["right", "none", "right", "none"]


def test_target_zero_is_none():
    assert HeartsRules(target_score=0).target_score is None
    assert HeartsRules(target_score=None).target_score is None
    assert HeartsRules(target_score=1).target_score == 1


def test_rules_are_frozen_and_comparable():
    rules = HeartsRules(moon="shooter_choice")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.moon = "add_to_others"  # type: ignore[misc]
    assert rules == HeartsRules(moon="shooter_choice")
    assert rules != HeartsRules()


def test_valid_edge_values():
    for num_players in range(3, 8):
        HeartsRules(num_players=num_players, pass_count=0)
    HeartsRules(pass_count=np.int64(2), num_players=np.int32(4))
    for moon in ("add_to_others", "subtract_from_self", "shooter_choice"):
        assert HeartsRules(moon=moon).moon == moon
    HeartsRules(pass_cycle=("across",))


def test_numpy_knobs_are_kept_as_python_values() -> None:
    rules = HeartsRules(
        num_players=np.int64(5), pass_count=np.int32(2), jack_of_diamonds=np.bool_(True), target_score=np.uint8(250)
    )
    assert json.loads(json.dumps(rules.to_dict())) == {**rules.to_dict(), "pass_cycle": ["left", "right"]}
    assert type(rules.target_score) is int and rules.target_score + 26 == 276  # no uint8 wrapping
    assert type(rules.jack_of_diamonds) is bool and type(rules.num_players) is int


@pytest.mark.parametrize(
    ("knobs", "knob"),
    [
        ({"num_players": 2}, "num_players"),
        ({"num_players": 8}, "num_players"),
        ({"num_players": "4"}, "num_players"),
        ({"num_players": 4.0}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"pass_count": -1}, "pass_count"),
        ({"pass_count": 14}, "pass_count"),
        ({"pass_count": 8, "num_players": 7}, "pass_count"),
        ({"pass_count": 1.5}, "pass_count"),
        ({"pass_count": "3"}, "pass_count"),
        ({"pass_count": True}, "pass_count"),
        ({"pass_cycle": ()}, "pass_cycle"),
        ({"pass_cycle": "left"}, "pass_cycle"),
        ({"pass_cycle": ("left", "up")}, "pass_cycle"),
        ({"pass_cycle": ("across",), "num_players": 5}, "pass_cycle"),
        ({"pass_cycle": ("left", "across"), "num_players": 3}, "pass_cycle"),
        ({"no_points_on_first_trick": 1}, "no_points_on_first_trick"),
        ({"no_points_on_first_trick": "yes"}, "no_points_on_first_trick"),
        ({"queen_breaks_hearts": None}, "queen_breaks_hearts"),
        ({"queen_breaks_hearts": 0}, "queen_breaks_hearts"),
        ({"jack_of_diamonds": "no"}, "jack_of_diamonds"),
        ({"moon": "add"}, "moon"),
        ({"moon": None}, "moon"),
        ({"moon": "Add_To_Others"}, "moon"),
        ({"target_score": -1}, "target_score"),
        ({"target_score": 1.5}, "target_score"),
        ({"target_score": "100"}, "target_score"),
        ({"target_score": True}, "target_score"),
    ],
)
def test_invalid_knobs_raise_naming_the_knob(knobs, knob):
    with pytest.raises(ValueError, match=knob):
        HeartsRules(**knobs)


# ---------------------------------------------------------------------------------------------
# Knobs of any type, dictionaries and command-line flags: refused naming the knob


@pytest.mark.parametrize(
    ("knobs", "knob"),
    [
        ({"pass_cycle": 5}, "pass_cycle"),
        ({"pass_cycle": [["left"]]}, "pass_cycle"),
        ({"pass_cycle": {"left": 1}}, "pass_cycle"),
        ({"moon": []}, "moon"),
        ({"moon": np.array(["add_to_others", "x"])}, "moon"),
        ({"target_score": [100]}, "target_score"),
        ({"num_players": None}, "num_players"),
    ],
)
def test_rules_refuse_any_type_naming_the_knob(knobs, knob):
    with pytest.raises(ValueError, match=knob):
        HeartsRules(**knobs)


def test_rules_from_dict_refuses_non_mappings_and_unknown_knobs():
    assert HeartsRules.from_dict(HeartsRules(num_players=5, moon="shooter_choice").to_dict()) == HeartsRules(
        num_players=5, moon="shooter_choice"
    )
    assert HeartsRules.from_dict(json.loads(json.dumps(HeartsRules().to_dict()))) == HeartsRules()
    with pytest.raises(ValueError, match="rules must be a mapping"):
        HeartsRules.from_dict([4])
    with pytest.raises(ValueError, match="unknown rules knob jokers"):
        HeartsRules.from_dict({"jokers": 2})


def rules_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="x")  # every command's parser: a refusal is one line
    add_rules_arguments(parser)
    return parser


def test_rules_flags_are_the_dataclass_fields():
    parser = rules_parser()
    knobs = [f.name for f in dataclasses.fields(HeartsRules) if f.init]
    assert {a.dest for a in parser._actions} - {"help"} == set(knobs)
    assert rules_from_args(parser.parse_args([]), parser) == HeartsRules()
    variant = parser.parse_args(
        "--num-players 5 --pass-count 2 --pass-cycle left,none --points-on-first-trick --no-queen-breaks-hearts "
        "--jack-of-diamonds --moon shooter_choice --target-score 0".split()
    )
    assert rules_from_args(variant, parser) == HeartsRules(
        num_players=5,
        pass_count=2,
        pass_cycle=("left", "none"),
        no_points_on_first_trick=False,
        queen_breaks_hearts=False,
        jack_of_diamonds=True,
        moon="shooter_choice",
        target_score=None,
    )
    again = parser.parse_args(["--points-on-first-trick", "--no-points-on-first-trick", "--pass-cycle", "standard"])
    assert rules_from_args(again, parser) == HeartsRules()
    for flag in ("--num-players", "--moon", "--jack-of-diamonds", "--no-points-on-first-trick"):
        assert flag in parser.format_help()


def test_rule_params_hold_each_knob_at_its_index():
    """``kernels.rule_params`` writes each knob at the ``R_*`` index that names it, one index each."""
    k = kernels
    names = sorted((value, name) for name, value in vars(k).items() if name.startswith("R_"))
    assert [value for value, _ in names] == list(range(len(names)))  # R_CYCLE last: the offsets follow
    rules = HeartsRules(
        num_players=5,
        pass_count=2,
        pass_cycle=("right", "none", "left"),
        no_points_on_first_trick=False,
        jack_of_diamonds=True,
        moon="shooter_choice",
        target_score=77,
    )
    p = k.rule_params(rules, history=True)
    assert (p[k.R_PLAYERS], p[k.R_HAND_SIZE], p[k.R_PASS_COUNT], p[k.R_TARGET]) == (5, 10, 2, 77)
    assert (p[k.R_NO_POINTS_FIRST], p[k.R_QUEEN_BREAKS], p[k.R_JD]) == (0, 1, 1)
    assert p[k.R_MOON] == k.SHOOTER_CHOICE == 2
    assert p[k.R_FIRST_LEAD] == 1 << cards.parse_card("3C")  # 2C is out with five players
    assert p[k.R_HISTORY] == 10 and k.rule_params(rules)[k.R_HISTORY] == 0
    assert bits_to_cards(p[k.R_DECK]) == list(cards.deck(5))
    assert (p[k.R_DECKS], p[k.R_CYCLE_LENGTH], list(p[k.R_CYCLE :])) == (1, 3, [4, 0, 1])
    two = k.rule_params(HeartsRules(num_players=6, decks=2, pass_count=0))
    points = {*range(39, 52), cards.QS}
    assert bits_to_cards(two[k.R_FIRST_LEAD]) == [c for c in range(52) if c not in points]
    assert (two[k.R_DECKS], two[k.R_PASS_COUNT], two[k.R_CYCLE_LENGTH], list(two[k.R_CYCLE :])) == (2, 0, 1, [0])
    assert bits_to_cards(two[k.R_DECK]) == list(range(52))
