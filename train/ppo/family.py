"""Train a family of networks, one per table, from one command and seed: the ``ppo-family`` agent's
recipe (``hearts_env.agents.learned.family``).

``python -m hearts_env.train.ppo.family --tables 3p 5p 8p-2d --seed 1 ...`` takes every setting of
``hearts-train`` (``PPOConfig``: cloning the teacher first, the PPO budget, the opponents, the
network) and runs it for each table in turn, with the same seed: the rules flags give every
knob but the table's own (its player count, decks and JD rule; each table passes in its standard
cycle). The family folder ``runs/hearts_v0__{exp}__{seed}__{time}/`` holds each table's run folder
under ``runs/``, a copy of its export in a folder named by the table key, and ``family.json``
(the settings, and each table's folder with its weights' SHA-256), which
``make_agent("ppo-family", path=FOLDER)`` plays. Every table's settings (its opponents, its
teacher) are checked before the first table trains. With ``--init-policy`` every table starts
from that network, carried to the table (``hearts_env.train.ppo.transfer``), and the network's own
table keeps it as it is, untrained. ``--resume FAMILY_FOLDER`` continues every
table from the checkpoint of its run in that family (``--total-timesteps`` counts each table's
steps from its first run), into a new family folder. ``--retrain FAMILY_FOLDER`` trains every
table of that family again with the settings its ``family.json`` records for it (its seed
included), so a family gathered from parts trained with different settings (the shipped one) is
remade by one command; a table the family kept (its entry's ``run`` is null) is copied again.
``--jobs N`` trains N tables side by side, each in its own process: a table's network depends on
its settings and the seed alone, so the family is the same.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import multiprocessing
import shutil
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from hearts_env.agents.learned.family import FAMILY_FORMAT, INDEX_FILE, family_folders, table_rules
from hearts_env.agents.learned.hashing import weights_hash
from hearts_env.agents.learned.trained import META_FILE, WEIGHTS_FILE, TrainedPolicy, read_meta
from hearts_env.play.progress import progress_bar
from hearts_env.train.config import StartError, check_at_least, default_of
from hearts_env.train.ppo.trainer import PPOConfig
from hearts_env.train.ppo.trainer import main as train_one
from hearts_env.train.ppo.transfer import same_table
from hearts_env.train.run_files import make_run_folder

PREVIOUS = "@previous"
"""A stage's ``resume`` or ``init_policy`` in ``family.json``: the run of the table's stage before."""

DEFAULT_TABLES = ("3p", "4p", "5p", "6p", "7p", "4p-jd", "6p-2d", "8p-2d", "10p-2d")
"""The tables ``ppo-family`` ships networks for: 3 to 7 players, the JD at four, Cancellation
Hearts at 6, 8 and 10 players."""


@dataclass
class FamilyConfig(PPOConfig):
    exp_name: str = "family"
    tables: list[str] = field(default_factory=lambda: list(DEFAULT_TABLES))
    """the tables to train, as keys: 5p (five players), 4p-jd (the JD rule), 8p-2d (two decks)"""
    retrain: str = ""
    """a family folder whose tables are trained again, each with the settings its family.json
    records (its seed included); give no other settings but --exp-name, --run-dir, --progress-bar
    and --jobs"""
    jobs: int = 1
    """tables trained side by side, each in its own process"""

    OWN_SETTINGS: ClassVar[tuple[str, ...]] = ("exp_name", "run_dir", "progress_bar", "jobs", "retrain")
    """What ``--retrain`` takes from the command: how and where to train, not what."""

    def check(self) -> None:
        super().check()
        for key in self.tables:
            table_rules(key, self.rules)  # a well-formed key of a table the rules allow
        if len(set(self.tables)) != len(self.tables):
            raise ValueError(f"tables: a table is named twice: {' '.join(self.tables)}")
        check_at_least("jobs", self.jobs, 1)
        if self.retrain:
            changed = [
                f.name
                for f in dataclasses.fields(self)
                if f.name not in self.OWN_SETTINGS and getattr(self, f.name) != default_of(f)
            ]
            if changed:
                flags = " ".join("--" + name.replace("_", "-") for name in changed)
                raise ValueError(f"retrain takes every setting from the family's family.json: {flags} given with it")

    def table(self, key: str) -> PPOConfig:
        """The ``hearts-train`` settings of table ``key`` (``ValueError`` naming the table if one
        of them does not suit it, e.g. one opponent per seat of another table)."""
        settings = {f.name: getattr(self, f.name) for f in dataclasses.fields(PPOConfig)}
        settings |= {"rules": table_rules(key, self.rules), "exp_name": key}
        if self.resume and self.resume != PREVIOUS:
            settings["resume"] = str(resumed_run(Path(self.resume), key))
        try:
            return PPOConfig(**settings)
        except ValueError as error:
            raise ValueError(f"table {key}: {error}") from None


def resumed_run(family: Path, key: str) -> Path:
    """The run folder of table ``key`` in the family folder ``family`` (``ValueError`` naming the
    folder if it is no family or has no run of that table)."""
    try:
        entry = json.loads((family / INDEX_FILE).read_text())["tables"][key]
        run = family / "runs" / entry["run"]
    except FileNotFoundError:
        raise ValueError(f"resume: {family} is no family folder (no {INDEX_FILE})") from None
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"resume: the family {family} has no run of the table {key}") from None
    if not run.is_dir():
        raise ValueError(f"resume: the family {family} has lost the run folder of the table {key} ({run.name})")
    return run


def recorded_settings(family: Path) -> dict[str, list[FamilyConfig]]:
    """Each table of the family folder ``family`` with the settings its ``family.json`` records for
    it (``trained_on``: the family's settings, or a list of them, one per part trained apart; a
    table in several parts is trained in those stages), as settings that train that table alone;
    ``ValueError`` naming the file if they do not load."""
    index = family / INDEX_FILE
    if not index.is_file():
        raise ValueError(f"retrain: {family} is no family folder (no {INDEX_FILE})")
    try:
        parts = read_meta(index).get("trained_on")
        tables = family_folders(family)
    except ValueError as error:
        raise ValueError(f"retrain: {error}") from None
    parts = [parts] if isinstance(parts, dict) else parts
    if not isinstance(parts, list) or not all(isinstance(part, dict) for part in parts):
        raise ValueError(f"retrain: {index}: trained_on must be an object or a list of objects")
    found = {}
    for key in tables:
        settings = [part for part in parts if isinstance(part.get("tables"), list) and key in part["tables"]]
        if not settings:
            raise ValueError(f"retrain: {index}: no settings are recorded for the table {key}")
        try:
            found[key] = [FamilyConfig(**(part | {"tables": [key]})) for part in settings]
            check_stages(key, found[key])
        except (TypeError, ValueError) as error:
            raise ValueError(f"retrain: {index}: the settings of the table {key}: {error}") from None
    return found


def recorded_kept(family: Path, stages: dict[str, list[PPOConfig]]) -> set[str]:
    """The tables of the family folder ``family`` that it kept as their ``init_policy`` gave them
    (their entry's ``run`` is null), which ``--retrain`` keeps again; a table trained on from a
    network of its own (with ``hearts-train``, then gathered) is trained again. ``ValueError``
    naming the table if a kept one's recorded start is not a network of that table."""
    tables = read_meta(family / INDEX_FILE)["tables"]
    kept = {key for key in stages if tables[key].get("run") is None}
    for key in kept:
        if len(stages[key]) != 1 or not kept_as_it_is(stages[key][0]):
            raise ValueError(f"retrain: table {key} was kept, but its recorded init_policy is not one network of it")
    return kept


def check_stages(key: str, stages: list[FamilyConfig]) -> None:
    """``ValueError`` unless the first of table ``key``'s stages starts on its own and every later
    one from the stage before (``@previous``)."""
    for number, stage in enumerate(stages):
        follows = PREVIOUS in (stage.resume, stage.init_policy)
        if follows != (number > 0):
            where = "its first stage has no stage before" if number == 0 else f"stage {number + 1} must start"
            raise ValueError(f"table {key}: {where} ({PREVIOUS} as resume or init_policy names the stage before)")


def main(config: FamilyConfig) -> Path:
    """Train every table of ``config`` (in turn, or ``config.jobs`` side by side) and gather their
    exports; returns the family folder. Raises ``StartError`` before anything is written if a
    table's settings are wrong."""
    try:
        if config.retrain:
            recipes = recorded_settings(Path(config.retrain))
        else:
            recipes = {key: [config] for key in config.tables}
            for key in config.tables:
                check_stages(key, [config])
        stages = {key: [recipe.table(key) for recipe in parts] for key, parts in recipes.items()}
        if config.retrain:
            kept = recorded_kept(Path(config.retrain), stages)
        else:
            kept = {key for key, parts in stages.items() if kept_as_it_is(parts[0])}
        seed = next(iter(recipes.values()))[0].seed
        folder = make_run_folder(config.run_dir, config.exp_name, seed)
    except ValueError as error:
        raise StartError(str(error)) from None
    (folder / "config.json").write_text(json.dumps(config.to_dict(), indent=2) + "\n")
    recorded = [part.to_dict() for parts in recipes.values() for part in parts]
    trained_on = recorded if config.retrain else config.to_dict()
    todo = {
        key: [
            dataclasses.replace(stage, run_dir=str(folder / "runs"), exp_name=key if len(parts) == 1 else f"{key}-{n}")
            for n, stage in enumerate(parts, 1)
        ]
        for key, parts in stages.items()
        if key not in kept
    }
    bar = progress_bar(len(todo), "tables", "table", enabled=config.progress_bar and config.jobs > 1)
    kept_runs = [(key, TrainedPolicy(stages[key][0].init_policy).path) for key in stages if key in kept]
    entries: dict[str, dict[str, str | None]] = {}
    for key, run in itertools.chain(kept_runs, trained_runs(todo, config.jobs)):
        entry = {"run": None, "kept": stages[key][0].init_policy} if key in kept else {"run": run.name}
        (folder / key).mkdir()
        for name in (WEIGHTS_FILE, META_FILE):
            shutil.copy(run / name, folder / key / name)
        entries[key] = {"folder": key, "weights_hash": weights_hash(TrainedPolicy(folder / key))} | entry
        in_order = {table: entries[table] for table in stages if table in entries}
        index = {"format": FAMILY_FORMAT, "tables": in_order, "trained_on": trained_on}
        (folder / INDEX_FILE).write_text(json.dumps(index, indent=2) + "\n")  # after every table: a family so far
        bar.update(int(key not in kept))
    bar.close()
    return folder


def trained_runs(settings: dict[str, list[PPOConfig]], jobs: int) -> Iterator[tuple[str, Path]]:
    """Each table of ``settings`` (its stages) with its last run folder, as its training ends: in
    turn in this process, or ``jobs`` at a time side by side, each in a process of its own (no
    progress bar)."""
    if jobs == 1 or len(settings) < 2:
        for key, stages in settings.items():
            yield key, train_stages(stages)
        return
    context = multiprocessing.get_context("spawn")  # no forked copies of torch's or numba's threads
    with ProcessPoolExecutor(min(jobs, len(settings)), mp_context=context) as pool:
        futures = {
            pool.submit(train_stages, [dataclasses.replace(stage, progress_bar=False) for stage in stages]): key
            for key, stages in settings.items()
        }
        for future in as_completed(futures):
            yield futures[future], future.result()


def train_stages(stages: list[PPOConfig]) -> Path:
    """Train a table's stages in order, each ``@previous`` being the run of the stage before;
    returns the last run folder."""
    run = train_one(stages[0])
    for stage in stages[1:]:
        follow = {name: str(run) for name in ("resume", "init_policy") if getattr(stage, name) == PREVIOUS}
        run = train_one(dataclasses.replace(stage, **follow))
    return run


def kept_as_it_is(settings: PPOConfig) -> bool:
    """Whether the table of ``settings`` is the own table of their ``init_policy``: the family keeps
    that network as it is there (training it on would be that network's own training continued)."""
    return bool(settings.init_policy) and same_table(TrainedPolicy(settings.init_policy), settings.layout)


if __name__ == "__main__":
    from hearts_env.train.cli import family

    family()
