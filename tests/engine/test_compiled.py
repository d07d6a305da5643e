"""Where the kernels are cached (a folder named after every source the kernels can reach; a damaged
cache is compiled afresh), and the stores the observation encoder writes with."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from hearts_env.engine import compiled, kernels


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
    folder = compiled.cache_folder(*compiled.KERNEL_FOLDERS)
    assert kernels.step._cache._cache_path.startswith(str(folder))


@njit
def _store_three(out: np.ndarray, start: int) -> None:
    compiled.store(out, start, np.uint64(0x0807060504030201))
    compiled.store(out, start + 8, np.uint32(0x0C0B0A09))
    compiled.store(out, start + 12, np.uint8(0x0D))


def test_store_writes_little_endian_bytes_at_any_offset_and_nothing_else() -> None:
    for start in range(8):  # every alignment
        out = np.full(32, 0xEE, np.uint8)
        _store_three(out, start)
        expected = np.full(32, 0xEE, np.uint8)
        expected[start : start + 13] = np.arange(1, 14)
        np.testing.assert_array_equal(out, expected)


def test_store_refuses_what_it_cannot_write() -> None:
    @njit
    def store_into_words(out: np.ndarray) -> None:
        compiled.store(out, 0, np.uint64(1))

    with pytest.raises(TypingError, match="store"):
        store_into_words(np.zeros(4, np.uint64))


def _bits_kernel(count: int):
    @njit
    def write(out: np.ndarray, start: int, bits: np.uint64) -> None:
        compiled.store_bits(out, start, bits, count)

    return write


@pytest.mark.parametrize("count", [1, 4, 15, 16, 17, 31, 32, 48, 52, 64])
def test_store_bits_writes_count_bits_as_bytes_and_nothing_else(count: int) -> None:
    write = _bits_kernel(count)
    rng = np.random.default_rng(count)
    for start in (0, 1, 7):
        bits = np.uint64(rng.integers(0, 2**63)) | np.uint64(1 << 63)  # bits above count set too
        out = np.full(count + 80, 0xEE, np.uint8)
        write(out, start, bits)
        expected = np.full(count + 80, 0xEE, np.uint8)
        expected[start : start + count] = [(int(bits) >> i) & 1 for i in range(count)]
        np.testing.assert_array_equal(out, expected)


@pytest.mark.processes
def test_a_first_run_says_once_that_it_compiles_and_a_warm_one_says_nothing(tmp_path) -> None:
    code = (
        "import io, numpy as np\n"
        "from hearts_env.engine import compiled\n"
        "said = io.StringIO(); compiled.announce_compiling(said)\n"
        "from hearts_env.engine.core import bits_to_mask\n"
        "bits_to_mask(np.uint64(3)); bits_to_mask(np.uint64(5))\n"
        "print(said.getvalue(), end='')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"XDG_CACHE_HOME": str(tmp_path)}
    cold, warm = (subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env) for _ in "cw")
    assert cold.stdout.count("compiling its kernels, first run only") == 1, cold.stderr
    assert warm.stdout == "", warm.stdout


# ---------------------------------------------------------------------------------------------
# A damaged kernel cache


@pytest.mark.processes
def test_a_damaged_kernel_cache_is_compiled_afresh(tmp_path: Path) -> None:
    code = "import numpy as np; from hearts_env.core import bits_to_mask; print(int(bits_to_mask(np.uint64(5)).sum()))"
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    env_without = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, env={**env_without, **env}, timeout=300)
    assert first.stdout.strip() == b"2", first.stderr
    root = tmp_path / "hearts_env"
    assert root.stat().st_mode & 0o777 == 0o700  # private: its files are loaded as code
    files = list(root.rglob("*.nbi")) + list(root.rglob("*.nbc"))
    assert files
    for n, path in enumerate(files):
        path.write_bytes(b"" if n % 2 else b"\x80\x04garbage")
    again = subprocess.run([sys.executable, "-c", code], capture_output=True, env={**env_without, **env}, timeout=300)
    assert again.returncode == 0 and again.stdout.strip() == b"2", again.stderr


@pytest.mark.processes
@pytest.mark.skipif("NUMBA_CACHE_DIR" in os.environ, reason="the user chose the cache folder")
def test_a_cache_folder_that_cannot_be_made_caches_for_the_run_never_beside_the_sources(tmp_path: Path) -> None:
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("")
    code = (
        "import numpy as np\n"
        "from hearts_env.engine import compiled, core\n"
        "core.bits_to_mask(np.uint64(5))\n"
        "from hearts_env.engine import kernels\n"
        "print(compiled.no_lasting_cache); print(kernels.step._cache._cache_path)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"XDG_CACHE_HOME": str(a_file)}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    why, where = run.stdout.splitlines()
    assert why == f"cannot write {a_file / 'hearts_env'} (Not a directory)"
    # Beside the sources numba would load stale code after a callee's file changed.
    assert not where.startswith(str(compiled._HERE)) and not Path(where).exists()  # removed at exit
