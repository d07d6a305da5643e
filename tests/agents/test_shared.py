"""One network for every table (``hearts_env.agents.learned.shared``): at each table it is exactly
the whole network on the placed observation, every table it was not trained for is refused in one
line, its files are read as untrusted, and the shipped ``ppo-one`` and the search guided by it
play every table they list."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hearts_env.agents import make_agent
from hearts_env.agents.learned.family import table_rules
from hearts_env.agents.learned.hashing import weights_hash
from hearts_env.agents.learned.mlp_kernels import SparseMLP
from hearts_env.agents.learned.shared import SHIPPED_ONE, SharedInput, SharedLayout, export, load_shared
from hearts_env.agents.learned.trained import META_FILE, WEIGHTS_FILE
from hearts_env.agents.specs import agent_from_spec, check_agents
from hearts_env.arena import play_match
from hearts_env.engine.core import legal_mask, new_games
from hearts_env.engine.infoset import infoset
from hearts_env.engine.observation import encode

TABLES = ["3p", "5p", "4p-jd", "8p-2d"]


def random_layers(tables: list[str], seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    sizes = [SharedLayout(tables).size, 32, 52]
    return [
        (
            rng.normal(0, 0.3, (sizes[i + 1], sizes[i])).astype(np.float32),
            rng.normal(0, 0.3, sizes[i + 1]).astype(np.float32),
        )
        for i in range(len(sizes) - 1)
    ]


def test_the_layout_is_the_largest_table_s_then_the_rules() -> None:
    shared = SharedLayout(TABLES)
    big = shared.layout.rules
    assert (big.num_players, big.decks, big.jack_of_diamonds, shared.layout.trick_outcomes) == (8, 2, True, True)
    assert shared.counts == [3, 4, 5, 8]
    assert shared.size == shared.layout.size + 4 + 1 + 1  # the player count, the JD, the decks
    standard = SharedInput(table_rules("4p"), SharedLayout(["4p", "4p-jd"]))
    jd = SharedInput(table_rules("4p-jd"), SharedLayout(["4p", "4p-jd"]))
    assert standard.rules_features.tolist() == [1, 0] and jd.rules_features.tolist() == [1, 1]


@pytest.mark.parametrize("key", TABLES)
def test_the_network_at_a_table_is_the_whole_network_on_its_placed_observation(key: str, tmp_path: Path) -> None:
    layers = random_layers(TABLES)
    shared, rules = SharedLayout(TABLES), table_rules(key)
    into = SharedInput(rules, shared)
    assert len(set(into.index.tolist())) == into.layout.size  # every entry in a place of its own
    state = new_games(rules, batch_size=16, seed=4)
    observations = encode(infoset(state), into.layout)
    whole = SparseMLP(layers, scale=into.scale)(into.counts(observations))
    family = load_shared(export(tmp_path, TABLES, layers), "one")
    assert np.allclose(family.members[key].logits(observations), whole, atol=1e-4)


def test_seats_keep_their_place_from_the_observer() -> None:
    """The observer's left-hand neighbour is the second seat at every table, its right-hand one the last."""
    shared = SharedLayout(["3p", "7p"])
    into = SharedInput(table_rules("3p"), shared)
    played, _ = shared.layout.sections["played"]
    rows = (into.index[into.layout.sections["played"][0]] - played.start) // 52
    assert sorted(set(rows.tolist())) == [0, 1, 6]


def test_each_table_it_was_trained_for_is_played_and_the_others_refused(tmp_path: Path) -> None:
    one = load_shared(export(tmp_path, TABLES, random_layers(TABLES)), "one", seed=0)
    assert sorted(one.members) == sorted(TABLES)
    for key in TABLES:
        rules = table_rules(key)
        field = [("h", make_agent("heuristic"))] * (rules.num_players - 1)
        assert play_match(rules, [("one", one)] + field, deals=1, episode="hand").deals == 1
    for other in ("4p", "6p-2d", "8p-2d-jd"):
        with pytest.raises(ValueError, match=rf"one does not play the table {other} \(it plays "):
            check_agents(table_rules(other), [("one", one)])


def test_a_sampling_network_is_reproducible_from_its_seed(tmp_path: Path) -> None:
    folder = export(tmp_path, TABLES, random_layers(TABLES))
    state = new_games(table_rules("5p"), batch_size=64, seed=1)
    info, mask = infoset(state), legal_mask(state)
    plays = [load_shared(folder, "one", seed=s, sample=True)(info, mask) for s in (3, 3, 4)]
    assert (plays[0] == plays[1]).all() and (plays[0] != plays[2]).any()


