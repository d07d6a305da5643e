"""The fault rule at a seat: a bot that drops its connection mid-match has its seat played by the
stand-in for the rest of that deal, and takes it back, connected again, at a later deal of the
same match; every deal is stored whole and marked where the stand-in decided."""

from __future__ import annotations

import io
import json
import threading
import time
from pathlib import Path

import numpy as np

from hearts_env.agents.bridges.ladder_client import play_on_ladder
from hearts_env.bench.ladder.db import LadderDB
from hearts_env.bench.ladder.server import LadderServer
from hearts_env.bench.ladder.worker import LadderSettings
from hearts_env.play.policy import RandomPolicy


class DropsOnce(RandomPolicy):
    """The random agent, but its connection breaks at its ``at``-th call (once)."""

    def __init__(self, at: int) -> None:
        super().__init__(0)
        self.calls, self.at = 0, at

    def __call__(self, info, mask) -> np.ndarray:  # noqa: ANN001
        self.calls += 1
        if self.calls == self.at:
            raise ConnectionResetError("the network failed")
        return super().__call__(info, mask)


def test_a_dropped_bot_takes_its_seat_back_in_the_same_match(tmp_path: Path, serve_ladder) -> None:  # noqa: ANN001
    db = LadderDB(str(tmp_path / "ladder.db"))
    token = db.add_bot("flaky")
    ladder = serve_ladder(LadderServer(db, LadderSettings(deals=30, tables=1, house=("random",)), log=io.StringIO()))
    agent = DropsOnce(at=100)  # in its second or third deal

    def twice() -> None:  # connected until the drop, then again until the ladder stops
        for _ in range(2):
            play_on_ladder(ladder.address, token, agent, "flaky", reconnect=False)

    client = threading.Thread(target=twice)
    client.start()
    deadline = time.monotonic() + 60
    while db.query("SELECT status FROM matches WHERE id = 1") != [("done",)]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    marks = [json.loads(m) for (m,) in db.query("SELECT stand_in FROM deals WHERE match_id = 1 ORDER BY deal")]
    assert len(marks) == 30 and marks[0] == []
    first = marks.index(["flaky"])
    assert [] in marks[first + 1 :], marks  # back in its seat, the same match
    assert db.query("SELECT COUNT(*) FROM games WHERE match_id = 1") == [(120,)]
    ladder.stop()
    client.join(30)
    assert not client.is_alive()
