"""Large-neighbourhood search at trace scale: windows of consecutive jobs re-sequenced against the others.

A *window* is the :data:`WINDOW` jobs around a job drawn by what it adds to the metric above its own best (its
wait for the mean response time; its bounded slowdown above the one it would have without waiting), consecutive in
the current schedule's start order. Every other job keeps its cluster and start. The window's jobs are placed anew
by :func:`lowerbounds.batch._window.improve_window`: serial generation against the residual capacity the fixed jobs
leave on ``[t_lo, t_hi)`` (``t_lo`` the window's earliest start now, ``t_hi`` its latest completion now; each job
starts at or after ``t_lo`` and its submission, and ends by ``t_hi``), a first-improvement descent over insertion
moves of the window's list, at most :data:`EVALS_PER_PAIR` ``m^2`` placements. A placement that lowers the
window's summed cost is kept, once
:func:`~lowerbounds.batch.instance.check_batch_schedule` has accepted the window's jobs with the fixed jobs that run
during ``[t_lo, t_hi)``: that is the check of the whole schedule, which was valid before, since only the window's
jobs moved and all of them run within ``[t_lo, t_hi)`` (a processor count exceeded at some instant is exceeded at
the latest start at or before it, and every job running then is among those checked). The caller checks the whole
schedule once more at the end (:meth:`WindowSearch.checked_value`).

It is the compiled counterpart of the window MILP of :mod:`lowerbounds.batch.lns`: no time grid (exact times, so
nothing is lost to rounding) and a heuristic re-sequencing instead of an exact one, at 1-100 ms a window instead of
seconds. A window already tried, with the same jobs at the same places around it, is not tried again
(the answer would be the same).

The search is a function of the seed (``rng``) and of its stop (work units, windows without improvement): the
kernel counts the profile breakpoints it visits; each window adds :data:`WINDOW_WORK` units and each check
:data:`~lowerbounds.batch._searchstep.CHECK_WORK` per job checked.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._searchstep import CHECK_WORK, run_until_stopped
from lowerbounds.batch._window import improve_window, residual_profile
from lowerbounds.batch.instance import BatchInstance, bounded_slowdown, check_batch_schedule, schedule_metrics

__all__ = ["WindowSearch", "WINDOW", "EVALS_PER_PAIR", "WINDOW_WORK"]

WINDOW = 32
"""Jobs in a window."""
EVALS_PER_PAIR = 1
"""A window's descent stops after ``EVALS_PER_PAIR * m^2`` placements (``m`` jobs), or a pass without improvement."""
WINDOW_WORK = 20_000
"""Work units per window besides the kernel's own count (choosing the window, its fixed jobs)."""


