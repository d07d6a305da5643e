"""A value head for ``pimc-ppo``: what the rest of a hand is worth to every seat when the policy
network plays it out, so a rollout can stop after a trick instead of playing every card.

``hearts_env.train.distill.value_head`` trains it, for one policy network, on the trick-boundary states
of that network's own rollouts in the search's sampled worlds, each labelled with the cards every
seat took by the hand's end; it is saved beside the network, in the policy folder (``value.npz``,
weights only, and ``value.json``).

It reads a position with every hand known, at a trick boundary, its seats counted from the seat
to lead: each seat's hand (P x 52), the cards that score each seat has taken (P x 14) and
whether hearts are broken. It answers 2P numbers: each seat's share of the points still to be
taken if no one shoots the moon (a softmax: the shares add up to what is left), and the odds of a
moon by each seat (a softmax over no moon and a moon by each seat that still can, no other seat
having taken points). ``expected_points`` turns them into the rules' hand scores: the points of
the shares where no one shoots, and for each possible moon what the table's moon rule
(``hand_score``, with the game's totals) makes of it. The shares carry no moon, so every moon
rule reads the same head.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hearts_env.agents.learned.mlp_kernels import SparseMLP
from hearts_env.agents.learned.trained import check_knobs, read_arrays, read_model_meta
from hearts_env.engine.cards import NUM_CARDS, POINT_BITS
from hearts_env.engine.core import State, hand_score, raw_points
from hearts_env.engine.rules import HeartsRules

WEIGHTS_FILE = "value.npz"
META_FILE = "value.json"
FORMAT = "hearts-value-v1"
"""The ``format`` entry of ``value.json`` this loader reads."""
RULE_KNOBS = ("num_players", "decks", "jack_of_diamonds", "queen_breaks_hearts")
"""Rules knobs that change what the rest of a hand is worth after its first trick: a value head
refuses tables that differ from its training table in any (the moon rule it applies itself)."""

_U64 = np.uint64
SCORED_CARDS = np.flatnonzero((POINT_BITS >> np.arange(NUM_CARDS, dtype=_U64)) & _U64(1))
"""The cards that score (the QS and the hearts), in card order: the taken cards the head reads."""
_ALL = np.arange(NUM_CARDS, dtype=_U64)


def feature_size(num_players: int) -> int:
    """Numbers in the features of one position at ``num_players`` seats."""
    return num_players * (NUM_CARDS + len(SCORED_CARDS)) + 1


def from_leader(a: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(B, P) per-seat entries reordered so that column 0 is ``seat``, then clockwise."""
    P = a.shape[1]
    return np.take_along_axis(a, (seat.astype(np.int64)[:, None] + np.arange(P)) % P, axis=1)


def features(state: State) -> np.ndarray:
    """(B, ``feature_size``) uint8: the head's view of trick-boundary states (the module docstring)."""
    seat = state.to_play
    hands = from_leader(state.hands, seat)
    taken = from_leader(state.taken, seat)
    bits = ((hands[:, :, None] >> _ALL) & _U64(1)).reshape(len(seat), -1)
    scored = ((taken[:, :, None] >> SCORED_CARDS.astype(_U64)) & _U64(1)).reshape(len(seat), -1)
    return np.concatenate([bits, scored, state.hearts_broken[:, None]], axis=1).astype(np.uint8)


