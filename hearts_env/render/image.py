"""The table as a picture: ``draw_table(view)`` draws a ``TableView`` as an RGB ``uint8`` array.

Seats sit around an ellipse, clockwise, the view's ``viewer`` at the bottom; each shows its name,
its game total and the points it took this hand, and its hand as overlapping cards (in rows
when a hand is long, face down as card backs with their count). The seat to act is outlined; its
legal cards are raised and the others dimmed. The current trick lies in the middle, each card in
front of the seat that played it, the leader's marked and the card winning it outlined; between
tricks the last trick lies there, faded, with who took it; during the pass the picked cards lie
there instead, with the seat they go to. The header gives the hand, the pass direction, the
trick and whether hearts are broken; the end of a hand shows its score, the end of the game its
winners; with two decks the kitty's size and the pot show.

Cards are drawn as cards: rank and suit pip in the corner, a large pip in the middle, hearts
and diamonds red, clubs and spades black. Pips are drawn shapes, not font glyphs, so no font
with suit symbols is needed: Pillow and its default font suffice (the ``render`` extra). Card
pictures are drawn once per size (supersampled, then scaled down) and pasted, so a frame costs a
few milliseconds (``speed/speed_render.py``). Any size from 640x480 up keeps the ranks
readable for 3 to 11 players.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from hearts_env.engine import cards
from hearts_env.render.view import SeatView, TableView

DEFAULT_SIZE = (960, 720)
"""(width, height) of a frame unless asked otherwise."""
MIN_SIZE = (320, 240)

FELT = (22, 102, 56)
FELT_DARK = (16, 78, 43)
INK = (245, 245, 240)
GOLD = (250, 204, 64)
RED = (204, 30, 38)
BLACK = (24, 24, 28)
_SUPERSAMPLE = 3  # card pictures are drawn this many times larger, then scaled down (smooth edges)


def draw_table(view: TableView, size: tuple[int, int] = DEFAULT_SIZE) -> np.ndarray:
    """(height, width, 3) uint8: the picture of ``view`` (see the module docstring)."""
    from PIL import Image, ImageDraw

    width, height = _check_size(size)
    image = Image.new("RGB", (width, height), FELT)
    draw = ImageDraw.Draw(image)
    layout = _Layout(view, width, height)
    _draw_header(draw, view, layout)
    for seat in view.seats:
        _draw_seat(image, draw, view, seat, layout)
    _draw_middle(image, draw, view, layout)
    return np.asarray(image)


def _check_size(size: Any) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in size)
    except (TypeError, ValueError):
        raise ValueError(f"render size must be (width, height) in pixels, got {size!r}") from None
    if width < MIN_SIZE[0] or height < MIN_SIZE[1] or width > 8192 or height > 8192:
        raise ValueError(f"render size must be from {MIN_SIZE[0]}x{MIN_SIZE[1]} to 8192x8192, got {width}x{height}")
    return width, height


# ---------------------------------------------------------------------------------------------
# Where things go


@dataclass
class _SeatBox:
    x0: float  # the box: its name line, then its hand
    y0: float
    x1: float
    y1: float
    card_h: int
    rows: int
    per_row: int
    step: float  # horizontal distance between overlapping cards
    spot: tuple[float, float]  # centre of its card in the trick


class _Layout:
    """Every seat's box, card size and trick spot for a view at a picture size.

    The viewer's hand runs along the bottom. With up to four players the others sit evenly
    around an ellipse through it; with more they share the upper half of the ellipse, left to
    right clockwise, so no hand crowds the viewer's. Cards shrink until no two boxes overlap.
    """

    def __init__(self, view: TableView, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.font = max(11, round(height * 0.024))
        self.header = round(self.font * 2.0)
        self.margin = max(4, round(width * 0.008))
        P = view.num_players
        scale = 0.125 if P <= 4 else 0.1 if P <= 6 else 0.085
        self.trick_h = max(20, round(height * scale * 0.9))
        for shrink in (1.0, 0.92, 0.84, 0.76, 0.68, 0.6):
            self.card_h = max(20, round(height * scale * shrink))
            self.boxes = self._place(view)
            if not _overlap(self.boxes):
                break

    def _place(self, view: TableView) -> list[_SeatBox]:
        P, W, H, m = view.num_players, self.width, self.height, self.margin
        viewer_h = round(min(max(self.card_h * 1.3, H * 0.11), H * 0.2))
        viewer = self._size(view, view.viewer, W * 0.8, viewer_h)
        others = [(s - view.viewer) % P for s in range(P)]
        spread = 2 * math.pi / P if P <= 4 else math.pi / (P - 2)  # between neighbours
        first = 2 * math.pi / P if P <= 4 else math.pi / 2
        other_w = min(W * 0.42, (W - 2 * m) * (0.5 if P <= 4 else 1.35 / (P - 1)) * (1.6 if P <= 4 else 1))
        sizes = [viewer if r == 0 else self._size(view, s, other_w, self.card_h) for s, r in enumerate(others)]
        box_h = max(h for r, (_, h, *_) in zip(others, sizes, strict=True) if r) if P > 1 else 0
        viewer_top = H - m - viewer[1]
        top = self.header + m + box_h / 2  # centre line of the top seat
        mid = (top + viewer_top) / 2 if P <= 4 else viewer_top - box_h / 2 - m  # of the seats at the sides
        self.cx, self.cy = W / 2, (self.header + viewer_top) / 2
        trick_w = self.trick_h * 0.7
        ring_x = min(W * 0.15, W / 2 - m - trick_w)  # the trick's ring around the middle
        side_w = W / 2 - ring_x - trick_w - 2 * m  # room beside it for a seat at the side
        boxes = []
        for seat, relative in enumerate(others):
            w, h, rows, per_row, step = sizes[seat]
            if relative == 0:
                x, y = W / 2, viewer_top + h / 2
            else:
                angle = first + (relative - 1) * spread
                if abs(math.sin(angle)) > 0.5 and w > side_w:
                    w, h, rows, per_row, step = self._size(view, seat, max(side_w, self.card_h * 2), self.card_h)
                rx = W / 2 - m - w / 2
                x, y = W / 2 - rx * math.sin(angle), mid + (mid - top) * math.cos(angle)
            x0 = min(max(x - w / 2, m), W - m - w)
            y0 = min(max(y - h / 2, self.header + m), H - m - h)
            card_h = viewer_h if relative == 0 else self.card_h
            boxes.append(_SeatBox(x0, y0, x0 + w, y0 + h, card_h, rows, per_row, step, (x, y)))
        ring_y = max(self.trick_h, (viewer_top - self.header) * 0.22)
        for box in boxes:
            box.spot = self._spot(box.spot, ring_x, ring_y, boxes)
        return boxes

    def _spot(self, anchor: tuple[float, float], ring_x: float, ring_y: float, boxes: list[_SeatBox]) -> tuple:
        """Where a seat's trick card lies: on the ring towards the seat, pulled in off any hand."""
        dx, dy = anchor[0] - self.cx, anchor[1] - self.cy
        t = 1 / max(math.hypot(dx / ring_x, dy / ring_y), 1e-9)
        half_w, half_h = self.trick_h * 0.35 + 4, self.trick_h * 0.5 + 4
        for _ in range(8):
            x, y = self.cx + t * dx, self.cy + t * dy
            if not any(
                b.x0 < x + half_w and x - half_w < b.x1 and b.y0 < y + half_h and y - half_h < b.y1 for b in boxes
            ):
                break
            t *= 0.85
        return x, y

    def _size(self, view: TableView, seat: int, room: float, card_h: int) -> tuple[float, float, int, int, float]:
        """(width, height, rows, cards per row, step) of a seat's box: its hand in as few rows as
        keep every card's corner in sight within ``room`` pixels."""
        card_w = card_h * 0.7
        count = max(view.seats[seat].held, view.hand_size, 1)  # the hand's full length: steady all hand
        rows = 1
        while rows < 3 and (room - card_w) / max(math.ceil(count / rows) - 1, 1) < card_w * 0.47:
            rows += 1
        per_row = math.ceil(count / rows)
        step = min(card_w * 0.75, (room - card_w) / max(per_row - 1, 1))
        width = card_w + step * (per_row - 1)
        height = self.font * 1.5 + card_h * (1 + 0.52 * (rows - 1)) + card_h * 0.15
        return width, height, rows, per_row, step


