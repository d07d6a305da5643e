"""How OpenSpiel's ``hearts`` names what this project names (docs/rules.md, "Against OpenSpiel's
hearts"), for the tests that play both: its card ids are ``rank * 4 + suit`` with suits C D H S
(rank 0 = deuce), ours ``suit * 13 + rank - 2`` with suits C D S H; its first chance action picks
the pass direction (0 none, 1 left, 2 across, 3 right: receiver = seat + direction, which is our
pass offset with 4 players)."""

from __future__ import annotations

import numpy as np

_OS_SUIT_OF_OURS = (0, 1, 3, 2)  # our suits C D S H -> OpenSpiel suits C D H S
OURS_TO_OS = np.array([(c % 13) * 4 + _OS_SUIT_OF_OURS[c // 13] for c in range(52)])
OS_TO_OURS = np.argsort(OURS_TO_OS)
OS_DIRECTION = {"none": 0, "left": 1, "across": 2, "right": 3}  # = our pass offset with 4 players
DIRECTION_NAME = {v: k for k, v in OS_DIRECTION.items()}
