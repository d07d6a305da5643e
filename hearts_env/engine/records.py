"""Batches of records stored in one byte buffer, one row per game.

A batch of B records is a C-contiguous ``(B, width)`` uint8 array: each row holds one game's
fields at fixed byte offsets, the widest types first so every field is aligned. Python reads a
field as a ``(B, *shape)`` view of that array (made on first access, then cached); a compiled
kernel takes the whole buffer plus the layout's offsets, so one argument carries every field and
copying a state is one ``memcpy``.

    layout = Layout((("hands", np.uint64, (4,)), ("phase", np.int8, ())))
    data = layout.zeros(2)
    layout.view(data, "hands")  # (2, 4) uint64, a view of ``data``
"""

from __future__ import annotations

import functools
import operator
import struct
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

FieldSpec = tuple[str, Any, tuple[int, ...]]


class Layout:
    """Where each field lives in a row. ``offsets[i]`` is field i's offset in units of its own
    item size, so a kernel reads element j of field i as ``row.view(dtype)[offsets[i] + j]``."""

    def __init__(self, specs: Sequence[FieldSpec], first: Sequence[str] = ()) -> None:
        """``first``: fields to place at the start of the row, in this order (the ones a step
        reads, so that they share a cache line); the rest follow, widest first."""
        index = {spec[0]: i for i, spec in enumerate(specs)}
        rest = sorted(
            (i for i in range(len(specs)) if specs[i][0] not in first), key=lambda i: -np.dtype(specs[i][1]).itemsize
        )
        self.fields: dict[str, tuple[int, np.dtype, tuple[int, ...]]] = {}
        offsets = np.zeros(len(specs), np.int64)
        start = 0
        for i in [index[name] for name in first] + rest:
            name, dtype, shape = specs[i]
            dtype = np.dtype(dtype)
            start = -(-start // dtype.itemsize) * dtype.itemsize  # aligned to the item size
            self.fields[name] = (start, dtype, tuple(shape))
            offsets[i] = start // dtype.itemsize
            start += dtype.itemsize * int(np.prod(shape, dtype=np.int64))
        self.fields = {spec[0]: self.fields[spec[0]] for spec in specs}  # declaration order
        self.width = -(-start // 8) * 8  # rows stay 8-byte aligned
        self.offsets = offsets
        self.offsets.flags.writeable = False

    def zeros(self, batch_size: int) -> np.ndarray:
        return np.zeros((batch_size, self.width), np.uint8)

    def view(self, data: np.ndarray, name: str) -> np.ndarray:
        """Field ``name`` of every row of ``data`` (C-contiguous) as a (B, *shape) array sharing
        its memory."""
        start, dtype, shape = self.fields[name]
        if data.shape[0] == 0:  # no rows: no buffer to point into
            return np.zeros((0, *shape), dtype)
        strides = (data.shape[1], *_inner_strides(dtype.itemsize, shape))
        return np.ndarray((data.shape[0], *shape), dtype, data, start, strides)


_R = TypeVar("_R", bound="Records")
_STRUCT_CODES = {  # (dtype kind, itemsize) -> struct's code, of its standard sizes ("=")
    ("b", 1): "?",
    **{("i", size): code for size, code in ((1, "b"), (2, "h"), (4, "i"), (8, "q"))},
    **{("u", size): code for size, code in ((1, "B"), (2, "H"), (4, "I"), (8, "Q"))},
}


class Records:
    """Base of the batched record types (the core's ``State``, the info sets): a ``rules`` object,
    a ``(B, width)`` buffer ``data`` and field views of it made on first access (treat them as
    read-only: a record is a value, changed through ``replace``).

    Subclasses set ``_layout_for(rules, data)``; fields are named by ``FIELDS``."""

    FIELDS: tuple[str, ...] = ()
    META: tuple[str, ...] = ("rules", "layout")  # attributes a sub-batch or a stepped copy shares

    def __init__(self, rules: Any, data: np.ndarray, layout: Layout) -> None:
        self.rules = rules
        self.data = data
        self.layout = layout

    def __getattr__(self, name: str) -> np.ndarray:  # only called for fields not viewed yet
        layout = self.__dict__.get("layout")
        if layout is None or name not in layout.fields:
            raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")
        array = layout.view(self.data, name)  # records are values: change them through replace()
        self.__dict__[name] = array
        return array

    @property
    def batch_size(self) -> int:
        return self.data.shape[0]

    def scalars(self, game: int, *names: str) -> tuple[int, ...]:
        """Fields ``names`` (one value per game each) of game ``game`` as ints, read straight from the
        row's bytes: for a caller that reads a few fields of one game once (the AEC env after each
        step), a third of the time of making the fields' (B,) views."""
        row, fields = memoryview(self.data[game]), self.layout.fields
        out = []
        for name in names:
            start, dtype, _ = fields[name]
            out.append(int.from_bytes(row[start : start + dtype.itemsize], sys.byteorder, signed=dtype.kind == "i"))
        return tuple(out)

    def scalar_reader(self, *names: str) -> Callable[[Any], tuple[Any, ...]]:
        """A function of a one-game ``data`` row of this layout (a buffer, (width,) or (1, width))
        giving fields ``names`` (one value per game each) as Python values, in that order: the
        fields of ``scalars`` in one ``struct`` read, for a caller that reads them after every
        step (the OpenSpiel game)."""
        fields = self.layout.fields
        for name in names:
            if name not in fields or fields[name][2] != ():
                raise ValueError(f"{name!r} is not a field of one value per game of {type(self).__name__}")
        fmt, at = "=", 0
        by_start = sorted(names, key=lambda name: fields[name][0])
        for name in by_start:
            start, dtype, _ = fields[name]
            fmt += f"{start - at}x{_STRUCT_CODES[dtype.kind, dtype.itemsize]}"
            at = start + dtype.itemsize
        unpack, order = struct.Struct(fmt).unpack_from, [by_start.index(name) for name in names]
        pick = operator.itemgetter(*order)
        if len(names) == 1:
            return lambda data: (pick(unpack(data)),)
        return lambda data: pick(unpack(data))

    def with_data(self: _R, data: np.ndarray) -> _R:
        """A record of the same kind, rules and layout over another ``(B, width)`` buffer (a stepped
        copy, a splice of games, a sub-batch): nothing is checked or copied."""
        new = object.__new__(type(self))
        fresh, mine = new.__dict__, self.__dict__  # plain dict writes: every step makes one
        for name in self.META:
            fresh[name] = mine[name]
        fresh["data"] = data
        return new

    def __getitem__(self: _R, index: int | slice | np.ndarray) -> _R:
        """The sub-batch of the games at ``index`` (an int keeps a batch of one, and raises
        ``IndexError`` outside -B..B-1, as a list does)."""
        if isinstance(index, (bool, np.bool_)):
            raise IndexError(f"a batch is indexed by game numbers, slices or arrays, not by {index!r}")
        if isinstance(index, (int, np.integer)):
            B = self.batch_size
            if not -B <= index < B:
                raise IndexError(f"game {index} is out of range for a batch of {B}")
            index = slice(index % B, index % B + 1)
        return self.with_data(np.ascontiguousarray(self.data[index]))

    def replace(self: _R, **fields: np.ndarray) -> _R:
        """A copy with the given fields replaced (each broadcast to the field's (B, ...) shape).
        Nothing is recomputed: derived fields are the caller's to keep consistent."""
        data = self.data.copy()
        for name, value in fields.items():
            if name not in self.layout.fields:
                raise ValueError(f"{type(self).__name__} has no field {name!r}")
            try:
                self.layout.view(data, name)[...] = value
            except ValueError as error:
                raise ValueError(f"{type(self).__name__}.replace: field {name!r}: {error}") from None
        return self.with_data(data)

    def __getstate__(self) -> dict[str, Any]:
        return {name: self.__dict__[name] for name in (*self.META, "data")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(batch_size={self.batch_size}, rules={self.rules!r})"


def concatenate(parts: Sequence[_R]) -> _R:
    """One batch of the games of several batches of the same rules and layout, in order."""
    first = parts[0]
    for part in parts[1:]:
        if part.rules != first.rules or part.layout is not first.layout:
            raise ValueError("concatenate: every batch must have the same rules and layout")
    return first.with_data(np.concatenate([p.data for p in parts]))


@functools.cache
def _inner_strides(itemsize: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Strides of a C-contiguous array of ``shape`` with items of ``itemsize`` bytes."""
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


@functools.cache
def cached_layout(specs: tuple[FieldSpec, ...], first: tuple[str, ...] = ()) -> Layout:
    return Layout(specs, first)
