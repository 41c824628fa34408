"""Oracle of Algorithm 2's event: the choices and resubmissions one grid query and submission at a time.

:class:`OracleReallocation` is :class:`heuristics.grid.realloc.Reallocation` with the
event of Algorithm 2 written as the paper reads (seed 000 §2.2.1): after the
cancellations, choose a job with the heuristic on the ECT matrix of the remaining jobs
(:meth:`vcsched.sim.Grid.ect`, :meth:`vcsched.sim.Cluster.ect_many`: the clusters' own
answers, no planning snapshot), submit it with :meth:`vcsched.sim.Grid.submit` to the
first cluster of minimum ECT (its previous one when within the threshold), recompute that
cluster's column, choose again. It accepts any registered heuristic (numpy selection
for keys without a compiled form) and any cluster. The production event
(:mod:`heuristics.grid.fastevent` on :class:`vcsched.sim.planning.PlanningSnapshot`) is
tested to give the same run, ``jobs.csv`` byte for byte.
"""

from __future__ import annotations

import numpy as np

from heuristics.grid.realloc import Reallocation, select_job

__all__ = ["OracleReallocation"]


class OracleReallocation(Reallocation):
    """:class:`Reallocation` whose Algorithm 2 event is the one-query-at-a-time oracle."""

    def _resubmit(self, grid, jobs: np.ndarray, prev: np.ndarray, planned: np.ndarray | None) -> None:
        n = jobs.size
        K = len(grid.clusters)
        procs = np.asarray(grid.jobs.procs[jobs], dtype=np.float64)
        rows = np.arange(n)
        alive = np.ones(n, dtype=bool)
        mct = self.heuristic == "mct"
        E = np.empty((n, K)) if mct else self._matrix(grid, jobs, procs)
        dirty: set = set()
        for step in range(n):
            if mct:
                i = step
                self._row(grid, jobs, E, i, range(K))
            else:
                if dirty:
                    live = np.flatnonzero(alive)
                    for k in dirty:
                        self._column(grid, k, jobs, procs, E, live)
                    dirty.clear()
                if self.verify:
                    self._check(grid, jobs, E, alive)
                current = planned if planned is not None else E[rows, prev]
                i = select_job(self.heuristic, E, current, procs, alive)
            alive[i] = False
            row = E[i]
            p = int(prev[i])
            b = int(np.argmin(row))
            if row[p] <= row[b] + (self.threshold if self.cancel_threshold else 0.0):
                b = p
            j = int(jobs[i])
            grid.submit(j, b)
            if b != p:
                self._move(j, p, b)
            dirty.add(b)
