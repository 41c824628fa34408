"""Vector bin packing instances: VPSolver's ``.vbp`` files, the VCSched JSON form, the checker.

A :class:`VectorPacking` holds ``d`` bin capacities and ``m`` item *types*,
each with ``d`` demands and a count; the items are numbered ``0 .. n-1`` type
by type (the copies of type 0 first). The question is the fewest bins of
that capacity that hold every item (no bin over its capacity in any
dimension).

The ``.vbp`` format (VPSolver, Brandão and Pedroso 2016) is a stream of
numbers separated by blanks or line breaks::

    d
    c_1 ... c_d              (bin capacities)
    m                        (item types)
    w_11 ... w_1d  b_1       (demands of type 1 and its count)
    ...
    w_m1 ... w_md  b_m

:func:`read_vbp` checks it strictly and says in one line which line and
which field is wrong (a missing or extra number, a capacity ``<= 0``, a
negative demand, a count that is not an integer ``>= 0``). An item larger
than the bin in some dimension is *not* an error here: the packing
commands report it as status ``infeasible`` naming the item
(:func:`oversized_item`).

A VCSched JSON instance (README, section VCSched) is read as a packing with
every job at yield 1: one item per task with demands ``(cpu, mem)`` into
unit hosts ``(1, 1)``, as many as needed (:func:`packing_from_vc`); a file
with host types becomes bins of several types with their counts as limits
(:mod:`vcsched.problems.vbp_typed`, whose ``load_packing`` reads either file).

Reference: F. Brandão, J. P. Pedroso. Bin packing and related problems:
general arc-flow formulation with graph compression. Computers & Operations
Research 69 (2016) (VPSolver and its file format).
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Callable

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.problems.jsonfile import read_input_bytes

__all__ = ["ItemTypes", "VectorPacking", "FIT_TOL", "read_vbp", "parse_vbp", "vbp_text", "write_vbp", "packing_from_vc",
           "bins_problem", "items_once_problem", "oversized_item", "MAX_ITEMS", "MAX_DIMENSIONS"]

FIT_TOL = 1e-12
"""Relative tolerance of a bin's capacity in every dimension (a load may exceed it by this fraction)."""

MAX_ITEMS = 1_000_000
"""Most items (sum of the counts) in a packing instance."""
MAX_DIMENSIONS = 1_000
"""Most dimensions ``d``."""

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


class ItemTypes:
    """Items given by type, numbered type by type: ``demand`` (m, d) of each type and ``count`` (m,) copies
    of it (the item side of :class:`VectorPacking` and :class:`~vcsched.problems.vbp_typed.TypedBinPacking`)."""

    @property
    def n_types(self) -> int:
        return int(self.count.size)

    @property
    def n_items(self) -> int:
        return int(self.count.sum())

    def item_type(self) -> np.ndarray:
        """The type of every item (items numbered type by type)."""
        return np.repeat(np.arange(self.n_types), self.count)

    def item_demand(self) -> np.ndarray:
        """Demands of every item, shape (n, d)."""
        return np.repeat(self.demand, self.count, axis=0)


@dataclasses.dataclass(frozen=True)
class VectorPacking(ItemTypes):
    """``capacity`` (d,), ``demand`` (m, d) per item type, ``count`` (m,) copies per type, ``name``."""

    capacity: np.ndarray
    demand: np.ndarray
    count: np.ndarray
    name: str = ""

    @property
    def d(self) -> int:
        return int(self.capacity.size)

    def sizes(self) -> np.ndarray:
        """Demands per type divided by the capacities, shape (m, d): bins become ``(1, ..., 1)``."""
        return self.demand / self.capacity

    def item_sizes(self) -> np.ndarray:
        """Normalised sizes of every item, shape (n, d)."""
        return np.repeat(self.sizes(), self.count, axis=0)


def _tokens(text: str) -> list[tuple[int, str]]:
    """``(line number, token)`` for every number of the file; ``#`` starts a comment."""
    out = []
    for k, line in enumerate(text.splitlines(), start=1):
        out.extend((k, tok) for tok in line.split("#", 1)[0].split())
    return out


class _Reader:
    """The token stream of a ``.vbp`` file, each read named for its error line."""

    def __init__(self, text: str, source: str) -> None:
        self.toks, self.pos, self.source = _tokens(text), 0, source

    def fail(self, line: int | None, what: str) -> InvalidInputError:
        where = f"{self.source}: line {line}" if line is not None else self.source
        return InvalidInputError(f"{where}: {what}; the .vbp format is d, the d capacities, the number of item "
                                 "types, then for each type its d demands and its count")

    def number(self, field: str, *, integer: bool = False, low: float = 0.0, strict: bool = False,
               high: float = math.inf) -> float:
        if self.pos >= len(self.toks):
            last = self.toks[-1][0] if self.toks else None
            raise self.fail(last, f"the file ends where {field} was expected (too few numbers)")
        line, tok = self.toks[self.pos]
        self.pos += 1
        if not _NUMBER.match(tok):
            raise self.fail(line, f"{field}: expected a number, got {tok!r}")
        value = float(tok)
        if not math.isfinite(value) or (integer and not value.is_integer()):
            raise self.fail(line, f"{field}: expected {'an integer' if integer else 'a finite number'}, got {tok!r}")
        if value < low or (strict and value <= low):
            raise self.fail(line, f"{field}: expected a number {'>' if strict else '>='} {low:g}, got {tok!r}")
        if value > high:
            raise self.fail(line, f"{field}: {tok} is more than the limit of {high:,.0f}")
        return value

    def finish(self) -> None:
        if self.pos < len(self.toks):
            line, tok = self.toks[self.pos]
            raise self.fail(line, f"extra number {tok!r} after the last item type (too many numbers, or a wrong "
                                  "number of item types)")