class ValueHead:
    """An MLP (ReLU hidden layers) from ``features`` to the 2P outputs of the module docstring,
    trained at the table ``rules``; ``layers`` are (weight (out, in), bias (out,)) pairs."""

    def __init__(self, rules: HeartsRules, layers: list[tuple[np.ndarray, np.ndarray]]) -> None:
        self.rules, self.layers = rules, layers
        self._mlp = SparseMLP(layers)

    @classmethod
    def load(cls, folder: str | Path) -> ValueHead:
        """The head saved in a policy folder (``value.json``, ``value.npz``), read as untrusted
        files: ``ValueError`` naming the file and what is wrong."""
        folder = Path(folder)
        where = folder / META_FILE
        _, rules, layers = read_model_meta("value head", where, FORMAT)
        names = [f"{layer}.{part}" for layer in layers for part in ("weight", "bias")]
        path = folder / WEIGHTS_FILE

        def check(shapes: dict[str, tuple[int, ...]]) -> None:
            width = feature_size(rules.num_players)
            for layer in layers:
                w, b = shapes[f"{layer}.weight"], shapes[f"{layer}.bias"]
                if len(w) != 2 or w[0] < 1 or w[1] != width or b != (w[0],):
                    raise ValueError(
                        f"value head: {path}: layer {layer!r} has weight {w} and bias {b} after width {width}"
                    )
                width = w[0]
            if width != 2 * rules.num_players:
                raise ValueError(
                    f"value head: {path}: the last layer gives {width} numbers, not {2 * rules.num_players}"
                )

        arrays = read_arrays(path, names, check)
        return cls(rules, [(arrays[f"{layer}.weight"], arrays[f"{layer}.bias"]) for layer in layers])

    def check_rules(self, rules: HeartsRules) -> None:
        """``ValueError`` unless ``rules`` agree with the training table in every ``RULE_KNOBS``."""
        check_knobs("the value head", self.rules, rules, RULE_KNOBS)

    def outputs(self, x: np.ndarray) -> np.ndarray:
        """(B, 2P) float32: the share logits, then the moon logits, of (B, features) inputs."""
        return self._mlp(x)

    def outcome(self, x: np.ndarray, taken: np.ndarray, moon_points: int) -> tuple[np.ndarray, np.ndarray]:
        """The head's answer for (B, features) inputs whose seats (from the leader) have taken the
        raw points ``taken`` (B, P): (B, P) the points each seat ends with if no one shoots the
        moon, and (B, P) the chance that each seat shoots it."""
        out = self.outputs(x).astype(np.float64)
        P = taken.shape[1]
        left = moon_points - taken.sum(axis=1, keepdims=True)
        shares = np.exp(out[:, :P] - out[:, :P].max(axis=1, keepdims=True))
        no_moon = taken + left * shares / shares.sum(axis=1, keepdims=True)
        return no_moon, moon_chances(out[:, P:], taken)

    def expected_points(self, state: State, rules: HeartsRules, totals: np.ndarray) -> np.ndarray:
        """(B, P) float64: each seat's expected hand score (``rules``: the moon, with the game
        ``totals`` (B, P) before the hand) of trick-boundary states in the play phase."""
        P, B = state.num_players, state.batch_size
        leader = state.to_play.astype(np.int64)
        seats = (leader[:, None] + np.arange(P)) % P  # the absolute seat of each column
        taken = from_leader(raw_points(state.taken), leader).astype(np.float64)
        no_moon, moon = self.outcome(features(state), taken, rules.moon_points)
        # moons[b, j, i]: column i's hand score if column j takes every card that scores
        shot = np.zeros((B, P, P), _U64)
        np.put_along_axis(shot, seats[:, :, None], _U64(POINT_BITS), axis=2)
        moons = hand_score(rules, shot.reshape(B * P, P), np.repeat(totals, P, axis=0)).reshape(B, P, P)
        moons = np.take_along_axis(moons, np.broadcast_to(seats[:, None, :], (B, P, P)), axis=2)
        expected = (1 - moon.sum(axis=1, keepdims=True)) * no_moon + np.einsum("bj,bji->bi", moon, moons)
        return np.take_along_axis(expected, np.argsort(seats, axis=1), axis=1)


def moon_chances(logits: np.ndarray, taken: np.ndarray) -> np.ndarray:
    """(B, P) each seat's chance of shooting the moon: a softmax over no moon (logit 0) and a moon
    by each seat that still can (``logits`` (B, P)), no other seat having taken points (``taken``)."""
    can = taken.sum(axis=1, keepdims=True) == taken
    z = np.where(can, logits, -np.inf)
    top = np.maximum(z.max(axis=1, keepdims=True), 0)
    e = np.exp(z - top)
    return e / (e.sum(axis=1, keepdims=True) + np.exp(-top))
