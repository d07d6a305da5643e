"""The bot protocol (docs/bot-protocol.md): its text both ways, the program agent, hearts-bot, the
shell bot, and every kind of bad bot."""

from __future__ import annotations

import copy
import io
import os
import pickle
import re
import shutil
import sys
import textwrap
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from hearts_env import protocol
from hearts_env.agents import make_agent
from hearts_env.agents.bridges.program import BotError, Exited, LineChannel, ProgramPolicy
from hearts_env.agents.bridges.protocol_bot import Bot
from hearts_env.agents.cli import main as arena_main
from hearts_env.agents.specs import check_agents, parse_spec
from hearts_env.arena import play_match
from hearts_env.engine import core
from hearts_env.engine.cards import card_name, parse_cards
from hearts_env.engine.infoset import INFO_FIELDS, infoset
from hearts_env.engine.rules import HeartsRules
from hearts_env.play import runner
from hearts_env.play.policy import RandomPolicy

ROOT = Path(__file__).resolve().parents[2]
LOWEST_SH = ROOT / "examples" / "bots" / "lowest.sh"
PYTHON = sys.executable
HEARTS_BOT = f"{PYTHON} -m hearts_env.agents.bridges.protocol_bot"
SLOW_START = 300.0  # a cold numba cache compiles every kernel at a bot's start
needs_sh = pytest.mark.skipif(shutil.which("sh") is None, reason="no POSIX shell")


def lowest(info, mask: np.ndarray) -> np.ndarray:
    """The in-process twin of examples/bots/lowest.sh: the lowest legal card id."""
    return np.argmax(mask, axis=1).astype(np.int64)


def without_time(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in ("seconds", "hands_per_second")}


