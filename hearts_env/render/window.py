"""A pygame window that shows frames (``render_mode="human"``); pygame is imported when the
first frame is shown, so environments without a window never need it (the ``render`` extra
installs it). With ``SDL_VIDEODRIVER=dummy`` it runs without a display (tests, servers)."""

from __future__ import annotations

from typing import Any

import numpy as np


class Window:
    """One window, opened by the first ``show`` and closed by ``close``; ``fps`` paces the frames."""

    def __init__(self, title: str = "Hearts", fps: float = 4) -> None:
        self.title, self.fps = title, fps
        self._screen: Any = None
        self._clock: Any = None

    def show(self, frame: np.ndarray) -> None:
        """Show an (H, W, 3) uint8 frame, then wait out the rest of the frame's time."""
        try:
            import pygame
        except ImportError:
            raise ImportError('render_mode="human" needs pygame: pip install "hearts_env[render]"') from None
        height, width = frame.shape[:2]
        if self._screen is None or self._screen.get_size() != (width, height):
            pygame.display.init()
            pygame.display.set_caption(self.title)
            self._screen = pygame.display.set_mode((width, height))
            self._clock = pygame.time.Clock()
        pygame.event.pump()  # keeps the window responsive
        surface = pygame.surfarray.make_surface(np.ascontiguousarray(frame.swapaxes(0, 1)))
        self._screen.blit(surface, (0, 0))
        pygame.display.flip()
        self._clock.tick(self.fps)

    @property
    def is_open(self) -> bool:
        return self._screen is not None

    def close(self) -> None:
        if self._screen is not None:
            import pygame

            pygame.display.quit()
            self._screen = self._clock = None
