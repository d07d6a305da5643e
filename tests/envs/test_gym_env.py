"""The Gymnasium environments and the SB3 adapter: API checkers, reward sums per mode, masks, seeds,
seat rotation, vector-vs-single agreement, auto-reset, and MaskablePPO smoke runs."""

from __future__ import annotations

import gc
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from hearts_env import HeartsRules
from hearts_env.engine.core import PASS, bits_to_mask
from hearts_env.envs.gym_env import HeartsEnv, HeartsVectorEnv
from hearts_env.play.policy import RandomPolicy


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal card per row of (B, 52) masks."""
    return (rng.random(masks.shape) * masks).argmax(axis=1)


class Lowest:
    """Plays its lowest legal card: a choice from the mask alone."""

    def __call__(self, info, mask):
        assert mask.any(axis=1).all() and (info.to_play == 0).all()  # the seat to act, with a legal card
        return mask.argmax(axis=1)


class Highest:
    def __call__(self, info, mask):
        return 51 - mask[:, ::-1].argmax(axis=1)


class Recording:
    """Records the batch sizes it is called with and checks what it is shown."""

    def __init__(self) -> None:
        self.batches: list[int] = []

    def __call__(self, info, mask):
        assert (info.to_play == 0).all()  # observed from the seat to act
        assert np.array_equal(bits_to_mask(info.legal), mask)
        self.batches.append(len(mask))
        return mask.argmax(axis=1)


def play_episode(env: HeartsEnv, rng: np.random.Generator, seed: int | None = None) -> tuple[float, dict, int]:
    """One episode with random legal learner cards: (sum of rewards, final info, steps)."""
    _, info = env.reset(seed=seed)
    total, steps, terminated = 0.0, 0, False
    while not terminated:
        action = random_legal(info["action_mask"][None], rng)[0]
        _, reward, terminated, truncated, info = env.step(action)
        assert not truncated
        total += reward
        steps += 1
    return total, info, steps


# ---------------------------------------------------------------------------------------------
# API checkers


# The checkers step with unmasked random actions (``action_space.sample()``), so illegal cards must be
# tolerated for them: ``illegal_action="random"``. With the default "raise" they stop at the first.


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_gymnasium_check_env(num_players):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Not able to test alternative render modes.*")
        check_env(HeartsEnv(num_players=num_players, illegal_action="random", render_mode="ansi"))
        check_env(HeartsEnv(num_players=num_players, illegal_action="random", episode="hand", history=True))


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_sb3_check_env(num_players):
    env_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # SB3 warns about anything it would not handle well
        env_checker.check_env(HeartsEnv(num_players=num_players, illegal_action="random", learner_seat="rotate"))


def test_registered_env_passes_check_env():
    env_id = "hearts_env/Hearts-v0"
    if env_id not in gymnasium.registry:
        gymnasium.register(
            id=env_id,
            entry_point="hearts_env.envs.gym_env:HeartsEnv",
            vector_entry_point="hearts_env.envs.gym_env:HeartsVectorEnv",
        )
    env = gymnasium.make(env_id, illegal_action="random", render_mode="ansi")
    check_env(env.unwrapped)
    env.reset(seed=0)
    assert isinstance(env.render(), str)
    envs = gymnasium.make_vec(env_id, num_envs=3, num_players=5)
    assert isinstance(envs.unwrapped, HeartsVectorEnv)
    envs.reset(seed=0)
    assert envs.action_masks().shape == (3, 52)


def test_spaces_and_knobs():
    env = HeartsEnv(num_players=5, jack_of_diamonds=True, history=True)
    assert env.action_space == gymnasium.spaces.Discrete(52)
    assert env.observation_space.shape == (env.layout.size,) and env.observation_space.dtype == np.uint8
    assert env.rules == HeartsRules(num_players=5, jack_of_diamonds=True)
    obs, _ = env.reset(seed=1)
    assert obs in env.observation_space and "history" in env.layout.split(obs)
    assert HeartsEnv(rules=HeartsRules(num_players=3)).rules.num_players == 3
    with pytest.raises(ValueError, match="not both"):
        HeartsEnv(rules=HeartsRules(), num_players=3)
    with pytest.raises(ValueError, match="episode"):
        HeartsEnv(episode="trick")
    with pytest.raises(ValueError, match="reward"):
        HeartsEnv(reward="score")
    with pytest.raises(ValueError, match="learner_seat"):
        HeartsEnv(learner_seat=4)
    with pytest.raises(ValueError, match="3 policies"):
        HeartsEnv(opponents=[Lowest(), Lowest()])
    with pytest.raises(ValueError, match="num_players"):
        HeartsVectorEnv(2, num_players=9)


# ---------------------------------------------------------------------------------------------
# Rewards


@pytest.mark.parametrize(
    "knobs",
    [
        {},
        {"num_players": 3, "jack_of_diamonds": True, "moon": "subtract_from_self", "learner_seat": 2},
        {"num_players": 5, "moon": "shooter_choice", "target_score": 60, "learner_seat": "rotate"},
    ],
)
def test_points_episode_sums_to_minus_game_total(knobs):
    env = HeartsEnv(reward="points", **knobs)
    rng = np.random.default_rng(0)
    for seed in range(2):
        total, info, _ = play_episode(env, rng, seed)
        state = env.state
        assert state.done[0]
        assert total == -state.scores[0, env.learner_seat] == -info["scores"][0]
        assert not info["action_mask"].any() and not env.action_masks().any()


@pytest.mark.parametrize("reward", ["points", "hand", "zero_sum"])
def test_hand_episodes_sum_to_the_hand_score_and_continue_the_game(reward):
    env = HeartsEnv(reward=reward, episode="hand", target_score=40, num_players=4)
    rng = np.random.default_rng(1)
    hand, totals = 1, np.zeros(4)
    for episode in range(12):
        total, info, steps = play_episode(env, rng, seed=5 if episode == 0 else None)
        state, seat = env.state, env.learner_seat
        points = state.last_hand_points[0]
        expected = -points[seat] if reward != "zero_sum" else (points.sum() - points[seat]) / 3 - points[seat]
        assert total == pytest.approx(expected)
        assert steps == 13 + (3 if state.rules.pass_direction(hand) != "none" else 0)
        if state.done[0]:
            assert np.array_equal(state.scores[0], totals + points)
            hand, totals = 1, np.zeros(4)  # the next episode is a fresh game
        else:
            assert state.hand_number[0] == hand + 1  # the next hand, dealt, continues the game
            hand, totals = hand + 1, state.scores[0]


def test_win_reward_pays_the_share_of_the_win_at_game_end():
    env = HeartsEnv(reward="win", target_score=30, learner_seat="rotate")
    rng = np.random.default_rng(2)
    for seed in range(3):
        total, _, _ = play_episode(env, rng, seed)
        winners = env.state.winners[0]
        assert total == pytest.approx(winners[env.learner_seat] / winners.sum())


def test_reward_counts_the_opponents_moves():
    """A trick the learner takes after its own card is paid at its next move (or at episode end)."""
    env = HeartsEnv(reward="points", target_score=None, pass_count=0)
    rng = np.random.default_rng(3)
    _, info = env.reset(seed=11)
    while True:
        before = env.state.hand_points[0, 0]
        _, reward, terminated, _, info = env.step(random_legal(info["action_mask"][None], rng)[0])
        if terminated:
            break
        assert reward == -(env.state.hand_points[0, 0] - before)


# ---------------------------------------------------------------------------------------------
# Masks, illegal actions, rendering


def test_masks_are_the_learners_legal_cards():
    env = HeartsEnv(num_players=4, learner_seat="rotate", episode="hand")
    layout = env.layout
    rng = np.random.default_rng(4)
    obs, info = env.reset(seed=3)
    for _ in range(200):
        state, seat = env.state, env.learner_seat
        mask = env.action_masks()
        assert state.to_play[0] == seat  # the opponents have played up to the learner's turn
        assert np.array_equal(mask, bits_to_mask(state.legal)[0]) and mask.any()
        assert np.array_equal(layout.split(obs)["hand"].astype(bool), bits_to_mask(state.hands[0, seat]))
        assert not (mask & ~bits_to_mask(state.hands[0, seat])).any()
        assert np.array_equal(info["action_mask"], mask) and info["seat"] == seat
        obs, _, terminated, _, info = env.step(random_legal(mask[None], rng)[0])
        if terminated:
            assert not info["action_mask"].any()
            with pytest.raises(RuntimeError, match="reset"):
                env.step(0)
            obs, info = env.reset()


def test_illegal_action_raises_and_changes_nothing():
    env = HeartsEnv(pass_count=0)
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    state = env.state
    with pytest.raises(ValueError, match="is illegal"):
        env.step(illegal)
    with pytest.raises(ValueError, match="not a card id"):
        env.step(52)
    with pytest.raises(ValueError, match="integer card id"):
        env.step(1.5)
    assert env.state is state and np.array_equal(env.action_masks(), info["action_mask"])
    legal = int(np.flatnonzero(info["action_mask"])[0])
    after = env.step(legal)
    fresh = HeartsEnv(pass_count=0)
    fresh.reset(seed=0)
    assert np.array_equal(after[0], fresh.step(legal)[0])

    vec = HeartsVectorEnv(3, pass_count=0)
    _, info = vec.reset(seed=0)
    actions = random_legal(info["action_mask"], np.random.default_rng(0))
    actions[2] = np.flatnonzero(~info["action_mask"][2])[0]
    with pytest.raises(ValueError, match="game 2: .* is illegal"):
        vec.step(actions)
    with pytest.raises(ValueError, match="shape"):
        vec.step(actions[:2])


def test_illegal_action_random_plays_a_legal_card():
    env = HeartsEnv(illegal_action="random", pass_count=0, target_score=None)
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    _, _, _, _, info = env.step(illegal)
    assert info["illegal_action"] is True
    assert env.state.played[0].any() or env.state.trick[0].max() >= 0
    _, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert info["illegal_action"] is False


def test_render():
    env = HeartsEnv(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "seat 0 (learner): total" in text and "seat 3: total" in text
    vec = HeartsVectorEnv(2, render_mode="ansi")
    vec.reset(seed=0)
    assert len(vec.render()) == 2


# ---------------------------------------------------------------------------------------------
# Seeds and seats


def trajectory(env: HeartsEnv, seed: int | None, steps: int, rng_seed: int = 0) -> list:
    rng = np.random.default_rng(rng_seed)
    obs, info = env.reset(seed=seed)
    out = [obs]
    for _ in range(steps):
        obs, reward, terminated, _, info = env.step(random_legal(info["action_mask"][None], rng)[0])
        out += [obs, reward, terminated]
        if terminated:
            obs, info = env.reset()
            out.append(obs)
    return out


def same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("opponents", [None, RandomPolicy(), [RandomPolicy(), Lowest(), RandomPolicy()]])
def test_seeded_resets_reproduce(opponents):
    knobs = {"target_score": None, "learner_seat": "rotate", "opponents": opponents}
    env = HeartsEnv(**knobs)
    first = trajectory(env, 7, 60)
    assert same(first, trajectory(env, 7, 60))  # the same env, reseeded
    assert same(first, trajectory(HeartsEnv(**knobs), 7, 60))  # a new env
    assert not same(first, trajectory(env, 8, 60))


def test_rotating_seats_cover_every_seat():
    for num_players in (3, 4, 5):
        env = HeartsEnv(num_players=num_players, learner_seat="rotate", target_score=None)
        seats = set()
        env.reset(seed=0)
        for _ in range(40):
            seats.add(env.learner_seat)
            env.reset()
        assert seats == set(range(num_players))
    fixed = HeartsEnv(learner_seat=2)
    fixed.reset(seed=0)
    assert fixed.learner_seat == 2 and fixed.reset()[1]["seat"] == 2


# ---------------------------------------------------------------------------------------------
# The vector environment


VECTOR_CASES = [
    {"target_score": None, "learner_seat": "rotate"},
    {
        "num_players": 3,
        "episode": "hand",
        "target_score": 30,
        "history": True,
        "reward": "zero_sum",
        "learner_seat": "rotate",
    },
    {"illegal_action": "random", "target_score": None, "reward": "hand"},
    {"num_players": 5, "opponents": [Lowest(), Highest(), Lowest(), Highest()], "target_score": 30, "reward": "win"},
    {"opponents": Lowest(), "pass_cycle": ("none", "left"), "episode": "hand", "learner_seat": 1},
]


@pytest.mark.parametrize("knobs", VECTOR_CASES)
def test_vector_env_matches_single_envs(knobs):
    """Game i of a vector env reset with seed s plays exactly as a HeartsEnv reset with seed s + i
    (and reset without a seed after each of its episodes), given the same learner cards."""
    B, seed, steps = 5, 100, 90
    vec = HeartsVectorEnv(B, **knobs)
    singles = [HeartsEnv(**knobs) for _ in range(B)]
    obs_v, info_v = vec.reset(seed=seed)
    results = [env.reset(seed=seed + i) for i, env in enumerate(singles)]
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(steps):
        for i, (obs, info) in enumerate(results):
            assert np.array_equal(obs_v[i], obs)
            assert np.array_equal(info_v["action_mask"][i], info["action_mask"])
            assert np.array_equal(vec.action_masks()[i], singles[i].action_masks())
            assert info_v["seat"][i] == info["seat"] and np.array_equal(info_v["scores"][i], info["scores"])
        if knobs.get("illegal_action") == "random":
            actions = rng.integers(0, 52, B)  # mostly illegal: replaced from each game's own stream
        else:
            actions = random_legal(vec.action_masks(), rng)
        obs_v, rewards, terminations, truncations, info_v = vec.step(actions)
        assert not truncations.any()
        for i, env in enumerate(singles):
            obs, reward, terminated, _, info = env.step(actions[i])
            assert rewards[i] == reward and terminations[i] == terminated
            assert info_v.get("illegal_action", np.zeros(B))[i] == info.get("illegal_action", False)
            if terminated:
                episodes += 1
                assert info_v["_final_obs"][i] and np.array_equal(info_v["final_obs"][i], obs)
                assert np.array_equal(info_v["final_info"]["action_mask"][i], info["action_mask"])
                obs, info = env.reset()
            results[i] = (obs, info)
    assert episodes >= 2


def test_vector_env_calls_opponents_batched():
    recording = Recording()
    vec = HeartsVectorEnv(64, opponents=recording, learner_seat="rotate")
    _, info = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(10):
        _, _, _, _, info = vec.step(random_legal(info["action_mask"], rng))
    assert max(recording.batches) > 32  # many games per call
    assert 10 * len(recording.batches) < sum(recording.batches)  # one call per turn, not per game


def test_auto_reset_same_step():
    vec = HeartsVectorEnv(8, target_score=None, learner_seat="rotate")
    assert vec.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    obs, info = vec.reset(seed=3)
    rng = np.random.default_rng(0)
    totals = np.zeros(8)
    ended = np.zeros(8, int)
    for _ in range(17 * 3):
        obs, rewards, terminations, _, info = vec.step(random_legal(info["action_mask"], rng))
        totals += rewards
        assert info["action_mask"].any(axis=1).all()  # every learner is to act again
        assert np.array_equal(vec.action_masks(), info["action_mask"])
        if terminations.any():
            done = np.flatnonzero(terminations)
            assert np.array_equal(info["_final_obs"], terminations)
            assert np.array_equal(info["_final_info"], terminations)
            assert all(info["final_obs"][i] is None for i in np.flatnonzero(~terminations))
            state = vec.state
            assert (state.hand_number[done] == 1).all() and (state.phase[done] == PASS).all()
            assert (state.scores[done] == 0).all()
            assert (vec.layout.split(obs[done])["tricks_played"] == 0).all()
            ended[done] += 1
    assert (ended >= 2).all()  # one-hand games of 16 learner steps: 3 episodes each, nearly

    # A partial reset restarts only the masked games.
    before = vec.state
    mask = np.zeros(8, bool)
    mask[[1, 4]] = True
    obs, _ = vec.reset(seed=50, options={"reset_mask": mask})
    same_games = ~mask
    assert np.array_equal(vec.state.hands[same_games], before.hands[same_games])
    single = HeartsEnv(target_score=None, learner_seat="rotate")
    assert np.array_equal(obs[4], single.reset(seed=54)[0])


def test_vector_env_seeds():
    vec = HeartsVectorEnv(4, learner_seat="rotate", target_score=None)
    a, _ = vec.reset(seed=9)
    b, _ = vec.reset(seed=[9, 10, 11, 12])
    assert np.array_equal(a, b)
    c, _ = HeartsVectorEnv(4, learner_seat="rotate", target_score=None).reset(seed=[9, None, 11, None])
    assert np.array_equal(a[[0, 2]], c[[0, 2]])
    # reset() without a seed continues each game's sequence of episodes, as the single env does
    single = HeartsEnv(learner_seat="rotate", target_score=None)
    single.reset(seed=11)
    assert np.array_equal(vec.reset()[0][2], single.reset()[0])


# ---------------------------------------------------------------------------------------------
# stable-baselines3 and MaskablePPO


def test_sb3_vec_env_contract():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from hearts_env.envs.sb3 import SB3VecEnv

    vec_env = SB3VecEnv(num_envs=4, target_score=None)
    assert is_masking_supported(vec_env)
    vec_env.seed(5)
    obs = vec_env.reset()
    assert np.array_equal(obs[1], HeartsEnv(target_score=None).reset(seed=6)[0])
    rng = np.random.default_rng(0)
    dones_seen = 0
    for _ in range(40):
        masks = get_action_masks(vec_env)
        assert masks.shape == (4, 52) and masks.any(axis=1).all()
        obs, rewards, dones, infos = vec_env.step(random_legal(masks, rng))
        assert obs.shape == (4, vec_env.observation_space.shape[0]) and rewards.dtype == np.float32
        assert len(infos) == 4
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == obs[i].shape
            assert infos[i]["TimeLimit.truncated"] is False
            dones_seen += 1
    assert dones_seen >= 4


def _train(num_envs: int, n_steps: int, total_timesteps: int) -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import VecMonitor

    from hearts_env.envs.sb3 import SB3VecEnv

    vec_env = VecMonitor(SB3VecEnv(num_envs=num_envs, target_score=None, learner_seat="rotate"))
    model = MaskablePPO("MlpPolicy", vec_env, n_steps=n_steps, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=total_timesteps)
    assert model.num_timesteps >= total_timesteps
    obs = vec_env.reset()
    actions, _ = model.predict(obs, action_masks=get_action_masks(vec_env))
    assert vec_env.venv.action_masks()[np.arange(num_envs), actions].all()


@pytest.mark.training
def test_maskable_ppo_one_iteration():
    _train(num_envs=4, n_steps=64, total_timesteps=256)


@pytest.mark.training
def test_maskable_ppo_few_thousand_steps():
    _train(num_envs=16, n_steps=128, total_timesteps=6144)


@pytest.mark.training
@pytest.mark.slow
def test_maskable_ppo_learns_to_beat_random_play():
    """After 100k steps against random opponents, the greedy policy takes clearly fewer points per
    hand than random play (about -6.5; after 50k steps the policy was at -5.0, too near the margin)."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from hearts_env.envs.sb3 import SB3VecEnv

    vec_env = SB3VecEnv(num_envs=64, target_score=None, learner_seat="rotate")
    model = MaskablePPO("MlpPolicy", vec_env, n_steps=64, batch_size=512, n_epochs=4, seed=0, device="cpu")
    model.learn(total_timesteps=100_000)

    def mean_points(choose, games: int = 1024) -> float:
        envs = HeartsVectorEnv(games, target_score=None, learner_seat="rotate")
        obs, info = envs.reset(seed=10**6)
        total, done = np.zeros(games), np.zeros(games, bool)
        while not done.all():
            obs, rewards, terminations, _, info = envs.step(choose(obs, info["action_mask"]))
            total += np.where(done, 0, rewards)
            done |= terminations
        return total.mean()

    rng = np.random.default_rng(0)
    random_play = mean_points(lambda obs, masks: random_legal(masks, rng))
    trained = mean_points(lambda obs, masks: model.predict(obs, action_masks=masks, deterministic=True)[0])
    assert trained > random_play + 1.5, (trained, random_play)