def test_the_hash_pins_the_weights_and_identifies_the_agent(tmp_path: Path) -> None:
    first = export(tmp_path / "a", TABLES, random_layers(TABLES))
    same = export(tmp_path / "b", TABLES, random_layers(TABLES))
    other = export(tmp_path / "c", TABLES, random_layers(TABLES, seed=1))
    hashes = [weights_hash(load_shared(folder, "one")) for folder in (first, same, other)]
    assert hashes[0] == hashes[1] != hashes[2]
    search = agent_from_spec(f"pimc-ppo-one:path={str(first)!r},worlds=2", seed=0)
    assert weights_hash(search) == hashes[0]
    (first / WEIGHTS_FILE).write_bytes((other / WEIGHTS_FILE).read_bytes())  # other weights, the old pin
    with pytest.raises(ValueError, match="do not match the hash"):
        load_shared(first, "one")


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"format": "hearts-mlp-v1"}, "format 'hearts-mlp-v1'"),
        ({"layout_version": 1}, "layout version 1"),
        ({"activation": "gelu"}, "unknown activation 'gelu'"),
        ({"tables": []}, "non-empty list of table keys"),
        ({"tables": ["12p"]}, "table '12p'"),
        ({"tables": ["3p", "5p"]}, r"layer 'layer0' has weight \(32, \d+\)"),
        ({"layers": ["layer0", "layer0"]}, "distinct layer names"),
        ({"layers": ["layer0", "missing"]}, "lacks the array 'missing.weight'"),
        ({"weights_hash": 7}, "weights_hash a string"),
    ],
)
def test_bad_files_are_refused_naming_the_file(tmp_path: Path, change: dict, fragment: str) -> None:
    folder = export(tmp_path, TABLES, random_layers(TABLES))
    meta = json.loads((folder / META_FILE).read_text()) | change
    (folder / META_FILE).write_text(json.dumps(meta))
    with pytest.raises(ValueError, match=fragment) as refused:
        load_shared(folder, "one")
    assert str(folder) in str(refused.value)


def test_the_search_is_guided_by_the_shared_network(tmp_path: Path) -> None:
    folder = export(tmp_path, TABLES, random_layers(TABLES))
    search = make_agent("pimc-ppo-one", path=folder, seed=0, worlds=2, rollout_others="heuristic")
    one = load_shared(folder, "one")
    for key in ("5p", "8p-2d"):
        assert search.members[key].network is not None
        assert weights_hash(search.members[key]) == weights_hash(one.members[key])
        rules = table_rules(key)
        field = [("h", make_agent("heuristic"))] * (rules.num_players - 1)
        assert play_match(rules, [("s", search)] + field, deals=1, episode="hand").deals == 1
    with pytest.raises(ValueError, match="rollout_tricks needs a value head"):
        make_agent("pimc-ppo-one", path=folder, rollout_tricks=1)
    with pytest.raises(ValueError, match="network must be a network"):
        make_agent("pimc-ppo", network="ppo")


@pytest.mark.skipif(not (SHIPPED_ONE / META_FILE).is_file(), reason="no shipped shared network")
def test_the_shipped_network_plays_every_table_it_lists_legally() -> None:
    one = make_agent("ppo-one", seed=0)
    assert sorted(one.members) == sorted(["3p", "4p", "5p", "6p", "7p", "4p-jd", "6p-2d", "8p-2d", "10p-2d"])
    for key in one.members:
        state = new_games(table_rules(key), batch_size=64, seed=3)
        info, mask = infoset(state), legal_mask(state)
        assert mask[np.arange(64), one(info, mask)].all(), key
    with pytest.raises(ValueError, match="cannot play these rules: .*ppo-one does not play the table 9p-2d"):
        check_agents(table_rules("9p-2d"), [("ppo-one", one)])


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("ppo-one:path=5", "shared network: path must be a folder, got 5"),
        ("pimc-ppo-one:path=5", "shared network: path must be a folder, got 5"),
        ("ppo-family:path=5", "family: path must be a family folder, got 5"),
        ("pimc-ppo-family-3:path=[1]", r"family: path must be a family folder, got \[1\]"),
        ("trained:path=5", "trained policy: path must be a run folder or file, got 5"),
        ("sb3:path=5", "sb3 model: path must be a .zip file, got 5"),
    ],
)
def test_a_path_that_is_no_path_is_refused_naming_it(spec: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        agent_from_spec(spec, seed=0)
