"""The lean masked actor-critic gives sb3-contrib's numbers: the same values, log-probabilities and
entropies for the same weights, masks and actions, and legal samples with their log-probabilities."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tiny_runs import tiny_run

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402

from hearts_env.engine.cards import NUM_CARDS  # noqa: E402
from hearts_env.envs.gym_env import HeartsVectorEnv  # noqa: E402
from hearts_env.envs.sb3 import SB3VecEnv  # noqa: E402
from hearts_env.train.ppo import PPOConfig, build_model  # noqa: E402
from hearts_env.train.ppo.masked_policy import MaskedActorCritic  # noqa: E402


def _policy(tmp_path: Path, critic: str) -> MaskedActorCritic:
    """The trainer's policy; sb3-contrib's methods called on it (``MaskableActorCriticPolicy.forward(policy,
    ...)``) are the reference, with the very same modules and weights."""
    config = PPOConfig(**tiny_run(tmp_path, seed=3, eval_every=0, critic=critic))
    env = SB3VecEnv(HeartsVectorEnv(config.num_envs, config.rules, global_state=critic == "state"))
    policy = build_model(config, env).policy
    assert isinstance(policy, MaskedActorCritic)
    return policy


def _batch(policy: MaskedActorCritic, rows: int, seed: int) -> tuple[object, torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    space = policy.observation_space
    shapes = {k: s.shape for k, s in space.spaces.items()} if hasattr(space, "spaces") else {"": space.shape}
    obs = {k: torch.randint(0, 3, (rows, *s), generator=generator, dtype=torch.uint8) for k, s in shapes.items()}
    masks = torch.rand((rows, NUM_CARDS), generator=generator) < 0.3
    masks[torch.arange(rows), torch.randint(0, NUM_CARDS, (rows,), generator=generator)] = True  # a legal card a row
    actions = torch.multinomial(masks.float(), 1, generator=generator).squeeze(-1)
    return (obs[""] if "" in obs else obs), masks, actions


@pytest.mark.parametrize("critic", ["observation", "state"])
def test_evaluate_actions_matches_sb3_contrib(tmp_path: Path, critic: str) -> None:
    lean = _policy(tmp_path, critic)
    obs, masks, actions = _batch(lean, 64, seed=1)
    with torch.no_grad():
        got = lean.evaluate_actions(obs, actions, action_masks=masks.numpy())
        want = MaskableActorCriticPolicy.evaluate_actions(lean, obs, actions, action_masks=masks.numpy())
    for mine, theirs in zip(got, want, strict=True):
        torch.testing.assert_close(mine, theirs, rtol=1e-5, atol=1e-5)
    assert (got[2] > 0).all()  # every row has some choice: a real entropy, not the masked cards' rounding


def test_forward_samples_legal_cards_with_their_log_probabilities(tmp_path: Path) -> None:
    lean = _policy(tmp_path, "observation")
    obs, masks, _ = _batch(lean, 256, seed=2)
    with torch.no_grad():
        actions, values, log_prob = lean(obs, action_masks=masks.numpy())
        want_values, want_log_prob, _ = MaskableActorCriticPolicy.evaluate_actions(
            lean, obs, actions, action_masks=masks.numpy()
        )
        best, _, _ = lean(obs, deterministic=True, action_masks=masks.numpy())
        their_best, _, _ = MaskableActorCriticPolicy.forward(lean, obs, deterministic=True, action_masks=masks)
    assert masks[torch.arange(256), actions].all()
    torch.testing.assert_close(values, want_values)
    torch.testing.assert_close(log_prob, want_log_prob, rtol=1e-5, atol=1e-5)
    assert torch.equal(best, their_best)
    assert len(np.unique(actions.numpy())) > 1


def test_forward_samples_cards_by_their_probabilities(tmp_path: Path) -> None:
    lean = _policy(tmp_path, "observation")
    obs, masks, _ = _batch(lean, 1, seed=3)
    rows = 40_000
    torch.manual_seed(0)
    with torch.no_grad():
        actions, _, log_prob = lean(obs.expand(rows, -1), action_masks=masks.expand(rows, -1))
    p = log_prob.exp()
    want = np.zeros(NUM_CARDS)
    want[actions.numpy()] = p.numpy()  # each card's probability, read back from its draws
    counts = np.bincount(actions.numpy(), minlength=NUM_CARDS)
    assert not counts[~masks[0].numpy()].any()
    # each legal card drawn as often as its probability says, within 4 standard deviations
    np.testing.assert_array_less(np.abs(counts - rows * want), 4 * np.sqrt(rows * want * (1 - want)) + 1)
    assert (counts > 0).sum() == masks[0].sum()


@pytest.mark.parametrize("critic", ["observation", "state"])
def test_evaluate_actions_gradients_match_sb3_contrib(tmp_path: Path, critic: str) -> None:
    lean = _policy(tmp_path, critic)
    obs, masks, actions = _batch(lean, 64, seed=4)

    def gradients(evaluate) -> list[torch.Tensor]:
        lean.zero_grad()
        values, log_prob, entropy = evaluate(lean, obs, actions, action_masks=masks)
        (values.sum() + log_prob.sum() + 0.1 * entropy.sum()).backward()
        return [p.grad.clone() for p in lean.parameters()]

    got, want = gradients(MaskedActorCritic.evaluate_actions), gradients(MaskableActorCriticPolicy.evaluate_actions)
    for mine, theirs in zip(got, want, strict=True):
        assert torch.isfinite(mine).all()
        torch.testing.assert_close(mine, theirs, rtol=1e-4, atol=1e-5)