def _hits(a: _SeatBox, b: _SeatBox, slack: float = 0) -> bool:
    """Whether two boxes overlap by more than ``slack`` pixels each way."""
    return a.x0 < b.x1 - slack and b.x0 < a.x1 - slack and a.y0 < b.y1 - slack and b.y0 < a.y1 - slack


def _overlap(boxes: list[_SeatBox], slack: float = 4) -> bool:
    """Whether any two seats' boxes overlap (by more than ``slack`` pixels each way)."""
    return any(_hits(a, b, slack) for i, a in enumerate(boxes) for b in boxes[i + 1 :])


# ---------------------------------------------------------------------------------------------
# Drawing


def _draw_header(draw: Any, view: TableView, layout: _Layout) -> None:
    parts = [f"Hand {view.hand_number}"]
    if view.phase == "pass":
        parts.append(f"passing {view.pass_direction} ({view.pass_count} cards)")
    elif view.phase == "play":
        parts.append(f"trick {view.trick_number} of {view.hand_size}")
        parts.append("hearts broken" if view.hearts_broken else "hearts not broken")
    else:
        parts.append("game over")
    if view.pass_direction == "none" and view.phase == "play" and view.tricks_played == 0:
        parts.append("no passing this hand")
    parts.append(f"game to {view.target_score}" if view.target_score else "one-hand game")
    if view.decks == 2:
        parts.append(f"two decks, kitty {view.kitty} face down")
    draw.rectangle((0, 0, layout.width, layout.header), fill=FELT_DARK)
    draw.text(
        (layout.margin * 2, layout.header / 2), "  ·  ".join(parts), font=_font(layout.font), fill=INK, anchor="lm"
    )


