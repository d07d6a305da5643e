"""Training: reinforcement-learning scripts over ``hearts_env`` (needs the ``train`` extra: torch,
stable-baselines3, sb3-contrib). ``python -m hearts_env.train.ppo --help`` lists the PPO options."""
