"""What an agent would play at a position, and why: the hint of the browser table.

``explain(agent, info, mask)`` asks the agent for its card and adds what the agent can tell of
its reasons: a trained network (``MLPPolicy``, the ``ppo`` and ``trained`` agents) its
probability of every legal card; a search (``PIMCPolicy``: ``pimc``, ``pimc-random``) the mean
hand points its rollouts give each legal card (lower is better); ``pimc-ppo`` both, its network's
probabilities and the values of the cards it searches. During the pass a search passes by its
pass policy, so only its card is given. The values come from a search of their own (fresh
worlds), so a close call may differ from the card chosen.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hearts_env.agents.learned.family import TableFamily
from hearts_env.agents.learned.trained import MLPPolicy
from hearts_env.agents.search.pimc import PIMCPolicy
from hearts_env.agents.search.pimc_ppo import PIMCPPOPolicy
from hearts_env.engine.cards import card_name
from hearts_env.engine.core import PASS, PLAY
from hearts_env.engine.infoset import InfoSet
from hearts_env.play.policy import PhaseSplit, Policy


def explain(agent: Policy, info: InfoSet, mask: np.ndarray) -> dict[str, Any]:
    """``{"card": "QS", "probabilities": {"QS": 0.61, ...}, "values": {"QS": 2.4, ...}}`` for one
    position (a batch of one): the agent's card, and the scores it exposes (either may be absent)."""
    mask = np.asarray(mask, bool)
    out: dict[str, Any] = {"card": card_name(int(np.asarray(agent(info, mask))[0]))}
    if isinstance(agent, TableFamily):  # the member that plays this table explains it
        agent = agent.member(info.rules)
    if isinstance(agent, PhaseSplit):  # the part that plays this phase explains it
        agent = agent.pass_policy if info.phase[0] == PASS else agent.play_policy
    legal = np.flatnonzero(mask[0])
    searching = info.phase[0] == PLAY and len(legal) > 1
    if isinstance(agent, PIMCPPOPolicy):
        probs = agent.probabilities(info, mask)
        out["probabilities"] = _by_card(probs[0], legal)
        if searching:
            candidates = agent.candidates(probs)
            out["values"] = _by_card(agent.evaluate(info, candidates)[0], np.flatnonzero(candidates[0]))
    elif isinstance(agent, PIMCPolicy):
        if searching:
            out["values"] = _by_card(agent.evaluate(info, mask)[0], legal)
    elif isinstance(agent, MLPPolicy):
        out["probabilities"] = _by_card(agent.probabilities(info, mask)[0], legal)
    return out


def _by_card(scores: np.ndarray, ids: np.ndarray) -> dict[str, float]:
    return {card_name(int(c)): round(float(scores[c]), 4) for c in ids}
