"""
# Hearts

A PettingZoo AEC environment of Hearts for 3 to 7 players (6 to 11 with two decks, Cancellation
Hearts), over the vectorised core
(``hearts_env.engine.core``) with a batch of one game. The env holds no rule logic: every rule, knob
and score comes from the core.

| Import             | `from hearts_env.aec import env`                          |
|--------------------|-----------------------------------------------------------|
| Actions            | Discrete                                                  |
| Parallel API       | No                                                        |
| Manual Control     | No                                                        |
| Agents             | `agents= ['player_0', 'player_1', 'player_2', 'player_3']` |
| Agents             | `num_players`: 3..7, 6..11 with `decks=2` (4 by default)  |
| Action Shape       | (1,)                                                      |
| Action Values      | Discrete(52)                                              |
| Observation Shape  | (765,) for the standard 4-player game (`layout.size`)     |
| Observation Values | [0, 255]                                                  |

Agent ``player_s`` sits in seat ``s`` of the core (seats run clockwise). The game decides who acts:
during the pass each seat in turn picks its cards one at a time (``player_0`` first); in play the
holder of the lowest club leads the first trick, then each trick's winner leads the next. So one
agent may act several times in a row, and the order is not round-robin.

### Observation Space

The observation is a dictionary with an ``'observation'`` element, the seat's information set
encoded as a flat ``uint8`` vector, and an ``'action_mask'`` element, the legal cards.

The ``observation`` vector is ``hearts_env.engine.observation.encode`` of ``hearts_env.engine.infoset.infoset``
for the agent's own seat (computed once per state by one compiled kernel and shared by every
``observe`` of that state, so treat it as read-only): its hand, the cards it passed and received, every card played this
hand and by whom, the current trick and its leader, known voids, points taken, game totals, the
pass direction and the phase. Seats in it are relative to the observer (0 = itself, 1 = its
left, ...). Nothing hidden goes in. The table of sections is in the docstring of
``hearts_env/engine/observation.py``; ``env.unwrapped.layout.split(obs["observation"])`` returns the
named sections of a vector. ``history=True`` appends every completed trick of the hand.

#### Global state

``state()`` returns the whole table as one ``uint8`` vector in ``state_space`` (PettingZoo's
API for centralised critics): every hand, the passes in flight, the cards played and the trick,
points, scores, the phase and the seat to act, with seats in table order
(``hearts_env.engine.global_state``; ``env.unwrapped.state_layout.split(state)`` names its
sections). It is a separate channel: the observations are the same whether it is read or not.

#### Legal Actions Mask

``action_mask`` is an ``int8`` vector of 52 entries, 1 for each card the agent may pick now. It is
all zeros for every agent except the one whose turn it is, and for every agent once the game is
over.

### Action Space

A card id 0..51: ``suit * 13 + rank - 2`` with suits clubs, diamonds, spades, hearts (``2C = 0``,
``QS = 36``, ``AH = 51``; see ``hearts_env.engine.cards``). In the pass phase an action picks one card to
pass: a seat acts ``pass_count`` times, and the cards move only when every seat has picked. In
the play phase an action plays a card to the trick.

Illegal actions:

- ``raw_env`` raises ``ValueError`` naming the agent, the card and the rule (an action that is
  not an int card id 0..51 also raises ``ValueError``); nothing changes, so the agent may act
  again.
- ``env()`` behaves like PettingZoo's usual wrapper stack (out-of-bounds check, terminate on
  illegal, order enforcing) without paying three layers of Python on every call: an action
  outside ``Discrete(52)`` raises ``ValueError``; a card outside the action mask ends the game:
  the agent that moved gets ``illegal_reward``, the others 0 for that step, and every agent is
  terminated and truncated. Both refuse ``step``, ``observe`` and ``last`` before ``reset()``.

### Rewards

``reward`` picks one of the modes of ``hearts_env.engine.rewards``:

| mode | reward |
|---|---|
| ``"points"`` (default) | minus the points of each trick as it is taken; at hand end a moon |
| | correction, so that a hand's rewards sum to minus its score |
| ``"hand"`` | minus the hand's score, at hand end |
| ``"zero_sum"`` | at hand end: the mean of the other seats' hand scores minus one's own |
| ``"win"`` | at game end: 1 for a win (1/k each for a k-way tie), else 0 |

A step pays every agent (a trick taken pays the taker, a hand's end pays everyone). Each agent
receives, through ``last()``, the sum of what built up since its own last move, so rewards
earned on other agents' moves are never lost or given to the wrong agent. Summed over a game,
an agent's rewards are minus its final total in the ``"points"`` and ``"hand"`` modes.

When the game ends every agent is terminated (``truncations`` stay False) and receives its last
rewards through ``last()``; then each steps ``None`` once, as PettingZoo's ``_was_dead_step``
expects. ``infos[agent]`` holds ``hand_number``, ``scores`` (game totals by seat) and
``last_hand_points`` (the score of the last completed hand by seat, moon and JD rules applied).

### Arguments

``` python
env(num_players=4, pass_count=3, pass_cycle=None, no_points_on_first_trick=True,
    queen_breaks_hearts=True, jack_of_diamonds=False, moon="add_to_others", target_score=100,
    reward="points", history=False, render_mode=None, render_hands="all", render_size=(960, 720),
    trick_outcomes=False, illegal_reward=None)
```

The first eight are the knobs of ``hearts_env.engine.rules.HeartsRules`` (``docs/rules.md``), passed through
unchanged; ``rules=HeartsRules(...)`` may be given instead of them.

``reward``: one of ``"points"``, ``"hand"``, ``"zero_sum"``, ``"win"``.

``history``: append the full trick history of the hand to the observation.

``trick_outcomes``: add what each legal card does to the current trick (which cards take it, with
two decks also if a twin still out cancels the winner, and who holds it), the sections of
``ObservationLayout(rules, trick_outcomes=True)``.

``render_mode``: None, ``"ansi"`` (``render()`` returns the table as text, hands and scores with
unicode suits), ``"rgb_array"`` (``render()`` returns the table as an (H, W, 3) ``uint8`` picture:
cards, the trick, passes in flight, scores, whose turn; needs Pillow, the ``render`` extra) or
``"human"`` (that picture in a pygame window, redrawn after every step at ``metadata["render_fps"]``).
Every mode draws the same description of the table (``hearts_env.render``; docs/viewing.md).

``render_hands``: ``"all"`` (every hand face up) or an agent's name (only that hand face up, and
that seat at the bottom of the picture). ``render_size``: the picture's (width, height).

``illegal_reward`` (``env()`` only): the reward for an illegal move; None picks -1 in ``"win"``
mode, else ``-(target_score + 26)`` (-26 for a one-hand game; 52 for 26 with two decks), at least
as bad as the worst game a seat can have in the ``"points"`` and ``"hand"`` modes, so an illegal
move never pays.

``reset(seed=None, options=None)``: ``seed`` makes the game that of
``core.new_games(rules, batch_size=1, seed=seed)`` (game 0 of the seed, ``hearts_env.engine.seeding``);
each later ``reset()`` without a seed plays the seed's next game (1, 2, ...).
``options={"deals": deal}`` gives the first hand's deal, an int array of 52 entries holding the
seat dealt each card (-1 for the cards removed at this player count, see
``cards.deal_from_hands``); later hands are dealt from the seed. Other option keys are ignored.

### Version History

* v0: Initial version (hearts_env 0.1.0)

### Example

``` python
import numpy as np
from hearts_env.aec import env

table = env(num_players=4, render_mode="ansi")
table.reset(seed=0)
rng = np.random.default_rng(0)
for agent in table.agent_iter():
    observation, reward, termination, truncation, info = table.last()
    if termination or truncation:
        action = None
    else:
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
    table.step(action)
print(table.render())
table.close()
```
"""

