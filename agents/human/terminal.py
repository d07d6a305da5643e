"""Play Hearts in the terminal: you take one seat, agents take the others.

Usage: ``hearts-play --seat 0 --opponents heuristic simple random --seed 0`` (every rules knob is
a flag: ``--num-players 5 --jack-of-diamonds``, or ``--decks 2 --num-players 8`` for Cancellation
Hearts; an opponent may be ``trained:path=RUN_FOLDER``)

Type a card to play it (``QS``, ``qs``, ``10h``, ``TH`` or ``Q♠``); while passing, name one card
or several on a line (``QS AS 2H``). Commands: ``help``, ``hand``, ``last``, ``scores``, ``quit``.
Cards in [brackets] are the ones the rules let you play now; with two decks a card held twice
shows as ``Q♠x2``, and the table shows the pot and the kitty's size. The table is drawn from the
description the text, image and web views share (``hearts_env.render.describe``: a ``TableView``
with the person's hand face up, the others' face down). Input and output are injectable
(``main(argv, input_fn, output)``), so the whole game can be driven by a script.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

import numpy as np

from hearts_env.agents.specs import agent_from_spec, check_agents
from hearts_env.engine import cards
from hearts_env.engine.cards import BIT, HEART_POINTS, JD_POINTS, MOON_POINTS, QS_POINTS
from hearts_env.engine.core import (
    GAME_OVER,
    PASS,
    State,
    illegal_move,
    points_taken,
    step,
)
from hearts_env.engine.rules import HeartsRules
from hearts_env.play import runner
from hearts_env.play.policy import Policy
from hearts_env.render import SeatView, TableView, describe, pile_cards

SUIT_NAMES = ("clubs", "diamonds", "spades", "hearts")
_SYMBOL_TO_LETTER = str.maketrans(dict(zip(cards.SUIT_SYMBOLS, cards.SUIT_CHARS, strict=True)))
COMMANDS = {  # word typed -> command
    "help": "help",
    "?": "help",
    "h": "help",
    "hand": "hand",
    "show": "hand",
    "last": "last",
    "scores": "scores",
    "score": "scores",
    "clear": "clear",
}
HELP = """\
How to play:
  Type a card to play it: QS, qs, 10H, TH and Q♠ all work (rank 2-9, 10 or T, J, Q, K, A; suit C D S H).
  Cards in [brackets] are the ones the rules let you play now.
  When passing, name the cards one at a time or several on a line (QS AS 2H); 'clear' starts the pick over.
Commands:
  hand    show the table and your hand again
  last    show the last completed trick
  scores  show the points of this hand and the game totals
  help    show this help
  quit    leave the game (so does end of input, Ctrl-D)"""
MOON_OUTCOMES = {  # {n}: every point of a hand (MOON_POINTS, twice with two decks)
    "add_to_others": "the others score {n} each instead",
    "subtract_from_self": "you score -{n} instead",
    "shooter_choice": "the others score {n} each instead, or you -{n} when that keeps you winning",
}


def rules_summary(rules: HeartsRules) -> str:
    """The rules of this table in a few lines, for the help (docs/rules.md has them all)."""
    two = rules.decks == 2
    first = ", and no hearts or Q♠ may be dropped on it" if rules.no_points_on_first_trick else ""
    broken = "a heart or Q♠" if rules.queen_breaks_hearts else "a heart"
    jack = f", J♦ {JD_POINTS}" if rules.jack_of_diamonds else ""
    target = rules.target_score
    end = f"when someone reaches {target}" if target is not None else "after this one hand"
    if two:
        opener = "The seat left of the dealer"
        cancel = (
            "Two decks: two equal cards in one trick cancel (neither wins it); a trick whose led-suit cards\n"
            "all cancel waits in the pot for the next trick's taker. The first taker also gets the kitty.\n"
        )
    else:
        opener, cancel = f"{cards.card_symbol(cards.lowest_club(rules.num_players))}", ""
    every = "every heart and both Q♠" if two else "all hearts and Q♠"
    moon = MOON_OUTCOMES[rules.moon].format(n=MOON_POINTS * rules.decks)
    return (
        f"Rules: follow the led suit if you can. {opener} opens the first trick{first}.\n{cancel}"
        f"Hearts may be led once broken (by {broken}). Each heart is {HEART_POINTS} point, Q♠ {QS_POINTS}{jack}; "
        f"the lowest total\nwins {end}.\nTake {every} (shoot the moon) and {moon}."
    )


class Quit(Exception):
    """The person left the game (``quit`` or end of input)."""


@dataclass
class Table:
    """The game's seats and the terminal: who sits where, and how to talk to the person."""

    rules: HeartsRules
    seat: int  # the person's seat
    agents: dict[int, Policy]  # the other seats' players
    agent_names: dict[int, str]
    input_fn: Callable[[str], str] = input
    output: TextIO = field(default_factory=lambda: sys.stdout)
    last_trick: str | None = None  # the line that reported the last completed trick

    def say(self, text: str = "") -> None:
        print(text, file=self.output, flush=True)

    def ask(self, prompt: str) -> str:
        """A line typed by the person; ``Quit`` on end of input or a quit command."""
        try:
            line = self.input_fn(prompt)
        except (EOFError, KeyboardInterrupt):
            self.say()
            raise Quit from None
        if line is None:  # a scripted input that ran out
            raise Quit
        if line.strip().lower() in ("quit", "exit", "q"):
            raise Quit
        return line

    def name(self, seat: int) -> str:
        return "you" if seat == self.seat else f"seat {seat}"

    def who(self, seat: int) -> str:
        """The seat's name with where it sits from the person and who plays it, for tables."""
        if seat == self.seat:
            return f"you (seat {seat})"
        where = relative_position(seat - self.seat, self.rules.num_players)
        return f"seat {seat} ({where}, {self.agent_names[seat]})"


