"""MkDocs hooks: the repository files that the documentation links to, served with the site.

Also a Griffe extension (``SubpackageFolders``) for the API reference: the repository's ``agents/``,
``train/`` and ``bench/`` folders install as ``hearts_env.agents``, ``hearts_env.train`` and
``hearts_env.bench`` (pyproject.toml's package-dir), which Griffe cannot see from the folders alone.

The pages live in ``docs/``, and some link to files outside it (the shipped agent's card, the
benchmark suite's JSON), which MkDocs cannot check. These hooks add such files to the site:
every shipped policy's folder (``agents/policies/NAME``, ``MOUNTS``) at its own place (the
shipped agent's README becomes the page ``agent-card/``), any other linked repository file under
``repo/``, and rewrite the links to match. A link to a file that does not exist is left as it is,
so ``mkdocs build --strict`` fails on it, as it does on a missing page or anchor.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

import griffe
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
POLICIES = "agents/policies"


def _card_folder(name: str) -> str:
    """The site folder of the shipped policy ``name``: ``ppo`` keeps its first URL, ``agent-card``."""
    return "agent-card" if name == "ppo" else name.removeprefix("ppo-") + "-card"


MOUNTS = {
    f"{POLICIES}/{card.parent.name}": _card_folder(card.parent.name)
    for card in sorted((ROOT / POLICIES).glob("*/README.md"))
}
"""Repository folder -> site folder: its Markdown and pictures become pages and images there."""
SUBPACKAGES = {"agents": "agents", "train": "train", "bench": "bench"}
"""Subpackage of hearts_env -> its repository folder (pyproject.toml's package-dir)."""
MOUNTED_SUFFIXES = (".md", ".png")
LINK = re.compile(r"(\]\()([^)\s#:]+)(#[^)\s]*)?(\))")
"""A relative Markdown link: ``](target#anchor)``, no scheme."""


def _site_uri(path: Path) -> str | None:
    """Where a repository file is in the site, or None for a file outside the repository."""
    path = path.resolve()
    if path.is_relative_to(DOCS):
        return path.relative_to(DOCS).as_posix()
    if not path.is_relative_to(ROOT):
        return None
    rel = path.relative_to(ROOT).as_posix()
    for folder, mount in MOUNTS.items():
        if rel.startswith(folder + "/"):
            return mount + rel[len(folder) :]
    return "repo/" + rel


def _outside_targets(source: Path) -> set[Path]:
    """The existing repository files outside docs/ that a Markdown file links to."""
    found = set()
    for match in LINK.finditer(source.read_text(encoding="utf-8")):
        target = (source.parent / match.group(2)).resolve()
        if target.is_file() and target.is_relative_to(ROOT) and not target.is_relative_to(DOCS):
            found.add(target)
    return found


def on_files(files: Files, config: MkDocsConfig) -> Files:
    mounted = [
        path for folder in MOUNTS for path in sorted((ROOT / folder).iterdir()) if path.suffix in MOUNTED_SUFFIXES
    ]
    pages = [Path(f.abs_src_path) for f in files.documentation_pages() if f.abs_src_path]
    sources = pages + [path for path in mounted if path.suffix == ".md"]
    targets = set(mounted).union(*(_outside_targets(source) for source in sources))
    for target in sorted(targets):
        uri = _site_uri(target)
        if files.get_file_from_path(uri) is None:
            files.append(File.generated(config, uri, abs_src_path=str(target)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    source = Path(page.file.abs_src_path)
    here = posixpath.dirname(page.file.src_uri)

    def rewrite(match: re.Match[str]) -> str:
        target = source.parent / match.group(2)
        uri = _site_uri(target)
        if uri is None or not target.exists():
            return match.group(0)
        link = posixpath.relpath(uri, here or ".")
        return f"{match.group(1)}{link}{match.group(3) or ''}{match.group(4)}"

    return LINK.sub(rewrite, markdown)


class SubpackageFolders(griffe.Extension):
    """Loads the folders of ``SUBPACKAGES`` as subpackages of ``hearts_env``."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: object) -> None:
        if pkg.name != "hearts_env":
            return
        for name, folder in SUBPACKAGES.items():
            # Griffe has no public call to load a package under a given parent.
            pkg.set_member(name, loader._load_module(name, ROOT / folder / "__init__.py", parent=pkg))
