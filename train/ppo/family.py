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
steps from its first run), into a new family folder.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from hearts_env.agents.learned.family import FAMILY_FORMAT, INDEX_FILE, table_rules
from hearts_env.agents.learned.hashing import weights_hash
from hearts_env.agents.learned.trained import META_FILE, WEIGHTS_FILE, TrainedPolicy
from hearts_env.train.config import StartError
from hearts_env.train.ppo.trainer import PPOConfig
from hearts_env.train.ppo.trainer import main as train_one
from hearts_env.train.ppo.transfer import same_table
from hearts_env.train.run_files import make_run_folder

DEFAULT_TABLES = ("3p", "4p", "5p", "6p", "7p", "4p-jd", "6p-2d", "8p-2d", "10p-2d")
"""The tables ``ppo-family`` ships networks for: 3 to 7 players, the JD at four, Cancellation
Hearts at 6, 8 and 10 players."""


@dataclass
class FamilyConfig(PPOConfig):
    exp_name: str = "family"
    tables: list[str] = field(default_factory=lambda: list(DEFAULT_TABLES))
    """the tables to train, as keys: 5p (five players), 4p-jd (the JD rule), 8p-2d (two decks)"""

    def check(self) -> None:
        super().check()
        for key in self.tables:
            table_rules(key, self.rules)  # a well-formed key of a table the rules allow
        if len(set(self.tables)) != len(self.tables):
            raise ValueError(f"tables: a table is named twice: {' '.join(self.tables)}")

    def table(self, key: str) -> PPOConfig:
        """The ``hearts-train`` settings of table ``key`` (``ValueError`` naming the table if one
        of them does not suit it, e.g. one opponent per seat of another table)."""
        settings = {f.name: getattr(self, f.name) for f in dataclasses.fields(PPOConfig)}
        settings |= {"rules": table_rules(key, self.rules), "exp_name": key}
        if self.resume:
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


def main(config: FamilyConfig) -> Path:
    """Train every table of ``config`` in turn and gather their exports; returns the family
    folder. Raises ``StartError`` before anything is written if a table's settings are wrong."""
    try:
        tables = {key: config.table(key) for key in config.tables}
        kept = {key for key, settings in tables.items() if kept_as_it_is(settings)}
        folder = make_run_folder(config.run_dir, config.exp_name, config.seed)
    except ValueError as error:
        raise StartError(str(error)) from None
    (folder / "config.json").write_text(json.dumps(config.to_dict(), indent=2) + "\n")
    entries: dict[str, dict[str, str | None]] = {}
    for key, settings in tables.items():
        if key in kept:
            run, entry = TrainedPolicy(settings.init_policy).path, {"run": None, "kept": settings.init_policy}
        else:
            run = train_one(dataclasses.replace(settings, run_dir=str(folder / "runs")))
            entry = {"run": run.name}
        (folder / key).mkdir()
        for name in (WEIGHTS_FILE, META_FILE):
            shutil.copy(run / name, folder / key / name)
        entries[key] = {"folder": key, "weights_hash": weights_hash(TrainedPolicy(folder / key))} | entry
        index = {"format": FAMILY_FORMAT, "tables": entries, "trained_on": config.to_dict()}
        (folder / INDEX_FILE).write_text(json.dumps(index, indent=2) + "\n")  # after every table: a family so far
    return folder


def kept_as_it_is(settings: PPOConfig) -> bool:
    """Whether the table of ``settings`` is the own table of their ``init_policy``: the family keeps
    that network as it is there (training it on would be that network's own training continued)."""
    return bool(settings.init_policy) and same_table(TrainedPolicy(settings.init_policy), settings.rules)


if __name__ == "__main__":
    from hearts_env.train.cli import family

    family()
