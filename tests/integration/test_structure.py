"""The project's structure: each package's modules import one another without a circle, and the
layers import downwards only. ``hearts_env``'s folders are its layers (engine, then play, then
render, protocol and arena side by side, then envs, then cli); the modules directly in it are its
public faces, over every layer. Above it stand the agents, the training and the benchmark, in that
order, each folder of them a family with its height (``FAMILIES``): a family imports only lower
ones, so no rule-based player imports a learned one, no search imports a table for people, nothing
imports ``train`` at play time. A command line (a ``cli`` module, a ``__main__`` module, a module's
``if __name__ == "__main__":`` block) may import anything of its package; nothing imports it. Every
other import statement counts, those inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {
    "hearts_env": ROOT / "hearts_env",
    "hearts_env.agents": ROOT / "agents",
    "hearts_env.train": ROOT / "train",
    "hearts_env.bench": ROOT / "bench",
}
"""import name -> the repository folder it installs from"""
LAYERS = {"engine": 0, "play": 1, "render": 2, "protocol": 2, "arena": 2, "envs": 3, "cli": 4}
"""hearts_env's layer subpackages by height: each imports only its own and lower ones."""
MAX_FACES = 12
FLOORS = {"agents": 5, "train": 6, "bench": 7}
"""The floors above hearts_env's layers, by height."""
FAMILIES = {
    "agents": {"rule_based": 0, "learned": 0, "bridges": 0, "search": 1, "": 2, "human": 3},
    "train": {"": 0, "ppo": 1, "libraries": 1, "distill": 2},
    "bench": {"": 0, "ladder": 1},
}
"""Each floor's families (its folders; ``""``: the modules directly in it, the agents' registry) by height."""
MAX_MODULES = 8


def packages() -> dict[str, Path]:
    """Every package of the project (a folder with an ``__init__.py``) by its import name."""
    found = {}
    for name, folder in FOLDERS.items():
        for init in folder.rglob("__init__.py"):
            parts = init.parent.relative_to(folder).parts
            if not {"static", "policies", "suites", "schemas"} & set(parts):
                found[".".join((name, *parts))] = init.parent
    return found


PACKAGES = packages()


def modules() -> dict[str, Path]:
    """Every module of the project by its import name."""
    found = {}
    for package, folder in PACKAGES.items():
        for source in folder.glob("*.py"):
            found[package if source.stem == "__init__" else f"{package}.{source.stem}"] = source
    return found


def imports(name: str, source: Path, known: dict[str, Path]) -> set[str]:
    """The project modules that module ``name`` imports, anywhere in its source (a package's own
    ``__init__``, which Python runs before any of its submodules, counts only where named)."""
    package = name if source.stem == "__init__" else name.rpartition(".")[0]
    out = set()
    tree = ast.parse(source.read_text())
    tree.body = [node for node in tree.body if not is_main_block(node)]  # its own command line: see command_line
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            for alias in node.names:  # a submodule by name, else a name of the module (or package) itself
                out.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {target for target in out if target in known and target != name}


def is_main_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test) in ("__name__ == '__main__'", "'__main__' == __name__")


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, source, known) for name, source in known.items()}


def package_of(module: str) -> str:
    return max((p for p in PACKAGES if module == p or module.startswith(p + ".")), key=len)


def test_the_graph_is_read() -> None:
    edges = graph()
    assert "hearts_env.engine.core" in edges["hearts_env.play.runner"]
    assert "hearts_env.agents.rule_based.players" in edges["hearts_env.agents.rule_based.table"]
    assert "hearts_env.agents.specs" in edges["hearts_env.train.ppo.trainer"]
    assert "hearts_env.train.ppo.trainer" in edges["hearts_env.bench.main_job"]


@pytest.mark.parametrize("package", list(PACKAGES))
def test_no_import_circle_within_a_package(package: str) -> None:
    edges = {
        name: {t for t in targets if package_of(t) == package}
        for name, targets in graph().items()
        if package_of(name) == package
    }
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        path.append(name)
        for target in sorted(edges[name]):
            if state.get(target) == 1:
                circle = path[path.index(target) :] + [target]
                pytest.fail(f"import circle in {package}: {' -> '.join(circle)}")
            if target not in state:
                visit(target)
        path.pop()
        state[name] = 2

    for name in sorted(edges):
        if name not in state:
            visit(name)