# ---------------------------------------------------------------------------------------------
# Words and pictures, drawn from the table's description (hearts_env.render.describe)


def relative_position(offset: int, num_players: int) -> str:
    """Where the seat ``offset`` places clockwise sits: 'left', 'right', 'across', '2 seats left'."""
    offset %= num_players
    if 2 * offset == num_players:
        return "across"
    if offset == 1:
        return "left"
    if offset == num_players - 1:
        return "right"
    return f"{offset} seats left" if 2 * offset < num_players else f"{num_players - offset} seats right"


def table_view(table: Table, state: State) -> TableView:
    """What the person sees of the game: its own hand face up, the seats named as the lines name them."""
    names = [table.name(s) for s in range(table.rules.num_players)]
    return describe(state, 0, face_up=[table.seat], names=names, viewer=table.seat)


def format_hand(seat: SeatView, marked: set[int] | None = None) -> list[str]:
    """One line per suit; cards in ``marked`` are shown in brackets, e.g. ``♠ spades   [Q♠]  K♠``;
    a card held twice (two decks) with ``x2``, e.g. ``[Q♠x2]``."""
    twice = {c for c in seat.hand if seat.hand.count(c) > 1}
    width = 7 if twice else 5
    lines = []
    for suit in range(cards.NUM_SUITS):
        in_suit = [c for c in sorted(set(seat.hand)) if cards.suit_of(c) == suit]
        names = {c: cards.card_symbol(c) + ("x2" if c in twice else "") for c in in_suit}
        cells = [
            (f"[{names[c]}]" if marked is not None and c in marked else f"{names[c]} ").rjust(width) for c in in_suit
        ]
        label = f"{cards.SUIT_SYMBOLS[suit]} {SUIT_NAMES[suit]:<8}"
        lines.append(f"  {label}  {' '.join(cells) if cells else '  -'}".rstrip())
    return lines


def format_trick(view: TableView, trick: Sequence[tuple[int, int]]) -> str:
    """``seat 2 led 7♦, seat 3 K♦, you 9♦`` for the (seat, card) pairs of a trick in the order played."""
    return ", ".join(
        f"{view.seats[seat].name}{' led' if i == 0 else ''} {cards.card_symbol(card)}"
        for i, (seat, card) in enumerate(trick)
    )


def scoreboard(table: Table, view: TableView, hand_points: Sequence[int], heading: str) -> list[str]:
    """A small table of each seat's points ``hand_points`` and its game total."""
    width = max(len(table.who(seat.seat)) for seat in view.seats)
    lines = [f"  {'player':<{width}}  {heading:>9}  {'total':>5}"]
    for seat in view.seats:
        lines.append(f"  {table.who(seat.seat):<{width}}  {hand_points[seat.seat]:>9}  {seat.score:>5}")
    return lines


def this_hand(view: TableView) -> list[int]:
    """Each seat's points taken so far this hand."""
    return [seat.points for seat in view.seats]


