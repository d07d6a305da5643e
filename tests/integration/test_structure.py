"""The project's structure: each package's modules import one another without a circle, and the
layers import downwards only. ``hearts_env``'s folders are its layers (engine, then play, then
render, protocol and arena side by side, then envs, then cli); the modules directly in it are its
public faces, over every layer. ``hearts_env`` never imports its agents or training code, the
agents never import training code. Every import statement counts, those inside functions
included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"hearts_env": ROOT / "hearts_env", "hearts_env.agents": ROOT / "agents", "hearts_env.train": ROOT / "train"}
"""import name -> the repository folder it installs from"""
LAYERS = {"engine": 0, "play": 1, "render": 2, "protocol": 2, "arena": 2, "envs": 3, "cli": 4}
"""hearts_env's layer subpackages by height: each imports only its own and lower ones."""
MAX_FACES = 12


def packages() -> dict[str, Path]:
    """Every package of the project (a folder with an ``__init__.py``) by its import name."""
    found = {}
    for name, folder in FOLDERS.items():
        for init in folder.rglob("__init__.py"):
            parts = init.parent.relative_to(folder).parts
            if not {"static", "policies", "suites"} & set(parts):
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
    for node in ast.walk(ast.parse(source.read_text())):
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


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, source, known) for name, source in known.items()}


def package_of(module: str) -> str:
    return max((p for p in PACKAGES if module == p or module.startswith(p + ".")), key=len)


def test_the_graph_is_read() -> None:
    edges = graph()
    assert "hearts_env.engine.core" in edges["hearts_env.play.runner"]
    assert "hearts_env.agents.players" in edges["hearts_env.agents.table"]
    assert "hearts_env.agents.specs" in edges["hearts_env.train.ppo"]


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
    ``agents``, ``train`` for theirs."""
    parts = module.split(".")
    if parts[1:2] in (["agents"], ["train"]):
        return parts[1]
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else "face"


def test_layers_import_downwards_only() -> None:
    def allowed(source: str, target: str) -> bool:
        mine, theirs = layer_of(source), layer_of(target)
        if mine == "train":
            return True
        if mine == "agents":
            return theirs != "train"
        if theirs in ("agents", "train"):
            return False
        if mine == "face" or target == "hearts_env":  # the package itself (its __version__) is imported first
            return True
        return theirs == mine or (theirs in LAYERS and LAYERS[theirs] < LAYERS[mine])

    edges = graph().items()
    wrong = [f"{name} imports {target}" for name, targets in edges for target in targets if not allowed(name, target)]
    assert not wrong, wrong


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
