"""A privileged critic for ``hearts-train`` (``--critic state``): asymmetric actor-critic.

The value network reads the learner's observation and the global state beside it (every hand, the
passes in flight: ``hearts_env.engine.global_state``, seen from the learner's seat), while the policy
network reads the observation alone, as it will when it plays. A game this noisy hides most of
its outcome in the other hands; a critic that sees them predicts the return with less error, so
the advantages PPO follows carry less noise. The critic is used only in training: the export, the
snapshots and the arena read the policy network, which is the ordinary one.

The environments give dict observations ``{"observation", "state"}`` (``SB3VecEnv`` with
``global_state=True``), which SB3's rollout buffers store as they are; the features are the two
scaled vectors end to end, and the policy net takes the observation's part.
"""

from __future__ import annotations

import gymnasium
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor

from hearts_env.train.ppo.masked_policy import MaskedActorCritic


class ObservationAndState(BaseFeaturesExtractor):
    """The scaled observation, then the scaled global state (``GlobalStateLayout.scale()``).
    ``scale`` is the observation's, as in ``hearts_env.train.ppo.ScaledObservation`` (what an export holds)."""

    def __init__(self, observation_space: gymnasium.spaces.Dict, scale: list[float], state_scale: list[float]) -> None:
        super().__init__(observation_space, features_dim=len(scale) + len(state_scale))
        self.observation_size = len(scale)
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32))
        self.register_buffer("state_scale", torch.as_tensor(state_scale, dtype=torch.float32))

    def forward(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
        return torch.cat(
            [observations["observation"].float() * self.scale, observations["state"].float() * self.state_scale], 1
        )


class ActorSeesObservation(MlpExtractor):
    """SB3's separate policy and value MLPs over ``ObservationAndState``'s features, the policy MLP
    built for, and fed, the observation's part only (so it is the ordinary policy net)."""

    def __init__(self, observation_size: int, feature_dim: int, **kwargs) -> None:
        super().__init__(feature_dim, **kwargs)
        self.observation_size = observation_size
        self.policy_net = MlpExtractor(observation_size, **kwargs).policy_net

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.policy_net(features[:, : self.observation_size])


class PrivilegedCriticPolicy(MaskedActorCritic):
    """The masked actor-critic with ``ActorSeesObservation`` as its MLPs; give it
    ``features_extractor_class=ObservationAndState``."""

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = ActorSeesObservation(
            self.features_extractor.observation_size,
            self.features_dim,
            net_arch=self.net_arch,
            activation_fn=self.activation_fn,
            device=self.device,
        )
