"""hearts-bench: the frozen suite v1 (its deal hashes and pool still as recorded), the test split
out of training's reach, every kind of candidate, the time limit, reports equal on a rerun,
sharded or resumed, compare and the leaderboard, and the command line's one-line errors.

Most tests run a tiny suite of the same form as v1 (a few deals, fast agents): conftest.py's ``tiny``."""

from __future__ import annotations

import ast
import copy
import importlib
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from hearts_env.agents import make_agent
from hearts_env.agents.learned.hashing import weights_hash
from hearts_env.agents.rule_based.heuristic import HeuristicPolicy
from hearts_env.agents.specs import agent_from_spec
from hearts_env.arena import MatchPlan, play_match
from hearts_env.bench import bench_report as reports
from hearts_env.bench import cli as bench_cli
from hearts_env.bench import compare, deals, identity, load, per_game_policy, run
from hearts_env.bench import leaderboard as leaderboards
from hearts_env.bench.candidates import CandidateError, TimeLimited, load_candidate
from hearts_env.bench.suite import BenchError, freeze, load_suite, load_suite_file
from hearts_env.engine import core, seeding
from hearts_env.engine.observation import ObservationLayout, encode
from hearts_env.engine.rules import HeartsRules
from hearts_env.envs import aec

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def heuristic_report(tiny):
    return run("heuristic", version=str(tiny))


def without_checksum(report):
    return reports.figures(report)


# ---------------------------------------------------------------------------------------------
# Suites v1 and v2 as frozen

V1_POOL = {"random", "simple", "heuristic", "pimc", "ppo", "pimc-ppo"}
FROZEN = {
    "v1": ({"standard", "games", "mixed", "variants"}, V1_POOL),
    "v2": ({"standard", "games", "mixed", "variants", "variants-ppo"}, V1_POOL | {"ppo-family"}),
}


@pytest.mark.parametrize("version", list(FROZEN))
def test_each_version_is_frozen_as_recorded(version: str) -> None:
    """Every deal set of a version hashes as recorded, and every pool member plays as recorded: a
    change of the dealing code or of a member's play fails here (make a new version: docs/benchmark.md)."""
    suite = load_suite(version)
    assert (set(suite.tracks), set(suite.pool)) == FROZEN[version]
    for split in suite.splits:
        suite.check_deals(split, suite.tracks.values())
    members = {name: member.build(suite.agent_seed) for name, member in suite.pool.items()}
    assert suite.check_pool(suite.identify(members)) == []
    for name in suite.pool.keys() & {"ppo", "ppo-family"}:
        assert suite.record["pool"][name]["weights"] == weights_hash(make_agent(name))


def test_v2_keeps_v1_s_tables_and_adds_the_family_s() -> None:
    """v2's four-player tracks are v1's, deal for deal; its variants keep v1's five tables' deals
    and add 6 players and Cancellation Hearts for 6 and 10; the track against ppo-family plays the
    same tables and deals."""
    v1, v2 = load_suite("v1"), load_suite("v2")
    for name in ("standard", "games", "mixed"):
        assert v2.tracks[name] == v1.tracks[name]
    for split in v2.splits:
        for table in v1.tracks["variants"].tables:
            assert v2.record["deals"][split][f"variants/{table}"] == v1.record["deals"][split][f"variants/{table}"]
        for table in v2.tracks["variants"].tables:
            key = f"variants/{table}"
            assert v2.record["deals"][split][f"variants-ppo/{table}"] == v2.record["deals"][split][key]
    variants = v2.tracks["variants"]
    tables = {(t.rules.num_players, t.rules.decks, t.rules.jack_of_diamonds) for t in variants.tables.values()}
    assert tables == {(3, 1, False), (5, 1, False), (6, 1, False), (7, 1, False), (4, 1, True)} | {
        (n, 2, False) for n in (6, 8, 10)
    }
    assert {m.opponents for m in variants.matches} == {("heuristic",)}
    assert {m.opponents for m in v2.tracks["variants-ppo"].matches} == {("ppo-family",)}


@pytest.mark.parametrize("version", list(FROZEN))
def test_the_test_split_is_out_of_training_reach(version: str) -> None:
    """Training draws game keys from seeding.GAMES with its seeds (each seed's games, and each game's
    own seed in the vector environments): none is a key of the version's test deals; no training module
    names the benchmark's streams or splits but the exploitability measurement, which evaluates on them."""
    suite = load_suite(version)
    # a deal set is its seed's keys: tables of one seed (v2's variants and its ppo-family track) share them
    sets = {(t.deal_seed, t.deals) for track in suite.tracks.values() for t in track.tables.values()}
    test_keys = np.concatenate([deals.split_keys("test", seed, n) for seed, n in sets])
    dev_keys = np.concatenate([deals.split_keys("dev", seed, n) for seed, n in sets])
    assert len(np.unique(np.concatenate([test_keys, dev_keys]))) == len(test_keys) + len(dev_keys)
    seeds = np.arange(512, dtype=np.uint64)
    training = [
        seeding.derive(seeds[:, None], seeding.GAMES, np.arange(4096)[None, :]).ravel(),  # seed s, games 0..4095
        seeding.game_keys(np.arange(2**20, dtype=np.uint64), 0),  # game i of a vector env seeded s: seed s + i
        seeding.derive(seeds[:, None], seeding.COLLECTION, np.arange(64)[None, :]).ravel(),  # workers' seeds
    ]
    for keys in training:
        assert not np.isin(test_keys, keys).any()
    # exploit.py measures a trained best response on the test deals after training (its training
    # deals come from the trainer's seeds, checked above); no other training module names them.
    for path in set((REPO / "train").glob("*.py")) - {REPO / "train" / "exploit.py"}:
        names = {
            n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", None)
            for n in ast.walk(ast.parse(path.read_text()))
        }
        assert not names & {"BENCH_TEST", "BENCH_DEV", "SPLIT_STREAMS", "split_keys"}, path


def test_a_deal_hash_covers_the_keys_and_the_dealing() -> None:
    keys = deals.split_keys("test", 1, 20)
    rules = HeartsRules()
    assert deals.deal_hash(rules, keys) == deals.deal_hash(rules, keys.copy())
    assert deals.deal_hash(rules, keys[:19]) != deals.deal_hash(rules, keys)
    assert deals.deal_hash(HeartsRules(num_players=5), keys) != deals.deal_hash(rules, keys)  # other deals
    two = HeartsRules(num_players=8, decks=2)
    assert deals.deal_hash(two, keys) != deals.deal_hash(HeartsRules(num_players=8, decks=2, pass_count=2), keys[::-1])
    with pytest.raises(ValueError, match="unknown split 'train'"):
        deals.split_keys("train", 1, 3)


