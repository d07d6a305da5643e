"""TorchRL environments: B tables of Hearts on one batched core state, stepped together.

Two ``torchrl.envs.EnvBase`` classes with ``batch_size=[B]`` and CPU tensors, each table a game of
the batch (``docs/rules.md``; every variant a knob):

- ``HeartsLearnerEnv``: one learner seat per table, the other seats played inside ``step`` by
  opponent policies. It is ``hearts_env.envs.gym_env.HeartsVectorEnv`` (with
  ``AutoresetMode.DISABLED``: TorchRL resets finished tables itself) under TorchRL's API, so its
  observations, rewards, episodes and seeds are the vector env's.
- ``HeartsMultiAgentEnv``: every seat an agent, in one group ``"agents"`` of P (TorchRL's
  multi-agent layout: a ``(B, P, ...)`` entry per key), over the core directly. Episodes are whole
  games, as in the AEC env (``hearts_env.envs.aec``; ``target_score=None`` plays one-hand games), or
  with ``episode="hand"`` hands: a table's reset then goes on with its game's next hand (scores
  carried, the pass direction cycling) until the game is over, as in ``HeartsVectorEnv``.

Install with the project's extra: ``pip install -e ".[torchrl]"`` (``import hearts_env`` never
imports torch; this module imports TorchRL at once).

## HeartsMultiAgentEnv

| key | shape, dtype | holds |
|---|---|---|
| ``("agents", "observation")`` | (B, P, layout.size) uint8 | each seat's own view (``observation.observe``) |
| ``("agents", "action_mask")`` | (B, P, 52) bool | the seat to act: its legal cards; every other seat: every card |
| ``("agents", "mask")`` | (B, P) bool | the seat to act (``PettingZooWrapper``'s ``"mask"``); none at the end |
| ``("agents", "action")`` | (B, P) int64 | a card id per seat (``suit * 13 + rank - 2``; ``QS = 36``) |
| ``("next", "agents", "reward")`` | (B, P, 1) float32 | see Rewards |
| ``("next", "agents", "done")``, ``"terminated"`` | (B, P, 1) bool | the episode is over (every seat at once) |
| ``("next", "done")``, ``"terminated"`` | (B, 1) bool | the episode is over |
| ``"state"`` | (B, state_layout.size) uint8 | with ``global_state=True``: the global state, seats in table order |

**Only the seat to act moves.** ``step`` plays the card of the seat marked by ``("agents",
"mask")`` in each game and ignores the other seats' actions, whatever they hold. Their
``action_mask`` rows allow every card so that masked distributions (TorchRL's
``MaskedCategorical``, the masked random policy) stay defined for every agent; the observation's
own ``legal`` section is all zeros for them, as in the AEC env. A policy trained on this layout
should take its loss only where ``("agents", "mask")`` holds (``train/libraries/torchrl_ppo.py`` does).

**Rewards** (the ``reward`` knob, ``hearts_env.engine.rewards``) are paid as the AEC env pays them: what
built up for a seat since its own last move (``step_rewards`` of every step since, its own move
included) reaches it on the step after which it is to act again, or the episode ends, and is
zero on the other steps. That is the reward ``last()`` gives the seat at that moment in the AEC
env (in ``"hand"`` episodes a hand's last rewards reach every seat at the hand's end instead of at
its next turn), so every point reaches the seat that earned it, on its own row, before its next
decision; summed over an episode a seat's rewards are minus its points (``"points"``, ``"hand"``:
minus its final total for a game, its hand score for a hand). Credit it to
the seat's previous decision: returns along a seat's row over all steps do that (the steps where
it does not act carry its value forward; see ``docs/clients.md``).

## HeartsLearnerEnv

``"observation"`` (B, layout.size) uint8, ``"action_mask"`` (B, 52) bool (the learner's legal cards;
none once the episode is over), ``"action"`` (B,) int64, ``("next", "reward")``, ``"done"``,
``"terminated"`` (B, 1): the learner's reward since its last move, the opponents' moves included.
``env.vector_env`` is the ``HeartsVectorEnv`` (``learner_seats``, ``state``). With
``global_state=True``, ``"state"`` (B, state_layout.size) uint8 holds the global state with seats
relative to the learner.

The global state (``hearts_env.engine.global_state``: every hand, the passes in flight, the trick,
points, scores, phase, seat to act) is for centralised or asymmetric critics; it sits beside the
observations, which are the same with it on or off, as TorchRL's multi-agent envs keep it.

## Both

The specs are built once, in ``__init__``; ``step`` keeps the action spec's mask equal to the
``action_mask`` just returned (as ``PettingZooWrapper`` does), so ``rollout()`` without a policy
plays random legal cards, and TorchRL's ``ActionMask`` transform works on either form
(``ActionMask(("agents", "action"), ("agents", "action_mask"))`` for the group).
``torchrl.envs.utils.check_env_specs`` passes on both. Observations, masks and rewards are the
core's fresh numpy arrays, handed over with ``torch.from_numpy`` (no copy).

Resets: ``reset()`` restarts every table; a ``"_reset"`` entry (B, 1), or ``("agents",
"_reset")`` (B, P, 1) with any seat marked, restarts only the tables it marks (TorchRL's rollouts
and collectors do that for the tables that are done).

Seeding (``hearts_env.engine.seeding``): after ``set_seed(s)`` the next reset of table ``i`` starts game
0 of seed ``s + i``, and each later reset of it plays that seed's next game. So table ``i`` of
``HeartsMultiAgentEnv`` plays exactly as ``hearts_env.envs.aec.raw_env`` reset with ``seed=s + i``
(then reset without a seed after each game), and table ``i`` of ``HeartsLearnerEnv`` as
``HeartsEnv`` reset with ``seed=s + i`` (opponents as in ``HeartsVectorEnv``'s seeding). Before any
``set_seed`` the seed is fresh from the operating system. Seeds are checked as everywhere
(``seeding.check_seed``): an int >= 0, 2**64 and up counting modulo 2**64 (so are ``s + i``).

Bad input raises and changes nothing: an action or ``_reset`` entry that is not a dense tensor of
integer card ids (bools) of its shape, readable on the CPU (``ValueError`` naming the key, what it
must hold and what it holds), a card that is not a card id or that the seat to act may not play
(``ValueError`` naming the env index, the seat, the card and the rule), a step while a table's
game is over and not yet reset (``RuntimeError`` naming the env indices), a seed that is not one.

## Example

```python
import torch
from torchrl.envs.utils import check_env_specs
from hearts_env.torchrl import HeartsMultiAgentEnv

env = HeartsMultiAgentEnv(256, reward="points")
check_env_specs(env)
env.set_seed(0)
rollout = env.rollout(1000, break_when_any_done=False)  # (256, 1000): random legal cards
acting = rollout["agents", "mask"]  # (256, 1000, 4): the seat that played each step
rewards = rollout["next", "agents", "reward"]  # (256, 1000, 4, 1)
```
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

try:
    import torch
    from tensordict import NestedKey, TensorDict, TensorDictBase
    from torchrl.data import Binary, Bounded, Categorical, Composite, Unbounded
    from torchrl.envs import EnvBase
except ImportError as error:  # pragma: no cover - the message is the point
    raise ImportError(f'hearts_env.envs.torchrl needs TorchRL: pip install -e ".[torchrl]" ({error})') from None

from gymnasium.vector import AutoresetMode

from hearts_env.engine import checks, core, seeding
from hearts_env.engine.cards import BIT, NUM_CARDS, card_name
from hearts_env.engine.global_state import GlobalStateLayout, global_state
from hearts_env.engine.observation import ObservationLayout, observe
from hearts_env.engine.rewards import check_reward_mode, step_rewards
from hearts_env.engine.rules import HeartsRules, rules_or_knobs
from hearts_env.envs.gym_env import HeartsVectorEnv
from hearts_env.envs.learner_tables import EPISODES
from hearts_env.play.policy import Policy

GROUP = "agents"
"""The name of the one group of agents (TorchRL's ``MarlGroupMapType.ALL_IN_ONE_GROUP``)."""

_U64 = np.uint64
_EVERY_CARD = _U64(2**NUM_CARDS - 1)  # the action mask of the seats not to act


_INTEGERS = frozenset(
    getattr(torch, name) for name in ("uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64")
)
_BOOLS = frozenset({torch.bool})


def _seed(seed: int | None) -> int:
    """The project's one seed check (``seeding.check_seed``: ints >= 0, modulo 2**64), or a fresh seed."""
    return seeding.fresh_seed() if seed is None else seeding.check_seed(seed)


def _entry(value: Any, key: NestedKey, shape: tuple[int, ...], what: str, dtypes: frozenset[torch.dtype]) -> np.ndarray:
    """The input entry ``key`` as a numpy array (a view of the tensor where it is on the CPU), if it
    is a dense tensor of ``shape`` holding one of ``dtypes``; else a ValueError naming the key, what
    it must hold and what it holds. Every entry the envs read comes through here, so that a bad one
    is refused before anything changes."""
    key = key if isinstance(key, str) else repr(key)
    if not isinstance(value, torch.Tensor):
        raise ValueError(f"{key} must be a tensor of {what} of shape {shape}, got {type(value).__name__}")
    if value.layout != torch.strided or value.dtype not in dtypes or tuple(value.shape) != shape:
        got = f"{value.dtype} {tuple(value.shape)}" + ("" if value.layout == torch.strided else f" {value.layout}")
        raise ValueError(f"{key} must be {what} of shape {shape}, got {got}")
    try:
        return value.detach().cpu().numpy()
    except (RuntimeError, NotImplementedError, TypeError) as error:  # a meta tensor, a tensor subclass...
        got = f"{value.dtype} {tuple(value.shape)} on {value.device} ({error})"
        raise ValueError(f"{key} must be {what} of shape {shape}, readable on the CPU, got {got}") from None


def _card_ids(action: Any, shape: tuple[int, ...], key: NestedKey) -> np.ndarray:
    """The actions as a numpy integer array (a view of the tensor), or a ValueError."""
    return _entry(action, key, shape, f"integer card ids (0..{NUM_CARDS - 1})", _INTEGERS)


def _refuse_illegal(state: core.State, cards: np.ndarray) -> None:
    """A ValueError naming the first env whose seat to act may not play its card (range or rule)."""
    outside = (cards < 0) | (cards >= NUM_CARDS)
    illegal = outside | ((state.legal & BIT.take(np.where(outside, 0, cards).astype(np.int64))) == 0)
    if not illegal.any():
        return
    env = int(np.argmax(illegal))
    seat, card = int(state.to_play[env]), int(cards[env])
    if outside[env]:
        what = f"action {card}, which is not a card id (0..{NUM_CARDS - 1})"
    else:
        what = f"{card_name(card)} (card {card}), which is illegal: {core.explain_illegal(state, env, card)}"
    raise ValueError(f"env {env}: seat {seat}, the seat to act, chose {what}; nothing changed")


def _started(state: core.State | None) -> core.State:
    """``state``, or a RuntimeError before the first reset."""
    if state is None:
        raise RuntimeError("call reset() before step()")
    return state


def _refuse_over(over: np.ndarray) -> None:
    if over.any():
        envs = np.flatnonzero(over).tolist()
        raise RuntimeError(
            f"env {envs[0]}: the episode is over (envs over: {envs}): reset those envs first "
            "(reset() with a '_reset' entry marking them); nothing changed"
        )


def _reset_rows(tensordict: TensorDictBase | None, shapes: dict[NestedKey, tuple[int, ...]]) -> np.ndarray:
    """(B,) bool: the tables a reset restarts: those its ``_reset`` entries (``shapes``: each key the
    env reads, and its done entry's shape) mark, or every one. An entry that is not a bool tensor
    of its shape is refused (``_entry``), before anything restarts."""
    B = next(iter(shapes.values()))[0]
    entries = [(key, tensordict.get(key, None)) for key in shapes] if tensordict is not None else []
    marks = [_entry(m, key, shapes[key], "bools", _BOOLS).reshape(B, -1).any(-1) for key, m in entries if m is not None]
    return np.logical_or.reduce(marks) if marks else np.ones(B, bool)


def _bools(shape: tuple[int, ...]) -> Binary:
    return Binary(n=shape[-1], shape=shape, dtype=torch.bool)


def _done_spec(shape: tuple[int, ...]) -> dict[str, Categorical]:
    return {key: Categorical(n=2, shape=shape, dtype=torch.bool) for key in ("done", "terminated")}


def _observation_spec(shape: tuple[int, ...], size: int) -> Bounded:
    return Bounded(low=0, high=255, shape=(*shape, size), dtype=torch.uint8)


# ---------------------------------------------------------------------------------------------
# One learner seat, opponents inside


class HeartsLearnerEnv(EnvBase):
    """``num_envs`` tables of ``HeartsVectorEnv`` (one learner seat each, opponents played inside
    ``step``) as a TorchRL ``EnvBase`` with ``batch_size=[num_envs]``; the arguments are the
    vector env's (``hearts_env.envs.gym_env``). See the module docstring."""

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
        global_state: bool = False,
        **knobs: Any,
    ) -> None:
        B = checks.count("num_envs", num_envs)
        self.vector_env = HeartsVectorEnv(
            B,
            rules_or_knobs(rules, knobs),
            opponents=opponents,
            reward=reward,
            episode=episode,
            learner_seat=learner_seat,
            history=history,
            global_state=global_state,
            autoreset_mode=AutoresetMode.DISABLED,
        )
        super().__init__(device="cpu", batch_size=torch.Size([B]))
        self.rules = self.vector_env.rules
        self.layout = self.vector_env.layout
        self.state_layout = self.vector_env.state_layout
        self.full_observation_spec = Composite(
            observation=_observation_spec((B,), self.layout.size), action_mask=_bools((B, NUM_CARDS)), shape=(B,)
        )
        if self.state_layout is not None:
            self.full_observation_spec["state"] = _observation_spec((B,), self.state_layout.size)
        self.full_action_spec = Composite(action=Categorical(n=NUM_CARDS, shape=(B,), dtype=torch.int64), shape=(B,))
        self.full_reward_spec = Composite(reward=Unbounded(shape=(B, 1), dtype=torch.float32), shape=(B,))
        self.full_done_spec = Composite(_done_spec((B, 1)), shape=(B,))
        self._masks = np.zeros((B, NUM_CARDS), bool)  # the learners' legal cards just returned
        P = self.rules.num_players  # ("agents", "_reset") marks a table where it marks any seat (module docstring)
        self._reset_shapes: dict[NestedKey, tuple[int, ...]] = {"_reset": (B, 1), (GROUP, "_reset"): (B, P, 1)}
        self._set_seed(None)

    def _set_seed(self, seed: int | None) -> None:
        base = _seed(seed)
        self._seeds = [(base + i) % 2**64 for i in range(self.batch_size[0])]
        self._seed_pending = np.ones(self.batch_size[0], bool)  # tables whose next reset takes its seed

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDictBase:
        envs, B = self.vector_env, self.batch_size[0]
        rows = _reset_rows(tensordict, self._reset_shapes)
        if envs.state is None:
            rows[:] = True
        seeded, going_on = rows & self._seed_pending, rows & ~self._seed_pending
        # Two resets of the vector env, undone together if the second fails (an opponent raising)
        with envs._tables.all_or_nothing(envs._autoreset, self._seed_pending):
            if seeded.any():
                obs, info = envs.reset(seed=self._seeds, options={"reset_mask": seeded})
                self._seed_pending &= ~seeded
            if going_on.any() or not seeded.any():
                obs, info = envs.reset(options={"reset_mask": going_on})
        done = torch.zeros((B, 1), dtype=torch.bool)
        return self._output(obs, info, {"done": done, "terminated": done.clone()})

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        B = self.batch_size[0]
        cards = _card_ids(tensordict.get("action"), (B,), "action")
        state = _started(self.vector_env.state)
        _refuse_over(cast(np.ndarray, ~self._masks.any(axis=1)))
        _refuse_illegal(state, cards)  # every learner is to act
        obs, rewards, terminated, _, info = self.vector_env.step(cards.astype(np.int64, copy=False))
        done = torch.from_numpy(terminated[:, None])
        out = {"reward": torch.from_numpy(rewards[:, None]), "done": done, "terminated": done.clone()}
        return self._output(obs, info, out)

    def _output(self, obs: np.ndarray, info: dict[str, Any], entries: dict[str, torch.Tensor]) -> TensorDictBase:
        self._masks = info["action_mask"]
        mask = torch.from_numpy(self._masks)
        self.full_action_spec["action"].update_mask(mask)
        entries |= {"observation": torch.from_numpy(obs), "action_mask": mask}
        if "state" in info:
            entries["state"] = torch.from_numpy(info["state"])
        return TensorDict(entries, batch_size=self.batch_size, device=self.device)


