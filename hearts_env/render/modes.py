"""What an environment's ``render()`` gives for each ``render_mode``: one place for the AEC and
Gymnasium environments.

| mode | ``render()`` |
|---|---|
| ``"ansi"`` | the table as text (``render.text``) |
| ``"rgb_array"`` | the table as an (H, W, 3) ``uint8`` picture (``render.image``, needs Pillow) |
| ``"human"`` | that picture shown in a pygame window (``render.window``), at ``render_fps``; returns None |
"""

from __future__ import annotations

import numpy as np

from hearts_env.render.image import DEFAULT_SIZE, _check_size
from hearts_env.render.text import render_view
from hearts_env.render.view import TableView
from hearts_env.render.window import Window

RENDER_MODES = ("human", "ansi", "rgb_array")
RENDER_FPS = 4


def check_render_mode(render_mode: str | None) -> str | None:
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {', '.join(RENDER_MODES)}; got {render_mode!r}")
    return render_mode


class Renderer:
    """Turns views into what ``render_mode`` asks for (see the module docstring); ``size`` is
    the picture's (width, height) in pixels."""

    def __init__(self, render_mode: str | None, size: tuple[int, int] = DEFAULT_SIZE, fps: float = RENDER_FPS) -> None:
        self.render_mode = check_render_mode(render_mode)
        self.size = _check_size(size)
        self.window = Window(fps=fps) if render_mode == "human" else None

    def __call__(self, view: TableView) -> str | np.ndarray | None:
        if self.render_mode == "ansi":
            return render_view(view)
        from hearts_env.render.image import draw_table

        frame = draw_table(view, self.size)
        if self.window is None:
            return frame
        self.window.show(frame)
        return None

    def close(self) -> None:
        if self.window is not None:
            self.window.close()
