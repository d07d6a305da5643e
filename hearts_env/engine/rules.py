"""``HeartsRules``: every variant knob of the rules (``docs/rules.md``) in one frozen, validated
dataclass, and the command-line flags made from it.

Every command that plays games (``hearts-demo``, ``hearts-play``, ``hearts-arena``,
``hearts-train``, ``hearts-main-job``) takes the same rules flags, one per knob, declared here
once from the dataclass's own fields (``add_rules_arguments``, ``rules_from_args``): ``--num-players
5 --moon shooter_choice --jack-of-diamonds --pass-cycle left,none --target-score 50``, or
``--decks 2 --num-players 8`` for Cancellation Hearts.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hearts_env.engine import cards

MOON_RULES = ("add_to_others", "subtract_from_self", "shooter_choice")
PASS_DIRECTIONS = ("left", "right", "across", "none")


def standard_pass_cycle(num_players: int) -> tuple[str, ...]:
    """Left, right, across, no pass for 4 players; left, right for any other count."""
    return ("left", "right", "across", "none") if num_players == 4 else ("left", "right")


@dataclass(frozen=True)
class HeartsRules:
    """The rules of one game. Defaults are the standard 4-player game.

    Invalid values raise ``ValueError`` naming the knob and what it allows.
    """

    num_players: int = 4
    """Players at the table: 3..7 with one deck (cards are removed so it divides evenly), 6..11 with two."""
    pass_count: int = 3
    """Cards each player passes before a hand; 0 turns passing off."""
    pass_cycle: tuple[str, ...] | None = None
    """Pass direction by hand number, cycled ("left", "right", "across", "none");
    None is the standard cycle for the player count."""
    no_points_on_first_trick: bool = True
    """A player void on the first trick may not discard a heart or the QS (unless it holds only those)."""
    queen_breaks_hearts: bool = True
    """Playing the QS breaks hearts (otherwise only a heart does)."""
    jack_of_diamonds: bool = False
    """Omnibus: taking the JD scores -10."""
    moon: str = "add_to_others"
    """Shooting the moon: "add_to_others", "subtract_from_self" or "shooter_choice"."""
    target_score: int | None = 100
    """The game ends after the hand in which a total reaches this; 0 or None: one hand is the game."""
    decks: int = 1
    """1, or 2 for Cancellation Hearts: two decks, 6 to 11 players, a kitty, identical cards cancel."""
    pass_offsets: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """Receiver offset (receiver = seat + offset mod P) for each entry of the cycle; 0 = no pass."""

    def __post_init__(self) -> None:
        cards.check_num_players(self.num_players, cards.check_decks(self.decks))
        _check_int("pass_count", self.pass_count, 0, self.hand_size)
        for knob in ("no_points_on_first_trick", "queen_breaks_hearts", "jack_of_diamonds"):
            if not isinstance(getattr(self, knob), (bool, np.bool_)):
                raise ValueError(f"{knob} must be True or False, got {getattr(self, knob)!r}")
        if not isinstance(self.moon, str) or self.moon not in MOON_RULES:
            raise ValueError(f"moon must be one of {', '.join(MOON_RULES)}; got {self.moon!r}")
        if self.target_score is not None:
            _check_int("target_score", self.target_score, 0, None)
            if self.target_score == 0:
                object.__setattr__(self, "target_score", None)
        cycle = standard_pass_cycle(self.num_players) if self.pass_cycle is None else self.pass_cycle
        if isinstance(cycle, str) or not isinstance(cycle, Sequence) or not len(cycle):
            raise ValueError(f"pass_cycle must be a non-empty sequence of {PASS_DIRECTIONS}, got {cycle!r}")
        cycle = tuple(cycle)
        for direction in cycle:
            if direction not in PASS_DIRECTIONS:
                raise ValueError(f"pass_cycle entries must be in {PASS_DIRECTIONS}, got {direction!r}")
            if direction == "across" and self.num_players != 4:
                raise ValueError(f"pass_cycle: 'across' exists only with 4 players, not {self.num_players}")
        object.__setattr__(self, "pass_cycle", tuple(str(d) for d in cycle))
        # numpy's ints and bools accepted above are kept as Python's: the knobs stay JSON-ready (``to_dict``),
        # pyspiel's parameters, and free of a small int type's overflow in the sums made of them.
        for knob in ("num_players", "pass_count", "decks", "target_score"):
            if getattr(self, knob) is not None:
                object.__setattr__(self, knob, int(getattr(self, knob)))
        for knob in ("no_points_on_first_trick", "queen_breaks_hearts", "jack_of_diamonds"):
            object.__setattr__(self, knob, bool(getattr(self, knob)))
        offsets = {"left": 1, "right": self.num_players - 1, "across": 2, "none": 0}
        object.__setattr__(self, "pass_offsets", tuple(offsets[d] for d in cycle))

    @property
    def hand_size(self) -> int:
        """Cards dealt to each player."""
        return cards.hand_size(self.num_players, self.decks)

    @property
    def kitty_size(self) -> int:
        """Cards left face down after the deal (two decks only; 0 with one deck or 8 players)."""
        return cards.kitty_size(self.num_players, self.decks)

    @property
    def moon_points(self) -> int:
        """The points of every point card of a hand: 26, or 52 with two decks."""
        return cards.MOON_POINTS * self.decks

    def pass_direction(self, hand_number: int) -> str:
        """Direction of the pass before hand ``hand_number`` (1-based)."""
        if self.pass_count == 0:
            return "none"
        assert self.pass_cycle is not None  # __post_init__ made None the standard cycle
        return self.pass_cycle[(hand_number - 1) % len(self.pass_cycle)]

    def to_dict(self) -> dict[str, Any]:
        """The knobs by name (JSON-ready); ``HeartsRules.from_dict`` reads them back."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}

    @classmethod
    def from_dict(cls, knobs: object) -> HeartsRules:
        """Rules from a mapping of knob names to values (lists read as tuples), e.g. JSON loaded
        back; ``ValueError`` for anything else, an unknown knob or a bad value."""
        if not isinstance(knobs, Mapping):
            raise ValueError(f"rules must be a mapping of knob names to values, got {type(knobs).__name__}")
        names = [f.name for f in dataclasses.fields(cls) if f.init]
        unknown = [str(k) for k in knobs if k not in names]
        if unknown:
            raise ValueError(f"unknown rules knob {', '.join(unknown)}; the knobs are {', '.join(names)}")
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in knobs.items()}
        return cls(**values)


