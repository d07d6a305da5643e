"""The family recipe (``hearts_env.train.ppo.family``): one command and seed train a network per
table, gathered into a folder ``ppo-family`` plays, the same again from the same seed; bad tables
refused before anything is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from tiny_runs import tiny_run

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from hearts_env.agents.learned.family import INDEX_FILE, ppo_family, table_rules  # noqa: E402
from hearts_env.agents.learned.hashing import weights_hash  # noqa: E402
from hearts_env.agents.learned.trained import TrainedPolicy  # noqa: E402
from hearts_env.agents.specs import check_agents  # noqa: E402
from hearts_env.engine.core import legal_mask, new_games  # noqa: E402
from hearts_env.engine.infoset import infoset  # noqa: E402
from hearts_env.train.config import parse_config  # noqa: E402
from hearts_env.train.ppo.family import FamilyConfig, main  # noqa: E402
from hearts_env.train.ppo.trainer import main as train_one  # noqa: E402


def _config(run_dir: Path, **overrides) -> FamilyConfig:
    settings = tiny_run(run_dir, tables=["3p", "6p-2d"], total_timesteps=0, seed=5)
    return FamilyConfig(**(settings | overrides))


def _hashes(folder: Path) -> dict[str, str]:
    tables = json.loads((folder / INDEX_FILE).read_text())["tables"]
    return {key: entry["weights_hash"] for key, entry in tables.items()}


@pytest.mark.training
def test_one_command_trains_every_table_reproducibly(tmp_path: Path) -> None:
    """A table's network depends on its settings and the seed alone: the tables can be trained in
    any order, or in parts side by side."""
    folders = [main(_config(tmp_path / "a")), main(_config(tmp_path / "b", tables=["6p-2d", "3p"]))]
    hashes = [_hashes(folder) for folder in folders]
    assert list(hashes[0]) == ["3p", "6p-2d"]
    assert hashes[0] == hashes[1]  # the same weights from the same seed, whatever the tables' order
    family = ppo_family(path=folders[0], seed=0)
    for key in ("3p", "6p-2d"):
        rules = table_rules(key)
        assert TrainedPolicy(folders[0] / key).rules == rules
        state = new_games(rules, batch_size=16, seed=2)
        info, mask = infoset(state), legal_mask(state)
        assert mask[np.arange(16), family(info, mask)].all()
    with pytest.raises(ValueError, match="does not play the table 4p"):
        check_agents(table_rules("4p"), [("family", family)])


@pytest.mark.training
def test_a_family_resumes_every_table_from_its_checkpoint(tmp_path: Path) -> None:
    first = main(_config(tmp_path / "first"))
    again = main(_config(tmp_path / "again", resume=str(first), total_timesteps=512))
    runs = json.loads((first / INDEX_FILE).read_text())["tables"]
    for key, entry in json.loads((again / INDEX_FILE).read_text())["tables"].items():
        report = json.loads((again / "runs" / entry["run"] / "train.json").read_text())
        assert report["resumed_from"]["run"] == str(first / "runs" / runs[key]["run"])
        assert report["resumed_from"]["timesteps"] == 0
        assert report["throughput"]["steps_per_second"] is not None  # it trained on from there
    with pytest.raises(ValueError, match="has no run of the table 5p"):
        main(_config(tmp_path / "more", resume=str(first), tables=["5p"]))
    with pytest.raises(ValueError, match="is no family folder"):
        main(_config(tmp_path / "more", resume=str(tmp_path)))


@pytest.mark.training
def test_a_network_starts_every_table_and_keeps_its_own(tmp_path: Path) -> None:
    first = main(_config(tmp_path / "first"))
    start = first / "3p"
    family = main(_config(tmp_path / "carried", init_policy=str(start), tables=["3p", "5p"]))
    entries = json.loads((family / INDEX_FILE).read_text())["tables"]
    assert entries["3p"]["run"] is None and entries["3p"]["kept"] == str(start)
    assert entries["3p"]["weights_hash"] == json.loads((first / INDEX_FILE).read_text())["tables"]["3p"]["weights_hash"]
    report = json.loads((family / "runs" / entries["5p"]["run"] / "train.json").read_text())
    assert report["bc"]["bc/decisions"] > 0  # the value net fitted to the carried network's play
    assert TrainedPolicy(family / "5p").rules == table_rules("5p")


def _gathered(parts: list[Path], folder: Path) -> Path:
    """The families ``parts`` (trained apart) gathered into one folder, as the shipped one was."""
    folder.mkdir()
    index = {"format": None, "tables": {}, "trained_on": []}
    for part in parts:
        meta = json.loads((part / INDEX_FILE).read_text())
        index["format"] = meta["format"]
        index["tables"] |= meta["tables"]
        index["trained_on"].append(meta["trained_on"])
        for key in meta["tables"]:
            shutil.copytree(part / key, folder / key)
    (folder / INDEX_FILE).write_text(json.dumps(index))
    return folder


@pytest.mark.training
def test_retrain_remakes_a_family_trained_in_parts_in_one_command(tmp_path: Path) -> None:
    """Each table is trained again with the settings recorded for it (here the parts' seeds
    differ), two side by side: the same weights."""
    parts = [main(_config(tmp_path / "a", tables=["3p"])), main(_config(tmp_path / "b", tables=["6p-2d"], seed=6))]
    gathered = _gathered(parts, tmp_path / "gathered")
    again = main(FamilyConfig(retrain=str(gathered), run_dir=str(tmp_path / "again"), progress_bar=False, jobs=2))
    assert _hashes(again) == _hashes(gathered) == _hashes(parts[0]) | _hashes(parts[1])
    recorded = json.loads((again / INDEX_FILE).read_text())["trained_on"]
    assert [(part["tables"], part["seed"]) for part in recorded] == [(["3p"], 5), (["6p-2d"], 6)]
    with pytest.raises(ValueError, match="retrain takes every setting .*: --seed --total-timesteps given"):
        FamilyConfig(retrain=str(gathered), seed=3, total_timesteps=5)
    index = json.loads((gathered / INDEX_FILE).read_text())
    (gathered / INDEX_FILE).write_text(json.dumps(index | {"trained_on": index["trained_on"][:1]}))
    with pytest.raises(ValueError, match="no settings are recorded for the table 6p-2d"):
        main(FamilyConfig(retrain=str(gathered), run_dir=str(tmp_path / "more")))
    with pytest.raises(ValueError, match="is no family folder"):
        main(FamilyConfig(retrain=str(tmp_path / "a"), run_dir=str(tmp_path / "more")))
    assert not (tmp_path / "more").exists()


@pytest.mark.training
def test_retrain_trains_a_table_recorded_in_stages_in_their_order(tmp_path: Path) -> None:
    """A table trained, then resumed in a second run, is recorded as two stages; retraining runs
    both, the second from the first's checkpoint, and gives the same weights."""
    first = main(_config(tmp_path / "first", tables=["3p"]))
    second = main(_config(tmp_path / "second", tables=["3p"], resume=str(first), total_timesteps=512))
    staged = tmp_path / "staged"
    shutil.copytree(second / "3p", staged / "3p")
    stages = [json.loads((run / INDEX_FILE).read_text())["trained_on"] for run in (first, second)]
    stages[1]["resume"] = "@previous"
    index = {"format": "hearts-mlp-family-v1", "tables": json.loads((second / INDEX_FILE).read_text())["tables"]}
    (staged / INDEX_FILE).write_text(json.dumps(index | {"trained_on": stages}))
    again = main(FamilyConfig(retrain=str(staged), run_dir=str(tmp_path / "again"), progress_bar=False))
    assert _hashes(again) == _hashes(second) != _hashes(first)
    run = json.loads((again / INDEX_FILE).read_text())["tables"]["3p"]["run"]
    resumed = json.loads((again / "runs" / run / "train.json").read_text())["resumed_from"]["run"]
    assert Path(resumed).parent == again / "runs"  # the first stage's run, trained here
    (staged / INDEX_FILE).write_text(json.dumps(index | {"trained_on": stages[::-1]}))
    with pytest.raises(ValueError, match="table 3p: its first stage has no stage before"):
        main(FamilyConfig(retrain=str(staged), run_dir=str(tmp_path / "more")))
    (staged / INDEX_FILE).write_text(json.dumps(index | {"trained_on": [stages[0], stages[0]]}))
    with pytest.raises(ValueError, match="table 3p: stage 2 must start"):
        main(FamilyConfig(retrain=str(staged), run_dir=str(tmp_path / "more")))
    assert not (tmp_path / "more").exists()


