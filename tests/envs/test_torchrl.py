"""hearts_env.envs.torchrl: TorchRL's checkers and rollouts on both forms, game-by-game equality with
the AEC env (multi-agent form) and the Gymnasium env (learner form) from the same seeds and
cards, per-table resets, seeding, and bad input refused with nothing changed. Skipped where
TorchRL is not installed."""

from __future__ import annotations

import gc
import re
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from tensordict import TensorDict  # noqa: E402
from torchrl.envs import ActionMask, TransformedEnv  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

from hearts_env.engine import seeding  # noqa: E402
from hearts_env.engine.observation import observe  # noqa: E402
from hearts_env.envs.aec import raw_env  # noqa: E402
from hearts_env.envs.gym_env import HeartsEnv  # noqa: E402
from hearts_env.envs.torchrl import HeartsLearnerEnv, HeartsMultiAgentEnv  # noqa: E402
from hearts_env.play.policy import RandomPolicy  # noqa: E402

ONE_HAND = {"target_score": None}
HAND_STEPS = 64  # 4 players: 12 picks to pass, 52 cards


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random marked card of each row of (n, 52) masks."""
    return (rng.random(mask.shape) * mask).argmax(axis=-1)


@pytest.mark.processes
def test_import_hearts_env_imports_no_torch():
    code = "import sys, hearts_env, hearts_env.envs.gym_env, hearts_env.envs.aec; print('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


@pytest.mark.parametrize(
    "make", [lambda: HeartsMultiAgentEnv(4, **ONE_HAND), lambda: HeartsLearnerEnv(4, learner_seat="rotate", **ONE_HAND)]
)
def test_specs_check_and_masked_random_rollouts(make):
    env = make()
    check_env_specs(env, seed=0)
    group = isinstance(env, HeartsMultiAgentEnv)
    keys = (("agents", "action"), ("agents", "action_mask")) if group else ("action", "action_mask")
    masked = TransformedEnv(make(), ActionMask(*keys))
    check_env_specs(masked, seed=0)
    for table in (env, masked):  # random legal cards from the action spec's mask (an illegal one raises)
        rollout = table.rollout(HAND_STEPS + 5, break_when_any_done=False)
        legal = rollout.get(keys[1]).gather(-1, rollout.get(keys[0]).unsqueeze(-1)).squeeze(-1)
        assert legal.all()
        assert rollout["next", "done"].sum().item() >= 4  # every table finished a game and went on


@pytest.mark.parametrize(("mode", "players"), [("points", 4), ("zero_sum", 3), ("win", 4)])
def test_multi_agent_tables_play_as_aec_envs(mode, players):
    """Table i after set_seed(s) is raw_env reset with seed s + i (then reset without a seed after
    each game): the same deals, observations of every seat, masks, and rewards (what last() pays
    each seat when its turn comes, or at the end), with random cards at the seats not to act."""
    B, s, rng = 3, 11, np.random.default_rng(0)
    env = HeartsMultiAgentEnv(B, reward=mode, num_players=players, **ONE_HAND)
    env.set_seed(s)
    td = env.reset()
    tables = [raw_env(reward=mode, num_players=players, **ONE_HAND) for _ in range(B)]
    for i, table in enumerate(tables):
        table.reset(seed=s + i)
    games, totals = 0, np.zeros((B, players))
    while games < 2 * B:  # two games a table: across a reset
        obs, masks, acting = (td["agents", key].numpy() for key in ("observation", "action_mask", "mask"))
        actions = rng.integers(-9, 70, size=(B, players))  # ignored at the seats not to act
        for i, table in enumerate(tables):
            assert np.array_equal(env.state.hands[i], table.core_state.hands[0])
            for seat, agent in enumerate(table.possible_agents):
                assert np.array_equal(obs[i, seat], table.observe(agent)["observation"])
            seat = table.possible_agents.index(table.agent_selection)
            assert np.flatnonzero(acting[i]).tolist() == [seat]
            assert np.array_equal(masks[i, seat], table.observe(table.agent_selection)["action_mask"] == 1)
            assert masks[i, np.arange(players) != seat].all()  # the others: every card (ignored)
            actions[i, seat] = random_legal(masks[i, seat], rng)
            table.step(int(actions[i, seat]))
        td["agents", "action"] = torch.from_numpy(actions)
        out, td = env.step_and_maybe_reset(td)
        rewards = out["next", "agents", "reward"][..., 0].numpy()
        totals += rewards
        for i, table in enumerate(tables):
            over = bool(out["next", "done"][i])
            assert out["next", "agents", "done"][i].all().item() is over
            if over:  # every seat gets its last rewards; the table's next game follows
                for seat in range(players):
                    _, paid, terminated, _, _ = table.last()
                    assert terminated and rewards[i, seat] == pytest.approx(paid, abs=1e-5)
                    table.step(None)
                if mode == "points":  # a seat's rewards sum to minus its hand's score
                    assert np.array_equal(totals[i], -table.core_state.scores[0])
                totals[i] = 0
                table.reset()
                games += 1
            else:  # only the seat to act next is paid
                seat = table.possible_agents.index(table.agent_selection)
                _, paid, _, _, _ = table.last()
                assert rewards[i, seat] == pytest.approx(paid, abs=1e-5)
                assert not rewards[i, np.arange(players) != seat].any()
    assert env.state.key.tolist() == [int(seeding.game_keys(s + i, 2)) for i in range(B)]


def test_learner_tables_play_as_gymnasium_envs():
    B, s, rng = 3, 5, np.random.default_rng(1)
    knobs = dict(learner_seat="rotate", reward="points", **ONE_HAND)
    env = HeartsLearnerEnv(B, **knobs)
    env.set_seed(s)
    td = env.reset()
    singles = [HeartsEnv(**knobs) for _ in range(B)]
    observations, infos = [], []
    for i, single in enumerate(singles):
        obs, info = single.reset(seed=s + i)
        observations.append(obs)
        infos.append(info)
    episodes = 0
    while episodes < 2 * B:
        masks = td["action_mask"].numpy()
        cards = random_legal(masks, rng)
        for i in range(B):
            assert np.array_equal(td["observation"][i].numpy(), observations[i])
            assert np.array_equal(masks[i], infos[i]["action_mask"])
        td["action"] = torch.from_numpy(cards)
        out, td = env.step_and_maybe_reset(td)
        for i, single in enumerate(singles):
            obs, reward, terminated, _, infos[i] = single.step(int(cards[i]))
            assert out["next", "reward"][i].item() == reward
            assert out["next", "done"][i].item() is terminated
            assert np.array_equal(out["next", "observation"][i].numpy(), obs)
            observations[i] = obs
            if terminated:
                observations[i], infos[i] = single.reset()
                episodes += 1


def test_hand_episodes_go_on_with_the_game():
    """episode="hand": each hand is an episode whose rewards sum, per seat, to minus its hand
    score; the reset after it deals on in the same game until the game is over."""
    env = HeartsMultiAgentEnv(2, episode="hand", target_score=40)
    env.set_seed(3)
    td, rng = env.reset(), np.random.default_rng(0)
    returns, hands, games, continued = torch.zeros(2, 4), [1, 1], [0, 0], 0
    while min(games) < 1:
        masks, acting = td["agents", "action_mask"], td["agents", "mask"]
        action = torch.zeros((2, 4), dtype=torch.int64)
        action[acting] = torch.from_numpy(random_legal(masks[acting].numpy(), rng))
        td["agents", "action"] = action
        out, td = env.step_and_maybe_reset(td)
        returns += out["next", "agents", "reward"][..., 0]
        for i in np.flatnonzero(out["next", "done"][:, 0].numpy()):
            state = env.state[int(i)]  # after the reset
            if state.key[0] == seeding.game_keys(3 + int(i), games[i]):  # the same game: its next hand
                hands[i], continued = hands[i] + 1, continued + 1
                assert state.hand_number[0] == hands[i] and state.scores[0].any()
                assert torch.equal(returns[i], -torch.from_numpy(state.last_hand_points[0]).float())
            else:  # the game was over: the table's next game
                games[i] += 1
                hands[i] = 1
                assert state.key[0] == seeding.game_keys(3 + int(i), games[i]) and state.hand_number[0] == 1
            returns[i] = 0
    assert continued >= 2  # games to 40 last several hands


def test_partial_resets_restart_only_the_marked_tables():
    B, s = 3, 2
    env = HeartsMultiAgentEnv(B, **ONE_HAND)
    env.set_seed(s)
    td = env.rollout(10, break_when_any_done=False)[..., -1]["next"]
    for key in ("_reset", ("agents", "_reset")):
        before = env.state.data.copy()
        marks = torch.zeros((B, 1), dtype=torch.bool) if key == "_reset" else torch.zeros((B, 4, 1), dtype=torch.bool)
        marks[1] = True
        td.set(key, marks)
        td = env.reset(td)
        td.pop(key, None)
        after = env.state
        assert np.array_equal(after.data[[0, 2]], before[[0, 2]])  # untouched
        games = 1 if key == "_reset" else 2  # game 0 was the first; each reset starts the next
        assert after.key[1] == seeding.game_keys(s + 1, games) and after.hand_number[1] == 1
        assert np.array_equal(td["agents", "observation"][1, 0].numpy(), observe(env.state[1], 0, env.layout)[0])


def test_the_learner_envs_partial_resets_restart_only_the_marked_tables():
    """``HeartsLearnerEnv`` reads a ``"_reset"`` entry (B, 1) and an ``("agents", "_reset")`` entry
    (B, P, 1), as its docstring says: only the tables marked (any seat of them) restart."""
    B = 3
    env = HeartsLearnerEnv(B, opponents=RandomPolicy(seed=0), **ONE_HAND)
    env.set_seed(5)
    td = env.rollout(6, break_when_any_done=False)[..., -1]["next"]
    for key, shape in (("_reset", (B, 1)), (("agents", "_reset"), (B, 4, 1))):
        before = env.vector_env.state.data.copy()
        marks = torch.zeros(shape, dtype=torch.bool)
        marks[1, -1] = True  # the table's last seat (the learner env has no seats of its own)
        td.set(key, marks)
        td = env.reset(td)
        td.pop(key, None)
        after = env.vector_env.state
        np.testing.assert_array_equal(after.data[[0, 2]], before[[0, 2]])  # untouched
        assert not np.array_equal(after.data[1], before[1]) and after.hand_number[1] == 1
        assert int(np.bitwise_count(after.played[1]).sum()) <= 3  # at most the opponents' cards before its turn


def test_seeds_reproduce_and_differ():
    def first_rollout(seed):
        torch.manual_seed(0)  # the random policy's cards
        env = HeartsMultiAgentEnv(2)
        env.set_seed(seed)
        return env.rollout(20)

    a, b, c = first_rollout(3), first_rollout(3), first_rollout(4)
    assert (a == b).all()
    assert not torch.equal(a["agents", "observation"], c["agents", "observation"])


# ---------------------------------------------------------------------------------------------
# Bad input


def started(env):
    env.set_seed(0)
    td = env.reset()
    snapshot = env.state.data.copy() if isinstance(env, HeartsMultiAgentEnv) else env.vector_env.state.data.copy()
    return td, snapshot


def state_of(env) -> np.ndarray:
    return env.state.data if isinstance(env, HeartsMultiAgentEnv) else env.vector_env.state.data


def test_multi_agent_bad_actions_are_refused_and_change_nothing():
    B = 3
    env = HeartsMultiAgentEnv(B)
    td, snapshot = started(env)
    seats = td["agents", "mask"].int().argmax(-1)
    masks = td["agents", "action_mask"]
    legal = torch.stack([masks[i, seats[i]].int().argmax() for i in range(B)])
    held = env.state.hands[1, int(seats[1])]
    not_held = next(c for c in range(52) if not int(held) >> c & 1)

    def attempt(actions):
        td["agents", "action"] = actions
        env.step(td)

    good = torch.zeros((B, 4), dtype=torch.int64)
    good[torch.arange(B), seats] = legal
    with pytest.raises(
        ValueError, match=r"\('agents', 'action'\) must be integer card ids \(0..51\) of shape \(3, 4\)"
    ):
        attempt(good[..., None])  # (3, 4, 1): TensorDict itself refuses fewer dimensions
    with pytest.raises(ValueError, match="got torch.float32"):
        attempt(good.float())
    bad = good.clone()
    bad[2, seats[2]] = 52
    with pytest.raises(
        ValueError, match=rf"env 2: seat {int(seats[2])}, the seat to act, chose action 52, which is not"
    ):
        attempt(bad)
    bad = good.clone()
    bad[1, seats[1]] = not_held
    with pytest.raises(ValueError, match=rf"env 1: seat {int(seats[1])}, the seat to act, chose .* does not hold it"):
        attempt(bad)
    assert np.array_equal(state_of(env), snapshot)
    attempt(good)  # the table goes on
    assert not np.array_equal(state_of(env), snapshot)


def test_learner_bad_actions_are_refused_and_change_nothing():
    env = HeartsLearnerEnv(2)
    td, snapshot = started(env)
    legal = td["action_mask"].int().argmax(-1)
    with pytest.raises(
        ValueError, match=r"action must be integer card ids \(0..51\) of shape \(2,\), got torch.int64 \(2, 1\)"
    ):
        td["action"] = legal[:, None]
        env.step(td)
    td["action"] = torch.tensor([int(legal[0]), -1])
    with pytest.raises(ValueError, match="env 1: seat 0, the seat to act, chose action -1"):
        env.step(td)
    td["action"] = torch.tensor([int(legal[0]), int(env.vector_env.state.hands[1, 1]).bit_length() - 1])
    with pytest.raises(ValueError, match="env 1: seat 0, the seat to act, chose .* does not hold it"):
        env.step(td)
    assert np.array_equal(state_of(env), snapshot)


@pytest.mark.parametrize("make", [lambda: HeartsMultiAgentEnv(2, **ONE_HAND), lambda: HeartsLearnerEnv(2, **ONE_HAND)])
def test_steps_after_the_end_need_a_reset(make):
    env = make()
    env.set_seed(0)
    td = env.reset()
    rng = np.random.default_rng(0)
    group = isinstance(env, HeartsMultiAgentEnv)
    key = ("agents", "action") if group else "action"
    mask_key = ("agents", "action_mask") if group else "action_mask"
    while not td["done"].all():
        td[key] = torch.from_numpy(random_legal(td[mask_key].numpy(), rng))
        td = env.step(td)["next"]
    snapshot = state_of(env).copy()
    td[key] = env.full_action_spec[key].zero()
    with pytest.raises(RuntimeError, match=r"env 0: the episode is over \(envs over: \[0, 1\]\): reset"):
        env.step(td)
    assert np.array_equal(state_of(env), snapshot)
    td.set("_reset", torch.tensor([[True], [False]]))
    td = env.reset(td)
    with pytest.raises(RuntimeError, match=r"env 1: the episode is over \(envs over: \[1\]\)"):
        env.step(td)


def bookkeeping(env) -> list[np.ndarray]:
    """Everything a reset or a step may change: the state and the env's own arrays."""
    if isinstance(env, HeartsMultiAgentEnv):
        held = [env._game_seed, env._games_started, env._pending, env._ended]
        return [a.copy() for a in held] + ([] if env.state is None else [env.state.data.copy()])
    tables = env.vector_env._tables
    held = [env._seed_pending, np.array(env._seeds, np.uint64), env._masks, env.vector_env._autoreset]
    held += [getattr(tables, name) for name in tables._SAVED]
    return [a.copy() for a in held] + ([] if tables.state is None else [tables.state.data.copy()])


