"""Large-neighbourhood search for the batch upper side: re-solve a window of jobs exactly, the rest fixed.

A *window* is a set ``W`` of 20-60 jobs of a schedule of the relaxation (:mod:`lowerbounds.batch.instance`);
every other job keeps its cluster and start. :func:`solve_window` re-places the jobs of ``W`` by the
time-indexed MILP of :mod:`lowerbounds.batch.grid` (``x_jks = 1`` when job ``j`` starts at slot ``s`` on
cluster ``k``; each job once; capacity at every slot) against the **residual capacity** the fixed jobs
leave, and returns the schedule when it improves the metric.

The grid is a *restriction* (its schedules are schedules of the relaxation), the reverse of the rounding of
the lower bounds:

* slots of ``delta`` seconds from ``T0 = min_{j in W} S_j`` to ``T1 = max_{j in W} C_j`` (the window's span in
  the current schedule); ``delta = 1`` s when every time is an integer and the span has at most
  ``max_slots`` slots, else ``span / max_slots``; on such an exact grid, ``T1`` is moved on by the window's
  durations ``sum_W min_k p_jk`` when the span still fits;
* job ``j`` may start at slot ``s`` when ``T0 + s delta >= r_j`` (release slot rounded up) and it ends by
  ``T1``; it then occupies the slots ``s .. s + ceil(p_jk / delta) - 1``, which cover its real run
  ``[T0 + s delta, T0 + s delta + p_jk)``;
* the capacity of slot ``t`` on cluster ``k`` is ``m_k`` minus the largest use of the fixed jobs during
  ``[T0 + t delta, T0 + (t + 1) delta)``.

So every MILP solution, mapped back (start ``T0 + s delta``), respects the releases and every cluster's
capacity at every instant; the whole schedule is checked by
:func:`~lowerbounds.batch.instance.check_batch_schedule` all the same. Costs are the real ones (the
response ``T0 + s delta + p_jk - r_j``, or the bounded slowdown). When the times are integers and the
span fits ``max_slots`` slots, the grid is exact: the MILP's optimum is the best placement of ``W`` given
the rest that ends by ``T1``. A window holding every job of a small instance then gives the instance's
optimum: with no fixed job, some optimal schedule leaves no slot after the last release where every
cluster is idle, so it ends by the last release plus ``sum_j min_k p_jk``... and the last release is at most
the current ``T1`` (the horizon argument of :mod:`lowerbounds.batch.grid`, with each job on its fastest
cluster: a job moved to a faster cluster finishes no later). HiGHS runs with
a node limit (``mip_max_nodes``, reproducible) and a time limit as a safety stop; a window whose MILP ends
without a solution, or whose solution is no better, changes nothing.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from lowerbounds.batch.grid import Model, solve_arrays
from lowerbounds.batch.instance import BatchInstance, bounded_slowdown, check_batch_schedule, schedule_metrics

__all__ = ["solve_window", "window_around", "LNS_METRICS", "MAX_SLOTS", "NODE_LIMIT", "WINDOW_SECONDS"]

LNS_METRICS = ("mean_response", "mean_bounded_slowdown")
"""The metrics whose windows are re-solved (sums of per-job costs)."""
MAX_SLOTS = 100
"""Slots of a window's grid."""
NODE_LIMIT = 20
"""Branch-and-bound nodes per window (HiGHS ``mip_max_nodes``)."""
WINDOW_SECONDS = 5.0
"""Safety time limit of one window's MILP; a window it stops is discarded (its result would depend on the
machine's load)."""


def _residual(inst: BatchInstance, fixed: np.ndarray, cluster, start, t0: float, delta: float, slots: int):
    """``cap[k, t]``: processors of cluster ``k`` free during the whole slot ``t`` given the ``fixed`` jobs."""
    cap = np.repeat(inst.procs[:, None].astype(np.int64), slots, axis=1)
    p = inst.duration[fixed, cluster[fixed]]
    s, f = start[fixed], start[fixed] + p
    t1 = t0 + slots * delta
    on = (f > t0) & (s < t1) & (p > 0)
    for j, k, a, b in zip(fixed[on], cluster[fixed][on], s[on], f[on]):
        lo = max(int(math.floor((a - t0) / delta)), 0)
        hi = min(int(math.ceil((b - t0) / delta)), slots)
        cap[k, lo:hi] -= inst.width[j]
    return cap


def _grid(inst: BatchInstance, rows: np.ndarray, start, finish, max_slots: int):
    """``(T0, delta, slots)``; on an exact grid the span is extended by the window's durations when that fits."""
    t0, t1 = float(start[rows].min()), float(finish[rows].max())
    span = t1 - t0
    times = np.concatenate([inst.release[rows], start[rows], inst.duration[rows][np.isfinite(inst.duration[rows])]])
    integer = bool(np.all(times == np.round(times)))
    extra = float(inst.pmin[rows].sum())
    if integer and span + extra <= max_slots:
        span += extra
    delta = 1.0 if integer and span <= max_slots else max(span / max_slots, 1e-9)
    return t0, delta, max(int(math.floor(span / delta + 1e-9)), 1)