@pytest.mark.training
def test_retrain_trains_on_a_table_from_a_network_of_its_own_and_keeps_the_kept(tmp_path: Path) -> None:
    """A table trained on from a network of its own table (with hearts-train, then gathered, as the
    shipped families' JD was) is trained again; a table the family kept is kept again."""
    first = main(_config(tmp_path / "first", tables=["3p", "5p"]))
    on = _config(tmp_path / "on", tables=["3p"], init_policy=str(first / "3p"), total_timesteps=512)
    run = train_one(on.table("3p"))
    gathered = tmp_path / "gathered"
    shutil.copytree(run, gathered / "3p")
    shutil.copytree(first / "5p", gathered / "5p")
    trained = {"folder": "3p", "weights_hash": weights_hash(TrainedPolicy(gathered / "3p")), "run": run.name}
    kept = json.loads((first / INDEX_FILE).read_text())["tables"]["5p"] | {"run": None, "kept": str(first / "5p")}
    keep = FamilyConfig(**(on.to_dict() | {"tables": ["5p"], "init_policy": str(first / "5p")}))
    recorded = [on.to_dict(), keep.to_dict()]
    index = {"format": "hearts-mlp-family-v1", "tables": {"3p": trained, "5p": kept}, "trained_on": recorded}
    (gathered / INDEX_FILE).write_text(json.dumps(index))
    again = main(FamilyConfig(retrain=str(gathered), run_dir=str(tmp_path / "again"), progress_bar=False))
    assert _hashes(again) == _hashes(gathered) != _hashes(first) | {"5p": kept["weights_hash"]}
    entries = json.loads((again / INDEX_FILE).read_text())["tables"]
    assert entries["3p"]["run"] is not None and entries["5p"]["kept"] == str(first / "5p")
    recorded[1]["init_policy"] = str(first / "3p")  # a kept table's start must be a network of it
    (gathered / INDEX_FILE).write_text(json.dumps(index | {"trained_on": recorded}))
    with pytest.raises(ValueError, match="table 5p was kept, but its recorded init_policy is not one network of it"):
        main(FamilyConfig(retrain=str(gathered), run_dir=str(tmp_path / "more")))
    assert not (tmp_path / "more").exists()


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"tables": ["5p", "5p"]}, "named twice"),
        ({"tables": ["3p"], "resume": "@previous"}, "table 3p: its first stage has no stage before"),
        ({"tables": ["4p-2d"]}, "table '4p-2d'"),
        ({"tables": ["3p"], "opponents": ["heuristic", "simple", "random"]}, "opponents: give 1 name or 2"),
    ],
)
def test_bad_tables_are_refused_before_anything_is_written(tmp_path: Path, overrides: dict, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        main(_config(tmp_path, **overrides))
    assert not (tmp_path / "runs").exists() and not list(tmp_path.glob("hearts_v0__*"))


def test_the_command_line_reads_the_tables() -> None:
    config = parse_config(FamilyConfig, ["--tables", "3p", "8p-2d", "--moon", "shooter_choice"], "p", "d")
    assert config.tables == ["3p", "8p-2d"]
    assert config.table("8p-2d").rules == table_rules("8p-2d", config.rules)
    assert config.table("8p-2d").rules.moon == "shooter_choice"