def test_module_example_runs(capsys):
    import re

    import hearts_env.envs.gym_env

    code = re.search(r"```python\n(.*?)```", hearts_env.envs.gym_env.__doc__, re.S).group(1)
    exec(code, {})
    assert capsys.readouterr().out


@pytest.mark.processes
def test_environments_import_without_sb3():
    import subprocess
    import sys

    code = "import sys; sys.modules['stable_baselines3'] = None; sys.modules['torch'] = None; import hearts_env.gym_env"
    subprocess.run([sys.executable, "-c", code], check=True)


class _Cheater:
    """An opponent that plays legally for a while, then picks a card it does not hold."""

    def __init__(self, honest_moves: int) -> None:
        self.left = honest_moves
        self.random = RandomPolicy(0)

    def __call__(self, info, mask):
        self.left -= len(mask)
        cards = self.random(info, mask)
        return cards if self.left >= 0 else np.flatnonzero(~mask[0])[:1].repeat(len(mask))

    def __repr__(self) -> str:
        return "Cheater()"


@pytest.mark.parametrize("vector", [False, True])
def test_an_opponents_illegal_card_changes_nothing_and_names_the_opponent(vector: bool) -> None:
    """The env is exactly as before the step that failed: no opponent's legal cards reach the
    learner's mask, and a retried step plays the learner's card for the learner."""
    env = HeartsVectorEnv(2, opponents=_Cheater(40)) if vector else HeartsEnv(opponents=_Cheater(20))
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"the opponent at seat \d .*Cheater\(\).*does not hold it; nothing changed"):
        for _ in range(60):
            before = env.state.data.copy(), np.copy(env.action_masks())
            masks = np.atleast_2d(env.action_masks())
            actions = (rng.random(masks.shape) * masks).argmax(axis=1)
            env.step(actions if vector else actions[0])
    np.testing.assert_array_equal(env.state.data, before[0])
    np.testing.assert_array_equal(env.action_masks(), before[1])
    learners = env._tables.seat
    assert (env.state.to_play == learners).all()  # the learner, not the cheating opponent, is to act