def alive(pid: int, wait: float = 2.0) -> bool:
    """Whether process ``pid`` still runs after ``wait`` seconds at most (a zombie left to a
    container's init, which may never reap it, counts as ended)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            os.kill(pid, 0)
            stat = Path(f"/proc/{pid}/stat")
            running = not stat.exists() or stat.read_text().rpartition(")")[2].split()[0] != "Z"
        except (ProcessLookupError, FileNotFoundError):
            running = False
        if not running or time.monotonic() > deadline:
            return running
        time.sleep(0.02)


def positions(rules: HeartsRules, history: bool, games: int = 24, seed: int = 0) -> list[core.State]:
    """States of random play, every step to the end of the games (decisions of every kind)."""
    rng = np.random.default_rng(seed)
    state = core.new_games(rules, batch_size=games, seed=seed, history=history)
    seen = []
    while not state.done.all():
        live = state[np.flatnonzero(~state.done)]
        seen.append(live)
        state = core.step(state, core.sample_actions(state, rng))
    return seen


# ------------------------------------------------------------------------------ the text


@pytest.mark.parametrize(
    "rules, history",
    [
        (HeartsRules(), False),
        (HeartsRules(), True),
        (HeartsRules(num_players=3, target_score=None), True),
        (HeartsRules(num_players=5, jack_of_diamonds=True, moon="shooter_choice", target_score=None), False),
        (HeartsRules(num_players=7, pass_count=0, target_score=None), True),
        (HeartsRules(decks=2, num_players=8, target_score=None), True),
        (HeartsRules(decks=2, num_players=11, target_score=None), False),
    ],
)
def test_decision_lines_read_back_into_the_same_info_sets(rules: HeartsRules, history: bool) -> None:
    for state in positions(rules, history, games=8)[::3]:
        info = infoset(state)
        tables = np.arange(info.batch_size) * 13 + 5
        text = protocol.decision_lines(info, tables)
        assert text.count(b"\n") == info.batch_size
        read = protocol.read_decisions(text, rules, history)
        assert (read.failed == 0).all(), read.problem(int(np.argmax(read.failed != 0)))
        np.testing.assert_array_equal(read.tables, tables)
        for field in INFO_FIELDS:
            np.testing.assert_array_equal(getattr(read.info, field), getattr(info, field), err_msg=field)
        assert (read.info.data == info.data).all()  # padding included: the very same records


def test_a_decision_line_names_every_field_in_absolute_seats() -> None:
    deals = np.zeros((1, 52), np.int64)
    deals[0] = np.arange(52) % 4  # seat s holds the cards with id = s (mod 4)
    state = core.new_games(HeartsRules(pass_count=0), deals=deals)
    state = core.step(state, np.array([0]))  # seat 0 leads the 2C; seat 1 to act
    line = protocol.decision_lines(infoset(state), np.array([7])).decode()
    words = dict(w.split("=", 1) for w in line.split()[2:])
    assert line.startswith("play 7 seat=1 hand_number=1 pass=none ")
    assert parse_cards(words["hand"]) == list(range(1, 52, 4))
    assert words["trick"] == "2C/-/-/-" and words["leader"] == "0" and words["winner"] == "0"
    assert words["played"] == "2C/-/-/-" and words["legal"] == "3C,7C,JC"
    assert words["scores"] == "0/0/0/0" and words["voids"] == "-/-/-/-"
    assert list(words) == [f for f in protocol.FIELD_NAMES if f not in ("tricks", "pot", "kitty")]


def test_a_line_that_cannot_be_read_names_its_field() -> None:
    info = infoset(core.new_games(None, batch_size=1, seed=0))
    good = protocol.decision_lines(info, np.array([3]))
    for bad, field in (
        (good.replace(b"legal=", b"legal=ZZ,"), "cannot read its 'legal'"),
        (good.replace(b" seat=", b" sat="), "cannot read its 'seat'"),
        (good.replace(b"scores=0/0/0/0", b"scores=0/0/0"), "cannot read its 'scores'"),
        (good.replace(b"\n", b"x\n"), "text after its last field"),
        (b"pass x seat=0\n", "no 'pass TABLE'"),
        (re.sub(rb"legal=\S+", b"legal=-", good), "cannot read its 'legal'"),  # a decision has a legal card
        (re.sub(rb"hand=(\w\w)", rb"hand=\1,\1", good), "cannot read its 'hand'"),  # a card twice: one deck
        (good.replace(b"taken=-", b"taken=2C,2C"), "cannot read its 'taken'"),
        (re.sub(rb"legal=\S+", b"legal=2C,3C", re.sub(rb"hand=\S+", b"hand=3C", good)), "its 'legal'"),  # not held
    ):
        read = protocol.read_decisions(bad, info.rules, False)
        assert read.problem(0) is not None and field in read.problem(0)


@pytest.mark.parametrize(
    "extra", [b" extra", b" x=1 y=2", b" tricks=0:2C/3C/4C/5C", b" \xc3\xa9=1", b" " + b"z" * 100_000]
)
def test_fields_a_later_version_adds_at_the_end_of_a_decision_are_ignored(extra: bytes) -> None:
    info = infoset(core.new_games(None, batch_size=2, seed=0))
    good = protocol.decision_lines(info, np.array([3, 4]))
    read = protocol.read_decisions(good.replace(b"\n", extra + b"\n"), info.rules, False)
    assert (read.failed == 0).all() and (read.info.data == info.data).all()


@pytest.mark.parametrize(
    "line, fragment",
    [
        ("table 1 seat=0 seat=1", "field 'seat' is given twice"),
        ("table 1 history=0 num_players=4", "table line 'table 1 history=0 num_players=4': it has no seat=S"),
        ("table 1 seat=", "seat '' is not an integer 0..3"),
        ("table 1 seat=4", "seat '4' is not in 0..3"),
        ("table 1 seat=-1", "seat '-1' is not in 0..3"),
        ("table 1 seat=\u0663", "is not an integer"),  # an Arabic-Indic digit: int() reads it, the protocol does not
        ("table 1 seat=99999999999999999999999999", "seat '99999999999999999999999999' is not in 0..3"),
        ("table 1 seat=0 history=2", "history is 0 or 1, not '2'"),
        ("table 1 seat=0 num_players=x", "num_players 'x' is not an integer"),
        ("table 1 seat=0 target_score=" + "9" * 30, "target_score '999"),
        ("table 1 seat=0 moon=sideways", "moon must be one of"),
        ("table 1 seat=0 queen_breaks_hearts=yes", "queen_breaks_hearts is 0 or 1, not 'yes'"),
        ("table x seat=0", "table id 'x' is not an integer 0..999999999999999999"),
        ("table " + "1" * 26 + " seat=0", "is not in 0..999999999999999999"),
        ("table -3 seat=0", "table id '-3' is not in 0.."),
        ("table", "it is not 'table T seat=S ...'"),
        ("tables 1 seat=0", "it is not 'table T seat=S ...'"),
    ],
)
def test_a_table_line_that_cannot_be_read_is_refused_naming_its_field(line: str, fragment: str) -> None:
    with pytest.raises(ValueError, match="^table line ") as error:
        protocol.read_table_line(line)
    assert fragment in str(error.value) and "\n" not in str(error.value)


def test_a_table_line_ignores_knobs_and_words_a_later_version_adds() -> None:
    rules = HeartsRules(num_players=5)
    line = protocol.table_lines([99999999999], [3], rules, False).strip()
    assert protocol.read_table_line(line + " jokers=2 style=fast later") == (99999999999, 3, rules, False)
    assert protocol.read_table_line("table 0 seat=1") == (0, 1, HeartsRules(), False)  # knobs left out: defaults


@pytest.mark.parametrize(
    "rules",
    [
        HeartsRules(),
        HeartsRules(num_players=5, pass_cycle=("right", "none"), jack_of_diamonds=True, target_score=50),
        HeartsRules(decks=2, num_players=9, moon="subtract_from_self", queen_breaks_hearts=False, target_score=None),
        HeartsRules(pass_count=0, no_points_on_first_trick=False),
    ],
)
def test_table_lines_carry_every_rules_knob(rules: HeartsRules) -> None:
    (line,) = protocol.table_lines([12], [2], rules, True).splitlines()
    assert protocol.read_table_line(line) == (12, 2, rules, True)
    assert all(f" {knob}=" in line for knob in rules.to_dict())


def test_answers_read_back_with_other_spellings() -> None:
    tables, cards = np.array([0, 17, 123456]), np.array([0, 36, 51])
    text = protocol.answer_lines(tables, cards)
    assert text == b"0 2C\n17 QS\n123456 AH\n"
    got_tables, got_cards, _ = protocol.read_answers(text + b"4 10h\n5 XX\nerror 6 no\n")
    np.testing.assert_array_equal(got_tables[:5], [0, 17, 123456, 4, 5])
    np.testing.assert_array_equal(got_cards, [0, 36, 51, parse_cards("TH")[0], -1, -1])
    assert protocol.read_answer(b"error 6 cannot play 5 seats") == (6, "cannot play 5 seats")


@pytest.mark.parametrize(
    "line, expected",
    [
        (b"1" * 26 + b" 2C", (protocol.MAX_TABLE + 1, 0)),  # beyond any id a manager asks
        (b"000000000000000000000007 2C", (7, 0)),
        (b"error " + b"9" * 40 + b" nope", (protocol.MAX_TABLE + 1, "nope")),
        (b"\xd9\xa3 2C", None),  # a digit, but not an ASCII one
        (b"-3 2C", None),
        (b"3 2C extra", None),
        (b"error", None),
        (b"", None),
    ],
)
def test_answers_with_any_table_id_read_without_overflow(line: bytes, expected: object) -> None:
    assert protocol.read_answer(line) == expected
    tables, cards, _ = protocol.read_answers(line + b"\n")
    assert tables[0] >= -1 and (cards[0] >= 0) == (isinstance(expected, tuple) and not isinstance(expected[1], str))


def test_hello_reply() -> None:
    assert protocol.read_hello_reply(protocol.hello_reply("x", True)) == ("x", True, False)
    assert protocol.read_hello_reply("hearts-bot-protocol 1 name=y tables=one history=1") == ("y", False, True)
    with pytest.raises(ValueError, match="speaks hearts-bot-protocol '2'"):
        protocol.read_hello_reply("hearts-bot-protocol 2 name=y tables=one")
    with pytest.raises(ValueError, match="answered the hello with 'hello'"):
        protocol.read_hello_reply("hello")
    assert protocol.read_hello_reply(b"hearts-bot-protocol 1 name=z tables=many later=3") == ("z", True, False)
    for bad in ("name=a name=b tables=one", "name=a tables=one history=yes", "name= tables=one", "tables=many"):
        with pytest.raises(ValueError, match="answered the hello with"):
            protocol.read_hello_reply(f"hearts-bot-protocol 1 {bad}")


def test_spec_options_split_outside_quotes() -> None:
    assert parse_spec("program:command=python -m hearts_env.agents.bridges.protocol_bot heuristic") == (
        "program",
        {"command": "python -m hearts_env.agents.bridges.protocol_bot heuristic"},
    )
    assert parse_spec('program:command="./bot --levels 1,2",time_limit=10') == (
        "program",
        {"command": "./bot --levels 1,2", "time_limit": 10},
    )
    assert parse_spec("program:command=sh -c 'echo a,b'") == ("program", {"command": "sh -c 'echo a,b'"})
    with pytest.raises(ValueError, match="unclosed"):
        parse_spec('program:command="./bot')


# ------------------------------------------------------------------------------ hearts-bot


def session(state: core.State, tables: np.ndarray) -> bytes:
    """A manager's lines: the hello, a table line per game, its decisions, go, quit."""
    info = infoset(state)
    head = f"{protocol.HELLO}\n" + protocol.table_lines(tables.tolist(), info.seat.tolist(), state.rules, False)
    return head.encode() + protocol.decision_lines(info, tables) + b"go\nquit\n"