# ---------------------------------------------------------------------------------------------
# Every seat an agent


class HeartsMultiAgentEnv(EnvBase):
    """``num_envs`` games of Hearts, every seat an agent of the group ``"agents"``, as a TorchRL
    ``EnvBase`` with ``batch_size=[num_envs]`` over one batched core state (``hearts_env.engine.core``).
    ``rules`` or its knobs as keywords, ``reward`` (``hearts_env.engine.rewards``), ``episode`` (``"game"``
    or ``"hand"``), ``history`` (the full trick history in the observation). See the module
    docstring."""

    def __init__(
        self,
        num_envs: int,
        rules: HeartsRules | None = None,
        *,
        reward: str = "points",
        episode: str = "game",
        history: bool = False,
        global_state: bool = False,
        **knobs: Any,
    ) -> None:
        B = checks.count("num_envs", num_envs)
        self.rules = rules_or_knobs(rules, knobs)
        self.reward_mode = check_reward_mode(reward)
        self.episode = checks.choice("episode", episode, EPISODES)
        self.history = checks.flag("history", history)
        self.layout = ObservationLayout(self.rules, history=self.history)
        self.state_layout = GlobalStateLayout(self.rules) if checks.flag("global_state", global_state) else None
        P = self.num_players = self.rules.num_players
        # A state and its next, every seat's observation and masks (the action spec's too), the global state
        state = core.state_layout(P, self.rules.hand_size if self.history else 0, self.rules.decks).width
        state += self.state_layout.size if self.state_layout else 0
        checks.fits_in_memory(f"{B:,} tables", B * (2 * state + P * (self.layout.size + 3 * NUM_CARDS)))
        super().__init__(device="cpu", batch_size=torch.Size([B]))
        group = (B, P)
        self.full_observation_spec = Composite(
            {
                GROUP: Composite(
                    observation=_observation_spec(group, self.layout.size),
                    action_mask=_bools((*group, NUM_CARDS)),
                    mask=_bools(group),
                    shape=group,
                )
            },
            shape=(B,),
        )
        if self.state_layout is not None:  # TorchRL's multi-agent convention: the global state at the root
            self.full_observation_spec["state"] = _observation_spec((B,), self.state_layout.size)
        self.full_action_spec = Composite(
            {GROUP: Composite(action=Categorical(n=NUM_CARDS, shape=group, dtype=torch.int64), shape=group)},
            shape=(B,),
        )
        self.full_reward_spec = Composite(
            {GROUP: Composite(reward=Unbounded(shape=(*group, 1), dtype=torch.float32), shape=group)}, shape=(B,)
        )
        self.full_done_spec = Composite(
            {**_done_spec((B, 1)), GROUP: Composite(_done_spec((*group, 1)), shape=group)}, shape=(B,)
        )
        self._observed_rows = np.repeat(np.arange(B), P)  # game of each (game, seat) observation
        self._observed_seats = np.tile(np.arange(P, dtype=np.int64), B)
        self._seats = np.arange(P)
        self.state: core.State | None = None
        """The core state of the B games (``hearts_env.engine.core.State``), None before the first reset."""
        self._pending = np.zeros(group, np.float32)  # each seat's reward since its own last move
        self._ended = np.zeros(B, bool)  # the table's episode is over (until its reset)
        self._game_seed = np.zeros(B, _U64)  # the seed each table's games derive from
        self._games_started = np.zeros(B, _U64)  # games the table has started from that seed
        self._reset_shapes: dict[NestedKey, tuple[int, ...]] = {"_reset": (B, 1), (GROUP, "_reset"): (*group, 1)}
        self._set_seed(None)

    def _set_seed(self, seed: int | None) -> None:
        self._game_seed = _U64(_seed(seed)) + np.arange(self.batch_size[0], dtype=_U64)
        self._games_started[:] = 0

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDictBase:
        B = self.batch_size[0]
        rows = _reset_rows(tensordict, self._reset_shapes)
        if self.state is None:
            rows[:] = True
        else:  # a hand episode over with the game going on: its next hand, dealt
            going_on = rows & self._ended & ~self.state.done
            self._ended[going_on] = False
            rows &= ~going_on
        idx = np.flatnonzero(rows)
        if not len(idx):
            assert self.state is not None  # the first reset resets every table
            return self._output(self.state, reward=None)
        keys = seeding.derive(self._game_seed[idx], seeding.GAMES, self._games_started[idx])  # AEC: game_keys(s, k)
        self._games_started[idx] += _U64(1)
        fresh = core.new_games(self.rules, keys=keys, history=self.history)
        if len(idx) == B:
            self.state = fresh
        else:
            assert self.state is not None  # as above
            data = self.state.data.copy()
            data[idx] = fresh.data
            self.state = core.State(self.rules, data, self.state.layout)
        self._pending[idx] = 0
        self._ended[idx] = False
        return self._output(self.state, reward=None)

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        B, P = self.batch_size[0], self.num_players
        actions = _card_ids(tensordict.get((GROUP, "action")), (B, P), f"({GROUP!r}, 'action')")
        before = _started(self.state)
        _refuse_over(self._ended)
        cards = actions[np.arange(B), before.to_play]  # the seat to act's; the rest ignored
        _refuse_illegal(before, cards)
        after = core.step(before, cards.astype(np.int64))
        self._pending += step_rewards(before, after, self.reward_mode)
        self._ended = after.done | after.hand_over if self.episode == "hand" else after.done
        self.state = after
        return self._output(after, reward=True)

    def _output(self, state: core.State, reward: bool | None) -> TensorDictBase:
        B, P = self.batch_size[0], self.num_players
        over = self._ended[:, None]
        to_act = (state.to_play[:, None] == self._seats) & ~over  # (B, P); no seat once the episode is over
        obs = observe(state[self._observed_rows], self._observed_seats, self.layout).reshape(B, P, -1)
        action_mask = core.bits_to_mask(np.where(to_act, state.legal[:, None], _EVERY_CARD))
        agents = {
            "observation": torch.from_numpy(obs),
            "action_mask": torch.from_numpy(action_mask),
            "mask": torch.from_numpy(to_act),
            "done": torch.from_numpy(np.repeat(over, P, axis=1)[:, :, None]),
        }
        if reward:
            paid = to_act | over  # a seat is paid when its turn comes again, or the episode ends
            agents["reward"] = torch.from_numpy(np.where(paid, self._pending, np.float32(0))[:, :, None])
            self._pending[paid] = 0
        agents["terminated"] = agents["done"].clone()
        self.full_action_spec[GROUP, "action"].update_mask(agents["action_mask"])
        done = torch.from_numpy(over.copy())
        entries = {
            GROUP: TensorDict(agents, batch_size=(B, P), device=self.device),
            "done": done,
            "terminated": done.clone(),
        }
        if self.state_layout is not None:
            entries["state"] = torch.from_numpy(global_state(state, self.state_layout))
        return TensorDict(entries, batch_size=self.batch_size, device=self.device)
