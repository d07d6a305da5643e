"""A family of trained networks under one agent name: one exported MLP per table, picked by the
table's rules at every call (the ``ppo-family`` agent; ``pimc-ppo-family`` searches with them).

A table is what the observation layout depends on (``hearts_env.agents.learned.trained.LAYOUT_KNOBS``:
the player count, the decks, the JD rule), written as a key: ``5p`` (five players, one deck),
``4p-jd`` (four, the JD scoring -10), ``8p-2d`` (eight, Cancellation Hearts). A family folder
holds ``family.json`` and one policy folder per table (``policy.npz`` + ``policy.json``, the
export of ``train/ppo/trainer.py``), or shares it with a family folder beside it (an entry's
``family``: ``ppo-family-2`` plays ``ppo-family``'s networks where it kept them, one copy on
disk); ``family.json`` names each table's folder and pins the
SHA-256 of its weights (``hearts_env.agents.learned.hashing.weights_hash``), so a network changed
on disk is refused. A table without a network is refused in one line that names it and the
tables the family plays. ``train/ppo/family.py`` trains a family from one command and seed.

```python
from hearts_env.agents import make_agent
from hearts_env.arena import play_match
from hearts_env.rules import HeartsRules

family, field = make_agent("ppo-family"), make_agent("heuristic")
rules = HeartsRules(num_players=5)
print(play_match(rules, [("ppo-family", family)] + [("heuristic", field)] * 4, deals=20, episode="hand").table())
```
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from hearts_env.agents.learned.hashing import network_of, weights_hash
from hearts_env.agents.learned.trained import SHIPPED_DIR, TrainedPolicy, as_path, read_meta
from hearts_env.engine.infoset import InfoSet
from hearts_env.engine.rules import HeartsRules
from hearts_env.play.policy import Policy

INDEX_FILE = "family.json"
FAMILY_FORMAT = "hearts-mlp-family-v1"
"""The ``format`` entry of ``family.json`` this loader reads."""
SHIPPED_FAMILIES = ("ppo-family", "ppo-family-2", "ppo-family-3", "ppo-family-4", "ppo-family-5")
"""The shipped families, each an agent of that name playing ``agents/policies/NAME`` (with
``pimc-`` before it, the search guided by it). hearts-bench v2 pins the first; each later one keeps
the networks of the one before where it has none better (shared, one copy on disk)."""
SHIPPED_FAMILY = SHIPPED_DIR / SHIPPED_FAMILIES[0]
_KEY = re.compile(r"(\d+)p(-2d)?(-jd)?")


def table_key(rules: HeartsRules) -> str:
    """The key of the table ``rules`` describe: ``{players}p``, then ``-2d`` with two decks and
    ``-jd`` with the JD rule (``8p-2d-jd``)."""
    return f"{rules.num_players}p{'-2d' if rules.decks == 2 else ''}{'-jd' if rules.jack_of_diamonds else ''}"


def table_rules(key: str, base: HeartsRules | None = None) -> HeartsRules:
    """The rules of table ``key``: ``base`` (default: the standard rules) with the key's player
    count, decks and JD rule, and the standard pass cycle of that player count; ``ValueError``
    naming the key if it is malformed or names a table the rules do not allow."""
    match = _KEY.fullmatch(key) if isinstance(key, str) else None
    if match is None:
        raise ValueError(f"table {key!r} is not a table key such as 5p, 4p-jd or 8p-2d")
    knobs = (base or HeartsRules()).to_dict() | {
        "num_players": int(match[1]),
        "decks": 2 if match[2] else 1,
        "jack_of_diamonds": bool(match[3]),
        "pass_cycle": None,
    }
    try:
        return HeartsRules.from_dict(knobs)
    except ValueError as error:
        raise ValueError(f"table {key!r}: {error}") from None


def family_folders(path: str | Path) -> dict[str, tuple[Path, str]]:
    """Each table of the family folder ``path`` with its policy folder and pinned weights hash,
    from its ``family.json`` (checked entry by entry; ``ValueError`` naming the file otherwise)."""
    index = as_path("family", path, "a family folder") / INDEX_FILE
    meta = read_meta(index)
    if meta.get("format") != FAMILY_FORMAT:
        raise ValueError(f"family: {index}: format {meta.get('format')!r}, this loader reads {FAMILY_FORMAT!r}")
    tables = meta.get("tables")
    if not isinstance(tables, dict) or not tables:
        raise ValueError(f"family: {index}: tables must be a non-empty object of table keys")
    found = {}
    for key, entry in tables.items():
        table_rules(key)  # a well-formed key of a table the rules allow
        if not isinstance(entry, dict) or not _folder_name(entry.get("folder")):
            raise ValueError(f"family: {index}: table {key!r} needs a folder name (no '/') and a weights_hash")
        if not isinstance(entry.get("weights_hash"), str):
            raise ValueError(f"family: {index}: table {key!r} needs a weights_hash")
        sibling = entry.get("family")
        if sibling is not None and not _folder_name(sibling):
            raise ValueError(f"family: {index}: table {key!r}: family must name a family folder beside this one")
        home = index.parent if sibling is None else index.parent.parent / sibling
        found[key] = (home / entry["folder"], entry["weights_hash"])
    return found


def _folder_name(name: object) -> bool:
    """Whether ``name`` names a folder inside the one it is read in (no path, not . or ..)."""
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\\" not in name


class TableFamily:
    """One policy per table under one name: each call is answered by the member of the table's
    rules (``table_key``); a table without one raises ``ValueError`` naming it and the tables the
    family plays. Reseeding reaches every member (one child seed each, in key order)."""

    def __init__(self, name: str, members: dict[str, Policy], seed: int | np.random.SeedSequence | None = None) -> None:
        self.name, self.members = name, dict(sorted(members.items()))
        self.seed(seed)

    def seed(self, seed: int | np.random.SeedSequence | None) -> None:
        parent = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        for member, child in zip(self.members.values(), parent.spawn(len(self.members)), strict=True):
            if hasattr(member, "seed"):
                member.seed(child)

    def member(self, rules: HeartsRules) -> Policy:
        """The member that plays tables like ``rules``; ``ValueError`` if there is none."""
        key = table_key(rules)
        if key not in self.members:
            raise ValueError(f"{self.name} does not play the table {key} (it plays {' '.join(self.members)})")
        return self.members[key]

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        return self.member(info.rules)(info, mask)

    def close(self) -> None:
        for member in self.members.values():
            if callable(close := getattr(member, "close", None)):
                close()

    def __repr__(self) -> str:
        return f"TableFamily({self.name!r}, {list(self.members)})"


def load_family(
    path: str | Path,
    name: str,
    make: Callable[[Path], Any],
    seed: int | np.random.SeedSequence | None = None,
    keep: Callable[[HeartsRules], bool] = lambda rules: True,
) -> TableFamily:
    """The family of ``path`` as a ``TableFamily`` called ``name``, each member ``make(folder)`` (a
    policy with a network: ``hashing.network_of``), for the tables whose rules ``keep`` takes;
    every network's weights are checked against the hash ``family.json`` pins, and its rules
    against its table key."""
    members = {}
    for key, (folder, pinned) in family_folders(path).items():
        if not keep(table_rules(key)):
            continue
        member = make(folder)
        network = network_of(member)
        if network is None or weights_hash(network) != pinned:
            raise ValueError(f"family: {folder}: its weights do not match the hash {Path(path) / INDEX_FILE} pins")
        if table_key(network.rules) != key:
            raise ValueError(f"family: {folder}: trained for the table {table_key(network.rules)}, listed as {key}")
        members[key] = member
    return TableFamily(name, members, seed)


def shipped_family(name: str) -> Callable[..., TableFamily]:
    """``make_agent``'s factory of the shipped family ``name`` (``SHIPPED_FAMILIES``): each table's
    network plays its top card (or samples, ``sample=True``); ``path=`` plays another family folder
    under that name."""

    def family(
        seed: int | np.random.SeedSequence | None = None, sample: bool = False, path: str | Path | None = None
    ) -> TableFamily:
        folder = SHIPPED_DIR / name if path is None else as_path("family", path, "a family folder")
        return network_family(name, folder, seed, sample)

    return family


ppo_family = shipped_family(SHIPPED_FAMILIES[0])
"""The ``ppo-family`` agent: ``ppo_family(path=FOLDER)`` plays a family folder."""


def network_family(
    name: str, folder: Path, seed: int | np.random.SeedSequence | None = None, sample: bool = False
) -> TableFamily:
    """The family of ``folder`` called ``name``, each table's network playing its top card (or
    sampling with ``sample=True``)."""
    return load_family(folder, name, lambda member: TrainedPolicy(member, sample=sample), seed)
