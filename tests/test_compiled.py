"""Where the kernels are cached: a folder named after every source the kernels can reach."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hearts_env import compiled, kernels


def test_the_cache_folder_follows_every_source(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "a.py").write_text("x = 1\n")
    (package / "b.py").write_text("y = 2\n")
    first = compiled.cache_folder(package)
    assert first.parent == tmp_path / "cache" / "hearts_env"
    assert compiled.cache_folder(package) == first  # the same sources, the same folder
    (package / "b.py").write_text("y = 3\n")  # a callee's file changes: a new folder
    assert compiled.cache_folder(package) != first


@pytest.mark.skipif("NUMBA_CACHE_DIR" in os.environ, reason="the user chose the cache folder")
def test_the_core_kernels_are_cached_in_the_folder_of_their_sources() -> None:
    folder = compiled.cache_folder(Path(kernels.__file__).parent)
    assert kernels.step._cache._cache_path.startswith(str(folder))
