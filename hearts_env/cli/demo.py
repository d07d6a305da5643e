"""Play one seeded game among random players and print it hand by hand.

Usage: ``hearts-demo --seed 0 --num-players 5 --moon shooter_choice`` (every rules knob is a flag).
"""

from __future__ import annotations

import numpy as np

from hearts_env.cli.commands import Parser, command
from hearts_env.engine import cards, seeding
from hearts_env.engine.core import GAME_OVER, PASS, PLAY, State, bits_to_cards, new_games
from hearts_env.engine.rules import HeartsRules, add_rules_arguments, rules_from_args
from hearts_env.play import runner
from hearts_env.play.policy import RandomPolicy
from hearts_env.render import format_cards


def play_and_print(rules: HeartsRules, seed: int) -> None:
    """Play one game (batch of one) among uniformly random players, printing each hand."""
    state = new_games(rules, batch_size=1, seed=seed)
    _print_deal(state)
    trick: list[str] = []

    def tell(step: runner.Step) -> None:
        before, after, card = step.state, step.after, int(step.actions[0])
        if before.phase[0] == PASS and after.phase[0] == PLAY:  # the passes have moved
            for s in range(rules.num_players):
                print(f"  seat {s} passes {format_cards(bits_to_cards(after.passed[0, s]))}")
        if before.phase[0] == PLAY:
            trick.append(f"{before.to_play[0]}:{cards.card_symbol(card)}")
            if after.trick_size[0] == 0:  # the trick closed
                taker = after.last_trick_winner[0]
                print(
                    f"  trick: {' '.join(trick)} -> " + (f"seat {taker}" if taker >= 0 else "the pot (all cancelled)")
                )
                trick.clear()
        if after.hand_over[0]:
            print(f"  hand points {after.last_hand_points[0].tolist()}, totals {after.scores[0].tolist()}")
            if after.phase[0] != GAME_OVER:
                _print_deal(after)

    player = RandomPolicy(seed)  # one player object at every seat
    state = runner.play(state, [player] * rules.num_players, on_step=tell)
    winners = np.flatnonzero(state.winners[0]).tolist()
    print(f"Game over after {state.hand_number[0]} hands: final scores {state.scores[0].tolist()}, winners {winners}")


def _print_deal(state: State) -> None:
    hand_number = int(state.hand_number[0])
    print(f"=== Hand {hand_number} (pass {state.rules.pass_direction(hand_number)}) ===")
    for s in range(state.num_players):
        print(f"  seat {s} dealt: {format_cards(bits_to_cards(state.hands[0, s]))}")


@command("hearts-demo")
def main(argv: list[str] | None = None) -> None:
    parser = Parser(prog="hearts-demo", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seed", type=seeding.parse_seed, default=0, help="seed of the deals and the random players (default: 0)"
    )
    add_rules_arguments(parser)
    args = parser.parse_args(argv)
    if args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    play_and_print(rules_from_args(args, parser), args.seed)


if __name__ == "__main__":
    main()
