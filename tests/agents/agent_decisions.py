"""Recorded decisions of the rule-based agents, to hold their compiled rules to the same cards.

``agent_decisions.npz`` holds, for each configuration of ``CONFIGS`` (rules, heuristic knobs), the
first deals of ``GAMES`` games (the seat of each card), their game totals before hand 1 (with a
target score: what keeping the QS depends on), the cards played in hand 1 (a mix of
heuristic, simple and random play, so the positions range from sensible to wild) and, at every
step of it, the card ``HeuristicPolicy(**knobs)`` and ``SimplePolicy()`` chose for the seat to act.
The positions are rebuilt from the deals and the moves, so the file does not depend on how the
core lays out its state or deals later hands.

    python tests/agents/agent_decisions.py     # re-record (only when a rule change is meant)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from hearts_env import HeartsRules
from hearts_env.engine.cards import NUM_CARDS, NUM_RANKS
from hearts_env.engine.core import State, bits_to_mask, legal_mask, new_games, sample_actions, step
from hearts_env.engine.infoset import infoset

PATH = Path(__file__).with_name("agent_decisions.npz")
GAMES = 64

ODD_WEIGHTS = dict(  # non-round numbers: float rounding and ties must match too
    pass_short=2.7,
    pass_long_low=7.3,
    pass_heart=4.1,
    pass_honour_kept=5.9,
    dump_heart=6.6,
    dump_master=2.2,
    dump_exit=5.1,
    dump_exit_heart=3.7,
    dump_spade_honour=33.3,
    dump_singleton=1.3,
    lead_share=11.7,
    lead_sure_win=41.1,
    lead_void=4.4,
    lead_spades_with_queen=27.5,
    lead_spades_with_honour=9.1,
    lead_heart=-3.3,
    lead_length=1.7,
    moon_slack=2,
    moon_losers=4,
)
FLAT_WEIGHTS = dict(  # many equal scores: the tie-breaks decide
    pass_short=1.0,
    pass_long_low=1.0,
    pass_heart=1.0,
    pass_honour_kept=1.0,
    dump_heart=1.0,
    dump_master=1.0,
    dump_exit=1.0,
    dump_exit_heart=1.0,
    dump_spade_honour=1.0,
    dump_singleton=1.0,
    lead_share=1.0,
    lead_sure_win=1.0,
    lead_void=1.0,
    lead_spades_with_queen=1.0,
    lead_spades_with_honour=1.0,
    lead_heart=0.0,
    lead_length=1.0,
    moon_slack=5,
    moon_losers=6,
)

# name: (rules knobs, heuristic knobs, deal): "moon" deals give seat 0 mostly high cards.
CONFIGS: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {
    "p4": (dict(), dict(), "random"),
    "p4_right": (dict(pass_cycle=["right"]), dict(), "random"),
    "p4_across_jd": (dict(pass_cycle=["across"], jack_of_diamonds=True), dict(), "random"),
    "p4_no_pass": (dict(pass_count=0), dict(), "random"),
    "p4_none_target": (dict(pass_cycle=["none"], target_score=10), dict(), "random"),
    "p4_jd_target": (dict(jack_of_diamonds=True, target_score=20), dict(), "random"),
    "p4_open_first": (dict(no_points_on_first_trick=False, queen_breaks_hearts=False), dict(), "random"),
    "p4_moon": (dict(), dict(), "moon"),
    "p4_moon_jd_right": (dict(jack_of_diamonds=True, pass_cycle=["right"]), dict(), "moon"),
    "p4_moon_knobs": (dict(target_score=26), dict(moon_alarm=2, safe_ratio=1.0), "moon"),
    "p4_no_moon": (dict(), dict(shoot_moon=False, moon_alarm=3), "moon"),
    "p4_guard3_top2": (dict(), dict(spade_guard=3, keep_top_hearts=2), "random"),
    "p4_guard6_top0": (dict(pass_cycle=["right"]), dict(spade_guard=6, keep_top_hearts=0), "random"),
    "p4_top4_ratio4": (dict(jack_of_diamonds=True), dict(keep_top_hearts=4, safe_ratio=4.0, moon_alarm=14), "random"),
    "p4_odd": (dict(jack_of_diamonds=True, target_score=30), dict(weights=ODD_WEIGHTS), "random"),
    "p4_odd_moon": (dict(), dict(weights=ODD_WEIGHTS, safe_ratio=1.7), "moon"),
    "p4_flat": (dict(), dict(weights=FLAT_WEIGHTS), "random"),
    "p4_flat_jd": (dict(jack_of_diamonds=True, pass_cycle=["right"]), dict(weights=FLAT_WEIGHTS), "moon"),
    "p3_jd": (dict(num_players=3, jack_of_diamonds=True), dict(), "random"),
    "p3_moon": (dict(num_players=3, target_score=18), dict(spade_guard=5), "moon"),
    "p5": (dict(num_players=5, pass_count=2, queen_breaks_hearts=False), dict(), "random"),
    "p5_moon_jd": (dict(num_players=5, jack_of_diamonds=True), dict(weights=ODD_WEIGHTS), "moon"),
    "p6": (dict(num_players=6, no_points_on_first_trick=False, pass_cycle=["right"]), dict(), "random"),
    "p6_moon": (dict(num_players=6, target_score=12), dict(keep_top_hearts=1), "moon"),
    "p7_jd": (dict(num_players=7, jack_of_diamonds=True, pass_count=1), dict(moon_alarm=4), "random"),
    "p7_moon": (dict(num_players=7, pass_count=0), dict(weights=FLAT_WEIGHTS), "moon"),
}


def make_rules(knobs: dict[str, Any]) -> HeartsRules:
    knobs = dict(knobs)
    if "pass_cycle" in knobs:
        knobs["pass_cycle"] = tuple(knobs["pass_cycle"])
    return HeartsRules(**{"target_score": None, **knobs})


def make_heuristic(knobs: dict[str, Any]):
    from hearts_env.agents.rule_based.heuristic import HeuristicPolicy, Weights

    knobs = dict(knobs)
    if "weights" in knobs:
        knobs["weights"] = Weights(**knobs["weights"])
    return HeuristicPolicy(**knobs)


def deals(rules: HeartsRules, kind: str, rng: np.random.Generator) -> np.ndarray:
    """(GAMES, 52) int8: the seat dealt each card (-1: out of the deck)."""
    hands = new_games(rules, batch_size=GAMES, seed=int(rng.integers(2**31))).hands
    seats = np.argmax(bits_to_mask(hands), axis=1).astype(np.int8)  # (G, 52)
    seats[~bits_to_mask(np.bitwise_or.reduce(hands, axis=1))] = -1
    if kind == "moon":  # seat 0 gets the cards that rank highest after some noise
        rank = np.arange(NUM_CARDS) % NUM_RANKS
        for g in range(GAMES):
            dealt = np.flatnonzero(seats[g] >= 0)
            keys = rank[dealt] + rng.normal(0, 4, len(dealt))
            order = dealt[np.argsort(-keys, kind="stable")]
            size = rules.hand_size
            others = rng.permutation(order[size:])
            seats[g, order[:size]] = 0
            seats[g, others] = np.repeat(np.arange(1, rules.num_players), size).astype(np.int8)
    return seats


def steps_of_hand_one(rules: HeartsRules) -> int:
    passing = rules.pass_count and rules.pass_direction(1) != "none"
    return rules.num_players * (rules.pass_count if passing else 0) + rules.num_players * rules.hand_size


def start(rules: HeartsRules, dealt: np.ndarray, scores: np.ndarray, history: bool) -> State:
    return new_games(rules, deals=dealt, history=history).replace(scores=scores)


def positions(rules: HeartsRules, dealt: np.ndarray, scores: np.ndarray, moves: np.ndarray, history: bool):
    """(t, state, info, mask) at every step of hand 1, the moves played in between."""
    state = start(rules, dealt, scores, history)
    for t in range(moves.shape[1]):
        yield t, state, infoset(state), legal_mask(state)
        state = step(state, moves[:, t].astype(np.int64))


def record(path: Path = PATH) -> None:
    from hearts_env.agents.rule_based.simple import SimplePolicy

    simple = SimplePolicy()
    arrays: dict[str, np.ndarray] = {}
    for n, (name, (rule_knobs, knobs, kind)) in enumerate(CONFIGS.items()):
        rng = np.random.default_rng([2024, n])
        rules = make_rules(rule_knobs)
        heuristic = make_heuristic(knobs)
        dealt = deals(rules, kind, rng)
        T = steps_of_hand_one(rules)
        style = np.arange(GAMES) % 4  # 0 random, 1 half heuristic, 2 heuristic, 3 heuristic and simple
        moves = np.zeros((GAMES, T), np.int8)
        chosen = {"heuristic": np.zeros((GAMES, T), np.int8), "simple": np.zeros((GAMES, T), np.int8)}
        target = rules.target_score or 1
        scores = rng.integers(0, target, (GAMES, rules.num_players), dtype=np.int32) * (target > 1)
        state = start(rules, dealt, scores, n % 3 == 0)
        for t in range(T):
            info, mask = infoset(state), legal_mask(state)
            h, s = np.asarray(heuristic(info, mask)), np.asarray(simple(info, mask))
            chosen["heuristic"][:, t], chosen["simple"][:, t] = h, s
            u = rng.random(GAMES)
            play = np.where(
                (style == 2) | ((style == 1) & (u < 0.5)) | ((style == 3) & (u < 0.6)),
                h,
                np.where((style == 3), s, sample_actions(state, rng)),
            )
            moves[:, t] = play
            state = step(state, play)
        arrays[f"{name}/config"] = np.array(json.dumps([rule_knobs, knobs, n % 3 == 0]))
        arrays[f"{name}/deals"] = dealt
        arrays[f"{name}/scores"] = scores
        arrays[f"{name}/moves"] = moves
        arrays[f"{name}/heuristic"] = chosen["heuristic"]
        arrays[f"{name}/simple"] = chosen["simple"]
    np.savez_compressed(path, **arrays)


def load(path: Path = PATH) -> dict[str, dict[str, Any]]:
    """name -> rules, heuristic knobs, history flag, deals, moves and the recorded choices."""
    with np.load(path, allow_pickle=False) as data:
        names = sorted({key.split("/")[0] for key in data.files})
        out = {}
        for name in names:
            rule_knobs, knobs, history = json.loads(str(data[f"{name}/config"]))
            out[name] = dict(
                rules=make_rules(rule_knobs),
                knobs=knobs,
                history=history,
                **{field: data[f"{name}/{field}"] for field in ("deals", "scores", "moves", "heuristic", "simple")},
            )
    return out


if __name__ == "__main__":
    record()
    print(f"wrote {PATH} ({PATH.stat().st_size:,} bytes)")
