"""Gymnasium environments: one learner seat at a Hearts table, the other seats played by opponents.

## Description

The learner plays one seat of a game of Hearts (``docs/rules.md``, every variant a knob); the other seats
are played inside ``step`` by opponent policies (``hearts_env.play.policy.Policy``: batched, info sets
and legal masks in, one card per game out). Each ``step`` takes the learner's card, then plays the
opponents until the learner is to act again or the episode is over. ``HeartsEnv`` is one table;
``HeartsVectorEnv`` runs many tables on one batched core state, stepping all of them together with
array operations (both on the table engine of ``hearts_env.envs.learner_tables``);
``hearts_env.envs.sb3.SB3VecEnv`` adapts the latter to stable-baselines3.

| | |
|---|---|
| Action space | ``Discrete(52)``: a card id (``suit * 13 + rank - 2``; ``QS = 36``) |
| Observation space | ``Box(0, 255, (layout.size,), uint8)``: the learner's view, ``observation.py`` |
| Import | ``from hearts_env.gym_env import HeartsEnv, HeartsVectorEnv`` |

## Action Space

``Discrete(52)``: the card to play, or, while passing, the next card to pass (one card a step,
``pass_count`` steps a hand). Only the learner's legal cards may be played: ``action_masks()``
and ``info["action_mask"]`` give them as a (52,) bool mask (sb3-contrib's ``MaskablePPO`` reads
``action_masks()``). An illegal card raises a ``ValueError`` naming the rule, and nothing changes;
with ``illegal_action="random"`` it is replaced by a uniformly random legal card instead and
``info["illegal_action"]`` is True (the API checkers step with unmasked random actions).

## Observation Space

``Box(0, 255, (ObservationLayout(rules, history).size,), uint8)``, from the learner's information
set with seats relative to the learner (0 = itself, 1 = its left, ...): its hand, cards played by
each seat, the current trick, passes, known voids, points, scores, ... The layout table is in
``hearts_env/engine/observation.py``; ``env.layout.split(obs)`` names the sections of any observation.

## Rewards

The ``reward`` knob (``hearts_env.engine.rewards``): ``"points"`` (minus each trick's points as the learner
takes them, a moon correction at hand end), ``"hand"`` (minus the hand score at hand end),
``"zero_sum"`` (others' mean hand score minus one's own, at hand end), ``"win"`` (1, or 1/k for a
k-way tie, at game end). A step's reward is everything that built up for the learner's seat since
its own last move, the opponents' moves included, so an episode's rewards sum to what the mode
says (``"points"``, game episodes: minus the learner's final game total).

## Starting State

A fresh game: random deal, hand 1, totals 0, the learner to act (the opponents before it in the
first pass or trick have played).

## Episode End

Termination only: ``episode="game"`` (default) ends when the game ends (a total reaches
``target_score``, or after one hand when it is None); ``episode="hand"`` ends when a hand ends,
and the next episode continues the same game with its next hand (scores carried, pass direction
cycling) until the game is over, then a fresh game starts. There is no truncation.

## Arguments

| argument | default | meaning |
|---|---|---|
| ``rules`` | standard rules | a ``HeartsRules``, or its knobs as keywords (``num_players=5, moon=...``) |
| ``opponents`` | ``None`` | a ``Policy`` for every other seat, or a list of P-1 (from the learner's left) |
| ``reward`` | ``"points"`` | ``"points"``, ``"hand"``, ``"zero_sum"`` or ``"win"`` |
| ``episode`` | ``"game"`` | ``"game"`` or ``"hand"`` |
| ``learner_seat`` | ``0`` | the learner's absolute seat, or ``"rotate"``: a random seat each new game |
| ``history`` | ``False`` | append the full trick history to the observation |
| ``trick_outcomes`` | ``False`` | add what each legal card does to the current trick (``ObservationLayout``) |
| ``global_state`` | ``False`` | put the global state (every hand) in ``info["state"]``, for asymmetric critics |
| ``illegal_action`` | ``"raise"`` | ``"raise"`` (``ValueError``) or ``"random"`` (a random legal card instead) |
| ``render_mode`` | ``None`` | ``"ansi"`` (text), ``"rgb_array"`` (an RGB ``uint8`` picture), ``"human"`` (a window) |
| ``render_hands`` | ``"all"`` | ``"all"`` hands face up, or only the ``"learner"``'s |
| ``render_size`` | ``(960, 720)`` | the picture's (width, height) in pixels |
| ``autoreset_mode`` | ``SAME_STEP`` | vector env only: ``AutoresetMode.SAME_STEP``, ``NEXT_STEP``, ``DISABLED`` |

The rules knobs: ``num_players``, ``pass_count``, ``pass_cycle``, ``no_points_on_first_trick``,
``queen_breaks_hearts``, ``jack_of_diamonds``, ``moon``, ``target_score`` (``hearts_env.engine.rules``).
``opponents=None`` plays uniformly random legal cards drawn from each game's own random stream.

``render()`` draws the table (``hearts_env.render``, docs/viewing.md): ``"rgb_array"`` returns an
(H, W, 3) ``uint8`` picture (Pillow, the ``render`` extra), so Gymnasium's ``RecordVideo`` records
a game (a frame per learner decision: the opponents' cards show in the trick and the last
trick); ``"human"`` shows it in a pygame window after every step, at ``metadata["render_fps"]``;
``"ansi"`` returns it as text. The vector env's ``render()`` returns a tuple, one per game.

``info``: ``action_mask`` (52,) bool, ``seat`` (the learner's absolute seat), ``scores`` (game totals,
relative seats: ``scores[0]`` is the learner's), ``illegal_action`` with
``illegal_action="random"``, and with ``global_state=True`` ``state``: the global state
(``hearts_env.engine.global_state``: every hand, the passes in flight, the trick, points, scores,
phase, seat to act) with seats relative to the learner, in ``env.state_space``
(``single_state_space`` for the vector env; batched in its info, and in ``final_info`` at an
episode's end). It is for critics only: the observation is the same with the option on or off.

## Seeding

``reset(seed=s)`` seeds everything (``hearts_env.engine.seeding``): the k-th game started since is game
k of seed ``s`` (``seeding.game_keys(s, k)``: the first is ``core.new_games(seed=s)``'s game 0),
the learner's seat under ``"rotate"`` and the default random opponents' cards come from the
seed's ``SEATS`` and ``CARDS`` streams, and every opponent policy with a ``seed(...)`` method is
reseeded from its ``AGENTS`` stream. The same
seed and actions give the same episode, and ``reset()`` without a seed then continues with the
same sequence of episodes. ``HeartsVectorEnv.reset(seed=s)`` gives game ``i`` the seed ``s + i``
(a list gives each game its own): game ``i`` then plays exactly as a ``HeartsEnv`` reset with seed
``s + i`` (and reset without a seed after each of its episodes), provided its opponents are the
default random ones or choose from ``(info, mask)`` alone; a stateful random policy passed in
serves every game of the batch from one stream, so the run is reproducible but not game-by-game
equal to single environments.

## Vectorized environment

``HeartsVectorEnv(num_envs, ...)`` takes the same arguments. By default it auto-resets in
Gymnasium's ``AutoresetMode.SAME_STEP``: the step that ends a game's episode returns the next
episode's first observation and mask for it, with the final observation in ``info["final_obs"]``
(object array, ``info["_final_obs"]`` marks the games) and the final step's info in
``info["final_info"]``. So ``action_masks()`` (B, 52) always belongs to the observation just
returned, as ``MaskablePPO`` needs, and every game's learner is to act after every call.
``reset(options={"reset_mask": m})`` resets the games where ``m`` holds.

``autoreset_mode=`` (an ``AutoresetMode`` or its value; the env's ``autoreset_mode`` attribute and
``metadata["autoreset_mode"]``) picks another mode. ``AutoresetMode.NEXT_STEP``, which Gymnasium's
observation wrappers (``NormalizeObservation``, ``DtypeObservation``, ...) require: the ending step
returns the final observation (its mask all False), and the game's next ``step`` ignores its
action and returns the next episode's first observation with reward 0. ``AutoresetMode.DISABLED``,
which TorchRL's ``GymWrapper`` prefers: games whose episode is over stay over until
``reset(options={"reset_mask": m})``, and ``step`` raises while any is.

## Version History

* v0: Initial version.

## Example

```python
import numpy as np
from hearts_env.gym_env import HeartsEnv, HeartsVectorEnv

env = HeartsEnv(num_players=4, reward="points")
obs, info = env.reset(seed=0)
rng = np.random.default_rng(0)
total, terminated = 0.0, False
while not terminated:
    action = rng.choice(np.flatnonzero(info["action_mask"]))
    obs, reward, terminated, truncated, info = env.step(action)
    total += reward
print(total, info["scores"])  # total == -info["scores"][0]

envs = HeartsVectorEnv(num_envs=256, learner_seat="rotate")
obs, info = envs.reset(seed=0)
for _ in range(100):
    masks = envs.action_masks()  # (256, 52)
    actions = (rng.random(masks.shape) * masks).argmax(axis=1)  # a random legal card per game
    obs, rewards, terminations, truncations, info = envs.step(actions)
```
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard, cast

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from hearts_env.engine import checks, seeding
from hearts_env.engine.cards import NUM_CARDS
from hearts_env.engine.core import State
from hearts_env.engine.global_state import GlobalStateLayout
from hearts_env.engine.rules import HeartsRules, rules_or_knobs
from hearts_env.envs.learner_tables import ALL, LearnerTables
from hearts_env.play.policy import Policy
from hearts_env.render.modes import RENDER_FPS, RENDER_MODES, Renderer, check_render_mode

RENDER_HANDS = ("all", "learner")

_U64 = np.uint64


def card_ids(actions: object, num_envs: int) -> np.ndarray:
    """``actions`` as an array if they are integer card ids of shape (num_envs,), one per game;
    else a ``ValueError`` saying what they are (their cards are checked by ``check_actions``)."""
    try:
        actions = np.asarray(actions)
    except (TypeError, ValueError):  # lists of different lengths: no array at all
        raise ValueError(f"actions must be integer card ids of shape ({num_envs},), got {actions!r:.60}") from None
    if actions.shape != (num_envs,) or actions.dtype.kind not in "iu":
        raise ValueError(
            f"actions must be integer card ids of shape ({num_envs},), got {actions.dtype} {actions.shape}"
        )
    return actions


def _check_options(options: object) -> TypeGuard[Mapping[str, Any]]:
    """Whether ``reset``'s ``options`` holds any (a dict, or None for none); anything else is refused."""
    if options is not None and not isinstance(options, Mapping):
        raise ValueError(f"options must be a dict or None, got {options!r}")
    return bool(options)


