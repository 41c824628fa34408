"""Packings from the configuration LP's columns: the restricted integer master and price-and-dive.

Both are heuristics (the upper side of :func:`lowerbounds.vector.certify.certify_packing`);
"nothing found" proves nothing.

* :func:`integer_master`: *price-and-branch* (Vanderbeck 1999), the model of
  :mod:`lowerbounds.vc.integer_master` with the bins minimised::

      min sum_p x_p   s.t.   sum_p a_ip x_p >= b_i,   x_p >= 0 integer

  over the columns generated so far that fit the checker's bins (relative
  tolerance ``1e-12``), solved by HiGHS within a time limit.
* :func:`dive`: *pure diving* (Sadykov et al. 2019), as
  :func:`lowerbounds.vc.dive.dive_packing` with the d-dimensional knapsack:
  solve the configuration LP by column generation, raise the lower bound of
  every column whose value above its bound is ``>= 1/2`` by the integer part of
  that excess (at least one), or else of the column of largest excess by one,
  and repeat until the solution is integer; the counts are a packing. Aimed
  at a proven lower bound (``target``), a fixing after which the LP needs more
  bins is undone and forbidden (a few times, as in
  :func:`lowerbounds.vc.dive.dive_packing`); otherwise the packing's bins may
  exceed the LP's.

:func:`bins_from_counts` turns configuration counts into item-to-bin maps:
``x_p`` bins receive configuration ``p``, the copies of each type filling
its slots in order (surplus slots stay empty, which only lowers a load).

References: F. Vanderbeck. Computational study of a column generation
algorithm for bin packing and cutting stock problems. Mathematical
Programming 86 (1999). R. Sadykov et al. Primal heuristics for branch and
price: the assets of diving methods. INFORMS Journal on Computing 31 (2019).
"""

from __future__ import annotations

import time

import numpy as np

from lowerbounds.vc.packing import Column, MasterLP, improving_columns
from lowerbounds.vector.configuration import singletons
from lowerbounds.vector.knapsack import knapsack_nd

__all__ = ["fitting", "bins_from_counts", "integer_master", "dive"]

_FIT = 1e-12
_INT_TOL = 1e-6
_DIVE_NODES = 300_000


def fitting(sizes: np.ndarray, count: np.ndarray, columns) -> list[Column]:
    """The singleton columns and every column of ``columns`` that fits the checker's bin, without
    duplicates; counts capped at the type counts."""
    out: dict = {}
    singles = singletons(sizes, count)
    for i in range(count.size):
        out[((i,), (singles[i],))] = (np.array([i]), singles[i:i + 1].copy())
    for idx, val in columns:
        idx = np.asarray(idx, dtype=np.int64)
        val = np.minimum(np.asarray(val, dtype=float), count[idx])
        if np.all(val @ sizes[idx] <= 1 + _FIT):
            out.setdefault((tuple(idx.tolist()), tuple(val.tolist())), (idx, val))
    return list(out.values())


def bins_from_counts(count: np.ndarray, columns: list[Column], x: np.ndarray) -> np.ndarray | None:
    """The bin of every item (items numbered type by type) when ``x`` copies of the columns cover every
    count; None otherwise."""
    start = np.concatenate(([0], np.cumsum(count)))
    nxt = start[:-1].copy()
    where = np.full(int(count.sum()), -1, dtype=np.int64)
    b = 0
    for p in np.flatnonzero(x):
        idx, val = columns[p]
        for _ in range(int(x[p])):
            used = False
            for i, a in zip(idx.tolist(), val.tolist()):
                k = min(int(round(a)), int(start[i + 1] - nxt[i]))
                if k > 0:
                    where[nxt[i]:nxt[i] + k] = b
                    nxt[i] += k
                    used = True
            b += used
    return None if np.any(where < 0) else where