def test_hearts_bot_answers_the_agents_cards() -> None:
    state = positions(HeartsRules(), False, games=16)[20]
    out = io.BytesIO()
    Bot(make_agent("heuristic"), "heuristic").serve(io.BytesIO(session(state, np.arange(16) + 100)), out)
    hello, *answers = out.getvalue().decode().splitlines()
    assert hello == "hearts-bot-protocol 1 name=heuristic tables=many"
    expected = make_agent("heuristic")(infoset(state), core.legal_mask(state))
    assert answers == [f"{100 + g} {card_name(c)}" for g, c in enumerate(expected)]


def test_hearts_bot_answers_error_for_what_it_cannot_decide() -> None:
    state = core.new_games(HeartsRules(num_players=5), batch_size=1, seed=0)
    text = session(state, np.array([4])).replace(
        b"go\n", protocol.decision_lines(infoset(state), np.array([9])) + b"go\n"
    )
    out = io.BytesIO()
    Bot(make_agent("ppo"), "ppo").serve(io.BytesIO(text), out)
    answers = out.getvalue().decode().splitlines()[1:]
    assert answers[0] == "error 9 no table line opened this table"
    assert answers[1].startswith("error 4 ") and "4" in answers[1]  # the shipped ppo refuses 5 seats


def serve(lines: bytes) -> tuple[list[str], str]:
    """hearts-bot heuristic given ``lines`` (after the hello): its answers, and its log."""
    out, log = io.BytesIO(), io.StringIO()
    Bot(make_agent("heuristic"), "heuristic", log).serve(io.BytesIO(f"{protocol.HELLO}\n".encode() + lines), out)
    return out.getvalue().decode().splitlines()[1:], log.getvalue()