def pass_phrase(table: Table, view: TableView) -> str:
    """``left to seat 1``: this hand's pass direction and the person's receiver."""
    return f"{view.pass_direction} to {view.seats[view.receiver(table.seat)].name}"


def hand_header(view: TableView) -> str:
    game = f"game to {view.target_score}" if view.target_score is not None else "one-hand game"
    passing = "no passing" if view.pass_direction == "none" else f"pass {view.pass_direction}"
    return f"===== Hand {view.hand_number} · {passing} · {game} ====="


def show_table(table: Table, view: TableView) -> None:
    """The view at the person's turn: the hand's situation, the scores, the trick and the hand."""
    table.say()
    if view.phase == "play":
        broken = "broken" if view.hearts_broken else "not broken"
        number = view.trick_number
        table.say(f"--- Hand {view.hand_number} · trick {number} of {view.hand_size} · hearts {broken}")
        for line in scoreboard(table, view, this_hand(view), "this hand"):
            table.say(line)
        if view.decks == 2:
            table.say(table_middle(table, view))
        if not view.trick:
            table.say(f"Trick {number}: you lead.")
        else:
            table.say(f"Trick {number}: {format_trick(view, view.trick)}; your turn.")
        table.say("Your hand ([ ] = cards you may play):")
        for line in format_hand(view.seats[table.seat], set(view.legal)):
            table.say(line)
    else:
        table.say(f"--- Hand {view.hand_number} · passing {pass_phrase(table, view)}")
        table.say("Your hand:")
        for line in format_hand(view.seats[table.seat]):
            table.say(line)


def copies_text(pile: Sequence[int]) -> str:
    """The cards of a pile, a card held twice named twice: ``3♥ 3♥ Q♠``."""
    return " ".join(cards.card_symbol(c) for c in sorted(pile)) or "nothing"


def points_text(table: Table, pile: Sequence[int]) -> str:
    """`` (2 points)`` for the points of the cards ``pile`` (each copy counts); empty for none."""
    points = int(points_taken(table.rules, BIT[np.asarray(pile, np.int64)]).sum())
    return f" ({points} point{'s' if abs(points) != 1 else ''})" if points else ""


def table_middle(table: Table, view: TableView) -> str:
    """Two decks: what lies on the table besides the trick, the pot and the face-down kitty."""
    kitty = view.kitty
    taken = f"kitty: {kitty} card{'s' if kitty != 1 else ''} face down, for the first trick's taker" if kitty else ""
    return f"Pot: {copies_text(view.pot)}{points_text(table, view.pot)}" + (f" · {taken}" if taken else "")


# ---------------------------------------------------------------------------------------------
# Reading the person's input


def parse_line(text: str) -> tuple[str | None, list[int]]:
    """(command, []) for a command word, else (None, card ids); ``ValueError`` for a word that is
    neither, with a message for the person."""
    words = text.replace(",", " ").split()
    if len(words) == 1 and words[0].lower() in COMMANDS:
        return COMMANDS[words[0].lower()], []
    picked = []
    for word in words:
        try:
            picked.append(cards.parse_card(word.translate(_SYMBOL_TO_LETTER)))
        except ValueError:
            raise ValueError(f"'{word}' is not a card or a command. Type a card like QS or 10H, or 'help'.") from None
    return None, picked


def run_command(table: Table, state: State, command: str) -> None:
    """The commands that only show things."""
    if command == "help":
        table.say(HELP)
        table.say(rules_summary(table.rules))
    elif command == "hand":
        show_table(table, table_view(table, state))
    elif command == "scores":
        view = table_view(table, state)
        for line in scoreboard(table, view, this_hand(view), "this hand"):
            table.say(line)
    elif command == "last":
        table.say(table.last_trick or "No trick has been played yet.")


def play_problem(table: Table, state: State, card: int) -> str | None:
    """Why the person may not play ``card`` now (None if it may)."""
    symbol = cards.card_symbol(card)
    if not int(state.hands[0, table.seat]) >> card & 1:
        return f"You don't hold {symbol}."
    if not int(state.legal[0]) >> card & 1:
        rule = illegal_move(state, 0, card).rule(you=True)
        return f"You can't play {symbol} now: {rule}."
    return None