def layer_of(module: str) -> str:
    """``engine``, ``play``, ... for a module of a layer; ``face`` for a module directly in hearts_env;
    ``agents``, ``train``, ``bench`` for theirs."""
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in FLOORS:
        return parts[1]
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else "face"


def family_of(module: str) -> str:
    """The folder of a floor a module is in (``""`` for the modules directly in the floor)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 3 or f"{'.'.join(parts[:3])}" in PACKAGES and len(parts) > 2 else ""


def command_line(module: str) -> bool:
    return module.rpartition(".")[2] in ("cli", "__main__") and layer_of(module) in FLOORS


def height(module: str) -> int:
    layer = layer_of(module)
    return FLOORS[layer] if layer in FLOORS else LAYERS.get(layer, len(LAYERS))


def allowed(source: str, target: str) -> bool:
    mine, theirs = layer_of(source), layer_of(target)
    if command_line(target):
        return command_line(source) and mine == theirs
    if mine in FLOORS:
        if theirs != mine:
            return height(target) < height(source) or target == "hearts_env"
        if command_line(source):
            return True
        ours, their = family_of(source), family_of(target)
        return ours == their or FAMILIES[mine][their] < FAMILIES[mine][ours]
    if theirs in FLOORS:
        return False
    if mine == "face" or target == "hearts_env":  # the package itself (its __version__) is imported first
        return True
    return theirs == mine or (theirs in LAYERS and LAYERS[theirs] < LAYERS[mine])


def test_layers_import_downwards_only() -> None:
    edges = graph().items()
    wrong = [f"{name} imports {target}" for name, targets in edges for target in targets if not allowed(name, target)]
    assert not wrong, wrong


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        ("hearts_env.agents.search.pimc", "hearts_env.agents.human.web.app", False),  # search under people's tables
        ("hearts_env.agents.rule_based.heuristic", "hearts_env.agents.learned.trained", False),  # side by side
        ("hearts_env.agents.specs", "hearts_env.train.config", False),  # nothing trains at play time
        ("hearts_env.agents.search.pimc", "hearts_env.agents.cli", False),  # nothing imports a command line
        ("hearts_env.bench.run", "hearts_env.agents.specs", True),
        ("hearts_env.train.distill.expert_iteration", "hearts_env.train.ppo.imitation", True),
        ("hearts_env.train.ppo.trainer", "hearts_env.train.distill.expert_iteration", False),
        ("hearts_env.agents.bridges.cli", "hearts_env.agents.specs", True),
    ],
)
def test_the_rule_itself(source: str, target: str, expected: bool) -> None:
    """The rule refuses what it must: a test of the test."""
    assert allowed(source, target) is expected


def test_every_folder_of_a_floor_is_a_family_with_a_height() -> None:
    """At most ``MAX_MODULES`` modules directly in agents/ and train/ (the benchmark is one family);
    every folder of a floor stands in ``FAMILIES``."""
    for floor in FAMILIES:
        folder = FOLDERS[f"hearts_env.{floor}"]
        assert floor == "bench" or len(list(folder.glob("*.py"))) <= MAX_MODULES, floor
        families = {p.name for p in folder.iterdir() if (p / "__init__.py").exists()}
        assert families | {""} == set(FAMILIES[floor]), (floor, families)


def test_the_folders_are_the_layers() -> None:
    """At most a dozen modules directly in hearts_env (the public faces), every layer a folder."""
    faces = sorted(p.name for p in (ROOT / "hearts_env").glob("*.py"))
    assert len(faces) <= MAX_FACES, faces
    assert {p.name for p in (ROOT / "hearts_env").iterdir() if (p / "__init__.py").exists()} == set(LAYERS)


def test_the_public_faces_keep_their_import_paths() -> None:
    """What the README and docs import stays where it was before the layers were folders."""
    import hearts_env
    from hearts_env import aec, cards, core, gym_env, observation, policy, rules

    assert aec.env is hearts_env.env and gym_env.HeartsVectorEnv is hearts_env.HeartsVectorEnv
    assert core.new_games.__module__ == "hearts_env.engine.core" and rules.HeartsRules is hearts_env.HeartsRules
    assert cards.parse_card("QS") == 36 and policy.RandomPolicy and observation.ObservationLayout