FIRST = core.new_games(None, batch_size=1, seed=0)
TABLE = protocol.table_lines([5], [0], FIRST.rules, False).encode()
DECISION = protocol.decision_lines(infoset(FIRST), np.array([5]))
FIRST_CARD = card_name(int(make_agent("heuristic")(infoset(FIRST), core.legal_mask(FIRST))[0]))


@pytest.mark.parametrize("word", [b"-3", b"1" + b"0" * 18])
def test_a_decision_naming_an_id_no_table_has_is_answered_error(word: bytes) -> None:
    """Negative and too large alike: one rule for the ids a bot cannot use."""
    answers, _ = serve(TABLE + DECISION.replace(b" 5 ", b" " + word + b" ", 1) + b"go\n")
    assert answers == [f"error {word.decode()} table ids are 0..{protocol.MAX_TABLE}"]


@pytest.mark.parametrize(
    "before, decision",
    [
        (b"ping\nponder 5\npong 5 x=1\npassx 5\npass\nplay\np\n\n   \nhello there\n", DECISION),  # unknown lines
        (b"card 5 1 2C\ntrick 5 0\nhand 5 points=0/0/0/0 scores=0/0/0/0 later=1\n", DECISION),  # events
        (b"", DECISION.replace(b"\n", b" later=1 words\n")),  # fields a later version adds
        (TABLE.replace(b"\n", b" jokers=2\n"), DECISION),  # a knob a later version adds
        (b"seed -1\nseed x\nseed " + b"9" * 30 + b"\nend x\nend " + b"1" * 30 + b"\ntable\ntable x seat=0\n", DECISION),
        (b"\xff\xfe garbage \xc3\xa9\n" + b"y" * 200_000 + b"\n", DECISION),
    ],
)
def test_hearts_bot_ignores_what_it_does_not_know(before: bytes, decision: bytes) -> None:
    table = TABLE if b"table 5" not in before else b""
    answers, _ = serve(table + before + decision + b"go\nquit\n")
    assert answers == [f"5 {FIRST_CARD}"]


@pytest.mark.parametrize(
    "table, decision, answer",
    [
        (TABLE, re.sub(rb"legal=\S+", b"legal=-", DECISION), "error 5 cannot read its 'legal'"),
        (TABLE.replace(b"seat=0 ", b""), DECISION, "error 5 its table line was refused: it has no seat=S"),
        (TABLE.replace(b"seat=0", b"seat=9"), DECISION, "error 5 its table line was refused: seat '9' is not in 0..3"),
        (TABLE.replace(b"decks=1", b"decks=3"), DECISION, "error 5 its table line was refused: decks must be"),
        (b"", DECISION, "error 5 no table line opened this table"),
        (TABLE + b"end 5\n", DECISION, "error 5 no table line opened this table"),
        (
            TABLE.replace(b" 5 ", b" " + b"7" * 26 + b" "),
            DECISION.replace(b" 5 ", b" " + b"7" * 26 + b" "),
            "error 777",
        ),
    ],
)
def test_hearts_bot_answers_error_naming_what_was_wrong(table: bytes, decision: bytes, answer: str) -> None:
    answers, log = serve(table + decision + b"go\nquit\n")
    assert len(answers) == 1 and answers[0].startswith(answer), answers
    assert "Traceback" not in log


@pytest.mark.parametrize("table_id", [0, 99999999999, protocol.MAX_TABLE])
def test_hearts_bot_plays_tables_of_any_id(table_id: int) -> None:
    table, decision = TABLE.replace(b" 5 ", b" %d " % table_id), DECISION.replace(b" 5 ", b" %d " % table_id)
    assert serve(table + decision + b"go x=1\n" + decision + b"go\r\nquit\n")[0] == [f"{table_id} {FIRST_CARD}"] * 2


def test_hearts_bot_command_line_refuses_an_unknown_agent(capsys: pytest.CaptureFixture[str]) -> None:
    from hearts_env.agents.bridges.cli import bot as main

    with pytest.raises(SystemExit) as exit_:
        main(["nosuchagent"])
    assert exit_.value.code == 2
    assert "hearts-bot: error: unknown agent 'nosuchagent'" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["é", "x" * 65, "a b", ""])
def test_a_bot_name_the_manager_would_refuse_is_refused_in_the_hello(name: str) -> None:
    with pytest.raises(ValueError, match="a bot's name is one word of 64 printable ASCII characters or fewer"):
        protocol.hello_reply(name, True)
    if name and " " not in name:  # (a space ends the name field: "b" is a word after it)
        with pytest.raises(ValueError, match="a name that is not 64 printable ASCII characters or fewer"):
            protocol.read_hello_reply(f"{protocol.HELLO} name={name} tables=many")