def test_a_deal_set_that_hashes_otherwise_is_refused_naming_the_track(tiny, tmp_path) -> None:
    data = json.loads(tiny.read_text())
    data["record"]["deals"]["test"]["games/standard"] = "0" * 64
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    with pytest.raises(BenchError, match="track 'games': the test deals of table 'standard' hash to"):
        run("random", version=str(edited))
    run("random", version=str(edited), tracks=["standard"])  # the other tracks still play


# ---------------------------------------------------------------------------------------------
# Fingerprints and the pool


def test_fingerprints_see_play_not_code() -> None:
    tables = {"standard": HeartsRules(target_score=None), "3p": HeartsRules(num_players=3, target_score=None)}

    class Delegating:  # a refactor: other code, the same cards
        def __init__(self) -> None:
            self.inner = HeuristicPolicy()

        def __call__(self, info, mask):
            return self.inner(info, mask).copy()

    base = identity.fingerprint(HeuristicPolicy(), tables, 4)
    assert identity.fingerprint(HeuristicPolicy(), tables, 4) == base
    assert identity.fingerprint(Delegating(), tables, 4) == base
    assert identity.fingerprint(make_agent("simple"), tables, 4) != base
    assert identity.fingerprint(agent_from_spec("heuristic:spade_guard=13", 0), tables, 4) != base
    info, mask = identity.positions(HeartsRules(), 3)
    assert len(mask) == 3 * identity.SNAPSHOTS and mask.any(axis=1).all()
    assert (info.phase == core.PASS).any() and (info.phase == core.PLAY).any()


def test_a_modified_pool_member_is_refused_unless_allowed(tiny, tmp_path) -> None:
    data = json.loads(tiny.read_text())
    data["pool"]["simple"]["spec"] = "heuristic"  # the member now plays otherwise than recorded
    edited = tmp_path / "modified.json"
    edited.write_text(json.dumps(data))
    with pytest.raises(BenchError, match="pool member 'simple': decisions fingerprint .* --allow-modified"):
        run("random", version=str(edited), tracks=["standard"])
    report = run("random", version=str(edited), tracks=["standard"], allow_modified=True)
    assert report["suite"] == "tiny+modified" and not report["frozen"]
    assert any("'simple'" in line for line in report["modified"])
    with pytest.raises(BenchError, match="frozen already"):
        freeze(tiny)


def test_weights_hashes_follow_the_arrays() -> None:
    ppo = make_agent("ppo")
    assert weights_hash(ppo) == weights_hash(make_agent("pimc-ppo"))  # its network
    assert weights_hash(make_agent("heuristic")) is None
    other = make_agent("ppo")
    other.layers[0][1][0] += 1e-3
    assert weights_hash(other) != weights_hash(ppo)


# ---------------------------------------------------------------------------------------------
# Candidates


def write_module(folder: Path, name: str, source: str) -> None:
    (folder / f"{name}.py").write_text(textwrap.dedent(source))


