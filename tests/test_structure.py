"""The project's structure: each package's modules import one another without a circle, and the
layers import downwards only (``hearts_env`` never imports its agents or training code, the agents
never import training code). Every import statement counts, those inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {  # import name -> the repository folder it installs from
    "hearts_env": ROOT / "hearts_env",
    "hearts_env.arena": ROOT / "hearts_env" / "arena",
    "hearts_env.agents": ROOT / "agents",
    "hearts_env.train": ROOT / "train",
}


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
    assert "hearts_env.core" in edges["hearts_env.runner"]
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


def test_layers_import_downwards_only() -> None:
    below = {  # what each package may import
        "hearts_env": {"hearts_env", "hearts_env.arena"},
        "hearts_env.arena": {"hearts_env", "hearts_env.arena"},
        "hearts_env.agents": {"hearts_env", "hearts_env.arena", "hearts_env.agents"},
        "hearts_env.train": set(PACKAGES),
    }
    wrong = [
        f"{name} imports {target}"
        for name, targets in graph().items()
        for target in targets
        if package_of(target) not in below[package_of(name)]
    ]
    assert not wrong, wrong