def test_sb3_make_vec_env_builds_the_registered_env() -> None:
    """SB3's helper asks for render_mode="rgb_array"; the env accepts it (pictures are drawn only by render())."""
    env_util = pytest.importorskip("stable_baselines3.common.env_util")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vec = env_util.make_vec_env("hearts_env/Hearts-v0", n_envs=2, env_kwargs={"illegal_action": "random"})
    assert vec.reset().shape == (2, HeartsEnv().layout.size)
    _, rewards, dones, _ = vec.step(np.zeros(2, np.int64))
    assert rewards.shape == (2,) and not dones.any()


BAD_VECTOR_ARGUMENTS = {  # every constructor argument, refused: (arguments, the error's start)
    "num_envs 0": ({"num_envs": 0}, "num_envs must be a positive int"),
    "num_envs 1.5": ({"num_envs": 1.5}, "num_envs must be a positive int"),
    "num_envs True": ({"num_envs": True}, "num_envs must be a positive int"),
    "num_envs huge": ({"num_envs": 10**13}, "10,000,000,000,000 tables needs about"),
    "rules": ({"rules": "standard"}, "rules must be a HeartsRules"),
    "knob": ({"num_players": 9}, "num_players must be in 3..7"),
    "opponents 5": ({"opponents": 5}, "opponents must be a Policy or a list of 3 policies"),
    "opponents Nones": ({"opponents": [None] * 3}, "opponents must be a Policy or a list of 3 policies"),
    "reward": ({"reward": "score"}, "reward must be one of"),
    "episode": ({"episode": "trick"}, "episode must be one of"),
    "learner_seat": ({"learner_seat": 4}, "learner_seat must be a seat 0..3"),
    "history": ({"history": "yes"}, "history must be True or False"),
    "illegal_action": ({"illegal_action": "ignore"}, "illegal_action must be one of"),
    "render_mode": ({"render_mode": "x"}, "render_mode must be None or one of"),
    "render_hands": ({"render_hands": "x"}, "render_hands must be one of"),
    "render_size": ({"render_size": (0, 0)}, "render size must be from 320x240"),
    "render_size text": ({"render_size": "big"}, "render size must be"),
    "autoreset_mode": ({"autoreset_mode": "x"}, "autoreset_mode must be one of"),
}