@pytest.fixture
def user_agents(tmp_path, monkeypatch):
    """A module of factories, importable as ``user_agents``."""
    write_module(
        tmp_path,
        "user_agents",
        """
        import time
        import numpy as np
        from hearts_env.agents import make_agent
        from hearts_env.bench import per_game_policy
        from hearts_env.engine.core import bits_to_mask

        def make(seed=None, kind="heuristic"):
            return make_agent(kind)

        def broken():
            raise RuntimeError("no weights here")

        def not_a_policy():
            return 42

        def per_game():
            ppo = make_agent("ppo")
            return per_game_policy(lambda observation, mask: ppo.act(observation[None], mask[None])[0])

        class Lowest:
            def __call__(self, info, mask):
                return mask.argmax(axis=1)

        class Cheat:
            def __init__(self):
                self.calls = 0

            def __call__(self, info, mask):  # legal cards for a while, then a card it does not hold
                self.calls += 1
                return mask.argmax(axis=1) if self.calls < 250 else bits_to_mask(~info.hand).argmax(axis=1)

        class Hangs:
            def __init__(self):
                self.calls = 0

            def __call__(self, info, mask):
                self.calls += 1
                if self.calls > 250:
                    while True:
                        time.sleep(0.01)
                return mask.argmax(axis=1)

        class Raises:
            def __init__(self):
                self.calls = 0

            def __call__(self, info, mask):
                self.calls += 1
                if self.calls > 250:
                    raise ZeroDivisionError("division by zero in my agent")
                return mask.argmax(axis=1)
        """,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("user_agents", None)
    return tmp_path


def test_every_kind_of_candidate_is_built_or_refused_in_one_line(user_agents, tmp_path) -> None:
    assert load_candidate("pimc:worlds=4").policy.worlds == 4
    assert load_candidate("trained:path=" + str(REPO / "agents/policies/ppo")).weights_sha256 == (
        weights_hash(make_agent("ppo"))
    )
    made = load_candidate("user_agents:make:kind='simple'")
    assert made.kind == "factory" and type(made.policy).__name__ == "SimplePolicy"
    assert load_candidate(HeuristicPolicy(), name="mine").kind == "object"
    refused = {
        "no_such_agent": "unknown agent 'no_such_agent'",
        "pimc:worlds=0": "cannot be built: agent .pimc:worlds=0.: worlds must be an int >= 1, got 0",
        "trained:path=/nowhere": "missing file",
        str(tmp_path / "missing.zip"): "missing file",
        "user_agents:broken": "the factory raised RuntimeError: no weights here",
        "user_agents:not_a_policy": "returned int 42, not a Policy",
        "user_agents:absent": "has no attribute 'absent'",
        "no_such_module:make": "cannot import 'no_such_module'",
    }
    for spec, message in refused.items():
        with pytest.raises(BenchError, match=message):
            load_candidate(spec)
    with pytest.raises(BenchError, match="is not a policy"):
        load_candidate(HeuristicPolicy)


def test_the_per_game_adapter_sees_what_the_aec_env_gives(user_agents) -> None:
    """A per-game callable over the AEC env's observation plays exactly as the batched policy, and
    plays a whole AEC game with the observations and masks the env gives it."""
    ppo = make_agent("ppo")
    adapted = load_candidate("user_agents:per_game").policy
    info, mask = identity.positions(HeartsRules(), 4)
    assert np.array_equal(adapted(info, mask), ppo(info, mask))
    env = aec.env()
    env.reset(seed=3)
    act = adapted.act
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        card = None if terminated or truncated else int(act(observation["observation"], observation["action_mask"]))
        env.step(card)
    with pytest.raises(ValueError, match="needs a callable"):
        per_game_policy(3)


@pytest.fixture(scope="module")
def sb3_models(tmp_path_factory):
    """Tiny MaskablePPO models saved by SB3: one of this project's 4-player env, one of 3 players."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from hearts_env.envs.sb3 import SB3VecEnv

    folder = tmp_path_factory.mktemp("sb3")
    paths = {}
    for players in (4, 3):
        env = SB3VecEnv(num_envs=4, num_players=players)
        kwargs = {"net_arch": [32], "activation_fn": torch.nn.ReLU} if players == 4 else {"net_arch": [16, 16]}
        model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, policy_kwargs=kwargs)
        model.learn(256)
        paths[players] = folder / f"model{players}.zip"
        model.save(paths[players])
    return paths


def test_an_sb3_model_plays_as_its_deterministic_predict_without_unpickling(sb3_models, tmp_path) -> None:
    from sb3_contrib import MaskablePPO

    candidate = load_candidate(str(sb3_models[4]))
    assert candidate.kind == "sb3" and candidate.weights_sha256 is not None
    model = MaskablePPO.load(sb3_models[4])
    info, mask = identity.positions(HeartsRules(), 8)
    predicted, _ = model.predict(encode(info, ObservationLayout(HeartsRules())), action_masks=mask, deterministic=True)
    assert np.array_equal(candidate.policy(info, mask), predicted)
    three = load_candidate(str(sb3_models[3]))  # Tanh by default, two hidden layers
    assert three.policy.rules.num_players == 3 and three.policy.activation is np.tanh
    with pytest.raises(ValueError, match="trained with num_players=3, the table has num_players=4"):
        three.policy(info, mask)
    import zipfile

    broken = tmp_path / "other.zip"
    with zipfile.ZipFile(sb3_models[4]) as source, zipfile.ZipFile(broken, "w") as target:
        for item in source.namelist():
            data = source.read(item)
            if item == "data":
                meta = json.loads(data)
                meta["observation_space"]["_shape"] = [700]
                data = json.dumps(meta).encode()
            target.writestr(item, data)
    with pytest.raises(BenchError, match="observations have 700 entries, the size of no observation layout"):
        load_candidate(str(broken))
    (tmp_path / "junk.zip").write_bytes(b"not a zip")
    with pytest.raises(BenchError, match="corrupt file"):
        load_candidate(str(tmp_path / "junk.zip"))


def test_a_model_for_other_tables_plays_only_the_tracks_it_can(sb3_models, tiny) -> None:
    report = run(str(sb3_models[3]), version=str(tiny), quick=True, name="three")
    assert report["tracks"]["standard"]["status"] == report["tracks"]["games"]["status"] == "skipped"
    assert "num_players=3, the table has num_players=4" in report["tracks"]["standard"]["skipped"]["standard"]
    assert report["tracks"]["variants"]["status"] == "played"
    with pytest.raises(BenchError, match="cannot play track 'standard'"):
        run(str(sb3_models[3]), version=str(tiny), tracks=["standard"], quick=True)


# ---------------------------------------------------------------------------------------------
# Failures while playing: one line, finished blocks kept


def test_the_time_limit_interrupts_a_hang_and_spares_compiling() -> None:
    class Sleepy:
        def __call__(self, info, mask):
            time.sleep(30)

    info, mask = identity.positions(HeartsRules(), 1)
    start = time.perf_counter()
    with pytest.raises(CandidateError, match=r"agent 'sleepy' took 0\.\d s over 8 decision\(s\), past its time limit"):
        TimeLimited(Sleepy(), "sleepy", limit=0.05)(info, mask)
    assert time.perf_counter() - start < 5
    with pytest.raises(CandidateError, match="agent 'bad' raised KeyError"):
        TimeLimited(lambda info, mask: {}[1], "bad")(info, mask)

    from numba import njit

    @njit
    def lowest(mask):  # compiled on its first call: seconds the limit must not charge
        return np.argmax(mask, axis=1)

    class Compiles:
        def __call__(self, info, mask):
            return lowest(np.ascontiguousarray(mask))

    start = time.perf_counter()
    cards = TimeLimited(Compiles(), "compiles", limit=0.01)(info, mask)  # 0.08 s for its 8 decisions
    assert time.perf_counter() - start > 0.08 and np.array_equal(cards, mask.argmax(axis=1))


@pytest.mark.parametrize(
    "factory, message",
    [
        ("Cheat", r"policy 'candidate' chose an illegal card .*; in deal \d+ of the match, rotation \d"),
        ("Hangs", r"agent 'user_agents:Hangs' took .* past its time limit of 0.2 s a decision"),
        ("Raises", r"agent 'user_agents:Raises' raised ZeroDivisionError: division by zero in my agent"),
    ],
)
def test_a_failing_candidate_ends_the_run_naming_track_and_deals(user_agents, tiny, tmp_path, factory, message):
    out = tmp_path / "out"
    with pytest.raises(BenchError, match=rf"track 'standard', match '\w+', test deals \d+\.\.\d+: {message}") as info:
        run(f"user_agents:{factory}", version=str(tiny), tracks=["standard"], out=out, time_limit=0.2)
    assert "\n" not in str(info.value)
    assert list((out / "blocks").rglob("*.npz"))  # the blocks before it are kept
    assert str(info.value).endswith(f"; the blocks finished are kept in {out}: the same command resumes")


# ---------------------------------------------------------------------------------------------
# The same report local, sharded, resumed


def test_a_bench_match_is_the_arena_match_on_those_keys(tiny, heuristic_report) -> None:
    suite = load_suite_file(tiny)
    spec = suite.tracks["standard"].matches[0]  # vs random, blocks of 5
    entries = [("candidate", make_agent("heuristic"))] + [("random", make_agent("random"))] * 3
    keys = deals.split_keys("test", 1, spec.deals)
    arena = play_match(None, entries, seed=0, episode="hand", block=spec.block, keys=keys)
    match = heuristic_report["tracks"]["standard"]["matches"][0]
    per_deal = arena.sums().ratio("points_per_hand", "candidate") - arena.sums().ratio(
        "points_per_hand", exclude="candidate"
    )
    assert np.allclose(reports.per_deal_adp(match), per_deal)
    assert match["summary"]["agents"] == json.loads(json.dumps(arena.summary()))["agents"]
    assert match["deals_sha256"] == deals.deal_hash(HeartsRules(target_score=None), keys)


@pytest.mark.processes
def test_reports_are_equal_rerun_sharded_and_resumed(tiny, heuristic_report, tmp_path, monkeypatch) -> None:
    again = run("heuristic", version=str(tiny))
    assert reports.figures(again) == reports.figures(heuristic_report)
    sharded = run("heuristic", version=str(tiny), workers=2, out=tmp_path / "sharded")
    assert reports.figures(sharded) == reports.figures(heuristic_report)

    calls = {"n": 0}
    original = MatchPlan.play_block

    def interrupted(self, b, bar=None):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        return original(self, b, bar)

    monkeypatch.setattr(MatchPlan, "play_block", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run("heuristic", version=str(tiny), out=tmp_path / "resumed")
    kept = len(list((tmp_path / "resumed" / "blocks").rglob("*.npz")))
    assert kept == 3
    monkeypatch.setattr(MatchPlan, "play_block", original)
    resumed = run("heuristic", version=str(tiny), out=tmp_path / "resumed")
    assert reports.figures(resumed) == reports.figures(heuristic_report)
    assert (resumed["manifest"]["blocks_kept"], resumed["manifest"]["blocks_played"]) == (3, 8)
    with pytest.raises(BenchError, match="holds blocks of another run .candidate.spec: .heuristic. there"):
        run("simple", version=str(tiny), out=tmp_path / "resumed")
    assert reports.figures(run("heuristic", version=str(tiny), out=tmp_path / "resumed", restart=True)) == (
        reports.figures(heuristic_report)
    )


def test_runs_of_some_tracks_share_a_folder_but_not_with_other_players(tiny, heuristic_report, tmp_path, monkeypatch):
    out = tmp_path / "out"
    run("heuristic", version=str(tiny), tracks=["games"], out=out)
    played = []
    original = MatchPlan.play_block
    monkeypatch.setattr(MatchPlan, "play_block", lambda self, b, bar=None: played.append(b) or original(self, b, bar))
    whole = run("heuristic", version=str(tiny), out=out)
    assert reports.figures(whole) == reports.figures(heuristic_report)
    assert len(played) == 11 - 2  # the games track's 2 blocks were kept

    module = tmp_path / "changing.py"
    module.write_text("def make():\n    return lambda info, mask: mask.argmax(axis=1)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    run("changing:make", version=str(tiny), tracks=["standard"], out=tmp_path / "changing")
    module.write_text("def make():\n    return lambda info, mask: 51 - mask[:, ::-1].argmax(axis=1)\n")  # the highest
    sys.modules.pop("changing")
    importlib.invalidate_caches()
    with pytest.raises(BenchError, match="the standard blocks there were played by agents that decide otherwise"):
        run("changing:make", version=str(tiny), tracks=["standard"], out=tmp_path / "changing")


def test_reports_are_equal_on_ray(tiny, heuristic_report) -> None:
    pytest.importorskip("ray")
    from hearts_env.arena.sharding import RayExecutor

    with RayExecutor(num_cpus=1, include_dashboard=False, log_to_driver=False) as tasks:
        sharded = run("heuristic", version=str(tiny), executor=tasks)
    assert reports.figures(sharded) == reports.figures(heuristic_report)


# ---------------------------------------------------------------------------------------------
# The report, compare, the leaderboard


def test_the_report_holds_the_figures_and_the_manifest(heuristic_report) -> None:
    report = heuristic_report
    assert report["schema"] == reports.SCHEMA and report["suite"] == "tiny" and report["frozen"]
    manifest = report["manifest"]
    for key in (
        "deals",
        "pool",
        "hearts_env",
        "git_commit",
        "blocks_played",
        "blocks_kept",
        "python",
        "numpy",
        "numba",
        "torch",
        "cpu",
        "wall_seconds",
    ):
        assert key in manifest
    standard = report["tracks"]["standard"]
    assert [m["id"] for m in standard["matches"]] == ["random", "simple", "heuristic"]
    self_play = standard["matches"][2]  # the heuristic against itself: exactly even
    assert reports.headline(self_play, "adp")["mean"] == 0 and reports.headline(self_play, "win_rate")["mean"] == 0.25
    for match in standard["matches"]:
        adp, payoff = reports.headline(match, "adp"), reports.headline(match, "payoff")
        assert adp["mean"] == pytest.approx(-payoff["mean"])  # one candidate seat: payoff is minus the ADP
        assert set(match["summary"]["by_direction"]) == {"left", "right", "across", "none"}
    mean = standard["mean"]["adp"]
    assert mean["mean"] == pytest.approx(np.mean([reports.headline(m, "adp")["mean"] for m in standard["matches"]]))
    table = reports.format_report(report)
    assert "standard:" in table and "games:" in table and "vs field" in table
    assert json.loads(reports.dumps(report)) == report


def test_compare_pairs_by_deal_and_refuses_what_does_not_pair(tiny, heuristic_report, tmp_path) -> None:
    simple = run("simple", version=str(tiny))
    same = compare(heuristic_report, heuristic_report)
    assert all(m["difference"]["mean"] == 0 for t in same["tracks"].values() for m in t["matches"].values())
    result = compare(heuristic_report, simple)
    a = heuristic_report["tracks"]["standard"]["matches"][0]
    b = simple["tracks"]["standard"]["matches"][0]
    expected = reports.per_deal_adp(a) - reports.per_deal_adp(b)
    got = result["tracks"]["standard"]["matches"]["random"]["difference"]
    assert got["mean"] == pytest.approx(expected.mean()) and got["n"] == len(expected)
    assert "win_rate_difference" in result["tracks"]["games"]["matches"]["heuristic"]
    dev = run("simple", version=str(tiny), split="dev", tracks=["standard"])
    with pytest.raises(BenchError, match="different splits"):
        compare(heuristic_report, dev)
    quick = run("simple", version=str(tiny), quick=True, tracks=["standard"])
    with pytest.raises(BenchError, match="different settings"):
        compare(heuristic_report, quick)
    other = dict(simple, suite="tiny+modified")
    with pytest.raises(BenchError, match="different suite versions"):
        compare(heuristic_report, other)
    moved = json.loads(json.dumps(simple))
    moved["tracks"]["standard"]["matches"][0]["deals_sha256"] = "f" * 64
    with pytest.raises(BenchError, match="the reports' deals differ .12 hashing to"):
        compare(heuristic_report, moved)
    shorter = json.loads(json.dumps(simple))  # the same hash, fewer deals: a forgery, not a crash
    match = shorter["tracks"]["standard"]["matches"][0]
    match["per_deal"] = {k: reports.pack(reports.unpack(v)[:11]) for k, v in match["per_deal"].items()}
    match["deals"] = 11
    with pytest.raises(BenchError, match="the reports' deals differ .12 hashing to .* and 11 hashing to"):
        compare(heuristic_report, shorter)


def test_an_edited_or_damaged_report_is_refused(heuristic_report, tmp_path) -> None:
    path = tmp_path / "report.json"
    path.write_text(reports.dumps(heuristic_report))
    assert load(path) == heuristic_report
    edited = json.loads(path.read_text())
    edited["tracks"]["standard"]["mean"]["adp"]["mean"] -= 1.0
    path.write_text(json.dumps(edited))
    with pytest.raises(BenchError, match="was edited or is damaged"):
        load(path)
    path.write_text(reports.dumps(heuristic_report)[:-200])
    with pytest.raises(BenchError, match="report.json is not JSON: Unterminated string"):
        load(path)
    path.write_text(json.dumps({"schema": 99}))
    with pytest.raises(BenchError, match="not a hearts-bench report of schema 1"):
        load(path)


def test_the_leaderboard_ranks_each_setting_in_its_own_table(tiny, heuristic_report) -> None:
    quick = run("heuristic", version=str(tiny), quick=True, tracks=["standard"])
    random = run("random", version=str(tiny), quick=True, tracks=["standard"])
    page = leaderboards.leaderboard([("r.json", random), ("q.json", quick), ("h.json", heuristic_report)], "cmd")
    full, quick_part = page.split("\n## Quick setting")
    assert "\n## Full setting" in full and "`h.json`" in full and "q.json" not in full
    assert quick_part.index("| 1 | `heuristic`") < quick_part.index("| 2 | `random`")  # ranked by the standard mean
    assert "hearts-bench run heuristic --suite tiny --split test --quick --json q.json" in quick_part
    dev = run("heuristic", version=str(tiny), split="dev", quick=True, tracks=["standard"])
    with pytest.raises(BenchError, match="d.json is of split dev, h.json of test: one page holds one"):
        leaderboards.leaderboard([("h.json", heuristic_report), ("d.json", dev)], "cmd")
    with pytest.raises(BenchError, match="two reports name the same candidate 'heuristic'"):
        leaderboards.leaderboard([("q.json", quick), ("q2.json", quick)], "cmd")


def test_a_track_of_several_matches_gets_its_mean_and_a_table_match_by_match(heuristic_report) -> None:
    assert "match by match" not in leaderboards.leaderboard([("h.json", heuristic_report)], "cmd")  # one match
    report = copy.deepcopy(heuristic_report)
    variants = report["tracks"]["variants"]
    variants["matches"].append(variants["matches"][0] | {"id": "3p-again"})
    page = leaderboards.leaderboard([("h.json", report)], "cmd")
    head = next(line for line in page.splitlines() if line.startswith("| # |"))
    assert head.endswith("| variants (mean) |")
    section = page.split("### variants, match by match")[1].split("###")[0].strip().splitlines()
    first = reports.pm(reports.headline(variants["matches"][0], "adp"), 2, signed=True)
    assert section[0] == "| agent | 3p | 3p-again |"
    assert section[2] == f"| `heuristic` | {first} | {first} |"


@pytest.mark.parametrize(
    ("tracks", "expected"),
    [
        (["standard", "games", "mixed", "variants"], "--split test --json r.json"),
        (["variants"], "--split test --tracks variants --json r.json"),
    ],
)
def test_the_leaderboard_gives_a_run_of_some_tracks_its_tracks(tracks: list[str], expected: str) -> None:
    report = {"candidate": {"name": "x", "spec": "x"}, "version": "v1", "split": "test", "setting": "full"}
    assert leaderboards._command(report | {"tracks": dict.fromkeys(tracks, {})}, "r.json").endswith(expected)


# ---------------------------------------------------------------------------------------------
# The command line


def test_cli_run_compare_leaderboard_list(tiny, tmp_path, capsys) -> None:
    for name in ("heuristic", "random"):
        bench_cli.main(["run", name, "--suite", str(tiny), "--out", str(tmp_path / name), "--no-progress"])
        assert f"hearts-bench tiny (test split, full): {name}" in capsys.readouterr().out
        assert (tmp_path / name / "plots" / "standard.png").is_file()
    a, b = tmp_path / "heuristic" / "report.json", tmp_path / "random" / "report.json"
    bench_cli.main(["compare", str(a), str(b)])
    out = capsys.readouterr().out
    assert "A = heuristic, B = random" in out and "standard  random" in out
    page = tmp_path / "leaderboard.md"
    bench_cli.main(["leaderboard", str(b), str(a), "--out", str(page)])
    text = page.read_text()
    assert text.index("`heuristic`") < text.index("`random`")  # ordered by the standard track's mean
    assert f"hearts-bench run heuristic --suite tiny --split test --json {a}" in text
    bench_cli.main(["list"])
    assert "v1: hearts-bench v1" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run", "random", "--suite", "v9"], "unknown suite version 'v9'; the versions are v1"),
        (["run", "random", "--tracks", "standard,sprint"], "suite v1 has no track 'sprint'"),
        (["run", "random", "--split", "train"], "suite v1 has no split 'train'"),
        (["run", "no_such_agent"], "unknown agent 'no_such_agent'"),
        (["compare", "missing.json", "missing.json"], "cannot read the report missing.json"),
    ],
)
def test_cli_errors_are_one_line(argv, message, capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        bench_cli.main(argv)
    assert exit_.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("hearts-bench: error: ") and message in err and err.count("\n") == 1


@pytest.mark.processes
def test_the_cli_imports_no_torch_for_an_agent_without_it(tiny, tmp_path) -> None:
    """Nor does the benchmark's package import the training code beside it (only ``hearts-bench exploit`` does)."""
    script = (
        "import sys; import hearts_env.bench; "
        "training = [m for m in sys.modules if m.startswith('hearts_env.train.') "
        "and not m.startswith('hearts_env.bench')]; "
        "assert not training, training; "
        "from hearts_env.bench import cli as bench_cli; "
        f"bench_cli.main(['run', 'random', '--suite', {str(tiny)!r}, '--tracks', 'standard', '--quick', "
        f"'--out', {str(tmp_path / 'out')!r}, '--no-progress']); "
        "assert 'torch' not in sys.modules, 'torch was imported'"
    )
    subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, cwd=tmp_path)


