"""The OpenSpiel game: Hearts over this project's core, registered with ``pyspiel`` as
``hearts_env`` when this module is imported, for OpenSpiel's algorithms and bots.

==================== =======================================================================
short name           ``hearts_env``: ``pyspiel.load_game("hearts_env", {"num_players": 5})``
players              3 to 7 (one deck), 6 to 11 (``decks=2``, Cancellation Hearts)
actions              52, card ids (``hearts_env.cards``: ``suit * 13 + rank - 2``): a card to
                     pass (one per action) or to play
chance               the deal, card by card, at the start of every hand
information          imperfect: information-state and observation strings and tensors
utility              general sum; a reward at the end of every hand (reward model ``REWARDS``;
                     a game of one hand, ``target_score=0``: ``TERMINAL``, as OpenSpiel's
                     ``hearts``, so its ``MCTSBot`` plays it)
==================== =======================================================================

Parameters: every knob of ``HeartsRules`` (``docs/rules.md``) with its default: ``num_players``
(4), ``pass_count`` (3), ``pass_cycle`` (``"standard"``, or the directions separated by slashes,
as ``"left/right/none"``), ``no_points_on_first_trick`` (True), ``queen_breaks_hearts`` (True),
``jack_of_diamonds`` (False), ``moon`` (``"add_to_others"``), ``target_score`` (100; 0: a game is
one hand; at most ``MAX_TARGET_SCORE``, a million, since OpenSpiel counts a game's length in 32-bit
ints) and ``decks`` (1). A bad value raises ``HeartsRules``' error, which names the knob;
``parameters(rules)`` gives the parameters of a ``HeartsRules``. A game's own parameters (its
string, ``get_parameters()``, what a serialized game holds) are ``parameters`` of its rules, so
every value accepted reads back: a ``pass_cycle`` given with commas (``"left,right"``, as a command
line writes it) or spaces is written with slashes, since a comma would end the parameter in
OpenSpiel's game strings.

Chance: every hand opens with its deal, one chance node per card as OpenSpiel's ``hearts``
deals: the outcome is a card id, its probability the card's copies left over the cards left
(with two decks a card whose two copies are left counts twice); the k-th card dealt goes to seat
k mod P, and with two decks the cards after the seats' last to the kitty. The pass direction
follows from the hand number (``HeartsRules.pass_direction``), so every random event is a
chance node and a state is a function of its history: each hand's deal replaces the one the core
drew itself (``core.deal_hands``).

Observations: the tensors are this project's observation vectors as float32
(``hearts_env.engine.observation``; ``ObservationLayout.split`` names their sections): the
observation tensor has the compact layout (``ObservationLayout(rules)``), the information-state
tensor adds every trick of the hand (``history=True``). The strings show the table as the seat
sees it (``hearts_env.render``: its hand, the others' card counts, the trick, points and totals)
and the cards it passed and received; the information-state string adds every completed trick of
the hand in the order played. Both cover the hand under way and the totals (earlier hands bear on
what is to come only through the totals). During a deal the tensors are zeros, as in OpenSpiel's
``hearts``, and the strings give the totals and the seat's cards dealt so far.

Rewards and returns: OpenSpiel maximises, so they are minus points. At the first decision after a
hand (or at the end of the game) each seat's reward is minus the hand's points (moon and JD rules
applied); the return is minus the game total. (OpenSpiel's ``hearts`` plays one 4-player hand and
returns ``26 - points``.)

Length: OpenSpiel needs a bound, so a game stops after ``max_hands(rules)`` hands: the most a
game lasts when every hand adds points to the totals, as every hand does except a moon under
``subtract_from_self`` (or a shooter's choice of it), which only such a rule can outlast.

``resample_from_infostate(player, sampler)`` draws what ``player`` cannot see anew, uniformly over
what it knows, from the sampler's numbers, and makes the new state as OpenSpiel's ``hearts`` does,
from a history: the original's up to the hand under way, then that hand's deal and passes anew and
its cards played as they were, so that its ``history()`` replayed from the start gives it exactly
(every seat's hand, pass and view). In the play phase the hands held now are the engine's world
sampler's (``hearts_env.engine.worlds``); with the cards played they give what each seat held after
the pass; the passes ``player`` knows (its own, and the one it received) stay, and each other seat
passed cards drawn from what its receiver held after the pass. In the pass the unseen cards are
dealt anew, each seat's picks so far drawn from its new hand; during a deal the cards dealt to the
other places. ``player``'s own cards keep their order in the deal; the others' come in a new order.
The sampler leaves out soft inferences (a heart discarded on the first trick: its player held only
point cards; a heart led before hearts broke: only hearts; who leads the first trick holds the
lowest club), so a world in which the hand's replay breaks one (a card played there illegal, or
another seat to act) is drawn again, up to ``RESAMPLE_TRIES`` times, and after that the state
itself is returned (its own world is consistent). At the end of a game the state itself is returned.
A sampler that gives no number in [0, 1] is refused (``ValueError``). Inference, as an option: a
game whose ``belief`` is set (a callable from an info set to the world sampler's ``belief``
weights, e.g. ``hearts_env.agents.search.belief.BeliefModel.load().weights``) draws the
play-phase hands held now with it (``hearts_env.engine.worlds``); None, the default, draws them
uniformly.

An illegal card raises ``ValueError`` naming the card and the rule, and changes nothing; so does a
deal of a card dealt already, or of one that is not in the table's deck (fewer than 52 with 3, 5,
6 or 7 players).

    import numpy as np
    import pyspiel
    import hearts_env.openspiel  # registers "hearts_env"

    game = pyspiel.load_game("hearts_env", {"num_players": 5, "target_score": 0})
    state, rng = game.new_initial_state(), np.random.default_rng(0)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    print(state.returns())

Version history: ``hearts_env`` (this one) is the first.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError:
    raise ImportError("hearts_env.openspiel needs OpenSpiel: pip install 'hearts_env[openspiel]'") from None

from hearts_env.engine import cards, core
from hearts_env.engine.cards import JD_POINTS, KITTY, NUM_CARDS, card_name
from hearts_env.engine.core import GAME_OVER, PLAY, bits_to_cards, bits_to_mask
from hearts_env.engine.infoset import InfoSet, infoset
from hearts_env.engine.observation import ObservationLayout, observe
from hearts_env.engine.rules import HeartsRules, parse_pass_cycle, rules_or_knobs, standard_pass_cycle
from hearts_env.engine.worlds import sample_worlds
from hearts_env.render.text import format_cards, pile_cards, render_game

GAME_NAME = "hearts_env"
CHANCE, TERMINAL = int(pyspiel.PlayerId.CHANCE), int(pyspiel.PlayerId.TERMINAL)
RESAMPLE_TRIES = 32
"""Worlds ``resample_from_infostate`` draws before it gives the state itself (see the module docstring)."""
_ACTIONS = [np.array([card], np.int64) for card in range(NUM_CARDS)]  # core.step's actions, made once (read only)


def _defaults() -> dict[str, Any]:
    knobs = {f.name: f.default for f in dataclasses.fields(HeartsRules) if f.init}
    knobs["pass_cycle"] = "standard"  # None: the standard cycle of the player count
    return knobs


PARAMETERS: dict[str, Any] = _defaults()
"""The game's parameters and their defaults: ``HeartsRules``' knobs, ``pass_cycle`` as text."""


MAX_TARGET_SCORE = 1_000_000
"""The highest ``target_score`` of the game: OpenSpiel counts a game's length (``max_game_length``
plus the chance nodes) in 32-bit ints, which hold the longest game to this target at any table
(to 2**31 - 1 the bound would be about 33 million with 11 players)."""


def rules_from_parameters(params: Mapping[str, Any]) -> HeartsRules:
    """The ``HeartsRules`` of game parameters (a missing one takes its default); ``ValueError``
    naming a bad knob."""
    knobs = {**PARAMETERS, **params}
    cycle = knobs["pass_cycle"]
    if not isinstance(cycle, str):
        raise ValueError(f"pass_cycle must be 'standard' or directions separated by slashes, got {cycle!r}")
    knobs["pass_cycle"] = parse_pass_cycle(cycle.replace("/", ","))  # commas too (a command line's)
    rules = rules_or_knobs(None, knobs)
    if (rules.target_score or 0) > MAX_TARGET_SCORE:
        raise ValueError(
            f"target_score must be at most {MAX_TARGET_SCORE:,} in the OpenSpiel game (its length is counted in "
            f"32-bit ints), got {rules.target_score}"
        )
    return rules


def parameters(rules: HeartsRules) -> dict[str, Any]:
    """The game parameters of ``rules``: ``pyspiel.load_game(GAME_NAME, parameters(rules))``. They
    are the game's own parameters (``get_parameters()``, its string): every parameter as its rules
    read it (``pass_cycle`` "standard" for the standard cycle, else the directions with slashes)."""
    cycle = rules.pass_cycle or ()
    text = "standard" if cycle == standard_pass_cycle(rules.num_players) else "/".join(cycle)
    return rules.to_dict() | {"pass_cycle": text, "target_score": rules.target_score or 0}


def max_hands(rules: HeartsRules) -> int:
    """The hands after which a game stops: one without a target; else as many as it takes the
    totals' sum, growing by at least the points of a hand without a moon, to put one total at
    the target."""
    if rules.target_score is None:
        return 1
    fewest = rules.moon_points + (JD_POINTS * rules.decks if rules.jack_of_diamonds else 0)
    return math.ceil(rules.num_players * rules.target_score / fewest)


def game_info(rules: HeartsRules) -> pyspiel.GameInfo:
    """OpenSpiel's sizes and bounds of a game of ``rules``."""
    hands = max_hands(rules)
    # Before its last hand every total is below the target; a hand adds at most a moon to a seat.
    highest = (rules.target_score - 1 if rules.target_score else 0) + rules.moon_points
    lowest_hand = (JD_POINTS * rules.decks if rules.jack_of_diamonds else 0) - (
        rules.moon_points if rules.moon != "add_to_others" else 0
    )
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_CARDS,
        max_chance_outcomes=NUM_CARDS,
        num_players=rules.num_players,
        min_utility=float(-highest),
        max_utility=float(-hands * lowest_hand),
        utility_sum=None,
        max_game_length=hands * rules.num_players * (rules.pass_count + rules.hand_size),
    )


