"""Queue windows of the bounded slowdown: the long jobs waiting at an instant re-sequenced against all the others.

At an instant ``T`` the *queue window* is the jobs submitted before ``T`` that start in ``[T, T + H)`` (``H`` is
:data:`QUEUE_DAYS`), run at least :data:`QUEUE_PMIN` seconds and are at least :data:`QUEUE_WIDTH` of the largest
cluster wide: on whole traces the bounded slowdown's excess sits in such jobs, which wait hours to weeks for room.
Every other job keeps its cluster and start; the window's jobs are placed anew by serial generation against the
capacity the others leave on ``[T, t_hi)`` (each at or after ``T`` and its submission, ending by ``t_hi``, the
window's last completion now), by the window kernel (:func:`lowerbounds.batch._window.improve_window`): a
first-improvement descent over insertion moves, at most ``4 m^2`` placements for ``m`` jobs, from the current order
and from Smith's order ``q_j p_j max(p_j, tau)`` (the order of :mod:`lowerbounds.batch.bsldtail`), the better kept
when it lowers the window's summed bounded slowdown. The jobs of the window exchange the room they hold among
themselves, in the order that weighs their waits best. A pass visits ``T`` from the first submission on by steps of
``H / 2``; windows of more than :data:`QUEUE_MAX` jobs are skipped. An accepted window is checked with every fixed job
that runs during ``[T, t_hi)`` (:func:`~lowerbounds.batch.instance.check_batch_schedule`: the whole schedule's
check, as in :mod:`lowerbounds.batch.windowsearch`), and the caller checks the whole schedule at the end.

The work count is the kernel's plus :data:`~lowerbounds.batch.windowsearch.WINDOW_WORK` per window and
:data:`~lowerbounds.batch._searchstep.CHECK_WORK` per job checked, so a pass is a function of the schedule and the
budget (no random draw).
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._searchstep import CHECK_WORK, Best, Limit
from lowerbounds.batch._window import improve_window, residual_profile
from lowerbounds.batch.instance import BSLD_TAU, check_batch_schedule
from lowerbounds.batch.windowsearch import WINDOW_WORK, WindowSearch

__all__ = ["QUEUE_DAYS", "QUEUE_PMIN", "QUEUE_WIDTH", "QUEUE_MAX", "QUEUE_SHARE", "queue_rows", "queue_window", "queue_pass", "queue_search"]

QUEUE_DAYS = 1.0
"""``H``: the window holds the jobs that start within this many days of ``T`` (one day rather than two: CTC-SP2 1.602
-> 1.595 at 2.1e10 units, SDSC-SP2 3.114 -> 3.090 and lublin_256 3.402 -> 3.376 at 2.5e9, CTC-SP2 1.770 -> 1.772,
together with the two thresholds below, which were 1 h and 5 %)."""
QUEUE_PMIN = 1800.0
"""Least duration (s) of a window's jobs."""
QUEUE_WIDTH = 0.02
"""Least width of a window's jobs, as a share of the largest cluster."""
QUEUE_MAX = 150
"""Windows of more jobs are skipped (the descent costs ``m^2`` placements)."""
QUEUE_SHARE = 0.5
"""Share of what the bounded slowdown's list moves leave for its queue windows (from 1,000 jobs on, before the window
search of :mod:`lowerbounds.batch.windowsearch`, which has the rest)."""


def queue_rows(ws: WindowSearch, t: float) -> np.ndarray:
    """The queue window at ``t`` (module docstring) of the schedule ``ws`` holds."""
    inst = ws.inst
    p = inst.duration[np.arange(ws.n), ws.cluster]
    return np.flatnonzero((inst.release < t) & (ws.start >= t) & (ws.start < t + QUEUE_DAYS * 86400.0)
                          & (p >= QUEUE_PMIN) & (inst.width >= QUEUE_WIDTH * inst.procs.max()))


def queue_window(ws: WindowSearch, rows: np.ndarray, t: float) -> bool:
    """Re-sequence the jobs ``rows`` (all starting at or after ``t``) of ``ws`` against the others (module
    docstring); True when the schedule improved."""
    inst = ws.inst
    ws.work[0] += WINDOW_WORK
    t_hi = float(ws.finish[rows].max())
    fixed = ws._fixed(rows, t, t_hi)
    bt, bf, nxt, size = residual_profile(ws.procs, ws.cluster[fixed], ws.start[fixed], ws.finish[fixed],
                                         ws.wide[fixed], t, t_hi, 2 * rows.size + 2)
    release, duration = np.ascontiguousarray(inst.release[rows]), np.ascontiguousarray(inst.duration[rows])
    width = np.ascontiguousarray(ws.wide[rows])
    p = duration[np.arange(rows.size), ws.cluster[rows]]
    current = float(ws.costs[rows].sum())
    best = (np.inf, None, None)
    orders = (np.argsort(ws.start[rows], kind="stable"), np.lexsort((ws.start[rows], width * p * np.maximum(p, BSLD_TAU))))
    for perm in orders:
        cost, clus, st, _ = improve_window(release, np.maximum(release, t), width, duration, bt, bf, nxt, size, t_hi,
                                           min(current, best[0]), perm.astype(np.int64), True, 4 * rows.size ** 2,
                                           ws.work)
        if cost < best[0]:
            best = (cost, clus, st)
    if not np.isfinite(best[0]):
        return False
    ws.cluster[rows], ws.start[rows] = best[1], best[2]
    local = np.concatenate([rows, fixed])
    check_batch_schedule(inst.subset(local), ws.cluster[local], ws.start[local])
    ws.work[0] += CHECK_WORK * local.size
    ws.total += best[0] - current
    ws.accepted += 1
    ws._refresh(rows)
    return True


def queue_pass(ws: WindowSearch, stop) -> int:
    """One pass of queue windows over the trace (module docstring) on ``ws`` (metric ``mean_bounded_slowdown``),
    until ``stop()`` is true; returns the number of windows that improved the schedule."""
    release = ws.inst.release
    step = QUEUE_DAYS * 86400.0 / 2
    improved = 0
    for t in np.arange(float(release.min()) + step, float(release.max()), step):
        if stop():
            break
        rows = queue_rows(ws, float(t))
        if 2 <= rows.size <= QUEUE_MAX:
            improved += queue_window(ws, rows, float(t))
    return improved


def queue_search(ev, best: Best, limit: Limit) -> Best:
    """Passes of queue windows (:func:`queue_pass`) from ``best``'s schedule while the work ``limit`` allows and the
    pass before improved; the schedule is checked whole (:meth:`WindowSearch.checked_value`) and kept when better.
    ``ev`` is the search's evaluator (its instance and work counter)."""
    ws = WindowSearch(ev.inst, "mean_bounded_slowdown", best.cluster, best.start, ev._work)
    while not limit.stop() and queue_pass(ws, lambda: limit.stop() is not None):
        pass
    if ws.accepted and ws.checked_value() < best.value:
        return Best(ws.value, best.method, best.detail + f", {ws.accepted} queue windows", ws.cluster, ws.start,
                    "serial", best.a)
    return best
