"""Play one seeded game among random players and print it hand by hand.

    hearts-demo --seed 0 --num-players 4
"""

from __future__ import annotations

import argparse

import numpy as np

from hearts_env import cards
from hearts_env.core import GAME_OVER, PASS, PLAY, new_games, sample_actions, step
from hearts_env.render import format_cards
from hearts_env.rules import HeartsRules


def play_and_print(rules: HeartsRules, seed: int) -> None:
    rng = np.random.default_rng(seed)
    state = new_games(rules, batch_size=1, seed=seed)
    hand_log: list[str] = []
    trick: list[str] = []
    tricks = 0
    while True:
        if state.tricks_played[0] == 0 and state.trick_size[0] == 0 and not hand_log:
            direction = rules.pass_direction(int(state.hand_number[0]))
            hand_log.append(f"=== Hand {state.hand_number[0]} (pass {direction}) ===")
            hand_log += [
                f"  seat {s} dealt: {format_cards(_cards(state.hands[0, s] | state.passed[0, s]))}"
                for s in range(rules.num_players)
            ]
        seat = int(state.to_play[0])
        phase = int(state.phase[0])
        action = sample_actions(state, rng)
        before = state
        state = step(state, action)
        card = cards.card_symbol(int(action[0]))
        if phase == PASS and state.phase[0] != PASS:
            hand_log += [f"  seat {s} passes {format_cards(_cards(before.passed[0, s]))}" for s in range(seat)]
            hand_log.append(f"  seat {seat} passes {format_cards(_cards(before.passed[0, seat] | 1 << int(action[0])))}")
        if phase == PLAY:
            trick.append(f"{seat}:{card}")
            if state.trick_size[0] == 0:  # the trick closed; its winner leads next
                tricks += 1
                hand_log.append(f"  trick {tricks:2d}: {' '.join(trick)} -> seat {state.last_trick_winner[0]}")
                trick = []
        if state.hand_over[0]:
            hand_log.append(f"  hand points: {state.last_hand_points[0].tolist()}  totals: {state.scores[0].tolist()}")
            print("\n".join(hand_log))
            hand_log, tricks = [], 0
        if state.phase[0] == GAME_OVER:
            break
    winners = np.flatnonzero(state.winners[0]).tolist()
    print(f"Game over after {state.hand_number[0]} hands. Final scores {state.scores[0].tolist()}; winner(s): {winners}")


def _cards(bits: int) -> list[int]:
    return [c for c in range(cards.NUM_CARDS) if int(bits) >> c & 1]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and the random players")
    parser.add_argument("--num-players", type=int, default=4, help="players, 3..7")
    parser.add_argument("--target-score", type=int, default=100, help="game ends when a total reaches this")
    args = parser.parse_args(argv)
    play_and_print(HeartsRules(num_players=args.num_players, target_score=args.target_score), args.seed)


if __name__ == "__main__":
    main()
