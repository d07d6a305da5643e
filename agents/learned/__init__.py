"""Learned policies at play time: an exported network run with numpy alone (``trained``, its
compiled first layer in ``mlp_kernels``) and saved stable-baselines3 models read without
unpickling (``sb3_model``). The shipped weights are in ``agents/policies``."""