def _autoreset_mode(mode: AutoresetMode | str) -> AutoresetMode:
    try:
        return AutoresetMode(mode)
    except ValueError:
        allowed = ", ".join(f"AutoresetMode.{m.name} ({m.value!r})" for m in AutoresetMode)
        raise ValueError(f"autoreset_mode must be one of {allowed}; got {mode!r}") from None


def _state_space(layout: GlobalStateLayout | None) -> spaces.Box | None:
    """The space of ``info["state"]`` (one table's), None without ``global_state``."""
    return None if layout is None else spaces.Box(0, 255, (layout.size,), np.uint8)


def _renderer(render_mode: str | None, render_hands: str, render_size: tuple[int, int]) -> Renderer:
    checks.choice("render_hands", render_hands, RENDER_HANDS)
    return Renderer(check_render_mode(render_mode), render_size, RENDER_FPS)


# ---------------------------------------------------------------------------------------------
# The single-table environment


class HeartsEnv(gym.Env[np.ndarray, np.int64]):
    """One learner seat at a Hearts table; the opponents play inside ``step``. See the module
    docstring for spaces, rewards, episodes and arguments."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": RENDER_FPS}

    def __init__(
        self,
        rules: HeartsRules | None = None,
        *,
        opponents: Policy | Sequence[Policy] | None = None,
        reward: str = "points",
        episode: str = "game",
        learner_seat: int | str = 0,
        history: bool = False,
        trick_outcomes: bool = False,
        global_state: bool = False,
        illegal_action: str = "raise",
        render_mode: str | None = None,
        render_hands: str = "all",
        render_size: tuple[int, int] = (960, 720),
        **knobs: Any,
    ) -> None:
        self.rules = rules_or_knobs(rules, knobs)
        self._renderer = _renderer(render_mode, render_hands, render_size)
        self.render_mode, self.render_hands = render_mode, render_hands
        self._tables = LearnerTables(
            1,
            self.rules,
            opponents,
            reward,
            episode,
            learner_seat,
            history,
            illegal_action,
            global_state,
            trick_outcomes,
        )
        self.layout, self.state_layout = self._tables.layout, self._tables.state_layout
        self.observation_space = spaces.Box(0, 255, (self.layout.size,), np.uint8)
        self.state_space = _state_space(self.state_layout)
        self.action_space = spaces.Discrete(NUM_CARDS)

    @property
    def state(self) -> State | None:
        """The core state of the table (a batch of one game), None before the first reset."""
        return self._tables.state

    @property
    def learner_seat(self) -> int:
        """The learner's absolute seat in the current game."""
        return int(self._tables.seat[0])

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        seed = None if seed is None else seeding.check_seed(seed)  # a refused seed changes nothing
        _check_options(options)
        super().reset(seed=seed)
        tables = self._tables
        with tables.all_or_nothing():
            if seed is not None:
                tables.seed_policies(seed)  # before the opponents' first cards
                tables.start(ALL, np.array([seed], _U64))
            elif tables.state is None:
                tables.start(ALL, self.np_random.integers(0, 2**64, size=1, dtype=_U64))
            else:
                tables.next_episode(ALL)
        return self._result(replaced=None)

    def step(self, action: int | np.integer | np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict]:
        tables = self._tables
        if tables.state is None:
            raise RuntimeError("call reset() before step()")
        if tables.ended[0]:
            raise RuntimeError("the episode is over: call reset()")
        card = np.asarray(action)
        if card.size != 1 or card.dtype.kind not in "iu":
            raise ValueError(f"action must be one integer card id (0..51), got {action!r}")
        with tables.all_or_nothing():
            rewards, terminated, replaced = tables.learner_step(card.reshape(1))
        obs, info = self._result(replaced)
        return obs, float(rewards[0]), bool(terminated[0]), False, info

    def _result(self, replaced: np.ndarray | None) -> tuple[np.ndarray, dict]:
        tables = self._tables
        masks = tables.masks()
        info = {key: value[0] for key, value in tables.info(masks, replaced).items()}
        info["seat"] = int(info["seat"])
        if "illegal_action" in info:
            info["illegal_action"] = bool(info["illegal_action"])
        if self.render_mode == "human":
            self.render()
        return tables.observe()[0], info

    def action_masks(self) -> np.ndarray:
        """(52,) bool: the learner's legal cards (all False once the episode is over)."""
        if self._tables.state is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._tables.masks()[0]

    def render(self) -> str | np.ndarray | None:
        if self._tables.state is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode is None:
            gym.logger.warn("You are calling render method without specifying any render mode.")
            return None
        return self._renderer(self._tables.view(0, self.render_hands))

    def close(self) -> None:
        self._renderer.close()