def _columns(inst, rows, t0, delta, slots, cap, cost_of):
    J, K, S, D, C = [], [], [], [], []
    for i, j in enumerate(rows):
        first = max(int(math.ceil((inst.release[j] - t0) / delta - 1e-9)), 0)
        for k in range(inst.clusters):
            p = inst.duration[j, k]
            if not np.isfinite(p):
                continue
            d = int(math.ceil(p / delta - 1e-9))
            last = int(math.floor((slots * delta - p) / delta + 1e-9))  # ends by T1
            s = np.arange(first, last + 1)
            if d > 0:  # drop starts where the residual capacity alone already forbids the job
                ok = np.array([cap[k, a:a + d].min() >= inst.width[j] for a in s], dtype=bool)
                s = s[ok]
            J.append(np.full(s.size, i)), K.append(np.full(s.size, k)), S.append(s), D.append(np.full(s.size, d))
            C.append(cost_of(j, k, t0 + s * delta))
    cat = (lambda a, t: np.concatenate(a).astype(t) if a else np.zeros(0, dtype=t))
    return cat(J, np.int64), cat(K, np.int64), cat(S, np.int64), cat(D, np.int64), cat(C, float)


def _model(inst, rows, job, clus, slot, dur, cost, cap) -> Model:
    n, ncol = rows.size, job.size
    assign = sp.csr_matrix((np.ones(ncol), (job, np.arange(ncol))), shape=(n, ncol))
    slots = cap.shape[1]
    reps = dur
    c_idx = np.repeat(np.arange(ncol), reps)
    offs = np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps)
    t = slot[c_idx] + offs
    r_idx = clus[c_idx] * slots + t
    capm = sp.csr_matrix((inst.width[rows][job[c_idx]].astype(float), (r_idx, c_idx)),
                         shape=(inst.clusters * slots, ncol))
    mat = sp.vstack([assign, capm]).tocsr()
    lo = np.concatenate([np.ones(n), np.full(inst.clusters * slots, -np.inf)])
    hi = np.concatenate([np.ones(n), cap.reshape(-1).astype(float)])
    return Model(job, clus, slot, cost, mat, lo, hi)


def _cost(inst: BatchInstance, metric: str):
    def cost(j, k, s):
        p = inst.duration[j, k]
        resp = s + p - inst.release[j]
        return resp if metric == "mean_response" else bounded_slowdown(resp, p)
    return cost


def solve_window(inst: BatchInstance, cluster: np.ndarray, start: np.ndarray, rows: np.ndarray, metric: str, *,
                 max_slots: int = MAX_SLOTS, node_limit: int = NODE_LIMIT, time_limit: float = WINDOW_SECONDS):
    """Re-place the jobs ``rows`` of the schedule ``(cluster, start)`` by the window MILP (module docstring).

    Returns ``(value, cluster, start, columns)``: the new schedule (checked) and its ``metric`` when it is
    better than the current one, else ``(None, cluster, start, columns)`` with the schedule unchanged;
    ``columns`` is the MILP's size (its cost in the search's budget).
    """
    rows = np.asarray(rows, dtype=np.int64)
    n = len(inst)
    if rows.size == 0:
        return None, cluster, start, 0
    finish = start + inst.duration[np.arange(n), cluster]
    t0, delta, slots = _grid(inst, rows, start, finish, max_slots)
    fixed = np.setdiff1d(np.arange(n), rows)
    cap = _residual(inst, fixed, cluster, start, t0, delta, slots)
    job, clus, slot, dur, cost = _columns(inst, rows, t0, delta, slots, cap, _cost(inst, metric))
    if job.size == 0 or np.bincount(job, minlength=rows.size).min() == 0:
        return None, cluster, start, int(job.size)
    model = _model(inst, rows, job, clus, slot, dur, cost, cap)
    outcome, x = solve_arrays(model, mip=True, time_limit=time_limit, options={"mip_max_nodes": int(node_limit)})
    if x is None or outcome.objective is None or "TimeLimit" in outcome.message:
        return None, cluster, start, int(job.size)
    pick = np.flatnonzero(x[:job.size] > 0.5)
    if pick.size != rows.size:
        return None, cluster, start, int(job.size)
    new_c, new_s = cluster.copy(), start.copy()
    new_c[rows[job[pick]]] = clus[pick]
    new_s[rows[job[pick]]] = np.maximum(t0 + slot[pick] * delta, inst.release[rows[job[pick]]])
    check_batch_schedule(inst, new_c, new_s)
    old = schedule_metrics(inst, cluster, start)[metric]
    new = schedule_metrics(inst, new_c, new_s)[metric]
    if new < old:
        return new, new_c, new_s, int(job.size)
    return None, cluster, start, int(job.size)


def window_around(inst: BatchInstance, cluster, start, center: int, size: int) -> np.ndarray:
    """The ``size`` jobs nearest to job ``center`` in start order, without those whose completion lies beyond
    the window's third quartile of completions (long jobs stay fixed: they would stretch the grid's span)."""
    n = len(inst)
    order = np.argsort(start, kind="stable")
    pos = int(np.flatnonzero(order == center)[0])
    lo = max(0, min(pos - size // 2, n - size))
    rows = order[lo:lo + size]
    finish = start[rows] + inst.duration[rows, cluster[rows]]
    return np.sort(rows[finish <= np.quantile(finish, 0.75)])
