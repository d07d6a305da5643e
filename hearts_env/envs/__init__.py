"""The environments over the engine: PettingZoo AEC, Gymnasium single-agent and vector (over one
shared batch of tables), SB3 (its tables in shards, here or on Ray actors: ``sharded``), TorchRL
and RLlib. Their public paths are the faces at the top of
``hearts_env`` (``hearts_env.aec``, ``hearts_env.gym_env``, ...)."""
