"""Views of a game: text, images and a window, all drawn from one description of a state.

``describe(state, game)`` (``render.view``) makes a ``TableView``: what each seat shows, the
trick, the leader, the passes in flight, points and scores, whose turn it is. ``render_game``
(``render.text``) writes it as text (``render_mode="ansi"``); ``draw_table`` (``render.image``)
draws it as an RGB ``uint8`` array (``render_mode="rgb_array"``, needs Pillow: the ``render``
extra); ``Window`` (``render.window``) shows those frames with pygame (``render_mode="human"``).
The browser table (``hearts-web``) sends ``TableView.to_dict()``. Display libraries are imported
only when a picture is drawn.
"""

from hearts_env.render.text import format_cards, pile_cards, render_game, render_view
from hearts_env.render.view import SeatView, TableView, describe

__all__ = ["SeatView", "TableView", "describe", "format_cards", "pile_cards", "render_game", "render_view"]
