"""The table as text (``"ansi"``): hands, the trick, the passes in flight and the scores, with
unicode suits, drawn from a ``TableView`` (with two decks a card held twice shows twice, and the
kitty's size and the pot show too)."""

from __future__ import annotations

from collections.abc import Iterable

from hearts_env.engine import cards
from hearts_env.engine.core import State
from hearts_env.render.view import TableView, _pile, describe


def format_cards(card_ids: Iterable[int]) -> str:
    """Cards grouped by suit, e.g. ``"2♣ 9♣  Q♠  4♥ A♥"``."""
    by_suit: dict[int, list[str]] = {}
    for c in sorted(card_ids):
        by_suit.setdefault(cards.suit_of(c), []).append(cards.card_symbol(c))
    return "  ".join(" ".join(group) for _, group in sorted(by_suit.items())) or "-"


def pile_cards(once: int, twice: int = 0) -> list[int]:
    """Card ids of a pile held as the cards present at least once and those present twice."""
    return _pile(once, twice)


def render_game(state: State, game: int = 0, face_up: Iterable[int] | None = None) -> str:
    """A table view of one game of the batch (``face_up``: the seats whose hands show; all by default)."""
    return render_view(describe(state, game, face_up))


def render_view(view: TableView) -> str:
    """The text of a ``TableView``."""
    lines = [
        f"Hand {view.hand_number}, pass {view.pass_direction}, phase {view.phase}, "
        f"hearts {'broken' if view.hearts_broken else 'not broken'}"
    ]
    for seat in view.seats:
        marker = "->" if seat.to_play else "  "
        hand = format_cards(seat.hand) if seat.face_up else f"{seat.held} cards face down"
        lines.append(
            f"{marker} {seat.name}: total {seat.score:4d}  this hand {seat.points:3d}  | {hand}"
            + _picks(view, seat.seat)
        )
    if view.trick:
        played = "  ".join(f"{s}:{cards.card_symbol(c)}" for s, c in view.trick)
        lines.append(f"   trick: {played}")
    if view.decks == 2:
        lines.append(f"   kitty: {view.kitty} cards face down   pot: {format_cards(view.pot)}")
    return "\n".join(lines)


def _picks(view: TableView, seat: int) -> str:
    """`` · passing Q♠ A♠ to seat 1`` while the seat's picks are in flight."""
    picked = view.seats[seat]
    if not picked.picks:
        return ""
    shown = format_cards(picked.picked) if picked.face_up else f"{picked.picks} card{'s' if picked.picks > 1 else ''}"
    return f"  · passing {shown} to seat {view.receiver(seat)}"
