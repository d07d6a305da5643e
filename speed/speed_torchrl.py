"""TorchRL speed: the batched environments of ``hearts_env.envs.torchrl`` against TorchRL's
``PettingZooWrapper`` over the AEC env (``raw_env``), all through TorchRL's ``rollout``, random
legal cards, whole games to 100, in one run.

An agent-step is one decision of one seat: the multi-agent env makes B of them per step (the
seat to act at each of its B tables), the wrapper one, ``HeartsLearnerEnv`` B learner decisions
(and the opponents' P - 1 more each, played inside the env and not counted). Two random policies
drive the batched multi-agent env: TorchRL's own (``rollout()`` without a policy: the action
spec's masked ``rand()``, a ``torch.multinomial`` over every seat of every table) and a masked
uniform draw for the seat to act only (``seat_to_act_random``). Rollouts run ``--steps`` steps a
call, each call going on from where the last stopped (finished tables reset by TorchRL as usual);
each rate is the median of ``--repeats`` timed calls, the contenders interleaved.

    python speed/speed_torchrl.py            # B = 256
    python speed/speed_torchrl.py --batch-size 1024
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import torch
from tensordict import TensorDictBase
from torchrl.envs import EnvBase
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType, step_mdp

from hearts_env.envs.aec import raw_env
from hearts_env.envs.torchrl import HeartsLearnerEnv, HeartsMultiAgentEnv


def seat_to_act_random(td: TensorDictBase) -> TensorDictBase:
    """A uniformly random legal card for the seat to act at each table (0 at the others)."""
    acting = td["agents", "mask"]
    legal = td["agents", "action_mask"][acting]  # (n, 52): the rows of the seats to act
    draw = torch.rand(len(legal), 1) * legal.sum(-1, keepdim=True)
    action = torch.zeros(acting.shape, dtype=torch.int64)
    action[acting] = (legal.cumsum(-1) <= draw).sum(-1)  # the index of the ceil(draw)-th legal card
    td["agents", "action"] = action
    return td


class Rollouts:
    """Timed ``rollout`` calls of one env, each going on from the last one's final state."""

    def __init__(self, env: EnvBase, steps: int, per_step: int, policy: Callable | None = None) -> None:
        self.env, self.steps, self.per_step, self.policy = env, steps, per_step, policy
        env.set_seed(0)
        self.td = env.reset()
        self.rates: list[float] = []

    def run(self) -> None:
        start = time.perf_counter()
        rollout = self.env.rollout(
            self.steps, self.policy, auto_reset=False, tensordict=self.td, break_when_any_done=False
        )
        self.td = self.env.maybe_reset(step_mdp(rollout[..., -1]))
        self.rates.append(self.steps * self.per_step / (time.perf_counter() - start))

    @property
    def rate(self) -> float:
        return statistics.median(self.rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch-size", type=int, default=256, help="tables of the batched envs (default: 256)")
    parser.add_argument("--steps", type=int, default=50, help="steps per rollout call (default: 50)")
    parser.add_argument("--wrapper-steps", type=int, default=500, help="steps per wrapper rollout (default: 500)")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls of each (default: 5)")
    args = parser.parse_args()
    B = args.batch_size
    torch.manual_seed(0)
    contenders = {
        "HeartsMultiAgentEnv, seat-to-act random": Rollouts(HeartsMultiAgentEnv(B), args.steps, B, seat_to_act_random),
        "HeartsMultiAgentEnv, TorchRL's random": Rollouts(HeartsMultiAgentEnv(B), args.steps, B),
        "HeartsLearnerEnv (learner steps), TorchRL's random": Rollouts(HeartsLearnerEnv(B), args.steps, B),
        "PettingZooWrapper(raw_env), TorchRL's random": Rollouts(
            PettingZooWrapper(raw_env(), use_mask=True, group_map=MarlGroupMapType.ALL_IN_ONE_GROUP),
            args.wrapper_steps,
            1,
        ),
    }
    for rollouts in contenders.values():
        rollouts.run()  # compiles, warms up; not timed
        rollouts.rates.clear()
    for _ in range(args.repeats):
        for rollouts in contenders.values():
            rollouts.run()
    wrapper = contenders["PettingZooWrapper(raw_env), TorchRL's random"].rate
    print(f"TorchRL rollouts, whole games, B = {B} (agent-steps per second, median of {args.repeats}):")
    for name, rollouts in contenders.items():
        print(f"  {name:52s} {rollouts.rate:>11,.0f}   {rollouts.rate / wrapper:7.0f}x the wrapper")


if __name__ == "__main__":
    main()