def _game_type(reward_model: pyspiel.GameType.RewardModel) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Hearts (hearts_env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=reward_model,
        max_num_players=max(high for _, high in cards.PLAYERS_BY_DECKS.values()),
        min_num_players=min(low for low, _ in cards.PLAYERS_BY_DECKS.values()),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=PARAMETERS,
    )


GAME_TYPE = _game_type(pyspiel.GameType.RewardModel.REWARDS)
"""The type registered (a game of several hands: rewards at every hand's end)."""
ONE_HAND_TYPE = _game_type(pyspiel.GameType.RewardModel.TERMINAL)
"""The type of a game of one hand (``target_score`` 0): rewards only at its end, as OpenSpiel's
``hearts`` declares (its ``MCTSBot`` plays only such games)."""


def game_type(rules: HeartsRules) -> pyspiel.GameType:
    """The OpenSpiel type of a game of ``rules``: ``ONE_HAND_TYPE`` without a target, else ``GAME_TYPE``."""
    return ONE_HAND_TYPE if rules.target_score is None else GAME_TYPE


class _Table:
    """What every state of one game shares and never changes: the rules, the core state before
    the first deal, the deck, the observation layouts. ``clone()`` deep-copies a state's
    attributes and ``serialize()`` pickles them: a table stays one object, made again from its
    rules."""

    def __init__(self, rules: HeartsRules) -> None:
        P = rules.num_players
        self.rules = rules
        self.opening = core.new_games(rules, batch_size=1, seed=0, history=True)  # its deal is replaced
        self.copies = np.bincount(cards.deck(P, rules.decks), minlength=NUM_CARDS)  # copies of each card
        self.copies_list = self.copies.tolist()  # as Python ints: a tenth of the time of numpy's scalars
        self.deck_left = {card: n for card, n in enumerate(self.copies_list) if n}  # a deal's start
        self.no_rewards = (0.0,) * P
        self.after_step = self.opening.scalar_reader("to_play", "phase", "hand_over", "hand_number", "legal")
        self.to_act = self.opening.scalar_reader("to_play", "legal")
        self.deck_size = int(self.copies.sum())
        self.seated = P * rules.hand_size  # the cards dealt to the seats; the rest go to the kitty
        self.max_hands = max_hands(rules)
        self.layouts = {history: ObservationLayout(rules, history=history) for history in (False, True)}

    def __deepcopy__(self, memo: dict[int, Any]) -> _Table:
        return self

    def __reduce__(self) -> tuple[Callable[[HeartsRules], _Table], tuple[HeartsRules]]:
        return _table, (self.rules,)