@pytest.mark.parametrize("case", list(BAD_VECTOR_ARGUMENTS), ids=list(BAD_VECTOR_ARGUMENTS))
def test_a_refused_vector_env_leaves_nothing_to_close(case, capfd):
    """A refused ``HeartsVectorEnv(...)`` is one ValueError naming the argument, and the object it
    leaves counts as closed: ``close()`` (which gymnasium's ``__del__`` calls on an env not closed,
    before 1.4) has nothing to do, where it used to print an ``Exception ignored ... no attribute
    '_renderer'`` traceback when the object was collected."""
    kwargs, message = BAD_VECTOR_ARGUMENTS[case]
    kwargs = {"num_envs": 2, **kwargs}
    env = HeartsVectorEnv.__new__(HeartsVectorEnv)
    with pytest.raises(ValueError, match=f"^{message}"):
        env.__init__(**kwargs)
    assert env.closed
    env.close()
    with pytest.raises(ValueError, match=f"^{message}"):
        HeartsVectorEnv(**kwargs)
    del env
    gc.collect()
    assert capfd.readouterr().err == ""


class _BadAnswer:
    """Plays random legal cards for a while, then answers ``answer(mask)`` instead of cards."""

    def __init__(self, answer, honest_moves: int) -> None:
        self.answer, self.left = answer, honest_moves
        self.random = RandomPolicy(0)

    def __call__(self, info, mask):
        self.left -= len(mask)
        return self.random(info, mask) if self.left >= 0 else self.answer(mask)

    def __repr__(self) -> str:
        return "BadAnswer()"


