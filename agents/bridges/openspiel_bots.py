"""This project's agents as OpenSpiel bots of the ``hearts_env`` game (``hearts_env.openspiel``),
so that OpenSpiel's matches (``open_spiel.python.algorithms.evaluate_bots``) and tools play them
as any other bot:

    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
    from hearts_env.agents import make_agent
    from hearts_env.agents.bridges.openspiel_bots import AgentBot

    game = pyspiel.load_game("hearts_env", {"target_score": 0})
    agents = [make_agent("heuristic"), make_agent("simple"), make_agent("random", seed=1), make_agent("pimc", worlds=8)]
    bots = [AgentBot(agent) for agent in agents]
    print(evaluate_bots(game.new_initial_state(), bots, np.random.default_rng(0)))

A bot reads the information set of the seat to act (nothing hidden) and answers the agent's card.
"""

from __future__ import annotations

import pyspiel

from hearts_env.engine.core import legal_mask
from hearts_env.engine.infoset import infoset
from hearts_env.envs.openspiel import GAME_NAME, HeartsState
from hearts_env.play.policy import Policy


class AgentBot(pyspiel.Bot):
    """An agent (any ``Policy``: ``make_agent("pimc", worlds=8)``, or one built from a spec by
    ``hearts_env.agents.specs.agent_from_spec``) playing whichever seat is to act in a ``hearts_env``
    game."""

    def __init__(self, agent: Policy) -> None:
        pyspiel.Bot.__init__(self)
        self.agent = agent

    def __repr__(self) -> str:
        return f"AgentBot({self.agent!r})"

    def step(self, state: pyspiel.State) -> int:
        if not isinstance(state, HeartsState):
            raise ValueError(f"an AgentBot plays the {GAME_NAME} game, not {state.get_game()}")
        if state.current_player() < 0:
            raise ValueError("an AgentBot plays a seat to act, not a chance node or the end of a game")
        table = state.core_state
        return int(self.agent(infoset(table), legal_mask(table))[0])

    def restart_at(self, state: pyspiel.State) -> None:
        """Nothing to do: the bot reads every decision from its state."""

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """Nothing to do: the bot reads every decision from its state."""
