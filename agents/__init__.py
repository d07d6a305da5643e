"""Agents that play Hearts: rule-based baselines, search, and trained policies.

Every agent is a ``hearts_env.play.policy.Policy``: called with the information sets of a batch of
games and their legal masks, it returns one card per game (a single game is a batch of one).
Agents see only their own seat's information. ``make_agent(name, **options)`` builds one by name;
a trained policy exported by ``train/ppo/trainer.py`` plays as ``make_agent("trained", path=run_dir)``,
and the shipped one (``agents/policies/ppo``) as ``make_agent("ppo")``; the shipped families of
networks, one per table (``agents/policies/ppo-family``, and its successors), as
``make_agent("ppo-family")``, ``make_agent("ppo-family-3")``; a saved stable-baselines3
model plays as ``make_agent("sb3", path="model.zip")`` (``hearts_env.agents.learned.sb3_model``: no
unpickling). A program outside (any language) plays over the bot protocol
(``docs/bot-protocol.md``) as ``make_agent("program", command="./mybot --level 3")``;
``hearts-bot AGENT`` serves these agents over it the other way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hearts_env.agents import kernel_cache  # noqa: F401  (first: where numba caches the agents' kernels)
from hearts_env.agents.bridges.program import ProgramPolicy
from hearts_env.agents.learned.family import SHIPPED_FAMILIES, shipped_family
from hearts_env.agents.learned.sb3_model import SB3Policy
from hearts_env.agents.learned.shared import shipped_one
from hearts_env.agents.learned.trained import TrainedPolicy, shipped_policy
from hearts_env.agents.rule_based.heuristic import HeuristicPolicy
from hearts_env.agents.rule_based.simple import SimplePolicy
from hearts_env.agents.search.pimc import PIMCPolicy, pimc_heuristic
from hearts_env.agents.search.pimc_ppo import PIMCPPOPolicy, pimc_ppo_one, searched_family
from hearts_env.play.agent_options import check_options
from hearts_env.play.policy import PhaseSplit, Policy, RandomPolicy

AGENTS: dict[str, Callable[..., Policy]] = {
    "random": RandomPolicy,
    "simple": SimplePolicy,
    "heuristic": HeuristicPolicy,
    "pimc": pimc_heuristic,  # heuristic passes and rollouts: the strong search baseline
    "pimc-random": PIMCPolicy,  # random rollouts: faster, weaker than the heuristic
    "pimc-ppo": PIMCPPOPolicy,  # the shipped ppo network's move ordering, rollouts and passes
    "trained": TrainedPolicy,  # a policy exported by train/ppo/trainer.py: trained:path=RUN_DIR
    "ppo": shipped_policy,  # the shipped trained policy, agents/policies/ppo
    # A network per table (3 to 7 players, two decks, the JD), agents/policies/NAME, and pimc-ppo guided by it.
    **{name: shipped_family(name) for name in SHIPPED_FAMILIES},
    **{f"pimc-{name}": searched_family(name) for name in SHIPPED_FAMILIES},
    # One network for every table (the rules among its inputs), agents/policies/ppo-one, and pimc-ppo guided by it.
    "ppo-one": shipped_one,
    "pimc-ppo-one": pimc_ppo_one,
    "program": ProgramPolicy,  # a bot program in any language, over the bot protocol: program:command=...
    "sb3": SB3Policy,  # a saved stable-baselines3 MaskablePPO model, read without unpickling: sb3:path=model.zip
    # Ablations of its passing: the same play after random or heuristic passes.
    "ppo-random-pass": lambda seed=None: PhaseSplit(RandomPolicy(seed), shipped_policy()),
    "ppo-heuristic-pass": lambda seed=None: PhaseSplit(HeuristicPolicy(), shipped_policy()),
}
"""Agent factories by name; each takes ``seed=`` and its own options as keywords."""


def make_agent(name: str, **options: Any) -> Policy:
    """The agent called ``name`` (see ``AGENTS``), built with ``options`` (e.g. ``seed=0``);
    ``ValueError`` naming an option its factory does not take."""
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(sorted(AGENTS))}")
    try:
        check_options(name, AGENTS[name], options)
    except ValueError as error:
        raise ValueError(f"agent {name!r}: {error}") from None
    return AGENTS[name](**options)
