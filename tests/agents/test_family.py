"""A family of networks under one agent name (``hearts_env.agents.learned.family``): each table
played by its own network, the others refused in one line, the pinned hashes checked, and the
shipped ``ppo-family`` playing every table it lists."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from policy_files import export

from hearts_env import HeartsRules
from hearts_env.agents import make_agent
from hearts_env.agents.learned.family import (
    FAMILY_FORMAT,
    INDEX_FILE,
    SHIPPED_FAMILIES,
    SHIPPED_FAMILY,
    family_folders,
    ppo_family,
    table_key,
    table_rules,
)
from hearts_env.agents.learned.hashing import weights_hash
from hearts_env.agents.learned.trained import TrainedPolicy
from hearts_env.agents.specs import agent_from_spec, check_agents
from hearts_env.arena import play_match
from hearts_env.engine.core import legal_mask, new_games
from hearts_env.engine.infoset import infoset


def write_family(folder: Path, keys: list[str]) -> Path:
    """A family of small random networks, one per table of ``keys``."""
    tables = {}
    for seed, key in enumerate(keys):
        network = TrainedPolicy(export(folder / key, table_rules(key), seed=seed))
        tables[key] = {"folder": key, "weights_hash": weights_hash(network)}
    (folder / INDEX_FILE).write_text(json.dumps({"format": FAMILY_FORMAT, "tables": tables}))
    return folder


@pytest.mark.parametrize(
    ("key", "players", "decks", "jd"), [("5p", 5, 1, False), ("4p-jd", 4, 1, True), ("10p-2d-jd", 10, 2, True)]
)
def test_table_keys_name_the_layout_knobs(key: str, players: int, decks: int, jd: bool) -> None:
    rules = table_rules(key, HeartsRules(moon="shooter_choice", pass_cycle=("left", "right", "across", "none")))
    assert (rules.num_players, rules.decks, rules.jack_of_diamonds) == (players, decks, jd)
    assert rules.moon == "shooter_choice"  # the base rules' other knobs kept
    assert rules.pass_cycle == HeartsRules(num_players=players, decks=decks).pass_cycle  # the table's standard cycle
    assert table_key(rules) == key


@pytest.mark.parametrize(("key", "fragment"), [("5", "not a table key"), ("4p-2d", "table '4p-2d'"), (3, "not a")])
def test_bad_table_keys_are_refused(key: object, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        table_rules(key)


def test_each_table_is_played_by_its_own_network(tmp_path: Path) -> None:
    family = ppo_family(path=write_family(tmp_path, ["3p", "5p"]))
    for key in ("3p", "5p"):
        rules = table_rules(key)
        state = new_games(rules, batch_size=8, seed=1)
        info, mask = infoset(state), legal_mask(state)
        alone = TrainedPolicy(tmp_path / key)
        np.testing.assert_array_equal(family(info, mask), alone(info, mask))


def test_a_sampling_family_is_reproducible_from_its_seed(tmp_path: Path) -> None:
    folder = write_family(tmp_path, ["3p", "5p"])
    state = new_games(table_rules("5p"), batch_size=64, seed=1)
    info, mask = infoset(state), legal_mask(state)
    a, b = ppo_family(seed=3, sample=True, path=folder), ppo_family(seed=3, sample=True, path=folder)
    first = a(info, mask)
    np.testing.assert_array_equal(first, b(info, mask))
    a.seed(3)
    np.testing.assert_array_equal(a(info, mask), first)  # reseeding reaches the member
    assert not np.array_equal(ppo_family(seed=4, sample=True, path=folder)(info, mask), first)  # it samples


def test_a_table_without_a_network_is_refused_in_one_line(tmp_path: Path) -> None:
    family = ppo_family(path=write_family(tmp_path, ["3p", "5p"]))
    refusal = r"agent 'f' cannot play these rules: .*does not play the table 4p \(it plays 3p 5p\)"
    with pytest.raises(ValueError, match=refusal):
        check_agents(HeartsRules(), [("f", family)])


def test_a_changed_network_is_refused(tmp_path: Path) -> None:
    write_family(tmp_path, ["3p"])
    export(tmp_path / "3p", table_rules("3p"), seed=7)  # other weights than the ones pinned
    with pytest.raises(ValueError, match="do not match the hash"):
        ppo_family(path=tmp_path)


def test_a_network_listed_under_another_table_is_refused(tmp_path: Path) -> None:
    write_family(tmp_path, ["3p"])
    index = json.loads((tmp_path / INDEX_FILE).read_text())
    index["tables"] = {"5p": index["tables"]["3p"]}
    (tmp_path / INDEX_FILE).write_text(json.dumps(index))
    with pytest.raises(ValueError, match="trained for the table 3p, listed as 5p"):
        ppo_family(path=tmp_path)


def test_a_family_is_identified_by_every_table_s_network(tmp_path: Path) -> None:
    """The benchmark pins a family by one hash: the same for its search, another if any table's
    network, or the tables it plays, differ."""
    first = weights_hash(ppo_family(path=write_family(tmp_path / "a", ["3p", "5p"])))
    assert first is not None and len(first) == 64
    assert weights_hash(ppo_family(path=write_family(tmp_path / "b", ["3p", "5p"]))) == first
    search = agent_from_spec(f"pimc-ppo-family:path={str(tmp_path / 'a')!r},worlds=4", seed=0)
    assert weights_hash(search) == first
    assert weights_hash(ppo_family(path=write_family(tmp_path / "c", ["3p"]))) != first
    write_family(tmp_path / "d", ["3p", "5p"])
    export(tmp_path / "d" / "5p", table_rules("5p"), seed=9)  # one table's weights changed
    changed = json.loads((tmp_path / "d" / INDEX_FILE).read_text())
    changed["tables"]["5p"]["weights_hash"] = weights_hash(TrainedPolicy(tmp_path / "d" / "5p"))
    (tmp_path / "d" / INDEX_FILE).write_text(json.dumps(changed))
    assert weights_hash(ppo_family(path=tmp_path / "d")) != first


@pytest.mark.parametrize(
    ("index", "fragment"),
    [
        ({"format": "other", "tables": {}}, "format 'other'"),
        ({"format": FAMILY_FORMAT, "tables": {}}, "non-empty"),
        ({"format": FAMILY_FORMAT, "tables": {"3p": {"folder": "../x", "weights_hash": "0"}}}, "folder name"),
        ({"format": FAMILY_FORMAT, "tables": {"3p": {"folder": "..", "weights_hash": "0"}}}, "folder name"),
        ({"format": FAMILY_FORMAT, "tables": {"3p": {"folder": "3p", "weights_hash": "0", "family": ".."}}}, "beside"),
        ({"format": FAMILY_FORMAT, "tables": {"3p": {"folder": "3p", "weights_hash": "0", "family": "a/b"}}}, "beside"),
        ({"format": FAMILY_FORMAT, "tables": {"3p": {"folder": "3p"}}}, "weights_hash"),
        ({"format": FAMILY_FORMAT, "tables": {"12p": {"folder": "3p", "weights_hash": "0"}}}, "table '12p'"),
    ],
)
def test_bad_family_files_are_refused(tmp_path: Path, index: dict, fragment: str) -> None:
    (tmp_path / INDEX_FILE).write_text(json.dumps(index))
    with pytest.raises(ValueError, match=fragment):
        family_folders(tmp_path)


def test_the_search_family_searches_every_table_with_its_network(tmp_path: Path) -> None:
    folder = write_family(tmp_path, ["5p", "6p-2d"])
    search = agent_from_spec(f"pimc-ppo-family:path={str(folder)!r},worlds=4", seed=0)
    assert list(search.members) == ["5p", "6p-2d"]
    for key in search.members:
        assert weights_hash(search.members[key]) == weights_hash(TrainedPolicy(folder / key))
        rules = table_rules(key)
        field = [("h", make_agent("heuristic"))] * (rules.num_players - 1)
        assert play_match(rules, [("s", search)] + field, deals=1, episode="hand").deals == 1
    with pytest.raises(ValueError, match=r"does not play the table 7p \(it plays 5p 6p-2d\)"):
        check_agents(table_rules("7p"), [("s", search)])


def test_a_family_plays_the_networks_it_shares_with_one_beside_it(tmp_path: Path) -> None:
    """A table's entry may name a family folder beside its own: one copy of a kept network."""
    first = write_family(tmp_path / "first", ["3p", "5p"])
    second = write_family(tmp_path / "second", ["6p"])
    index = json.loads((second / INDEX_FILE).read_text())
    shared = json.loads((first / INDEX_FILE).read_text())["tables"]["5p"]
    index["tables"]["5p"] = shared | {"family": "first"}
    (second / INDEX_FILE).write_text(json.dumps(index))
    family = ppo_family(path=second)
    assert list(family.members) == ["5p", "6p"]
    assert weights_hash(family.members["5p"]) == shared["weights_hash"]
    export(first / "5p", table_rules("5p"), seed=9)  # the shared network changed in its own folder
    with pytest.raises(ValueError, match="do not match the hash"):
        ppo_family(path=second)


@pytest.mark.parametrize("name", SHIPPED_FAMILIES)
def test_the_shipped_families_play_every_table_they_list_legally(name: str) -> None:
    if not (SHIPPED_FAMILY.parent / name / INDEX_FILE).is_file():
        pytest.skip("no shipped family")
    family = make_agent(name, seed=0)
    assert list(family.members) == sorted(["3p", "4p", "5p", "6p", "7p", "4p-jd", "6p-2d", "8p-2d", "10p-2d"])
    for key in family.members:
        rules = table_rules(key)
        state = new_games(rules, batch_size=64, seed=3)
        info, mask = infoset(state), legal_mask(state)
        cards = family(info, mask)
        assert mask[np.arange(64), cards].all(), key
    with pytest.raises(ValueError, match=f"cannot play these rules: .*{name} does not play the table 11p-2d"):
        check_agents(table_rules("11p-2d"), [(name, family)])