@functools.cache
def _table(rules: HeartsRules) -> _Table:
    return _Table(rules)


class HeartsGame(pyspiel.Game):
    """The game of one set of parameters (see the module docstring); ``pyspiel.load_game`` makes it."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        rules = rules_from_parameters(dict(params or {}))
        super().__init__(game_type(rules), game_info(rules), parameters(rules))
        self.table = _table(rules)
        self.belief: Callable[[InfoSet], np.ndarray] | None = None
        """The world sampler's belief for an info set, for ``resample_from_infostate`` (None: uniform)."""

    @property
    def rules(self) -> HeartsRules:
        return self.table.rules

    def new_initial_state(self) -> HeartsState:
        return HeartsState(self)

    def max_chance_nodes_in_history(self) -> int:
        return self.table.max_hands * self.table.deck_size

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Mapping[str, Any] | None = None
    ) -> HeartsObserver:
        """The observer of one seat: the information state (``perfect_recall``) or the observation."""
        if isinstance(iig_obs_type, Mapping):  # OpenSpiel's default observer passes only its parameters
            iig_obs_type, params = None, iig_obs_type
        return HeartsObserver(self.table, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class HeartsState(pyspiel.State):
    """A state of the game: a one-game core ``State`` (``core_state``), and during a deal the
    cards dealt so far."""

    def __init__(self, game: HeartsGame) -> None:
        super().__init__(game)
        table = self._table = game.table
        self._data = table.opening.data  # the core state's bytes; every change makes new ones
        self._legal = 0  # the seat to act's legal cards (bits): 0 during a deal and at the end
        self._dealt: list[int] | None = []  # the cards dealt so far while a deal is under way
        self._left = dict(table.deck_left)  # card -> its copies left to deal (during a deal), none left: out
        self._rewards = table.no_rewards  # of the last decision
        self._player = CHANCE
        self._hand_start = (0, self._data.tobytes(), self._rewards)  # the hand under way: its first move, core, rewards
        self._forwarding = False  # recording a history without playing it (``_replayed``)

    @property
    def core_state(self) -> core.State:
        """The core ``State`` (a batch of one game). During a deal it has opened the hand with a
        deal of its own, which the chance nodes' replaces."""
        return self._table.opening.with_data(self._data)

    def current_player(self) -> int:
        return self._player

    def is_terminal(self) -> bool:
        return self._player == TERMINAL

    def between_hands(self) -> bool:
        """A deal is under way, or the game stopped after its most hands: the core holds no hand."""
        return self._dealt is not None or (self._player == TERMINAL and not self.core_state.done[0])

    def _legal_actions(self, player: int) -> list[int]:
        return bits_to_cards(self._legal)

    # pyspiel's ``legal_actions`` and ``is_chance_node``, answered here for Python callers (OpenSpiel's
    # C++ asks ``_legal_actions`` and ``current_player``): the same answers, without a round trip
    # through C++ and back on every call.
    def legal_actions(self, player: int | None = None) -> list[int]:
        if self._player == TERMINAL:
            return []
        if self._player == CHANCE:  # any player's, as pyspiel's
            return list(self._left)
        if player is None or player == self._player:
            return bits_to_cards(self._legal)
        if player < 0:
            raise pyspiel.SpielError(f"Called LegalActions for pseudo-player {player}")
        return []

    def is_chance_node(self) -> bool:
        return self._player == CHANCE

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = 1 / (self._table.deck_size - len(self._dealt or ()))  # n * p is n / total: n is 1 or 2
        return [(card, n * p) for card, n in self._left.items()]

    def _apply_action(self, action: int) -> None:
        if self._forwarding:
            return
        if self._dealt is not None:
            self._deal(action)
            return
        if self._player == TERMINAL:
            raise ValueError("the game is over")
        table, data = self._table, self._data.copy()
        after = table.opening.with_data(data)
        try:
            core.step_in_place(after, _ACTIONS[action] if 0 <= action < NUM_CARDS else np.array([action]))
        except core.IllegalMoveError as error:
            raise ValueError(error.describe()) from None
        self._data = data
        to_play, phase, hand_over, hand_number, legal = table.after_step(data)
        self._rewards = tuple(float(-p) for p in after.last_hand_points[0]) if hand_over else table.no_rewards
        if phase == GAME_OVER or (hand_over and hand_number > table.max_hands):
            self._player, self._legal = TERMINAL, 0
        elif hand_over:
            self._dealt, self._left, self._player, self._legal = [], dict(table.deck_left), CHANCE, 0
            self._hand_start = (self.move_number() + 1, data.tobytes(), self._rewards)
        else:
            self._player, self._legal = to_play, legal

    def _deal(self, card: int) -> None:
        table = self._table
        if not 0 <= card < NUM_CARDS:
            raise ValueError(f"deal: action {card} is not a card id (0..{NUM_CARDS - 1})")
        left = self._left.get(card)
        if left is None:
            if not table.copies_list[card]:
                raise ValueError(
                    f"deal: {card_name(card)} is not in this table's deck (the {table.deck_size} cards of "
                    f"{table.rules.num_players} players, docs/rules.md)"
                )
            raise ValueError(f"deal: {card_name(card)} is dealt already")
        dealt = self._dealt
        assert dealt is not None  # a deal is under way (the caller's test)
        dealt.append(card)
        if left > 1:
            self._left[card] = left - 1
        else:
            del self._left[card]
        if len(dealt) < table.deck_size:
            return
        opened = core.deal_hands(self.core_state, self._deal_row(dealt))
        self._data, self._dealt = opened.data, None
        self._player, self._legal = table.to_act(opened.data)

    def _deal_row(self, dealt: list[int]) -> np.ndarray:
        """(1, 52 * decks): the place of each card (``core.new_games``' ``deals``) of a deal in order."""
        rules = self._table.rules
        row = np.full(NUM_CARDS * rules.decks, -1)
        for k, card in enumerate(dealt):
            slot = card + NUM_CARDS if row[card] != -1 else card  # the second copy (two decks)
            row[slot] = k % rules.num_players if k < self._table.seated else KITTY
        return row[None]

    def rewards(self) -> list[float]:
        return list(self._rewards)

    def returns(self) -> list[float]:
        return [float(-total) for total in self.core_state.scores[0]]

    def _action_to_string(self, player: int, action: int) -> str:
        return f"deal {card_name(action)}" if player == CHANCE else card_name(action)

    def __str__(self) -> str:
        if self.between_hands():
            return self._between_hands_text(range(self._table.rules.num_players))
        return render_game(self.core_state)

    # ---- What one seat sees

    def seat_text(self, player: int, history: bool) -> str:
        """The table as ``player`` sees it (see the module docstring); ``history`` adds the hand's
        completed tricks (the information-state string)."""
        if self.between_hands():
            return self._between_hands_text([player])
        state = self.core_state
        info = infoset(state, player)
        P = state.num_players
        lines = [f"seat {player}'s view", render_game(state, face_up=[player])]
        offset = int(info.pass_offset[0])
        if offset and info.phase[0] == PLAY:
            lines.append(f"passed to seat {(player + offset) % P}: {format_cards(_pile(info, 'passed'))}")
            lines.append(f"received from seat {(player - offset) % P}: {format_cards(_pile(info, 'received'))}")
        if history:
            for h in range(int(info.tricks_played[0])):
                order = [(int(info.trick_leaders[0, h]) + i) % P for i in range(P)]
                played = " ".join(f"{(player + r) % P}:{card_name(info.tricks[0, h, r])}" for r in order)
                lines.append(f"trick {h + 1}: {played}")
        return "\n".join(lines)

    def _between_hands_text(self, seats: range | list[int]) -> str:
        state, P = self.core_state, self._table.rules.num_players
        totals = " ".join(f"{s}:{int(t)}" for s, t in enumerate(state.scores[0]))
        if self._dealt is None:
            return f"game over: stopped after {self._table.max_hands} hands, the most it plays\ntotals {totals}"
        dealing = f"{len(self._dealt)} of {self._table.deck_size} cards dealt"
        lines = [f"hand {int(state.hand_number[0])}: dealing, {dealing}", f"totals {totals}"]
        for seat in seats:
            held = [c for k, c in enumerate(self._dealt) if k < self._table.seated and k % P == seat]
            lines.append(f"seat {seat}: {format_cards(held)}")
        return "\n".join(lines)

    # ---- Resampling what a seat cannot see

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> HeartsState:
        """A state ``player_id`` cannot tell from this one, its hidden cards drawn anew (see the
        module docstring) from ``probability_sampler()``'s number in [0, 1): the history of this
        one to the hand under way, then that hand replayed with the new deal and passes."""
        u = probability_sampler()
        if isinstance(u, bool) or not isinstance(u, (int, float, np.floating)) or not 0 <= u <= 1:
            raise ValueError(f"probability_sampler must give a number in [0, 1), got {u!r:.40}")
        rng = np.random.default_rng(int(u * 2**53))
        if self._player == TERMINAL:
            return self.clone()
        start = self._hand_start[0]
        steps = [(step.player, step.action) for step in self.full_history()[start:]]
        for _ in range(RESAMPLE_TRIES):
            hand = self._resampled_hand(player_id, steps, rng)
            try:
                other = self._replayed(start, hand)
            except ValueError:  # a card played this hand the world makes illegal (see the module docstring)
                continue
            if other._player == self._player:  # else the lowest club is elsewhere (the first lead to come)
                return other
        return self.clone()

    def _replayed(self, start: int, actions: list[int]) -> HeartsState:
        """A state of this history to move ``start`` (the hand under way opened), then ``actions``
        applied: the state a replay of its ``history()`` gives, without playing the earlier hands again."""
        other = HeartsState(self.get_game())
        if start:
            other._forwarding = True  # the history recorded (with its players), nothing played
            for step in self.full_history()[:start]:
                other._player = step.player
                other.apply_action(step.action)
            other._forwarding = False
            _, data, other._rewards = other._hand_start = self._hand_start
            other._data = np.frombuffer(data, np.uint8).reshape(1, -1).copy()
            other._player = CHANCE
        for action in actions:
            other.apply_action(action)
        return other

    def _resampled_hand(self, player: int, steps: list[tuple[int, int]], rng: np.random.Generator) -> list[int]:
        """The actions of the hand under way (``steps``: its (player, action) so far) in a world
        drawn anew for ``player``: the deal's other places and the other seats' picks anew, in
        new orders; ``player``'s own cards in their order, the cards played as they were."""
        if self._dealt is not None:
            return self._redealt(player, rng)
        table, P = self._table, self._table.rules.num_players
        info = infoset(self.core_state, player)
        dealt, picks = self._play_world(info, steps, rng) if info.phase[0] == PLAY else self._pass_world(info, rng)
        deal = np.array([action for _, action in steps[: table.deck_size]])
        k = np.arange(table.deck_size)
        for place in range(P + 1):
            if place != player:
                at = (k < table.seated) & (k % P == place) if place < P else k >= table.seated
                deal[at] = rng.permutation(_pile_of(dealt[place]))
        queues = [rng.permutation(_pile_of(picks[seat])).tolist() for seat in range(P)]
        picked = int(picks.sum())  # the steps of the pass so far
        rest = [
            queues[seat].pop() if i < picked and seat != player else action
            for i, (seat, action) in enumerate(steps[table.deck_size :])
        ]
        return deal.tolist() + rest

    def _redealt(self, player: int, rng: np.random.Generator) -> list[int]:
        """The deal so far with the other places' cards drawn anew from the copies not dealt to ``player``."""
        dealt = np.array(self._dealt, np.int64)
        k = np.arange(len(dealt))
        mine = (k < self._table.seated) & (k % self._table.rules.num_players == player)
        pool = np.repeat(np.arange(NUM_CARDS), self._table.copies - np.bincount(dealt[mine], minlength=NUM_CARDS))
        dealt[~mine] = rng.permutation(pool)[: int((~mine).sum())]
        return dealt.tolist()

    def _play_world(
        self, info: InfoSet, steps: list[tuple[int, int]], rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """A play-phase world: (P + 1, 52) the copies of each card dealt to each seat (the kitty
        last) and (P, 52) those each seat passed. The hands held now are the engine's sampler's;
        with the cards played they make what each seat held after the pass. The passes ``info``'s
        seat knows (its own, and the one it received) stay; every other seat passed cards drawn
        from what its receiver held after the pass."""
        table, rules = self._table, self._table.rules
        P, seat, offset = rules.num_players, int(info.seat[0]), int(info.pass_offset[0])
        belief = getattr(self.get_game(), "belief", None)  # relative seats (and with two decks the kitty):
        world = sample_worlds(info, 1, rng, belief=None if belief is None else belief(info))[0, 0]
        if rules.decks == 2:  # the copies each seat holds once, and twice
            held = bits_to_mask(world[0, :P]).astype(np.int64) + bits_to_mask(world[1, :P])
        else:
            held = bits_to_mask(world).astype(np.int64)
        held = np.roll(held, seat, axis=0)  # absolute seats
        passing = P * rules.pass_count if offset else 0
        known = (seat, (seat - offset) % P)  # the seat's pass and the one it received
        picks, played = np.zeros((P, NUM_CARDS), np.int64), np.zeros((P, NUM_CARDS), np.int64)
        for i, (who, card) in enumerate(steps[table.deck_size :]):
            if i >= passing:
                played[who, card] += 1
            elif who in known:
                picks[who, card] += 1
        after_pass = held + played
        for who in range(P):
            if passing and who not in known:
                pool = _pile_of(after_pass[(who + offset) % P])
                picks[who] = np.bincount(rng.choice(pool, rules.pass_count, replace=False), minlength=NUM_CARDS)
        dealt = np.zeros((P + 1, NUM_CARDS), np.int64)
        dealt[:P] = after_pass - np.roll(picks, offset, axis=0) + picks  # less what it received, plus what it passed
        dealt[P] = table.copies - after_pass.sum(axis=0)  # the kitty (nothing with one deck)
        return dealt, picks

    def _pass_world(self, info: InfoSet, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """A pass-phase world: (P + 1, 52) the copies of each card dealt to each seat (the kitty
        last) and (P, 52) those each seat picked so far: the copies ``info``'s seat has not seen
        dealt anew to the others (and the kitty), each seat's picks so far drawn from its new hand."""
        state, rules, player = self.core_state, self._table.rules, int(info.seat[0])
        P, two = rules.num_players, rules.decks == 2
        held = np.zeros((P + 1, NUM_CARDS), np.int64)  # copies each place holds, the kitty last
        picked = np.zeros((P, NUM_CARDS), np.int64)  # copies each seat picked to pass
        for field, counts in (("hands", held), ("passed", picked)):  # the seat's own stay
            counts[player] = bits_to_mask(getattr(state, field)[0, player]).astype(np.int64)
            if two:
                counts[player] += bits_to_mask(getattr(state, field + "2")[0, player])
        unseen = np.array(pile_cards(info.unseen[0], info.unseen2[0]), np.int64)
        deal = iter(np.split(rng.permutation(unseen), np.arange(1, P) * rules.hand_size))
        for seat in (s for s in range(P) if s != player):
            cards_ = next(deal)
            picks = int(np.bitwise_count(state.passed[0, seat])) + (
                int(np.bitwise_count(state.passed2[0, seat])) if two else 0
            )
            chosen = np.zeros(len(cards_), bool)
            chosen[rng.choice(len(cards_), picks, replace=False)] = True
            np.add.at(held[seat], cards_[~chosen], 1)
            np.add.at(picked[seat], cards_[chosen], 1)
        np.add.at(held[P], next(deal), 1)  # the kitty: the rest (nothing with one deck)
        held[:P] += picked  # what each seat was dealt
        return held, picked


def _pile_of(counts: np.ndarray) -> np.ndarray:
    """The card ids of (52,) copies of each card, a card held twice twice."""
    return np.repeat(np.arange(NUM_CARDS), counts)


def _pile(info: InfoSet, field: str) -> list[int]:
    """The cards of an info set's pile (with two decks a card held twice shows twice)."""
    return pile_cards(getattr(info, field)[0], getattr(info, field + "2")[0])


class HeartsObserver:
    """OpenSpiel's observer of one seat (``make_observation``, and the states' tensors and
    strings): ``tensor`` the observation vector as float32 and ``dict`` its named sections."""

    def __init__(
        self, table: _Table, iig_obs_type: pyspiel.IIGObservationType, params: Mapping[str, Any] | None
    ) -> None:
        if params:
            raise ValueError(f"the {GAME_NAME} observer takes no parameters, got {dict(params)}")
        if not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError(
                f"the {GAME_NAME} observer shows one seat's view (public information and the seat's own), "
                f"not {iig_obs_type}"
            )
        self.history = iig_obs_type.perfect_recall
        self.layout = table.layouts[self.history]
        self.tensor = np.zeros(self.layout.size, np.float32)
        self.dict = self.layout.split(self.tensor)
        self._vector = np.zeros((1, self.layout.size), np.uint8)

    def set_from(self, state: HeartsState, player: int) -> None:
        if state.between_hands():
            self.tensor.fill(0)
            return
        observe(state.core_state, player, self.layout, out=self._vector)
        self.tensor[:] = self._vector[0]

    def string_from(self, state: HeartsState, player: int) -> str:
        return state.seat_text(player, self.history)


pyspiel.register_game(GAME_TYPE, HeartsGame)

__all__ = [
    "GAME_NAME",
    "GAME_TYPE",
    "MAX_TARGET_SCORE",
    "ONE_HAND_TYPE",
    "PARAMETERS",
    "RESAMPLE_TRIES",
    "HeartsGame",
    "HeartsObserver",
    "HeartsState",
    "game_info",
    "game_type",
    "max_hands",
    "parameters",
    "rules_from_parameters",
]