BAD_ANSWERS = {  # what an opponent returns instead of one card id per game it is asked about
    "one too many": (lambda mask: mask.argmax(axis=1).repeat(2), r"int64 \(\d+,\)"),
    "one too few": (lambda mask: mask.argmax(axis=1)[1:], r"int64 \(\d+,\)"),
    "floats": (lambda mask: mask.argmax(axis=1).astype(float), r"float64 \(\d+,\)"),
    "bools": (lambda mask: mask.any(axis=1), r"bool \(\d+,\)"),
    "2-d": (lambda mask: mask.argmax(axis=1)[:, None], r"int64 \(\d+, 1\)"),
    "scalar": (lambda mask: int(mask[0].argmax()), r"int64 \(\)"),
    "None": (lambda mask: None, r"object \(\)"),
    "ragged": (lambda mask: [[1], [1, 2]], r"list \(.*inhomogeneous"),
    "strings": (lambda mask: ["QS"] * len(mask), r"<U2 \(\d+,\)"),
}


@pytest.mark.parametrize("answer", list(BAD_ANSWERS), ids=list(BAD_ANSWERS))
@pytest.mark.parametrize("vector", [False, True])
def test_an_opponents_answer_that_is_no_cards_changes_nothing_and_names_the_opponent(vector, answer, step_at_random):
    """An opponent's answer of the wrong shape or dtype is named as its illegal cards are: the game,
    the opponent's seat (and where it sits from the learner), the policy, what it returned; the env
    is as before the step."""
    make, got = BAD_ANSWERS[answer]
    opponent = _BadAnswer(make, 40 if vector else 20)
    env = HeartsVectorEnv(2, opponents=opponent) if vector else HeartsEnv(opponents=opponent)
    env.reset(seed=1)
    named = rf"^game \d: the opponent at seat (\d) \((\d) left of the learner\), BadAnswer\(\), returned {got}"
    before: list = []
    with pytest.raises(ValueError, match=named + r".*: it must return \(\d\,\) integer card ids.*; nothing changed$"):
        step_at_random(env, vector, 60, before)
    np.testing.assert_array_equal(env.state.data, before[0])
    np.testing.assert_array_equal(env.action_masks(), before[1])
    assert (env.state.to_play == before[2]).all()  # the learner, not the opponent, is to act