def pick_problem(table: Table, state: State, picks: list[int], card: int) -> str | None:
    """Why the person may not add ``card`` to the cards it passes (None if it may)."""
    symbol = cards.card_symbol(card)
    held = int(state.hands[0, table.seat]) >> card & 1
    if table.rules.decks == 2:
        held += int(state.hands2[0, table.seat]) >> card & 1
    if picks.count(card) >= held > 0:
        return f"You have already picked {symbol}" + (" twice." if held == 2 else ".")
    if not held:
        return f"You don't hold {symbol}."
    return None


def ask_cards(table: Table, state: State, prompt: str) -> list[int] | None:
    """Ask until the person names cards (maybe none) or says 'clear' (None), answering a line that
    does not parse and running any other command on the way."""
    while True:
        try:
            command, picked = parse_line(table.ask(prompt))
        except ValueError as error:
            table.say(str(error))
            continue
        if command == "clear":
            return None
        if command is None:
            return picked
        run_command(table, state, command)


def person_plays(table: Table, state: State) -> State:
    """Ask until the person names a legal card, then play it."""
    show_table(table, table_view(table, state))
    while True:
        picked = ask_cards(table, state, "Your card> ")
        if picked is None:
            table.say("Nothing to clear: 'clear' is for passing.")
        elif not picked:
            table.say("Type a card to play, like QS or 10H ('help' for more).")
        elif len(picked) > 1:
            table.say("Play one card at a time.")
        elif problem := play_problem(table, state, picked[0]):
            table.say(problem)
        else:
            return step(state, np.array([picked[0]]))


def person_passes(table: Table, state: State) -> State:
    """Ask until the person has picked ``pass_count`` cards, then pass them."""
    count = table.rules.pass_count
    view = table_view(table, state)
    show_table(table, view)
    table.say(f"Pick {count} cards to pass {pass_phrase(table, view)}.")
    picks: list[int] = []
    while len(picks) < count:
        picked = ask_cards(table, state, f"Pass ({count - len(picks)} more)> ")
        if picked is None:
            picks = []
            table.say("Picks cleared.")
        elif not picked:
            table.say(f"Name the cards to pass, e.g. QS AS 2H ({count - len(picks)} more).")
        elif len(picks) + len(picked) > count:
            table.say(f"That is too many: you pass {count} cards and have {count - len(picks)} left to pick.")
        else:
            problems = [p for i, c in enumerate(picked) if (p := pick_problem(table, state, picks + picked[:i], c))]
            if problems:
                table.say(" ".join(problems) + " Nothing from that line was picked.")
            else:
                picks += picked
                table.say(f"Picked so far: {' '.join(cards.card_symbol(c) for c in picks)}.")
    for card in picks:
        state = step(state, np.array([card]))
    return state


# ---------------------------------------------------------------------------------------------
# Reporting what happened


def trick_line(table: Table, before: State, was: TableView, now: TableView) -> str:
    """``Trick 3: seat 2 led 7♦, ... → seat 3 takes it (2 points).`` for the trick completed between
    the views ``was`` and ``now`` (``before``: the state of ``was``, for the kitty's cards)."""
    order = [(was.leader + i) % was.num_players for i in range(was.num_players)]
    trick = [(seat, card) for seat in order if (card := now.seats[seat].last_trick_card) is not None]
    worth = points_text(table, [card for _, card in trick])  # each copy counts
    played = format_trick(now, trick)
    number, winner = was.trick_number, now.last_trick_winner
    if winner < 0:  # two decks: every card of the led suit cancelled
        return f"Trick {number}: {played} → every card of the led suit cancelled: the trick{worth} goes to the pot."
    taker = "you take it" if winner == table.seat else f"{table.name(winner)} takes it"
    extras = []  # two decks: the pot and the kitty go with the trick (the kitty's cards show once taken)
    if was.pot:
        extras.append(f"the pot ({copies_text(was.pot)})")
    if was.kitty:
        extras.append(f"the kitty ({copies_text(pile_cards(*before.kitty[0]))})")
    with_ = f" with {' and '.join(extras)}" if extras else ""
    return f"Trick {number}: {played} → {taker}{worth}{with_}."


def report(table: Table, before: State, after: State) -> None:
    """Tell the person what the last step showed: passes exchanged, a trick taken, a hand scored,
    the game over, a new hand dealt."""
    was, now = table_view(table, before), table_view(table, after)
    if was.phase == "pass" and now.phase == "play":
        giver = (table.seat - was.pass_offset) % was.num_players
        given = pile_text(table, after, table.seat)
        got = pile_text(table, after, giver)
        table.say(f"You passed {given} {pass_phrase(table, was)}; you received {got} from {table.name(giver)}.")
    if was.phase == "play" and not now.trick:
        table.last_trick = trick_line(table, before, was, now)
        table.say(table.last_trick)
    if now.hand_over:
        report_hand(table, was, now, moon_shooter(after))
        if now.game_over:
            report_game(table, now)
        else:
            announce_hand(table, now)


