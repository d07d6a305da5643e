"""Recorded games: hearts-arena --record writes every card; load() plays each game again through
the core and refuses truncated, edited or foreign files with one line naming the problem."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hearts_env.agents import cli as arena_cli
from hearts_env.arena import play_match
from hearts_env.engine import core
from hearts_env.engine.rules import HeartsRules
from hearts_env.play import replay
from hearts_env.play.policy import RandomPolicy


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines(keepends=True)


def write(tmp_path: Path, content: list[str]) -> Path:
    out = tmp_path / "edited.jsonl"
    out.write_text("".join(content))
    return out


def test_a_recorded_match_replays_to_its_results(recorded_match: Path) -> None:
    loaded = replay.load(recorded_match)
    assert loaded.header["format"] == "hearts-replay" and loaded.header["version"] == replay.VERSION
    assert loaded.rules == HeartsRules(target_score=30) and len(loaded.games) == 8
    assert [(g.deal, g.rotation) for g in loaded.games] == [(d, r) for d in range(2) for r in range(4)]
    first = loaded.games[0]
    assert first.seats == ("random-a", "random-b", "random-b", "random-b")
    assert loaded.games[1].seats == ("random-b", "random-a", "random-b", "random-b")  # rotated
    states = loaded.states(0)
    assert states[-1].done[0] and tuple(states[-1].scores[0].tolist()) == first.scores
    assert len(states) == 1 + sum(len(h.cards) for h in first.hands)
    assert len(first.hands) == int(states[-1].hand_number[0]) > 1
    # every hand: pass_count picks per seat (when it passes) and every card of the deal
    for hand in first.hands:
        assert len(hand.cards) in (52, 52 + 12)


def test_recording_changes_no_result_and_matches_the_core() -> None:
    agents = [
        ("a", RandomPolicy(seed=0)),
        ("b", RandomPolicy(seed=1)),
        ("b", RandomPolicy(seed=2)),
        ("c", RandomPolicy(3)),
    ]
    rules = HeartsRules(num_players=4, target_score=None)
    plain = play_match(rules, agents, deals=3, seed=5, episode="hand")
    recorded = play_match(rules, agents, deals=3, seed=5, episode="hand", record=True)
    np.testing.assert_array_equal(plain.scores, recorded.scores)
    assert plain.games == () and len(recorded.games) == 12
    for game in recorded.games:  # single hands: each deal passes its own way
        assert game.pass_cycle[0] == rules.pass_cycle[game.deal % 4]
        state = core.new_games(game.rules(rules), keys=np.array([game.key], np.uint64))
        for card in game.hands[0].cards:
            state = core.step(state, np.array([card]))
        assert state.done[0] and tuple(state.scores[0].tolist()) == game.scores


def test_two_decks_record_the_kitty(tmp_path: Path) -> None:
    rules = HeartsRules(num_players=6, decks=2, target_score=None)
    result = play_match(rules, [("r", RandomPolicy(seed=0))] * 6, deals=1, seed=0, episode="hand", record=True)
    path = tmp_path / "two.jsonl"
    assert replay.save(path, [result]) == 6
    loaded = replay.load(path)
    hand = loaded.games[0].hands[0]
    assert len(hand.kitty) == rules.kitty_size and sum(len(s) for s in hand.deal) + len(hand.kitty) == 104


def test_hearts_arena_record_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.jsonl"
    arena_cli.main(["random", "simple", "random", "random", "--deals", "2", "--episode", "hand", "--record", str(out)])
    assert "recorded 8 games" in capsys.readouterr().err
    assert len(replay.load(out).games) == 8
    with pytest.raises(SystemExit):
        arena_cli.main(["random"] * 4 + ["--deals", "1", "--record", str(tmp_path / "no" / "such.jsonl")])
    assert "--record: no folder" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda ls: ls[:-1], r"header announces 8 games, the file holds 7 \(truncated\)"),
        (lambda ls: ls[:-1] + [ls[-1][:-40]], r"line 9: the file ends in the middle of a line \(truncated\)"),
        (lambda ls: [ls[0].replace('"version": 1', '"version": 2')] + ls[1:], r"line 1: replay format version 2"),
        (lambda ls: [ls[0].replace('"num_players": 4', '"num_players": 9')] + ls[1:], r"line 1: rules this hearts_env"),
        (lambda ls: [ls[0].replace('"moon": "add_to_others"', '"moonx": 1')] + ls[1:], r"line 1: .*unknown rules knob"),
        (
            lambda ls: [ls[0].replace('"target_score": 30', '"target_score": 60')] + ls[1:],
            r"line \d: the game goes on to hand \d, its record ends",
        ),
        (lambda ls: ["not json\n"] + ls[1:], r"line 1: not a JSON line"),
        (lambda ls: ['{"format": "other"}\n'] + ls[1:], r"line 1: not a replay file"),
        (lambda ls: [], r"empty file"),
    ],
)
def test_refused_files_name_the_problem(recorded_match: Path, tmp_path: Path, edit, message: str) -> None:
    with pytest.raises(replay.ReplayError, match=message):
        replay.load(write(tmp_path, edit(lines(recorded_match))))


def edit_game(path: Path, index: int, change) -> list[str]:
    content = lines(path)
    game = json.loads(content[index + 1])
    change(game)
    content[index + 1] = json.dumps(game) + "\n"
    return content


def test_an_illegal_card_is_refused_naming_the_line_and_the_rule(recorded_match: Path, tmp_path: Path) -> None:
    def swap(game: dict) -> None:  # the first trick's lead (after the passes) becomes another card
        cards = game["hands"][0]["cards"].split()
        cards[12] = "AH" if cards[12] != "AH" else "KH"
        game["hands"][0]["cards"] = " ".join(cards)

    with pytest.raises(replay.ReplayError, match=r"line 4: hand 1, card 13: (AH|KH) is illegal: "):
        replay.load(write(tmp_path, edit_game(recorded_match, 2, swap)))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda g: g.update(scores=[0, 0, 0, 0]), r"line 2: its recorded totals \[0, 0, 0, 0\] are not the replay's"),
        (
            lambda g: g["hands"][0].update(deal=list(reversed(g["hands"][0]["deal"]))),
            r"line 2: hand 1: the recorded deal",
        ),
        (lambda g: g.update(key=str(int(g["key"]) ^ 1)), r"line 2: hand 1: the recorded deal is not the one"),
        (lambda g: g["hands"].pop(), r"line 2: the game goes on to hand \d, its record ends"),
        (lambda g: g["hands"].append(g["hands"][-1]), r"line 2: the game ended after \d hands, its record holds \d"),
        (
            lambda g: g["hands"][-1].update(cards=" ".join(g["hands"][-1]["cards"].split()[:-1])),
            r"line 2: .*(not over|stop)",
        ),
        (
            lambda g: g["hands"][-1].update(cards=g["hands"][-1]["cards"] + " 2C"),
            r"line 2: hand \d ends after \d+ cards of the game, its record has more",
        ),
        (lambda g: g.update(seats=["x"]), r"line 2: seats must name"),
        (lambda g: g["seats"].__setitem__(1, "a\x1b[2Jb"), r"line 2: seats must name .* printable characters"),
        (lambda g: g["seats"].__setitem__(1, ""), r"line 2: seats must name"),
        (lambda g: g["seats"].__setitem__(1, "x" * 301), r"line 2: seats must name .* 1 to 300"),
        (
            lambda g: g.update(pass_cycle=["right", "left", "across", "none"]),
            r"line 2: pass cycle .* is not a rotation",
        ),
        (lambda g: g.pop("hands"), r"line 2: a game line lacks hands"),
        (lambda g: g["hands"][0].update(cards="2C ZZ"), r"line 2: hand 1: not a card: 'ZZ'"),
    ],
)
def test_edited_games_are_refused(recorded_match: Path, tmp_path: Path, change, message: str) -> None:
    with pytest.raises(replay.ReplayError, match=message):
        replay.load(write(tmp_path, edit_game(recorded_match, 0, change)))