def test_hearts_bot_refuses_such_a_name_and_names_a_long_spec_by_its_agent(capsys, monkeypatch) -> None:
    from command_errors import refused

    from hearts_env.agents.bridges import cli

    refused(capsys, lambda: cli.bot(["random", "--name", "é"]), "hearts-bot: error: a bot's name is one word of 64")
    names = []
    served = SimpleNamespace(serve=lambda *streams: None)
    monkeypatch.setattr(cli, "Bot", lambda agent, name, log: names.append(name) or served)
    cli.bot(["random:seed=1" + " " * 70])  # a spec of spaces (a path may hold them), or too long: its agent's name
    cli.bot(["random:seed=1"])
    assert names == ["random", "random:seed=1"]


# ------------------------------------------------------------------------------ the program agent


def test_heuristic_through_the_protocol_plays_exactly_as_in_process() -> None:
    """The target: every figure of the match equal, on single hands and on a whole game."""
    field = make_agent("heuristic")
    bot = make_agent("program", command=f"{HEARTS_BOT} heuristic", time_limit=60, startup_limit=SLOW_START)
    with bot:
        for episode, deals in (("hand", 8), ("game", 1)):
            through = play_match(None, [("x", bot), ("h", field), ("h", field), ("h", field)], deals, 0, episode)
            inside = play_match(
                None, [("x", make_agent("heuristic")), ("h", field), ("h", field), ("h", field)], deals, 0, episode
            )
            assert without_time(through.summary()) == without_time(inside.summary())
        assert bot.name == "heuristic" and alive(bot.pid, 0)
    assert not alive(bot.pid)  # closed: quit, then reaped


def test_seeded_random_through_the_protocol_plays_exactly_as_in_process() -> None:
    """``seed N`` reaches the bot and a batch stays one call: the same random cards."""
    rules = HeartsRules(num_players=3)
    bot = make_agent("program", command=f"{HEARTS_BOT} random", time_limit=60, startup_limit=SLOW_START)
    with bot:
        through = play_match(rules, [("r", bot), ("s", make_agent("simple")), ("q", RandomPolicy(5))], 6, 3, "hand")
    inside = play_match(
        rules, [("r", RandomPolicy()), ("s", make_agent("simple")), ("q", RandomPolicy(5))], 6, 3, "hand"
    )
    assert without_time(through.summary()) == without_time(inside.summary())


@needs_sh
def test_the_shell_bot_plays_the_lowest_legal_card() -> None:
    rules = HeartsRules(num_players=5, jack_of_diamonds=True)
    bot = make_agent("program", command=f"sh {LOWEST_SH}")
    with bot:
        through = play_match(rules, [("low", bot)] + [("s", make_agent("simple"))] * 4, 3, 1, "hand")
        assert bot.name == "lowest"
    inside = play_match(rules, [("low", lowest)] + [("s", make_agent("simple"))] * 4, 3, 1, "hand")
    assert without_time(through.summary()) == without_time(inside.summary())


RECORDER = """
import os, sys
log = open(sys.argv[1], "w")
log.write(f"pid {os.getpid()}\\n")
log.flush()
print(sys.stdin.readline().strip() and "hearts-bot-protocol 1 name=recorder " + sys.argv[2], flush=True)
for line in sys.stdin:
    log.write(line)
    kind, table, *fields = line.split() + [""]
    if kind in ("pass", "play"):
        legal = dict(f.split("=", 1) for f in fields if f)["legal"]
        print(table, legal.split(",")[0], flush=True)
    elif kind == "quit":
        break
"""


def recorder(tmp_path: Path, tables: str = "tables=many") -> tuple[str, Path]:
    script, log = tmp_path / "recorder.py", tmp_path / "log.txt"
    script.write_text(RECORDER)
    return f"{PYTHON} {script} {log} {tables}", log


@pytest.mark.parametrize("tables", ["tables=many", "tables=one"])
def test_events_let_a_bot_follow_every_card_of_its_games(tmp_path: Path, tables: str) -> None:
    """From its table lines, decisions and events alone a bot knows every card played, by whom and
    in which order, who took each trick, each hand's points and the end: as they happened."""
    command, log = recorder(tmp_path, tables)
    bot = ProgramPolicy(command)
    rules = HeartsRules(target_score=30)
    state = core.new_games(rules, batch_size=6, seed=4)
    actual: dict[int, list[str]] = {g: [] for g in range(6)}  # what happened, as the bot should see it at seat 0

    def watch(step: runner.Step) -> None:
        for i, g in enumerate(step.games.tolist()):
            before, after = step.state[i], step.after[i]
            if before.phase[0] == core.PLAY:
                actual[g].append(f"card {before.to_play[0]} {card_name(step.actions[i])}")
            if after.tricks_played[0] != before.tricks_played[0] or after.hand_over[0]:
                actual[g].append(f"trick {after.last_trick_winner[0]}")
            if after.hand_over[0]:
                points, scores = ("/".join(map(str, a[0])) for a in (after.last_hand_points, after.scores))
                actual[g].append(f"hand points={points} scores={scores}")
            if after.done[0]:
                actual[g].append("end")

    with bot:
        final = runner.play(state, [bot, lowest, RandomPolicy(1), lowest], on_step=watch)
    assert final.done.all()
    seen: dict[str, list[str]] = {}  # table id -> what the bot was told
    for line in log.read_text().splitlines():
        kind, table, *rest = line.split() + [""]
        rest = rest[:-1]
        if kind == "pid":
            continue
        if kind == "table":
            assert rest[0] == "seat=0" and table not in seen
            seen[table] = []
        elif kind == "play":
            fields = dict(f.split("=", 1) for f in rest)
            seen[table].append(f"card 0 {fields['legal'].split(',')[0]}")  # the recorder's own answer
        elif kind in ("card", "trick", "hand", "end"):
            seen[table].append(" ".join([kind, *rest]))
    assert sorted(seen.values()) == sorted(actual.values())
    assert len(seen) == 6


