"""The restricted integer master of the configuration model: a packing built from LP columns.

Seed 001 §2.5/§3.1: a placement with largest load ``<= L`` is a packing of
the tasks, as 2-D items ``(alpha_i, m_i)``, into ``H`` bins of capacity
``(L, 1)``. The Gilmore-Gomory model writes a packing as configurations
(columns ``a_p``: copies of each item type one bin holds) and counts
``x_p`` of bins of each. *Price-and-branch*: the configuration LP
(:func:`lowerbounds.vc.packing.configuration_lp`) generates columns; the
integer master restricted to them is then solved as a MILP::

    integer x_p >= 0,   sum_p x_p <= H,   sum_p a_ip x_p >= d_i  (every type i)

A solution is a placement (:func:`placement_from_configurations`): ``x_p``
hosts receive configuration ``p``, and the tasks of each job go to those
host slots in order until its ``d_i`` tasks are placed. An over-covered
type leaves some slots empty, which only lowers a host's CPU and memory,
so every host holds a sub-multiset of one configuration and fits
``(L, 1)``. The columns are filtered first with the checker's memory
tolerance (``1 + 1e-12``) and the load ``L`` itself (the LP's columns fit
bins enlarged by ``CAP_TOL``).

This is a heuristic, never a proof: the restricted master lacks most
configurations, so "no solution" says nothing about the full model. The
caller (:func:`lowerbounds.vc.certification.certify`) re-checks every placement
with the checker's memory test and recomputes its largest load.

The MILP is solved by HiGHS on arrays (``highspy``, one column block),
interruptibly (:func:`vcsched.formulations.solve.run_interruptibly`), with
a time limit; ``mip_rel_gap = 1`` stops it at the first integer solution
(any one with ``sum_p x_p <= H`` will do).

Reference: F. Vanderbeck. Computational study of a column generation
algorithm for bin packing and cutting stock problems. Mathematical
Programming 86 (1999) (the restricted master solved as an integer program
is the classical primal heuristic of column generation).
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from lowerbounds.vc.packing import Column, PackingItems, singleton_counts
from vcsched.problems.vc import VCInstance

__all__ = ["IntegerMaster", "ColumnBlock", "fitting_columns", "solve_integer_master", "placement_from_configurations"]


_FIT = 1e-12
"""Relative tolerance of a column's CPU and memory (the checker's memory tolerance)."""


@dataclasses.dataclass(frozen=True)
class ColumnBlock:
    """Configurations in compressed-column form: column ``p`` holds ``value[start[p]:start[p+1]]``
    copies of the types ``index[start[p]:start[p+1]]``; ``block[p]`` is that sparse pair."""

    start: np.ndarray
    index: np.ndarray
    value: np.ndarray

    def __len__(self) -> int:
        return self.start.size - 1

    def __getitem__(self, p: int) -> Column:
        a, b = int(self.start[p]), int(self.start[p + 1])
        return self.index[a:b], self.value[a:b]


@dataclasses.dataclass(frozen=True)
class IntegerMaster:
    """Outcome of one restricted integer master.

    ``status``: ``"found"`` (``counts`` is an integer solution, checked
    here: it covers every demand with at most ``hosts`` bins),
    ``"infeasible"`` (HiGHS proved the *restricted* master has none),
    ``"time_limit"`` (stopped with none), ``"not-run"`` (no time left
    after building the model). ``columns`` are the configurations the
    counts refer to.
    """

    status: str
    columns: ColumnBlock
    counts: np.ndarray | None
    seconds: float


def _block(items: PackingItems, load: float, columns) -> ColumnBlock:
    """The singleton columns at ``load`` followed by ``columns``, in one compressed block."""
    n = items.cpu.size
    singles = singleton_counts(items.cpu, items.mem, items.demand, load)
    sizes = np.array([np.size(c[0]) for c in columns], dtype=np.int64)
    index = np.concatenate([np.arange(n, dtype=np.int64)] + [np.asarray(c[0], dtype=np.int64) for c in columns])
    value = np.concatenate([singles] + [np.asarray(c[1], dtype=float) for c in columns])
    start = np.concatenate(([0], np.cumsum(np.concatenate((np.ones(n, dtype=np.int64), sizes)))))
    return ColumnBlock(start, index, value)


def fitting_columns(items: PackingItems, load: float, columns, *, seed: int = 0) -> ColumnBlock:
    """The singleton columns at ``load`` and every column of ``columns`` that fits ``(load, 1)``
    within the relative tolerance ``1e-12``, duplicates dropped (first occurrence kept), as one
    compressed block; vectorised, ``O(nnz log nnz)``. Duplicates are found by two random linear
    hashes of each column (a collision, with probability about ``1e-16`` per pair, only drops a
    column: the result stays a set of valid configurations)."""
    block = _block(items, load, columns)
    col = np.repeat(np.arange(len(block)), np.diff(block.start))
    m = len(block)
    cpu = np.bincount(col, weights=block.value * items.cpu[block.index], minlength=m)
    mem = np.bincount(col, weights=block.value * items.mem[block.index], minlength=m)
    rng = np.random.default_rng(seed)
    r1, r2 = rng.random(items.cpu.size), rng.random(items.cpu.size)
    keys = np.stack([np.bincount(col, weights=block.value * r[block.index], minlength=m) for r in (r1, r2)]
                    + [np.diff(block.start).astype(float)], axis=1)
    ok = (cpu <= load * (1 + _FIT)) & (mem <= 1 + _FIT) & (np.diff(block.start) > 0)
    _, first = np.unique(keys, axis=0, return_index=True)
    keep = np.zeros(m, dtype=bool)
    keep[first] = True
    keep &= ok
    entry = keep[col]
    sizes = np.diff(block.start)[keep]
    return ColumnBlock(np.concatenate(([0], np.cumsum(sizes))), block.index[entry], block.value[entry])


def _model(items: PackingItems, cols: ColumnBlock, time_limit: float):
    """The MILP in one HiGHS object: cover rows, then the row ``sum x <= H``, then one column block."""
    from vcsched.formulations.solve import new_highs

    highspy, h = new_highs()
    for name, value in (("threads", 1), ("time_limit", max(time_limit, 0.01)), ("mip_rel_gap", 1.0)):
        h.setOptionValue(name, value)
    inf, n, m = highspy.kHighsInf, items.demand.size, len(cols)
    empty_i = np.array([], dtype=np.int32)
    h.addRows(n, items.demand.astype(float), np.full(n, inf), 0, empty_i, empty_i, np.array([]))
    h.addRows(1, np.array([-inf]), np.array([float(items.hosts)]), 0, empty_i, empty_i, np.array([]))
    # every column also enters the row ``sum x <= H`` (index n): one more entry at its end
    sizes = np.diff(cols.start)
    col = np.repeat(np.arange(m), sizes)
    pos = np.arange(cols.index.size) + col  # each column's entries shift by the count row entries before it
    index = np.full(cols.index.size + m, n, dtype=np.int32)
    value = np.ones(cols.index.size + m)
    index[pos], value[pos] = cols.index, cols.value
    starts = (cols.start[:-1] + np.arange(m)).astype(np.int32)
    # x_p never needs more copies than its largest demand / count ratio (nor more than H)
    ratio = np.ceil(items.demand[cols.index] / cols.value)
    upper = np.minimum(np.maximum.reduceat(ratio, cols.start[:-1]), items.hosts)
    h.addCols(m, np.ones(m), np.zeros(m), upper.astype(float), index.size, starts, index, value)
    h.changeColsIntegrality(m, np.arange(m, dtype=np.int32), np.full(m, highspy.HighsVarType.kInteger))
    return highspy, h


def _checked_counts(items: PackingItems, cols: ColumnBlock, x) -> np.ndarray | None:
    """The solution rounded to integers when it covers every demand with at most ``H`` bins."""
    counts = np.maximum(np.round(np.asarray(x, dtype=float)), 0).astype(np.int64)
    col = np.repeat(np.arange(len(cols)), np.diff(cols.start))
    cover = np.bincount(cols.index, weights=cols.value * counts[col], minlength=items.demand.size)
    if counts.sum() > items.hosts or np.any(cover < items.demand - 1e-9):
        return None
    return counts


def solve_integer_master(items: PackingItems, load: float, columns, *, time_limit: float) -> IntegerMaster:
    """The restricted integer master at ``load`` over ``columns`` (plus the singletons), within
    ``time_limit`` seconds in all (building the model, linear in the columns' non-zeros, counts)."""
    from vcsched.formulations.solve import run_interruptibly

    t0 = time.perf_counter()
    cols = fitting_columns(items, load, columns)
    if len(cols) == 0:  # not even a singleton fits: nothing covers the demands
        return IntegerMaster("infeasible", cols, None, time.perf_counter() - t0)
    left = time_limit - (time.perf_counter() - t0)
    if left <= 0.02:
        return IntegerMaster("not-run", cols, None, time.perf_counter() - t0)
    highspy, h = _model(items, cols, left)
    left = time_limit - (time.perf_counter() - t0)
    if left <= 0.02:
        return IntegerMaster("not-run", cols, None, time.perf_counter() - t0)
    h.setOptionValue("time_limit", left)
    run_interruptibly(h)
    status = h.getModelStatus()
    counts = None
    if h.getSolution().value_valid:
        counts = _checked_counts(items, cols, h.getSolution().col_value)
    if counts is not None:
        outcome = "found"
    elif status == highspy.HighsModelStatus.kInfeasible:
        outcome = "infeasible"
    else:
        outcome = "time_limit"
    return IntegerMaster(outcome, cols, counts, time.perf_counter() - t0)


def placement_from_configurations(instance: VCInstance, columns, counts: np.ndarray) -> np.ndarray | None:
    """``counts[p]`` hosts (0, 1, ... in column order) receive configuration ``columns[p]``; the
    tasks of every job fill its slots in order, surplus slots stay empty. None when some task is
    left over or more than ``H`` hosts would be used. ``O(T + sum_p counts_p |a_p|)`` time."""
    end = instance.offsets[1:]
    nxt = instance.offsets[:-1].astype(np.int64).copy()
    th = np.full(instance.n_tasks, -1, dtype=np.int64)
    host = 0
    for p in np.flatnonzero(counts):
        idx, val = columns[p]
        for _ in range(int(counts[p])):
            if host >= instance.hosts:
                return None
            for i, a in zip(idx.tolist(), val.tolist()):
                k = min(int(round(a)), int(end[i] - nxt[i]))
                if k > 0:
                    th[nxt[i]:nxt[i] + k] = host
                    nxt[i] += k
            host += 1
    return None if np.any(th < 0) else th