# ---------------------------------------------------------------------------------------------
# Hostile files: suites, reports, exploit reports and run folders


def _cli_error(argv: list[str], capsys: pytest.CaptureFixture[str], code: int = 1) -> str:
    """The one line a refused command prints (asserting it is one line and its exit status)."""
    with pytest.raises(SystemExit) as exit_:
        bench_cli.main(argv)
    assert exit_.value.code == code
    captured = capsys.readouterr()
    assert captured.err.startswith("hearts-bench") and captured.err.count("\n") == 1, captured.err
    assert "Traceback" not in captured.err and not captured.out
    return captured.err


def _set(path: str, value: object):
    """An edit of a JSON document: the value at a dotted path of keys and list indices (``...``: delete it)."""

    def edit(data: dict) -> None:
        *parents, last = [int(k) if k.isdigit() else k for k in path.split(".")]
        for key in parents:
            data = data[key]
        if value is ...:
            del data[last]
        else:
            data[last] = value

    return edit


TABLE = "tracks.standard.tables.standard"
MATCH = "tracks.standard.matches.0"
HOSTILE_SUITES = [
    (_set("pool.random.spec", "bogus"), "pool.random.spec: unknown agent 'bogus'"),
    (_set("pool.random.spec", "pimc:worlds=-4"), "pool.random.spec: agent 'pimc:worlds=-4': worlds must be"),
    (_set("pool.random.spec", ""), "pool.random.spec: must be 1 to 1000 characters"),
    (_set("pool.random.fingerprint_games", "2"), 'pool.random.fingerprint_games: must be an integer, got "2"'),
    (_set("pool.random.fingerprint_games", float("nan")), "pool.random.fingerprint_games: must be an integer, got NaN"),
    (_set("pool.candidate", {"spec": "random", "fingerprint_games": 1}), "pool.candidate: a pool member may not"),
    (_set("pool", None), "pool: must be an object, got null"),
    (_set("pool", {}), "pool: must hold at least 1 entries"),
    (_set("quick_fraction", 0), "quick_fraction: must be in 1..1000, got 0"),
    (_set("quick_fraction", True), "quick_fraction: must be an integer, got true"),
    (_set("quick_fraction", 2.0), "quick_fraction: must be an integer, got 2.0"),
    (_set("agent_seed", 2**64), "agent_seed: must be in 0..18446744073709551615, got 18446744073709551616"),
    (_set("agent_seed", ...), "agent_seed: missing"),
    (_set("splits", ["test", "train"]), 'splits[1]: must be one of "dev", "test", got "train"'),
    (_set("splits", []), "splits: must hold 1 to any number of items"),
    (_set("splits", ["test", "test"]), "splits: must not repeat an item"),
    (_set("version", ["v1"]), "version: must be a string, got a list"),
    (_set("version", "../v1"), "version: must be a name of letters"),
    (_set("tracks", []), "tracks: must be an object, got a list"),
    (lambda d: d["tracks"].update({"../evil": d["tracks"]["standard"]}), 'tracks["../evil"]: must be a name of'),
    (_set("tracks.standard.episode", "match"), 'tracks.standard.episode: must be one of "hand", "game", got "match"'),
    (_set("tracks.standard.deal_sed", 1), "tracks.standard.deal_sed: unknown field"),
    (_set(f"{TABLE}.deal_seed", -1), f"{TABLE}.deal_seed: must be in 0..18446744073709551615, got -1"),
    (_set(f"{TABLE}.deals", 10**12), f"{TABLE}.deals: must be in 1..1000000, got 1000000000000"),
    (_set(f"{TABLE}.deals", float("inf")), f"{TABLE}.deals: must be an integer, got Infinity"),
    (_set(f"{TABLE}.rules", []), f"{TABLE}.rules: must be an object, got a list"),
    (_set(f"{TABLE}.rules", {"num_players": 9}), f"{TABLE}.rules: num_players must be in 3..7, got 9"),
    (_set(f"{TABLE}.rules", {"points": 1}), f"{TABLE}.rules: unknown rules knob points"),
    (_set(f"{MATCH}.block", 0), f"{MATCH.replace('.0', '[0]')}.block: must be in 1..1000000, got 0"),
    (_set(f"{MATCH}.deals", 13), "tracks.standard.matches[0].deals: 13 is more than table 'standard' holds (12)"),
    (_set(f"{MATCH}.id", "a/b"), "tracks.standard.matches[0].id: must be a name of letters"),
    (_set(f"{MATCH}.table", "3p"), "tracks.standard.matches[0].table: no table '3p'"),
    (_set(f"{MATCH}.seats", "candidate"), 'tracks.standard.matches[0].seats: must be a list, got "candidate"'),
    (_set(f"{MATCH}.seats", ["random"] * 4), "tracks.standard.matches[0].seats: 4 seats with 'candidate' once"),
    (_set(f"{MATCH}.seats.1", "nobody"), "tracks.standard.matches[0].seats: 'nobody' is not in the pool"),
    (_set("tracks.standard.matches.1.id", "random"), "tracks.standard.matches: match ids must be distinct"),
    (_set("record", "frozen"), "record: must be null (not frozen yet) or the record written by hearts-bench freeze"),
    (_set("record.pool.random.fingerprint", 7), "record: must be null (not frozen yet) or the record"),
]