def test_copies_start_their_own_process_and_pickle_without_one(tmp_path: Path) -> None:
    command, _ = recorder(tmp_path)
    bot = ProgramPolicy(command, seed=3, time_limit=2)
    state = core.new_games(None, batch_size=2, seed=0)
    bot(infoset(state), core.legal_mask(state))
    twin = copy.deepcopy(bot)
    assert twin.pid is None and (twin.argv, twin.time_limit, twin._seed) == (bot.argv, 2.0, 3)
    pickle.dumps(bot)  # no process handle in the pickle: what unpickling calls is rebuilt below
    factory, args = bot.__reduce__()
    assert factory(*args).pid is None
    twin(infoset(state), core.legal_mask(state))
    assert twin.pid != bot.pid and alive(twin.pid, 0) and alive(bot.pid, 0)
    pid = twin.pid
    del twin  # garbage collected: its bot ends
    assert not alive(pid)
    bot.close()


@pytest.mark.processes
@needs_sh
def test_blocks_on_a_process_pool_play_as_they_do_here() -> None:
    agents = [("low", make_agent("program", command=f"sh {LOWEST_SH}"))] + [("h", make_agent("heuristic"))] * 3
    here = play_match(None, agents, deals=4, seed=2, episode="hand", block=2)
    with ProcessPoolExecutor(2) as pool:
        there = play_match(None, agents, deals=4, seed=2, episode="hand", block=2, executor=pool)
    assert agents[0][1].pid is not None  # here, the one object played every block
    agents[0][1].close()
    assert without_time(here.summary()) == without_time(there.summary())


@needs_sh
def test_hearts_arena_plays_a_program(capsys: pytest.CaptureFixture[str]) -> None:
    arena_main(
        [f"program:command=sh {LOWEST_SH}", "heuristic", "heuristic", "heuristic", "--deals", "2", "--episode", "hand"]
    )
    out = capsys.readouterr().out
    assert "program:command=sh" in out and "heuristic" in out


# ------------------------------------------------------------------------------ bad bots

HEAD = """
import os, signal, sys, time
sys.stdin.readline()
print("hearts-bot-protocol 1 name=bad tables=many", flush=True)
decisions = 0
for line in sys.stdin:
    kind, table, *fields = line.split() + [""]
    if kind not in ("pass", "play"):
        continue
    decisions += 1
    view = dict(f.split("=", 1) for f in fields if f)
    legal, unseen = view["legal"].split(",")[0], view["unseen"].split(",")[0]
"""
BAD_BOTS = {
    "silent": ("time.sleep(60)", r"bot 'bad' \(.*\) did not answer table 0 \(seat 0, hand 1, pass\).* within 0.5 s"),
    "illegal": ("print(table, unseen, flush=True)", r"answered \w\w at table 0 .* not a legal card there \(legal: "),
    "nonsense": ("print(table, 'banana', flush=True)", r"printed '0 banana', which is not 'TABLE CARD'"),
    "exits": (
        "sys.exit(3) if decisions > 2 else print(table, legal, flush=True)",
        r"exited with code 3 before answering",
    ),
    "crashes": (
        "print('Traceback: oops', file=sys.stderr, flush=True) or os.kill(os.getpid(), signal.SIGKILL)",
        r"was killed by signal 9 before answering .*; its last stderr line: 'Traceback: oops'",
    ),
    "twice": ("print(table, legal, flush=True); print(table, legal, flush=True)", r"answers table 0 a second time"),
    "chatty": ("print(table, legal, flush=True); print('thinking...', flush=True)", r"printed 'thinking\.\.\."),
    "refuses": ("print('error', table, 'I only play clubs', flush=True)", r"refused table 0 .*: 'I only play clubs'"),
    "stranger": (
        "print(int(table) + 100, legal, flush=True)",
        r"printed '100 \w\w', which answers no decision it was asked",
    ),
    "huge id": ("print('1' * 26, legal, flush=True)", r"printed '1{26} \w\w', which answers no decision it was asked"),
    "huge error": (
        "print('error', '9' * 30, 'no', flush=True)",
        r"printed 'error 9{30} no', which is not 'TABLE CARD'",
    ),
    "flood": (
        "sys.stdout.write('x' * 10_000_000); sys.stdout.flush(); time.sleep(60)",
        r"printed a line of more than 4096 bytes, before answering table 0",
    ),
    "long line": ("print(table, 'x' * 5000, flush=True)", r"printed a line of more than 4096 bytes, before answering"),
    "flood between": (
        "print(table, legal, flush=True); decisions > 3 and sys.stdout.write('x' * 10_000_000); sys.stdout.flush()",
        r"printed (a line of more than 4096 bytes|'x+\.\.\.' without being asked)",
    ),
    "blank": ("print(flush=True)", r"printed '', which is not 'TABLE CARD'"),
    "long name": ("", r"answered the hello with a name that is not 64 printable ASCII characters or fewer"),
    "escape": (
        "print('error', table, '\\x1b[2J' + 'z' * 3000, flush=True)",
        r"refused table 0 .*: '\\x1b\[2Jzzz+\.\.\.'(\n|$)",  # (\n: the runner's note naming the policy)
    ),
}


