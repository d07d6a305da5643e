"""PPO with other libraries over the same tables and export format: RLlib (``rllib_ppo``,
``hearts-train-rllib``) and TorchRL (``torchrl_ppo``, ``hearts-train-torchrl``)."""