@pytest.mark.parametrize("edit, message", HOSTILE_SUITES + [(None, "is not usable JSON: nested too deeply")])
def test_a_suite_file_is_checked_whole_before_anything_runs(tiny, tmp_path, capsys, edit, message) -> None:
    """One loader checks a suite file (its shape by the published schema, then rules, seats and that
    every pool member builds) for list, freeze and run alike: one line naming the file and the
    field, the file unchanged."""
    path = tmp_path / "hostile.json"
    if edit is None:
        path.write_text("[" * 100_000 + "]" * 100_000)
    else:
        data = json.loads(tiny.read_text())
        edit(data)
        path.write_text(json.dumps(data))
    before = path.read_bytes()
    for argv in (["list", "--suite"], ["freeze"], ["run", "random", "--out", str(tmp_path / "out"), "--suite"]):
        err = _cli_error([*argv, str(path)], capsys)
        assert f"the suite file {path}" in err and message in err, err
    assert path.read_bytes() == before and not (tmp_path / "out").exists()


def test_the_published_schemas_are_what_is_checked(tiny) -> None:
    """The schemas use only the keywords the package's checker implements, are valid JSON Schema,
    accept every shipped suite and report, and name the episodes and splits the code has; a JSON
    Schema library refuses the same hostile suites (those of shape, not of meaning)."""
    from hearts_env.arena import EPISODES
    from hearts_env.bench import schema
    from hearts_env.bench.deals import SPLIT_STREAMS

    def keywords(node):
        if isinstance(node, dict):
            for key, value in node.items():
                yield key
                if key in ("properties", "$defs"):
                    for sub in value.values():
                        yield from keywords(sub)
                elif key not in ("enum", "const", "required"):
                    yield from keywords(value)
        elif isinstance(node, list):
            for item in node:
                yield from keywords(item)

    suite_schema = schema.schema("suite")
    for name in ("suite", "report", "exploit"):
        assert set(keywords(schema.schema(name))) <= schema.KEYWORDS, name
    assert set(suite_schema["$defs"]["track"]["properties"]["episode"]["enum"]) == set(EPISODES)
    assert suite_schema["properties"]["splits"]["items"]["enum"] == list(SPLIT_STREAMS)
    results = REPO / "docs" / "results"
    shipped = [("suite", p) for p in [*(REPO / "agents" / "bench" / "suites").glob("*.json"), tiny]]
    shipped += [("report", p) for p in (results / "bench-v1").rglob("*.json")]
    shipped += [("exploit", p) for p in (results / "exploit-v1").rglob("*.json")]
    assert len(shipped) > 10
    for name, path in shipped:
        schema.read_json(path, name, name)
    jsonschema = pytest.importorskip("jsonschema")
    validators = {n: jsonschema.Draft202012Validator(schema.schema(n)) for n in ("suite", "report", "exploit")}
    for validator in validators.values():
        validator.check_schema(validator.schema)
    for name, path in shipped:
        assert validators[name].is_valid(json.loads(path.read_text())), path
    for edit in [e for e, m in HOSTILE_SUITES if "2.0" not in m]:  # 2.0: stricter than JSON Schema's integer
        data = json.loads(tiny.read_text())
        edit(data)
        problem = schema.check(data, suite_schema, suite_schema)
        assert (problem is None) == validators["suite"].is_valid(data), problem