@pytest.mark.parametrize("kind", sorted(BAD_BOTS))
def test_a_bad_bot_ends_the_match_with_one_clear_error_and_no_process_left(tmp_path: Path, kind: str) -> None:
    act, message = BAD_BOTS[kind]
    script = tmp_path / "bad.py"
    head = HEAD.replace("name=bad", "name=" + "b" * 65) if kind == "long name" else HEAD
    script.write_text(head + textwrap.indent(act or "pass", "    ") + "\n")
    bot = ProgramPolicy(f"{PYTHON} {script}", time_limit=0.5)
    state = core.new_games(None, batch_size=3, seed=0)
    with pytest.raises(BotError, match=message) as error:
        runner.play(state, [bot, lowest, lowest, lowest])
    assert "\n" not in str(error.value)
    assert not alive(bot.pid)


def test_a_bot_asking_for_history_where_games_keep_none_is_refused_before_the_first_deal(tmp_path: Path) -> None:
    script = tmp_path / "history.py"
    script.write_text(HEAD.replace("tables=many", "tables=many history=1") + "    print(table, legal, flush=True)\n")
    bot = ProgramPolicy(f"{PYTHON} {script}")
    with pytest.raises(
        ValueError, match=r"asks for the completed tricks \(history=1 in its hello\), which these games"
    ):
        check_agents(HeartsRules(), [("x", bot)])
    check_agents(HeartsRules(), [("x", bot)], history=True)  # with history it plays
    with bot:
        final = runner.play(core.new_games(None, batch_size=2, seed=0, history=True), [bot, lowest, lowest, lowest])
    assert final.done.all()


@pytest.mark.parametrize("how", ["hearts-arena", "executor", "collected"])
def test_every_table_gets_its_last_events_when_the_match_ends(tmp_path: Path, how: str) -> None:
    """The tables still open at the end of a match get their last trick, hand and end, then quit."""
    command, log = recorder(tmp_path)
    field = [("r", RandomPolicy(1))] * 3
    if how == "hearts-arena":
        arena_main([f"program:command={command}", "random", "random", "random", "--deals", "4", "--episode", "hand"])
    elif how == "executor":
        with ProcessPoolExecutor(1) as pool:
            play_match(None, [("x", ProgramPolicy(command))] + field, deals=4, seed=0, episode="hand", executor=pool)
    else:
        bot = ProgramPolicy(command)
        play_match(None, [("x", bot)] + field, deals=4, seed=0, episode="hand")
        pid = bot.pid
        del bot
        assert not alive(pid)
    lines = log.read_text().splitlines()
    opened = {line.split()[1] for line in lines if line.startswith("table ")}
    assert len(opened) == 16 and lines[-1] == "quit"
    for kind in ("hand", "end"):
        assert sorted(line.split()[1] for line in lines if line.startswith(f"{kind} ")) == sorted(opened)


def test_hearts_bench_closes_the_programs_it_runs(tmp_path: Path, tiny: Path) -> None:
    """Every bot process a hearts-bench run starts for a program candidate (its fingerprint, its
    matches) is closed by the run: each gets its quit, after the hand and end of every game it played."""
    from hearts_env.bench.cli import main as bench_main

    script, log = tmp_path / "recorder.py", tmp_path / "log"
    log.mkdir()
    script.write_text(
        RECORDER.replace('open(sys.argv[1], "w")', 'open(os.path.join(sys.argv[1], str(os.getpid())), "w")')
    )
    argv = ["run", f"program:command={PYTHON} {script} {log} tables=many", "--suite", str(tiny), "--quick"]
    bench_main([*argv, "--tracks", "standard", "--out", str(tmp_path / "run"), "--no-progress"])
    processes = [path.read_text().splitlines() for path in log.iterdir()]
    assert processes and all(lines[-1] == "quit" for lines in processes)
    ended = [
        {line.split()[1] for line in lines if line.startswith(k)} for lines in processes for k in ("hand ", "end ")
    ]
    hands, ends = ended[::2], ended[1::2]
    assert any(hands) and all(h <= e for h, e in zip(hands, ends, strict=True))  # games followed to their end