def pile_text(table: Table, state: State, seat: int) -> str:
    """The cards ``seat`` passed this hand (both copies of a card passed twice)."""
    twice = state.passed2[0, seat] if table.rules.decks == 2 else 0
    return copies_text(pile_cards(state.passed[0, seat], twice))


def moon_shooter(after: State) -> int | None:
    """The seat that took every heart and QS (every copy, with two decks) in the hand that
    ``after`` completed, if any."""
    shooters = np.flatnonzero(after.last_hand_moons[0])
    return int(shooters[0]) if len(shooters) else None


def report_hand(table: Table, was: TableView, now: TableView, shooter: int | None) -> None:
    table.say()
    table.say(f"===== Hand {was.hand_number} is over =====")
    if shooter is not None:
        who = "You" if shooter == table.seat else table.name(shooter).capitalize()
        rule = table.rules.moon.replace("_", " ")
        every = "every heart and both Q♠" if table.rules.decks == 2 else "every heart and Q♠"
        table.say(f"{who} shot the moon: took {every} (moon rule: {rule})!")
    for line in scoreboard(table, now, [seat.last_hand_points for seat in now.seats], "hand"):
        table.say(line)


def report_game(table: Table, view: TableView) -> None:
    winners = [seat.seat for seat in view.seats if seat.winner]
    hands = view.hand_number
    table.say(f"===== Game over after {hands} hand{'s' if hands != 1 else ''} =====")
    final = ", ".join(f"{seat.name} {seat.score}" for seat in view.seats)
    table.say(f"Final scores: {final}.")
    names = " and ".join(table.name(s) for s in winners)
    if table.seat in winners:
        table.say("You win!" if len(winners) == 1 else f"Shared win: {names}.")
    else:
        table.say(f"Winner{'s (shared)' if len(winners) > 1 else ''}: {names}.")


def announce_hand(table: Table, view: TableView) -> None:
    table.say()
    table.say(hand_header(view))
    if view.phase == "play":
        table.say("No passing this hand.")


# ---------------------------------------------------------------------------------------------
# The game


def play_game(table: Table, state: State) -> State:
    """Play ``state`` (a batch of one) to the end; ``Quit`` if the person leaves."""
    announce_hand(table, table_view(table, state))
    # The agents play (the runner stops when the person's seat, which has no policy, is to act).
    agents = [table.agents.get(seat) for seat in range(table.rules.num_players)]
    while True:
        state = runner.play(state, agents, on_step=lambda step: report(table, step.state, step.after))
        if state.phase[0] == GAME_OVER:
            return state
        after = person_passes(table, state) if state.phase[0] == PASS else person_plays(table, state)
        report(table, state, after)
        state = after


def make_table(
    rules: HeartsRules,
    seat: int,
    opponents: Sequence[str],
    seed: int | None = None,
    input_fn: Callable[[str], str] = input,
    output: TextIO | None = None,
) -> Table:
    """The person at ``seat`` and the agents ``opponents`` (specs, ``hearts_env.agents.specs``: one for all the
    other seats, or one per seat clockwise from the person's left); ``ValueError`` for a bad seat or
    count, or an agent that cannot be built or cannot play ``rules``."""
    P = rules.num_players
    if not 0 <= seat < P:
        raise ValueError(f"--seat must be in 0..{P - 1}, got {seat}")
    others = [(seat + i) % P for i in range(1, P)]  # clockwise from the person's left
    names = list(opponents) * len(others) if len(opponents) == 1 else list(opponents)
    if len(names) != len(others):
        raise ValueError(f"--opponents takes 1 or {len(others)} agents, got {len(opponents)}")
    seeds = np.random.default_rng(seed).integers(2**31, size=len(others))
    agents = {s: agent_from_spec(n, int(k)) for s, n, k in zip(others, names, seeds, strict=True)}
    check_agents(rules, list(zip(names, agents.values(), strict=True)))
    output = sys.stdout if output is None else output
    return Table(rules, seat, agents, dict(zip(others, names, strict=True)), input_fn, output)


if __name__ == "__main__":
    from hearts_env.agents.human.cli import play

    sys.exit(play())