def _tampered(report: dict, edit) -> dict:
    """A report edited and its checksum recomputed: a forgery the checksum cannot catch."""
    data = json.loads(json.dumps(report))
    edit(data)
    return reports.finish(data)


STD = "tracks.standard"
HOSTILE_REPORTS = [
    (_set("tracks", []), "tracks: must be an object, got a list"),
    (_set("suite", ...), "suite: missing"),
    (_set("candidate", None), "candidate: must be an object, got null"),
    (_set("candidate.name", 3), "candidate.name: must be a string, got 3"),
    (_set("setting", "fast"), 'setting: must be one of "full", "quick", got "fast"'),
    (_set("manifest", [[[]]]), "manifest: must be an object, got a list"),
    (_set(f"{STD}.matches.0.summary", {}), f"{STD}.matches[0].summary.rotations: missing"),
    (_set(f"{STD}.matches.0.summary.agents.candidate.vs_field", 3), "agents.candidate.vs_field: must be an object"),
    (_set(f"{STD}.matches.0.summary.agents.candidate.win_rate.high", None), "win_rate: must be an estimate"),
    (_set(f"{STD}.matches.0.summary.rotations", 0), "summary.rotations: must be >= 1, got 0"),
    (_set(f"{STD}.matches.0.deals", True), f"{STD}.matches[0].deals: must be an integer, got true"),
    (_set(f"{STD}.matches.0.deals", 11), f"{STD}.matches[0].per_deal.candidate_points: more than 11 values"),
    (_set(f"{STD}.matches.0.per_deal.candidate_hands", "!!"), "per_deal.candidate_hands: not packed per-deal values"),
    (_set(f"{STD}.matches.0.per_deal.candidate_hands", reports.pack(np.zeros(12))), "not 12 deals of the match"),
    (_set(f"{STD}.matches.0.per_deal.field_points", reports.pack(np.zeros(10**7))), "more than 12 values"),
    (_set(f"{STD}.matches.0.per_deal.extra", "eJwDAAAAAAE="), "per_deal.extra: unknown field"),
    (_set(f"{STD}.matches", []), f"{STD}.status: played with 0 matches"),
    (_set(f"{STD}.mean", {"adp": {"mean": 1, "low": None, "high": None, "n": 1}}), f"{STD}.mean.payoff: missing"),
    (_set(f"{STD}.mean.adp.mean", float("nan")), f"{STD}.mean.adp.mean: must be a number or null, got NaN"),
    (_set(f"{STD}.matches.0.summary.agents.candidate.points_per_hand.n", 1.5), "points_per_hand.n: must be an integer"),
    (_set("tracks.games.mean.win_rate", ...), "tracks.games.mean: must hold adp, payoff, points_per_hand, win_rate"),
]


