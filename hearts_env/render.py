"""Text views of a game: hands, the current trick and the scores, with unicode suits (with two
decks, a card held twice shows twice, and the kitty's size and the pot show too)."""

from __future__ import annotations

from collections.abc import Iterable

from hearts_env import cards
from hearts_env.core import PHASE_NAMES, PLAY, State, bits_to_cards


def format_cards(card_ids: Iterable[int]) -> str:
    """Cards grouped by suit, e.g. ``"2♣ 9♣  Q♠  4♥ A♥"``."""
    by_suit: dict[int, list[str]] = {}
    for c in sorted(card_ids):
        by_suit.setdefault(cards.suit_of(c), []).append(cards.card_symbol(c))
    return "  ".join(" ".join(group) for _, group in sorted(by_suit.items())) or "-"


def render_game(state: State, game: int = 0) -> str:
    """A table view of one game of the batch."""
    rules = state.rules
    hand_number = int(state.hand_number[game])
    lines = [
        f"Hand {hand_number}, pass {rules.pass_direction(hand_number)}, "
        f"phase {PHASE_NAMES[state.phase[game]]}, hearts {'broken' if state.hearts_broken[game] else 'not broken'}"
    ]
    points = state.hand_points[game]
    for seat in range(rules.num_players):
        marker = "->" if seat == state.to_play[game] else "  "
        hand = format_cards(pile_cards(state.hands[game, seat], state.hands2[game, seat] if rules.decks == 2 else 0))
        lines.append(
            f"{marker} seat {seat}: total {state.scores[game, seat]:4d}  this hand {points[seat]:3d}  | {hand}"
        )
    if state.phase[game] == PLAY and state.trick_size[game]:
        order = [(int(state.leader[game]) + i) % rules.num_players for i in range(int(state.trick_size[game]))]
        played = "  ".join(f"{s}:{cards.card_symbol(int(state.trick[game, s]))}" for s in order)
        lines.append(f"   trick: {played}")
    if rules.decks == 2:
        kitty = len(pile_cards(*state.kitty[game]))
        lines.append(f"   kitty: {kitty} cards face down   pot: {format_cards(pile_cards(*state.pot[game]))}")
    return "\n".join(lines)


def pile_cards(once: int, twice: int = 0) -> list[int]:
    """Card ids of a pile held as the cards present at least once and those present twice."""
    return sorted(bits_to_cards(once) + bits_to_cards(twice))
