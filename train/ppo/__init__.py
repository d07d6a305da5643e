"""PPO with sb3-contrib's MaskablePPO on this project's vector env (``hearts-train``): the run
(``trainer``: the settings, the network, the opponents), its rollouts and updates (``lean_loop``;
the policy's hot calls in ``masked_policy``), what runs during it (``callbacks``), the
weights in and out (``checkpoints``), behaviour cloning (``imitation``), the league of opponents
(``league``) and the critic that reads the global state (``privileged_critic``).
``python -m hearts_env.train.ppo --help`` lists every setting."""

from hearts_env.train.ppo.trainer import (
    Opponents,
    PPOConfig,
    build_model,
    imitate,
    load_policy,
    main,
    make_logger,
    make_opponents,
    parse_args,
    training_tables,
)

__all__ = [
    "Opponents",
    "PPOConfig",
    "build_model",
    "imitate",
    "load_policy",
    "main",
    "make_logger",
    "make_opponents",
    "parse_args",
    "training_tables",
]