@pytest.mark.parametrize("edit, message", HOSTILE_REPORTS)
def test_a_tampered_report_is_refused_in_one_line(heuristic_report, tmp_path, capsys, edit, message) -> None:
    """A report whose checksum was recomputed after an edit is checked for its shape on load
    (the published schema, then its per-deal arrays): compare and leaderboard refuse it in one line."""
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(reports.dumps(heuristic_report))
    bad.write_text(reports.dumps(_tampered(heuristic_report, edit)))
    for argv in (["compare", str(good), str(bad)], ["compare", str(bad), str(good)], ["leaderboard", str(bad)]):
        err = _cli_error(argv, capsys)
        assert f"the report {bad}: " in err and message in err, err


@pytest.mark.parametrize(
    "text, message",
    [
        ("[" * 100_000 + "]" * 100_000, "is not usable JSON: nested too deeply"),
        ('{"schema": 1, "m": ' + "[" * 900 + "]" * 900 + "}", "was edited or is damaged"),
        ("[]", "is not a hearts-bench report of schema 1 (schema None)"),
        ('{"schema": true}', "is not a hearts-bench report of schema 1 (schema True)"),
        ("\xff\xfe", "cannot read the report"),
    ],
)
def test_a_report_that_is_not_one_is_refused_in_one_line(tmp_path, capsys, text, message) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="latin-1")
    assert message in _cli_error(["leaderboard", str(path)], capsys)


