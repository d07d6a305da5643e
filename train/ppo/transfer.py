"""A trained network carried to another table: the warm start of ``--init-policy`` when the policy
was trained for another player count, deck count or JD rule (``hearts-train --num-players 5
--init-policy agents/policies/ppo``).

The hidden layers and the action head are copied as they are; the first layer is rebuilt for the
new table's observation (``hearts_env.engine.observation.ObservationLayout``) section by section.
A section both layouts have keeps its weights, which act on the scaled input (a fraction of the
moon's points, of the hand's tricks, ...), so a weight keeps its meaning from table to table.
Sections with a seat axis are relative to the observer and are mapped seat by seat: the observer,
its left-hand neighbour and its right-hand one keep their own weights and every seat between them
takes the source's nearest middle seat (at four players, the seat across). Sections the source
lacks (the second deck's copies, the pot, the kitty, the JD) start at zero weight: the network
first plays as if they were empty, and training learns them.
"""

from __future__ import annotations

import numpy as np

from hearts_env.agents.learned.trained import LAYOUT_KNOBS, MLPPolicy
from hearts_env.engine.observation import ObservationLayout


def seat_map(source_players: int, target_players: int) -> np.ndarray:
    """(target_players,) int: the source seat whose weights each target seat starts from (seats
    relative to the observer: 0 itself, 1 its left, the last its right)."""
    seats = np.minimum(np.arange(target_players), source_players - 2)
    seats[0], seats[-1] = 0, source_players - 1
    return seats


def carried_layers(network: MLPPolicy, target: ObservationLayout) -> list[tuple[np.ndarray, np.ndarray]]:
    """``network``'s layers (weight (out, in), bias) with the first one rebuilt for the observation
    ``target`` (the module's mapping); the scale to use is the target's own (``target.scale()``)."""
    if network.layout.history:
        raise ValueError(f"{network!r} reads the history sections: only a network without them is carried over")
    source, rules = network.layout, target.rules
    weight, bias = network.layers[0]
    carried = np.zeros((weight.shape[0], target.size), np.float32)
    seats = seat_map(network.rules.num_players, rules.num_players)
    for name, (where, shape) in target.sections.items():
        if name not in source.sections:
            continue
        from_where, from_shape = source.sections[name]
        block = weight[:, from_where].reshape(-1, *from_shape)
        if from_shape != shape:  # a seat axis first, the rest alike
            block = block[:, seats]
        carried[:, where] = block.reshape(len(carried), -1)
    return [(carried, bias.copy())] + [(w.copy(), b.copy()) for w, b in network.layers[1:]]


def same_table(network: MLPPolicy, target: ObservationLayout) -> bool:
    """Whether ``network`` reads the observation ``target``: the same layout options, its training
    rules agreeing with the target's in every knob the layout depends on (it plays them as it is)."""
    rules, own = target.rules, network.layout
    same_options = (own.history, own.trick_outcomes) == (target.history, target.trick_outcomes)
    return same_options and all(getattr(network.rules, knob) == getattr(rules, knob) for knob in LAYOUT_KNOBS)
