"""The terminal game (``hearts-play``): scripted people play whole games through ``main``, bad input
gets a message and a new prompt, and the command line exits cleanly at end of input; bad flags and
agents that cannot play the table are refused with one line before the game."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from command_errors import refused
from scripted_deals import FIRST_TRICK, LEADS, SUITS

from hearts_env import HeartsRules
from hearts_env.agents.human.cli import play as main
from hearts_env.agents.human.terminal import Quit, make_table, parse_line, play_game
from hearts_env.agents.learned.trained import SHIPPED_DIR
from hearts_env.engine import cards
from hearts_env.engine.core import new_games

ROOT = Path(__file__).resolve().parents[2]
CARD = re.compile(r"(10|[2-9JQKA])([♣♦♠♥])")
LEGAL = re.compile(r"\[(10|[2-9JQKA])([♣♦♠♥])(?:x2)?\]")  # two decks: [Q♠x2] for a card held twice
RULES_TEXTS = (  # what core.explain_illegal may name
    "must follow suit",
    "the first trick must be led with",
    "hearts are not broken",
    "no hearts or QS on the first trick",
)


def name(match: tuple[str, str]) -> str:
    """``("10", "♥")`` -> ``"10H"``."""
    return match[0] + cards.SUIT_CHARS[cards.SUIT_SYMBOLS.index(match[1])]


class Person:
    """An ``input_fn`` that answers from a script first, then plays legal cards read off the screen.

    A script entry is a line, or a function of the screen's last hand view that returns a line (so
    a script can name a card not held or an illegal one whatever the deal).
    """

    def __init__(self, output: io.StringIO, script: list[str | Callable[[str], str]] = ()) -> None:
        self.output = output
        self.script = list(script)
        self.prompts: list[str] = []

    def view(self) -> str:
        text = self.output.getvalue()
        return text[text.rindex("Your hand") :]

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.script:
            line = self.script.pop(0)
            return line(self.view()) if callable(line) else line
        assert len(self.prompts) < 500, "the game does not end"
        if prompt.startswith("Pass"):
            more = int(re.search(r"\((\d+) more\)", prompt).group(1))
            picked = re.findall(r"Picked so far: (.*)\.", self.view())
            taken = {name(m) for m in CARD.findall(picked[-1])} if picked else set()
            return " ".join([c for c in held(self.view()) if c not in taken][:more])
        return name(LEGAL.findall(self.view())[0])


def held(view: str) -> list[str]:
    """The cards of the hand view at the start of ``view`` (its lines begin with a suit)."""
    lines = view.splitlines()[1:]
    suit_lines = lines[: next(i for i, line in enumerate(lines) if not re.match(r"  [♣♦♠♥] ", line))]
    return [name(m) for m in CARD.findall("\n".join(suit_lines))]


def not_held(view: str) -> str:
    return next(cards.card_name(c) for c in range(cards.NUM_CARDS) if cards.card_name(c) not in held(view))


def illegal(view: str) -> str:
    legal = {name(m) for m in LEGAL.findall(view)}
    return next((c for c in held(view) if c not in legal), "help")


def run(argv: list[str], script: list = ()) -> tuple[int, str, Person]:
    output = io.StringIO()
    person = Person(output, script)
    status = main(argv, input_fn=person, output=output)
    return status, output.getvalue(), person


def final_scores(text: str) -> list[int]:
    line = re.search(r"Final scores: (.*)\.", text).group(1)
    return [int(part.split()[-1]) for part in line.split(", ")]


def test_one_hand_game_with_bad_input():
    first_pass = [
        "help",
        "",
        "gibberish",
        not_held,
        lambda view: " ".join(held(view)[:2]),  # two cards on a line
        lambda view: held(view)[0],  # a card already picked
        lambda view: " ".join(held(view)[:4]),  # too many
        lambda view: held(view)[-1].lower(),  # one more, lower case: the pass is complete
    ]
    first_play = ["", "zz", not_held, illegal, "scores", "last", "hand"]
    status, text, person = run(["--seed", "0", "--target-score", "0"], first_pass + first_play)
    assert status == 0
    for message in (
        "How to play",
        "Name the cards to pass",
        "'gibberish' is not a card or a command",
        "You don't hold",
        "You have already picked",
        "That is too many",
        "You passed",
        "you received",
        "'zz' is not a card",
        "No trick has been played yet.",
        "Trick 13:",
        "Hand 1 is over",
        "Game over after 1 hand",
    ):
        assert message in text, message
    assert re.search(r"Picked so far: \S+ \S+\.\n", text)  # two cards from one line
    refused = re.search(r"You can't play \S+ now: (.*)\.", text)
    assert refused and any(rule in refused.group(1) for rule in RULES_TEXTS)
    assert sum(final_scores(text)) in (26, 78)  # 78: a moon, added to the three others
    assert "You win!" in text or "Winner" in text or "Shared win" in text
    assert person.prompts[0] == "Pass (3 more)> " and person.prompts[-1] == "Your card> "


@pytest.mark.parametrize(
    ("hands", "seat", "script", "rule"),
    [
        (FIRST_TRICK, 0, ["4C"], "You can't play 4♣ now: the first trick must be led with 2C."),
        (FIRST_TRICK, 1, ["7S"], "You can't play 7♠ now: you must follow suit (C)."),
        (FIRST_TRICK, 2, ["AH"], "You can't play A♥ now: no hearts or QS on the first trick"),
        (LEADS, 1, ["AC", "3H"], "You can't play 3♥ now: hearts are not broken"),
    ],
)
def test_illegal_card_names_the_rule(hands, seat, script, rule):
    output = io.StringIO()
    rules = HeartsRules(pass_count=0, target_score=0)
    table = make_table(rules, seat, ["random"], seed=0, input_fn=Person(output, [*script, "quit"]), output=output)
    state = new_games(rules, deals=cards.deal_from_hands(hands)[None])
    with pytest.raises(Quit):
        play_game(table, state)
    assert rule in output.getvalue()
    assert "No passing this hand." in output.getvalue()


def test_moon_is_noted():
    output = io.StringIO()
    rules = HeartsRules(pass_count=0, target_score=0)
    table = make_table(rules, 0, ["random"], seed=0, input_fn=Person(output), output=output)
    state = play_game(table, new_games(rules, deals=cards.deal_from_hands(SUITS)[None]))
    text = output.getvalue()
    assert "You shot the moon" in text and "moon rule: add to others" in text
    assert final_scores(text) == [0, 26, 26, 26] and "You win!" in text
    assert state.scores[0].tolist() == [0, 26, 26, 26]
    assert "Trick 1: you led 2♣" in text and "you take it (14 points)" in text  # Q♠ and a heart


def test_other_seat_players_and_knobs():
    argv = ["--num-players", "3", "--seat", "2", "--pass-count", "2", "--target-score", "0"]
    argv += ["--jack-of-diamonds", "--points-on-first-trick", "--no-queen-breaks-hearts", "--moon", "shooter_choice"]
    argv += ["--opponents", "random", "random", "--seed", "3"]
    status, text, person = run(argv)
    assert status == 0 and "Game over after 1 hand" in text
    assert "seat 0 (left, random)" in text and "seat 1 (right, random)" in text
    assert len(final_scores(text)) == 3
    assert person.prompts[0] == "Pass (2 more)> "


def test_several_hands_until_target():
    status, text, _ = run(["--seed", "1", "--target-score", "30"])
    assert status == 0 and "Hand 2 · pass right" in text
    assert max(final_scores(text)) >= 30


def test_card_names_and_commands():
    assert parse_line("QS qs, 10h TH Q♠ 10♥") == (None, cards.parse_cards("QS QS TH TH QS TH"))
    assert parse_line(" Help ") == ("help", []) and parse_line("") == (None, [])
    with pytest.raises(ValueError, match="'QX' is not a card or a command"):
        parse_line("QS QX")


@pytest.mark.parametrize("line", ["quit", "q", "exit"])
def test_quit(line):
    status, text, _ = run(["--seed", "0"], [line])
    assert status == 0 and text.rstrip().endswith("Bye.")


def test_end_of_input():
    def no_more(prompt: str) -> str:
        raise EOFError

    output = io.StringIO()
    assert main(["--seed", "0"], input_fn=no_more, output=output) == 0
    assert output.getvalue().rstrip().endswith("Bye.")


@pytest.mark.parametrize(
    "argv",
    [
        ["--opponents", "random", "random"],
        ["--opponents", "nobody"],
        ["--seat", "4"],
        ["--num-players", "8"],
        ["--pass-count", "20"],
    ],
)
def test_bad_arguments_exit_with_one_line(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv, input_fn=lambda prompt: "quit", output=io.StringIO())
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("hearts-play: error: ") and err.count("\n") == 1, err


@pytest.mark.processes
def test_command_line_until_end_of_input():
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(
        [sys.executable, "-m", "hearts_env.agents.human.terminal", "--seed", "0"],
        input="help\nnot a card\n",
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "How to play" in done.stdout and "'not' is not a card" in done.stdout
    assert done.stdout.rstrip().endswith("Bye.")
    assert "Traceback" not in done.stderr


def test_agents_get_their_own_infoset_and_a_single_game_mask():
    calls = []

    class Spy:
        def __call__(self, info, mask):
            calls.append((int(info.seat[0]), mask.shape, int(info.to_play[0])))
            return np.array([np.flatnonzero(mask[0])[0]])

    output = io.StringIO()
    rules = HeartsRules(target_score=0)
    table = make_table(rules, 0, ["random"], seed=0, input_fn=Person(output), output=output)
    table.agents = {s: Spy() for s in table.agents}
    play_game(table, new_games(rules, batch_size=1, seed=0))
    assert calls and all(shape == (1, 52) and to_play == 0 for _, shape, to_play in calls)
    assert {seat for seat, _, _ in calls} == {1, 2, 3}


# ---------------------------------------------------------------------------------------------
# Two decks (Cancellation Hearts)


def test_two_decks_game_shows_the_pot_and_the_kitty():
    argv = ["--decks", "2", "--num-players", "6", "--target-score", "0", "--seed", "2", "--opponents", "heuristic"]
    status, text, _ = run(argv, ["help"])
    assert status == 0 and "Game over after 1 hand" in text
    assert "two equal cards in one trick cancel" in text and "the others score 52 each instead" in text
    assert "kitty: 2 cards face down" in text  # 104 cards among 6 players leave 2
    assert re.search(r"takes it.* with the kitty \(\S+ \S+\)", text) or "you take it" in text
    scores = final_scores(text)
    assert len(scores) == 6 and sum(scores) in (52, 5 * 52)
    assert "Pot: nothing" in text


def test_two_decks_show_and_pass_a_card_held_twice():
    hands = [
        "QS QS AS KS 2C 3C 4C 5C 6C 7C 8C 9C TC",
        "AH AH KH KH QH QH JH JH TH TH 9H 9H 8H",
        "2D 2D 3D 3D 4D 4D 5D 5D 6D 6D 7D 7D 8D",
        "8H 7H 7H 6H 6H 5H 5H 4H 4H 3H 3H 2H 2H",
        "2S 2S 3S 3S 4S 4S 5S 5S 6S 6S 7S 7S 8S",
        "8S 9S 9S TS TS JS JS AS KS 8D 9D 9D TD",
        "TD JD JD QD QD KD KD AD AD 2C 3C 4C 5C",
        "6C 7C 8C 9C TC JC JC QC QC KC KC AC AC",
    ]
    rules = HeartsRules(num_players=8, decks=2, target_score=0)
    output = io.StringIO()
    # Three queens are refused (the hand holds two), then both are passed with the 2C.
    person = Person(output, ["QS QS QS", "QS", "QS", "2C"])
    table = make_table(rules, 0, ["simple"], seed=0, input_fn=person, output=output)
    deal = cards.deal_from_hands(hands, decks=2)[None]
    state = play_game(table, new_games(rules, deals=deal))
    text = output.getvalue()
    assert "Q♠x2" in text.split("Pick 3 cards")[0]  # the hand as dealt shows the pair
    assert "You have already picked Q♠ twice. Nothing from that line was picked." in text
    assert "You passed 2♣ Q♠ Q♠ left to seat 1" in text
    assert state.done[0] and int(np.bitwise_count(state.last_hand_taken2[0]).sum()) > 0


# ---------------------------------------------------------------------------------------------
# Refused before the game: flags, agents that cannot play the table, undecodable input


def quit_at_once(prompt: str) -> str:
    return "quit"


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["--opponents", "trained"], ["agent 'trained'", "path"]),
        (["--opponents", "ppo", "--num-players", "5"], ["agent 'ppo' cannot play"]),
        (["--opponents", "heuristic", "ppo", "random", "--moon", "shooter_choice"], []),
        (["--opponents", "ppo", "--jack-of-diamonds"], ["agent 'ppo' cannot play"]),
        (["--seed", "-1"], ["--seed"]),
        (["--pass-cycle", "up"], ["pass_cycle"]),
        (["--seat", "7"], ["--seat"]),
    ],
)
def test_play_refuses_before_the_game(argv, fragments, capsys):
    if not fragments:  # shooter_choice is not a layout knob: the shipped agent plays it
        assert main(argv, input_fn=quit_at_once, output=io.StringIO()) == 0
        return
    output = io.StringIO()
    refused(capsys, lambda: main(argv, input_fn=quit_at_once, output=output), "hearts-play: error:", *fragments)
    assert output.getvalue() == ""


def test_play_takes_a_trained_policy_by_path():
    output = io.StringIO()
    spec = f"trained:path={SHIPPED_DIR / 'ppo'}"
    assert main(["--opponents", spec, "--seed", "0"], input_fn=quit_at_once, output=output) == 0
    assert spec in output.getvalue()


@pytest.mark.parametrize(("num_players", "opener"), [(4, "2♣"), (5, "3♣"), (6, "2♣"), (7, "2♣"), (3, "2♣")])
def test_play_help_names_the_tables_opening_card(num_players, opener):
    output = io.StringIO()
    lines = iter(["help", "quit"])
    main(["--num-players", str(num_players), "--seed", "0"], input_fn=lambda p: next(lines), output=output)
    assert f"{opener} opens the first trick" in output.getvalue()


def test_play_refuses_two_decks_at_a_small_table(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--decks", "2", "--num-players", "4"], input_fn=lambda prompt: "")
    assert "decks" in capsys.readouterr().err


def run_command(args: list[str], stdin: bytes = b"", env: dict | None = None) -> subprocess.CompletedProcess:
    environ = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", **(env or {})}
    return subprocess.run([sys.executable, *args], input=stdin, capture_output=True, env=environ, timeout=300)


@pytest.mark.processes
def test_play_reads_undecodable_input_as_a_word_that_is_no_card() -> None:
    done = run_command(["-m", "hearts_env.agents.human.terminal", "--seed", "0"], stdin=b"\xff\xfe\xfd\nquit\n")
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr and b"Bye." in done.stdout