def _check_int(knob: str, value: object, low: int, high: int | None) -> None:
    allowed = f"{low}..{high}" if high is not None else f">= {low}"
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{knob} must be an int {allowed}, got {value!r}")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{knob} must be {allowed}, got {value}")


# ---------------------------------------------------------------------------------------------
# Command-line flags, one per knob


def field_docs(cls: type) -> dict[str, str]:
    """Each dataclass field's doc: the string literal written after it in the class body (a
    subclass's doc wins over its base's). Empty where the source cannot be read."""
    docs: dict[str, str] = {}
    for klass in cls.__mro__:
        if not dataclasses.is_dataclass(klass):
            continue
        try:
            definition = ast.parse(inspect.getsource(klass)).body[0]
        except (OSError, TypeError):  # no source (a frozen or zipped install): flags without help
            continue
        assert isinstance(definition, ast.ClassDef)  # a class's source is its class statement
        previous = None
        for node in definition.body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                previous = node.target.id
            elif previous and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                docs.setdefault(previous, " ".join(str(node.value.value).split()))
                previous = None
    return docs


class _NegatedFlag(argparse.BooleanOptionalAction):
    """``--points-on-first-trick`` / ``--no-points-on-first-trick`` for the knob
    ``no_points_on_first_trick``: the ``--no-`` form sets the knob True."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, option_string.startswith("--no-"))


def parse_pass_cycle(text: str) -> tuple[str, ...] | None:
    """``left,right,none`` -> a tuple; ``standard`` -> None (the standard cycle): the knob as text,
    for a command line or a game parameter (``HeartsRules`` checks the directions)."""
    return None if text.strip() == "standard" else tuple(d.strip() for d in text.split(","))


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    """Add one flag per ``HeartsRules`` knob to ``parser`` (a "rules" group; help from the knob's
    doc; defaults: the standard game): ``--num-players``, ``--pass-count``, ``--pass-cycle`` (comma
    separated, or ``standard``), ``--no-points-on-first-trick/--points-on-first-trick``,
    ``--queen-breaks-hearts/--no-queen-breaks-hearts``, ``--jack-of-diamonds/--no-jack-of-diamonds``,
    ``--moon``, ``--target-score`` (0: one hand). ``rules_from_args`` checks the values, so every
    command refuses exactly what ``HeartsRules`` refuses."""
    group = parser.add_argument_group("rules", "the rules of the games (docs/rules.md)")
    docs = field_docs(HeartsRules)
    for f in dataclasses.fields(HeartsRules):
        if not f.init:
            continue
        default, help_text = f.default, docs.get(f.name, "")
        if f.type == "bool":
            negated = f.name.startswith("no_")  # no_x: the flag is --x/--no-x, --no-x sets the knob
            word = f.name.removeprefix("no_").replace("_", "-") if negated else f.name.replace("_", "-")
            shown = f"--no-{word}" if default == negated else f"--{word}"
            if negated:  # the knob's doc is the rule of the --no- form
                help_text = f"--no-{word}: {help_text} --{word}: no such rule."
            group.add_argument(
                f"--{word}",
                dest=f.name,
                action=_NegatedFlag if negated else argparse.BooleanOptionalAction,
                default=default,
                help=f"{help_text} (default: {shown})",
            )
        elif f.name == "pass_cycle":
            group.add_argument(
                "--pass-cycle",
                type=parse_pass_cycle,
                default=default,
                metavar="DIRECTION,...",
                help=f"{help_text} (default: standard)",
            )
        else:
            default = 0 if default is None else default
            number = f.type.startswith("int")
            group.add_argument(
                "--" + f.name.replace("_", "-"),
                type=int if number else str,
                default=default,
                metavar="N" if number else "RULE",
                help=f"{help_text} (default: {default})",
            )


def rules_or_knobs(rules: HeartsRules | None, knobs: dict[str, Any]) -> HeartsRules:
    """An environment's rules: its ``rules`` argument, or the ``HeartsRules`` of its rules keywords
    (the standard game without either); not both. ``ValueError`` naming a keyword that is no knob."""
    if rules is not None and knobs:
        raise ValueError(f"give either rules or rules knobs as keywords, not both (got {', '.join(knobs)})")
    if rules is not None and not isinstance(rules, HeartsRules):
        raise ValueError(f"rules must be a HeartsRules, got {rules!r}")
    names = [f.name for f in dataclasses.fields(HeartsRules) if f.init]
    unknown = [k for k in knobs if k not in names]
    if unknown:
        raise ValueError(
            f"{', '.join(unknown)}: neither an argument of this environment nor a rules knob ({', '.join(names)})"
        )
    return rules if rules is not None else HeartsRules(**knobs)


def rules_from_args(args: argparse.Namespace, parser: argparse.ArgumentParser | None = None) -> HeartsRules:
    """The ``HeartsRules`` of the flags ``add_rules_arguments`` added. A bad value exits through
    ``parser.error`` naming the knob (``ValueError`` without a parser)."""
    knobs = {f.name: getattr(args, f.name) for f in dataclasses.fields(HeartsRules) if f.init}
    try:
        return HeartsRules(**knobs)
    except ValueError as error:
        if parser is None:
            raise
        parser.error(f"rules: {error}")