BAD_RESETS = {  # reset arguments refused: (vector env only, arguments, the error's start)
    "options 5": (False, {"options": 5}, "options must be a dict or None, got 5"),
    "options list": (False, {"options": ["reset_mask"]}, "options must be a dict or None"),
    "seed -1": (False, {"seed": -1}, "seed must be >= 0"),
    "seed 1.0": (False, {"seed": 1.0}, "seed must be an int >= 0"),
    "seed bytes": (True, {"seed": b"123"}, "seed must be an int >= 0"),
    "seed short list": (True, {"seed": [1, 2]}, "seed must be an int or a list of 3 seeds, got 2"),
    "seed list float": (True, {"seed": [1, 2.0, 3]}, r"seed\[1\] must be an int >= 0"),
    "mask ints": (True, {"options": {"reset_mask": np.ones(3, int)}}, r"options\['reset_mask'\] .* got int64 \(3,\)"),
    "mask short": (True, {"options": {"reset_mask": np.ones(2, bool)}}, r"options\['reset_mask'\] .* got bool \(2,\)"),
}


@pytest.mark.parametrize("case", list(BAD_RESETS), ids=list(BAD_RESETS))
def test_bad_reset_arguments_are_refused_and_change_nothing(case):
    vector_only, kwargs, message = BAD_RESETS[case]
    for env in [HeartsVectorEnv(3)] + ([] if vector_only else [HeartsEnv()]):
        env.reset(seed=5)
        before = env.state.data.copy(), env._tables.games_started.copy(), env.np_random.bit_generator.state
        with pytest.raises(ValueError, match=f"^{message}"):
            env.reset(**kwargs)
        np.testing.assert_array_equal(env.state.data, before[0])
        np.testing.assert_array_equal(env._tables.games_started, before[1])
        assert env.np_random.bit_generator.state == before[2]