def column_arrays(columns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The column-wise arrays (starts, row indices, values) of columns given as ``(rows, values)`` pairs."""
    starts = np.concatenate(([0], np.cumsum([c[0].size for c in columns])[:-1])).astype(np.int32)
    return (starts, np.concatenate([c[0] for c in columns]).astype(np.int32),
            np.concatenate([c[1] for c in columns]).astype(float))


def solve_integer_columns(h, highspy, cost: np.ndarray, upper: np.ndarray, arrays) -> np.ndarray | None:
    """Add integer columns (``cost``, bounds ``[0, upper]``, :func:`column_arrays`) to the HiGHS model ``h``
    (its rows already there), solve it (interruptibly), and return the columns' values rounded to
    non-negative integers; None when HiGHS holds no solution (a time limit before the first one)."""
    from vcsched.formulations.solve import run_interruptibly

    starts, index, value = arrays
    m = cost.size
    h.addCols(m, cost, np.zeros(m), upper, index.size, starts, index, value)
    h.changeColsIntegrality(m, np.arange(m, dtype=np.int32), np.full(m, highspy.HighsVarType.kInteger))
    run_interruptibly(h)
    if not h.getSolution().value_valid:
        return None
    return np.maximum(np.round(np.asarray(h.getSolution().col_value)), 0).astype(np.int64)


def integer_master(sizes: np.ndarray, count: np.ndarray, columns, *, time_limit: float,
                   cutoff: int | None = None) -> np.ndarray | None:
    """The restricted integer master (module docstring) within ``time_limit`` seconds, looking only
    for packings of at most ``cutoff`` bins (HiGHS's ``objective_bound``; the caller's best packing
    minus one). The bin of every item, or None."""
    from vcsched.formulations.solve import new_highs

    cols = fitting(sizes, count, columns)
    highspy, h = new_highs()
    h.setOptionValue("threads", 1)
    h.setOptionValue("time_limit", max(time_limit, 0.01))
    h.setOptionValue("mip_abs_gap", 1 - 1e-6)  # bins are integers: a gap below one is closed
    if cutoff is not None:
        h.setOptionValue("objective_bound", float(cutoff) + 0.5)
    inf, m, n = highspy.kHighsInf, len(cols), count.size
    empty = np.array([], dtype=np.int32)
    h.addRows(n, count.astype(float), np.full(n, inf), 0, empty, empty, np.array([]))
    upper = np.array([np.max(np.ceil(count[c[0]] / c[1])) for c in cols])
    x = solve_integer_columns(h, highspy, np.ones(m), upper, column_arrays(cols))
    return None if x is None else bins_from_counts(count, cols, x)


class _Dive:
    """The master, its columns and the pricing."""

    def __init__(self, sizes: np.ndarray, count: np.ndarray, columns, deadline: float | None) -> None:
        self.sizes, self.count, self.deadline = sizes, count, deadline
        self.master = MasterLP(count)
        self.columns: list[Column] = []
        for col in fitting(sizes, count, columns):
            self.add(col)

    def add(self, col: Column) -> None:
        self.master.add(col)
        self.columns.append(col)

    def expired(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline

    def generate(self, rounds: float) -> float | None:
        """Column generation (at most ``rounds`` pricings): the master's value, None if it failed."""
        it = 0
        while True:
            solved = self.master.solve(self.deadline)
            if solved is None:
                return None
            if it >= rounds or self.expired():
                return solved[0]
            it += 1
            pi = solved[1]
            sol = knapsack_nd(pi, self.sizes, self.count, node_limit=_DIVE_NODES)
            new = improving_columns(pi, sol.found)
            if not new:
                return solved[0]
            for col in new:
                self.add(col)

    def values(self) -> np.ndarray:
        return np.asarray(self.master.h.getSolution().col_value, dtype=float)


def _fixing(x: np.ndarray, lower: np.ndarray, fix_at: float) -> tuple[np.ndarray, np.ndarray]:
    """The columns to raise and their new lower bounds (module docstring)."""
    excess = x - lower
    cols = np.flatnonzero(excess >= fix_at)
    if cols.size:
        return cols, lower[cols] + np.maximum(np.floor(excess[cols] + _INT_TOL), 1.0)
    cols = np.array([int(np.argmax(excess))])
    return cols, lower[cols] + 1.0


def dive(sizes: np.ndarray, count: np.ndarray, columns=(), *, deadline: float | None = None,
         rounds: float = np.inf, fix_at: float = 0.5, target: int | None = None,
         backtracks: int = 10) -> np.ndarray | None:
    """Pure diving (module docstring) from ``columns``, at most ``rounds`` pricings after each fixing
    (default: the LP is re-solved to the end, which finds far better packings than a few rounds on
    the generated classes). With ``target`` (a proven lower bound), a fixing after which the LP
    exceeds ``target`` bins is undone and forbidden (the raised columns keep their former bound),
    at most ``backtracks`` times; then the dive goes on without a target. The bin of every item,
    or None (deadline, or the master failed)."""
    state = _Dive(sizes, count, columns, deadline)
    value = state.generate(np.inf)
    lower = np.zeros(0)
    history: list[tuple[np.ndarray, np.ndarray]] = []
    while value is not None and not state.expired():
        x = state.values()
        lower = np.concatenate((lower, np.zeros(x.size - lower.size)))
        if target is not None and value > target + _INT_TOL:
            if history and backtracks > 0:
                cols, before = history.pop()
                for p, b in zip(cols.tolist(), before.tolist()):
                    state.master.h.changeColBounds(int(p), float(b), float(b))
                lower[cols] = before
                backtracks -= 1
                value = state.generate(rounds)
                continue
            target = None
        if np.all(np.abs(x - np.round(x)) <= _INT_TOL):
            return bins_from_counts(count, state.columns, np.round(x).astype(np.int64))
        cols, raised = _fixing(x, lower, fix_at)
        history.append((cols, lower[cols].copy()))
        for p, r in zip(cols.tolist(), raised.tolist()):
            state.master.h.changeColBounds(int(p), float(r), state.master.inf)
        lower[cols] = raised
        value = state.generate(rounds)
    return None