def assert_unchanged(before: list[np.ndarray], after: list[np.ndarray]) -> None:
    assert len(before) == len(after)
    for a, b in zip(before, after, strict=True):
        np.testing.assert_array_equal(a, b)


MAKERS = {"multi": lambda: HeartsMultiAgentEnv(3, **ONE_HAND), "learner": lambda: HeartsLearnerEnv(3, **ONE_HAND)}
BAD_RESETS = {  # what a _reset entry of shape (B, 1) (the group's: (B, P, 1)) holds instead of bools of its shape
    "float": lambda shape: torch.zeros(shape).index_fill_(0, torch.tensor([1]), 1.0),
    "int": lambda shape: torch.ones(shape, dtype=torch.int64),
    "uint8": lambda shape: torch.ones(shape, dtype=torch.uint8),
    "no trailing 1": lambda shape: torch.ones(shape[:-1], dtype=torch.bool),
    "wide": lambda shape: torch.ones((*shape[:-1], 2), dtype=torch.bool),
    "sparse": lambda shape: torch.ones(shape).bool().to_sparse(),
    "meta": lambda shape: torch.ones(shape, dtype=torch.bool, device="meta"),
    "text": lambda shape: "yes",
}


@pytest.mark.parametrize("started_first", [True, False], ids=["started", "unstarted"])
@pytest.mark.parametrize("bad", list(BAD_RESETS), ids=list(BAD_RESETS))
@pytest.mark.parametrize(
    ("env_name", "key"),
    [("multi", "_reset"), ("multi", ("agents", "_reset")), ("learner", "_reset"), ("learner", ("agents", "_reset"))],
)
def test_bad_reset_entries_are_refused_before_any_table_restarts(env_name, key, bad, started_first):
    """A ``_reset`` entry that is not a bool tensor of its done entry's shape ((B, 1); the group's
    (B, P, 1)) is refused naming the key, before anything restarts: the state, seeds and counters
    are as they were (a float (B, 1) entry used to restart the tables it marked)."""
    env = MAKERS[env_name]()
    env.set_seed(1)
    td = env.rollout(5, break_when_any_done=False)[..., -1]["next"] if started_first else TensorDict({}, [3])
    td.clear_device_()  # else the tensordict itself refuses a meta tensor
    shape = (3, 1) if key == "_reset" else (3, 4, 1)
    if key != "_reset" and not started_first:
        td.set("agents", TensorDict({}, [3, 4]))
    value = BAD_RESETS[bad](shape)
    td.set(key, value)
    before = bookkeeping(env)
    name = re.escape(key if key == "_reset" else repr(key))
    got = "got (NonTensorData|str)" if bad == "text" else re.escape(f"got {value.dtype} {tuple(value.shape)}")
    with pytest.raises(ValueError, match=rf"^{name} must be .*bools of shape {re.escape(str(shape))}.* {got}"):
        env.reset(td)
    assert_unchanged(before, bookkeeping(env))
    td.set(key, torch.zeros(shape, dtype=torch.bool))
    td.get(key)[1] = True
    if started_first:  # a good entry then restarts the table it marks, and only it
        kept = bookkeeping(env)[-1]
        env.reset(td)
        after = bookkeeping(env)[-1]
        np.testing.assert_array_equal(after[[0, 2]], kept[[0, 2]])
        assert not np.array_equal(after[1], kept[1])