class WindowSearch:
    """The current schedule (rows of ``inst``) and its windows (module docstring); ``metric`` is
    ``mean_response`` or ``mean_bounded_slowdown``; ``work`` a one-element counter of work units."""

    def __init__(self, inst: BatchInstance, metric: str, cluster, start, work: np.ndarray, size: int = WINDOW):
        self.inst, self.metric, self.work, self.size = inst, metric, work, size
        self.bsld = metric == "mean_bounded_slowdown"
        self.cluster, self.start = np.array(cluster, dtype=np.int64), np.array(start, dtype=float)
        self.procs = np.ascontiguousarray(inst.procs.astype(np.int64))
        self.wide = np.ascontiguousarray(inst.width.astype(np.int64))
        fin = np.isfinite(inst.duration)
        self.pmax = float(inst.duration[fin].max()) if fin.any() else 0.0
        self.pmin = np.where(fin, inst.duration, np.inf).min(axis=1)
        self.n = len(inst)
        self.tried: set = set()
        self.windows = self.accepted = 0
        self._refresh()
        self.total = float(self.costs.sum())

    def _refresh(self, rows=None) -> None:
        """The finishes, costs, draw weights and start order, from scratch or after the jobs ``rows`` moved (their
        entries of the start order are taken out and put back at their new starts)."""
        every = np.arange(self.n) if rows is None else rows
        p = self.inst.duration[every, self.cluster[every]]
        if rows is None:
            self.finish = self.start + p
            self.costs = self._cost(self.start, p, self.inst.release)
            self.best = self._cost(self.inst.release, self.pmin, self.inst.release)
            self.by_start = np.argsort(self.start, kind="stable")
        else:
            self.finish[rows] = self.start[rows] + p
            self.costs[rows] = self._cost(self.start[rows], p, self.inst.release[rows])
            keep = np.delete(self.by_start, np.sort(self.pos[rows]))
            new = rows[np.argsort(self.start[rows], kind="stable")]
            at = np.searchsorted(self.start[keep], self.start[new], side="right")
            self.by_start = np.insert(keep, at, new)
        self.cum = np.cumsum(np.maximum(self.costs - self.best, 0.0))
        self.sorted_start = self.start[self.by_start]
        self.pos = np.empty(self.n, dtype=np.int64)
        self.pos[self.by_start] = np.arange(self.n)

    def _cost(self, start, p, release):
        resp = start + p - release
        return bounded_slowdown(resp, p) if self.bsld else resp

    @property
    def value(self) -> float:
        return self.total / self.n

    def window(self, rng) -> np.ndarray:
        """The window around a job drawn by its excess (uniformly when no job has any)."""
        if self.cum[-1] > 0:
            j = min(int(np.searchsorted(self.cum, rng.random() * self.cum[-1], side="right")), self.n - 1)
        else:
            j = int(rng.integers(self.n))
        m = min(self.size, self.n)
        lo = max(0, min(int(self.pos[j]) - m // 2, self.n - m))
        return self.by_start[lo:lo + m]

    def _fixed(self, rows, t_lo, t_hi) -> np.ndarray:
        """The jobs outside ``rows`` that run during ``[t_lo, t_hi)``."""
        a, b = np.searchsorted(self.sorted_start, (t_lo - self.pmax, t_hi), side="left")
        cand = self.by_start[a:b]
        cand = cand[self.finish[cand] > t_lo]
        return np.setdiff1d(cand, rows)

    def step(self, rng) -> bool:
        """One window (module docstring); True when it improved the schedule."""
        self.windows += 1
        self.work[0] += WINDOW_WORK
        rows = np.sort(self.window(rng))
        inst = self.inst
        t_lo, t_hi = float(self.start[rows].min()), float(self.finish[rows].max())
        fixed = self._fixed(rows, t_lo, t_hi)
        memo = b"".join(x.tobytes() for x in (rows, self.start[rows], fixed, self.start[fixed]))
        if memo in self.tried:
            return False
        self.tried.add(memo)
        bt, bf, nxt, size = residual_profile(self.procs, self.cluster[fixed], self.start[fixed], self.finish[fixed],
                                             self.wide[fixed], t_lo, t_hi, 2 * rows.size + 2)
        perm = np.argsort(self.start[rows], kind="stable")
        current = float(self.costs[rows].sum())
        m = rows.size
        release = np.ascontiguousarray(inst.release[rows])
        cost, clus, st, _evals = improve_window(
            release, np.maximum(release, t_lo), np.ascontiguousarray(self.wide[rows]),
            np.ascontiguousarray(inst.duration[rows]), bt, bf, nxt, size, t_hi, current, perm, self.bsld,
            EVALS_PER_PAIR * m * m, self.work)
        if not np.isfinite(cost):
            return False
        self.cluster[rows], self.start[rows] = clus, st
        local = np.concatenate([rows, fixed])
        check_batch_schedule(inst.subset(local), self.cluster[local], self.start[local])
        self.work[0] += CHECK_WORK * local.size
        self.total += cost - current
        self.accepted += 1
        self._refresh(rows)
        return True

    def checked_value(self) -> float:
        """The metric of the current schedule, recomputed and checked against the tracked one."""
        check_batch_schedule(self.inst, self.cluster, self.start)
        v = schedule_metrics(self.inst, self.cluster, self.start)[self.metric]
        assert abs(v - self.value) <= 1e-6 * max(abs(v), 1.0), "tracked and recomputed window-search values differ"
        return v


def search_windows(ws: WindowSearch, rng, stop, patience: int | None = None, counter=None) -> str:
    """Windows on ``ws`` until ``stop(idle)`` names a reason (``idle``: windows since the last improvement), or
    ``patience`` windows pass without improvement; returns the reason. ``counter.count`` (when given) is raised by
    one per window."""

    def window() -> bool:
        improved = ws.step(rng)
        if counter is not None:
            counter.count += 1
        return improved

    return run_until_stopped(window, stop, patience)