def _draw_seat(image: Any, draw: Any, view: TableView, seat: SeatView, layout: _Layout) -> None:
    box = layout.boxes[seat.seat]
    font = _font(layout.font)
    if seat.to_play:
        draw.rounded_rectangle((box.x0 - 3, box.y0 - 3, box.x1 + 3, box.y1 + 3), radius=8, outline=GOLD, width=3)
    label = f"{seat.name}   {seat.score} pts   +{seat.points} this hand" + ("   WINNER" if seat.winner else "")
    if draw.textlength(label, font=font) > box.x1 - box.x0:  # a crowded table: the short form
        label = f"{seat.name}  {seat.score} (+{seat.points})" + (" WIN" if seat.winner else "")
    colour = GOLD if seat.to_play or seat.winner else INK
    draw.text((box.x0 + 4, box.y0 + layout.font * 0.7), label, font=font, fill=colour, anchor="lm")
    card_h = box.card_h
    card_w = round(card_h * 0.7)
    top = box.y0 + layout.font * 1.5
    raise_legal = round(card_h * 0.14)
    if seat.face_up:
        hand: list[int | None] = list(seat.hand)
    else:
        hand = [None] * seat.held
    legal = set(view.legal) if seat.to_play and view.phase == "play" else set()
    for i, card in enumerate(hand):
        row, col = divmod(i, box.per_row)
        x = round(box.x0 + col * box.step)
        y = round(top + row * card_h * 0.52 + raise_legal)
        if card is None:
            sprite = _card_back(card_w, card_h)
        else:
            lift = card in legal
            sprite = _card_face(card, card_w, card_h, dim=bool(legal) and not lift)
            y -= raise_legal if lift else 0
        image.paste(sprite, (x, y), sprite)
    if not seat.face_up and seat.held:
        draw.text(
            (box.x0 + card_w / 2, top + raise_legal + card_h / 2),
            str(seat.held),
            font=_font(max(11, round(card_h * 0.32))),
            fill=INK,
            anchor="mm",
            stroke_width=2,
            stroke_fill=BLACK,
        )