@pytest.mark.parametrize("make", list(MAKERS.values()), ids=list(MAKERS))
def test_seeds_are_checked_and_wrap_as_everywhere_else(make):
    """``set_seed`` takes the project's seeds (``seeding.check_seed``): an int >= 0, numpy ints
    included, 2**64 and up counting modulo 2**64 (table i takes seed (s + i) mod 2**64, so table 1
    of 2**64 - 1 is table 0 of seed 0); anything else is refused naming the seed, changing nothing."""

    def first_states(seed):
        env = make()
        env.set_seed(seed)
        env.reset()
        return bookkeeping(env)[-1]

    zero = first_states(0)
    for seed in (2**64, 2**65, np.uint64(0), np.int64(0)):
        np.testing.assert_array_equal(first_states(seed), zero)
    np.testing.assert_array_equal(first_states(2**64 - 1)[1], zero[0])
    np.testing.assert_array_equal(first_states(2**64 + 7), first_states(7))
    env = make()
    env.set_seed(3)
    env.reset()
    before = bookkeeping(env)
    for seed in (-1, 1.0, True, np.bool_(False), "3", np.float64(2), [1], -(2**64)):
        with pytest.raises(ValueError, match=r"^seed must be (an int )?>= 0"):
            env.set_seed(seed)
        assert_unchanged(before, bookkeeping(env))


