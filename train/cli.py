"""The trainers' command lines. Each imports its trainer when run, so that one library's absence
(Ray for RLlib, TorchRL) stops only its own command."""

from __future__ import annotations

from collections.abc import Sequence

from hearts_env.cli.commands import command
from hearts_env.train.config import parse_config


@command("hearts-train")
def ppo(argv: Sequence[str] | None = None) -> None:
    """``hearts-train`` (``python -m hearts_env.train.ppo``): PPO with sb3-contrib; prints the run folder."""
    from hearts_env.train.ppo import trainer

    print(trainer.main(trainer.parse_args(argv)))


@command("python -m hearts_env.train.ppo.family")
def family(argv: Sequence[str] | None = None) -> None:
    """A family of networks, one per table (``hearts_env.train.ppo.family``); prints the family folder."""
    from hearts_env.train.ppo import family as family_

    prog = "python -m hearts_env.train.ppo.family"
    print(family_.main(parse_config(family_.FamilyConfig, argv, prog, (family_.__doc__ or "").splitlines()[0])))


@command("python -m hearts_env.train.ppo.every_table")
def every_table(argv: Sequence[str] | None = None) -> None:
    """One network at every table at once (``hearts_env.train.ppo.every_table``); prints the run
    folder and each table's evaluation."""
    from hearts_env.train.ppo import every_table as recipe

    prog = "python -m hearts_env.train.ppo.every_table"
    config = parse_config(recipe.EveryTableConfig, argv, prog, (recipe.__doc__ or "").splitlines()[0])
    print("\n".join(recipe.report_lines(recipe.main(config))))


@command("hearts-train-rllib")
def rllib(argv: Sequence[str] | None = None) -> None:
    """``hearts-train-rllib``: PPO with RLlib; prints the run folder."""
    from hearts_env.train.libraries import rllib_ppo

    print(rllib_ppo.main(rllib_ppo.parse_args(argv)))


@command("hearts-train-torchrl")
def torchrl(argv: Sequence[str] | None = None) -> None:
    """``hearts-train-torchrl``: PPO with TorchRL; prints the run folder."""
    from hearts_env.train.libraries import torchrl_ppo

    print(torchrl_ppo.main(torchrl_ppo.parse_args(argv)))


@command("python -m hearts_env.train.distill.expert_iteration")
def expert_iteration(argv: Sequence[str] | None = None) -> None:
    """One round of expert iteration (``hearts_env.train.distill.expert_iteration``)."""
    from hearts_env.train.distill import expert_iteration as exit_

    prog = "python -m hearts_env.train.distill.expert_iteration"
    exit_.main(parse_config(exit_.ExItConfig, argv, prog, (exit_.__doc__ or "").splitlines()[0]))


@command("python -m hearts_env.train.distill.value_head")
def value_head(argv: Sequence[str] | None = None) -> None:
    """The search's value head (``hearts_env.train.distill.value_head``)."""
    from hearts_env.train.distill import value_head as head

    prog = "python -m hearts_env.train.distill.value_head"
    head.main(parse_config(head.ValueConfig, argv, prog, (head.__doc__ or "").splitlines()[0]))


@command("python -m hearts_env.train.distill.belief")
def belief(argv: Sequence[str] | None = None) -> None:
    """The searches' belief model (``hearts_env.train.distill.belief``)."""
    from hearts_env.train.distill import belief as model

    prog = "python -m hearts_env.train.distill.belief"
    model.main(parse_config(model.BeliefConfig, argv, prog, (model.__doc__ or "").splitlines()[0]))
