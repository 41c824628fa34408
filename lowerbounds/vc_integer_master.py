"""The restricted integer master of the configuration model: a packing built from LP columns.

Seed 001 §2.5/§3.1: a placement with largest load ``<= L`` is a packing of
the tasks, as 2-D items ``(alpha_i, m_i)``, into ``H`` bins of capacity
``(L, 1)``. The Gilmore-Gomory model writes a packing as configurations
(columns ``a_p``: copies of each item type one bin holds) and counts
``x_p`` of bins of each. *Price-and-branch*: the configuration LP
(:func:`lowerbounds.vc_packing.configuration_lp`) generates columns; the
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
caller (:func:`lowerbounds.vc_certify.certify`) re-checks every placement
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

from lowerbounds.vc_packing import Column, PackingItems, singleton_counts
from vcsched.problems.vc import VCInstance

__all__ = ["IntegerMaster", "fitting_columns", "solve_integer_master", "placement_from_configurations"]

_FIT = 1e-12
"""Relative tolerance of a column's CPU and memory (the checker's memory tolerance)."""


@dataclasses.dataclass(frozen=True)
class IntegerMaster:
    """Outcome of one restricted integer master.

    ``status``: ``"found"`` (``counts`` is an integer solution, checked
    here: it covers every demand with at most ``hosts`` bins),
    ``"infeasible"`` (HiGHS proved the *restricted* master has none),
    ``"time_limit"`` (stopped with none), ``"not-run"`` (no time).
    ``columns`` are the configurations the counts refer to.
    """

    status: str
    columns: tuple[Column, ...]
    counts: np.ndarray | None
    seconds: float


def fitting_columns(items: PackingItems, load: float, columns) -> list[Column]:
    """The singleton columns at ``load`` and every column of ``columns`` that fits ``(load, 1)``
    within the relative tolerance ``1e-12``, duplicates dropped (sparse; first occurrence kept)."""
    cap_c, cap_m = load * (1 + _FIT), 1 + _FIT
    out: list[Column] = []
    seen: set[bytes] = set()
    n = items.cpu.size
    singles = singleton_counts(items.cpu, items.mem, items.demand, load)
    candidates = [(np.array([i]), singles[i:i + 1]) for i in range(n)]
    for idx, val in candidates + list(columns):
        idx, val = np.asarray(idx, dtype=np.int64), np.asarray(val, dtype=float)
        if val.size == 0 or float(val @ items.cpu[idx]) > cap_c or float(val @ items.mem[idx]) > cap_m:
            continue
        order = np.argsort(idx, kind="stable")
        idx, val = idx[order], val[order]
        key = idx.tobytes() + val.tobytes()
        if key not in seen:
            seen.add(key)
            out.append((idx, val))
    return out


def _model(items: PackingItems, columns: list[Column], time_limit: float):
    """The MILP in one HiGHS object: cover rows, then the row ``sum x <= H``, then one column block."""
    from vcsched.formulations.solve import new_highs

    highspy, h = new_highs()
    for name, value in (("threads", 1), ("time_limit", max(time_limit, 0.01)), ("mip_rel_gap", 1.0)):
        h.setOptionValue(name, value)
    inf, n, m = highspy.kHighsInf, items.demand.size, len(columns)
    empty_i = np.array([], dtype=np.int32)
    h.addRows(n, items.demand.astype(float), np.full(n, inf), 0, empty_i, empty_i, np.array([]))
    h.addRows(1, np.array([-inf]), np.array([float(items.hosts)]), 0, empty_i, empty_i, np.array([]))
    idx = [np.append(c[0], n).astype(np.int32) for c in columns]
    val = [np.append(c[1], 1.0) for c in columns]
    starts = np.concatenate(([0], np.cumsum([i.size for i in idx])[:-1])).astype(np.int32)
    # x_p never needs more copies than its largest demand / count ratio (nor more than H)
    upper = np.array([min(items.hosts, float(np.max(np.ceil(items.demand[c[0]] / c[1])))) for c in columns])
    h.addCols(m, np.ones(m), np.zeros(m), upper, int(starts[-1] + idx[-1].size), starts,
              np.concatenate(idx), np.concatenate(val))
    h.changeColsIntegrality(m, np.arange(m, dtype=np.int32), np.full(m, highspy.HighsVarType.kInteger))
    return highspy, h


def _checked_counts(items: PackingItems, columns: list[Column], x) -> np.ndarray | None:
    """The solution rounded to integers when it covers every demand with at most ``H`` bins."""
    counts = np.maximum(np.round(np.asarray(x, dtype=float)), 0).astype(np.int64)
    cover = np.zeros(items.demand.size)
    for (idx, val), k in zip(columns, counts):
        if k:
            np.add.at(cover, idx, k * val)
    if counts.sum() > items.hosts or np.any(cover < items.demand - 1e-9):
        return None
    return counts


def solve_integer_master(items: PackingItems, load: float, columns, *, time_limit: float) -> IntegerMaster:
    """The restricted integer master at ``load`` over ``columns`` (plus the singletons), at most
    ``time_limit`` seconds of HiGHS (the model build is linear in the columns' non-zeros)."""
    from vcsched.formulations.solve import run_interruptibly

    t0 = time.perf_counter()
    cols = fitting_columns(items, load, columns)
    if time_limit <= 0.01 or not cols:
        return IntegerMaster("not-run", tuple(cols), None, time.perf_counter() - t0)
    highspy, h = _model(items, cols, time_limit - (time.perf_counter() - t0))
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
    return IntegerMaster(outcome, tuple(cols), counts, time.perf_counter() - t0)


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
