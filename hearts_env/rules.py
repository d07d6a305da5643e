"""``HeartsRules``: every variant knob of RULES.md in one frozen, validated dataclass."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hearts_env import cards

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
    """Players at the table, 3..7; cards are removed so the deck divides evenly."""
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
    pass_offsets: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """Receiver offset (receiver = seat + offset mod P) for each entry of the cycle; 0 = no pass."""

    def __post_init__(self) -> None:
        cards.check_num_players(self.num_players)
        hand = cards.hand_size(self.num_players)
        _check_int("pass_count", self.pass_count, 0, hand)
        for knob in ("no_points_on_first_trick", "queen_breaks_hearts", "jack_of_diamonds"):
            if not isinstance(getattr(self, knob), (bool, np.bool_)):
                raise ValueError(f"{knob} must be True or False, got {getattr(self, knob)!r}")
        if self.moon not in MOON_RULES:
            raise ValueError(f"moon must be one of {', '.join(MOON_RULES)}; got {self.moon!r}")
        if self.target_score is not None:
            _check_int("target_score", self.target_score, 0, None)
            if self.target_score == 0:
                object.__setattr__(self, "target_score", None)
        cycle = standard_pass_cycle(self.num_players) if self.pass_cycle is None else self.pass_cycle
        if isinstance(cycle, str) or not len(cycle):
            raise ValueError(f"pass_cycle must be a non-empty sequence of {PASS_DIRECTIONS}, got {cycle!r}")
        cycle = tuple(cycle)
        for direction in cycle:
            if direction not in PASS_DIRECTIONS:
                raise ValueError(f"pass_cycle entries must be in {PASS_DIRECTIONS}, got {direction!r}")
            if direction == "across" and self.num_players != 4:
                raise ValueError("pass_cycle: 'across' exists only with 4 players")
        object.__setattr__(self, "pass_cycle", cycle)
        offsets = {"left": 1, "right": self.num_players - 1, "across": 2, "none": 0}
        object.__setattr__(self, "pass_offsets", tuple(offsets[d] for d in cycle))

    @property
    def hand_size(self) -> int:
        """Cards dealt to each player."""
        return cards.hand_size(self.num_players)

    def pass_direction(self, hand_number: int) -> str:
        """Direction of the pass before hand ``hand_number`` (1-based)."""
        if self.pass_count == 0:
            return "none"
        return self.pass_cycle[(hand_number - 1) % len(self.pass_cycle)]


def _check_int(knob: str, value: object, low: int, high: int | None) -> None:
    allowed = f"{low}..{high}" if high is not None else f">= {low}"
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{knob} must be an int {allowed}, got {value!r}")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{knob} must be {allowed}, got {value}")
