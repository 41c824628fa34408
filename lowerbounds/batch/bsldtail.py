"""The tail of a bounded-slowdown schedule re-sequenced by Smith's ratio (the last step of the clairvoyant search for
the mean bounded slowdown, :mod:`lowerbounds.batch.clairvoyant`).

The *tail* is the jobs that start at or after the last submission: every job is known by then, so their order is
a batch problem, the sum of ``w_j C_j`` with ``w_j = 1 / max(p_j, tau)`` (the bounded slowdown of a job that does
not start at once is ``(C_j - r_j) / max(p_j, tau)``). On whole traces the search leaves there the widest long
jobs, which waited for room until nothing else was left, in submission order. The step places them in the order
of Smith's ratio for jobs of width ``q_j``, area over weight ``q_j p_j max(p_j, tau)`` (smallest first; on one
processor, or when every job takes the whole cluster, this order is optimal for ``sum w_j C_j`` (Smith 1956)):
the serial construction runs once over the list of the current starts with the tail jobs after every other job in
that order, and the schedule is kept when its bounded slowdown is lower. ``p_j`` is the job's shortest duration.
Then the tail's list is improved as one window of the window search (:mod:`lowerbounds.batch.windowsearch`): every
other job keeps its place, the tail jobs are placed anew by serial generation against the capacity the others
leave, starting at or after the last submission and ending by the tail's last completion now, and the window
kernel's first-improvement descent over insertion moves (:func:`lowerbounds.batch._window.improve_window`) runs from
the tail's current order, at most ``4 m^2`` placements for ``m`` tail jobs and as many as the work left allows
(:data:`UNITS_PER_JOB` per job placed); a lower summed bounded slowdown is kept, and the whole schedule is checked
(:func:`~lowerbounds.batch.instance.check_batch_schedule`) before its value is read.

Measured on the schedules the search ends with at 2.5e9 work units (``grid bound --trace T``'s instances): the Smith
order alone, SDSC-SP2 3.114 -> 3.081 and lublin_256 3.430 -> 3.407 (CTC-SP2 unchanged); the descent after it, 3.078
and 3.387.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._searchstep import CHECK_WORK, Best, Limit
from lowerbounds.batch._window import improve_window, residual_profile
from lowerbounds.batch.instance import BSLD_TAU, bounded_slowdown, check_batch_schedule, schedule_metrics

__all__ = ["tail_key", "smith_tail", "tail_descent", "UNITS_PER_JOB"]

UNITS_PER_JOB = 50
"""Work units per job placed that the tail descent is expected to cost (measured: about 48 on SDSC-SP2 and lublin_256
tails of 100 jobs); the descent's placements are capped so that it fits the work left."""


def tail_key(release: np.ndarray, start: np.ndarray, width: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The list (one key per job, smaller first): the jobs by their ``start``, those that start at or after the last
    submission after all the others, by Smith's ratio ``q p max(p, tau)`` (ties: by start)."""
    tail = start >= release.max()
    key = np.asarray(start, dtype=float).copy()
    ratio = width[tail] * p[tail] * np.maximum(p[tail], BSLD_TAU)
    rank = np.empty(int(tail.sum()))
    rank[np.lexsort((start[tail], ratio))] = np.arange(rank.size)
    key[tail] = float(np.max(start)) + 1.0 + rank
    return key


def tail_descent(ev, best: Best, limit: Limit) -> Best:
    """The window descent over ``best``'s tail (module docstring) within the work ``limit`` leaves; kept when
    better."""
    inst, rows = ev.inst, np.flatnonzero(best.start >= ev.release[-1])
    m = rows.size
    evals = min(4 * m * m, int(max(limit.work_end - ev.work, 0) / (UNITS_PER_JOB * max(m, 1))))
    if m < 2 or evals < 2:
        return best
    cluster, start = np.asarray(best.cluster, dtype=np.int64), np.asarray(best.start, dtype=float)
    finish = start + inst.duration[np.arange(len(inst)), cluster]
    t_lo, t_hi = float(ev.release[-1]), float(finish[rows].max())
    others = np.flatnonzero((finish > t_lo) & (start < t_hi))
    fixed = np.setdiff1d(others, rows)
    width = np.ascontiguousarray(inst.width.astype(np.int64))
    bt, bf, nxt, size = residual_profile(ev.procs, cluster[fixed], start[fixed], finish[fixed], width[fixed], t_lo,
                                         t_hi, 2 * m + 2)
    release, duration = np.ascontiguousarray(inst.release[rows]), np.ascontiguousarray(inst.duration[rows])
    p = duration[np.arange(m), cluster[rows]]
    current = float(bounded_slowdown(finish[rows] - release, p).sum())
    cost, clus, st, _ = improve_window(release, np.maximum(release, t_lo), np.ascontiguousarray(width[rows]), duration,
                                       bt, bf, nxt, size, t_hi, current, np.argsort(start[rows], kind="stable"),
                                       True, evals, ev._work)
    if not np.isfinite(cost):
        return best
    cluster, start = cluster.copy(), start.copy()
    cluster[rows], start[rows] = clus, st
    check_batch_schedule(inst, cluster, start)
    ev._work[0] += CHECK_WORK * len(inst)
    value = schedule_metrics(inst, cluster, start)["mean_bounded_slowdown"]
    if value < best.value:
        return Best(value, best.method, best.detail + ", tail re-sequenced", cluster, start, "serial", best.a)
    return best


def smith_tail(ev, best: Best, metric: str = "mean_bounded_slowdown") -> Best:
    """``best`` with its tail re-sequenced by Smith's ratio (module docstring) when that lowers ``metric``; ``ev``
    is the search's evaluator (submission order; ``ev.run`` checks the schedule)."""
    rows = ev.order
    start, cluster = best.start[rows], best.cluster[rows]
    p = ev.duration[np.arange(rows.size), cluster]
    key = tail_key(ev.release, start, ev.width, p)
    if np.array_equal(np.argsort(key, kind="stable"), np.argsort(start, kind="stable")):
        return best
    values, clus, st = ev.run(key, "serial")
    if values[metric] < best.value:
        return Best(values[metric], best.method, best.detail + ", then the tail by Smith's ratio", clus, st, "serial",
                    best.a)
    return best