def _exploit_report() -> dict:
    return json.loads((REPO / "docs" / "results" / "exploit-v1" / "simple.json").read_text())


@pytest.mark.parametrize(
    "edit, message",
    [
        (_set("results", ...), "results: missing"),
        (_set("results.best_response.points_minus_field.low", None), "points_minus_field: must be an estimate"),
        (_set("settings.budget", "many"), 'settings.budget: must be an integer, got "many"'),
        (_set("target", None), "target: must be an object, got null"),
        (_set("schema", "hearts-exploit-2"), "is not a hearts-bench exploit report (hearts-exploit-1)"),
        ("deep", "is not usable JSON: nested too deeply"),
        ("cut", "is not JSON"),
        ("folder", "cannot read the exploit report"),
    ],
)
def test_the_leaderboard_refuses_a_bad_exploit_report_in_one_line(tmp_path, capsys, edit, message) -> None:
    path = tmp_path / "exploit.json"
    if edit == "deep":
        path.write_text("[" * 100_000 + "]" * 100_000)
    elif edit == "cut":
        path.write_text(json.dumps(_exploit_report())[:100])
    elif edit == "folder":
        path.mkdir()
    else:
        data = _exploit_report()
        edit(data)
        path.write_text(json.dumps(data))
    results = REPO / "docs" / "results" / "bench-v1"
    err = _cli_error(["leaderboard", str(results / "simple.json"), "--exploit", str(path)], capsys)
    assert str(path) in err and message in err, err


def _cut_short(path: Path) -> None:
    with np.load(path) as arrays:
        kept = {k: arrays[k] for k in arrays.files}
    np.savez(path, **(kept | {"scores": kept["scores"][:1], "hands": kept["hands"][:1]}))


def _retyped(path: Path) -> None:
    with np.load(path) as arrays:
        kept = {k: arrays[k] for k in arrays.files}
    np.savez(path, **(kept | {"hands": kept["hands"].astype(float), "seconds": np.nan}))


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p.write_bytes(b""),  # 0 bytes
        lambda p: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2]),  # cut off mid-file
        lambda p: p.write_bytes(b"PK\x03\x04" + bytes(range(256)) * 4),  # noise
        _cut_short,  # whole file, arrays cut short
        _retyped,  # float hands, NaN seconds
        lambda p: (p.unlink(), p.mkdir(), (p / "x").write_text("x")),  # a folder in its place
    ],
    ids=["empty", "truncated", "noise", "cut-short", "retyped", "folder"],
)
def test_a_damaged_block_is_played_again(tiny, tmp_path, damage) -> None:
    """A block that cannot be read as one (however it is damaged) is played again, as the docs say,
    and the report is the same as an undamaged run's."""
    out = tmp_path / "out"
    first = run("heuristic", version=str(tiny), tracks=["standard"], out=out)
    block = out / "blocks" / "standard" / "random" / "00001.npz"
    damage(block)
    again = run("heuristic", version=str(tiny), tracks=["standard"], out=out)
    assert reports.figures(again) == reports.figures(first)
    assert (again["manifest"]["blocks_played"], again["manifest"]["blocks_kept"]) == (1, 7)
    assert block.is_file() and np.load(block)["hands"].shape == (5, 4)


@pytest.mark.processes
def test_a_worker_that_dies_is_an_error_naming_the_candidate(tiny, tmp_path, monkeypatch) -> None:
    """A candidate that ends its worker process (os._exit, a crash) is named in one BenchError line,
    not a BrokenProcessPool traceback; the run folder keeps what finished."""
    (tmp_path / "dying.py").write_text(
        "import os\n\n\nclass Dying:\n"
        "    def __call__(self, info, mask):\n"
        "        if os.getpid() != int(os.environ['BENCH_PARENT']):\n"
        "            os._exit(3)\n"
        "        return mask.argmax(axis=1)\n\n\n"
        "def make():\n    return Dying()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("BENCH_PARENT", str(os.getpid()))
    died = r"^dying:make: track 'standard', match '\w+', test deals \d+\.\.\d+: a worker process died"
    with pytest.raises(BenchError, match=died):
        run("dying:make", version=str(tiny), tracks=["standard"], workers=2, out=tmp_path / "out")


@pytest.mark.parametrize("limit", ["inf", "1e300", "nan", "0", "-1", "86401"])
def test_a_time_limit_out_of_range_is_refused_up_front(tmp_path, capsys, monkeypatch, limit) -> None:
    monkeypatch.chdir(tmp_path)
    err = _cli_error(["run", "random", "--time-limit", limit], capsys)
    assert "the time limit must be a number of seconds in (0, 86400]" in err
    assert not list(tmp_path.iterdir()), "nothing written"
    with pytest.raises(BenchError, match="the time limit must be"):
        run("random", time_limit=float(limit))
    with pytest.raises(BenchError, match="the time limit must be"):
        TimeLimited(HeuristicPolicy(), "h", float(limit))


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run"], "hearts-bench run: error: the following arguments are required: candidate"),
        (["run", "random", "--workers", "0"], "hearts-bench run: error: argument --workers"),
        (["run", "random", "--time-limit", "soon"], "hearts-bench run: error: argument --time-limit"),
        (["nosuch"], "hearts-bench: error: argument COMMAND: invalid choice: 'nosuch'"),
        (["run", "random", "--json", "/nonexistent/r.json"], "--json: no folder /nonexistent to write r.json in"),
    ],
)
def test_a_bad_command_line_is_one_line(argv, message, capsys) -> None:
    assert message in _cli_error(argv, capsys, code=2)