def _draw_middle(image: Any, draw: Any, view: TableView, layout: _Layout) -> None:
    """The trick, or the passes in flight, or the last trick; then the pot and any banner."""
    h = layout.trick_h
    w = round(h * 0.7)
    small = _font(max(10, round(layout.font * 0.85)))
    if view.phase == "pass":
        for seat in view.seats:
            if not seat.picks:
                continue
            sx, sy = layout.boxes[seat.seat].spot
            faces: list[int | None] = list(seat.picked) if seat.face_up else [None] * seat.picks
            for i, card in enumerate(faces):
                sprite = _card_back(w, h) if card is None else _card_face(card, w, h)
                x = round(sx - w / 2 + (i - (len(faces) - 1) / 2) * w * 0.35)
                image.paste(sprite, (x, round(sy - h / 2)), sprite)
            receiver = view.seats[view.receiver(seat.seat)].name
            draw.text((sx, sy + h / 2 + 2), f"to {receiver}", font=small, fill=INK, anchor="mt")
    elif view.trick:
        for player, card in view.trick:
            sx, sy = layout.boxes[player].spot
            x0, y0 = round(sx - w / 2), round(sy - h / 2)
            sprite = _card_face(card, w, h)
            image.paste(sprite, (x0, y0), sprite)
            if player == view.winning:
                draw.rounded_rectangle((x0 - 3, y0 - 3, x0 + w + 3, y0 + h + 3), radius=6, outline=GOLD, width=3)
            if player == view.leader:
                draw.text((sx, y0 + h + 4), "led", font=small, fill=INK, anchor="mt")
    elif any(s.last_trick_card is not None for s in view.seats) and not view.game_over:
        for seat in view.seats:
            if seat.last_trick_card is None:
                continue
            sx, sy = layout.boxes[seat.seat].spot
            x0, y0 = round(sx - w / 2), round(sy - h / 2)
            sprite = _card_face(seat.last_trick_card, w, h, dim=True)
            image.paste(sprite, (x0, y0), sprite)
        taker = view.last_trick_winner
        words = f"last trick: {view.seats[taker].name} took it" if taker >= 0 else "last trick: to the pot"
        draw.text((layout.cx, layout.cy), words, font=small, fill=INK, anchor="mm", stroke_width=2, stroke_fill=BLACK)
    if view.pot:
        pw, ph = round(h * 0.5), round(h * 0.72)
        left = layout.cx - (pw + (len(view.pot) - 1) * pw * 0.5) / 2
        y = layout.cy + h * 0.45
        draw.text((layout.cx, y - 2), "pot", font=small, fill=INK, anchor="mb")
        for i, card in enumerate(view.pot):
            sprite = _card_face(card, pw, ph)
            image.paste(sprite, (round(left + i * pw * 0.5), round(y)), sprite)
    if view.hand_over or view.game_over:
        _draw_banner(draw, view, layout)


def _draw_banner(draw: Any, view: TableView, layout: _Layout) -> None:
    """The last hand's score (and the winners once the game is over) in the middle of the table."""
    if view.game_over:
        winners = " and ".join(s.name for s in view.seats if s.winner)
        title = f"Game over: {winners} win{'s' if ' and ' not in winners else ''}"
    else:
        title = f"Hand {view.hand_number - 1} scored"
    lines = [title] + [f"{s.name}: +{s.last_hand_points}  (total {s.score})" for s in view.seats]
    font = _font(layout.font)
    line_h = layout.font * 1.25
    box_w = max(draw.textlength(line, font=font) for line in lines) + layout.font * 2
    box_h = line_h * len(lines) + layout.font
    x0, y0 = layout.cx - box_w / 2, layout.cy - box_h / 2
    draw.rounded_rectangle((x0, y0, x0 + box_w, y0 + box_h), radius=10, fill=FELT_DARK, outline=GOLD, width=2)
    for i, line in enumerate(lines):
        colour = GOLD if i == 0 else INK
        draw.text((layout.cx, y0 + layout.font / 2 + line_h * (i + 0.5)), line, font=font, fill=colour, anchor="mm")


# ---------------------------------------------------------------------------------------------
# Cards, drawn once per size


@functools.cache
def _font(size: int) -> Any:
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


