"""Compiled kernels: where numba keeps them between runs, their decorators, two stores numba lacks.

numba checks a cached kernel against the time stamp of its own source file only, so a kernel that
calls kernels of another file (the infoset and observation kernels call the core's; the agents'
kernels call both) would load stale machine code after that other file changed. So each package
that holds kernels points numba's cache at a folder named after a hash of every source file its
kernels can reach, before it defines any: a change to any of them compiles afresh once, into a
new folder. ``NUMBA_CACHE_DIR``, when set, is left alone.

The folder is made private to the user (numba loads its files as code), and a cache file there
that does not read back (cut short by a full disk or a crash, emptied, overwritten) is taken as a
cache miss: the kernel compiles afresh and the file is written anew, instead of every run failing.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, cast

import numba
import numba.core.event
from llvmlite import ir
from numba import types
from numba.core.caching import IndexDataCacheFile
from numba.extending import intrinsic

_HERE = Path(__file__).resolve().parent
KERNEL_FOLDERS = (_HERE, _HERE.parent / "protocol")  # hearts_env's folders that define kernels


def cache_folder(*packages: Path) -> Path:
    """The folder for kernels compiled from these package folders' sources (``~/.cache/hearts_env``
    or ``$XDG_CACHE_HOME/hearts_env``, then a hash of the sources and numba's version)."""
    digest = hashlib.sha256(numba.__version__.encode())
    for package in packages:
        for source in sorted(package.glob("*.py")):
            digest.update(source.name.encode())
            digest.update(source.read_bytes())
    return cache_root() / f"numba-{digest.hexdigest()[:16]}"


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/hearts_env`` (``~/.cache/hearts_env``): every folder of compiled kernels."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hearts_env"


no_lasting_cache: str | None = None
"""Why the kernels compiled in this run are not kept for the next (the cache folder cannot be made or
written: ``XDG_CACHE_HOME`` names a file, a read-only folder), or None when they are kept."""


def use_cache_for(*packages: Path) -> None:
    """Cache the kernels defined from now on in the folder of these packages' sources. When that
    folder cannot be written, they are cached in a folder of this run's own, removed at its exit:
    never beside the sources, where numba would go next and load stale machine code after a callee's
    file changed (and which may be read-only too)."""
    global no_lasting_cache
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    folder = cache_folder(*KERNEL_FOLDERS, *packages)
    try:
        _make_private(folder)
    except OSError as error:  # no cache to be had (a read-only home): this run's own folder
        no_lasting_cache = f"cannot write {folder.parent} ({error.strerror or error})"
        try:
            folder = Path(tempfile.mkdtemp(prefix="hearts_env-kernels-"))
        except OSError:  # not even a temporary folder: numba finds its own place, or none
            return
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
    numba.config.CACHE_DIR = str(folder)  # type: ignore[attr-defined]  # numba's hints omit its config options


def _make_private(folder: Path) -> None:
    """Make the cache folder, private to the user (the kernels in it are loaded as code: other users
    keep out), and check that a file can be written in it, as numba does before using it."""
    root = folder.parent
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    if root.stat().st_uid == os.getuid() and root.stat().st_mode & 0o077:
        root.chmod(0o700)
    folder.mkdir(exist_ok=True)
    tempfile.TemporaryFile(dir=folder).close()


class _Announcement(numba.core.event.Listener):
    """Says once, when numba starts compiling, that the first run compiles (and what it waits for)."""

    def __init__(self, file: Any) -> None:
        self.file, self.said = file, False

    def on_start(self, event: numba.core.event.Event) -> None:
        if not self.said:
            self.said = True
            where = os.environ.get("NUMBA_CACHE_DIR") or cache_root()
            kept = f"not kept: {no_lasting_cache}" if no_lasting_cache else f"kept in {where}"
            print(
                f"hearts_env: compiling its kernels, first run only (a minute or two; {kept})",
                file=self.file,
                flush=True,
            )

    def on_end(self, event: numba.core.event.Event) -> None:
        pass


def announce_compiling(file: Any = None) -> None:
    """Print one line when kernels start compiling (a first run, or the first after an update),
    so a wait is explained. Commands call it when they print to a terminal; library use stays
    quiet unless it calls this."""
    numba.core.event.register("numba:compile", _Announcement(sys.stderr if file is None else file))


def _in_our_cache(path: str) -> bool:
    mine = os.environ.get("NUMBA_CACHE_DIR") or str(cache_root())
    return os.path.abspath(path).startswith(os.path.abspath(mine) + os.sep)


def _unreadable_is_missing(load: Callable[..., Any], missing: Callable[[], Any]) -> Callable[..., Any]:
    """Numba's reader of a cache file, taking a file of our cache that does not read back as
    ``missing()`` (a cache miss) rather than an error."""

    @functools.wraps(load)
    def read(self: IndexDataCacheFile, *args: Any) -> Any:
        try:
            return load(self, *args)
        except OSError:
            raise  # a file removed under numba: numba's own miss
        except Exception:  # pickle's errors on a truncated or garbled file
            if not _in_our_cache(self._cache_path):
                raise
            return missing()

    return read


