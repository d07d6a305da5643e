"""The global state through every interface: PettingZoo's ``state()`` checks, the Gymnasium, vector,
SB3 and TorchRL options, and the promise that the actors' observations are byte for byte the same
with the option on and off."""

import numpy as np
import pytest
from pettingzoo.test.state_test import test_state as pettingzoo_state_test
from pettingzoo.test.state_test import test_state_space as pettingzoo_state_space_test

from hearts_env import HeartsRules
from hearts_env.aec import env as aec_env
from hearts_env.engine.global_state import GlobalStateLayout, global_state
from hearts_env.gym_env import HeartsEnv, HeartsVectorEnv

TABLES = [{}, {"num_players": 7, "jack_of_diamonds": True}, {"num_players": 8, "decks": 2}]


@pytest.mark.parametrize("knobs", TABLES, ids=str)
def test_pettingzoo_state_checks_pass(knobs):
    table = aec_env(**knobs)
    pettingzoo_state_space_test(table)
    pettingzoo_state_test(table, num_cycles=400)


def _play_aec(knobs: dict, read_state: bool) -> list[tuple[bytes, np.ndarray | None]]:
    """Every observation of a seeded random game (and the state after each move when asked)."""
    table = aec_env(**knobs)
    table.reset(seed=4)
    rng = np.random.default_rng(4)
    seen = []
    for _agent in table.agent_iter():
        observation, reward, termination, truncation, _ = table.last()
        state = table.state() if read_state else None
        seen.append((observation["observation"].tobytes() + observation["action_mask"].tobytes(), state))
        action = None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"])))
        table.step(action)
    return seen


@pytest.mark.parametrize("knobs", TABLES, ids=str)
def test_aec_state_is_the_whole_table_and_changes_no_observation(knobs):
    plain, with_state = _play_aec(knobs, False), _play_aec(knobs, True)
    assert [o for o, _ in plain] == [o for o, _ in with_state]
    table = aec_env(**knobs)
    table.reset(seed=1)
    layout = GlobalStateLayout(table.rules)
    state = table.state()
    np.testing.assert_array_equal(state, global_state(table.core_state, layout)[0])
    hands = layout.split(state)["hands"]
    for seat, agent in enumerate(table.agents):  # every hand, each as its own seat sees it
        own = table.unwrapped.layout.split(table.observe(agent)["observation"])
        np.testing.assert_array_equal(hands[seat], own["hand"])


def _run_vector(with_state: bool, check=None, steps: int = 150) -> list[bytes]:
    """Every observation, reward and termination of a seeded random run of one-hand games; ``check``
    sees the env and the info after each step."""
    envs = HeartsVectorEnv(16, learner_seat="rotate", target_score=None, global_state=with_state)
    obs, info = envs.reset(seed=9)
    rng = np.random.default_rng(9)
    trace = [obs.tobytes()]
    for _ in range(steps):
        masks = envs.action_masks()
        obs, rewards, terminated, _, info = envs.step((rng.random(masks.shape) * masks).argmax(axis=1))
        trace.append(obs.tobytes() + rewards.tobytes() + terminated.tobytes())
        if check:
            check(envs, info)
    return trace


def test_vector_env_observations_are_byte_identical_with_the_state_on_and_off():
    ended = []

    def check(envs: HeartsVectorEnv, info: dict) -> None:
        expected = global_state(envs.state, envs.state_layout, envs.learner_seats.astype(np.int64))
        np.testing.assert_array_equal(info["state"], expected)  # seats counted from each learner
        assert info["state"].shape == (16, *envs.single_state_space.shape)
        for i in np.flatnonzero(info.get("_final_info", [])):  # the state the game ended in
            final = envs.state_layout.split(info["final_info"]["state"][i])
            assert final["hands"].sum() == 0 and final["to_play"].sum() == 0 and final["phase"].sum() == 0
            ended.append(i)

    assert _run_vector(True, check) == _run_vector(False)
    assert len(ended) > 8


def test_single_env_state_is_seen_from_the_learner():
    env = HeartsEnv(HeartsRules(num_players=5), learner_seat=3, global_state=True)
    plain = HeartsEnv(HeartsRules(num_players=5), learner_seat=3)
    obs, info = env.reset(seed=2)
    plain_obs, _ = plain.reset(seed=2)
    assert obs.tobytes() == plain_obs.tobytes() and env.observation_space == plain.observation_space
    assert plain.state_space is None and "state" not in plain.reset(seed=2)[1]
    rng = np.random.default_rng(2)
    terminated = False
    while not terminated:
        layout = env.state_layout.split(info["state"])
        own = env.layout.split(obs)
        np.testing.assert_array_equal(layout["hands"][0], own["hand"])  # row 0: the learner
        np.testing.assert_array_equal(info["state"], global_state(env.state, env.state_layout, 3)[0])
        assert env.state_space.contains(info["state"])
        action = rng.choice(np.flatnonzero(info["action_mask"]))
        obs, _, terminated, _, info = env.step(action)
        plain_obs, *_ = plain.step(action)
        assert obs.tobytes() == plain_obs.tobytes()


def test_sb3_observations_carry_the_state_beside_the_same_vectors():
    pytest.importorskip("stable_baselines3")
    from hearts_env.sb3 import SB3VecEnv

    with_state, plain = (
        SB3VecEnv(num_envs=4, target_score=None, global_state=True),
        SB3VecEnv(num_envs=4, target_score=None),
    )
    assert set(with_state.observation_space.spaces) == {"observation", "state"}
    assert with_state.observation_space["observation"] == plain.observation_space
    for vec in (with_state, plain):
        vec.seed(0)
    obs, plain_obs = with_state.reset(), plain.reset()
    rng = np.random.default_rng(0)
    terminal = 0
    for _ in range(60):
        assert obs["observation"].tobytes() == plain_obs.tobytes() and with_state.observation_space.contains(
            {key: value[0] for key, value in obs.items()}
        )
        masks = with_state.action_masks()
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        obs, _, dones, infos = with_state.step(actions)
        plain_obs, _, _, plain_infos = plain.step(actions)
        for i in np.flatnonzero(dones):
            final = infos[i]["terminal_observation"]
            assert final["observation"].tobytes() == plain_infos[i]["terminal_observation"].tobytes()
            final_state = with_state.env.state_layout.split(final["state"])
            assert final_state["to_play"].sum() == 0 and final_state["hands"].sum() == 0
            terminal += 1
    assert terminal > 0


def test_torchrl_envs_hold_the_state_beside_unchanged_observations():
    pytest.importorskip("torchrl")
    import torch

    from hearts_env.torchrl import HeartsLearnerEnv, HeartsMultiAgentEnv

    for make, key in ((HeartsMultiAgentEnv, ("agents", "observation")), (HeartsLearnerEnv, "observation")):
        plain, with_state = make(6, num_players=5), make(6, num_players=5, global_state=True)
        plain.set_seed(3)
        with_state.set_seed(3)
        torch.manual_seed(0)
        a = plain.rollout(80, break_when_any_done=False)
        torch.manual_seed(0)
        b = with_state.rollout(80, break_when_any_done=False)
        assert (a[key] == b[key]).all() and (a["next", key] == b["next", key]).all()
        assert "state" not in a.keys() and b["state"].shape == (6, 80, with_state.state_layout.size)
    multi = HeartsMultiAgentEnv(3, global_state=True)
    out = multi.reset()
    np.testing.assert_array_equal(out["state"].numpy(), global_state(multi.state, multi.state_layout))