# ---------------------------------------------------------------------------------------------
# The vector environment


class HeartsVectorEnv(VectorEnv):
    """``num_envs`` tables on one batched core state, stepped together with array operations;
    auto-reset in ``AutoresetMode.SAME_STEP`` (``autoreset_mode=`` picks another). Arguments as
    ``HeartsEnv``'s; see the module docstring for seeds and the auto-reset."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": RENDER_FPS, "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int,
        rules: HeartsRules | None = None,
        *,
        opponents: Policy | Sequence[Policy] | None = None,
        reward: str = "points",
        episode: str = "game",
        learner_seat: int | str = 0,
        history: bool = False,
        trick_outcomes: bool = False,
        global_state: bool = False,
        illegal_action: str = "raise",
        render_mode: str | None = None,
        render_hands: str = "all",
        render_size: tuple[int, int] = (960, 720),
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        **knobs: Any,
    ) -> None:
        # Closed until built: a refused construction leaves close() (and gymnasium's __del__, which
        # closes an env not closed) nothing to do, not attributes that are missing.
        self.closed = True
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.num_envs = checks.count("num_envs", num_envs)
        self.rules = rules_or_knobs(rules, knobs)
        self._renderer = _renderer(render_mode, render_hands, render_size)
        self.render_mode, self.render_hands = render_mode, render_hands
        self._tables = LearnerTables(
            self.num_envs,
            self.rules,
            opponents,
            reward,
            episode,
            learner_seat,
            history,
            illegal_action,
            global_state,
            trick_outcomes,
        )
        self.layout, self.state_layout = self._tables.layout, self._tables.state_layout
        self.single_observation_space = spaces.Box(0, 255, (self.layout.size,), np.uint8)
        self.single_state_space = _state_space(self.state_layout)
        self.single_action_space = spaces.Discrete(NUM_CARDS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._autoreset = np.zeros(self.num_envs, bool)  # NEXT_STEP: episodes that ended last step
        self.closed = False

    @property
    def state(self) -> State | None:
        """The core state of all tables, None before the first reset."""
        return self._tables.state

    @property
    def learner_seats(self) -> np.ndarray:
        """(num_envs,) the learner's absolute seat in each game."""
        return self._tables.seat.copy()

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset every game, or those of ``options["reset_mask"]``. ``seed``: an int ``s`` gives
        game ``i`` the seed ``s + i``; a list gives one seed (or None) per game; None continues
        each game's sequence of episodes (random seeds on the first reset)."""
        tables, B = self._tables, self.num_envs
        idx = np.arange(B)
        if _check_options(options) and "reset_mask" in options:
            mask = np.asarray(options["reset_mask"])
            if mask.shape != (B,) or mask.dtype != bool:
                got = f"{mask.dtype} {mask.shape}"
                raise ValueError(f"options['reset_mask'] must be a bool array of shape ({B},), got {got}")
            idx = np.flatnonzero(mask)
            if tables.state is None and len(idx) < B:
                raise ValueError("the first reset must reset every game")
        seeds: np.ndarray | None  # None: each game's next episode
        if isinstance(seed, (Sequence, np.ndarray)) and not isinstance(seed, (str, bytes, bytearray)):
            if len(seed) != B:
                raise ValueError(f"seed must be an int or a list of {B} seeds, got {len(seed)}")
            given = [None if s is None else seeding.check_seed(s, f"seed[{i}]") for i, s in enumerate(seed)]
            drawn = self.np_random.integers(0, 2**64, size=B, dtype=_U64)
            seeds = np.array([drawn[i] if s is None else s for i, s in enumerate(given)], _U64)[idx]
            policy_seed = next((s for s in given if s is not None), None)
        elif seed is not None:
            policy_seed = seeding.check_seed(seed)
            super().reset(seed=policy_seed)
            seeds = _U64(policy_seed) + idx.astype(_U64)
        else:
            seeds = self.np_random.integers(0, 2**64, size=B, dtype=_U64) if tables.state is None else None
            policy_seed = None
        with tables.all_or_nothing(self._autoreset):
            self._autoreset[idx] = False
            if seeds is None:
                tables.next_episode(idx)
            else:
                if policy_seed is not None:  # before the opponents' first cards
                    tables.seed_policies(policy_seed)
                tables.start(idx, seeds)
        return tables.observe(), self._info(tables.info(tables.masks()))

    def check_actions(self, actions: np.ndarray, first_game: int = 0) -> np.ndarray:
        """Raise what ``step(actions)`` refuses, before anything changes, and return the actions as
        an array: a step before the first reset, or one of a game whose episode is over with
        ``autoreset_mode`` DISABLED (``RuntimeError``); actions that are not integer card ids of
        shape (num_envs,) (``ValueError``); a card that is no card id, or (``illegal_action="raise"``)
        that its learner may not play (``core.IllegalMoveError``, a ``ValueError`` naming the game,
        counted from ``first_game``, the seat, the card and the rule). ``step`` checks its actions
        here; a caller stepping several vector envs as one (``ShardedVecEnv``) checks them all first."""
        tables = self._tables
        if tables.state is None:
            raise RuntimeError("call reset() before step()")
        actions = card_ids(actions, self.num_envs)
        if self.autoreset_mode == AutoresetMode.DISABLED and tables.ended.any():
            games = np.flatnonzero(tables.ended).tolist()
            raise RuntimeError(
                f"the episodes of games {games} are over and autoreset_mode is DISABLED: "
                "reset them first (reset(options={'reset_mask': mask}))"
            )
        resetting = self._autoreset  # NEXT_STEP: the games starting their next episode play no card
        if not resetting.all():
            tables.check_actions(actions, np.flatnonzero(~resetting) if resetting.any() else ALL, first_game)
        return actions

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        tables, B = self._tables, self.num_envs
        actions = self.check_actions(actions)
        with tables.all_or_nothing(self._autoreset):
            # NEXT_STEP: the games whose episode ended last step start the next one (after the
            # others have stepped); their actions are ignored.
            resetting = self._autoreset
            if resetting.all():
                rewards, terminated, replaced = np.zeros(B, np.float32), np.zeros(B, bool), np.zeros(B, bool)
            else:
                stepping = np.flatnonzero(~resetting) if resetting.any() else ALL
                rewards, terminated, replaced = tables.learner_step(actions, stepping)
            if resetting.any():
                tables.next_episode(np.flatnonzero(resetting))
            obs = tables.observe()
            info = self._info(tables.info(tables.masks(), replaced.copy()))
            ended = np.flatnonzero(terminated)
            if len(ended) and self.autoreset_mode == AutoresetMode.SAME_STEP:
                final_obs = np.full(B, None, dtype=object)
                for i in ended:  # builds the info's per-game objects only
                    final_obs[i] = obs[i].copy()
                final_info = {key: (terminated.copy() if key.startswith("_") else value) for key, value in info.items()}
                tables.next_episode(ended)
                obs[ended] = tables.observe(ended)
                info = self._info(tables.info(tables.masks(), replaced))
                info |= {"final_obs": final_obs, "_final_obs": terminated.copy()}
                info |= {"final_info": final_info, "_final_info": terminated.copy()}
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            self._autoreset = terminated.copy()
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terminated, np.zeros(B, bool), info

    def _info(self, info: dict[str, np.ndarray]) -> dict[str, Any]:
        for key in list(info):
            info[f"_{key}"] = np.ones(self.num_envs, bool)
        return info

    def action_masks(self) -> np.ndarray:
        """(num_envs, 52) bool: each learner's legal cards, for the observation just returned."""
        if self._tables.state is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._tables.masks()

    def render(self) -> tuple[str, ...] | tuple[np.ndarray, ...] | None:
        """A tuple of every game's text or picture; ``"human"`` shows game 0 in the window."""
        if self._tables.state is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode is None:
            gym.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode == "human":
            self._renderer(self._tables.view(0, self.render_hands))  # shown in the window
            return None
        views = [self._tables.view(g, self.render_hands) for g in range(self.num_envs)]
        if self.render_mode == "ansi":
            return tuple(f"game {g}: {self._renderer(v)}" for g, v in enumerate(views))
        return cast("tuple[np.ndarray, ...]", tuple(self._renderer(v) for v in views))  # rgb_array: pictures

    def close_extras(self, **kwargs: Any) -> None:
        """Close the window (``render_mode="human"``); ``close()`` calls it once, on a built env."""
        self._renderer.close()
