"""The bot program of the ladder's page (docs/ladder.md, ``mybot.py``) plays as written: through
the ``program`` agent, every card it answers is the lowest legal one; the protocol page's
JavaScript client is the one the tests play."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from hearts_env.agents.bridges.program import ProgramPolicy
from hearts_env.arena import play_match
from hearts_env.play.policy import RandomPolicy

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "ladder.md"


def test_the_protocol_page_shows_the_javascript_client_the_tests_play() -> None:
    text = (ROOT / "docs" / "bot-protocol.md").read_text(encoding="utf-8")
    shown = re.search(r"```javascript\n(.*?)```", text, re.S).group(1)
    assert shown == (ROOT / "examples" / "bots" / "ladder_lowest.js").read_text(encoding="utf-8")


@pytest.mark.processes
def test_the_pages_bot_plays_its_lowest_legal_card(tmp_path: Path) -> None:
    text = PAGE.read_text(encoding="utf-8")
    body = re.search(r"`mybot.py` may start as.*?```python\n(.*?)```", text, re.S).group(1)
    (tmp_path / "mybot.py").write_text(body)
    lowest_first = RandomPolicy(0)
    with ProgramPolicy([sys.executable, str(tmp_path / "mybot.py")]) as bot:

        def checked(info, mask):  # noqa: ANN001, ANN202
            cards = bot(info, mask)
            assert (cards == np.argmax(mask, axis=1)).all()  # the first legal card id: the lowest
            return cards

        result = play_match(
            None,
            [("mybot", checked), ("random", lowest_first)] + [("random", lowest_first)] * 2,
            deals=4,
            seed=0,
            episode="hand",
        )
    assert bot.name == "mybot" and result.hands.sum() == 16