from __future__ import annotations

import operator
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from hearts_env.engine import checks, core, seeding
from hearts_env.engine.cards import NUM_CARDS
from hearts_env.engine.global_state import GlobalStateLayout, global_state
from hearts_env.engine.infoset import InfoSet, infoset
from hearts_env.engine.observation import ObservationLayout, observer
from hearts_env.engine.rewards import check_reward_mode, step_rewards
from hearts_env.engine.rules import HeartsRules, rules_or_knobs
from hearts_env.render import describe
from hearts_env.render.modes import RENDER_FPS, Renderer

ObsType = dict[str, np.ndarray]


def env(illegal_reward: float | None = None, **kwargs: Any) -> raw_env:
    """``raw_env(**kwargs)`` with PettingZoo's usual wrapper behaviour built in: an illegal move
    ends the game with ``illegal_reward`` for the agent that made it (default:
    ``default_illegal_reward``), and an action outside the action space raises."""
    table = raw_env(**kwargs)
    table.illegal_reward = (
        default_illegal_reward(table.rules, table.reward_mode) if illegal_reward is None else float(illegal_reward)
    )
    return table


def default_illegal_reward(rules: HeartsRules, reward: str) -> float:
    """-1 in ``"win"`` mode; else minus (target score + 26), 26 for a one-hand game (52 for 26 with
    two decks): no game can cost a seat more in the ``"points"`` and ``"hand"`` modes."""
    if check_reward_mode(reward) == "win":
        return -1.0
    return -float((rules.target_score or 0) + rules.moon_points)


