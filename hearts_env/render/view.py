"""One description of a table, the picture every view draws: ``describe(state, game)``.

A ``TableView`` holds what a person at the table (or watching it) sees of one game: each seat's
hand (or only how many cards it holds, when the hand is face down), the cards it picked to pass
while the passes are in flight, its card in the current trick and in the last one, the points it
took this hand and its game total; the trick's leader and the seat winning it, whose turn it is
and (for a face-up seat to act) its legal cards; the hand number, the pass direction, whether
hearts are broken, the end of a hand (its score) and of the game (its winners); with two decks
the kitty's size and the pot. The text (``render.text``), the image (``render.image``) and the
browser table's JSON (``TableView.to_dict``) are all drawn from it, so they cannot disagree.

Every fact comes from the core's state and properties (``State.hand_points``,
``State.pass_offset``, ``HeartsRules.pass_direction``, ``core.bits_to_cards``); nothing here
knows a rule. ``face_up`` picks the seats whose hands show (default: all); a face-down seat's
cards, picks and legal cards stay out of the view entirely, so a view sent to a person reveals
nothing hidden.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from hearts_env.engine import cards
from hearts_env.engine.core import GAME_OVER, PASS, PHASE_NAMES, State, bits_to_cards


@dataclass(frozen=True)
class SeatView:
    """One seat as the table shows it. Cards are card ids; a card held twice (two decks) shows twice."""

    seat: int
    name: str  # what to call the seat: "seat 2", or a player's name
    face_up: bool  # its hand (and picks) show
    hand: tuple[int, ...]  # its cards, sorted; empty when face down
    held: int  # how many cards it holds
    picked: tuple[int, ...]  # cards picked to pass, in flight during the pass; empty when face down
    picks: int  # how many cards it has picked to pass (during the pass)
    trick_card: int | None  # its card in the current trick
    last_trick_card: int | None  # its card in the last completed trick
    points: int  # points taken this hand so far (before any moon adjustment)
    score: int  # game total
    last_hand_points: int  # score of the last completed hand
    to_play: bool
    leader: bool  # leads (led) the current trick
    winning: bool  # winning the current trick so far
    took_last_trick: bool
    winner: bool  # lowest total once the game is over


@dataclass(frozen=True)
class TableView:
    """One game of a batch as the table shows it (see the module docstring)."""

    num_players: int
    decks: int
    hand_size: int
    pass_count: int
    target_score: int | None
    hand_number: int
    phase: str  # "pass", "play" or "game over"
    pass_direction: str  # this hand's: "left", "right", "across" or "none"
    pass_offset: int  # receiver = giver + offset (mod P); 0 = no pass
    hearts_broken: bool
    tricks_played: int
    to_play: int  # seat to act, -1 once the game is over
    leader: int  # seat leading the current trick (-1 during the pass)
    winning: int  # seat winning the current trick so far (-1 before a card, or all cancelled)
    trick: tuple[tuple[int, int], ...]  # (seat, card) of the current trick in the order played
    last_trick_winner: int  # seat that took the last completed trick, -1 before any (or to the pot)
    legal: tuple[int, ...]  # legal cards of the seat to act, when its hand is face up
    hand_over: bool  # this state follows the last card of a hand (its score in last_hand_points)
    game_over: bool
    kitty: int  # two decks: cards face down in the kitty
    pot: tuple[int, ...]  # two decks: cards of tricks without a winner, waiting for the next taker
    viewer: int  # the seat drawn nearest the onlooker (bottom of the picture)
    seats: tuple[SeatView, ...]

    @property
    def trick_number(self) -> int:
        """The trick being played, 1-based (the hand size once the hand is over)."""
        return min(self.tricks_played + 1, self.hand_size)

    def receiver(self, seat: int) -> int:
        """The seat ``seat`` passes to this hand (itself when there is no pass)."""
        return (seat + self.pass_offset) % self.num_players

    def to_dict(self) -> dict[str, Any]:
        """The view as JSON-ready data, each card id also given by name (``"QS"``) in ``*_names``."""
        out = asdict(self)
        out["trick"] = [{"seat": s, "card": c, "name": cards.card_name(c)} for s, c in self.trick]
        out["legal_names"] = [cards.card_name(c) for c in self.legal]
        out["pot_names"] = [cards.card_name(c) for c in self.pot]
        for seat in out["seats"]:
            seat["hand_names"] = [cards.card_name(c) for c in seat["hand"]]
            seat["picked_names"] = [cards.card_name(c) for c in seat["picked"]]
        return out


def describe(
    state: State,
    game: int = 0,
    face_up: Iterable[int] | None = None,
    names: Sequence[str] | None = None,
    viewer: int = 0,
) -> TableView:
    """The view of game ``game`` of ``state``: ``face_up`` the seats whose hands show (None: every
    seat), ``names`` one name per seat (default ``"seat s"``), ``viewer`` the seat at the bottom."""
    rules, P = state.rules, state.num_players
    if not 0 <= game < state.batch_size:
        raise ValueError(f"game must be in 0..{state.batch_size - 1}, got {game}")
    shown = set(range(P)) if face_up is None else {int(s) for s in face_up}
    if not shown <= set(range(P)) or not 0 <= viewer < P:
        raise ValueError(f"face_up and viewer must be seats 0..{P - 1}, got {sorted(shown)} and {viewer}")
    if names is not None and len(names) != P:
        raise ValueError(f"names must name each of the {P} seats, got {len(names)}")
    two = rules.decks == 2
    phase = int(state.phase[game])
    to_play, leader = int(state.to_play[game]), int(state.leader[game])
    trick_size = int(state.trick_size[game])
    trick = tuple((s, int(state.trick[game, s])) for s in ((leader + i) % P for i in range(trick_size)))
    winning = int(state.winner[game]) if trick_size else -1
    last_winner = int(state.last_trick_winner[game])
    over = phase == GAME_OVER
    points, scores = state.hand_points[game], state.scores[game]

    def pile(field: str, seat: int) -> tuple[int, ...]:
        once = getattr(state, field)[game, seat]
        return tuple(_pile(once, getattr(state, field + "2")[game, seat] if two else 0))

    seats = []
    for s in range(P):
        hand, picked = pile("hands", s), pile("passed", s) if phase == PASS else ()
        up = s in shown
        last_card = int(state.last_trick[game, s])
        seats.append(
            SeatView(
                seat=s,
                name=f"seat {s}" if names is None else str(names[s]),
                face_up=up,
                hand=hand if up else (),
                held=len(hand),
                picked=picked if up else (),
                picks=len(picked),
                trick_card=int(state.trick[game, s]) if state.trick[game, s] >= 0 and phase != PASS else None,
                last_trick_card=last_card if last_card >= 0 else None,
                points=int(points[s]),
                score=int(scores[s]),
                last_hand_points=int(state.last_hand_points[game, s]),
                to_play=s == to_play,
                leader=phase != PASS and not over and s == leader,
                winning=s == winning,
                took_last_trick=s == last_winner,
                winner=over and bool(state.winners[game, s]),
            )
        )
    hand_number = int(state.hand_number[game])
    legal = tuple(bits_to_cards(state.legal[game])) if to_play in shown else ()
    return TableView(
        num_players=P,
        decks=rules.decks,
        hand_size=rules.hand_size,
        pass_count=rules.pass_count,
        target_score=rules.target_score,
        hand_number=hand_number,
        phase=PHASE_NAMES[phase],
        pass_direction=rules.pass_direction(hand_number),
        pass_offset=int(state.pass_offset[game]),
        hearts_broken=bool(state.hearts_broken[game]),
        tricks_played=int(state.tricks_played[game]),
        to_play=to_play,
        leader=-1 if phase == PASS or over else leader,
        winning=winning,
        trick=trick,
        last_trick_winner=last_winner,
        legal=legal,
        hand_over=bool(state.hand_over[game]),
        game_over=over,
        kitty=int(np.bitwise_count(state.kitty[game]).sum()) if two else 0,
        pot=tuple(_pile(*state.pot[game])) if two else (),
        viewer=int(viewer),
        seats=tuple(seats),
    )


def _pile(once: int | np.integer, twice: int | np.integer = 0) -> list[int]:
    """Card ids of a pile held as the cards present at least once and those present twice."""
    return sorted(bits_to_cards(once) + bits_to_cards(twice))
