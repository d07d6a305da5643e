"""sb3-contrib's masked actor-critic with its two hot calls done in a few tensor operations.

``MaskablePPO`` calls the policy's ``forward`` at every collection step and ``evaluate_actions`` on
every minibatch. sb3-contrib's versions build a ``MaskableCategorical`` each time: a ``torch``
distribution whose arguments are validated, whose logits are normalised once when it is made and
again when the mask is applied, and whose entropy takes a third pass. Here the masked logits are
normalised once for the log-probabilities (``log_softmax``) and once for the probabilities
(``softmax``: torch's ``exp`` of an illegal card's log-probability, far below float32's range,
takes a slow path, some 90 times the time of an ordinary one), and a card is drawn from the
cumulative probabilities with one uniform number a row (``torch.multinomial`` draws an exponential
number for every card and checks its input first): the same numbers as sb3-contrib's (illegal
cards get its logit, ``MASKED_LOGIT``, so their probability is 0), in less time
(``docs/speed.md``). Everything else (``predict``, ``get_distribution``, saving) is sb3-contrib's.
"""

from __future__ import annotations

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

MASKED_LOGIT = -1e8
"""The logit sb3-contrib gives illegal actions."""


class MaskedActorCritic(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with a lean ``forward`` and ``evaluate_actions``."""

    def forward(
        self, obs: torch.Tensor, deterministic: bool = False, action_masks: np.ndarray | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """A card per row (sampled, or the likeliest if ``deterministic``), the value and the card's
        log-probability, the mask applied."""
        logits, values = self._masked_logits(obs, action_masks)
        log_p = torch.log_softmax(logits, dim=-1)
        if deterministic:
            actions = log_p.argmax(dim=-1)
        else:  # by the inverse of the cumulative probabilities: one uniform number a row (multinomial draws 52)
            cumulative = torch.softmax(logits, dim=-1).cumsum(dim=-1)
            drawn = torch.rand(len(cumulative), 1, device=cumulative.device) * cumulative[:, -1:]
            actions = torch.searchsorted(cumulative, drawn, right=True).squeeze(-1)  # an illegal card adds no width
        return actions, values, log_p.gather(-1, actions.unsqueeze(-1)).squeeze(-1)

    def evaluate_actions(
        self, obs: torch.Tensor, actions: torch.Tensor, action_masks: torch.Tensor | np.ndarray | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The values, the log-probabilities of ``actions`` and the entropies, the mask applied."""
        logits, values = self._masked_logits(obs, action_masks)
        log_p = torch.log_softmax(logits, dim=-1)
        log_prob = log_p.gather(-1, actions.long().reshape(-1, 1)).squeeze(-1)
        # softmax gives an illegal card a probability of exactly 0 (exp underflows), so it adds 0 * log_p = 0
        p_log_p = torch.softmax(logits, dim=-1) * log_p
        return values, log_prob, -p_log_p.sum(dim=-1)

    def _masked_logits(
        self, obs: torch.Tensor, action_masks: torch.Tensor | np.ndarray | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The action logits (rows, actions), ``MASKED_LOGIT`` for illegal cards, and the values (rows, 1)."""
        features = self.extract_features(obs)
        if self.share_features_extractor:
            latent_pi, latent_vf = self.mlp_extractor(features)
        else:
            pi_features, vf_features = features
            latent_pi = self.mlp_extractor.forward_actor(pi_features)
            latent_vf = self.mlp_extractor.forward_critic(vf_features)
        logits = self.action_net(latent_pi)
        if action_masks is not None:
            legal = torch.as_tensor(action_masks, dtype=torch.bool, device=logits.device).reshape(logits.shape)
            logits = torch.where(legal, logits, MASKED_LOGIT)
        return logits, self.value_net(latent_vf)