class raw_env(AECEnv[str, ObsType, int]):
    """Hearts as a PettingZoo AEC environment; see the module docstring."""

    metadata: dict[str, Any] = {
        "name": "hearts_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": RENDER_FPS,
    }

    def __init__(
        self,
        reward: str = "points",
        history: bool = False,
        render_mode: str | None = None,
        rules: HeartsRules | None = None,
        render_hands: str = "all",
        render_size: tuple[int, int] = (960, 720),
        trick_outcomes: bool = False,
        **knobs: Any,
    ) -> None:
        super().__init__()
        self.rules = rules_or_knobs(rules, knobs)
        self.reward_mode = check_reward_mode(reward)
        self.history = checks.flag("history", history)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self._renderer = Renderer(render_mode, render_size, self.metadata["render_fps"])
        self.layout = ObservationLayout(self.rules, self.history, trick_outcomes)
        self.illegal_reward: float | None = None  # set by env(): an illegal card ends the game
        self._legal_section = self.layout.sections["legal"][0]

        self.possible_agents = [f"player_{seat}" for seat in range(self.rules.num_players)]
        if render_hands != "all" and render_hands not in self.possible_agents:
            raise ValueError(
                f"render_hands must be 'all' or an agent ({', '.join(self.possible_agents)}), got {render_hands!r}"
            )
        self.render_hands = render_hands
        self.agents = self.possible_agents[:]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._seat_array = {agent: np.array([seat], np.int64) for agent, seat in self._seat.items()}
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0, 255, (self.layout.size,), np.uint8),
                    "action_mask": spaces.Box(0, 1, (NUM_CARDS,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(NUM_CARDS) for agent in self.possible_agents}
        self.state_layout = GlobalStateLayout(self.rules)
        self.state_space = spaces.Box(0, 255, (self.state_layout.size,), np.uint8)
        self._seed: int | None = None  # the seed of the games, and how many it has started
        self._games = 0
        self._state: core.State | None = None
        self._observations: dict[str, ObsType] = {}
        # What every step reads and writes, looked up once on a state of this env's kind (rules, history).
        kind = core.new_games(self.rules, batch_size=1, history=self.history, seed=0)
        self._read_scalars = kind.scalar_reader("to_play", "hand_over", "legal")
        self._observer = observer(kind, self.layout)
        self._ended_by_illegal = False

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def core_state(self) -> core.State:
        """The core's state of the game (a batch of one); treat it as read-only."""
        return self._require_reset("core_state")

    def _require_reset(self, method: str) -> core.State:
        if self._state is None:
            raise RuntimeError(f"reset() needs to be called before {method}")
        return self._state

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # Everything is checked and built before the env changes: a refused reset leaves it as it was.
        if seed is not None or self._seed is None:
            game_seed, games = (seeding.fresh_seed() if seed is None else seeding.check_seed(seed)), 0
        else:
            game_seed, games = self._seed, self._games
        keys = seeding.game_keys(game_seed, np.array([games]))
        deals = (options or {}).get("deals")
        if deals is not None:
            deals = np.asarray(deals).reshape(1, -1)
        state = core.new_games(self.rules, deals=deals, history=self.history, keys=keys)
        self._seed, self._games = game_seed, games + 1
        self._set_state(state)
        self._ended_by_illegal = False
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._update_infos()
        self._skip_agent_selection = None
        self.agent_selection = self.possible_agents[self._to_play]
        if self.render_mode == "human":
            self.render()

    def step(self, action: int | None) -> None:
        before = self._require_reset("step")
        if not self.agents:
            raise ValueError("the game is over and every agent has left: call reset() to play again")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        card = _card_id(agent, action)
        if self.illegal_reward is not None and not self._legal >> card & 1:
            self._end_by_illegal_move(agent, self.illegal_reward)
            return
        try:
            after = core.step(before, np.array([card]))
        except core.IllegalMoveError as error:
            raise ValueError(f"{agent}: {error.describe()}") from None
        self._set_state(after)

        self._cumulative_rewards[agent] = 0.0  # it has received what built up since its last move
        paid = step_rewards(before, after, self.reward_mode)[0].tolist()
        self.rewards = {a: paid[self._seat[a]] for a in self.agents}
        self._accumulate_rewards()
        if self._hand_over:
            self._update_infos()
        if self._to_play < 0:  # the game is over
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[0]  # each agent then steps None, in seat order
        else:
            self.agent_selection = self.possible_agents[self._to_play]
        if self.render_mode == "human":
            self.render()

    def _end_by_illegal_move(self, agent: str, reward: float) -> None:
        """What PettingZoo's TerminateIllegalWrapper does: the game ends, the mover is fined."""
        self._cumulative_rewards[agent] = 0.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = float(reward)
        self._accumulate_rewards()
        self._deads_step_first()
        self._ended_by_illegal = True
        self._observations.clear()

    def observe(self, agent: str) -> ObsType:
        cached = self._observations.get(agent)
        if cached is not None:
            return cached
        state = self._require_reset("observe")
        vector = self._observer(state, self._seat_array[agent], np.empty((1, self.layout.size), np.uint8))[0]
        if self._ended_by_illegal:  # nobody may act any more
            mask = np.zeros(NUM_CARDS, np.int8)
        else:  # the legal section: the agent's legal cards when it is to act, else zeros
            mask = vector[self._legal_section].view(np.int8)
        observation = {"observation": vector, "action_mask": mask}
        self._observations[agent] = observation
        return observation

    def state(self) -> np.ndarray:
        """The global state (``hearts_env.engine.global_state``, seats in table order): every
        hand, the passes in flight, the trick, points, scores, phase and seat to act, for
        centralised critics. No agent's observation holds any of it."""
        return global_state(self._require_reset("state"), self.state_layout)[0]

    def last(self, observe: bool = True) -> tuple[ObsType | None, float, bool, bool, dict[str, Any]]:
        self._require_reset("last")
        return super().last(observe)

    def infoset(self, agent: str) -> InfoSet:
        """The information set of ``agent``'s seat (a batch of one), for agents that read info sets."""
        return infoset(self.core_state, self._seat[agent])

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        one = None if self.render_hands == "all" else self._seat[self.render_hands]
        view = describe(
            self.core_state, face_up=None if one is None else [one], names=self.possible_agents, viewer=one or 0
        )
        return self._renderer(view)

    def close(self) -> None:
        self._renderer.close()

    def _set_state(self, state: core.State) -> None:
        self._state = state
        self._observations.clear()
        self._to_play, hand_over, self._legal = self._read_scalars(state.data)
        self._hand_over = bool(hand_over)

    def _update_infos(self) -> None:
        state = self.core_state
        info = {
            "hand_number": int(state.hand_number[0]),
            "scores": tuple(state.scores[0].tolist()),
            "last_hand_points": tuple(state.last_hand_points[0].tolist()),
        }
        self.infos = {agent: dict(info) for agent in self.agents}


def _card_id(agent: str, action: Any) -> int:
    """The card id of an action (anything: checked here), or a ValueError."""
    try:
        card = operator.index(action)  # ints and numpy integers
    except TypeError:
        raise ValueError(f"{agent}: an action must be an int card id 0..{NUM_CARDS - 1}, got {action!r}") from None
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"{agent}: action {card} is outside the action space: not a card id (0..{NUM_CARDS - 1})")
    return card