def parse_vbp(text: str, source: str = "<vbp>") -> VectorPacking:
    """A :class:`VectorPacking` from the text of a ``.vbp`` file (format in the module docstring)."""
    r = _Reader(text, source)
    d = int(r.number("d (the number of dimensions)", integer=True, low=1))
    if d > MAX_DIMENSIONS:
        raise r.fail(r.toks[0][0], f"d = {d} dimensions, more than the limit of {MAX_DIMENSIONS}")
    cap = np.array([r.number(f"capacity {k + 1} of {d}", low=0.0, strict=True) for k in range(d)])
    m = int(r.number("the number of item types", integer=True, low=0))
    if m > MAX_ITEMS:
        raise r.fail(r.toks[r.pos - 1][0], f"{m} item types, more than the limit of {MAX_ITEMS:,}")
    demand = np.zeros((m, d))
    count = np.zeros(m, dtype=np.int64)
    for i in range(m):
        for k in range(d):
            demand[i, k] = r.number(f"item type {i + 1} of {m}, demand {k + 1} of {d}")
        count[i] = int(r.number(f"item type {i + 1} of {m}, count", integer=True, high=MAX_ITEMS))
    r.finish()
    if count.sum() > MAX_ITEMS:
        raise InvalidInputError(f"{source}: {int(count.sum()):,} items, more than the limit of {MAX_ITEMS:,}")
    return VectorPacking(cap, demand, count, name=os.path.basename(source))


def read_vbp(path: str | os.PathLike) -> VectorPacking:
    """Read a ``.vbp`` file (a missing file, a folder or binary data are one-line errors)."""
    source = os.fspath(path)
    data = read_input_bytes(source, what=".vbp file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInputError(f"{source}: not a text file (not UTF-8); give a .vbp file of numbers") from None
    return parse_vbp(text, source)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def vbp_text(inst: VectorPacking) -> str:
    """The ``.vbp`` text of ``inst`` (integers written without a decimal point)."""
    lines = [str(inst.d), " ".join(_num(c) for c in inst.capacity), str(inst.n_types)]
    lines += [" ".join([_num(w) for w in inst.demand[i]] + [str(int(inst.count[i]))]) for i in range(inst.n_types)]
    return "\n".join(lines) + "\n"


def write_vbp(inst: VectorPacking, path: str | os.PathLike) -> None:
    from vcsched.files import atomic_write

    atomic_write(path, lambda tmp: tmp.write_text(vbp_text(inst), encoding="utf-8"))


def packing_from_vc(instance, name: str = "") -> VectorPacking:
    """A VCSched instance with every job at yield 1: one item type per job, demands ``(cpu, mem)``,
    count its tasks, into unit hosts ``(1, 1)``; item ``k`` is task ``k`` of the instance."""
    demand = np.stack([instance.cpu.astype(float), instance.mem.astype(float)], axis=1)
    return VectorPacking(np.ones(2), demand, instance.tasks.astype(np.int64), name=name)


def oversized_item(inst: VectorPacking) -> str | None:
    """The first item larger than the bin in some dimension, named (None if every item fits alone)."""
    over = inst.demand > inst.capacity * (1 + FIT_TOL)
    bad = np.flatnonzero(over.any(axis=1) & (inst.count > 0))
    if bad.size == 0:
        return None
    i = int(bad[0])
    k = int(np.flatnonzero(over[i])[0])
    first = int(inst.count[:i].sum())
    return (f"item {first} (type {i + 1}) needs {_num(inst.demand[i, k])} in dimension {k + 1}, more than the "
            f"capacity {_num(inst.capacity[k])}: no packing exists")


def bins_problem(inst: VectorPacking, bins) -> str | None:
    """The checker: None when ``bins`` (lists of item indices) hold every item exactly once and no
    bin exceeds the capacity in any dimension (relative tolerance :data:`FIT_TOL`); else the reason."""
    sizes = inst.item_sizes()

    def overfull(b: int, idx: np.ndarray) -> str | None:
        load = sizes[idx].sum(axis=0)
        if np.any(load > 1 + FIT_TOL):
            k = int(np.argmax(load))
            return f"bin {b} exceeds its capacity in dimension {k + 1} ({load[k]:.6g} of the capacity)"
        return None

    return items_once_problem(inst.n_items, bins, overfull)


def items_once_problem(n: int, bins, overfull: Callable[[int, np.ndarray], str | None]) -> str | None:
    """The rules every packing checker shares: each bin holds items ``0..n-1`` (their indices), no bin is
    ``overfull(b, indices)`` (a reason, or None), and every item is in exactly one bin; the first reason
    found, or None."""
    seen = np.zeros(n, dtype=np.int64)
    for b, items in enumerate(bins):
        idx = np.asarray(items, dtype=np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            return f"bin {b} holds item {int(idx.min() if idx.min() < 0 else idx.max())}, not an item (0..{n - 1})"
        np.add.at(seen, idx, 1)
        problem = overfull(b, idx)
        if problem is not None:
            return problem
    if np.any(seen != 1):
        i = int(np.flatnonzero(seen != 1)[0])
        return f"item {i} is packed {int(seen[i])} times"
    return None