BAD_ACTIONS = {  # (what the action entry holds instead of integer card ids of its shape, the error's end)
    "float": (lambda good: good.double(), "got torch.float64"),
    "bool": (lambda good: good.bool(), "got torch.bool"),
    "complex": (lambda good: good.to(torch.complex64), "got torch.complex64"),
    "extra dim": (lambda good: good[..., None], "got torch.int64 .*, 1\\)"),
    "sparse": (lambda good: good.to_sparse(), "got torch.int64 .* torch.sparse_coo"),
    "meta": (lambda good: good.to("meta"), "readable on the CPU, got torch.int64 .* on meta"),
    "text": (lambda good: "QS", "got (NonTensorData|str)"),
    "huge uint64": (lambda good: (good + 2**63 + 5).to(torch.uint64), r"chose action 92233720368547758\d\d, which"),
    "negative": (lambda good: good - 100, "chose action -\\d+, which is not a card id"),
}


@pytest.mark.parametrize("bad", list(BAD_ACTIONS), ids=list(BAD_ACTIONS))
@pytest.mark.parametrize("env_name", list(MAKERS))
def test_bad_action_entries_are_refused_and_change_nothing(env_name, bad):
    """Every kind of action entry that is not card ids the seat to act holds is one ValueError
    naming the key or the env and the seat, and the env is as it was (a good action then plays)."""
    env = MAKERS[env_name]()
    env.set_seed(2)
    td = env.reset()
    td.clear_device_()  # else the tensordict itself refuses a meta tensor
    group = env_name == "multi"
    key = ("agents", "action") if group else "action"
    if group:
        legal = td["agents", "action_mask"].int().argmax(-1)  # the seat to act's legal card (others: any)
    else:
        legal = td["action_mask"].int().argmax(-1)
    make, got = BAD_ACTIONS[bad]
    td.set(key, make(legal))
    before = bookkeeping(env)
    name = re.escape(repr(key) if group else key)
    with pytest.raises(ValueError, match=rf"^({name} must be .*integer card ids .* {got}|env 0: seat \d, .*{got})"):
        env.step(td)
    assert_unchanged(before, bookkeeping(env))
    td.set(key, legal)
    env.step(td)
    assert not np.array_equal(bookkeeping(env)[-1], before[-1])