@functools.lru_cache(maxsize=1024)
def _card_face(card: int, width: int, height: int, dim: bool = False) -> Any:
    """An RGBA picture of ``card``: rank and pip in the top-left corner, a large pip in the middle."""
    from PIL import Image, ImageDraw

    k = _SUPERSAMPLE
    W, H = width * k, height * k
    picture = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(picture)
    draw.rounded_rectangle((0, 0, W - 1, H - 1), radius=H * 0.08, fill=(252, 252, 250), outline=(90, 90, 90), width=k)
    suit = cards.suit_of(card)
    colour = RED if suit in (cards.HEARTS, cards.DIAMONDS) else BLACK
    rank = cards.card_symbol(card)[:-1]
    index = round(H * 0.28)
    draw.text((W * 0.07, H * 0.04), rank, font=_font(index), fill=colour, anchor="la")
    pip = H * 0.2
    _pip(draw, suit, W * 0.07, H * 0.05 + index * 1.05, pip, colour)
    if height >= 36:
        big = H * 0.36
        _pip(draw, suit, W * 0.92 - big, H * 0.93 - big, big, colour)
    if dim:
        *rgb, alpha = picture.split()
        grey = Image.blend(Image.merge("RGB", rgb), Image.new("RGB", (W, H), (120, 120, 120)), 0.45)
        picture = Image.merge("RGBA", (*grey.split(), alpha))
    return picture.resize((width, height), Image.Resampling.LANCZOS)


@functools.lru_cache(maxsize=64)
def _card_back(width: int, height: int) -> Any:
    from PIL import Image, ImageDraw

    k = _SUPERSAMPLE
    W, H = width * k, height * k
    picture = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(picture)
    draw.rounded_rectangle((0, 0, W - 1, H - 1), radius=H * 0.08, fill=(250, 250, 250), outline=(90, 90, 90), width=k)
    inset = W * 0.1
    draw.rounded_rectangle((inset, inset, W - inset, H - inset), radius=H * 0.05, fill=(40, 70, 160))
    for i in range(-H, W, 4 * k):  # a diagonal hatch
        draw.line((i, inset, i + H, inset + H), fill=(70, 100, 190), width=k)
    draw.rounded_rectangle((0, 0, W - 1, inset), fill=(250, 250, 250))
    draw.rounded_rectangle((0, H - inset, W - 1, H - 1), fill=(250, 250, 250))
    draw.rectangle((0, 0, inset, H - 1), fill=(250, 250, 250))
    draw.rectangle((W - inset, 0, W - 1, H - 1), fill=(250, 250, 250))
    draw.rounded_rectangle((0, 0, W - 1, H - 1), radius=H * 0.08, outline=(90, 90, 90), width=k)
    return picture.resize((width, height), Image.Resampling.LANCZOS)


def _pip(draw: Any, suit: int, x: float, y: float, s: float, colour: tuple[int, int, int]) -> None:
    """A suit's shape in the square of side ``s`` at (x, y)."""
    if suit == cards.DIAMONDS:
        draw.polygon([(x + s / 2, y), (x + s * 0.9, y + s / 2), (x + s / 2, y + s), (x + s * 0.1, y + s / 2)], colour)
    elif suit == cards.HEARTS:
        r = s * 0.26
        for cx in (x + s * 0.27, x + s * 0.73):
            draw.ellipse((cx - r, y + s * 0.08, cx + r, y + s * 0.08 + 2 * r), fill=colour)
        draw.polygon([(x + s * 0.03, y + s * 0.4), (x + s * 0.97, y + s * 0.4), (x + s / 2, y + s)], colour)
    elif suit == cards.SPADES:
        r = s * 0.24
        for cx in (x + s * 0.28, x + s * 0.72):
            draw.ellipse((cx - r, y + s * 0.38, cx + r, y + s * 0.38 + 2 * r), fill=colour)
        draw.polygon([(x + s / 2, y), (x + s * 0.05, y + s * 0.6), (x + s * 0.95, y + s * 0.6)], colour)
        draw.polygon([(x + s / 2, y + s * 0.55), (x + s * 0.3, y + s), (x + s * 0.7, y + s)], colour)
    else:  # clubs
        r = s * 0.21
        for cx, cy in ((0.5, 0.25), (0.26, 0.56), (0.74, 0.56)):
            draw.ellipse((x + s * cx - r, y + s * cy - r, x + s * cx + r, y + s * cy + r), fill=colour)
        draw.polygon([(x + s / 2, y + s * 0.45), (x + s * 0.3, y + s), (x + s * 0.7, y + s)], colour)