def test_hearts_arena_ends_on_a_bad_bot_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "bad.py"
    script.write_text(HEAD + "    sys.exit(5) if decisions > 30 else print(table, legal, flush=True)\n")
    with pytest.raises(SystemExit) as exit_:
        arena_main([f"program:command={PYTHON} {script}", "random", "random", "random", "--deals", "2"])
    message = str(exit_.value.code)
    assert (
        message.startswith("hearts-arena: error: bot 'bad' (")
        and "exited with code 5 before answering table" in message
    )
    assert "\n" not in message


def test_a_bot_that_hangs_is_killed_with_what_it_started(tmp_path: Path) -> None:
    child = tmp_path / "child.pid"
    script = tmp_path / "hang.sh"
    script.write_text(
        f"read hello\necho 'hearts-bot-protocol 1 name=hang tables=one'\nsleep 300 &\necho $! > {child}\nwait\n"
    )
    bot = ProgramPolicy(f"sh {script}", time_limit=0.3)
    state = core.new_games(None, batch_size=1, seed=0)
    with pytest.raises(BotError, match="did not answer table 0"):
        bot(infoset(state), core.legal_mask(state))
    assert not alive(bot.pid) and not alive(int(child.read_text()))


def test_a_bot_flooding_stderr_still_plays(tmp_path: Path) -> None:
    script = tmp_path / "noisy.py"
    script.write_text(HEAD + "    sys.stderr.write('x' * 300_000 + '\\n'); print(table, legal, flush=True)\n")
    bot = ProgramPolicy(f"{PYTHON} {script}", time_limit=30)
    state = core.new_games(HeartsRules(target_score=None), batch_size=4, seed=1)
    with bot:
        through = runner.play(state, [bot, lowest, lowest, lowest])
    inside = runner.play(state, [lowest] * 4)
    np.testing.assert_array_equal(through.scores, inside.scores)


def test_what_a_bot_wrote_before_it_went_is_read_though_writing_to_it_fails() -> None:
    from_bot, bot_out = os.pipe()
    bot_in, to_bot = os.pipe()
    os.write(bot_out, b"hello\n")
    os.close(bot_out)  # it printed its line and exited,
    os.close(bot_in)  # so writing to it fails (a broken pipe)
    channel = LineChannel(from_bot, to_bot)
    try:
        assert channel.exchange(b"hello\n", 1, 5) == b"hello\n"  # its answer, as if it had read the question
        with pytest.raises(Exited):
            channel.exchange(b"next\n", 1, 5)
    finally:
        os.close(from_bot)
        os.close(to_bot)


def test_a_bad_hello_or_command_is_refused_before_the_first_deal(tmp_path: Path) -> None:
    rules = HeartsRules()
    for command, message in (
        ("/no/such/bot --x", r"program '/no/such/bot --x': cannot start '/no/such/bot': No such file"),
        (f"{PYTHON} -c \"print('hello')\"", r"answered the hello with 'hello"),
        (f"{PYTHON} -c pass", r"exited with code 0 before answering the hello"),
    ):
        with pytest.raises(ValueError, match=f"agent 'x' cannot play these rules: .*{message}"):
            check_agents(rules, [("x", ProgramPolicy(command))])
    with pytest.raises(ValueError, match="needs a command"):
        make_agent("program", command="  ")
    with pytest.raises(ValueError, match="time_limit must be a positive number"):
        make_agent("program", command="x", time_limit=0)


def test_hearts_arena_refuses_a_program_that_does_not_start(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        arena_main(["program:command=/no/such/bot", "random", "random", "random", "--deals", "1"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("hearts-arena: error: agent 'program:command=/no/such/bot' cannot play these rules")
    assert "Traceback" not in "".join(err)


def test_check_agents_leaves_no_process(tmp_path: Path) -> None:
    command, log = recorder(tmp_path)
    bot = ProgramPolicy(command)
    check_agents(HeartsRules(), [("x", bot)])
    assert bot.pid is None  # a copy played, not the agent
    kind, pid = log.read_text().split()[:2]
    assert kind == "pid" and not alive(int(pid))


def test_rules_of_other_tables_reach_the_bot(tmp_path: Path) -> None:
    """Two decks and a history: the table line says so and the decisions carry the pot and the tricks."""
    command, log = recorder(tmp_path)
    rules = HeartsRules(decks=2, num_players=6, target_score=None)
    with ProgramPolicy(command) as bot:
        runner.play(core.new_games(rules, batch_size=2, seed=0, history=True), [bot] + [lowest] * 5)
    text = log.read_text()
    assert "history=1 num_players=6" in text and "decks=2" in text
    assert " pot=" in text and " kitty=" in text and " tricks=" in text
    read = protocol.read_decisions(
        "".join(line + "\n" for line in text.splitlines() if line.startswith(("pass ", "play "))).encode(), rules, True
    )
    assert (read.failed == 0).all()