BAD_ARGUMENTS = {  # constructor arguments refused: (the envs taking it, arguments, the error's start)
    "num_envs 0": ("both", {"num_envs": 0}, "num_envs must be a positive int"),
    "num_envs 2.0": ("both", {"num_envs": 2.0}, "num_envs must be a positive int"),
    "num_envs True": ("both", {"num_envs": True}, "num_envs must be a positive int"),
    "num_envs huge": ("both", {"num_envs": 10**13}, "10,000,000,000,000 tables needs about"),
    "rules": ("both", {"rules": "standard"}, "rules must be a HeartsRules"),
    "knob": ("both", {"num_players": 2}, "num_players must be in 3..7"),
    "reward": ("both", {"reward": "score"}, "reward must be one of"),
    "episode": ("both", {"episode": "trick"}, "episode must be one of"),
    "history": ("both", {"history": 1}, "history must be True or False"),
    "opponents 5": ("learner", {"opponents": 5}, "opponents must be a Policy or a list of 3 policies"),
    "learner_seat": ("learner", {"learner_seat": -1}, "learner_seat must be a seat 0..3"),
}


@pytest.mark.parametrize("case", list(BAD_ARGUMENTS), ids=list(BAD_ARGUMENTS))
def test_bad_constructor_arguments_are_one_error_and_nothing_on_stderr(case, capfd):
    """Every argument of both envs is checked (naming it) before anything is built, and the refused
    object leaves nothing that prints when it is collected (the vector env inside included)."""
    taking, kwargs, message = BAD_ARGUMENTS[case]
    makers = {"multi": HeartsMultiAgentEnv, "learner": HeartsLearnerEnv}
    for name, make in makers.items():
        if taking in ("both", name):
            with pytest.raises(ValueError, match=f"^{message}"):
                make(**{"num_envs": 2, **kwargs})
    gc.collect()
    assert capfd.readouterr().err == ""