def _no_data() -> None:
    raise OSError("an unreadable cache data file")  # ``IndexDataCacheFile.load`` takes it as a miss


# Patching numba's class on purpose (mypy refuses assignments to methods).
IndexDataCacheFile._load_index = _unreadable_is_missing(IndexDataCacheFile._load_index, dict)  # type: ignore[method-assign]
IndexDataCacheFile._load_data = _unreadable_is_missing(IndexDataCacheFile._load_data, _no_data)  # type: ignore[method-assign]


use_cache_for()  # hearts_env's own kernels

row_kernel = numba.njit(cache=True, _nrt=False)  # type: ignore[call-overload]  # _nrt: numba's hints omit it
"""The decorator of kernels that make no arrays. They run without numba's reference counting: the
views of a game's row they take (``data.view(...)[g]``, slices of it) otherwise cost two atomic
operations each, measured at 40% of a step's time."""

inline_kernel = numba.njit(cache=True, inline="always", _nrt=False)  # type: ignore[call-overload]  # as above
"""The decorator of the per-card kernels (a legal-card set, a step, the end of a trick): numba inlines them
into every kernel that calls them. A call between kernels is otherwise a real call that passes
each array as seven scalars, which cost more than the work: stepping 4,096 games took 34 ns a
game with calls, 19 ns inlined."""


_P = ParamSpec("_P")


def _in_kernels(function: Callable[Concatenate[Any, _P], object]) -> Callable[_P, None]:
    """An intrinsic typed as kernels call it: without the typing context numba passes it, returning
    nothing (numba's hints type the call with the context and as raising, as it does from Python)."""
    return cast("Callable[_P, None]", function)


@_in_kernels
@intrinsic
def store(typingctx, array, start, value):
    """``store(out, start, value)`` in a kernel: the bytes of the integer ``value`` (little-endian,
    its own width) at ``out[start:]`` of a C-contiguous uint8 array, in one unaligned store and
    without a bounds check (numba has none: ``out[a:b].view(np.uint64)[0] = word`` pays for a
    slice and a view at every store). A packed observation's card row is one such store."""
    if not _bytes_at(array, start, value):
        return None

    def codegen(context, builder, signature, args):
        word = ir.IntType(value.bitwidth).as_pointer()
        builder.store(args[2], builder.bitcast(_address(context, builder, signature, args), word), align=1)

    return types.void(array, start, value), codegen


@_in_kernels
@intrinsic(prefer_literal=True)
def store_bits(typingctx, array, start, bits, count):
    """``store_bits(out, start, bits, count)`` in a kernel: the low ``count`` bits of ``bits`` (a
    constant, 1..64) as 0/1 bytes at ``out[start:start + count]`` of a C-contiguous uint8 array,
    without a bounds check. The bits become byte lanes of one vector (a mask register and one
    masked move with AVX-512, a few shuffles without), written in 32- and 16-byte stores: an
    observation's card row in three stores instead of seven table lookups and seven stores."""
    constant = isinstance(count, types.IntegerLiteral) and 1 <= count.literal_value <= 64
    if not (_bytes_at(array, start, bits) and constant):
        return None
    n = count.literal_value

    def codegen(context, builder, signature, args):
        base = _address(context, builder, signature, args)
        byte, lane = ir.IntType(8), ir.IntType(32)
        word = context.cast(builder, args[2], signature.args[2], types.uint64)
        lanes = builder.zext(builder.bitcast(word, ir.VectorType(ir.IntType(1), 64)), ir.VectorType(byte, 64))
        for first, size in _chunks(n):
            picked = ir.Constant(ir.VectorType(lane, size), list(range(first, first + size)))
            part = builder.shuffle_vector(lanes, lanes, picked)
            where = builder.gep(base, [ir.Constant(ir.IntType(64), first)])
            builder.store(part, builder.bitcast(where, ir.VectorType(byte, size).as_pointer()), align=1)

    return types.void(array, start, bits, count), codegen


def _bytes_at(array: types.Type, start: types.Type, value: types.Type) -> bool:
    """The stores' argument types: a C-contiguous uint8 array, an integer offset, an integer."""
    is_bytes = isinstance(array, types.Array) and array.dtype == types.uint8 and array.layout == "C"
    return is_bytes and isinstance(start, types.Integer) and isinstance(value, types.Integer)


def _address(context, builder, signature, args):  # numba's code-generation objects
    """The address of ``out[start]`` (the stores' first two arguments) as an LLVM byte pointer."""
    data = context.make_array(signature.args[0])(context, builder, args[0]).data
    return builder.gep(data, [context.cast(builder, args[1], signature.args[1], types.intp)])


def _chunks(n: int) -> list[tuple[int, int]]:
    """(first byte, size) of the stores that cover n bytes: 32s and 16s, the last one moved back
    to end at n (overlapping the one before) rather than a run of smaller stores."""
    if n < 16:
        return [(0, n)]
    chunks, first = [], 0
    while n - first >= 16:
        size = 32 if n - first >= 32 else 16
        chunks.append((first, size))
        first += size
    if first < n:
        chunks.append((n - 16, 16))
    return chunks
